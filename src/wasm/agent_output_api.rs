//! `parseAgentOutput` and the `AgentOutputParser` class.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_input::{self, type_name};
use super::{js_output, js_result};
use crate::agent_output;
use crate::error::{AgentContextError, Result};

/// A string chunk as UTF-8, or a `Uint8Array` (a Node `Buffer`) as it is.
fn output_bytes(value: JsValue, path: &str) -> Result<Vec<u8>> {
    if let Some(text) = value.as_string() {
        return Ok(text.into_bytes());
    }
    match value.dyn_ref::<Uint8Array>() {
        Some(bytes) => Ok(bytes.to_vec()),
        None => Err(AgentContextError::invalid(format!(
            "{path} must be a string or a Uint8Array, got {}",
            type_name(&value)
        ))),
    }
}

/// Reads everything an agent CLI printed: the reply text, the session id,
/// the status and the rest, for `'claude-code'` (`-p --output-format
/// stream-json --verbose`), `'openai-codex'` (`exec --json`) and
/// `'google-gemini'` (`-o stream-json`); any other agent type's output is
/// plain text, ANSI escapes removed.
///
/// ```js
/// const { parseAgentOutput } = require('agent-context');
/// const reply = parseAgentOutput('google-gemini', stdout);
/// if (reply.status === 'success') show(reply.text);
/// else report(reply.errors.filter((e) => e.fatal));
/// saveForNextTurn(reply.sessionId);
/// ```
///
/// Lines that are not JSON (warnings) land in `nonJsonLines`; nothing in
/// the output makes it throw. Throws `INVALID_INPUT` only for arguments of
/// the wrong type.
#[wasm_bindgen(js_name = parseAgentOutput, unchecked_return_type = "AgentReply")]
pub fn parse_agent_output(
    #[wasm_bindgen(js_name = agentType, unchecked_param_type = "AgentType")] agent_type: JsValue,
    #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] output: JsValue,
) -> std::result::Result<JsValue, JsValue> {
    let agent_type = js_result(js_input::agent_type(&agent_type))?;
    let bytes = js_result(output_bytes(output, "output"))?;
    let reply = agent_output::parse_agent_output(&agent_type, &bytes);
    js_result(js_output::json_to_js(&reply))
}

/// Parses an agent CLI's output as it streams: `push` each chunk (a string,
/// or a `Uint8Array`/`Buffer` that may end inside a UTF-8 character) and get
/// the events of the lines it completed; `finish()` gives the same reply as
/// `parseAgentOutput` on the whole output.
///
/// ```js
/// const parser = new AgentOutputParser('claude-code');
/// child.stdout.on('data', (chunk) => {
///   for (const event of parser.push(chunk)) if (event.type === 'text') ui.append(event.text);
/// });
/// child.on('close', () => done(parser.finish()));
/// ```
///
/// Only the unfinished line is held, never the whole output. A last line
/// without `\n` is read at `finish()`; after that the parser is spent and
/// `push`/`finish` throw.
#[wasm_bindgen(js_name = AgentOutputParser)]
pub struct AgentOutputParser {
    inner: Option<agent_output::AgentOutputParser>,
}

#[wasm_bindgen(js_class = AgentOutputParser)]
impl AgentOutputParser {
    /// A parser for `agentType`'s output.
    #[wasm_bindgen(constructor)]
    pub fn new(
        #[wasm_bindgen(js_name = agentType, unchecked_param_type = "AgentType")]
        agent_type: JsValue,
    ) -> std::result::Result<AgentOutputParser, JsValue> {
        let agent_type = js_result(js_input::agent_type(&agent_type))?;
        Ok(AgentOutputParser {
            inner: Some(agent_output::AgentOutputParser::new(&agent_type)),
        })
    }

    /// Feeds a chunk; returns the events of the lines it completed, in order.
    #[wasm_bindgen(unchecked_return_type = "AgentOutputEvent[]")]
    pub fn push(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "string | Uint8Array")] chunk: JsValue,
    ) -> std::result::Result<JsValue, JsValue> {
        let bytes = js_result(output_bytes(chunk, "chunk"))?;
        let parser = js_result(self.live())?;
        js_result(js_output::json_to_js(&parser.push(&bytes)))
    }

    /// Ends the output and returns the reply, as `parseAgentOutput` would.
    #[wasm_bindgen(unchecked_return_type = "AgentReply")]
    pub fn finish(&mut self) -> std::result::Result<JsValue, JsValue> {
        let parser = js_result(self.inner.take().ok_or_else(finished))?;
        js_result(js_output::json_to_js(&parser.finish()))
    }
}

impl AgentOutputParser {
    fn live(&mut self) -> Result<&mut agent_output::AgentOutputParser> {
        self.inner.as_mut().ok_or_else(finished)
    }
}

fn finished() -> AgentContextError {
    AgentContextError::invalid(
        "this AgentOutputParser is finished: create a new one for more output",
    )
}
