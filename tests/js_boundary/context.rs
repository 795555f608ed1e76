//! The context builder across the boundary (seed 004).

use agent_context::wasm::{
    build_llm_messages_from_conversation, compose_system_prompt_js, parse_run_directive_js,
    to_openai_message,
};
use js_sys::{Array, Object, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{eval, expect_error, get, json, set, text};
use crate::common::{context_golden, CONTEXT_CASES_JSON};

fn stringify(v: &JsValue) -> String {
    JSON::stringify(v).unwrap().into()
}

#[wasm_bindgen_test]
fn golden_system_prompts_for_every_mode() {
    let cases = Array::from(&json(CONTEXT_CASES_JSON));
    assert_eq!(cases.length(), 10);
    for case in cases.iter() {
        let name = text(&case, "name");
        let expected = context_golden(&text(&case, "golden"));
        let options = get(&case, "options");
        let built = build_llm_messages_from_conversation(options.clone(), None).unwrap();
        let system = Array::from(&get(&built, "messages")).get(0);
        assert_eq!(text(&system, "role"), "system", "{name}");
        assert_eq!(text(&system, "content"), expected, "{name}");
        // systemPromptLength counts UTF-16 units, as JS `.length` does.
        let length = get(&get(&built, "metadata"), "systemPromptLength")
            .as_f64()
            .unwrap();
        assert_eq!(
            length,
            js_sys::JsString::from(expected).length() as f64,
            "{name}"
        );
        assert_eq!(
            compose_system_prompt_js(options, None).unwrap(),
            expected,
            "{name}"
        );
    }
}

#[wasm_bindgen_test]
fn messages_metadata_and_exact_keys() {
    let built = build_llm_messages_from_conversation(
        eval(
            "return { mode: 'chat', settings: { includeSystemPrompt: false }, messages: [
               { role: 'user', content: 'hi', extra: () => 1, at: new Date(0) },
               { role: 'assistant', content: null, toolCalls: [{ id: 'c', name: 'f', arguments: { a: [1, 'é'] } }] },
               { role: 'tool', toolCallId: 'c', content: 'done' },
               { role: 'user', content: 'skip', includeInContext: false },
               { role: 'system', content: 'skip too' } ] };",
        ),
        None,
    )
    .unwrap();
    assert_eq!(
        stringify(&built),
        r#"{"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":null,"tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{\"a\":[1,\"é\"]}"}}]},{"role":"tool","content":"done","tool_call_id":"c"}],"metadata":{"inputCount":5,"outputCount":3,"filteredCount":1,"systemPromptIncluded":false,"systemPromptLength":0}}"#
    );
}

#[wasm_bindgen_test]
fn to_openai_message_and_errors() {
    let out = to_openai_message(json(
        r#"{"role":"tool","tool_call_id":"x","content":"r","name":"n"}"#,
    ))
    .unwrap();
    assert_eq!(
        stringify(&out),
        r#"{"role":"tool","content":"r","name":"n","tool_call_id":"x"}"#
    );
    expect_error(
        to_openai_message(json(r#"{"role":"tool","content":"r"}"#)),
        "INVALID_INPUT",
        "message is a tool message without toolCallId (the id of the call it answers)",
    );
    expect_error(
        build_llm_messages_from_conversation(
            json(
                r#"{"mode":"chat","messages":[{"role":"user","content":"a"},{"role":"user","content":7}]}"#,
            ),
            None,
        ),
        "INVALID_INPUT",
        "messages[1].content must be a string or an array of content parts, got a number",
    );
    expect_error(
        build_llm_messages_from_conversation(JsValue::UNDEFINED, None),
        "INVALID_INPUT",
        "options must be an object, got undefined",
    );
    // A cycle is a clear error, not a trap, and the module keeps working.
    let cyclic = eval("const o = { mode: 'chat', messages: [] }; o.self = o; return o;");
    let err = build_llm_messages_from_conversation(cyclic, None).unwrap_err();
    assert_eq!(get(&err, "code").as_string().unwrap(), "INVALID_INPUT");
    assert!(text(&err, "message").starts_with("options could not be read: "));
    // A lone surrogate becomes U+FFFD.
    let lone = eval("return { role: 'user', content: 'a\\uD800b' };");
    assert_eq!(
        text(&to_openai_message(lone).unwrap(), "content"),
        "a\u{FFFD}b"
    );
}

#[wasm_bindgen_test]
fn template_overrides_per_call() {
    let extras = Object::new();
    set(
        &extras,
        "templates",
        &json(r###"{"base-rules-chat.md":"## House rules"}"###),
    );
    let prompt = compose_system_prompt_js(json(r#"{"mode":"chat"}"#), Some(extras)).unwrap();
    assert_eq!(prompt, "# Mode: CHAT\n\n---\n\n## House rules");
    let bad = Object::new();
    set(&bad, "templates", &json(r#"{"rules.md":"x"}"#));
    let err = compose_system_prompt_js(json(r#"{"mode":"chat"}"#), Some(bad)).unwrap_err();
    assert!(text(&err, "message").starts_with("templates[\"rules.md\"] is not a template"));
}

#[wasm_bindgen_test]
fn parse_run_directive_across_the_boundary() {
    let reply = "All done.\n```run-directive\n{\"step\":\"s\",\"status\":\"complete\",\"transition\":\"ok\",\"artifacts\":[\"a.md\"],\"summary\":\"Wrote a.md\"}\n```\n";
    let d = parse_run_directive_js(reply.into(), JsValue::UNDEFINED).unwrap();
    assert_eq!(
        stringify(&d),
        r#"{"valid":true,"step":"s","status":"complete","transition":"ok","artifacts":["a.md"],"summary":"Wrote a.md"}"#
    );
    assert!(parse_run_directive_js("no block".into(), JsValue::NULL)
        .unwrap()
        .is_null());
    let ctx = json(
        r#"{"packageName":"p","workflowName":"w","currentStep":{"id":"s","name":"n","instruction":"i"},"graph":{"outgoingEdges":[{"label":"next","targetNodeId":"t"}]}}"#,
    );
    let d = parse_run_directive_js(reply.into(), ctx).unwrap();
    assert_eq!(get(&d, "valid"), JsValue::FALSE);
    assert_eq!(
        text(&d, "error"),
        "\"transition\" \"ok\" is not one of the available transitions (next)"
    );
    expect_error(
        parse_run_directive_js(JsValue::from_f64(1.0), JsValue::NULL),
        "INVALID_INPUT",
        "replyText must be a string, got a number",
    );
}
