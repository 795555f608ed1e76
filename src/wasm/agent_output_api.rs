//! `parseAgentOutput` and the `AgentOutputParser` class.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_input;
use crate::formats::host_value::type_name;
use super::js_result;
use super::js_text::{from_utf16, utf16_of, utf8_pieces};
use super::json_bridge::from_serializable;
use crate::agent_output;
use crate::agents;
use crate::error::{AgentContextError, Result};

/// The reply as a JS object; its text (most of a long reply) comes as UTF-16
/// code units and crosses as one string rather than inside the JSON of the
/// rest, which would escape, decode and parse it again. `text` stays the
/// first key.
fn reply_to_js(reply: agent_output::AgentReply, units: &[u16]) -> Result<JsValue> {
    let object = from_serializable(&reply)?;
    // Setting an existing key on a fresh plain object cannot fail.
    let _ = js_sys::Reflect::set(&object, &JsValue::from_str("text"), &from_utf16(units));
    Ok(object)
}

/// A chunk of output: a JS string (already valid UTF-8 once in Rust), or a
/// `Uint8Array` (a Node `Buffer`), whose bytes may end inside a character.
enum Output {
    Text(String),
    Bytes(Vec<u8>),
    Units(Vec<u16>),
}

impl Output {
    fn as_output(&self) -> agent_output::Output<'_> {
        match self {
            Output::Text(text) => agent_output::Output::Text(text),
            Output::Bytes(bytes) => agent_output::Output::Bytes(bytes),
            Output::Units(units) => agent_output::Output::Utf16(units),
        }
    }
}

fn output(value: JsValue, path: &str) -> Result<Output> {
    if let Some(text) = value.as_string() {
        return Ok(Output::Text(text));
    }
    match value.dyn_ref::<Uint8Array>() {
        Some(bytes) => Ok(Output::Bytes(bytes.to_vec())),
        None => Err(AgentContextError::invalid(format!(
            "{path} must be a string or a Uint8Array, got {}",
            type_name(&value)
        ))),
    }
}

/// `parseAgentOutput` (declared in types.d.ts).
#[wasm_bindgen(js_name = parseAgentOutput, skip_typescript)]
pub fn parse_agent_output_with(
    agent_type: JsValue,
    output_value: JsValue,
    options: Option<js_sys::Object>,
) -> std::result::Result<JsValue, JsValue> {
    let agent_type = js_result(known_agent_type(&agent_type))?;
    let protocol = js_result(protocol_option(&agent_type, options))?;
    // A string is read as its UTF-16 units where the engine can copy them
    // out (Node), else as UTF-8. ACP lines are scanned as UTF-8 only.
    let string = output_value.dyn_ref::<js_sys::JsString>();
    let form = agent_output::TextForm::Utf16;
    let (reply, units) = match (protocol, string) {
        // ACP lines are scanned as UTF-8 only: the string is pushed as its
        // UTF-8, a piece at a time.
        (agent_output::Protocol::Acp, Some(string)) => {
            agent_output::parse_agent_output_fed(&agent_type, protocol, form, |parser| {
                utf8_pieces(string, |piece| {
                    parser.push(piece);
                })
            })
        }
        _ => {
            let output = match string.and_then(utf16_of) {
                Some(units) => Output::Units(units),
                None => js_result(output(output_value, "output"))?,
            };
            agent_output::parse_agent_output_in(&agent_type, protocol, output.as_output(), form)
        }
    };
    js_result(reply_to_js(reply, &units))
}

/// `parseAgentOutput(agentType, output)`: the CLI's own format.
pub fn parse_agent_output(
    agent_type: JsValue,
    output_value: JsValue,
) -> std::result::Result<JsValue, JsValue> {
    parse_agent_output_with(agent_type, output_value, None)
}

/// `AgentOutputParser` (declared in types.d.ts).
#[wasm_bindgen(js_name = AgentOutputParser, skip_typescript)]
pub struct AgentOutputParser {
    /// Boxed, so `finish()` gives back all of its memory at once: what is left
    /// until `free()` or the finalizer is one pointer.
    inner: Option<Box<agent_output::AgentOutputParser>>,
}

#[wasm_bindgen(js_class = AgentOutputParser)]
impl AgentOutputParser {
    #[wasm_bindgen(constructor)]
    pub fn with_options(
        agent_type: JsValue,
        options: Option<js_sys::Object>,
    ) -> std::result::Result<AgentOutputParser, JsValue> {
        let agent_type = js_result(known_agent_type(&agent_type))?;
        let protocol = js_result(protocol_option(&agent_type, options))?;
        Ok(AgentOutputParser {
            inner: Some(Box::new(agent_output::AgentOutputParser::with_protocol(
                &agent_type,
                protocol,
                agent_output::TextForm::Utf16,
            ))),
        })
    }

    /// Feeds a chunk and returns the events of the lines it completed as
    /// `[order, others, text]`, which `push` (js/web/parser-events.js) turns into
    /// event objects: `order` has one number per event, the length of a text
    /// event's text in UTF-16 code units, or 0 for the next of `others` (the
    /// other events, or `null` when there are none); `text` is all the text
    /// events' text in one string. So the text crosses once, as UTF-16, and
    /// no JSON is made of it.
    #[wasm_bindgen(js_name = __push, skip_typescript)]
    pub fn push_parts(&mut self, chunk: JsValue) -> std::result::Result<js_sys::Array, JsValue> {
        let parser = js_result(self.live())?;
        let events = match chunk.dyn_ref::<js_sys::JsString>() {
            // An ACP string chunk crosses as UTF-8 written by the engine, a
            // piece at a time (a line is scanned as UTF-8 either way).
            Some(string) if parser.is_acp() => {
                let mut events = Vec::new();
                utf8_pieces(string, |piece| events.extend(parser.push(piece)));
                events
            }
            _ => match js_result(output(chunk, "chunk"))? {
                Output::Text(text) => parser.push_str(&text),
                Output::Bytes(bytes) => parser.push(&bytes),
                // `output` never reads a chunk as units.
                Output::Units(units) => parser.push_str(&String::from_utf16_lossy(&units)),
            },
        };
        let (lengths, units) = parser.take_text_units();
        let (order, others) = agent_output::text_event_order(&events, lengths);
        let others = if others.is_empty() {
            JsValue::NULL
        } else {
            js_result(from_serializable(&others))?
        };
        Ok(js_sys::Array::of3(
            &js_sys::Uint32Array::from(&order[..]),
            &others,
            &from_utf16(units),
        ))
    }

    pub fn finish(&mut self) -> std::result::Result<JsValue, JsValue> {
        let parser = js_result(self.inner.take().ok_or_else(finished))?;
        let (reply, units) = parser.finish_utf16();
        js_result(reply_to_js(reply, &units))
    }
}

impl AgentOutputParser {
    /// `new AgentOutputParser(agentType)`: the CLI's own format.
    pub fn new(agent_type: JsValue) -> std::result::Result<AgentOutputParser, JsValue> {
        Self::with_options(agent_type, None)
    }

    fn live(&mut self) -> Result<&mut agent_output::AgentOutputParser> {
        self.inner.as_deref_mut().ok_or_else(finished)
    }
}

/// The agent type argument, which must name a registered agent.
fn known_agent_type(value: &JsValue) -> Result<String> {
    let agent_type = js_input::agent_type(value)?;
    agents::require(&agent_type, "to parse its output")?;
    Ok(agent_type)
}

fn protocol_option(
    agent_type: &str,
    options: Option<js_sys::Object>,
) -> Result<agent_output::Protocol> {
    agent_output::Protocol::from_options(agent_type, options.map(JsValue::from).as_ref())
}

fn finished() -> AgentContextError {
    AgentContextError::invalid(
        "this AgentOutputParser is finished: create a new one for more output",
    )
}

/// Merges a file the CLI wrote during the run (one of the invocation's
/// `outputs`) into its reply, and returns the reply with it: GitHub Copilot
/// CLI's token usage is only in its `--usage-output-file`.
#[wasm_bindgen(js_name = mergeAgentOutputFile, skip_typescript)] // declared in types.d.ts
pub fn merge_agent_output_file(
    agent_type: JsValue,
    reply: JsValue,
    file: JsValue,
) -> std::result::Result<JsValue, JsValue> {
    js_result(merge_file(&agent_type, &reply, &file))
}

fn merge_file(agent_type: &JsValue, reply: &JsValue, file: &JsValue) -> Result<JsValue> {
    let agent_type = js_input::agent_type(agent_type)?;
    let merged = agent_output::merged_file_usage(&agent_type, reply, file)?;
    let copy = js_sys::Object::assign(&js_sys::Object::new(), reply.unchecked_ref());
    let _ = js_sys::Reflect::set(&copy, &"usage".into(), &from_serializable(&merged)?);
    Ok(copy.into())
}
