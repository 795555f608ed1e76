//! Writes the core's results as plain JS objects.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::json_bridge::from_serializable;
use crate::error::Result;
use crate::prompt::input::AssemblerInput;
use crate::prompt::output::AssemblerOutput;

fn set(target: &Object, key: &str, value: &JsValue) {
    // Defining a property on a fresh ordinary object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

fn optional_text(value: &Option<String>) -> JsValue {
    value
        .as_deref()
        .map_or(JsValue::UNDEFINED, JsValue::from_str)
}

/// `{ prompt, systemFlag }`, with `systemFlag` present and `undefined` when
/// there is none, exactly as the seeds return it.
pub fn assembler_output(out: &AssemblerOutput) -> JsValue {
    let obj = Object::new();
    set(&obj, "prompt", &JsValue::from_str(&out.prompt));
    set(&obj, "systemFlag", &optional_text(&out.system_flag));
    obj.into()
}

/// `{ output, report }` of `assembleWithReport`.
pub fn output_with_report(
    out: &AssemblerOutput,
    report: &crate::prompt::output::TrimReport,
) -> Result<JsValue> {
    let obj = Object::new();
    set(&obj, "output", &assembler_output(out));
    set(&obj, "report", &from_serializable(report)?);
    Ok(obj.into())
}

/// An `AssemblerInput` object (the embedded sample).
pub fn assembler_input(input: &AssemblerInput) -> JsValue {
    let messages = Array::new();
    for m in &input.context_messages {
        let obj = Object::new();
        set(&obj, "from", &JsValue::from_str(&m.from));
        if let Some(to) = &m.to {
            set(&obj, "to", &JsValue::from_str(to));
        }
        set(&obj, "content", &JsValue::from_str(&m.content));
        messages.push(&obj);
    }
    let f = &input.fields;
    let text_or_null = |s: &str| {
        if s.is_empty() {
            JsValue::NULL
        } else {
            JsValue::from_str(s)
        }
    };
    let obj = Object::new();
    set(&obj, "contextMessages", &messages);
    set(
        &obj,
        "currentMessage",
        &JsValue::from_str(&f.current_message),
    );
    set(&obj, "teamTask", &text_or_null(&f.team_task));
    set(
        &obj,
        "systemInstruction",
        &JsValue::from_str(&f.system_instruction),
    );
    set(
        &obj,
        "instructionFileText",
        &JsValue::from_str(&f.instruction_file_text),
    );
    set(&obj, "maxBytes", &JsValue::from_f64(f.max_bytes as f64));
    obj.into()
}
