//! A run (the CLI session engine opened for one prompt) on Qwen Code 0.24.4, GitHub Copilot CLI 1.0.102 and opencode
//! 1.18.33: every error kind each produced for real against the OpenAI Chat
//! Completions mock (their recorded fixtures in tests/fixtures/cli/, or lines
//! copied from runs through `runAgent`), Copilot's usage file read back into
//! the reply, its resume flag that fails on an unknown id, and Qwen Code's
//! own retries read from its telemetry file.

use serde_json::{json, Value};

use super::run_script::ScriptedRun;
use crate::attempt::AttemptEnd;

const QWEN: &str = "qwen-code";
const COPILOT: &str = "github-copilot";
const OPENCODE: &str = "opencode";
const UNKNOWN_ID: &str = "3f1e2a4b-1c2d-4e5f-8a9b-0c1d2e3f4a5b";

fn fixture(agent: &str, version: &str, name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/cli/{agent}/{version}/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn copilot(name: &str) -> Vec<u8> {
    fixture(COPILOT, "1.0.102", name)
}

fn opencode(name: &str) -> Vec<u8> {
    fixture(OPENCODE, "1.18.33", name)
}

fn qwen(name: &str) -> Vec<u8> {
    fixture(QWEN, "0.24.4", name)
}

fn exited(code: i32) -> AttemptEnd {
    AttemptEnd {
        exit_code: Some(code),
        ..Default::default()
    }
}

/// One attempt of `agent` printing `stdout` and `stderr` and writing the
/// usage file `usage` (when the plan names one), ending as `end`; the
/// run's JSON.
fn run_once(
    agent: &str,
    session: Option<&str>,
    stdout: &[u8],
    stderr: &str,
    usage: Option<&str>,
    end: AttemptEnd,
) -> Value {
    let mut options = json!({"cd": "/w", "maxRetries": 0, "usageFile": "/tmp/run/usage.json"});
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
    if let Some(content) = usage {
        assert!(run.push_output("/tmp/run/usage.json", content.to_owned()));
    }
    assert_eq!(run.end_attempt(&end, 1_000), None);
    serde_json::to_value(run.result(1_000).unwrap()).unwrap()
}

fn kind(run: &Value) -> &str {
    run["error"]["kind"].as_str().unwrap_or("none")
}

#[test]
fn copilot_plans_its_usage_file_and_reads_it_back_into_the_usage() {
    let options = json!({"cd": "/w", "usageFile": "/tmp/run/usage.json"});
    let run = ScriptedRun::new(COPILOT, &json!({"prompt": "Hi"}), &options, "copilot");
    let plan = run.plan().unwrap();
    assert!(plan
        .args
        .contains(&"--usage-output-file=/tmp/run/usage.json".to_owned()));
    assert_eq!(plan.outputs.len(), 1);
    assert_eq!(plan.outputs[0].path, "/tmp/run/usage.json");

    let usage = String::from_utf8(copilot("plain.usage.json")).unwrap();
    let result = run_once(
        COPILOT,
        None,
        &copilot("plain.jsonl"),
        "",
        Some(&usage),
        exited(0),
    );
    assert_eq!(result["success"], json!(true));
    assert_eq!(
        result["reply"]["usage"],
        json!({"inputTokens": 120, "cachedInputTokens": 20, "outputTokens": 9, "totalTokens": 129, "durationMs": result["reply"]["usage"]["durationMs"]})
    );
    assert!(result["reply"]["usage"]["durationMs"].as_u64().unwrap() > 0);

    // Without the file (the CLI died first) the reply has no token counts.
    let result = run_once(COPILOT, None, &copilot("plain.jsonl"), "", None, exited(0));
    assert_eq!(result["reply"]["usage"].get("inputTokens"), None);

    // A file that is not the CLI's: said in the reply, the run still a success.
    let result = run_once(
        COPILOT,
        None,
        &copilot("plain.jsonl"),
        "",
        Some("{oops"),
        exited(0),
    );
    assert_eq!(result["success"], json!(true));
    let errors = result["reply"]["errors"].as_array().unwrap();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0]["code"], json!("output_file"));
    assert_eq!(errors[0]["fatal"], json!(false));
    assert!(errors[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("the agent's usage file was not read: "));
}

#[test]
fn only_the_plans_outputs_are_read_and_only_for_agents_that_write_one() {
    let options = json!({"cd": "/w", "usageFile": "/tmp/run/usage.json"});
    let mut run = ScriptedRun::new(COPILOT, &json!({"prompt": "Hi"}), &options, "copilot");
    run.start_attempt();
    assert!(!run.push_output("/etc/passwd", "x".into()));
    for agent in [QWEN, OPENCODE, "claude-code"] {
        let mut run = ScriptedRun::new(agent, &json!({"prompt": "Hi"}), &options, "x");
        let plan = run.plan().unwrap();
        assert!(plan.outputs.is_empty(), "{agent}");
        assert!(!plan.args.iter().any(|a| a.contains("usage")), "{agent}");
        run.start_attempt();
        assert!(
            !run.push_output("/tmp/run/usage.json", "{}".into()),
            "{agent}"
        );
    }
}

#[test]
fn copilot_resumes_with_the_flag_that_fails_on_an_unknown_id() {
    let options = json!({"cd": "/w", "sessionId": UNKNOWN_ID});
    let run = ScriptedRun::new(COPILOT, &json!({"prompt": "Hi"}), &options, "copilot");
    let args = run.plan().unwrap().args;
    let at = args
        .iter()
        .position(|a| *a == format!("--resume={UNKNOWN_ID}"));
    // `-C .`: the resumed session works in `cd`, not in its first folder.
    assert_eq!(
        at.map(|i| &args[i + 1..i + 3]),
        Some(&["-C".to_owned(), ".".to_owned()][..]),
        "{args:?}"
    );
    assert!(!args.iter().any(|a| a.starts_with("--session-id")));
    // Without a session, neither.
    let run = ScriptedRun::new(
        COPILOT,
        &json!({"prompt": "Hi"}),
        &json!({"cd": "/w"}),
        "copilot",
    );
    let args = run.plan().unwrap().args;
    assert!(
        !args.iter().any(|a| a.starts_with("--resume") || a == "-C"),
        "{args:?}"
    );
    // buildCliInvocation keeps the flag that creates or resumes.
    let invocation = crate::launch::invocation::build_cli_invocation(
        COPILOT,
        &crate::prompt::output::AssemblerOutput {
            prompt: "Hi".into(),
            system_flag: None,
        },
        &crate::launch::invocation::InvocationOptions {
            session_id: Some(UNKNOWN_ID.into()),
            ..Default::default()
        },
    )
    .unwrap();
    assert!(invocation
        .args
        .contains(&format!("--session-id={UNKNOWN_ID}")));
}

// Lines printed through runAgent against the mock (trimmed to what is read).
const COPILOT_401: &str = r#"{"type":"session.info","data":{"infoType":"model_retry","message":"Request failed due to a transient API error. Retrying..."},"ephemeral":true}
{"type":"session.error","data":{"errorType":"authentication","message":"Authentication failed with provider at http://127.0.0.1:42299/v1 (HTTP 401).\n  Check your COPILOT_PROVIDER_API_KEY, COPILOT_PROVIDER_API_KEY_COMMAND, or COPILOT_PROVIDER_BEARER_TOKEN.","statusCode":401}}
{"type":"result","sessionId":"5c7fd8b0-de2e-49ed-9eb5-83c824b4cf33","exitCode":1,"usage":{"premiumRequests":0,"totalApiDurationMs":0}}
"#;
const COPILOT_429: &str = r#"{"type":"session.error","data":{"errorType":"rate_limit","message":"Failed to get response from the AI model; retried 5 times (total retry wait time: 63.03 seconds) Last error: 429 Rate limit reached for requests. Please try again later.","statusCode":429}}
{"type":"result","sessionId":"658dec3a-5f45-4b7c-b243-514cd4974b60","exitCode":1}
"#;
const OPENCODE_401: &str = r#"{"type":"error","timestamp":1795396752613,"sessionID":"ses_dfa03d4f6ffeaVSQ9ub5HEd3XA","error":{"name":"APIError","data":{"message":"Incorrect API key provided: sk-mock. You can find your API key in your account settings.","statusCode":401,"isRetryable":false}}}
"#;
const OPENCODE_429: &str = r#"{"type":"error","timestamp":1795396826217,"sessionID":"ses_dfa03c65affeDF1Ty9h9UAVJrp","error":{"name":"APIError","data":{"message":"Rate limit reached for requests. Please try again later.","statusCode":429,"isRetryable":true}}}
"#;
const QWEN_401: &str = r#"{"type":"system","subtype":"init","session_id":"72f9feb8-d15d-4914-b3cd-4c58228a4f44","cwd":"/w","tools":[]}
{"type":"assistant","session_id":"72f9feb8-d15d-4914-b3cd-4c58228a4f44","parent_tool_use_id":null,"message":{"id":"a","type":"message","role":"assistant","model":"gpt-mock","content":[{"type":"text","text":"[API Error: 401 Incorrect API key provided: sk-mock. You can find your API key in your account settings.]"}],"stop_reason":null,"usage":{"input_tokens":0,"output_tokens":0}}}
{"type":"result","subtype":"error_during_execution","session_id":"72f9feb8-d15d-4914-b3cd-4c58228a4f44","is_error":true,"duration_ms":4510,"num_turns":1,"usage":{"input_tokens":0,"output_tokens":0},"permission_denials":[],"error":{"message":"[API Error: 401 Incorrect API key provided: sk-mock. You can find your API key in your account settings.]"}}
"#;

#[test]
fn api_errors_of_the_three_agents() {
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            COPILOT,
            copilot("error400.jsonl"),
            "request_rejected",
            "HTTP 400",
        ),
        (
            COPILOT,
            copilot("error500.jsonl"),
            "upstream_error",
            "HTTP 500",
        ),
        (COPILOT, COPILOT_401.into(), "auth_error", "HTTP 401"),
        (COPILOT, COPILOT_429.into(), "quota_exceeded", "HTTP 429"),
        (
            OPENCODE,
            opencode("error400.jsonl"),
            "request_rejected",
            "HTTP 400",
        ),
        (
            OPENCODE,
            opencode("error500.jsonl"),
            "upstream_error",
            "HTTP 500",
        ),
        (OPENCODE, OPENCODE_401.into(), "auth_error", "HTTP 401"),
        (OPENCODE, OPENCODE_429.into(), "quota_exceeded", "HTTP 429"),
        (QWEN, qwen("error400.jsonl"), "request_rejected", "HTTP 400"),
        (QWEN, qwen("error500.jsonl"), "upstream_error", "HTTP 500"),
        (QWEN, QWEN_401.into(), "auth_error", "HTTP 401"),
    ];
    for (agent, stdout, want, said) in cases {
        let result = run_once(agent, None, &stdout, "", None, exited(1));
        assert_eq!(kind(&result), want, "{agent}: {result}");
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(said), "{agent}: {message}");
        assert_eq!(result["error"]["exitCode"], json!(1));
        assert!(result["sessionId"].is_string(), "{agent}");
    }
}

#[test]
fn copilot_and_opencode_name_the_kind_when_no_status_is_given() {
    // A session.error without statusCode: its errorType is the code.
    let auth = br#"{"type":"session.error","data":{"errorType":"authentication","message":"Not signed in"}}
{"type":"result","sessionId":"5c7fd8b0-de2e-49ed-9eb5-83c824b4cf33","exitCode":1}
"#;
    assert_eq!(
        kind(&run_once(COPILOT, None, auth, "", None, exited(1))),
        "auth_error"
    );
    let auth = br#"{"type":"error","sessionID":"ses_dfa03d4f6ffeaVSQ9ub5HEd3XA","error":{"name":"ProviderAuthError","data":{"providerID":"mock","message":"no key"}}}
"#;
    assert_eq!(
        kind(&run_once(OPENCODE, None, auth, "", None, exited(1))),
        "auth_error"
    );
    let long = br#"{"type":"error","sessionID":"ses_dfa03d4f6ffeaVSQ9ub5HEd3XA","error":{"name":"ContextOverflowError","data":{"message":"too long"}}}
"#;
    assert_eq!(
        kind(&run_once(OPENCODE, None, long, "", None, exited(1))),
        "context_too_long"
    );
}

#[test]
fn unknown_sessions_as_each_of_the_three_reports_them() {
    let cases = [
        (
            COPILOT,
            UNKNOWN_ID,
            format!("Error: No session, task, or name matched '{UNKNOWN_ID}'.\n\nTo resume by session or task ID:  copilot --resume=<id>\n"),
            "No session, task, or name matched",
        ),
        (
            OPENCODE,
            "ses_0123456789abcdefABCDEFGHIJ",
            "\u{1b}[91m\u{1b}[1mError: \u{1b}[0mSession not found\n".to_owned(),
            "Error: Session not found",
        ),
        (
            QWEN,
            UNKNOWN_ID,
            format!("No saved session found with ID {UNKNOWN_ID}. Run `qwen --resume` without an ID to choose from existing sessions.\n"),
            "No saved session found with ID",
        ),
        (
            QWEN,
            "not-a-uuid",
            "No saved session found with title \"not-a-uuid\".\n".to_owned(),
            "No saved session found with title",
        ),
    ];
    for (agent, id, stderr, said) in cases {
        let result = run_once(agent, Some(id), b"", &stderr, None, exited(1));
        assert_eq!(kind(&result), "session_not_found", "{agent}: {result}");
        assert_eq!(result["requestedSessionId"], json!(id));
        let message = result["error"]["message"].as_str().unwrap();
        assert!(message.contains(said), "{agent}: {message}");
        assert_eq!(result["error"]["retryable"], json!(false));
    }
    // The session asked for, answered: a success.
    let first = run_once(
        OPENCODE,
        None,
        &opencode("resume.jsonl"),
        "",
        None,
        exited(0),
    );
    let id = first["reply"]["sessionId"].as_str().unwrap().to_owned();
    let resumed = run_once(
        OPENCODE,
        Some(&id),
        &opencode("resume.jsonl"),
        "",
        None,
        exited(0),
    );
    assert_eq!(resumed["success"], json!(true), "{resumed}");
}

#[test]
fn ends_without_the_final_event_are_incomplete() {
    // Qwen at --max-session-turns: exit 53, no result line.
    let result = run_once(QWEN, None, &qwen("max-turns.jsonl"), "", None, exited(53));
    assert_eq!(kind(&result), "incomplete", "{result}");
    assert!(result["error"]["message"]
        .as_str()
        .unwrap()
        .contains("exited with code 53 without its final event"));
    // opencode killed after its tool step: no step_finish reason stop.
    let whole = opencode("tool.jsonl");
    let text = String::from_utf8(whole).unwrap();
    let cut: String = text
        .lines()
        .take_while(|l| !l.contains(r#""type":"text""#))
        .map(|l| format!("{l}\n"))
        .collect();
    assert!(cut.contains(r#""type":"tool_use""#));
    let killed = AttemptEnd {
        signal: Some("SIGKILL".into()),
        ..Default::default()
    };
    let result = run_once(OPENCODE, None, cut.as_bytes(), "", None, killed);
    assert_eq!(kind(&result), "incomplete", "{result}");
    assert!(result["error"]["message"]
        .as_str()
        .unwrap()
        .contains("was ended by SIGKILL without its final event"));
    // Exit 0 without it is incomplete too.
    let result = run_once(OPENCODE, None, cut.as_bytes(), "", None, exited(0));
    assert_eq!(kind(&result), "incomplete", "{result}");
}

#[test]
fn the_recorded_successes_of_the_three_succeed() {
    for (agent, stdout) in [
        (QWEN, qwen("plain.jsonl")),
        (QWEN, qwen("tool.jsonl")),
        (COPILOT, copilot("tool.jsonl")),
        (OPENCODE, opencode("plain.jsonl")),
        (OPENCODE, opencode("tool.jsonl")),
    ] {
        let result = run_once(agent, None, &stdout, "", None, exited(0));
        assert_eq!(result["success"], json!(true), "{agent}: {result}");
        assert!(!result["reply"]["text"].as_str().unwrap().is_empty());
    }
}

/// Qwen Code tells of its outer retries only in its telemetry, which the run
/// turns on into a file beside its settings: the plan names the file, the
/// host hands what it reads of it to the engine, and past maxRetries
/// the attempt is stopped and ends as the retried status says. The file's
/// records are not output: the reply and the kept lines stay without them.
#[test]
fn qwen_retries_read_from_its_telemetry_file_stop_the_attempt() {
    use crate::launch::platform::Platform;
    let options = json!({"cd": "/w", "maxRetries": 1, "settingsFile": "/run/settings.json"});
    let mut run = ScriptedRun::new("qwen-code", &json!({"prompt": "Hi"}), &options, "qwen");
    run.launch(Platform::Linux, "/bin/qwen", "/bin/qwen", &[], Vec::new());
    let plan = run.plan().unwrap();
    let watch = run.retry_log().unwrap();
    assert_eq!(watch.path, "/run/telemetry.json");
    let settings: Value = serde_json::from_str(&plan.files[0].content).unwrap();
    assert_eq!(settings["telemetry"]["outfile"], "/run/telemetry.json");
    let record = |n: u32| {
        format!("{{\n  \"_body\": \"API retry attempt {n} for gpt-mock (status 503).\",\n  \"_isReadonly\": true\n}}\n")
    };
    run.start_attempt();
    run.push_retry_log(record(1).as_bytes());
    assert!(
        !run.stopped_for_own_retries(),
        "one retry is within maxRetries 1"
    );
    run.push_retry_log(record(2).as_bytes());
    assert!(run.stopped_for_own_retries());
    let end = AttemptEnd {
        signal: Some("SIGTERM".into()),
        ..Default::default()
    };
    assert_eq!(
        run.end_attempt(&end, 1_000),
        None,
        "no retry of ours: its own spent maxRetries"
    );
    let result = serde_json::to_value(run.result(1_000).unwrap()).unwrap();
    assert_eq!(result["attempts"], 1, "{result}");
    assert_eq!(kind(&result), "upstream_error", "{result}");
    let message = result["error"]["message"].as_str().unwrap();
    assert!(message.contains("2 times (HTTP 503)"), "{message}");
    assert!(!message.contains("_body"), "{message}");
    // The caller's own settings file: nothing of the run's, nothing read.
    let env = vec![(
        "QWEN_CODE_SYSTEM_SETTINGS_PATH".to_owned(),
        "/etc/qwen.json".to_owned(),
    )];
    let mut run = ScriptedRun::new("qwen-code", &json!({"prompt": "Hi"}), &options, "qwen");
    run.launch(Platform::Linux, "/bin/qwen", "/bin/qwen", &[], env);
    assert!(run.retry_log().is_none());
}
