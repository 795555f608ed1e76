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

#[cfg(feature = "api")]
mod agent_output_api;
#[cfg(feature = "node")]
mod agent_tool_api;
#[cfg(feature = "api")]
mod agents_api;
#[cfg(feature = "api")]
mod assemble_api;
// `buildCliInvocation` (in the runners' module) warns through it too.
#[cfg_attr(not(feature = "api"), allow(dead_code))]
mod call_options;
#[cfg(feature = "node")]
mod client_api;
#[cfg(feature = "api")]
mod context_api;
#[cfg(feature = "api")]
mod context_manager;
#[cfg(feature = "node")]
mod engine_api;
#[cfg(feature = "api")]
mod fast_path_api;
#[cfg(feature = "api")]
mod gemini_tool_prompt_api;
#[cfg(feature = "node")]
mod gemini_tool_run_api;
#[cfg(feature = "node")]
mod invocation_api;
mod js_error;
#[cfg(feature = "node")]
mod option_keys_api;
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
#[cfg(feature = "node")]
mod platform_api;
mod record_api;
#[cfg(feature = "node")]
mod remote_api;
#[cfg(feature = "node")]
mod run_home_api;
#[cfg(feature = "node")]
mod run_result_api;
#[cfg(feature = "api")]
mod selection_api;
#[cfg(feature = "node")]
mod structured_api;
#[cfg(feature = "api")]
mod team_api;
#[cfg(feature = "node")]
mod team_machine_api;

use wasm_bindgen::prelude::*;

#[cfg(feature = "api")]
pub use agent_output_api::*;
#[cfg(feature = "node")]
pub use agent_tool_api::*;
#[cfg(feature = "api")]
pub use agents_api::*;
#[cfg(feature = "api")]
pub use assemble_api::*;
#[cfg(feature = "api")]
pub use context_api::*;
#[cfg(feature = "api")]
pub use context_manager::ContextManager;
#[cfg(feature = "node")]
pub use engine_api::*;
#[cfg(feature = "api")]
pub use fast_path_api::*;
#[cfg(feature = "api")]
pub use gemini_tool_prompt_api::*;
#[cfg(feature = "node")]
pub use gemini_tool_run_api::*;
#[cfg(feature = "node")]
pub use invocation_api::*;
#[cfg(feature = "node")]
pub use option_keys_api::*;
#[cfg(feature = "node")]
pub use platform_api::*;
#[cfg(feature = "node")]
pub use record_api::session_record_of_acp;
#[cfg(feature = "api")]
pub use record_api::*;
#[cfg(feature = "node")]
pub use remote_api::*;
#[cfg(feature = "node")]
pub use run_result_api::*;
#[cfg(feature = "api")]
pub use selection_api::*;
#[cfg(feature = "node")]
pub use structured_api::*;
#[cfg(feature = "api")]
pub use team_api::*;
#[cfg(feature = "node")]
pub use team_machine_api::*;

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
