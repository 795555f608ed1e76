//! The platform and environment as JS gives them, for `buildCliInvocation`
//! (main module) and the platform functions (Node's second module).

use serde_json::{Map, Value};

use crate::error::{AgentContextError, Result};
use crate::platform::Platform;

/// The platform a host runs on when it did not say: `process.platform`
/// (Node, Electron, Deno, Bun); one without measured limits, or no
/// `process` at all (a browser), counts as Linux.
pub fn current_platform() -> Platform {
    let process = js_sys::Reflect::get(&js_sys::global(), &"process".into()).ok();
    let name = process
        .filter(|p| p.is_object())
        .and_then(|p| js_sys::Reflect::get(&p, &"platform".into()).ok())
        .and_then(|n| n.as_string());
    name.and_then(|n| Platform::parse(&n).ok())
        .unwrap_or_default()
}

/// `{ KEY: 'value' }` (as `process.env`); entries that are not strings are
/// refused naming the key.
pub fn env(
    map: &Map<String, Value>,
    key: &str,
    what: &str,
) -> Result<Option<Vec<(String, String)>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(AgentContextError::invalid(format!(
                    "{what}.{key}.{k} must be a string"
                ))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(AgentContextError::invalid(format!(
            "{what}.{key} must be an object of strings"
        ))),
    }
}
