//! The run the Node runner drives, across the boundary (fed recorded
//! output). `__GeminiToolRun` is compiled with the `gemini-tool` feature
//! only (its own module in the package): `scripts/test.sh` runs the Node
//! suite with `--features gemini-tool`.

use agent_context::wasm::GeminiToolRunJs;
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{expect_error, get, json, text};

const PLAIN: &[u8] = include_bytes!("../fixtures/cli/gemini-plain.jsonl");
const REJECTED: &[u8] = include_bytes!("../fixtures/cli/gemini-error.jsonl");

#[wasm_bindgen_test]
fn a_run_plans_reads_output_retries_and_writes_the_envelope() {
    let mut run = GeminiToolRunJs::new(
        json(r#"{"PROMPT":"Hi","cd":"/w","max_retries":1,"return_metrics":true}"#),
        "/bin/gemini".into(),
    );
    let plan = run.plan().unwrap();
    assert_eq!(text(&plan, "command"), "/bin/gemini");
    assert_eq!(text(&plan, "stdin"), "Hi");
    assert_eq!(text(&plan, "cd"), "/w");
    let args: Vec<String> = Array::from(&get(&plan, "args"))
        .iter()
        .map(|a| a.as_string().unwrap())
        .collect();
    assert_eq!(
        args,
        [
            "-o",
            "stream-json",
            "--skip-trust",
            "--model=gemini-3-pro-preview",
            "--approval-mode=yolo"
        ]
    );
    assert_eq!(get(&plan, "idleTimeoutMs").as_f64(), Some(300_000.0));
    assert_eq!(get(&plan, "maxDurationMs").as_f64(), Some(1_800_000.0));
    assert_eq!(get(&plan, "maxAttempts").as_f64(), Some(2.0));

    // A 400 saying the API key is not valid: auth_error (runAgent's kind), not retried.
    run.start_attempt();
    run.push_stdout(REJECTED);
    assert_eq!(
        run.end_attempt(Some(144), None, None, None, 3000.0)
            .unwrap(),
        None
    );
    let envelope = run.envelope(3000.0).unwrap();
    assert_eq!(get(&envelope, "success").as_bool(), Some(false));
    assert_eq!(text(&envelope, "error_kind"), "auth_error");
    assert_eq!(
        get(&get(&envelope, "error_detail"), "exit_code").as_f64(),
        Some(144.0)
    );
    assert!(run.plan().unwrap().is_undefined(), "the call is over");
    assert_eq!(run.metrics_line(3000.0).unwrap(), None);

    // An idle timeout is retried after 0.5 s, then the answer comes.
    let mut run = GeminiToolRunJs::new(
        json(r#"{"PROMPT":"Hi","cd":"/w","log_metrics":true}"#),
        "gemini".into(),
    );
    run.start_attempt();
    assert_eq!(
        run.end_attempt(
            None,
            Some("SIGKILL".into()),
            None,
            Some("idle_timeout".into()),
            1000.0
        )
        .unwrap(),
        Some(500.0)
    );
    run.start_attempt();
    run.push_stderr(b"Warning: Basic terminal detected\n");
    run.push_stdout(&PLAIN[..100]);
    run.push_stdout(&PLAIN[100..]);
    assert_eq!(
        run.end_attempt(Some(0), None, None, None, 4000.0).unwrap(),
        None
    );
    let envelope = run.envelope(4000.0).unwrap();
    assert_eq!(
        text(&envelope, "result"),
        "Mock reply: use React for the dashboard."
    );
    assert_eq!(
        text(&envelope, "SESSION_ID"),
        "c93265c3-ff3f-4d07-b32a-67a5ff5c389a"
    );
    assert_eq!(text(&envelope, "duration"), "0m4s");
    let line = run.metrics_line(4000.0).unwrap().unwrap();
    assert!(line.starts_with(r#"{"tool":"gemini","success":true,"error_kind":null,"duration":"0m4s","duration_ms":4000,"attempts":2,"retries":1,"exit_code":0"#), "{line}");

    expect_error(
        run.end_attempt(None, None, None, Some("later".into()), 0.0)
            .map(|_| JsValue::UNDEFINED),
        "INVALID_INPUT",
        "stopped must be 'idle_timeout', 'timeout', 'aborted' or 'own_retries', got \"later\"",
    );
}

#[wasm_bindgen_test]
fn unreadable_params_and_a_bad_cd_are_invalid_params() {
    let run = GeminiToolRunJs::new(JsValue::from(js_sys::Symbol::for_("x")), "gemini".into());
    assert!(run.plan().unwrap().is_undefined());
    let envelope = run.envelope(0.0).unwrap();
    assert_eq!(text(&envelope, "error_kind"), "invalid_params");
    assert_eq!(
        text(&get(&envelope, "error_detail"), "message"),
        "params must be an object, got a symbol"
    );

    let mut run = GeminiToolRunJs::new(
        json(r#"{"PROMPT":"Hi","cd":"/etc/passwd"}"#),
        "gemini".into(),
    );
    run.reject_cd("not_a_directory".into());
    let envelope = run.envelope(0.0).unwrap();
    assert_eq!(
        text(&get(&envelope, "error_detail"), "message"),
        "cd is not a directory: /etc/passwd"
    );
}
