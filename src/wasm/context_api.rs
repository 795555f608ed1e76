//! `buildLlmMessagesFromConversation`, `composeSystemPrompt`,
//! `toOpenAIMessage` and `parseRunDirective` (seed 004).

use js_sys::Object;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::json_bridge::{from_serializable, pick, to_json};
use super::{js_input, js_result};
use crate::error::Result as CoreResult;
use crate::formats::json_read::Obj;
use crate::prompt::context_builder::{
    build_llm_messages, compose_system_prompt, parse_run_directive_with, ContextBuildOptions,
    ConversationMessage, PromptOptions, Templates,
};

/// The fields of `ContextBuildOptions` that shape the system prompt.
const PROMPT_KEYS: [&str; 4] = ["mode", "agent", "toolPolicy", "runContext"];

/// `{ templates? }`, the optional second argument.
fn template_overrides(extra: &Option<Object>) -> CoreResult<Option<Value>> {
    let Some(extra) = extra else { return Ok(None) };
    let extra: &JsValue = extra.as_ref();
    if extra.is_null() || extra.is_undefined() {
        return Ok(None);
    }
    let templates = js_input::get(extra, &"templates".into(), || "extra.templates".into())?;
    if templates.is_undefined() || templates.is_null() {
        return Ok(None);
    }
    to_json(&templates, "templates").map(Some)
}

/// `buildLlmMessagesFromConversation`: the system prompt first
/// (unless `settings.includeSystemPrompt === false`), then the conversation in
/// OpenAI's format, with `metadata`.
///
/// ```js
/// const { messages, metadata } = buildLlmMessagesFromConversation({
///   mode: 'agent', agent: { id: 'carol', name: 'Carol', role: 'UI designer' },
///   messages: [{ role: 'user', content: 'Sketch the dashboard' }],
/// });
/// // messages[0].role === 'system'; metadata.outputCount === 2
/// ```
///
/// The optional second argument `{ templates }` replaces any of the embedded
/// templates for this call, keyed by file name.
#[wasm_bindgen(js_name = buildLlmMessagesFromConversation, skip_typescript)]
pub fn build_llm_messages_from_conversation(
    options: JsValue,
    extra: Option<Object>,
) -> Result<JsValue, JsValue> {
    let value = js_result(to_json(&options, "options"))?;
    let overrides = js_result(template_overrides(&extra))?;
    let templates = js_result(Templates::with_overrides(overrides.as_ref(), "templates"))?;
    let options = js_result(ContextBuildOptions::read(&value))?;
    js_result(from_serializable(&build_llm_messages(&options, &templates)))
}

/// `composeSystemPrompt`: `# Mode: …`, base rules, tool policy,
/// persona, run directive, joined with `\n\n---\n\n`.
///
/// ```js
/// composeSystemPrompt({ mode: 'chat', messages: [] }).startsWith('# Mode: CHAT\n\n---\n\n## Base Rules (Chat)'); // true
/// ```
#[wasm_bindgen(js_name = composeSystemPrompt, skip_typescript)]
pub fn compose_system_prompt_js(
    options: JsValue,
    extra: Option<Object>,
) -> Result<String, JsValue> {
    let picked = js_result(pick(&options, &PROMPT_KEYS, "options"))?;
    let value = js_result(to_json(&picked, "options"))?;
    let overrides = js_result(template_overrides(&extra))?;
    let templates = js_result(Templates::with_overrides(overrides.as_ref(), "templates"))?;
    let o = js_result(Obj::new(&value, ""))?;
    let prompt = js_result(PromptOptions::read(&o))?;
    Ok(compose_system_prompt(&prompt, &templates))
}

/// One `ConversationMessage` in OpenAI's chat format (`tool_calls` with
/// `arguments` as a JSON string, `tool_call_id`).
///
/// ```js
/// toOpenAIMessage({ role: 'assistant', content: null, toolCalls: [{ id: 'c1', name: 'read', arguments: { path: 'a' } }] });
/// // { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read', arguments: '{"path":"a"}' } }] }
/// ```
#[wasm_bindgen(js_name = toOpenAIMessage, unchecked_return_type = "OpenAIChatMessage")]
pub fn to_openai_message(
    #[wasm_bindgen(unchecked_param_type = "ConversationMessage")] message: JsValue,
) -> Result<JsValue, JsValue> {
    let value = js_result(to_json(&message, "message"))?;
    let message = js_result(ConversationMessage::read(&value, "message"))?;
    js_result(from_serializable(&message.to_openai()))
}

/// Finds the ```` ```run-directive ```` block a run-mode reply ends with (see
/// `templates['run-directive-protocol.md']`): `null` when there is none,
/// `{ valid: true, step, status, transition, artifacts, summary }`, or
/// `{ valid: false, error, raw }` when the block is malformed. With
/// `runContext`, the step id and transition label are checked against it.
///
/// ```js
/// const d = parseRunDirective(reply, runContext);
/// if (d?.valid && d.status === 'complete') engine.follow(d.transition);
/// ```
#[wasm_bindgen(js_name = parseRunDirective, skip_typescript)]
pub fn parse_run_directive_js(
    reply_text: JsValue,
    run_context: JsValue,
) -> Result<JsValue, JsValue> {
    let reply = js_result(js_input::required_string(reply_text, || "replyText".into()))?;
    let context_value = if run_context.is_undefined() || run_context.is_null() {
        None
    } else {
        Some(js_result(to_json(&run_context, "runContext"))?)
    };
    match js_result(parse_run_directive_with(&reply, context_value.as_ref()))? {
        None => Ok(JsValue::NULL),
        Some(directive) => js_result(from_serializable(&directive)),
    }
}
