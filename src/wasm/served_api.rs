//! The binding of a served conversation (internal, for `js/serve/`): its
//! numbered updates (`__ServedLog`), and what its agent answers beside
//! them (`__servedInitialize`, `__servedListPage`, `__servedPromptOutcome`).
//! Decisions are `crate::serve`'s.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::error::AgentContextError;
use crate::serve::served_agent;
use crate::serve::served_log::{Item, ServedLog};

fn items(items: &[Item]) -> Result<JsValue, JsValue> {
    js_result(from_serializable(&items))
}

fn json(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    js_result(to_json(value, what))
}

/// One served conversation's updates, numbered (internal).
#[wasm_bindgen(js_name = __ServedLog, skip_typescript)]
pub struct ServedLogJs(ServedLog);

#[wasm_bindgen(js_class = __ServedLog)]
impl ServedLogJs {
    #[wasm_bindgen(constructor)]
    pub fn new(conversation_id: String, epoch: String, session_id: Option<String>, agent_type: String) -> ServedLogJs {
        ServedLogJs(ServedLog::new(&conversation_id, &epoch, session_id.as_deref(), &agent_type))
    }

    #[wasm_bindgen(getter)]
    pub fn seq(&self) -> f64 {
        self.0.seq() as f64
    }

    #[wasm_bindgen(getter)]
    pub fn turn(&self) -> f64 {
        self.0.turn() as f64
    }

    #[wasm_bindgen(getter, js_name = recordCursor)]
    pub fn record_cursor(&self) -> f64 {
        self.0.record_cursor() as f64
    }

    /// `{ epoch, seq, turn, sessionId?, agentType }`.
    pub fn state(&self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(&self.0.state()))
    }

    #[wasm_bindgen(js_name = beginTurn)]
    pub fn begin_turn(&mut self, turn: f64, blocks: JsValue, prompt_id: Option<String>) -> Result<JsValue, JsValue> {
        let blocks = json(&blocks, "blocks")?;
        items(self.0.begin_turn(turn as u64, &blocks, prompt_id.as_deref()))
    }

    pub fn event(&mut self, event: JsValue) -> Result<JsValue, JsValue> {
        let event = json(&event, "event")?;
        items(self.0.event(&event))
    }

    pub fn outside(&mut self, update: JsValue) -> Result<JsValue, JsValue> {
        let update = json(&update, "update")?;
        items(self.0.outside(&update))
    }

    pub fn part(&mut self, part: JsValue) -> Result<JsValue, JsValue> {
        let part = json(&part, "part")?;
        items(self.0.part(&part))
    }

    #[wasm_bindgen(js_name = endTurn)]
    pub fn end_turn(&mut self, turn: JsValue, cursor: f64) -> Result<JsValue, JsValue> {
        let turn = json(&turn, "turn")?;
        items(self.0.end_turn(&turn, cursor as u64))
    }

    /// The record's entries (`readConversation`'s), up to `cursor`.
    pub fn record(&mut self, entries: JsValue, cursor: f64) -> Result<JsValue, JsValue> {
        let entries = match json(&entries, "entries")? {
            Value::Array(list) => list,
            _ => return Err(super::js_error::to_js(AgentContextError::invalid("entries must be an array"))),
        };
        items(self.0.record(&entries, cursor as u64))
    }

    /// `{ items, reset }` for a client that loads (`resume` false) or resumes.
    pub fn replay(&self, after: Option<f64>, epoch: Option<String>, resume: bool) -> Result<JsValue, JsValue> {
        let r = self.0.replay(after.map(|a| a.max(0.0) as u64), epoch.as_deref(), resume);
        js_result(from_serializable(&serde_json::json!({ "items": r.items, "reset": r.reset })))
    }
}

/// `initialize`'s result (internal).
#[wasm_bindgen(js_name = __servedInitialize, skip_typescript)]
pub fn served_initialize(requested: Option<f64>, cd: String) -> Result<JsValue, JsValue> {
    js_result(from_serializable(&served_agent::initialize_result(requested.map(|v| v as u64), &cd)))
}

/// A page of `session/list` (internal); a bad cursor throws `INVALID_INPUT`.
#[wasm_bindgen(js_name = __servedListPage, skip_typescript)]
pub fn served_list_page(summaries: JsValue, cwd: Option<String>, cursor: Option<String>) -> Result<JsValue, JsValue> {
    let summaries = match json(&summaries, "summaries")? {
        Value::Array(list) => list,
        _ => Vec::new(),
    };
    let page = served_agent::list_page(&summaries, cwd.as_deref(), cursor.as_deref()).map_err(AgentContextError::invalid);
    js_result(page.and_then(|p| from_serializable(&p)))
}

/// `{ result }` or `{ error }` for `session/prompt` from a turn (internal).
#[wasm_bindgen(js_name = __servedPromptOutcome, skip_typescript)]
pub fn served_prompt_outcome(turn: JsValue, state: JsValue) -> Result<JsValue, JsValue> {
    let (turn, state) = (json(&turn, "turn")?, json(&state, "state")?);
    let outcome = match served_agent::prompt_outcome(&turn, &state) {
        Ok(result) => serde_json::json!({ "result": result }),
        Err(error) => serde_json::json!({ "error": error }),
    };
    js_result(from_serializable(&outcome))
}
