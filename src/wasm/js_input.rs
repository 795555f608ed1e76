//! A JS value as the core's readers see it (`crate::formats::host_value`):
//! they read the caller's input field by field and name the field on every
//! error.

use js_sys::{Array, Reflect, JSON};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_error::describe_thrown;
use crate::error::{AgentContextError, Result};
use crate::formats::host_value::{type_name, HostValue, Shape};
use crate::formats::json_text::replace_lone_surrogate_escapes;
use crate::prompt::host_input::MessageArray;

impl HostValue for JsValue {
    type Key = JsValue;

    fn key(name: &str) -> JsValue {
        JsValue::from_str(name)
    }

    fn shape(&self) -> Shape {
        if self.is_null() {
            Shape::Null
        } else if self.is_undefined() {
            Shape::Undefined
        } else if Array::is_array(self) {
            Shape::Array
        } else if self.is_string() {
            Shape::String
        } else if let Some(n) = self.as_f64() {
            Shape::Number(n)
        } else if let Some(b) = self.as_bool() {
            Shape::Bool(b)
        } else if self.is_function() {
            Shape::Function
        } else if self.is_bigint() {
            Shape::BigInt
        } else if self.is_symbol() {
            Shape::Symbol
        } else {
            Shape::Object
        }
    }

    fn text(&self) -> Option<String> {
        self.as_string()
    }

    fn field(&self, key: &JsValue) -> std::result::Result<JsValue, String> {
        Reflect::get(self, key).map_err(|thrown| describe_thrown(&thrown))
    }

    fn item(&self, index: usize) -> std::result::Result<JsValue, String> {
        Reflect::get_u32(self, index as u32).map_err(|thrown| describe_thrown(&thrown))
    }

    fn length(&self) -> usize {
        self.unchecked_ref::<Array>().length() as usize
    }

    fn own_keys(&self) -> Vec<String> {
        js_sys::Object::keys::<JsValue>(self.unchecked_ref())
            .iter()
            .filter_map(|k| k.as_string())
            .collect()
    }

    fn json(&self, what: &str) -> Result<Value> {
        to_json(self, what)
    }
}

/// Reads `value` (named `what` in errors) as JSON. `undefined`, functions and
/// symbols inside objects are left out, as `JSON.stringify` does.
pub fn to_json(value: &JsValue, what: &str) -> Result<Value> {
    if value.is_undefined() || value.is_function() || value.is_symbol() {
        return Err(AgentContextError::invalid(format!(
            "{what} must be an object, got {}",
            type_name(value)
        )));
    }
    // No replacer function: one made with `new Function` is refused under a
    // Content-Security-Policy without 'unsafe-eval'. Lone surrogates, which
    // JSON.stringify escapes and serde_json refuses, become U+FFFD in the
    // core instead.
    let text = JSON::stringify(value).map_err(|thrown| {
        AgentContextError::invalid(format!(
            "{what} could not be read: {}",
            describe_thrown(&thrown)
        ))
    })?;
    let text: String = text.into();
    serde_json::from_str(&replace_lone_surrogate_escapes(&text))
        .map_err(|e| AgentContextError::invalid(format!("{what} could not be read: {e}")))
}

/// `contextMessages` (or a transcript), read element by element on demand.
pub type JsContext = MessageArray<JsValue>;

/// The agent type argument.
pub fn agent_type(value: &JsValue) -> Result<String> {
    crate::formats::host_value::required_string(value.clone(), &|| "agentType".to_owned())
}
