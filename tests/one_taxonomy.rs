//! One taxonomy: for each Gemini CLI output and end of the process, the
//! kind an attempt comes to — `runGeminiTool`'s `error_kind` (the envelope
//! [`GeminiToolCall`] writes of the run its parameters make) and
//! `runAgent('google-gemini', …)`'s `error.kind` (a run with runAgent's
//! options) — each checked against the kind the case expects, with the
//! exit code, last lines and retries each entry point must report. Both
//! are runs on the session engine ([`Engine`]) over the CLI, driven here as
//! the Node host drives it, on a fake clock.
//!
//! The output is Gemini CLI 0.61's own, as seen against the mock API: the
//! recorded runs in tests/fixtures/cli/ and lines copied from the live runs
//! (tests/cli/gemini_tool.test.cjs, tests/cli/run_agent.test.cjs); the exit
//! code of an API error is its HTTP status mod 256.

use agent_context::attempt::AgentErrorKind;
use agent_context::engine::cli::CliSessionConfig;
use agent_context::engine::{Action, Engine, Outcome, TurnLimits, TurnResult};
use agent_context::prompt::output::AssemblerOutput;
use agent_context::tools::gemini_tool::{AttemptEnd, GeminiToolCall, StopReason, GEMINI_AGENT};
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

/// One run on the CLI session engine, fed an attempt at a time.
struct Run {
    engine: Engine,
    op: Option<u64>,
    now: u64,
    retry_at: Option<u64>,
    done: Option<TurnResult>,
}

impl Run {
    /// A run of Gemini CLI on `request` with runAgent's `options`.
    fn new(request: &Value, options: &Value, keep_events: bool) -> Result<Run, String> {
        let output = AssemblerOutput {
            prompt: request["prompt"].as_str().unwrap_or_default().to_owned(),
            system_flag: None,
        };
        let mut cfg = CliSessionConfig::read_run(&json!(GEMINI_AGENT), &output, options, "gemini")
            .map_err(|e| e.message().to_owned())?;
        cfg.keep_events = keep_events;
        Ok(Run {
            engine: Engine::cli(cfg),
            op: None,
            now: 0,
            retry_at: None,
            done: None,
        })
    }

    fn drain(&mut self) -> Vec<Action> {
        let seen: Vec<Action> = std::iter::from_fn(|| self.engine.poll()).collect();
        for action in &seen {
            if let Action::Done {
                outcome: Outcome::Turn(turn),
                ..
            } = action
            {
                self.done = Some((**turn).clone());
            }
        }
        seen
    }

    /// One attempt printing `c`'s output and ending as `c.end`; the wait
    /// before the next, or `None`: the run is over.
    fn attempt(&mut self, c: &Case) -> Option<u64> {
        let options = &self.engine.config().options().clone();
        let (idle, max) = (options.idle_timeout_ms, options.max_duration_ms);
        match self.op {
            None => {
                let limits = TurnLimits {
                    idle_ms: idle,
                    max_ms: max,
                    max_retries: options.max_retries,
                    events: false,
                };
                let prompt =
                    json!([{"type": "text", "text": "What UI framework should we use, and why?"}]);
                self.op = Some(self.engine.prompt(prompt, limits, self.now));
            }
            Some(_) => {
                self.now = self.retry_at.take().unwrap();
                self.engine.timeout(self.now);
            }
        }
        let seen = self.drain();
        assert!(
            seen.iter().any(|a| matches!(a, Action::Spawn { .. })),
            "{}",
            c.what
        );
        if let Some(code) = &c.end.spawn_error {
            self.engine.spawn_failed(code, self.now);
            return self.after();
        }
        self.engine.spawned(self.now);
        for chunk in c.stdout.chunks(61) {
            self.engine.stdout(chunk, self.now);
        }
        if !c.stderr.is_empty() {
            self.engine.stderr(c.stderr.as_bytes(), self.now);
        }
        match c.end.stopped {
            Some(StopReason::IdleTimeout) => self.engine.timeout(self.now + idle),
            Some(StopReason::MaxDuration) => self.engine.timeout(self.now + max),
            Some(StopReason::Aborted) => self.engine.abort(self.op.unwrap(), self.now),
            _ => {}
        }
        self.now += 1_000;
        self.engine
            .exited(c.end.exit_code, c.end.signal.as_deref(), self.now);
        self.after()
    }

    fn after(&mut self) -> Option<u64> {
        self.drain();
        if self.done.is_some() {
            return None;
        }
        // Not over: the engine waits for the retry's time.
        let at = self.engine.poll_timeout().unwrap();
        self.retry_at = Some(at);
        Some(at - self.now)
    }

    fn abort(&mut self) {
        self.engine.abort(self.op.unwrap(), self.now);
        self.drain();
    }

    fn turn(&self) -> TurnResult {
        let mut turn = self.done.clone().expect("the run is over");
        turn.duration_ms = 2_000;
        turn
    }
}

/// The tool's call for `c`, and the run its parameters make (as
/// js/api/gemini-tool.cjs starts it).
fn tool(c: &Case, max_retries: u32) -> (GeminiToolCall, Run) {
    let mut params = json!({"PROMPT": "What UI framework should we use, and why?", "cd": "/w", "max_retries": max_retries});
    if let Some(id) = c.session {
        params["SESSION_ID"] = json!(id);
    }
    let call = GeminiToolCall::new(&params, "gemini");
    let (request, options) = call.run_request().unwrap();
    let run = Run::new(&request, &options, call.keeps_events()).unwrap();
    (call, run)
}

/// runAgent's run for `c`.
fn runner(c: &Case, max_retries: u32) -> Run {
    let mut options =
        json!({"cd": "/w", "model": "gemini-3-pro-preview", "maxRetries": max_retries});
    if let Some(id) = c.session {
        options["sessionId"] = json!(id);
    }
    Run::new(
        &json!({"prompt": "What UI framework should we use, and why?"}),
        &options,
        false,
    )
    .unwrap()
}

fn attempt(
    c: &Case,
    tool: &mut (GeminiToolCall, Run),
    runner: &mut Run,
) -> (Option<u64>, Option<u64>) {
    (tool.1.attempt(c), runner.attempt(c))
}

fn envelope(tool: &(GeminiToolCall, Run)) -> Value {
    tool.0.envelope(&tool.1.turn(), 2_000).unwrap()
}

fn result(run: &Run) -> Value {
    serde_json::to_value(run.turn().as_run()).unwrap()
}

fn kind_named(name: &str) -> AgentErrorKind {
    *AgentErrorKind::ALL
        .iter()
        .find(|k| k.as_str() == name)
        .unwrap_or_else(|| panic!("{name} is no kind of runAgent's"))
}

/// What each entry point must report of case `c` beside its kind: the
/// exit code (none for a process the engine stopped or that never
/// started) and the stderr lines among the last lines.
fn check_detail(c: &Case, exit_code: &Value, last_lines: &Value, who: &str) {
    let expected = match c.end.exit_code {
        Some(code) if c.end.stopped.is_none() => json!(code),
        _ => Value::Null,
    };
    assert_eq!(exit_code, &expected, "{who} {}: exit code", c.what);
    let lines: Vec<&str> = last_lines
        .as_array()
        .unwrap_or_else(|| panic!("{who} {}: last lines {last_lines}", c.what))
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for line in c.stderr.lines() {
        assert!(
            lines.contains(&line),
            "{who} {}: {line:?} not in {lines:?}",
            c.what
        );
    }
}

#[test]
fn each_entry_point_says_the_expected_kind_for_each_output() {
    let mut seen = Vec::new();
    for c in cases() {
        let (mut t, mut r) = (tool(&c, 0), runner(&c, 0));
        assert_eq!(attempt(&c, &mut t, &mut r), (None, None), "{}", c.what);
        let e = envelope(&t);
        let run = result(&r);
        assert_eq!(e["success"], c.expected.is_none(), "{}: {e}", c.what);
        assert_eq!(run["success"], c.expected.is_none(), "{}: {run}", c.what);
        assert_eq!(e["error_kind"].as_str(), c.expected, "tool {}: {e}", c.what);
        assert_eq!(
            run["error"]["kind"].as_str(),
            c.expected,
            "runAgent {}: {run}",
            c.what
        );
        let Some(kind) = c.expected.map(kind_named) else {
            continue;
        };
        assert_eq!(run["error"]["retryable"], kind.is_retryable(), "{}", c.what);
        check_detail(
            &c,
            &run["error"]["exitCode"],
            &run["error"]["lastLines"],
            "runAgent",
        );
        check_detail(
            &c,
            &e["error_detail"]["exit_code"],
            &e["error_detail"]["last_lines"],
            "tool",
        );
        assert!(!e["error"].as_str().unwrap().is_empty(), "{}", c.what);
        assert!(
            !e["error_detail"]["message"].as_str().unwrap().is_empty(),
            "{}",
            c.what
        );
        assert!(
            !run["error"]["message"].as_str().unwrap().is_empty(),
            "{}",
            c.what
        );
        seen.push(kind);
    }
    // Every kind an attempt of Gemini CLI can come to is in the table
    // (`invalid_output` is what a reply judged against `outputSchema`
    // comes to, after the attempt).
    for kind in AgentErrorKind::ALL {
        if kind != AgentErrorKind::InvalidParams && kind != AgentErrorKind::InvalidOutput {
            assert!(seen.contains(&kind), "no case for {}", kind.as_str());
        }
    }
}

#[test]
fn each_entry_point_retries_exactly_the_retryable_kinds_once() {
    for c in cases() {
        let (mut t, mut r) = (tool(&c, 1), runner(&c, 1));
        let retryable = c.expected.is_some_and(|k| kind_named(k).is_retryable());
        // The first retry waits 0.5 s.
        let expected_wait = retryable.then_some(500);
        assert_eq!(
            attempt(&c, &mut t, &mut r),
            (expected_wait, expected_wait),
            "{}",
            c.what
        );
        if retryable {
            // The second attempt fails alike: both give up, with one retry.
            assert_eq!(attempt(&c, &mut t, &mut r), (None, None), "{}", c.what);
            let e = envelope(&t);
            assert_eq!(e["error_detail"]["retries"], 1, "{}", c.what);
            assert_eq!(e["error_kind"].as_str(), c.expected, "{}", c.what);
            let run = result(&r);
            assert_eq!(run["attempts"], 2, "{}", c.what);
            assert_eq!(run["error"]["kind"].as_str(), c.expected, "{}", c.what);
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
    t.1.abort();
    r.abort();
    assert_eq!(envelope(&t)["error_kind"], "aborted");
    assert_eq!(result(&r)["error"]["kind"], "aborted");
    assert_eq!(t.1.turn().kind(), Some(AgentErrorKind::Aborted));

    // Bad parameters: the tool says so before a run; runAgent's run is refused alike.
    let t = GeminiToolCall::new(&json!({"PROMPT": "x", "cd": "/w", "timeout": 0}), "gemini");
    assert!(t.run_request().is_none());
    assert_eq!(
        t.invalid_envelope(0).unwrap()["error_kind"],
        "invalid_params"
    );
    let refused = Run::new(
        &json!({"prompt": "x"}),
        &json!({"cd": "/w", "timeout": 0}),
        false,
    );
    assert!(refused
        .err()
        .unwrap()
        .starts_with("options.timeout must be more than 0"));
}
