//! `parseAgentOutput` and `AgentOutputParser` across the boundary: strings
//! and `Uint8Array`s in, plain objects out.

use agent_context::wasm::{parse_agent_output, AgentOutputParser};
use js_sys::{Array, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{expect_error, get, text};

const GEMINI_RUN: &str = concat!(
    "Warning: something\n",
    r#"{"type":"init","session_id":"s-1","model":"m"}"#,
    "\n",
    r#"{"type":"message","role":"user","content":"prompt"}"#,
    "\n",
    r#"{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"path":"a","limit":null,"n":12}}"#,
    "\n",
    r#"{"type":"message","role":"assistant","content":"Café ","delta":true}"#,
    "\n",
    r#"{"type":"message","role":"assistant","content":"au lait","delta":true}"#,
    "\n",
    r#"{"type":"result","status":"success","stats":{"input_tokens":4,"output_tokens":2,"total_tokens":6}}"#,
    "\n",
);

fn bytes(s: &str) -> JsValue {
    Uint8Array::from(s.as_bytes()).into()
}

#[wasm_bindgen_test]
fn parses_a_string_or_bytes_into_a_plain_reply() {
    let reply = parse_agent_output("google-gemini".into(), GEMINI_RUN.into()).unwrap();
    assert_eq!(text(&reply, "text"), "Café au lait");
    assert_eq!(text(&reply, "sessionId"), "s-1");
    assert_eq!(text(&reply, "status"), "success");
    let tool = Array::from(&get(&reply, "toolUses")).get(0);
    let input = get(&tool, "input");
    // JSON null stays null (not undefined), numbers are numbers.
    assert!(get(&input, "limit").is_null());
    assert_eq!(get(&input, "n").as_f64(), Some(12.0));
    assert_eq!(text(&tool, "status"), "pending");
    assert_eq!(
        get(&get(&reply, "usage"), "totalTokens").as_f64(),
        Some(6.0)
    );
    assert_eq!(
        Array::from(&get(&reply, "nonJsonLines"))
            .get(0)
            .as_string()
            .as_deref(),
        Some("Warning: something")
    );
    let from_bytes = parse_agent_output("google-gemini".into(), bytes(GEMINI_RUN)).unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&from_bytes).unwrap(),
        js_sys::JSON::stringify(&reply).unwrap()
    );
}

#[wasm_bindgen_test]
fn missing_fields_are_absent() {
    let reply = parse_agent_output("openai-codex".into(), "".into()).unwrap();
    assert_eq!(text(&reply, "status"), "incomplete");
    assert!(!Reflect::has(&reply, &"sessionId".into()).unwrap());
    assert!(!Reflect::has(&reply, &"usage".into()).unwrap());
    assert_eq!(Array::from(&get(&reply, "errors")).length(), 0);
}

#[wasm_bindgen_test]
fn the_parser_takes_chunks_split_inside_characters() {
    let mut parser = AgentOutputParser::new("google-gemini".into()).unwrap();
    let all = GEMINI_RUN.as_bytes();
    // Cut inside the two bytes of "é".
    let cut = GEMINI_RUN.find('\u{e9}').unwrap() + 1;
    let mut types = Vec::new();
    let mut streamed_text = String::new();
    for part in [&all[..cut], &all[cut..]] {
        let events = Array::from(&parser.push(Uint8Array::from(part).into()).unwrap());
        for event in events.iter() {
            let kind = text(&event, "type");
            if kind == "text" {
                streamed_text.push_str(&text(&event, "text"));
            }
            types.push(kind);
        }
    }
    assert_eq!(
        types,
        ["nonJson", "session", "toolUse", "text", "text", "usage", "status"]
    );
    assert_eq!(streamed_text, "Café au lait");
    let reply = parser.finish().unwrap();
    let whole = parse_agent_output("google-gemini".into(), GEMINI_RUN.into()).unwrap();
    assert_eq!(
        js_sys::JSON::stringify(&reply).unwrap(),
        js_sys::JSON::stringify(&whole).unwrap()
    );
    let spent = "this AgentOutputParser is finished: create a new one for more output";
    expect_error(parser.push("more".into()), "INVALID_INPUT", spent);
    expect_error(parser.finish(), "INVALID_INPUT", spent);
}

#[wasm_bindgen_test]
fn wrong_argument_types_are_invalid_input() {
    expect_error(
        parse_agent_output(JsValue::from(5), "".into()),
        "INVALID_INPUT",
        "agentType must be a string, got a number",
    );
    expect_error(
        parse_agent_output("claude-code".into(), JsValue::NULL),
        "INVALID_INPUT",
        "output must be a string or a Uint8Array, got null",
    );
    let mut parser = AgentOutputParser::new("claude-code".into()).unwrap();
    expect_error(
        parser.push(Array::new().into()),
        "INVALID_INPUT",
        "chunk must be a string or a Uint8Array, got an array",
    );
    // A bad chunk does not spend the parser.
    assert_eq!(Array::from(&parser.push("".into()).unwrap()).length(), 0);
    assert!(AgentOutputParser::new(JsValue::UNDEFINED).is_err());
}
