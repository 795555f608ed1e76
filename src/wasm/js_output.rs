//! Writes the core's results as plain JS objects.

use js_sys::{Object, Reflect};
use wasm_bindgen::prelude::*;

use super::json_bridge::from_serializable;
use crate::error::Result;
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
