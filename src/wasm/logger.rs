//! Where warnings go: the caller's `logger` option, or `console.warn`.

use js_sys::Function;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_input::{get, is_plain_object, type_name};
use crate::error::{AgentContextError, Result};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

/// A logger: a function called with the message, or an object whose `warn`
/// method is (e.g. `console`); `None` means `console.warn`.
pub enum Logger {
    Console,
    Function(Function),
    Object(JsValue, Function),
}

impl Logger {
    /// Reads `options.logger`.
    pub fn from_options(options: &JsValue) -> Result<Logger> {
        if options.is_undefined() || options.is_null() {
            return Ok(Logger::Console);
        }
        if !is_plain_object(options) {
            return Err(AgentContextError::invalid(format!(
                "options must be an object, got {}",
                type_name(options)
            )));
        }
        let logger = get(options, &JsValue::from_str("logger"), || {
            "options.logger".into()
        })?;
        if logger.is_undefined() || logger.is_null() {
            return Ok(Logger::Console);
        }
        if let Some(f) = logger.dyn_ref::<Function>() {
            return Ok(Logger::Function(f.clone()));
        }
        if logger.is_object() {
            let warn = get(&logger, &JsValue::from_str("warn"), || {
                "options.logger.warn".into()
            })?;
            if let Some(f) = warn.dyn_ref::<Function>() {
                return Ok(Logger::Object(logger.clone(), f.clone()));
            }
        }
        Err(AgentContextError::invalid(format!(
            "options.logger must be a function or an object with a warn method, got {}",
            type_name(&logger)
        )))
    }

    /// Logs a warning; what the host's logger throws is thrown to the caller.
    pub fn warn(&self, message: &str) -> std::result::Result<(), JsValue> {
        match self {
            Logger::Console => {
                console_warn(message);
                Ok(())
            }
            Logger::Function(f) => f
                .call1(&JsValue::UNDEFINED, &JsValue::from_str(message))
                .map(drop),
            Logger::Object(this, f) => f.call1(this, &JsValue::from_str(message)).map(drop),
        }
    }
}
