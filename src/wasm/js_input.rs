//! A JS value as the core's readers see it (`crate::formats::host_value`):
//! they read the caller's input field by field and name the field on every
//! error.

use js_sys::{Array, Reflect};
use serde_json::Value;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_error::describe_thrown;
use crate::error::Result;
use crate::formats::host_value::{HostValue, MessageArray, Shape};

pub use crate::formats::host_value::{is_object as is_plain_object, type_name};

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
        super::json_bridge::to_json(self, what)
    }
}

/// `contextMessages` (or a transcript), read element by element on demand.
pub type JsContext = MessageArray<JsValue>;

/// The agent type argument.
pub fn agent_type(value: &JsValue) -> Result<String> {
    crate::formats::host_value::required_string(value.clone(), &|| "agentType".to_owned())
}
