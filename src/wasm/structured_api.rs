//! The binding of structured output (`outputSchema`): the internal
//! `__OutputSchema` that the run drivers ask what the prompt is and what a
//! finished turn comes to. Decisions are `crate::structured`'s.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::agents::OutputSchemaArg;
use crate::structured::{judge, OutputSchema};

/// An `outputSchema` read for one agent and protocol (internal).
#[wasm_bindgen(js_name = __OutputSchema, skip_typescript)]
pub struct OutputSchemaJs {
    inner: OutputSchema,
    own: Option<OutputSchemaArg>,
}

#[wasm_bindgen(js_class = __OutputSchema)]
impl OutputSchemaJs {
    /// `schema` (a JSON Schema), for `agent` (an agent type; a definition
    /// has no way of its own) over `protocol` ('cli' or 'acp'); `field`
    /// names it in errors. A bad schema throws `INVALID_INPUT`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        schema: JsValue,
        agent: JsValue,
        protocol: String,
        field: String,
    ) -> Result<OutputSchemaJs, JsValue> {
        let schema = js_result(to_json(&schema, &field))?;
        let inner = js_result(OutputSchema::read(&schema, &field))?;
        let own = OutputSchema::own_way_of(agent.as_string().as_deref(), &protocol);
        Ok(OutputSchemaJs { inner, own })
    }

    /// The prompt to send: `text`, with the schema stated when the agent
    /// has no way of its own.
    pub fn prompt(&self, text: String) -> String {
        self.inner.prompt(&text, self.own)
    }

    /// A finished turn (`AgentRun`/`AgentTurn`) after `corrections`
    /// corrective turns, at most `max_retries` (the run's default when
    /// undefined): `{ turn, correct? }` — the turn judged, and the prompt
    /// of the corrective turn that follows, if one does.
    pub fn judge(
        &self,
        turn: JsValue,
        corrections: u32,
        max_retries: Option<u32>,
    ) -> Result<JsValue, JsValue> {
        let turn = js_result(to_json(&turn, "turn"))?;
        let max = max_retries.unwrap_or(crate::attempt::DEFAULT_MAX_RETRIES);
        js_result(from_serializable(&self.inner.judged(
            turn,
            corrections,
            max,
        )))
    }

    /// The corrective turn `later` with the time, attempts and usage of
    /// `earlier`; `session_cost`: the agent reports the session's cost so
    /// far (over ACP).
    #[wasm_bindgen(js_name = carryOver)]
    pub fn carry_over(
        &self,
        earlier: JsValue,
        later: JsValue,
        session_cost: bool,
    ) -> Result<JsValue, JsValue> {
        let earlier = js_result(to_json(&earlier, "turn"))?;
        let mut later: Value = js_result(to_json(&later, "turn"))?;
        judge::carry_over(&earlier, &mut later, session_cost);
        js_result(from_serializable(&later))
    }
}
