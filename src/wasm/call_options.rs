//! The `options` argument: where messages go (`logger`), whether to log
//! debug lines (`debug`, or `DEBUG=1` in Node's environment) and cache-stable
//! trimming (`cacheStable`, `cacheBlock`).

use std::num::NonZeroUsize;

use js_sys::{Function, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js_input::{get, is_plain_object, optional_bool, type_name};
use crate::error::{AgentContextError, Result};
use crate::prompt::cache_stable::{cache_block_option, invalid_block};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
    #[wasm_bindgen(js_namespace = console, js_name = log)]
    fn console_log(message: &str);
}

/// Where warnings and debug lines go.
#[derive(Clone)]
pub enum Logger {
    /// `console.warn` for warnings, `console.log` for debug lines.
    Console,
    /// Called as `logger(message, level)`, level `'warn'` or `'debug'`.
    Function(Function),
    /// `logger.warn(message)`; debug lines to `logger.debug`, else
    /// `logger.log`, else `logger.warn` (e.g. `console`).
    Object(JsValue),
}

/// Options shared by every call that assembles.
#[derive(Clone)]
pub struct CallOptions {
    pub logger: Logger,
    /// `Some` when the caller said; `None` follows `DEBUG=1`.
    pub debug: Option<bool>,
    /// `cacheBlock` when `cacheStable` is true (SPEC §14), else `None`.
    pub cache_block: Option<NonZeroUsize>,
}

impl Default for CallOptions {
    fn default() -> Self {
        CallOptions {
            logger: Logger::Console,
            debug: None,
            cache_block: None,
        }
    }
}

impl CallOptions {
    /// Reads `{ logger?, debug? }`; `undefined` or `null` gives the defaults.
    pub fn read(options: &JsValue) -> Result<CallOptions> {
        if options.is_undefined() || options.is_null() {
            return Ok(CallOptions::default());
        }
        if !is_plain_object(options) {
            return Err(AgentContextError::invalid(format!(
                "options must be an object, got {}",
                type_name(options)
            )));
        }
        let logger = get(options, &"logger".into(), || "options.logger".into())?;
        let logger = if logger.is_undefined() || logger.is_null() {
            Logger::Console
        } else if let Some(f) = logger.dyn_ref::<Function>() {
            Logger::Function(f.clone())
        } else if logger.is_object()
            && get(&logger, &"warn".into(), || "options.logger.warn".into())?.is_function()
        {
            Logger::Object(logger)
        } else {
            return Err(AgentContextError::invalid(format!(
                "options.logger must be a function or an object with a warn method, got {}",
                type_name(&logger)
            )));
        };
        let path = || "options.debug".to_owned();
        let debug = optional_bool(get(options, &"debug".into(), path)?, path)?;
        let path = || "options.cacheStable".to_owned();
        let cache_stable = optional_bool(get(options, &"cacheStable".into(), path)?, path)?;
        let block = get(options, &"cacheBlock".into(), || {
            "options.cacheBlock".into()
        })?;
        let block = if block.is_undefined() || block.is_null() {
            None
        } else {
            Some(
                block
                    .as_f64()
                    .ok_or_else(|| invalid_block(type_name(&block)))?,
            )
        };
        let cache_block = cache_block_option(cache_stable, block)?;
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
