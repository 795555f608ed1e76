//! The platform this runs on, for `buildCliInvocation`, the runners and the
//! platform functions (all in Node's second module).

use crate::launch::platform::Platform;

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

/// A child's environment (`{ KEY: value }`) as pairs; what is not a string
/// (an `undefined` left in a copy of `process.env`) is not passed on.
#[cfg(feature = "node")]
pub fn env_pairs(value: &wasm_bindgen::JsValue) -> crate::error::Result<Vec<(String, String)>> {
    let json = super::json_bridge::to_json(value, "options.env")?;
    crate::remote::string_pairs(&json, "options.env")
}
