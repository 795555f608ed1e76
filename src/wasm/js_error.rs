//! Turns the core error into a real JS `Error` with `name` and `code`, an
//! instance of the package's `AgentContextError` class.

use std::cell::RefCell;

use js_sys::{Error, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::error::AgentContextError;

thread_local! {
    /// `AgentContextError.prototype`, handed over by the package's JS glue
    /// when the module is instantiated (scripts/finish-pkg.mjs).
    static PROTOTYPE: RefCell<Option<Object>> = const { RefCell::new(None) };
}

/// Called once by the glue: errors made from now on have `prototype` (the
/// class `AgentContextError` exported by every entry), so `instanceof` works.
#[wasm_bindgen(js_name = __setErrorPrototype, skip_typescript)]
pub fn set_error_prototype(prototype: Object) {
    PROTOTYPE.with(|p| *p.borrow_mut() = Some(prototype));
}

/// `Error` whose `name` is `'AgentContextError'` and `code` the stable code;
/// `BUDGET_EXCEEDED` also has `neededBytes` and `maxBytes` (numbers), and
/// `SESSION_MOVED` its `details` (the conversation's live end).
pub fn to_js(err: AgentContextError) -> JsValue {
    let js = Error::new(err.message());
    PROTOTYPE.with(|p| {
        if let Some(prototype) = p.borrow().as_ref() {
            Object::set_prototype_of(&js, prototype);
        }
    });
    js.set_name("AgentContextError");
    // Setting data properties on a fresh Error cannot fail.
    let set = |key: &str, value: JsValue| {
        let _ = Reflect::set(&js, &JsValue::from_str(key), &value);
    };
    set("code", JsValue::from_str(err.code().as_str()));
    if let Some(shortfall) = err.shortfall() {
        set(
            "neededBytes",
            JsValue::from_f64(shortfall.needed_bytes as f64),
        );
        set("maxBytes", JsValue::from_f64(shortfall.max_bytes as f64));
    }
    if let Some(details) = err.details() {
        // Through JSON text, as every structured value crosses; a value
        // that cannot be written is left out rather than failing the error.
        if let Ok(text) = serde_json::to_string(details) {
            if let Ok(value) = js_sys::JSON::parse(&text) {
                set("details", value);
            }
        }
    }
    js.into()
}

/// The message of whatever a JS getter or callback threw.
pub fn describe_thrown(thrown: &JsValue) -> String {
    if let Some(err) = thrown.dyn_ref::<Error>() {
        return String::from(err.message());
    }
    thrown.as_string().unwrap_or_else(|| format!("{thrown:?}"))
}
