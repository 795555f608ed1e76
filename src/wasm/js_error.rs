//! Turns the core error into a real JS `Error` with `name` and `code`.

use js_sys::{Error, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::AgentContextError;

/// `Error` whose `name` is `'AgentContextError'` and `code` the stable code.
pub fn to_js(err: AgentContextError) -> JsValue {
    let js = Error::new(err.message());
    js.set_name("AgentContextError");
    // Setting a data property on a fresh Error cannot fail.
    let _ = Reflect::set(
        &js,
        &JsValue::from_str("code"),
        &JsValue::from_str(err.code().as_str()),
    );
    js.into()
}

/// The message of whatever a JS getter or callback threw.
pub fn describe_thrown(thrown: &JsValue) -> String {
    if let Some(err) = thrown.dyn_ref::<Error>() {
        return String::from(err.message());
    }
    thrown.as_string().unwrap_or_else(|| format!("{thrown:?}"))
}
