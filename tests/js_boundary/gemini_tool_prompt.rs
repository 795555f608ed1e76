//! The Gemini tool's pure exports across the boundary: the prompt template
//! and the definition (in the main module).

use agent_context::wasm::{
    compose_gemini_tool_prompt, format_engineering_context_js, gemini_tool_definition,
};
use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{expect_error, get, json, text};

#[wasm_bindgen_test]
fn the_template_and_its_errors() {
    let prompt = compose_gemini_tool_prompt(json(
        r#"{"taskType":"执行","tasks":"Add a test","engineeringContext":[{"path":"ai/engineering_codex.md","content":"Small diffs."}]}"#,
    ))
    .unwrap();
    assert!(prompt.starts_with("请提供专业意见 / 执行任务：\n\n【工程上下文】"));
    assert!(prompt.contains("\n--- ai/engineering_codex.md ---\nSmall diffs.\n\n**任务类型**：执行\n\n**具体问题 / 任务**：\n1. Add a test\n\n"));
    let err = compose_gemini_tool_prompt(json(r#"{"taskType":"review","tasks":[1]}"#));
    expect_error(
        err.map(JsValue::from),
        "INVALID_INPUT",
        "tasks[0] must be a string, got a number",
    );
    expect_error(
        compose_gemini_tool_prompt(JsValue::UNDEFINED).map(JsValue::from),
        "INVALID_INPUT",
        "input must be an object, got undefined",
    );
    assert_eq!(format_engineering_context_js(JsValue::NULL).unwrap(), "");
    expect_error(
        format_engineering_context_js(json(r#"[{"path":3}]"#)).map(JsValue::from),
        "INVALID_INPUT",
        "engineeringContext[0].path must be a string, got a number",
    );
}

#[wasm_bindgen_test]
fn the_definition_is_a_plain_object() {
    let def = gemini_tool_definition().unwrap();
    assert_eq!(text(&def, "name"), "gemini");
    let schema = get(&def, "inputSchema");
    let keys = Object::keys(&get(&schema, "properties").into());
    assert_eq!(keys.length(), 12);
    assert_eq!(keys.get(0).as_string().as_deref(), Some("PROMPT"));
    assert_eq!(
        get(&get(&get(&schema, "properties"), "timeout"), "default").as_f64(),
        Some(300.0)
    );
}
