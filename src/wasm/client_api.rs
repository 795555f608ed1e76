//! The binding of the client's own features on `__Engine`: the host says
//! whether it answers elicitations, and hands over what its client
//! terminals did; `fork` opens a session as a fork of another. Decisions
//! are the engine's (`crate::engine`, `crate::acp::terminals`).

use wasm_bindgen::prelude::*;

use super::engine_api::EngineJs;
use super::js_result;
use super::ms;

#[wasm_bindgen(js_class = __Engine)]
impl EngineJs {
    /// Whether the host answers `elicitation/create` (`onElicitation`).
    #[wasm_bindgen(js_name = answerElicitations)]
    pub fn answer_elicitations(&mut self, on: bool) {
        self.inner.answer_elicitations(on);
    }

    #[wasm_bindgen(js_name = terminalStarted)]
    pub fn terminal_started(&mut self, id: String, now: f64) {
        self.inner.terminal_started(&id, ms(now));
    }

    #[wasm_bindgen(js_name = terminalFailed)]
    pub fn terminal_failed(&mut self, id: String, code: String, now: f64) {
        self.inner.terminal_failed(&id, &code, ms(now));
    }

    #[wasm_bindgen(js_name = terminalOutput)]
    pub fn terminal_output(&mut self, id: String, chunk: &[u8], now: f64) {
        self.inner.terminal_output(&id, chunk, ms(now));
    }

    #[wasm_bindgen(js_name = terminalExited)]
    pub fn terminal_exited(
        &mut self,
        id: String,
        code: Option<f64>,
        signal: Option<String>,
        now: f64,
    ) {
        self.inner
            .terminal_exited(&id, code.map(|c| c as i64), signal.as_deref(), ms(now));
    }

    /// Whether terminal `id` may run in `real` (its folder, links resolved).
    #[wasm_bindgen(js_name = terminalCwdAllowed)]
    pub fn terminal_cwd_allowed(&self, id: String, real: String) -> bool {
        self.inner.terminal_cwd_allowed(&id, &real)
    }

    /// Opens session `new` (from `addSession`) as a fork of `source`.
    #[wasm_bindgen(js_name = forkSession)]
    pub fn fork_session(&mut self, source: f64, new: f64, now: f64) -> f64 {
        self.inner.fork_session(source as u64, new as u64, ms(now)) as f64
    }
}

/// `traceparent` checked (`field` names it): the value, or
/// `AgentContextError` (`INVALID_INPUT`).
#[wasm_bindgen(js_name = __checkTraceparent, skip_typescript)]
pub fn check_traceparent(value: JsValue, field: String) -> Result<String, JsValue> {
    let value = js_result(super::json_bridge::to_json(&value, &field))?;
    js_result(crate::acp::client::read_traceparent(&value, &field))
}
