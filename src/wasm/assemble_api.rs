//! `assemble`, `assembleWithReport`, `buildPrompt`, `sampleInput` and the four
//! assembler classes.

use wasm_bindgen::prelude::*;

use super::call_options::CallOptions;
use super::js_input;
use super::{js_output, js_result, json_bridge};
use crate::formats::host_value as host;
use crate::agents::assembly;
use crate::agents::{CLAUDE, CODEX, GEMINI};
use crate::prompt::budget::{self, AssembleOptions, Assembled};
use crate::prompt::host_input::assembler_input;
use crate::prompt::input::{FieldNames, ASSEMBLER_INPUT, PROMPT_INPUT};
use crate::prompt::layout::{Layout, PLAIN_TEXT};

/// Logs `[Debug][Trim]` decisions and `[Debug][Send]` output when debugging is on.
pub(crate) fn log_debug(
    options: &CallOptions,
    agent_type: &str,
    assembled: &Assembled,
) -> Result<(), JsValue> {
    if !options.debug_enabled() {
        return Ok(());
    }
    for line in assembled.debug_lines(agent_type) {
        options.debug(&line)?;
    }
    Ok(())
}

/// The keys `AssemblerInput` and `PromptInput` know, for the fast path (an
/// input with any other key takes the full path, which warns).
#[wasm_bindgen(js_name = __knownInputKeys, skip_typescript)]
pub fn known_input_keys() -> js_sys::Array {
    [ASSEMBLER_INPUT.known_keys, PROMPT_INPUT.known_keys]
        .iter()
        .map(|keys| {
            keys.iter()
                .map(|k| JsValue::from_str(k))
                .collect::<js_sys::Array>()
        })
        .collect()
}

/// Reads the input, assembles for `agent_type`, warns and logs as asked.
pub(crate) fn assemble_agent(
    agent_type: &str,
    input: &JsValue,
    names: &FieldNames,
    options: &CallOptions,
    measure_dropped: bool,
) -> Result<Assembled, JsValue> {
    let (fields, context) = js_result(assembler_input(input, names))?;
    for warning in host::unknown_key_warnings(input, names.label, names.known_keys) {
        options.warn(&warning)?;
    }
    let assembly = js_result(assembly::assemble_for_agent(
        agent_type,
        &fields,
        &context,
        AssembleOptions {
            measure_dropped,
            cache_block: options.cache_block,
        },
    ))?;
    if let Some(warning) = &assembly.warning {
        options.warn(warning)?;
    }
    log_debug(options, agent_type, &assembly.assembled)?;
    Ok(assembly.assembled)
}

/// Builds the prompt an agent CLI is fed.
#[wasm_bindgen(js_name = assemble, skip_typescript)] // declared in types.d.ts
pub fn assemble(
    agent_type: JsValue,
    input: JsValue,
    options: Option<js_sys::Object>,
) -> Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let options = js_result(CallOptions::read_optional(options))?;
    let assembled = assemble_agent(&agent_type, &input, &ASSEMBLER_INPUT, &options, false)?;
    Ok(js_output::assembler_output(&assembled.output))
}

/// `assemble`, plus what the byte budget made it drop and cut.
#[wasm_bindgen(js_name = assembleWithReport, skip_typescript)] // declared in types.d.ts
pub fn assemble_with_report(
    agent_type: JsValue,
    input: JsValue,
    options: Option<js_sys::Object>,
) -> Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let options = js_result(CallOptions::read_optional(options))?;
    let assembled = assemble_agent(&agent_type, &input, &ASSEMBLER_INPUT, &options, true)?;
    js_result(js_output::output_with_report(
        &assembled.output,
        &assembled.report,
    ))
}

/// `buildPrompt`: the same assembly as `assemble`, from a `PromptInput`
/// (`agentType` inside, `systemInstructionText`, `message`; optional
/// `teamTask` and `maxBytes`).
#[wasm_bindgen(js_name = buildPrompt, skip_typescript)] // declared in types.d.ts
pub fn build_prompt(input: JsValue, options: Option<js_sys::Object>) -> Result<JsValue, JsValue> {
    let options = js_result(CallOptions::read_optional(options))?;
    js_result(host::object(&input, "input", "an object"))?;
    let agent_type = js_result(host::field(&input, "", "agentType"))?;
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let assembled = assemble_agent(&agent_type, &input, &PROMPT_INPUT, &options, false)?;
    Ok(js_output::assembler_output(&assembled.output))
}

/// `sampleInput` (declared in types.d.ts).
#[wasm_bindgen(js_name = sampleInput, skip_typescript)]
pub fn sample_input() -> Result<JsValue, JsValue> {
    js_result(json_bridge::from_serializable(&crate::prompt::sample::demo_input_json()))
}

/// Assembles with a fixed layout (the assembler classes); debug lines follow `DEBUG=1`.
fn assemble_with(layout: &Layout, input: &JsValue) -> Result<JsValue, JsValue> {
    let (fields, context) = js_result(assembler_input(input, &ASSEMBLER_INPUT))?;
    let options = CallOptions::default();
    for warning in host::unknown_key_warnings(input, "AssemblerInput", ASSEMBLER_INPUT.known_keys) {
        options.warn(&warning)?;
    }
    let assembled = js_result(budget::assemble(
        layout,
        &fields,
        &context,
        AssembleOptions::default(),
    ))?;
    log_debug(&options, layout.agent_type, &assembled)?;
    Ok(js_output::assembler_output(&assembled.output))
}

/// The JS class of a built-in assembler: `new X().assemble(input)` (declared
/// in types.d.ts).
macro_rules! assembler_class {
    ($name:ident, $layout:expr) => {
        #[wasm_bindgen(skip_typescript)]
        pub struct $name {}

        #[wasm_bindgen]
        impl $name {
            #[wasm_bindgen(constructor)]
            #[allow(clippy::new_without_default)]
            pub fn new() -> $name {
                $name {}
            }

            #[wasm_bindgen(js_name = getAgentType)]
            pub fn get_agent_type(&self) -> String {
                $layout.agent_type.to_owned()
            }

            pub fn assemble(&self, input: JsValue) -> Result<JsValue, JsValue> {
                assemble_with(&$layout, &input)
            }
        }
    };
}

assembler_class!(ClaudeContextAssembler, CLAUDE);
assembler_class!(CodexContextAssembler, CODEX);
assembler_class!(GeminiContextAssembler, GEMINI);
assembler_class!(PlainTextAssembler, PLAIN_TEXT);
