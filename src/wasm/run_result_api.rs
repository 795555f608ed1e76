//! A finished run over an agent's command line (internal, the Node-only
//! second module): the turn the CLI session engine ended with, or a run
//! that never started (bad input, aborted first). `runAgent` resolves it
//! as an `AgentRun` (`toRun`); the MCP tools and the Gemini tool write
//! their envelopes from it. No decision is made here.

use wasm_bindgen::prelude::*;

use super::engine_api::now_ms;
use super::js_long_text::js_string;
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::agent_output::parse_agent_output;
use crate::agents::definition::agent_label;
use crate::engine::TurnResult;
use crate::run::{aborted, AgentErrorKind, Failure};

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

    fn not_run(agent: &JsValue, failure: impl FnOnce(&str) -> Failure) -> RunResultJs {
        let agent_type = to_json(agent, "agentType")
            .map(|v| agent_label(&v))
            .unwrap_or_default();
        let name = crate::agents::find(&agent_type).map_or("the agent", |a| a.name);
        let failure = failure(name);
        RunResultJs::new(TurnResult::new(
            &agent_type,
            Err(failure),
            parse_agent_output(&agent_type, b""),
            None,
            None,
            Vec::new(),
            None,
            0,
        ))
    }
}

#[wasm_bindgen(js_class = __RunResult)]
impl RunResultJs {
    /// A run that did not start: `invalid_params` with `message`.
    pub fn invalid(agent: JsValue, message: String) -> RunResultJs {
        RunResultJs::not_run(&agent, |_| {
            Failure::new(
                AgentErrorKind::InvalidParams,
                format!("invalid parameters: {message}"),
            )
        })
    }

    /// A run the caller aborted before anything was spawned.
    pub fn aborted(agent: JsValue) -> RunResultJs {
        RunResultJs::not_run(&agent, aborted)
    }

    /// The error kind, `undefined` on success.
    #[wasm_bindgen(getter)]
    pub fn kind(&self) -> Option<String> {
        self.turn.kind().map(|k| k.as_str().to_owned())
    }

    /// The `AgentRun`, `durationMs` long. The reply's text (most of a long
    /// run) crosses as one string, not inside the JSON of the rest, which
    /// would escape, decode and parse it again; `text` stays the reply's
    /// first key.
    #[wasm_bindgen(js_name = toRun)]
    pub fn to_run(&mut self, duration_ms: f64) -> Result<JsValue, JsValue> {
        let turn = &mut self.turn;
        turn.duration_ms = now_ms(duration_ms);
        // A run resolves no stop reason (a session's turn does).
        turn.stop_reason = None;
        let text = std::mem::take(&mut turn.reply.text);
        let object = from_serializable(&*turn);
        let object = js_result(object.map(|o| (o, js_string(&text))));
        turn.reply.text = text;
        let (object, text) = object?;
        let reply = js_sys::Reflect::get(&object, &JsValue::from_str("reply"))?;
        js_sys::Reflect::set(&reply, &JsValue::from_str("text"), &text)?;
        Ok(object)
    }
}
