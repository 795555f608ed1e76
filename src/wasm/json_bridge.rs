//! Structured values across the boundary as JSON: `JSON.stringify` in JS, then
//! `serde_json` in the core (and back with `JSON.parse`). One crossing each
//! way; the core reads the result with path-naming errors.

use js_sys::JSON;
use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::js_error::describe_thrown;
pub use super::js_input::to_json;
use crate::error::{AgentContextError, ErrorCode, Result};

/// A core result as a plain JS value: the one way structured results reach
/// JS. Through JSON text and `JSON.parse`, so `null` stays `null`, numbers
/// read as JavaScript reads them, and `None` fields left out
/// (`skip_serializing_if`) read as `undefined`.
pub fn from_serializable<T: Serialize>(value: &T) -> Result<JsValue> {
    let text = serde_json::to_string(value).map_err(|e| {
        AgentContextError::new(
            ErrorCode::Internal,
            format!("could not write a result: {e}"),
        )
    })?;
    JSON::parse(&text).map_err(|thrown| {
        AgentContextError::new(
            ErrorCode::Internal,
            format!("could not read a result back: {}", describe_thrown(&thrown)),
        )
    })
}

/// A new object holding only `keys` of `value` (so a large unused field is
/// never serialised); `value` must be an object.
#[cfg(feature = "api")]
pub fn pick(value: &JsValue, keys: &[&str], what: &str) -> Result<JsValue> {
    use wasm_bindgen::JsCast;

    if !crate::formats::host_value::is_object(value) {
        return Err(AgentContextError::invalid(format!(
            "{what} must be an object, got {}",
            crate::formats::host_value::type_name(value)
        )));
    }
    let picked = js_sys::Object::new();
    for key in keys {
        let v = crate::formats::host_value::field(value, "", key)?;
        if !v.is_undefined() {
            js_sys::Reflect::set(&picked, &JsValue::from_str(key), &v).map_err(|thrown| {
                AgentContextError::invalid(format!(
                    "{key} could not be read: {}",
                    describe_thrown(&thrown)
                ))
            })?;
        }
    }
    Ok(picked.unchecked_into())
}
