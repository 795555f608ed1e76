//! One taxonomy (SPEC §16): for the same Gemini CLI output and the same end
//! of the process, `runGeminiTool`'s `error_kind` ([`GeminiToolRun`]) is
//! `runAgent('google-gemini', …)`'s `error.kind` ([`AgentRunner`]), and the
//! two retry alike.
//!
//! The output is Gemini CLI 0.61's own, as seen against the mock API: the
//! recorded runs in tests/fixtures/cli/ and lines copied from the live runs
//! (tests/cli/gemini_tool.test.cjs, tests/cli/run_agent.test.cjs); the exit
//! code of an API error is its HTTP status mod 256.

use agent_context::gemini_tool::{AttemptEnd, ErrorKind, GeminiToolRun, StopReason};
use agent_context::run::{AgentErrorKind, AgentRunner};
use serde_json::{json, Value};

const SESSION: &str = "b425ff71-01f0-4076-bc86-ba426f1cea0e";
const OTHER_SESSION: &str = "3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/cli/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// A run that failed on the API: `init`, then a failed `result` with
/// `message` (as Gemini CLI escapes it).
fn failed(message: &str) -> Vec<u8> {
    format!(
        r#"{{"type":"init","timestamp":"2026-11-22T02:05:31.971Z","session_id":"{SESSION}","model":"gemini-2.5-flash"}}
{{"type":"message","timestamp":"2026-11-22T02:05:31.974Z","role":"user","content":"What UI framework should we use, and why?"}}
{{"type":"result","timestamp":"2026-11-22T02:05:32.041Z","status":"error","error":{{"type":"unknown","message":"{message}"}},"stats":{{"total_tokens":0,"input_tokens":0,"output_tokens":0,"cached":0,"input":0,"duration_ms":0,"tool_calls":0}}}}
"#
    )
    .into_bytes()
}

/// The API's JSON error body inside Gemini CLI's `[API Error: …]`.
fn api_error(code: u16, message: &str, status: &str) -> Vec<u8> {
    failed(&format!(
        r#"[API Error: {{\"error\":{{\"code\":{code},\"message\":\"{message}\",\"status\":\"{status}\"}}}}]"#
    ))
}

fn exited(code: i32) -> AttemptEnd {
    AttemptEnd {
        exit_code: Some(code),
        ..Default::default()
    }
}

fn stopped(reason: StopReason) -> AttemptEnd {
    AttemptEnd {
        stopped: Some(reason),
        signal: Some("SIGKILL".into()),
        ..Default::default()
    }
}

fn not_started(code: &str) -> AttemptEnd {
    AttemptEnd {
        spawn_error: Some(code.into()),
        ..Default::default()
    }
}

fn signalled(signal: &str) -> AttemptEnd {
    AttemptEnd {
        signal: Some(signal.into()),
        ..Default::default()
    }
}

/// One Gemini CLI attempt: what it printed and how it ended.
struct Case {
    what: &'static str,
    session: Option<&'static str>,
    stdout: Vec<u8>,
    stderr: &'static str,
    end: AttemptEnd,
    /// The kind both must say (`None`: success).
    expected: Option<&'static str>,
}

fn case(
    what: &'static str,
    stdout: Vec<u8>,
    stderr: &'static str,
    end: AttemptEnd,
    expected: Option<&'static str>,
) -> Case {
    Case {
        what,
        session: None,
        stdout,
        stderr,
        end,
        expected,
    }
}

fn cases() -> Vec<Case> {
    let plain = fixture("gemini-plain.jsonl");
    let cut = plain[..plain.len() / 2].to_vec();
    let none = Vec::new;
    vec![
        case("success", plain.clone(), "", exited(0), None),
        // HTTP errors: the status in the API's JSON and in the exit code.
        case(
            "HTTP 400",
            api_error(400, "Mock rejects this request: temperature is out of range.", "INVALID_ARGUMENT"),
            "",
            exited(144),
            Some("request_rejected"),
        ),
        case(
            "HTTP 400, API key not valid (recorded)",
            fixture("gemini-error.jsonl"),
            "",
            exited(144),
            Some("auth_error"),
        ),
        case(
            "HTTP 400, too many input tokens",
            api_error(400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).", "INVALID_ARGUMENT"),
            "",
            exited(144),
            Some("context_too_long"),
        ),
        case(
            "HTTP 401",
            api_error(401, "Mock: request had invalid authentication credentials.", "UNAUTHENTICATED"),
            "",
            exited(145),
            Some("auth_error"),
        ),
        case(
            "HTTP 403",
            api_error(403, "Mock: the caller does not have permission.", "PERMISSION_DENIED"),
            "",
            exited(147),
            Some("auth_error"),
        ),
        case(
            "HTTP 404",
            api_error(404, "models/x is not found for API version v1beta.", "NOT_FOUND"),
            "",
            exited(148),
            Some("request_rejected"),
        ),
        case(
            "HTTP 429 (Gemini CLI rewords it)",
            failed("[API Error: Mock: resource has been exhausted (e.g. check quota).]\\nPlease wait and try again later."),
            "",
            exited(173),
            Some("quota_exceeded"),
        ),
        case(
            "HTTP 429, the API's JSON",
            api_error(429, "Mock: resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED"),
            "",
            exited(173),
            Some("quota_exceeded"),
        ),
        case(
            "HTTP 500",
            api_error(500, "Mock internal error, please retry.", "INTERNAL"),
            "Attempt 1 failed: {\"error\":{\"code\":500,\"message\":\"Mock internal error, please retry.\",\"status\":\"INTERNAL\"}}. Max attempts reached\nError when talking to Gemini API Full report available at: /tmp/gemini-client-error-Turn.run-sendMessageStream.json\n",
            exited(244),
            Some("upstream_error"),
        ),
        case(
            "HTTP 503",
            api_error(503, "Mock is overloaded, try again.", "UNAVAILABLE"),
            "",
            exited(247),
            Some("upstream_error"),
        ),
        case("HTTP 500, only the exit code", none(), "", exited(244), Some("upstream_error")),
        case("HTTP 429, only the exit code", none(), "", exited(173), Some("quota_exceeded")),
        case("HTTP 401, only the exit code", none(), "", exited(145), Some("auth_error")),
        case("HTTP 400, only the exit code", none(), "", exited(144), Some("request_rejected")),
        // The API not reached.
        case(
            "network error",
            failed("[API Error: exception TypeError: fetch failed sending request]"),
            "",
            exited(1),
            Some("network_error"),
        ),
        case(
            "connection refused on stderr",
            none(),
            "Error: connect ECONNREFUSED 127.0.0.1:9\n",
            exited(1),
            Some("network_error"),
        ),
        case("empty response (recorded)", fixture("gemini-empty.jsonl"), "", exited(0), Some("empty_response")),
        // Sessions.
        Case {
            session: Some(OTHER_SESSION),
            ..case(
                "session not found",
                none(),
                "Error resuming session: No previous sessions found for this project.\n",
                exited(42),
                Some("session_not_found"),
            )
        },
        case(
            "the resume line without a session asked for",
            none(),
            "Error resuming session: No previous sessions found for this project.\n",
            exited(42),
            Some("incomplete"),
        ),
        Case {
            session: Some(OTHER_SESSION),
            ..case("another session answered", plain.clone(), "", exited(0), Some("session_not_found"))
        },
        // Gemini CLI's own exit codes.
        case(
            "no API key (exit 41)",
            none(),
            "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\nUpdate your environment and try again (no reload needed if using .env)!\n",
            exited(41),
            Some("auth_error"),
        ),
        case(
            "untrusted folder (exit 55)",
            none(),
            "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`\n",
            exited(55),
            Some("untrusted_folder"),
        ),
        // Stopped by the runner.
        case("idle timeout", cut.clone(), "", stopped(StopReason::IdleTimeout), Some("idle_timeout")),
        case("timeout", cut.clone(), "", stopped(StopReason::MaxDuration), Some("timeout")),
        case("abort", cut.clone(), "", stopped(StopReason::Aborted), Some("aborted")),
        // Not started.
        case("missing command", none(), "", not_started("ENOENT"), Some("command_not_found")),
        case(
            "no interpreter (exit 127)",
            none(),
            "/usr/bin/env: 'node': No such file or directory\n",
            exited(127),
            Some("command_not_found"),
        ),
        case("not executable", none(), "", not_started("EACCES"), Some("spawn_failed")),
        case("arguments too long", none(), "", not_started("E2BIG"), Some("spawn_failed")),
        // Ended without its final event, or failing after it.
        case("killed mid-stream", cut.clone(), "", signalled("SIGKILL"), Some("incomplete")),
        case("crashed", none(), "Segmentation fault\n", signalled("SIGSEGV"), Some("incomplete")),
        case("exit 0 without output", none(), "", exited(0), Some("incomplete")),
        case("exit 1 without output", none(), "", exited(1), Some("incomplete")),
        case("exit 0 with the stream cut", cut, "", exited(0), Some("incomplete")),
        case("success, then exit 3", plain, "", exited(3), Some("process_error")),
    ]
}

fn tool(c: &Case, max_retries: u32) -> GeminiToolRun {
    let mut params = json!({"PROMPT": "What UI framework should we use, and why?", "cd": "/w", "max_retries": max_retries});
    if let Some(id) = c.session {
        params["SESSION_ID"] = json!(id);
    }
    GeminiToolRun::new(&params, "gemini")
}

fn runner(c: &Case, max_retries: u32) -> AgentRunner {
    let mut options =
        json!({"cd": "/w", "model": "gemini-3-pro-preview", "maxRetries": max_retries});
    if let Some(id) = c.session {
        options["sessionId"] = json!(id);
    }
    AgentRunner::new(
        "google-gemini",
        &json!({"prompt": "What UI framework should we use, and why?"}),
        &options,
        "gemini",
    )
}

/// Feeds `c` to both, in the same chunks; returns each one's wait.
fn attempt(
    c: &Case,
    tool: &mut GeminiToolRun,
    runner: &mut AgentRunner,
) -> (Option<u64>, Option<u64>) {
    tool.start_attempt();
    runner.start_attempt();
    for chunk in c.stdout.chunks(61) {
        tool.push_stdout(chunk);
        runner.push_stdout(chunk);
    }
    tool.push_stderr(c.stderr.as_bytes());
    runner.push_stderr(c.stderr.as_bytes());
    (
        tool.end_attempt(&c.end, 1_000),
        runner.end_attempt(&c.end, 1_000),
    )
}

fn envelope(tool: &GeminiToolRun) -> Value {
    serde_json::to_value(tool.envelope(2_000).unwrap()).unwrap()
}

fn kind_named(name: &str) -> AgentErrorKind {
    *AgentErrorKind::ALL
        .iter()
        .find(|k| k.as_str() == name)
        .unwrap_or_else(|| panic!("{name} is no kind of runAgent's"))
}

#[test]
fn the_tool_and_run_agent_say_the_same_kind_for_the_same_output() {
    let mut seen = Vec::new();
    for c in cases() {
        let (mut t, mut r) = (tool(&c, 0), runner(&c, 0));
        assert_eq!(attempt(&c, &mut t, &mut r), (None, None), "{}", c.what);
        let e = envelope(&t);
        let run = serde_json::to_value(r.result(2_000).unwrap()).unwrap();
        assert_eq!(e["success"], run["success"], "{}: {e}\n{run}", c.what);
        let tool_kind = e["error_kind"].as_str();
        let run_kind = run["error"]["kind"].as_str();
        assert_eq!(tool_kind, run_kind, "{}: {e}\n{run}", c.what);
        assert_eq!(tool_kind, c.expected, "{}: {e}", c.what);
        assert_eq!(
            t.error_kind().map(|k| k.as_str()),
            r.error_kind().map(|k| k.as_str()),
            "{}",
            c.what
        );
        if let Some(kind) = tool_kind {
            // The same retryability, and the envelope's other fields as before.
            assert_eq!(
                run["error"]["retryable"],
                kind_named(kind).is_retryable(),
                "{}",
                c.what
            );
            assert_eq!(
                e["error_detail"]["exit_code"], run["error"]["exitCode"],
                "{}",
                c.what
            );
            assert_eq!(
                e["error_detail"]["last_lines"], run["error"]["lastLines"],
                "{}",
                c.what
            );
            assert!(!e["error"].as_str().unwrap().is_empty(), "{}", c.what);
            assert!(
                !e["error_detail"]["message"].as_str().unwrap().is_empty(),
                "{}",
                c.what
            );
            seen.push(kind_named(kind));
        }
    }
    // Every kind an attempt of Gemini CLI can come to is in the table.
    for kind in AgentErrorKind::ALL {
        if kind != AgentErrorKind::InvalidParams {
            assert!(seen.contains(&kind), "no case for {}", kind.as_str());
        }
    }
}

#[test]
fn the_tool_retries_exactly_when_run_agent_does() {
    for c in cases() {
        let (mut t, mut r) = (tool(&c, 1), runner(&c, 1));
        let (tool_wait, run_wait) = attempt(&c, &mut t, &mut r);
        assert_eq!(tool_wait, run_wait, "{}", c.what);
        let retryable = c.expected.is_some_and(|k| kind_named(k).is_retryable());
        assert_eq!(tool_wait.is_some(), retryable, "{}", c.what);
        if tool_wait.is_some() {
            // The second attempt fails alike: both give up, with one retry.
            assert_eq!(attempt(&c, &mut t, &mut r), (None, None), "{}", c.what);
            let e = envelope(&t);
            assert_eq!(e["error_detail"]["retries"], 1, "{}", c.what);
            let run = serde_json::to_value(r.result(2_000).unwrap()).unwrap();
            assert_eq!(run["attempts"], 2, "{}", c.what);
            assert_eq!(e["error_kind"], run["error"]["kind"], "{}", c.what);
        }
    }
}

#[test]
fn bad_parameters_and_an_abort_between_attempts_agree_too() {
    let c = case(
        "HTTP 500",
        api_error(500, "Mock internal error, please retry.", "INTERNAL"),
        "",
        exited(244),
        None,
    );
    let (mut t, mut r) = (tool(&c, 2), runner(&c, 2));
    assert_eq!(attempt(&c, &mut t, &mut r), (Some(500), Some(500)));
    t.abort();
    r.abort();
    let run = serde_json::to_value(r.result(2_000).unwrap()).unwrap();
    assert_eq!(envelope(&t)["error_kind"], "aborted");
    assert_eq!(run["error"]["kind"], "aborted");
    assert_eq!(t.error_kind(), Some(ErrorKind::Aborted));

    let t = GeminiToolRun::new(&json!({"PROMPT": "x", "cd": "/w", "timeout": 0}), "gemini");
    let r = AgentRunner::new(
        "google-gemini",
        &json!({"prompt": "x"}),
        &json!({"cd": "/w", "timeout": 0}),
        "gemini",
    );
    let run = serde_json::to_value(r.result(0).unwrap()).unwrap();
    assert_eq!(envelope(&t)["error_kind"], "invalid_params");
    assert_eq!(run["error"]["kind"], "invalid_params");
}
