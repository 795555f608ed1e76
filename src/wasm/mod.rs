//! The JS binding: short adapters that read JS input, call the core and write
//! JS output. No logic lives here.

mod js_error;
mod js_input;
mod js_output;
mod logger;

use wasm_bindgen::prelude::*;

use crate::assemblers::{self, Layout, GEMINI, PLAIN_TEXT};
use crate::budget::{self, AssembleOptions};
use logger::Logger;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = include_str!("types.d.ts");

/// Installs the panic hook (a safety net only: the library validates input
/// and returns errors instead of panicking).
#[wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}

fn js_result<T>(result: crate::error::Result<T>) -> Result<T, JsValue> {
    result.map_err(js_error::to_js)
}

/// Assembles with a fixed layout (the assembler classes).
fn assemble_with(layout: &Layout, input: &JsValue) -> Result<JsValue, JsValue> {
    let (fields, context) = js_result(js_input::assembler_input(input))?;
    let assembled = js_result(budget::assemble(
        layout,
        &fields,
        &context,
        AssembleOptions::default(),
    ))?;
    Ok(js_output::assembler_output(&assembled.output))
}

/// Builds the prompt an agent CLI is fed.
///
/// ```js
/// const { assemble } = require('agent-context');
/// const { prompt, systemFlag } = assemble('google-gemini', {
///   contextMessages: [{ from: 'kailai', to: 'carol', content: 'Hello' }],
///   currentMessage: 'What do you suggest?', teamTask: null, maxBytes: 768 * 1024,
/// });
/// ```
///
/// An unknown agent type uses the plain-text assembler and logs
/// `[ContextManager] Unknown agentType "…", using PlainTextAssembler` through
/// `options.logger` (default `console.warn`). Throws `AgentContextError`
/// (`INVALID_INPUT`, `BUDGET_EXCEEDED`).
#[wasm_bindgen(js_name = assemble, unchecked_return_type = "AssemblerOutput")]
pub fn assemble(
    #[wasm_bindgen(js_name = agentType, unchecked_param_type = "AgentType")] agent_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "AssemblerInput")] input: JsValue,
    #[wasm_bindgen(unchecked_param_type = "AssembleOptions")] options: Option<js_sys::Object>,
) -> Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
    let logger = js_result(Logger::from_options(&options))?;
    let (fields, context) = js_result(js_input::assembler_input(&input))?;
    let assembly = js_result(assemblers::assemble_for_agent(
        &agent_type,
        &fields,
        &context,
        AssembleOptions::default(),
    ))?;
    if let Some(warning) = &assembly.warning {
        logger.warn(warning)?;
    }
    Ok(js_output::assembler_output(&assembly.assembled.output))
}

/// The sample `AssemblerInput` the demo runs through every assembler.
///
/// ```js
/// const { assemble, sampleInput } = require('agent-context');
/// console.log(assemble('google-gemini', sampleInput()).prompt);
/// ```
#[wasm_bindgen(js_name = sampleInput, unchecked_return_type = "AssemblerInput")]
pub fn sample_input() -> JsValue {
    js_output::assembler_input(&crate::sample::demo_input())
}

/// One JS class per built-in assembler: `new X().assemble(input)`.
macro_rules! assembler_class {
    ($(#[$doc:meta])* $name:ident, $layout:expr) => {
        $(#[$doc])*
        #[wasm_bindgen]
        pub struct $name {}

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

assembler_class!(
    /// Gemini CLI: `Instructions:`, `Team Task:`, `Conversation so far:`, `Your task:`.
    ///
    /// ```js
    /// new GeminiContextAssembler().assemble({ contextMessages: [], currentMessage: 'Hello Gemini', teamTask: null, maxBytes: 786432 })
    /// // { prompt: 'Your task:\nHello Gemini', systemFlag: undefined }
    /// ```
    GeminiContextAssembler,
    GEMINI
);

assembler_class!(
    /// Any other agent: the sections with no headings; `getAgentType()` is `'unknown'`.
    ///
    /// ```js
    /// new PlainTextAssembler().assemble({ contextMessages: [], currentMessage: 'Hello', teamTask: null, maxBytes: 786432 })
    /// // { prompt: 'Hello', systemFlag: undefined }
    /// ```
    PlainTextAssembler,
    PLAIN_TEXT
);
