//! A Gemini tool call and its run across the boundary, as
//! `js/api/gemini-tool.cjs` and `js/api/run.cjs` make them: `__GeminiToolCall`
//! reads the parameters into the run's request and options,
//! `__Engine.run` runs them (fed recorded output, the host's actions
//! read back from `pollAll()`), and the envelope is written from the run's
//! `__RunResult`. Compiled with the `node` feature only (the Node-only
//! module of the package): `scripts/test.sh` runs the Node suite with
//! `--features node`.

use agent_context::wasm::{EngineJs, GeminiToolCallJs, RunResultJs};
use js_sys::Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{expect_error, get, json, text};

const PLAIN: &[u8] = include_bytes!("../fixtures/cli/gemini-plain.jsonl");
const REJECTED: &[u8] = include_bytes!("../fixtures/cli/gemini-error.jsonl");

/// The run of `call` (`{ agentType, request, options, keepEvents }`) on a
/// CLI engine, its prompt sent at time 0.
fn start(call: &GeminiToolCallJs, command: &str) -> (EngineJs, JsValue) {
    let run = call.run().unwrap();
    let mut engine = EngineJs::run(
        get(&run, "agentType"),
        get(&run, "request"),
        get(&run, "options"),
        command.into(),
        false,
        get(&run, "keepEvents").as_bool().unwrap(),
    )
    .unwrap();
    let prompt = get(&get(&run, "request"), "prompt");
    let blocks = json(&format!(
        r#"[{{"type":"text","text":{}}}]"#,
        js_sys::JSON::stringify(&prompt).unwrap()
    ));
    let limits = json(r#"{"idleMs":300000,"maxMs":1800000,"maxRetries":1,"events":false}"#);
    engine
        .prompt(blocks, limits, 0.0, None, JsValue::UNDEFINED)
        .unwrap();
    let actions = Array::from(&engine.poll_all().unwrap());
    (engine, actions.get(0))
}

fn kinds(engine: &mut EngineJs) -> Vec<String> {
    Array::from(&engine.poll_all().unwrap())
        .iter()
        .map(|a| text(&a, "kind"))
        .collect()
}

/// The run ended: its result (the engine closed).
fn finish(engine: &mut EngineJs, now: f64) -> RunResultJs {
    engine.input(json(r#"{"type":"close"}"#), now).unwrap();
    assert!(kinds(engine).ends_with(&["done".to_owned(), "closed".to_owned()]));
    engine.result().expect("the run's turn")
}

#[wasm_bindgen_test]
fn a_call_runs_on_the_engine_retries_and_writes_the_envelope() {
    let call = GeminiToolCallJs::new(
        json(r#"{"PROMPT":"Hi","cd":"/w","max_retries":1,"return_metrics":true}"#),
        "/bin/gemini".into(),
    );
    let (mut engine, spawn) = start(&call, "/bin/gemini");
    assert_eq!(text(&spawn, "kind"), "spawn");
    assert_eq!(text(&spawn, "command"), "/bin/gemini");
    assert_eq!(text(&spawn, "cwd"), "/w");
    let args: Vec<String> = Array::from(&get(&spawn, "args"))
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
    engine.input(json(r#"{"type":"spawned"}"#), 1.0).unwrap();
    let written = Array::from(&engine.poll_all().unwrap());
    assert_eq!(text(&written.get(0), "data"), "Hi", "the prompt on stdin");
    assert_eq!(text(&written.get(1), "kind"), "closeStdin");

    // A 400 saying the API key is not valid: auth_error (runAgent's kind), not retried.
    engine.stdout(REJECTED, 2.0);
    engine
        .input(json(r#"{"type":"exited","code":144}"#), 3000.0)
        .unwrap();
    let done = Array::from(&engine.poll_all().unwrap());
    assert_eq!(text(&done.get(0), "kind"), "done");
    assert!(
        get(&done.get(0), "turn").is_undefined(),
        "a run's turn is taken, not sent"
    );
    let result = finish(&mut engine, 3000.0);
    assert_eq!(result.kind(), Some("auth_error".into()));
    let envelope = call.envelope(&result, 3000.0).unwrap();
    assert_eq!(get(&envelope, "success").as_bool(), Some(false));
    assert_eq!(text(&envelope, "error_kind"), "auth_error");
    assert_eq!(
        get(&get(&envelope, "error_detail"), "exit_code").as_f64(),
        Some(144.0)
    );
    assert_eq!(call.metrics_line(&result, 3000.0), None);

    // An HTTP 500 is retried after 0.5 s, then the answer comes.
    let call = GeminiToolCallJs::new(
        json(r#"{"PROMPT":"Hi","cd":"/w","log_metrics":true}"#),
        "gemini".into(),
    );
    let (mut engine, _) = start(&call, "gemini");
    engine.input(json(r#"{"type":"spawned"}"#), 1.0).unwrap();
    engine.poll_all().unwrap();
    engine.stdout(b"{\"type\":\"init\",\"session_id\":\"s1\"}\n{\"type\":\"result\",\"status\":\"error\",\"error\":{\"type\":\"unknown\",\"message\":\"[API Error: {\\\"error\\\":{\\\"code\\\":500}}]\"}}\n", 2.0);
    engine
        .input(json(r#"{"type":"exited","code":244}"#), 1000.0)
        .unwrap();
    assert_eq!(kinds(&mut engine), Vec::<String>::new());
    assert_eq!(engine.poll_timeout(), Some(1500.0));
    engine.timeout(1500.0);
    assert_eq!(kinds(&mut engine), ["spawn"]);
    engine.input(json(r#"{"type":"spawned"}"#), 1501.0).unwrap();
    engine.poll_all().unwrap();
    engine.stderr(b"Warning: Basic terminal detected\n", 1502.0);
    engine.stdout(&PLAIN[..100], 1503.0);
    engine.stdout(&PLAIN[100..], 1504.0);
    engine
        .input(json(r#"{"type":"exited","code":0}"#), 4000.0)
        .unwrap();
    let result = finish(&mut engine, 4000.0);
    let envelope = call.envelope(&result, 4000.0).unwrap();
    assert_eq!(
        text(&envelope, "result"),
        "Mock reply: use React for the dashboard."
    );
    assert_eq!(
        text(&envelope, "SESSION_ID"),
        "c93265c3-ff3f-4d07-b32a-67a5ff5c389a"
    );
    assert_eq!(text(&envelope, "duration"), "0m4s");
    let line = call.metrics_line(&result, 4000.0).unwrap();
    assert!(line.starts_with(r#"{"tool":"gemini","success":true,"error_kind":null,"duration":"0m4s","duration_ms":4000,"attempts":2,"retries":1,"exit_code":0"#), "{line}");
    // runAgent's AgentRun of the same result: the reply's text crosses whole.
    let mut result = result;
    let run = result.to_run(4000.0).unwrap();
    assert_eq!(
        text(&get(&run, "reply"), "text"),
        "Mock reply: use React for the dashboard."
    );
    assert!(get(&run, "stopReason").is_undefined());
    assert_eq!(get(&run, "attempts").as_f64(), Some(2.0));
}

#[wasm_bindgen_test]
fn unreadable_params_a_bad_cd_and_bad_options_are_invalid_params() {
    let call = GeminiToolCallJs::new(JsValue::from(js_sys::Symbol::for_("x")), "gemini".into());
    assert!(call.run().unwrap().is_undefined());
    let envelope = call.invalid_envelope(0.0).unwrap();
    assert_eq!(text(&envelope, "error_kind"), "invalid_params");
    assert_eq!(
        text(&get(&envelope, "error_detail"), "message"),
        "params must be an object, got a symbol"
    );

    // The host found the folder is not one, and says so in the tool's words.
    let call = GeminiToolCallJs::new(
        json(r#"{"PROMPT":"Hi","cd":"/etc/passwd"}"#),
        "gemini".into(),
    );
    let run = call.run().unwrap();
    let mut engine = EngineJs::run(
        get(&run, "agentType"),
        get(&run, "request"),
        get(&run, "options"),
        "gemini".into(),
        false,
        false,
    )
    .unwrap();
    engine
        .input(
            json(r#"{"type":"reject","message":"cd is not a directory: /etc/passwd"}"#),
            0.0,
        )
        .unwrap();
    let blocks = json(r#"[{"type":"text","text":"Hi"}]"#);
    let limits = json(r#"{"idleMs":1000,"maxMs":2000,"maxRetries":0,"events":false}"#);
    engine
        .prompt(blocks, limits, 0.0, None, JsValue::UNDEFINED)
        .unwrap();
    let result = finish(&mut engine, 0.0);
    let envelope = call.envelope(&result, 0.0).unwrap();
    assert_eq!(
        text(&get(&envelope, "error_detail"), "message"),
        "cd is not a directory: /etc/passwd"
    );
    assert_eq!(
        text(&envelope, "error"),
        "invalid parameters: cd is not a directory: /etc/passwd"
    );

    // runAgent's options read by the engine: a bad one throws, naming it.
    expect_error(
        EngineJs::run(
            "google-gemini".into(),
            json(r#"{"prompt":"Hi"}"#),
            json(r#"{"cd":"/w","maxRetries":11}"#),
            String::new(),
            false,
            false,
        )
        .map(|_| JsValue::UNDEFINED),
        "INVALID_INPUT",
        "options.maxRetries must be a whole number from 0 to 10, got 11",
    );
    let refused = RunResultJs::invalid("google-gemini".into(), "request: nope".into());
    assert_eq!(refused.kind(), Some("invalid_params".into()));
}
