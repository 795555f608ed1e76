//! `buildCliInvocation`.

use wasm_bindgen::prelude::*;

use super::js_input;
use crate::formats::host_value::{is_object as is_plain_object, type_name};
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::error::{AgentContextError, Result};
use crate::launch::invocation::{self, InvocationOptions};
use crate::prompt::output::AssemblerOutput;

/// `buildCliInvocation`'s `options`, read by the core; the platform, when
/// not given, is the one this runs on (`process.platform`).
fn options(value: &JsValue) -> Result<InvocationOptions> {
    let mut options = if value.is_undefined() || value.is_null() {
        InvocationOptions::default()
    } else if !is_plain_object(value) {
        return Err(AgentContextError::invalid(format!(
            "options must be an object, got {}",
            type_name(value)
        )));
    } else {
        InvocationOptions::read(&to_json(value, "options")?)?
    };
    options
        .platform
        .get_or_insert_with(super::js_platform::current_platform);
    Ok(options)
}

/// The command line that runs an agent CLI on an assembled prompt.
#[wasm_bindgen(js_name = buildCliInvocation, skip_typescript)] // declared in types.d.ts
pub fn build_cli_invocation(
    agent_type: JsValue,
    assembler_output_value: JsValue,
    options_value: Option<js_sys::Object>,
) -> std::result::Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let output = match is_plain_object(&assembler_output_value) {
        true => to_json(&assembler_output_value, "assemblerOutput")
            .and_then(|v| AssemblerOutput::read(&v, "assemblerOutput")),
        false => Err(AgentContextError::invalid(format!(
            "assemblerOutput must be an object, got {}",
            type_name(&assembler_output_value)
        ))),
    };
    let output = js_result(output)?;
    let options_value = options_value.map_or(JsValue::UNDEFINED, Into::into);
    let options = js_result(options(&options_value))?;
    for warning in crate::formats::host_value::unknown_key_warnings(
        &options_value,
        "buildCliInvocation options",
        crate::formats::input_keys::INVOCATION_OPTIONS,
    ) {
        super::call_options::CallOptions::default().warn(&warning)?;
    }
    let invocation = js_result(invocation::build_cli_invocation(
        &agent_type,
        &output,
        &options,
    ))?;
    js_result(from_serializable(&invocation))
}
