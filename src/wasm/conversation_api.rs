//! The binding of the conversation's machine (`crate::conversation`): the
//! internal `__Conversation` that a session (js/api/session.cjs) feeds
//! events and whose actions it executes, in the Node-only module. No
//! decision is made here.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::json_bridge::{from_serializable, to_json};
use super::record_api::reader::conversation_page_js;
use super::{js_result, ms};
use crate::conversation::{fallback, prepare, Conversation, Event, Setup};
use crate::error::Result;
use crate::formats::json_read::Obj;
use crate::record::ReadOptions;

/// One conversation's machine (internal).
#[wasm_bindgen(js_name = __Conversation, skip_typescript)]
pub struct ConversationJs {
    inner: Conversation,
}

/// `{ id, createdAt, agent, options, rebuild?, hostCarries?, teamId?,
/// memberId? }`; the fallback is `options.fallback`.
fn setup(value: &JsValue) -> Result<Setup> {
    let value = to_json(value, "setup")?;
    let o = Obj::new(&value, "setup")?;
    let options = o.get("options").cloned().unwrap_or(Value::Null);
    let team = o.opt_str("teamId")?.map(str::to_owned);
    let member = o.opt_str("memberId")?.map(str::to_owned);
    Ok(Setup {
        id: o.opt_str("id")?.unwrap_or_default().to_owned(),
        created_at: o.get("createdAt").and_then(Value::as_f64).map_or(0, |t| t.max(0.0) as u64),
        agent: o.get("agent").cloned().unwrap_or(Value::Null),
        fallback: fallback::read(&options, "options")?,
        options,
        rebuild: o.opt_bool("rebuild")?.unwrap_or(false),
        host_carries: o.opt_bool("hostCarries")?.unwrap_or(false),
        team: team.zip(member),
    })
}

#[wasm_bindgen(js_class = __Conversation)]
impl ConversationJs {
    /// A new conversation (see `setup`).
    #[wasm_bindgen(constructor)]
    pub fn new(setup_value: JsValue) -> std::result::Result<ConversationJs, JsValue> {
        Ok(ConversationJs {
            inner: Conversation::new(js_result(setup(&setup_value))?),
        })
    }

    /// A conversation reopened from its record's bytes; `asked`, the agent
    /// session the app asked for (`SESSION_MOVED` when it is not the live
    /// end).
    pub fn restore(
        setup_value: JsValue,
        record: Vec<u8>,
        asked: Option<String>,
        now: f64,
    ) -> std::result::Result<ConversationJs, JsValue> {
        let setup = js_result(setup(&setup_value))?;
        let inner = Conversation::restore(setup, record, asked.as_deref(), ms(now));
        Ok(ConversationJs {
            inner: js_result(inner)?,
        })
    }

    /// A fork of conversation `parentId` (its record `parent`) after turn
    /// `atTurn`: a new conversation (see `setup`: `options` the parent's)
    /// whose record opens with the parent's lines; `given`, the fork's own
    /// options; `otherAgent`, it forks to another agent; `own`: the agent
    /// forked its own session.
    #[allow(clippy::too_many_arguments)]
    pub fn forked(
        setup_value: JsValue,
        parent: &[u8],
        at_turn: u32,
        parent_id: String,
        parent_session: Option<String>,
        given: JsValue,
        other_agent: bool,
        own: bool,
    ) -> std::result::Result<ConversationJs, JsValue> {
        let made = || -> Result<Conversation> {
            let setup = setup(&setup_value)?;
            let record = crate::conversation::fork_record(
                parent,
                at_turn,
                &setup.id,
                setup.created_at,
                &parent_id,
                parent_session.as_deref(),
            )?;
            let given = match given.is_undefined() || given.is_null() {
                true => Value::Null,
                false => to_json(&given, "options.options")?,
            };
            Conversation::forked(setup, record.into_bytes(), own, &given, other_agent)
        };
        Ok(ConversationJs {
            inner: js_result(made())?,
        })
    }

    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.inner.id().to_owned()
    }

    /// The header line of the conversation's record.
    #[wasm_bindgen(getter, js_name = headerLine)]
    pub fn header_line(&self) -> String {
        self.inner.header_line()
    }

    /// The turns recorded so far.
    #[wasm_bindgen(getter)]
    pub fn turns(&self) -> u32 {
        self.inner.turns()
    }

    /// The record as it stands (its header first).
    #[wasm_bindgen(getter)]
    pub fn record(&self) -> Vec<u8> {
        self.inner.record().to_vec()
    }

    /// `{ agent, agentType, fallbackIndex }` of the live part (undefined
    /// before one opened).
    pub fn live(&self) -> std::result::Result<JsValue, JsValue> {
        match self.inner.live_agent() {
            Some((agent, agent_type)) => js_result(from_serializable(&serde_json::json!({
                "agent": agent, "agentType": agent_type,
                "fallbackIndex": self.inner.live_fallback_index(),
            }))),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// An event (`{ type, … }`, see `crate::conversation::Event`).
    pub fn input(&mut self, event: JsValue, now: f64) -> std::result::Result<(), JsValue> {
        let event = js_result(to_json(&event, "event").and_then(|e| Event::read(&e)))?;
        js_result(self.inner.handle(event, ms(now)))
    }

    /// Lines an agent session of the conversation recorded.
    pub fn lines(&mut self, lines: &str) {
        self.inner.lines(lines.as_bytes());
    }

    /// Every action, in order.
    pub fn take(&mut self) -> std::result::Result<JsValue, JsValue> {
        let mut list = Vec::new();
        while let Some(action) = self.inner.poll() {
            list.push(action.to_json());
        }
        js_result(from_serializable(&list))
    }

    /// `request` made ready for the live part: `{ blocks, recordAs?,
    /// context?, warnings? }` (a bad request throws `INVALID_INPUT`).
    pub fn prepare(&self, request: JsValue) -> std::result::Result<JsValue, JsValue> {
        let prepared = || -> Result<JsValue> {
            let (agent, agent_type) = self
                .inner
                .live_agent()
                .ok_or_else(|| crate::error::AgentContextError::invalid("the conversation has no agent session open"))?;
            let carried = self.inner.carried()?;
            let prepared = prepare(&request, agent_type, agent.is_object(), carried.as_ref())?;
            from_serializable(&prepared)
        };
        js_result(prepared())
    }

    /// `{ entries, cursor, skipped }` of the conversation after `after`, at
    /// most `limit` (`options` as `readConversation`'s).
    pub fn history(&self, options: JsValue) -> std::result::Result<JsValue, JsValue> {
        let read = || -> Result<JsValue> {
            let options = ReadOptions::read(&options)?;
            conversation_page_js(self.inner.record(), options, self.inner.page(options)?)
        };
        js_result(read())
    }
}
