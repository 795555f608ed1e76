//! Helpers for building JS values and checking thrown errors.

use js_sys::{Error, Function, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use agent_context::wasm::assemble;

pub fn get(v: &JsValue, key: &str) -> JsValue {
    Reflect::get(v, &JsValue::from_str(key)).expect("readable")
}

pub fn set(target: &JsValue, key: &str, value: &JsValue) {
    Reflect::set(target, &JsValue::from_str(key), value).expect("settable");
}

pub fn json(text: &str) -> JsValue {
    JSON::parse(text).expect("valid JSON in test")
}

/// Evaluates a JS function body and returns its result.
pub fn eval(body: &str) -> JsValue {
    Function::new_no_args(body)
        .call0(&JsValue::UNDEFINED)
        .expect("test JS runs")
}

pub fn text(v: &JsValue, key: &str) -> String {
    get(v, key)
        .as_string()
        .unwrap_or_else(|| panic!("{key} is not a string"))
}

pub fn ok(agent: &str, input: &JsValue) -> JsValue {
    assemble(JsValue::from_str(agent), input.clone(), Some(quiet()))
        .unwrap_or_else(|e| panic!("assemble failed: {:?}", get(&e, "message")))
}

/// `{ logger: () => {} }`, so fallback tests do not print.
pub fn quiet() -> Object {
    let options = Object::new();
    set(&options, "logger", &Function::new_no_args(""));
    options
}

/// The thrown value must be an `Error` named `AgentContextError` with `code`.
pub fn expect_error(result: Result<JsValue, JsValue>, code: &str, message: &str) {
    let thrown = result.expect_err("should throw");
    let err = thrown.dyn_ref::<Error>().expect("an Error instance");
    assert_eq!(String::from(err.name()), "AgentContextError");
    assert_eq!(get(&thrown, "code").as_string().as_deref(), Some(code));
    assert_eq!(String::from(err.message()), message);
}
