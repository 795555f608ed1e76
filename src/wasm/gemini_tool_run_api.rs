//! The Gemini tool's call binding: the internal `__GeminiToolCall` that
//! `js/api/gemini-tool.cjs` uses around a run of Gemini CLI on the CLI session
//! engine (`js/api/run.cjs`, `__Engine`): the parameters read into the
//! run's request and options, and the envelope written from the run's
//! result (`__RunResult`). Compiled with the `node` feature into the
//! Node-only second module (pkg/node/agent_context_node_bg.wasm),
//! loaded on the first `runGeminiTool` call, so the main module (and every
//! browser) does without this code.

use wasm_bindgen::prelude::*;

use super::json_bridge::{from_serializable, to_json};
use super::run_result_api::RunResultJs;
use super::{js_result, ms};
use crate::tools::gemini_tool::GeminiToolCall;

/// One call of the tool (internal: not part of the API). See
/// `crate::tools::gemini_tool::GeminiToolCall`.
#[wasm_bindgen(js_name = __GeminiToolCall, skip_typescript)]
pub struct GeminiToolCallJs {
    inner: GeminiToolCall,
}

#[wasm_bindgen(js_class = __GeminiToolCall)]
impl GeminiToolCallJs {
    /// Reads the parameters; bad ones make a call whose envelope is
    /// `invalid_params`. `command`: the executable the run spawns.
    #[wasm_bindgen(constructor)]
    pub fn new(params: JsValue, command: String) -> GeminiToolCallJs {
        let inner = match to_json(&params, "params") {
            Ok(value) => GeminiToolCall::new(&value, &command),
            Err(e) => GeminiToolCall::unreadable(e.message(), &command),
        };
        GeminiToolCallJs { inner }
    }

    /// `{ agentType, request, options, keepEvents }`: the run to start, or
    /// `undefined` when the parameters failed (see `invalidEnvelope`).
    pub fn run(&self) -> Result<JsValue, JsValue> {
        match self.inner.run_json() {
            None => Ok(JsValue::UNDEFINED),
            Some(run) => js_result(from_serializable(&run)),
        }
    }

    /// The command was not found by name: `searched` (the message listing
    /// every place looked at) goes into a `command_not_found` error.
    #[wasm_bindgen(js_name = notFound)]
    pub fn not_found(&mut self, searched: String) {
        self.inner.not_found(&searched);
    }

    /// The envelope of a call whose parameters failed.
    #[wasm_bindgen(js_name = invalidEnvelope)]
    pub fn invalid_envelope(&self, duration_ms: f64) -> Result<JsValue, JsValue> {
        let envelope = self.inner.invalid_envelope(ms(duration_ms));
        js_result(from_serializable(&envelope))
    }

    /// The envelope of the finished run.
    pub fn envelope(&self, result: &RunResultJs, duration_ms: f64) -> Result<JsValue, JsValue> {
        let turn = result.turn(ms(duration_ms));
        let envelope = js_result(self.inner.envelope(&turn, ms(duration_ms)))?;
        js_result(from_serializable(&envelope))
    }

    /// The `log_metrics` line of the finished run, or `undefined` when it
    /// was not asked for.
    #[wasm_bindgen(js_name = metricsLine)]
    pub fn metrics_line(&self, result: &RunResultJs, duration_ms: f64) -> Option<String> {
        let turn = result.turn(ms(duration_ms));
        self.inner
            .logs_metrics()
            .then(|| self.inner.metrics_line(Some(&turn), ms(duration_ms)))
    }
}
