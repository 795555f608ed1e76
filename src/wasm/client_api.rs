//! The binding of the client's own features on `__Engine`: what its client
//! terminals wrote, and where they may run (the rest of what they did
//! comes through `input`). Decisions are the engine's (`crate::engine`,
//! `crate::acp::terminals`).

use wasm_bindgen::prelude::*;

use super::engine_api::EngineJs;
use super::js_result;
use super::ms;

#[wasm_bindgen(js_class = __Engine)]
impl EngineJs {
    /// What the client's terminal `id` wrote.
    #[wasm_bindgen(js_name = terminalOutput)]
    pub fn terminal_output(&mut self, id: String, chunk: &[u8], now: f64) {
        self.inner.terminal_output(&id, chunk, ms(now));
    }

    /// Whether terminal `id` may run in `real` (its folder, links resolved).
    #[wasm_bindgen(js_name = terminalCwdAllowed)]
    pub fn terminal_cwd_allowed(&self, id: String, real: String) -> bool {
        self.inner.terminal_cwd_allowed(&id, &real)
    }
}

/// `traceparent` checked (`field` names it): the value, or
/// `AgentContextError` (`INVALID_INPUT`).
#[wasm_bindgen(js_name = __checkTraceparent, skip_typescript)]
pub fn check_traceparent(value: JsValue, field: String) -> Result<String, JsValue> {
    let value = js_result(super::json_bridge::to_json(&value, &field))?;
    js_result(crate::acp::client::read_traceparent(&value, &field))
}
