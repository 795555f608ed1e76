//! Every error kind for every agent that can produce it, from the real
//! CLIs' own output (recorded fixtures in tests/fixtures/cli/, or lines
//! copied from runs against the mock API, Claude Code 2.1.330, Codex
//! 0.169.0, Gemini CLI 0.61.0), through a whole run on the CLI session
//! engine (`run_script`: the events as the host feeds them, a fake clock).

use serde_json::{json, Value};

use super::run_script::ScriptedRun;
use crate::attempt::{retry_wait, AgentErrorKind, AttemptEnd, StopReason};

pub(super) const CLAUDE: &str = "claude-code";
pub(super) const CODEX: &str = "openai-codex";
pub(super) const GEMINI: &str = "google-gemini";
pub(super) const UNKNOWN_ID: &str = "3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

pub(super) fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/cli/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

pub(super) fn exited(code: i32) -> AttemptEnd {
    AttemptEnd {
        exit_code: Some(code),
        ..Default::default()
    }
}

/// One attempt of `agent` (no retries) printing `stdout` and `stderr`,
/// ending as `end`; the run's JSON.
pub(super) fn run_once(
    agent: &str,
    session: Option<&str>,
    stdout: &[u8],
    stderr: &str,
    end: AttemptEnd,
) -> Value {
    let mut options = json!({"cd": "/w", "maxRetries": 0});
    if let Some(id) = session {
        options["sessionId"] = json!(id);
    }
    let mut run = ScriptedRun::new(agent, &json!({"prompt": "Hello"}), &options, "agent");
    assert!(run.plan().is_some());
    run.start_attempt();
    for chunk in stdout.chunks(97) {
        run.push_stdout(chunk);
    }
    run.push_stderr(stderr.as_bytes());
    assert_eq!(run.end_attempt(&end, 1_000), None);
    let result = run.result(1_000);
    result.unwrap_or_else(|e| panic!("{agent} {end:?}: {} {:?}", e.message(), run.actions))
}

pub(super) fn kind(run: &Value) -> &str {
    run["error"]["kind"].as_str().unwrap_or("none")
}

// Lines seen on the real CLIs against the mock (trimmed to what is read).
pub(super) const CLAUDE_INIT: &str = r#"{"type":"system","subtype":"init","cwd":"/w","session_id":"bc42c994-05d7-48f9-819f-d3fcdd214e7e","tools":[]}"#;

pub(super) fn claude_api_error(text: &str, error: &str, status: u16, api_type: &str) -> String {
    format!(
        r#"{CLAUDE_INIT}
{{"type":"assistant","message":{{"id":"x","model":"<synthetic>","role":"assistant","stop_reason":"stop_sequence","type":"message","content":[{{"type":"text","text":"{text}"}}]}},"parent_tool_use_id":null,"session_id":"bc42c994-05d7-48f9-819f-d3fcdd214e7e","error":"{error}","is_api_error_message":true,"api_error_status":{status},"api_error_type":"{api_type}"}}
{{"type":"result","subtype":"success","is_error":true,"duration_ms":10,"num_turns":1,"result":"{text}","stop_reason":"stop_sequence","session_id":"bc42c994-05d7-48f9-819f-d3fcdd214e7e","total_cost_usd":0}}
"#
    )
}

pub(super) fn codex_failed(message: &str) -> String {
    format!(
        r#"{{"type":"thread.started","thread_id":"01a20100-3df9-7f32-bbc7-ebb49de66852"}}
{{"type":"turn.started"}}
{{"type":"error","message":"{message}"}}
{{"type":"turn.failed","error":{{"message":"{message}"}}}}
"#
    )
}

pub(super) fn gemini_failed(message: &str) -> String {
    format!(
        r#"{{"type":"init","session_id":"b425ff71-01f0-4076-bc86-ba426f1cea0e","model":"gemini-2.5-flash"}}
{{"type":"result","status":"error","error":{{"type":"unknown","message":"{message}"}},"stats":{{"total_tokens":0}}}}
"#
    )
}

#[test]
fn success_for_every_agent_from_the_recorded_runs() {
    for (agent, file, text) in [
        (
            CLAUDE,
            "claude-plain.jsonl",
            "Mock reply: use React for the dashboard.",
        ),
        (
            CODEX,
            "codex-plain.jsonl",
            "Mock reply: use React for the dashboard.",
        ),
        (
            GEMINI,
            "gemini-plain.jsonl",
            "Mock reply: use React for the dashboard.",
        ),
        (
            CLAUDE,
            "claude-tool.jsonl",
            "The notes say the launch code is 4217.",
        ),
    ] {
        let run = run_once(agent, None, &fixture(file), "", exited(0));
        assert_eq!(run["success"], true, "{file}: {run}");
        assert!(
            run["reply"]["text"].as_str().unwrap().ends_with(text),
            "{file}"
        );
        assert_eq!(run["sessionId"], run["reply"]["sessionId"]);
        assert!(run.get("error").is_none());
        assert_eq!(run["attempts"], 1);
        assert_eq!(run["agentType"], agent);
    }
    // Codex retried once on its own, then answered: within maxRetries 1 a
    // success; with maxRetries 0 its retry is one too many, and the run
    // stops it (Codex's retries are counted, not set).
    let flaky = fixture("codex-flaky.jsonl");
    let mut run = ScriptedRun::new(
        CODEX,
        &json!({"prompt": "Hello"}),
        &json!({"cd": "/w", "maxRetries": 1}),
        "codex",
    );
    run.start_attempt();
    run.push_stdout(&flaky);
    assert_eq!(run.end_attempt(&exited(0), 1_000), None);
    let result = run.result(1_000).unwrap();
    assert_eq!(result["success"], true, "{result}");
    assert!(result["reply"]["text"]
        .as_str()
        .unwrap()
        .ends_with("Mock reply: use React for the dashboard."));
    let stopped = run_once(CODEX, None, &flaky, "", exited(0));
    assert_eq!(kind(&stopped), "upstream_error", "{stopped}");
    assert!(stopped["error"]["message"]
        .as_str()
        .unwrap()
        .contains("more than maxRetries"));
}

#[test]
fn api_errors_by_agent() {
    let cases: Vec<(&str, String, &str, i32, &str)> = vec![
        // Claude Code: the cause is on the assistant message.
        (CLAUDE, claude_api_error("Invalid API key · Fix external API key", "authentication_failed", 401, "authentication_error"), "", 1, "auth_error"),
        (CLAUDE, claude_api_error("API Error: Request rejected (429) · Mock rate limit: too many requests.", "rate_limit", 429, "rate_limit_error"), "", 1, "quota_exceeded"),
        (CLAUDE, claude_api_error("API Error: 500 Mock internal error, please retry. This is a server-side issue, usually temporary", "server_error", 500, "api_error"), "", 1, "upstream_error"),
        (CLAUDE, claude_api_error("Prompt is too long", "invalid_request", 400, "invalid_request_error"), "", 1, "context_too_long"),
        (CLAUDE, String::from_utf8(fixture("claude-error.jsonl")).unwrap(), "", 1, "request_rejected"),
        // Codex: its own wording; a 500 carries no status.
        (CODEX, String::from_utf8(fixture("codex-error.jsonl")).unwrap(), "", 1, "upstream_error"),
        (CODEX, codex_failed("unexpected status 401 Unauthorized: Incorrect API key provided: sk-mock., url: http://127.0.0.1:39111/v1/responses"), "", 1, "auth_error"),
        (CODEX, codex_failed("Quota exceeded. Check your plan and billing details."), "", 1, "quota_exceeded"),
        (CODEX, codex_failed(r#"{\"error\":{\"message\":\"Mock rejects this request: temperature is out of range.\",\"type\":\"invalid_request_error\",\"code\":null}}"#), "", 1, "request_rejected"),
        (CODEX, codex_failed("Codex ran out of room in the model's context window. Start a new thread or clear earlier history before retrying."), "", 1, "context_too_long"),
        (CODEX, codex_failed("stream disconnected before completion: error sending request for url (http://127.0.0.1:9/v1/responses)"), "", 1, "network_error"),
        // Gemini CLI: the API's JSON, and the status in the exit code.
        (GEMINI, String::from_utf8(fixture("gemini-error.jsonl")).unwrap(), "", 144, "auth_error"),
        (GEMINI, gemini_failed(r#"[API Error: {\"error\":{\"code\":401,\"message\":\"Mock: request had invalid authentication credentials.\",\"status\":\"UNAUTHENTICATED\"}}]"#), "", 145, "auth_error"),
        (GEMINI, gemini_failed("[API Error: Mock: resource has been exhausted (e.g. check quota).]\\nPlease wait and try again later."), "", 173, "quota_exceeded"),
        (GEMINI, gemini_failed(r#"[API Error: {\"error\":{\"code\":500,\"message\":\"Mock internal error, please retry.\",\"status\":\"INTERNAL\"}}]"#), "", 244, "upstream_error"),
        (GEMINI, gemini_failed(r#"[API Error: {\"error\":{\"code\":404,\"message\":\"models/x is not found\",\"status\":\"NOT_FOUND\"}}]"#), "", 148, "request_rejected"),
        (GEMINI, gemini_failed(r#"[API Error: {\"error\":{\"code\":400,\"message\":\"The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).\",\"status\":\"INVALID_ARGUMENT\"}}]"#), "", 144, "context_too_long"),
        (GEMINI, gemini_failed("[API Error: exception TypeError: fetch failed sending request]"), "", 1, "network_error"),
        (GEMINI, String::from_utf8(fixture("gemini-empty.jsonl")).unwrap(), "", 0, "empty_response"),
    ];
    for (agent, stdout, stderr, code, expected) in cases {
        let run = run_once(agent, None, stdout.as_bytes(), stderr, exited(code));
        assert_eq!(
            kind(&run),
            expected,
            "{agent} exit {code}: {}",
            run["error"]
        );
        assert_eq!(run["success"], false);
        assert_eq!(run["error"]["exitCode"], code);
        let retryable = matches!(
            expected,
            "upstream_error" | "quota_exceeded" | "network_error" | "empty_response"
        );
        assert_eq!(run["error"]["retryable"], retryable, "{expected}");
        assert!(!run["error"]["lastLines"].as_array().unwrap().is_empty());
    }
}

#[test]
fn unknown_sessions_as_each_cli_reports_them() {
    // Claude Code: a failed `result` with the asked id, the reason on stderr.
    let claude_out = format!(
        r#"{{"type":"result","subtype":"error_during_execution","is_error":true,"num_turns":0,"session_id":"{UNKNOWN_ID}","total_cost_usd":0}}
"#
    );
    let claude_err = format!("No conversation found with session ID: {UNKNOWN_ID}\n");
    let run = run_once(
        CLAUDE,
        Some(UNKNOWN_ID),
        claude_out.as_bytes(),
        &claude_err,
        exited(1),
    );
    assert_eq!(kind(&run), "session_not_found", "{run}");
    assert_eq!(run["requestedSessionId"], UNKNOWN_ID);
    assert!(run["error"]["message"]
        .as_str()
        .unwrap()
        .contains("No conversation found"));
    // An id that is no UUID: refused on stderr, another id in the result.
    let refused = r#"{"type":"result","subtype":"error_during_execution","is_error":true,"session_id":"55e369dc-cc0f-4d9c-853a-42da35a7ae40"}
"#;
    let run = run_once(
        CLAUDE,
        Some("not-a-uuid"),
        refused.as_bytes(),
        "Error: --resume requires a valid session ID or session title when used with --print.\n",
        exited(1),
    );
    assert_eq!(kind(&run), "session_not_found");

    // Codex: a UUID it does not know fails on stderr, before any output.
    let stderr = format!("Error: thread/resume: thread/resume failed: no rollout found for thread id {UNKNOWN_ID} (code -32600)\n");
    let run = run_once(CODEX, Some(UNKNOWN_ID), b"", &stderr, exited(1));
    assert_eq!(kind(&run), "session_not_found");
    // Any other id: a new thread answers, and Codex exits 0.
    let run = run_once(
        CODEX,
        Some("not-a-uuid"),
        &fixture("codex-plain.jsonl"),
        "",
        exited(0),
    );
    assert_eq!(kind(&run), "session_not_found");
    assert!(run["error"]["message"]
        .as_str()
        .unwrap()
        .contains("answered in a new session"));
    // What it answered there is no reply of the session asked for.
    assert_eq!(run["reply"]["text"], "");
    assert_eq!(
        run["error"]["text"],
        "Mock reply: use React for the dashboard."
    );
    assert_eq!(run["error"]["retryable"], false);

    // Gemini CLI: stderr and exit 42, before any API call.
    let run = run_once(
        GEMINI,
        Some(UNKNOWN_ID),
        b"",
        "Error resuming session: No previous sessions found for this project.\n",
        exited(42),
    );
    assert_eq!(kind(&run), "session_not_found");
    // Without a sessionId, that line is not about ours.
    let run = run_once(
        GEMINI,
        None,
        b"",
        "Error resuming session: No previous sessions found for this project.\n",
        exited(42),
    );
    assert_eq!(kind(&run), "incomplete");

    // The same id back is a resumed session.
    let out = fixture("codex-plain.jsonl");
    let id = "01a20100-4123-7642-83a5-878a3f861c22";
    let same = String::from_utf8(out).unwrap().replace(
        r#""thread_id":""#,
        &format!(r#""thread_id":"{id}","old":""#),
    );
    let run = run_once(CODEX, Some(id), same.as_bytes(), "", exited(0));
    assert_eq!(run["success"], true, "{run}");
    assert_eq!(run["sessionId"], id);
}

#[test]
fn folders_auth_exit_codes_and_missing_final_events() {
    let run = run_once(
        GEMINI,
        None,
        b"",
        "Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`\n",
        exited(55),
    );
    assert_eq!(kind(&run), "untrusted_folder");
    let run = run_once(
        CODEX,
        None,
        b"",
        "Not inside a trusted directory and --skip-git-repo-check was not specified.\n",
        exited(1),
    );
    assert_eq!(kind(&run), "untrusted_folder");
    let run = run_once(
        GEMINI,
        None,
        b"",
        "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.\n",
        exited(41),
    );
    assert_eq!(kind(&run), "auth_error");
    assert!(run["error"]["message"]
        .as_str()
        .unwrap()
        .contains("GEMINI_API_KEY"));

    // Killed from outside, or crashed: the output stops before the end.
    for (agent, file) in [
        (CLAUDE, "claude-plain.jsonl"),
        (CODEX, "codex-plain.jsonl"),
        (GEMINI, "gemini-plain.jsonl"),
    ] {
        let out = fixture(file);
        let cut = &out[..out.len() / 2];
        let killed = AttemptEnd {
            signal: Some("SIGKILL".into()),
            ..Default::default()
        };
        let run = run_once(agent, None, cut, "", killed);
        assert_eq!(kind(&run), "incomplete", "{agent}");
        assert!(run["error"]["message"]
            .as_str()
            .unwrap()
            .contains("SIGKILL"));
        assert_eq!(run["error"]["exitCode"], Value::Null);
        let run = run_once(agent, None, cut, "", exited(0));
        assert_eq!(kind(&run), "incomplete", "{agent} exit 0");
        // A success reported, then a failing exit code.
        let run = run_once(agent, None, &out, "", exited(3));
        assert_eq!(kind(&run), "process_error", "{agent}");
        // Exit 127: the shell found no interpreter.
        let run = run_once(
            agent,
            None,
            b"",
            "/usr/bin/env: 'node': No such file or directory\n",
            exited(127),
        );
        assert_eq!(kind(&run), "command_not_found");
    }
}

#[test]
fn stops_and_spawn_errors_for_every_agent() {
    for agent in [CLAUDE, CODEX, GEMINI] {
        for (stop, expected) in [
            (StopReason::IdleTimeout, "idle_timeout"),
            (StopReason::MaxDuration, "timeout"),
            (StopReason::Aborted, "aborted"),
        ] {
            let end = AttemptEnd {
                stopped: Some(stop),
                signal: Some("SIGKILL".into()),
                ..Default::default()
            };
            assert_eq!(kind(&run_once(agent, None, b"", "", end)), expected);
        }
        for (code, expected, says) in [
            ("ENOENT", "command_not_found", "is not on PATH"),
            ("EACCES", "spawn_failed", "permission denied"),
            ("E2BIG", "spawn_failed", "ARG_MAX"),
            ("ENAMETOOLONG", "spawn_failed", "length limit"),
            ("EINVAL", "spawn_failed", ".cmd"),
        ] {
            let end = AttemptEnd {
                spawn_error: Some(code.into()),
                ..Default::default()
            };
            let run = run_once(agent, None, b"", "", end);
            assert_eq!(kind(&run), expected);
            assert!(
                run["error"]["message"].as_str().unwrap().contains(says),
                "{}",
                run["error"]["message"]
            );
        }
    }
}

#[test]
fn retries_follow_seed_003_and_max_duration_bounds_them() {
    let server_error = String::from_utf8(fixture("codex-error.jsonl")).unwrap();
    let mut run = ScriptedRun::new(
        CODEX,
        &json!({"prompt": "x"}),
        &json!({"cd": "/w", "maxRetries": 2}),
        "codex",
    );
    assert_eq!(run.plan().unwrap().max_attempts, 3);
    let mut waits = Vec::new();
    for _ in 0..3 {
        run.start_attempt();
        run.push_stdout(server_error.as_bytes());
        waits.push(run.end_attempt(&exited(1), 2_000));
    }
    assert_eq!(waits, [Some(500), Some(1000), None]);
    let result = serde_json::to_value(run.result(5_000).unwrap()).unwrap();
    assert_eq!(
        (kind(&result), result["attempts"].clone()),
        ("upstream_error", json!(3))
    );

    // Success on the retry.
    let mut run = ScriptedRun::new(
        CODEX,
        &json!({"prompt": "x"}),
        &json!({"cd": "/w"}),
        "codex",
    );
    run.start_attempt();
    run.push_stdout(server_error.as_bytes());
    assert_eq!(run.end_attempt(&exited(1), 100), Some(500));
    assert_eq!(run.last_attempt_kind(), Some(AgentErrorKind::UpstreamError));
    run.start_attempt();
    run.push_stdout(&fixture("codex-plain.jsonl"));
    assert_eq!(run.end_attempt(&exited(0), 900), None);
    let result = serde_json::to_value(run.result(900).unwrap()).unwrap();
    assert_eq!(
        (result["success"].clone(), result["attempts"].clone()),
        (json!(true), json!(2))
    );

    // Never retried: command_not_found, auth, session; no time left.
    let mut run = ScriptedRun::new(
        CLAUDE,
        &json!({"prompt": "x"}),
        &json!({"cd": "/w", "maxRetries": 5}),
        "claude",
    );
    run.start_attempt();
    let enoent = AttemptEnd {
        spawn_error: Some("ENOENT".into()),
        ..Default::default()
    };
    assert_eq!(run.end_attempt(&enoent, 1), None);
    assert_eq!(retry_wait(AgentErrorKind::AuthError, 0, 5, 60_000), None);
    assert_eq!(
        retry_wait(AgentErrorKind::SessionNotFound, 0, 5, 60_000),
        None
    );
    assert_eq!(
        retry_wait(AgentErrorKind::QuotaExceeded, 0, 5, 60_000),
        Some(500)
    );
    assert_eq!(retry_wait(AgentErrorKind::IdleTimeout, 0, 5, 1_499), None);

    // An abort between attempts.
    let mut run = ScriptedRun::new(
        GEMINI,
        &json!({"prompt": "x"}),
        &json!({"cd": "/w"}),
        "gemini",
    );
    run.start_attempt();
    run.push_stdout(gemini_failed("[API Error: fetch failed]").as_bytes());
    assert_eq!(run.end_attempt(&exited(1), 100), Some(500));
    run.abort();
    let result = serde_json::to_value(run.result(300).unwrap()).unwrap();
    assert_eq!(kind(&result), "aborted");
    assert_eq!(result["error"]["exitCode"], 1);
}

#[test]
fn bad_requests_and_options_are_invalid_params() {
    let cases = [
        (
            "aider",
            json!({"prompt": "x"}),
            json!({"cd": "/w"}),
            "agentType must be",
        ),
        (
            CLAUDE,
            json!({"prompt": "  "}),
            json!({"cd": "/w"}),
            "prompt is empty",
        ),
        (CLAUDE, json!({}), json!({"cd": "/w"}), "request.prompt"),
        (
            CODEX,
            json!({"prompt": "x", "systemFlag": "sys"}),
            json!({"cd": "/w"}),
            "systemFlag",
        ),
        (
            CLAUDE,
            json!({"prompt": "x"}),
            json!({"timeout": 5}),
            "options.cd",
        ),
        (
            CLAUDE,
            json!({"prompt": "x"}),
            json!({"cd": "/w", "sessionId": "-rf"}),
            "session",
        ),
    ];
    for (agent, request, options, says) in cases {
        let mut run = ScriptedRun::new(agent, &request, &options, "x");
        assert!(run.plan().is_none());
        let result = serde_json::to_value(run.result(0).unwrap()).unwrap();
        assert_eq!(kind(&result), "invalid_params");
        assert!(
            result["error"]["message"].as_str().unwrap().contains(says),
            "{}",
            result["error"]["message"]
        );
        assert_eq!(result["attempts"], 0);
        if agent != "aider" {
            assert_eq!(result["reply"]["status"], "incomplete");
        }
    }
    let mut run = ScriptedRun::new(
        CLAUDE,
        &json!({"prompt": "x"}),
        &json!({"cd": "/nope"}),
        "claude",
    );
    run.reject("options.cd does not exist: /nope");
    assert!(run.plan().is_none());
    assert!(run.result(0).is_ok());
    let mut running = ScriptedRun::new(
        CLAUDE,
        &json!({"prompt": "x"}),
        &json!({"cd": "/w"}),
        "claude",
    );
    assert!(running.result(0).is_err());
}
