//! `buildLlmMessagesFromConversation`, `composeSystemPrompt`,
//! `toOpenAIMessage` and `parseRunDirective` (seed 004).

use js_sys::Object;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, pick, to_json};
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
    let templates = crate::formats::host_value::field(extra, "extra.", "templates")?;
    if templates.is_undefined() || templates.is_null() {
        return Ok(None);
    }
    to_json(&templates, "templates").map(Some)
}

/// `buildLlmMessagesFromConversation`: the system prompt first
/// (unless `settings.includeSystemPrompt === false`), then the conversation in
/// OpenAI's format, with `metadata`.
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

/// `toOpenAIMessage` (declared in types.d.ts).
#[wasm_bindgen(js_name = toOpenAIMessage, skip_typescript)]
pub fn to_openai_message(message: JsValue) -> Result<JsValue, JsValue> {
    let value = js_result(to_json(&message, "message"))?;
    let message = js_result(ConversationMessage::read(&value, "message"))?;
    js_result(from_serializable(&message.to_openai()))
}

/// The ```` ```run-directive ```` block a run-mode reply ends with, or `null`.
#[wasm_bindgen(js_name = parseRunDirective, skip_typescript)]
pub fn parse_run_directive_js(
    reply_text: JsValue,
    run_context: JsValue,
) -> Result<JsValue, JsValue> {
    let path = || "replyText".to_owned();
    let reply = js_result(crate::formats::host_value::required_string(
        reply_text, &path,
    ))?;
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
