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

/// What `__push` returns, `[order, others, text]`, read back into
/// `(type, text)` pairs as `push` (js/web/parser-events.js) does: a non-zero
/// `order` entry is a text event that long in UTF-16 code units, 0 the next
/// of `others`.
fn events(parts: Array) -> Vec<(String, String)> {
    let order = js_sys::Uint32Array::from(parts.get(0)).to_vec();
    let others = parts.get(1);
    let all_text = js_sys::JsString::from(parts.get(2));
    let (mut at, mut other) = (0, 0);
    let mut out = Vec::new();
    for units in order {
        if units == 0 {
            let event = Array::from(&others).get(other);
            other += 1;
            out.push((text(&event, "type"), String::new()));
        } else {
            let piece = all_text.slice(at, at + units);
            at += units;
            out.push(("text".to_owned(), String::from(piece)));
        }
    }
    assert_eq!(at, all_text.length(), "text left over");
    if !others.is_null() {
        assert_eq!(other, Array::from(&others).length(), "events left over");
    }
    out
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
fn long_multi_byte_text_crosses_whole() {
    // Long enough to cross as UTF-16 in pieces of every UTF-8 length,
    // surrogate pairs included, in a string and in bytes split anywhere.
    let piece = "Größe 日本語 🎉 ok\n";
    let content = piece.repeat(500);
    let line = |content: &str| {
        format!(
            "{}\n",
            serde_json::json!({"type": "message", "role": "assistant", "content": content, "delta": true})
        )
    };
    let run = line(&content) + &line("") + &line("!");
    let expected = content.clone() + "!";
    let reply = parse_agent_output("google-gemini".into(), run.as_str().into()).unwrap();
    assert_eq!(text(&reply, "text"), expected);
    let reply = parse_agent_output("google-gemini".into(), bytes(&run)).unwrap();
    assert_eq!(text(&reply, "text"), expected);
    let mut parser = AgentOutputParser::new("google-gemini".into()).unwrap();
    let mut streamed = String::new();
    for chunk in run.as_bytes().chunks(997) {
        for (_, piece) in events(parser.push_parts(Uint8Array::from(chunk).into()).unwrap()) {
            streamed.push_str(&piece);
        }
    }
    assert_eq!(streamed, expected);
    assert_eq!(text(&parser.finish().unwrap(), "text"), expected);
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
        for (kind, piece) in events(parser.push_parts(Uint8Array::from(part).into()).unwrap()) {
            streamed_text.push_str(&piece);
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
    expect_error(
        parser.push_parts("more".into()).map(JsValue::from),
        "INVALID_INPUT",
        spent,
    );
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
        parser.push_parts(Array::new().into()).map(JsValue::from),
        "INVALID_INPUT",
        "chunk must be a string or a Uint8Array, got an array",
    );
    // A bad chunk does not spend the parser.
    assert!(events(parser.push_parts("".into()).unwrap()).is_empty());
    assert!(AgentOutputParser::new(JsValue::UNDEFINED).is_err());
}

#[wasm_bindgen_test]
fn a_lone_surrogate_in_a_string_reads_as_a_replacement_character() {
    // In Node the string is read as UTF-16 units, elsewhere as UTF-8: the
    // same reply either way.
    let mut units: Vec<u16> = r#"{"type":"message","role":"assistant","content":"a"#
        .encode_utf16()
        .collect();
    units.extend([0xd800, u16::from(b'b'), 0xdc00]);
    units.extend(r#"c 🎉","delta":true}"#.encode_utf16());
    units.push(u16::from(b'\n'));
    let output = js_sys::JsString::from_char_code(&units);
    let reply = parse_agent_output("google-gemini".into(), output.into()).unwrap();
    assert_eq!(text(&reply, "text"), "a\u{fffd}b\u{fffd}c 🎉");
}
