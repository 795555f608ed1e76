//! `assemble`, `assembleWithReport`, `buildPrompt`, `sampleInput` and the four
//! assembler classes.

use wasm_bindgen::prelude::*;

use super::call_options::CallOptions;
use super::js_input;
use super::{js_output, js_result};
use crate::prompt::assemblers::{self, Layout, CLAUDE, CODEX, GEMINI, PLAIN_TEXT};
use crate::prompt::budget::{self, AssembleOptions, Assembled};
use crate::prompt::input::{FieldNames, ASSEMBLER_INPUT, PROMPT_INPUT};

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
    let (fields, context) = js_result(js_input::assembler_input(input, names))?;
    for warning in js_input::unknown_key_warnings(input, names.label, names.known_keys) {
        options.warn(&warning)?;
    }
    let assembly = js_result(assemblers::assemble_for_agent(
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
///
/// ```js
/// const { assemble } = require('agent-context');
/// const { prompt, systemFlag } = assemble('claude-code', {
///   contextMessages: [{ from: 'kailai', to: 'carol', content: 'Hello' }],
///   currentMessage: 'What do you suggest?', teamTask: null,
///   systemInstruction: 'You are Carol', maxBytes: 768 * 1024,
/// });
/// // prompt: '[CONTEXT]\n- kailai -> carol: Hello\n\n[MESSAGE]\nWhat do you suggest?'
/// // systemFlag: 'You are Carol'
/// ```
///
/// An unknown agent type uses the plain-text assembler and logs
/// `[ContextManager] Unknown agentType "…", using PlainTextAssembler` through
/// `options.logger` (default `console.warn`). Throws `AgentContextError`
/// (`INVALID_INPUT`, `BUDGET_EXCEEDED`).
#[wasm_bindgen(js_name = assemble, skip_typescript)] // declared in types.d.ts
pub fn assemble(
    #[wasm_bindgen(js_name = agentType)] agent_type: JsValue,
    input: JsValue,
    options: Option<js_sys::Object>,
) -> Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let options = js_result(CallOptions::read_optional(options))?;
    let assembled = assemble_agent(&agent_type, &input, &ASSEMBLER_INPUT, &options, false)?;
    Ok(js_output::assembler_output(&assembled.output))
}

/// `assemble`, plus what the byte budget made it drop and cut.
///
/// ```js
/// const { output, report } = assembleWithReport('openai-codex', input);
/// report.messagesDropped; // the oldest context messages left out
/// report.bytesBefore - report.bytesAfter ===
///   report.contextBytesCut + report.messageBytesCut + report.instructionFileBytesCut; // true
/// ```
///
/// `bytesBefore` counts every message, so this reads the dropped ones too
/// (their sizes only); `assemble` does not.
#[wasm_bindgen(js_name = assembleWithReport, skip_typescript)] // declared in types.d.ts
pub fn assemble_with_report(
    #[wasm_bindgen(js_name = agentType)] agent_type: JsValue,
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
///
/// ```js
/// const { prompt, systemFlag } = buildPrompt({
///   agentType: 'claude-code', systemInstructionText: 'You are Carol',
///   instructionFileText: 'Be brief', contextMessages: [], message: 'Hi',
/// });
/// // systemFlag: 'You are Carol\n\nBe brief', prompt: '[MESSAGE]\nHi'
/// ```
#[wasm_bindgen(js_name = buildPrompt, skip_typescript)] // declared in types.d.ts
pub fn build_prompt(input: JsValue, options: Option<js_sys::Object>) -> Result<JsValue, JsValue> {
    let options = js_result(CallOptions::read_optional(options))?;
    if !js_input::is_plain_object(&input) {
        return Err(super::js_error::to_js(
            crate::error::AgentContextError::invalid(format!(
                "input must be an object, got {}",
                js_input::type_name(&input)
            )),
        ));
    }
    let agent_type = js_result(js_input::get(&input, &"agentType".into(), || {
        "agentType".into()
    }))?;
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let assembled = assemble_agent(&agent_type, &input, &PROMPT_INPUT, &options, false)?;
    Ok(js_output::assembler_output(&assembled.output))
}

/// The sample `AssemblerInput` the demo runs through every assembler.
///
/// ```js
/// const { assemble, sampleInput } = require('agent-context');
/// console.log(assemble('google-gemini', sampleInput()).prompt);
/// ```
#[wasm_bindgen(js_name = sampleInput, unchecked_return_type = "AssemblerInput")]
pub fn sample_input() -> JsValue {
    js_output::assembler_input(&crate::prompt::sample::demo_input())
}

/// Assembles with a fixed layout (the assembler classes); debug lines follow `DEBUG=1`.
fn assemble_with(layout: &Layout, input: &JsValue) -> Result<JsValue, JsValue> {
    let (fields, context) = js_result(js_input::assembler_input(input, &ASSEMBLER_INPUT))?;
    let options = CallOptions::default();
    for warning in
        js_input::unknown_key_warnings(input, "AssemblerInput", ASSEMBLER_INPUT.known_keys)
    {
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

/// The methods of the JS class per built-in assembler: `new X().assemble(input)`.
/// Each struct is declared (with its doc comment) outside the macro: docs
/// passed through a macro reach wasm-bindgen as `r"…"` tokens, which would
/// show in the declarations' hover text.
macro_rules! assembler_class {
    ($name:ident, $layout:expr) => {
        #[wasm_bindgen]
        impl $name {
            #[wasm_bindgen(constructor)]
            #[allow(clippy::new_without_default)]
            pub fn new() -> $name {
                $name {}
            }

            /// The agent type this assembler serves.
            #[wasm_bindgen(js_name = getAgentType, unchecked_return_type = "AgentType")]
            pub fn get_agent_type(&self) -> String {
                $layout.agent_type.to_owned()
            }

            /// Assembles `input` within `input.maxBytes`.
            #[wasm_bindgen(unchecked_return_type = "AssemblerOutput")]
            pub fn assemble(
                &self,
                #[wasm_bindgen(unchecked_param_type = "AssemblerInput")] input: JsValue,
            ) -> Result<JsValue, JsValue> {
                assemble_with(&$layout, &input)
            }
        }
    };
}

/// Claude Code: the instructions in `systemFlag`; `[TEAM_TASK]`, `[CONTEXT]`, `[MESSAGE]` inline.
///
/// ```js
/// new ClaudeContextAssembler().assemble({ contextMessages: [], currentMessage: 'Hi', teamTask: null, systemInstruction: 'Be brief' })
/// // { prompt: '[MESSAGE]\nHi', systemFlag: 'Be brief' }
/// ```
#[wasm_bindgen]
pub struct ClaudeContextAssembler {}

assembler_class!(ClaudeContextAssembler, CLAUDE);

/// Codex: everything inline, `[SYSTEM]` first.
///
/// ```js
/// new CodexContextAssembler().assemble({ contextMessages: [], currentMessage: 'Hi', teamTask: null, systemInstruction: 'Be brief' })
/// // { prompt: '[SYSTEM]\nBe brief\n\n[MESSAGE]\nHi', systemFlag: undefined }
/// ```
#[wasm_bindgen]
pub struct CodexContextAssembler {}

assembler_class!(CodexContextAssembler, CODEX);

/// Gemini CLI: `Instructions:`, `Team Task:`, `Conversation so far:`, `Your task:`.
///
/// ```js
/// new GeminiContextAssembler().assemble({ contextMessages: [], currentMessage: 'Hello Gemini', teamTask: null })
/// // { prompt: 'Your task:\nHello Gemini', systemFlag: undefined }
/// ```
#[wasm_bindgen]
pub struct GeminiContextAssembler {}

assembler_class!(GeminiContextAssembler, GEMINI);

/// Any other agent: the sections with no headings; `getAgentType()` is `'unknown'`.
///
/// ```js
/// new PlainTextAssembler().assemble({ contextMessages: [], currentMessage: 'Hello', teamTask: null })
/// // { prompt: 'Hello', systemFlag: undefined }
/// ```
#[wasm_bindgen]
pub struct PlainTextAssembler {}

assembler_class!(PlainTextAssembler, PLAIN_TEXT);
