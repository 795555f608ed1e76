//! `selectContextMessages` and `stripPromptMarkers` (seed 002).

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use wasm_bindgen::JsCast;

use super::js_input::JsContext;
use super::js_result;
use crate::formats::host_value::required_string;
use crate::prompt::input::ContextSource;
use crate::prompt::selection;

/// The last `limit` messages that concern `recipient`, oldest first.
#[wasm_bindgen(js_name = selectContextMessages, skip_typescript)] // declared in types.d.ts
pub fn select_context_messages(
    messages: JsValue,
    options: Option<Object>,
) -> Result<JsValue, JsValue> {
    let context = js_result(JsContext::new(messages, "contextMessages"))?;
    let options: JsValue = options.map_or(JsValue::UNDEFINED, Into::into);
    let (recipient, limit) = js_result(selection::select_options(&options))?;
    let array: &Array = context.array().unchecked_ref();
    let count = array.length() as usize;
    let picked = js_result(selection::select_indices(
        count,
        recipient.as_deref(),
        limit,
        |i| context.route(i),
    ))?;
    let out = Array::new_with_length(picked.len() as u32);
    for (slot, index) in picked.into_iter().enumerate() {
        out.set(slot as u32, array.get(index as u32));
    }
    Ok(out.into())
}

/// `stripPromptMarkers` (declared in types.d.ts).
#[wasm_bindgen(js_name = stripPromptMarkers, skip_typescript)]
pub fn strip_prompt_markers(text: JsValue) -> Result<String, JsValue> {
    let text = js_result(required_string(text, &|| "text".into()))?;
    Ok(selection::strip_prompt_markers(&text))
}
