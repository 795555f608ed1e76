//! Reads JS values into the core's input types, naming the field on every error.
//!
//! `contextMessages` is not copied up front: [`JsContext`] implements the
//! core's `ContextSource` and reads one array element when the budget engine
//! asks for it, newest first, so messages that cannot fit are never read.

use std::borrow::Cow;

use js_sys::{Array, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_error::describe_thrown;
use crate::error::{AgentContextError, Result};
use crate::prompt::input::{
    max_bytes_from_number, ContextMessage, ContextSource, FieldNames, PromptFields,
    DEFAULT_MAX_BYTES,
};
use crate::prompt::input_keys;
use crate::prompt::text::js_number_text;

/// `typeof`-style name of a value, for error messages.
pub fn type_name(value: &JsValue) -> &'static str {
    if value.is_null() {
        "null"
    } else if value.is_undefined() {
        "undefined"
    } else if Array::is_array(value) {
        "an array"
    } else if value.is_string() {
        "a string"
    } else if value.as_f64().is_some() {
        "a number"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if value.is_function() {
        "a function"
    } else if value.is_bigint() {
        "a bigint"
    } else if value.is_symbol() {
        "a symbol"
    } else {
        "an object"
    }
}

/// Whether `value` is a non-null object that is not an array or a function.
pub fn is_plain_object(value: &JsValue) -> bool {
    value.is_object() && !Array::is_array(value)
}

/// `target[key]`, with a getter that throws reported against `path`.
pub fn get(target: &JsValue, key: &JsValue, path: impl Fn() -> String) -> Result<JsValue> {
    get_at(target, key, &path)
}

fn get_at(target: &JsValue, key: &JsValue, path: &dyn Fn() -> String) -> Result<JsValue> {
    Reflect::get(target, key).map_err(|thrown| {
        AgentContextError::invalid(format!(
            "{} could not be read: {}",
            path(),
            describe_thrown(&thrown)
        ))
    })
}

/// A string field that may be missing or `null` (then empty).
pub fn optional_string(value: JsValue, path: impl Fn() -> String) -> Result<Option<String>> {
    optional_string_at(value, &path)
}

fn optional_string_at(value: JsValue, path: &dyn Fn() -> String) -> Result<Option<String>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_string().map(Some).ok_or_else(|| {
        AgentContextError::invalid(format!(
            "{} must be a string, got {}",
            path(),
            type_name(&value)
        ))
    })
}

/// A string field that must be present.
pub fn required_string(value: JsValue, path: impl Fn() -> String) -> Result<String> {
    required_string_at(value, &path)
}

fn required_string_at(value: JsValue, path: &dyn Fn() -> String) -> Result<String> {
    value.as_string().ok_or_else(|| {
        AgentContextError::invalid(format!(
            "{} must be a string, got {}",
            path(),
            type_name(&value)
        ))
    })
}

/// A boolean field that may be missing or `null`.
pub fn optional_bool(value: JsValue, path: impl Fn() -> String) -> Result<Option<bool>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    value.as_bool().map(Some).ok_or_else(|| {
        AgentContextError::invalid(format!(
            "{} must be a boolean, got {}",
            path(),
            type_name(&value)
        ))
    })
}

/// The agent type argument.
pub fn agent_type(value: &JsValue) -> Result<String> {
    required_string(value.clone(), || "agentType".to_owned())
}

/// Property names read from each context message, made once per call.
struct MessageKeys {
    from: JsValue,
    to: JsValue,
    content: JsValue,
}

/// `contextMessages`, read element by element on demand.
pub struct JsContext {
    array: Array,
    keys: MessageKeys,
    /// The array's name in error messages.
    name: &'static str,
}

impl JsContext {
    /// Wraps the `contextMessages` value, which must be an array.
    pub fn new(messages: JsValue) -> Result<JsContext> {
        JsContext::named(messages, "contextMessages")
    }

    /// Wraps an array of messages that errors call `name`.
    pub fn named(messages: JsValue, name: &'static str) -> Result<JsContext> {
        if !Array::is_array(&messages) {
            return Err(AgentContextError::invalid(format!(
                "{name} must be an array, got {}",
                type_name(&messages)
            )));
        }
        Ok(JsContext {
            array: messages.unchecked_into(),
            keys: MessageKeys {
                from: JsString::from("from").into(),
                to: JsString::from("to").into(),
                content: JsString::from("content").into(),
            },
            name,
        })
    }

    /// The array itself.
    pub fn array(&self) -> &Array {
        &self.array
    }

    /// Message `index` as it is in JS, checked to be an object.
    pub fn item(&self, index: usize) -> Result<JsValue> {
        let name = self.name;
        let item = get(&self.array, &JsValue::from(index as u32), || {
            format!("{name}[{index}]")
        })?;
        if !is_plain_object(&item) {
            return Err(AgentContextError::invalid(format!(
                "{name}[{index}] must be an object, got {}",
                type_name(&item)
            )));
        }
        Ok(item)
    }

    /// `from` and `to` of message `index`.
    pub fn route(&self, index: usize) -> Result<(String, Option<String>)> {
        self.route_of(&self.item(index)?, index)
    }

    /// `from` and `to` of `item`, message `index`.
    fn route_of(&self, item: &JsValue, index: usize) -> Result<(String, Option<String>)> {
        let array = self.name;
        let field = |name: &'static str| move || format!("{array}[{index}].{name}");
        let from = required_string(get(item, &self.keys.from, field("from"))?, field("from"))?;
        let to = optional_string(get(item, &self.keys.to, field("to"))?, field("to"))?;
        Ok((from, to))
    }
}

impl ContextSource for JsContext {
    fn count(&self) -> usize {
        self.array.length() as usize
    }

    fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>> {
        let item = self.item(index)?;
        let (from, to) = self.route_of(&item, index)?;
        let path = || format!("{}[{index}].content", self.name);
        let content = required_string(get(&item, &self.keys.content, path)?, path)?;
        Ok(Cow::Owned(ContextMessage { from, to, content }))
    }

    fn route(&self, index: usize) -> Result<(String, Option<String>)> {
        JsContext::route(self, index)
    }
}

/// The warnings for the own enumerable string keys of `value` that `known`
/// does not hold (none when `value` is not an object); `crate::prompt::input_keys`
/// decides and words them.
pub fn unknown_key_warnings(value: &JsValue, label: &str, known: &[&str]) -> Vec<String> {
    if !is_plain_object(value) {
        return Vec::new();
    }
    let keys: Vec<String> = js_sys::Object::keys::<JsValue>(value.unchecked_ref())
        .iter()
        .filter_map(|k| k.as_string())
        .collect();
    input_keys::unknown_key_warnings(label, &keys, known)
}

/// Reads an input object: its scalar fields now, its context lazily.
pub fn assembler_input(input: &JsValue, names: &FieldNames) -> Result<(PromptFields, JsContext)> {
    if !is_plain_object(input) {
        return Err(AgentContextError::invalid(format!(
            "input must be an object, got {}",
            type_name(input)
        )));
    }
    let text = |name: &'static str| -> Result<String> {
        let path = || name.to_owned();
        Ok(optional_string(get(input, &JsValue::from_str(name), path)?, path)?.unwrap_or_default())
    };
    let current_message = text(names.current_message)?;
    let team_task = text(names.team_task)?;
    let system_instruction = text(names.system_instruction)?;
    let instruction_file_text = text(names.instruction_file_text)?;

    let max_bytes_value = get(input, &JsValue::from_str("maxBytes"), || {
        "maxBytes".to_owned()
    })?;
    let max_bytes = if max_bytes_value.is_undefined() {
        DEFAULT_MAX_BYTES
    } else if let Some(n) = max_bytes_value.as_f64() {
        max_bytes_from_number(n)?
    } else {
        return Err(AgentContextError::invalid(format!(
            "maxBytes must be a finite number >= 0, got {}",
            type_name(&max_bytes_value)
        )));
    };

    let context = JsContext::new(get(input, &JsValue::from_str("contextMessages"), || {
        "contextMessages".to_owned()
    })?)?;
    Ok((
        PromptFields {
            current_message,
            team_task,
            system_instruction,
            instruction_file_text,
            max_bytes,
        },
        context,
    ))
}

/// A whole number `>= 0` (a count or a limit); `undefined` or `null` gives `default`.
pub fn optional_count(value: JsValue, default: usize, path: impl Fn() -> String) -> Result<usize> {
    optional_count_at(value, default, &path)
}

fn optional_count_at(value: JsValue, default: usize, path: &dyn Fn() -> String) -> Result<usize> {
    if value.is_undefined() || value.is_null() {
        return Ok(default);
    }
    value
        .as_f64()
        .and_then(crate::prompt::input::count_from_number)
        .ok_or_else(|| {
            AgentContextError::invalid(format!(
                "{} must be a whole number >= 0, got {}",
                path(),
                describe_value(&value)
            ))
        })
}

/// A number as JS prints it, or the type of anything else.
pub fn describe_value(value: &JsValue) -> String {
    match value.as_f64() {
        Some(n) => js_number_text(n),
        None => type_name(value).to_owned(),
    }
}
