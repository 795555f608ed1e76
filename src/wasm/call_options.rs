//! The `options` argument: where messages go (`logger`), whether to log
//! debug lines (`debug`, or `DEBUG=1` in Node's environment) and cache-stable
//! trimming (`cacheStable`, `cacheBlock`).

use std::num::NonZeroUsize;

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::error::Result;
use crate::formats::host_value::{field, given, must_be};
use crate::prompt::cache_stable::call_flags;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
    #[wasm_bindgen(js_namespace = console, js_name = log)]
    fn console_log(message: &str);
}

/// Where warnings and debug lines go.
#[derive(Clone, Default)]
pub enum Logger {
    /// `console.warn` for warnings, `console.log` for debug lines.
    #[default]
    Console,
    /// Called as `logger(message, level)`, level `'warn'` or `'debug'`.
    Function(Function),
    /// `logger.warn(message)`; debug lines to `logger.debug`, else
    /// `logger.log`, else `logger.warn` (e.g. `console`).
    Object(JsValue),
}

/// Options shared by every call that assembles.
#[derive(Clone, Default)]
pub struct CallOptions {
    pub logger: Logger,
    /// `Some` when the caller said; `None` follows `DEBUG=1`.
    pub debug: Option<bool>,
    /// `cacheBlock` when `cacheStable` is true (SPEC §14), else `None`.
    pub cache_block: Option<NonZeroUsize>,
}

impl CallOptions {
    /// Reads `{ logger?, debug? }`; `undefined` or `null` gives the defaults.
    pub fn read(options: &JsValue) -> Result<CallOptions> {
        if !given(options, "options")? {
            return Ok(CallOptions::default());
        }
        let logger = field(options, "options.", "logger")?;
        let logger = if logger.is_undefined() || logger.is_null() {
            Logger::Console
        } else if let Some(f) = logger.dyn_ref::<Function>() {
            Logger::Function(f.clone())
        } else if logger.is_object() && field(&logger, "options.logger.", "warn")?.is_function() {
            Logger::Object(logger)
        } else {
            let what = "a function or an object with a warn method";
            return Err(must_be("options.logger", what, &logger));
        };
        let (debug, cache_block) = call_flags(options)?;
        Ok(CallOptions {
            logger,
            debug,
            cache_block,
        })
    }

    /// Reads an optional `options` argument as wasm-bindgen passes it.
    pub fn read_optional(options: Option<js_sys::Object>) -> Result<CallOptions> {
        Self::read(&options.map_or(JsValue::UNDEFINED, Into::into))
    }

    /// Whether debug lines are wanted: the option, else `DEBUG` is `1` or
    /// `true` in `process.env` (Node, Electron main).
    pub fn debug_enabled(&self) -> bool {
        self.debug.unwrap_or_else(env_debug)
    }

    pub fn warn(&self, message: &str) -> std::result::Result<(), JsValue> {
        self.emit(message, "warn", &["warn"])
    }

    pub fn debug(&self, message: &str) -> std::result::Result<(), JsValue> {
        self.emit(message, "debug", &["debug", "log", "warn"])
    }

    /// What the host's logger throws is thrown to the caller.
    fn emit(
        &self,
        message: &str,
        level: &str,
        methods: &[&str],
    ) -> std::result::Result<(), JsValue> {
        let text = JsValue::from_str(message);
        match &self.logger {
            Logger::Console if level == "warn" => console_warn(message),
            Logger::Console => console_log(message),
            Logger::Function(f) => {
                f.call2(&JsValue::UNDEFINED, &text, &JsValue::from_str(level))?;
            }
            Logger::Object(target) => {
                for name in methods {
                    if let Ok(method) =
                        Reflect::get(target, &JsValue::from_str(name))?.dyn_into::<Function>()
                    {
                        method.call1(target, &text)?;
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// `globalThis.process.env.DEBUG` is `'1'` or `'true'`; false where there is
/// no `process` (browsers) or it cannot be read.
fn env_debug() -> bool {
    let read = || -> std::result::Result<Option<String>, JsValue> {
        let process = Reflect::get(&js_sys::global(), &"process".into())?;
        if !process.is_object() {
            return Ok(None);
        }
        let env = Reflect::get(&process, &"env".into())?;
        if !env.is_object() {
            return Ok(None);
        }
        Ok(Reflect::get(&env, &"DEBUG".into())?.as_string())
    };
    matches!(read().ok().flatten().as_deref(), Some("1") | Some("true"))
}
