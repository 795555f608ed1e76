//! `buildCliInvocation` across the boundary.

use agent_context::wasm::build_cli_invocation;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{expect_error, get, json, text};

fn args(invocation: &JsValue) -> Vec<String> {
    Array::from(&get(invocation, "args"))
        .iter()
        .map(|a| a.as_string().unwrap())
        .collect()
}

fn options(json_text: &str) -> Option<Object> {
    Some(json(json_text).into())
}

#[wasm_bindgen_test]
fn builds_the_command_line_with_the_prompt_on_stdin() {
    let output = json(r#"{"prompt":"[MESSAGE]\nHi","systemFlag":"You are Carol"}"#);
    let run = build_cli_invocation("claude-code".into(), output.clone(), None).unwrap();
    assert_eq!(text(&run, "command"), "claude");
    assert_eq!(
        args(&run),
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--append-system-prompt=You are Carol"
        ]
    );
    assert_eq!(text(&run, "stdin"), "[MESSAGE]\nHi");
    assert_eq!(Array::from(&get(&run, "files")).length(), 0);

    let run = build_cli_invocation(
        "google-gemini".into(),
        json(r#"{"prompt":"Your task:\nHi","systemFlag":null}"#),
        options(r#"{"model":"gemini-2.5-pro","sessionId":"abc","sandbox":"read-only","yolo":true,"command":"","extraArgs":["--debug"]}"#),
    )
    .unwrap();
    assert_eq!(text(&run, "command"), "gemini");
    assert_eq!(
        args(&run),
        [
            "-o",
            "stream-json",
            "--skip-trust",
            "--model=gemini-2.5-pro",
            "--resume=abc",
            "--approval-mode=plan",
            "--debug"
        ]
    );
}

#[wasm_bindgen_test]
fn a_long_system_prompt_becomes_a_file_to_write() {
    let flag = "x".repeat(200_000);
    let output = Object::new();
    super::support::set(&output, "prompt", &"[MESSAGE]\nHi".into());
    super::support::set(&output, "systemFlag", &flag.as_str().into());
    let run = build_cli_invocation(
        "claude-code".into(),
        output.clone().into(),
        options(r#"{"systemPromptFile":"/tmp/carol.md"}"#),
    )
    .unwrap();
    assert!(args(&run).contains(&"--append-system-prompt-file=/tmp/carol.md".to_owned()));
    let file = Array::from(&get(&run, "files")).get(0);
    assert_eq!(text(&file, "path"), "/tmp/carol.md");
    assert_eq!(text(&file, "content").len(), 200_000);
    let err = build_cli_invocation("claude-code".into(), output.into(), None);
    assert!(err.is_err());
}

#[wasm_bindgen_test]
fn options_of_the_wrong_type_are_invalid_input() {
    let output = || json(r#"{"prompt":"Hi"}"#);
    let cases = [
        (r#"{"model":5}"#, "options.model must be a string, got a number"),
        (r#"{"sessionId":true}"#, "options.sessionId must be a string, got a boolean"),
        (r#"{"command":{}}"#, "options.command must be a string, got an object"),
        (r#"{"systemPromptFile":[]}"#, "options.systemPromptFile must be a string, got an array"),
        (r#"{"yolo":"yes"}"#, "options.yolo must be a boolean, got a string"),
        (
            r#"{"sandbox":"full"}"#,
            "options.sandbox must be one of 'read-only', 'workspace-write', 'danger-full-access', got \"full\"",
        ),
        (r#"{"extraArgs":"--x"}"#, "options.extraArgs must be an array of strings, got a string"),
        (r#"{"extraArgs":["--x",1]}"#, "options.extraArgs[1] must be a string, got a number"),
    ];
    for (given, message) in cases {
        expect_error(
            build_cli_invocation("openai-codex".into(), output(), options(given)),
            "INVALID_INPUT",
            message,
        );
    }
    expect_error(
        build_cli_invocation("openai-codex".into(), json(r#"{"systemFlag":"x"}"#), None),
        "INVALID_INPUT",
        "assemblerOutput.prompt must be a string, got undefined",
    );
    expect_error(
        build_cli_invocation("openai-codex".into(), JsValue::from_str("Hi"), None),
        "INVALID_INPUT",
        "assemblerOutput must be an object, got a string",
    );
    expect_error(
        build_cli_invocation(
            "claude-code".into(),
            json(r#"{"prompt":"Hi","systemFlag":7}"#),
            None,
        ),
        "INVALID_INPUT",
        "assemblerOutput.systemFlag must be a string, got a number",
    );
    expect_error(
        build_cli_invocation("custom-agent".into(), output(), None),
        "INVALID_INPUT",
        "agentType must be 'claude-code', 'openai-codex', 'google-gemini', 'qwen-code', 'github-copilot', 'opencode', 'cline', 'factory-droid', 'pi' or 'kimi-code' to build a command line, got \"custom-agent\"",
    );
}
