//! The JS binding: short adapters that read JS input, call the core and write
//! JS output. No prompt logic lives here.

mod agent_output_api;
mod assemble_api;
mod call_options;
mod context_api;
mod context_manager;
mod fast_path_api;
mod gemini_tool_api;
mod invocation_api;
mod js_error;
mod js_input;
mod js_output;
mod js_text;
mod json_bridge;
mod selection_api;

use wasm_bindgen::prelude::*;

pub use agent_output_api::*;
pub use assemble_api::*;
pub use context_api::*;
pub use context_manager::ContextManager;
pub use fast_path_api::*;
pub use gemini_tool_api::*;
pub use invocation_api::*;
pub use selection_api::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_TYPES: &str = include_str!("types.d.ts");

/// Installs the panic hook (a safety net only: the library validates input
/// and returns errors instead of panicking).
#[wasm_bindgen(start, private)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Core result → JS result, the error as an `AgentContextError`.
fn js_result<T>(result: crate::error::Result<T>) -> Result<T, JsValue> {
    result.map_err(js_error::to_js)
}

/// Bytes of WebAssembly memory in use by the module (for the benchmark's
/// memory check; not part of the API).
#[wasm_bindgen(js_name = __wasmMemoryBytes, skip_typescript)]
pub fn wasm_memory_bytes() -> f64 {
    (core::arch::wasm32::memory_size(0) * 65536) as f64
}
