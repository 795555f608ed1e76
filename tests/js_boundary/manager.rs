//! `ContextManager`, JS-registered assemblers, debug lines and the trim report.

use agent_context::wasm::{assemble, assemble_with_report, build_prompt, ContextManager};
use js_sys::{Array, Function, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen_test::*;

use super::support::{eval, expect_error, get, json, set, text};

/// `{ logger: (m, level) => lines.push(level + ' ' + m), ...extra }` and the lines.
fn recording(extra: &[(&str, JsValue)]) -> (Object, Array) {
    let lines = Array::new();
    let push = Function::new_with_args("m, level", "this.push(level + ' ' + m)").bind0(&lines);
    let options = Object::new();
    set(&options, "logger", &push);
    for (key, value) in extra {
        set(&options, key, value);
    }
    (options, lines)
}

fn strings(lines: &Array) -> Vec<String> {
    lines.iter().map(|l| l.as_string().unwrap()).collect()
}

#[wasm_bindgen_test]
fn a_registered_js_assembler_wins_over_a_built_in_one() {
    let (options, lines) = recording(&[]);
    let manager = ContextManager::new(Some(options)).unwrap();
    let input = json(r#"{"contextMessages":[],"currentMessage":"hi","teamTask":null}"#);
    // Built-in first.
    let out = manager
        .assemble_prompt("google-gemini".into(), input.clone())
        .unwrap();
    assert_eq!(text(&out, "prompt"), "Your task:\nhi");
    let custom = eval(
        "return { getAgentType() { return 'google-gemini' },
                  assemble(input) { return { prompt: '>> ' + input.currentMessage, systemFlag: 'custom' } } };",
    );
    manager.register(custom).unwrap();
    let out = manager
        .assemble_prompt("google-gemini".into(), input.clone())
        .unwrap();
    assert_eq!(text(&out, "prompt"), ">> hi");
    assert_eq!(text(&out, "systemFlag"), "custom");
    // A new type, then unknown ones fall back with the warning through the manager's logger.
    let mine =
        eval("return { getAgentType: () => 'my-agent', assemble: () => ({ prompt: 'mine' }) };");
    manager.register(mine).unwrap();
    assert_eq!(
        text(
            &manager
                .assemble_prompt("my-agent".into(), input.clone())
                .unwrap(),
            "prompt"
        ),
        "mine"
    );
    assert_eq!(
        text(
            &manager
                .assemble_prompt("custom-agent".into(), input)
                .unwrap(),
            "prompt"
        ),
        "hi"
    );
    assert_eq!(
        strings(&lines),
        ["warn [ContextManager] Unknown agentType \"custom-agent\", using PlainTextAssembler"]
    );
}

#[wasm_bindgen_test]
fn register_checks_the_assembler_and_reentry_works() {
    let manager = ContextManager::new(None).unwrap();
    expect_error(
        manager
            .register(json(r#"{"assemble":1}"#))
            .map(|_| JsValue::UNDEFINED),
        "INVALID_INPUT",
        "assembler.getAgentType must be a function, got undefined",
    );
    expect_error(
        manager
            .register(eval("return { getAgentType: () => 'x' };"))
            .map(|_| JsValue::UNDEFINED),
        "INVALID_INPUT",
        "assembler.assemble must be a function, got undefined",
    );
    expect_error(
        manager
            .register(eval("return { getAgentType: () => 7, assemble() {} };"))
            .map(|_| JsValue::UNDEFINED),
        "INVALID_INPUT",
        "assembler.getAgentType() must be a string, got a number",
    );
    expect_error(
        manager
            .register(JsValue::from_str("nope"))
            .map(|_| JsValue::UNDEFINED),
        "INVALID_INPUT",
        "assembler must be an object, got a string",
    );
    // A JS assembler that calls back into the same manager (re-entry).
    let manager = JsValue::from(manager);
    let run = Function::new_with_args(
        "m",
        "m.register({ getAgentType: () => 'wrapped', assemble(i) { const o = m.assemblePrompt('openai-codex', i); o.prompt += '!'; return o; } });
         return m.assemblePrompt('wrapped', { contextMessages: [], currentMessage: 'x' });",
    );
    let out = run.call1(&JsValue::UNDEFINED, &manager).unwrap();
    assert_eq!(text(&out, "prompt"), "[MESSAGE]\nx!");
}

#[wasm_bindgen_test]
fn debug_lines_describe_each_trim_decision_and_the_final_prompt() {
    let (options, lines) = recording(&[("debug", JsValue::TRUE)]);
    let input = json(
        r#"{"contextMessages":[{"from":"a","to":"b","content":"one"},{"from":"c","to":"d","content":"two"},
            {"from":"e","to":"f","content":"three"}],"currentMessage":"go","systemInstruction":"sys","maxBytes":42}"#,
    );
    let out = assemble("claude-code".into(), input, Some(options)).unwrap();
    assert_eq!(
        text(&out, "prompt"),
        "[CONTEXT]\n- e -> f: three\n\n[MESSAGE]\ngo"
    );
    assert_eq!(
        strings(&lines),
        [
            "debug [Debug][Trim] CONTEXT trimmed to 1 messages (dropped the 2 oldest of 3)",
            "debug [Debug][Send] claude-code systemFlag (3 bytes):\nsys",
            "debug [Debug][Send] claude-code prompt (39 bytes):\n[CONTEXT]\n- e -> f: three\n\n[MESSAGE]\ngo",
        ]
    );
    // debug: false silences it even when the environment asks.
    let (options, lines) = recording(&[("debug", JsValue::FALSE)]);
    assemble(
        "claude-code".into(),
        json(r#"{"contextMessages":[]}"#),
        Some(options),
    )
    .unwrap();
    assert_eq!(lines.length(), 0);
    // An object logger gets debug lines through its debug method.
    let sink = eval("const s = { warned: [], debugged: [] }; s.warn = (m) => s.warned.push(m); s.debug = (m) => s.debugged.push(m); return s;");
    let options = Object::new();
    set(&options, "logger", &sink);
    set(&options, "debug", &JsValue::TRUE);
    assemble(
        "x".into(),
        json(r#"{"contextMessages":[],"currentMessage":"m"}"#),
        Some(options),
    )
    .unwrap();
    assert_eq!(Array::from(&get(&sink, "warned")).length(), 1);
    assert_eq!(
        strings(&Array::from(&get(&sink, "debugged"))),
        [
            "[Debug][Trim] none: 1 of 786432 bytes",
            "[Debug][Send] x prompt (1 bytes):\nm"
        ]
    );
    expect_error(
        assemble(
            "x".into(),
            json(r#"{"contextMessages":[]}"#),
            Some(json(r#"{"debug":"yes"}"#).into()),
        ),
        "INVALID_INPUT",
        "options.debug must be a boolean, got a string",
    );
}

#[wasm_bindgen_test]
fn assemble_with_report_returns_output_and_figures_that_add_up() {
    let input = json(
        r#"{"contextMessages":[{"from":"a","content":"one"},{"from":"b","content":"two"}],
            "currentMessage":"m","teamTask":"t","maxBytes":50}"#,
    );
    let result = assemble_with_report("openai-codex".into(), input.clone(), None).unwrap();
    let output = get(&result, "output");
    assert_eq!(
        text(&output, "prompt"),
        "[TEAM_TASK]\nt\n\n[CONTEXT]\n- b: two\n\n[MESSAGE]\nm"
    );
    let report = get(&result, "report");
    let n = |k: &str| get(&report, k).as_f64().unwrap_or_else(|| panic!("{k}"));
    // 46 bytes with the newest line; the older "- a: one\n" would make 55.
    assert_eq!(n("maxBytes"), 50.0);
    assert_eq!(n("bytesAfter"), 46.0);
    assert_eq!(n("bytesBefore"), 55.0);
    assert_eq!(
        (n("messagesTotal"), n("messagesKept"), n("messagesDropped")),
        (2.0, 1.0, 1.0)
    );
    assert_eq!(n("contextBytesCut"), 9.0);
    assert_eq!(
        n("bytesBefore") - n("bytesAfter"),
        n("contextBytesCut") + n("messageBytesCut") + n("instructionFileBytesCut")
    );
    // The plain call gives the same output, with exactly the seed's keys.
    let plain = assemble("openai-codex".into(), input, None).unwrap();
    assert_eq!(text(&plain, "prompt"), text(&output, "prompt"));
}

#[wasm_bindgen_test]
fn build_prompt_takes_seed_002_input() {
    let out = build_prompt(
        json(
            r#"{"agentType":"claude-code","systemInstructionText":" You are Carol ","instructionFileText":"Be brief",
                "contextMessages":[{"from":"kailai","to":"carol","content":"Hello","timestamp":"2026-01-01T00:00:00Z"}],
                "message":"What now?"}"#,
        ),
        None,
    )
    .unwrap();
    assert_eq!(text(&out, "systemFlag"), "You are Carol\n\nBe brief");
    assert_eq!(
        text(&out, "prompt"),
        "[CONTEXT]\n- kailai -> carol: Hello\n\n[MESSAGE]\nWhat now?"
    );
    expect_error(
        build_prompt(json(r#"{"contextMessages":[],"message":"x"}"#), None),
        "INVALID_INPUT",
        "agentType must be a string, got undefined",
    );
    expect_error(
        build_prompt(
            json(r#"{"agentType":"claude-code","contextMessages":[],"systemInstructionText":1}"#),
            None,
        ),
        "INVALID_INPUT",
        "systemInstructionText must be a string, got a number",
    );
}
