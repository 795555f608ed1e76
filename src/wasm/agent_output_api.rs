//! `parseAgentOutput` and the `AgentOutputParser` class.

use js_sys::Uint8Array;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_input::{self, type_name};
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

/// Reads everything an agent CLI printed: the reply text, the session id,
/// the status and the rest, for `'claude-code'` (`-p --output-format
/// stream-json --verbose`), `'openai-codex'` (`exec --json`) and
/// `'google-gemini'` (`-o stream-json`); any other agent type is
/// `INVALID_INPUT` naming the known ones.
///
/// ```js
/// const { parseAgentOutput } = require('agent-context');
/// const reply = parseAgentOutput('google-gemini', stdout);
/// if (reply.status === 'success') show(reply.text);
/// else report(reply.errors.filter((e) => e.fatal));
/// saveForNextTurn(reply.sessionId);
/// ```
///
/// With `{ protocol: 'acp' }` the output is the JSON-RPC lines the agent
/// printed when driven over the Agent Client Protocol, read into the same
/// reply (docs/acp-output.md); the default is `'cli'`.
///
/// Lines that are not JSON (warnings) land in `nonJsonLines`; nothing in
/// the output makes it throw. Throws `INVALID_INPUT` only for an unknown
/// agent type, a `protocol` other than `'cli'` or `'acp'`, or arguments of
/// the wrong type.
#[wasm_bindgen(js_name = parseAgentOutput, unchecked_return_type = "AgentReply")]
pub fn parse_agent_output_with(
    #[wasm_bindgen(js_name = agentType, unchecked_param_type = "KnownAgentType")]
    agent_type: JsValue,
    #[wasm_bindgen(js_name = output, unchecked_param_type = "string | Uint8Array")]
    output_value: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "AgentOutputOptions")] options: Option<
        js_sys::Object,
    >,
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
    /// Boxed, so `finish()` gives back all of its memory at once: what is left
    /// until `free()` or the finalizer is one pointer.
    inner: Option<Box<agent_output::AgentOutputParser>>,
}

#[wasm_bindgen(js_class = AgentOutputParser)]
impl AgentOutputParser {
    /// A parser for `agentType`'s output; `{ protocol: 'acp' }` for the
    /// JSON-RPC lines of an agent driven over ACP (default `'cli'`).
    #[wasm_bindgen(constructor)]
    pub fn with_options(
        #[wasm_bindgen(js_name = agentType, unchecked_param_type = "KnownAgentType")]
        agent_type: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "AgentOutputOptions")] options: Option<
            js_sys::Object,
        >,
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

    /// Ends the output and returns the reply, as `parseAgentOutput` would.
    #[wasm_bindgen(unchecked_return_type = "AgentReply")]
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

/// `options.protocol`: left out (or no options), the agent's default
/// (`'cli'`, or `'acp'` for an agent that speaks ACP only); else `'cli'` or
/// `'acp'` (the core decides).
fn protocol_option(
    agent_type: &str,
    options: Option<js_sys::Object>,
) -> Result<agent_output::Protocol> {
    let Some(options) = options else {
        return agent_output::Protocol::for_agent(agent_type, None);
    };
    if !js_input::is_plain_object(&options) {
        return Err(AgentContextError::invalid(format!(
            "options must be an object {{ protocol? }}, got {}",
            type_name(&options)
        )));
    }
    let value = js_input::get(&options, &"protocol".into(), || "options.protocol".into())?;
    let name = js_input::optional_string(value, || "options.protocol".into())?;
    agent_output::Protocol::for_agent(agent_type, name.as_deref())
}

fn finished() -> AgentContextError {
    AgentContextError::invalid(
        "this AgentOutputParser is finished: create a new one for more output",
    )
}

/// Merges a file the CLI wrote during the run (one of the invocation's
/// `outputs`) into its reply, and returns the reply with it: GitHub Copilot
/// CLI's token usage is only in its `--usage-output-file`.
///
/// ```js
/// const run = buildCliInvocation('github-copilot', out, { usageFile: path.join(dir, 'usage.json') });
/// // … spawn, parse stdout into `reply` …
/// for (const o of run.outputs ?? []) {
///   reply = mergeAgentOutputFile('github-copilot', reply, { kind: o.kind, content: fs.readFileSync(o.path, 'utf8') });
/// }
/// ```
///
/// Throws `INVALID_INPUT` for an agent type that writes no such file, a
/// `kind` other than `'usage'`, or content that is not the CLI's JSON.
#[wasm_bindgen(js_name = mergeAgentOutputFile, skip_typescript)] // declared in types.d.ts
pub fn merge_agent_output_file(
    #[wasm_bindgen(js_name = agentType)] agent_type: JsValue,
    reply: JsValue,
    file: JsValue,
) -> std::result::Result<JsValue, JsValue> {
    js_result(merge_file(&agent_type, &reply, &file))
}

fn merge_file(agent_type: &JsValue, reply: &JsValue, file: &JsValue) -> Result<JsValue> {
    let agent_type = js_input::agent_type(agent_type)?;
    if !js_input::is_plain_object(reply) {
        return Err(AgentContextError::invalid(format!(
            "reply must be an object (an AgentReply), got {}",
            type_name(reply)
        )));
    }
    if !js_input::is_plain_object(file) {
        return Err(AgentContextError::invalid(format!(
            "file must be an object {{ kind, content }}, got {}",
            type_name(file)
        )));
    }
    let kind_value = js_sys::Reflect::get(file, &"kind".into()).unwrap_or(JsValue::UNDEFINED);
    let kind = kind_value
        .as_string()
        .and_then(|k| crate::launch::invocation::OutputKind::parse(&k))
        .ok_or_else(|| {
            AgentContextError::invalid(format!(
                "file.kind must be 'usage', got {}",
                type_name(&kind_value)
            ))
        })?;
    let content_value = js_js_get(file, "content");
    let content = content_value.as_string().ok_or_else(|| {
        AgentContextError::invalid(format!(
            "file.content must be a string, got {}",
            type_name(&content_value)
        ))
    })?;
    let usage_value = js_js_get(reply, "usage");
    let usage = if usage_value.is_undefined() || usage_value.is_null() {
        None
    } else {
        Some(agent_output::usage_from_json(&super::json_bridge::to_json(
            &usage_value,
            "reply.usage",
        )?))
    };
    let merged = agent_output::merged_usage(&agent_type, usage, kind, &content)?;
    let copy = js_sys::Object::assign(&js_sys::Object::new(), reply.unchecked_ref());
    let _ = js_sys::Reflect::set(&copy, &"usage".into(), &from_serializable(&merged)?);
    Ok(copy.into())
}

fn js_js_get(object: &JsValue, key: &str) -> JsValue {
    js_sys::Reflect::get(object, &key.into()).unwrap_or(JsValue::UNDEFINED)
}
