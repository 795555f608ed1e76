//! The JS binding: short adapters that read JS input, call the core and write
//! JS output. No prompt logic lives here.
//!
//! Two WebAssembly modules are built from it (Cargo features, see
//! Cargo.toml): `api` compiles the main module's bindings, every export of
//! the package but the Node-only ones; `node` compiles the runners
//! (the session engine, `__Engine`, that `runAgent` over either protocol,
//! the sessions and the Gemini tool (`__GeminiToolCall`) run on)
//! and the other functions only Node has (`buildCliInvocation`, the
//! platform functions), Node's lazily loaded second module. The helpers that read and write JS values serve both.

/// Modules of exports, each compiled into the module its feature names; its
/// exports are public here too (the boundary tests call them).
macro_rules! exports {
    ($feature:literal: $($name:ident),* $(,)?) => {
        $(
            #[cfg(feature = $feature)]
            mod $name;
            #[cfg(feature = $feature)]
            pub use $name::*;
        )*
    };
}

exports!("api": agent_output_api, agents_api, assemble_api, context_api, context_manager,
    fast_path_api, gemini_tool_prompt_api, selection_api, team_api);
exports!("node": agent_tool_api, client_api, conversation_api, engine_api, gemini_tool_run_api,
    invocation_api, option_keys_api, platform_api, remote_api, run_home_api, run_result_api,
    serve_api, structured_api, team_machine_api);

// The session record is read in both modules (see its file).
mod record_api;
pub use record_api::*;

// `buildCliInvocation` (in the runners' module) warns through it too.
#[cfg_attr(not(feature = "api"), allow(dead_code))]
mod call_options;
mod js_error;
// The runner module reads its parameters through `json_bridge` alone, which
// needs only the type names from here.
#[cfg_attr(not(feature = "api"), allow(dead_code))]
mod js_input;
#[cfg(feature = "node")]
mod js_long_text;
#[cfg(feature = "api")]
mod js_output;
#[cfg(feature = "node")]
mod js_platform;
#[cfg(feature = "api")]
mod js_text;
mod json_bridge;

use wasm_bindgen::prelude::*;

#[cfg(feature = "api")]
#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = include_str!("types.d.ts");

/// Installs the panic hook (a safety net only: the library validates input
/// and returns errors instead of panicking).
#[wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}

/// A time or a duration in milliseconds from JS (`as` saturates; NaN and
/// anything below 0 are 0).
#[cfg(feature = "node")]
fn ms(value: f64) -> u64 {
    value.max(0.0) as u64
}

/// Core result → JS result, the error as an `AgentContextError`.
fn js_result<T>(result: crate::error::Result<T>) -> Result<T, JsValue> {
    result.map_err(js_error::to_js)
}

/// Bytes of WebAssembly memory in use by the module (for the benchmark's
/// memory check; not part of the API).
#[cfg(feature = "api")]
#[wasm_bindgen(js_name = __wasmMemoryBytes, skip_typescript)]
pub fn wasm_memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) * 65536) as f64
}
