//! A turn's result across the boundary, the one way for every entry point:
//! [`turn_js`] writes a `TurnResult` (a session's turn, a run's `AgentRun`);
//! `__RunResult` holds a finished run (internal, the Node-only module) —
//! the turn an engine made for a run ended with, or a run that never
//! started (bad input, aborted first) — which `runAgent` resolves
//! (`toRun`) and the MCP tools and the Gemini tool word their envelopes
//! from. No decision is made here.

use wasm_bindgen::prelude::*;

use super::js_long_text::js_string;
use super::json_bridge::{from_serializable, to_json};
use super::{js_result, ms};
use crate::engine::TurnResult;

/// `turn` as a JS object; `as_run`: runAgent's `AgentRun`, without the
/// turn's `stopReason`. The reply's text (most of a long run) crosses as one
/// string, not inside the JSON of the rest, which would escape, decode and
/// parse it again; `text` stays the reply's first key.
pub fn turn_js(turn: &mut TurnResult, as_run: bool) -> Result<JsValue, JsValue> {
    let text = std::mem::take(&mut turn.reply.text);
    let stop_reason = if as_run {
        turn.stop_reason.take()
    } else {
        None
    };
    let object = from_serializable(&*turn);
    turn.reply.text = text;
    if as_run {
        turn.stop_reason = stop_reason;
    }
    let object = js_result(object)?;
    let reply = js_sys::Reflect::get(&object, &JsValue::from_str("reply"))?;
    js_sys::Reflect::set(
        &reply,
        &JsValue::from_str("text"),
        &js_string(&turn.reply.text),
    )?;
    Ok(object)
}

/// One run's result (internal).
#[wasm_bindgen(js_name = __RunResult, skip_typescript)]
pub struct RunResultJs {
    turn: TurnResult,
}

impl RunResultJs {
    pub(crate) fn new(turn: TurnResult) -> RunResultJs {
        RunResultJs { turn }
    }

    /// The run's turn, `duration_ms` long.
    pub(crate) fn turn(&self, duration_ms: u64) -> TurnResult {
        let mut turn = self.turn.clone();
        turn.duration_ms = duration_ms;
        turn
    }
}

#[wasm_bindgen(js_class = __RunResult)]
impl RunResultJs {
    /// A run that did not start: `invalid_params` with `message`.
    pub fn invalid(agent: JsValue, message: String) -> RunResultJs {
        let agent = to_json(&agent, "agentType").unwrap_or_default();
        RunResultJs::new(TurnResult::invalid_run(&agent, &message))
    }

    /// A run the caller aborted before anything was spawned.
    pub fn aborted(agent: JsValue) -> RunResultJs {
        let agent = to_json(&agent, "agentType").unwrap_or_default();
        RunResultJs::new(TurnResult::aborted_run(&agent))
    }

    /// The error kind, `undefined` on success.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> Option<String> {
        self.turn.kind().map(|k| k.as_str().to_owned())
    }

    /// The `AgentRun`, `durationMs` long.
    #[wasm_bindgen(js_name = toRun)]
    pub fn to_run(&mut self, duration_ms: f64) -> Result<JsValue, JsValue> {
        self.turn.duration_ms = ms(duration_ms);
        turn_js(&mut self.turn, true)
    }

    /// The run's turn with its `stopReason` (one turn of a run's answer),
    /// `durationMs` long.
    #[wasm_bindgen(js_name = toTurn)]
    pub fn to_turn(&mut self, duration_ms: f64) -> Result<JsValue, JsValue> {
        self.turn.duration_ms = ms(duration_ms);
        turn_js(&mut self.turn, false)
    }
}
