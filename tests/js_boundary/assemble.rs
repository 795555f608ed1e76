//! The assemblers across the boundary: worked examples, classes, errors, budget.

use agent_context::wasm::{
    assemble, ClaudeContextAssembler, CodexContextAssembler, GeminiContextAssembler,
    PlainTextAssembler,
};
use js_sys::{Array, Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

use super::support::{expect_error, get, json, ok};
use crate::common::{golden, WORKED_EXAMPLES_JSON};

#[wasm_bindgen_test]
fn worked_examples_byte_for_byte() {
    let examples = Array::from(&json(WORKED_EXAMPLES_JSON));
    assert_eq!(examples.length(), 10);
    for ex in examples.iter() {
        let name = get(&ex, "name").as_string().unwrap();
        let agent = get(&ex, "agentType").as_string().unwrap();
        let out = ok(&agent, &get(&ex, "input"));
        let expected = golden(&get(&ex, "golden").as_string().unwrap());
        assert_eq!(
            get(&out, "prompt").as_string().as_deref(),
            Some(expected),
            "{name}"
        );
        // Exactly the seed's keys, systemFlag present and undefined.
        let keys: Vec<String> = Object::keys(out.unchecked_ref::<Object>())
            .iter()
            .filter_map(|k| k.as_string())
            .collect();
        assert_eq!(keys, ["prompt", "systemFlag"], "{name}");
        let flag = get(&ex, "goldenSystemFlag").as_string().map(|f| golden(&f));
        assert_eq!(
            get(&out, "systemFlag").as_string().as_deref(),
            flag,
            "{name}"
        );
        assert_eq!(
            get(&out, "systemFlag").is_undefined(),
            flag.is_none(),
            "{name}"
        );
    }
}

#[wasm_bindgen_test]
fn camel_case_keys_from_json() {
    let input = json(
        r#"{"contextMessages":[{"from":"kailai","to":"carol","content":"Hello","timestamp":"2026-01-01"}],
            "currentMessage":"What do you suggest?","teamTask":null,"systemInstruction":"  sys  ",
            "instructionFileText":null,"maxBytes":786432}"#,
    );
    let out = ok("google-gemini", &input);
    assert_eq!(
        get(&out, "prompt").as_string().unwrap(),
        "Instructions:\nsys\n\nConversation so far:\n- kailai: Hello\n\nYour task:\nWhat do you suggest?"
    );
}

#[wasm_bindgen_test]
fn classes_report_agent_type_and_assemble() {
    let gemini = GeminiContextAssembler::new();
    assert_eq!(gemini.get_agent_type(), "google-gemini");
    let plain = PlainTextAssembler::new();
    assert_eq!(plain.get_agent_type(), "unknown");
    let input = json(
        r#"{"contextMessages":[],"currentMessage":"Hello Gemini","teamTask":null,"maxBytes":786432}"#,
    );
    let out = gemini.assemble(input.clone()).unwrap();
    assert_eq!(
        get(&out, "prompt").as_string().unwrap(),
        "Your task:\nHello Gemini"
    );
    let out = plain.assemble(input).unwrap();
    assert_eq!(get(&out, "prompt").as_string().unwrap(), "Hello Gemini");

    let with_system = json(
        r#"{"contextMessages":[],"currentMessage":"Hi","teamTask":null,"systemInstruction":"Be brief"}"#,
    );
    let claude = ClaudeContextAssembler::new();
    assert_eq!(claude.get_agent_type(), "claude-code");
    let out = claude.assemble(with_system.clone()).unwrap();
    assert_eq!(get(&out, "prompt").as_string().unwrap(), "[MESSAGE]\nHi");
    assert_eq!(get(&out, "systemFlag").as_string().unwrap(), "Be brief");
    let codex = CodexContextAssembler::new();
    assert_eq!(codex.get_agent_type(), "openai-codex");
    let out = codex.assemble(with_system).unwrap();
    assert_eq!(
        get(&out, "prompt").as_string().unwrap(),
        "[SYSTEM]\nBe brief\n\n[MESSAGE]\nHi"
    );
    assert!(get(&out, "systemFlag").is_undefined());
}

#[wasm_bindgen_test]
fn unknown_agent_warns_through_the_logger() {
    let seen = Array::new();
    let push = Function::new_with_args("m", "this.push(m)").bind0(&seen);
    let options = Object::new();
    Reflect::set(&options, &"logger".into(), &push).unwrap();
    let input = json(r#"{"contextMessages":[],"currentMessage":"Hello","teamTask":null}"#);
    let out = assemble("custom-agent".into(), input.clone(), Some(options)).unwrap();
    assert_eq!(get(&out, "prompt").as_string().unwrap(), "Hello");
    assert_eq!(seen.length(), 1);
    assert_eq!(
        seen.get(0).as_string().unwrap(),
        "[ContextManager] Unknown agentType \"custom-agent\", using PlainTextAssembler"
    );
    // An object logger (like `console`) is called as a method.
    let sink = json(r#"{"lines":[]}"#);
    let logger = json("{}");
    let warn = Function::new_with_args("m", "this.sink.lines.push(m)");
    Reflect::set(&logger, &"warn".into(), &warn).unwrap();
    Reflect::set(&logger, &"sink".into(), &sink).unwrap();
    let options = Object::new();
    Reflect::set(&options, &"logger".into(), &logger).unwrap();
    assemble("other".into(), input.clone(), Some(options)).unwrap();
    assert_eq!(Array::from(&get(&sink, "lines")).length(), 1);
    // A known agent does not warn.
    seen.set_length(0);
    let options = Object::new();
    Reflect::set(&options, &"logger".into(), &push).unwrap();
    assemble("google-gemini".into(), input, Some(options)).unwrap();
    assert_eq!(seen.length(), 0);
}

#[wasm_bindgen_test]
fn bad_fields_are_invalid_input_naming_the_path() {
    let cases = [
        (
            r#"{"contextMessages":[{"from":"a","content":"x"},{"from":"b","content":"y"},{"from":7,"content":"z"}],"currentMessage":"m"}"#,
            "contextMessages[2].from must be a string, got a number",
        ),
        (
            r#"{"contextMessages":[{"from":"a","content":null}],"currentMessage":"m"}"#,
            "contextMessages[0].content must be a string, got null",
        ),
        (
            r#"{"contextMessages":[{"from":"a","to":5,"content":"x"}],"currentMessage":"m"}"#,
            "contextMessages[0].to must be a string, got a number",
        ),
        (
            r#"{"contextMessages":["hello"],"currentMessage":"m"}"#,
            "contextMessages[0] must be an object, got a string",
        ),
        (
            r#"{"contextMessages":{},"currentMessage":"m"}"#,
            "contextMessages must be an array, got an object",
        ),
        (
            r#"{"currentMessage":"m"}"#,
            "contextMessages must be an array, got undefined",
        ),
        (
            r#"{"contextMessages":[],"currentMessage":42}"#,
            "currentMessage must be a string, got a number",
        ),
        (
            r#"{"contextMessages":[],"teamTask":["t"]}"#,
            "teamTask must be a string, got an array",
        ),
        (
            r#"{"contextMessages":[],"systemInstruction":true}"#,
            "systemInstruction must be a string, got a boolean",
        ),
        (
            r#"{"contextMessages":[],"instructionFileText":{}}"#,
            "instructionFileText must be a string, got an object",
        ),
        (
            r#"{"contextMessages":[],"maxBytes":-1}"#,
            "maxBytes must be a finite number >= 0, got -1",
        ),
        (
            r#"{"contextMessages":[],"maxBytes":"100"}"#,
            "maxBytes must be a finite number >= 0, got a string",
        ),
        (
            r#"{"contextMessages":[],"maxBytes":null}"#,
            "maxBytes must be a finite number >= 0, got null",
        ),
        ("[]", "input must be an object, got an array"),
        ("null", "input must be an object, got null"),
    ];
    for (input, message) in cases {
        expect_error(
            assemble("google-gemini".into(), json(input), None),
            "INVALID_INPUT",
            message,
        );
    }
    let nan = json(r#"{"contextMessages":[]}"#);
    for (value, text) in [
        (f64::NAN, "NaN"),
        (f64::INFINITY, "Infinity"),
        (f64::NEG_INFINITY, "-Infinity"),
    ] {
        Reflect::set(&nan, &"maxBytes".into(), &JsValue::from_f64(value)).unwrap();
        expect_error(
            assemble("google-gemini".into(), nan.clone(), None),
            "INVALID_INPUT",
            &format!("maxBytes must be a finite number >= 0, got {text}"),
        );
    }
    expect_error(
        assemble(
            JsValue::from_f64(1.0),
            json(r#"{"contextMessages":[]}"#),
            None,
        ),
        "INVALID_INPUT",
        "agentType must be a string, got a number",
    );
    // Through a class too.
    expect_error(
        GeminiContextAssembler::new().assemble(json(r#"{"contextMessages":[1]}"#)),
        "INVALID_INPUT",
        "contextMessages[0] must be an object, got a number",
    );
}

#[wasm_bindgen_test]
fn a_getter_that_throws_is_invalid_input_and_the_module_keeps_working() {
    let make = Function::new_no_args(
        "const m = { from: 'a' }; Object.defineProperty(m, 'content', { get() { throw new Error('boom') } });
         return { contextMessages: [m], currentMessage: 'x' };",
    );
    let input = make.call0(&JsValue::UNDEFINED).unwrap();
    expect_error(
        assemble("google-gemini".into(), input, None),
        "INVALID_INPUT",
        "contextMessages[0].content could not be read: boom",
    );
    let out = ok(
        "google-gemini",
        &json(r#"{"contextMessages":[],"currentMessage":"still fine"}"#),
    );
    assert_eq!(
        get(&out, "prompt").as_string().unwrap(),
        "Your task:\nstill fine"
    );
}

#[wasm_bindgen_test]
fn missing_max_bytes_means_768_kib() {
    // 20 messages of 40 000 bytes (800 000 in all) exceed the default budget.
    let messages = Array::new();
    for i in 0..20 {
        let m = Object::new();
        Reflect::set(&m, &"from".into(), &format!("u{i}").into()).unwrap();
        Reflect::set(&m, &"content".into(), &"x".repeat(40_000).into()).unwrap();
        messages.push(&m);
    }
    let input = Object::new();
    Reflect::set(&input, &"contextMessages".into(), &messages).unwrap();
    Reflect::set(&input, &"currentMessage".into(), &"now".into()).unwrap();
    let prompt = get(&ok("google-gemini", &input), "prompt")
        .as_string()
        .unwrap();
    assert!(
        prompt.len() <= 786_432 && prompt.len() > 786_432 - 40_010,
        "{}",
        prompt.len()
    );
    assert!(!prompt.contains("- u0:") && prompt.contains("- u19:"));
}

#[wasm_bindgen_test]
fn lone_surrogates_count_three_bytes_as_u_fffd() {
    let input = Function::new_no_args(
        "return { contextMessages: [{ from: 'a', content: '\\uD800' }], currentMessage: 'm', maxBytes: 1000 };",
    )
    .call0(&JsValue::UNDEFINED)
    .unwrap();
    let prompt = get(&ok("custom-agent", &input), "prompt")
        .as_string()
        .unwrap();
    assert_eq!(prompt, "a: \u{FFFD}\n\nm");
    // Budget of exactly that many UTF-8 bytes keeps the line; one less drops it.
    let exact = prompt.len() as f64;
    Reflect::set(&input, &"maxBytes".into(), &JsValue::from_f64(exact)).unwrap();
    assert_eq!(
        get(&ok("custom-agent", &input), "prompt")
            .as_string()
            .unwrap(),
        prompt
    );
    Reflect::set(&input, &"maxBytes".into(), &JsValue::from_f64(exact - 1.0)).unwrap();
    assert_eq!(
        get(&ok("custom-agent", &input), "prompt")
            .as_string()
            .unwrap(),
        "m"
    );
}
