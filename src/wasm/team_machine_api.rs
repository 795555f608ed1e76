//! The binding of the team's machine (`crate::team::TeamMachine`): the
//! internal `__TeamMachine` that `AgentTeam` (js/api/team.cjs) feeds events and
//! whose actions it executes, in the Node-only module. No decision is made
//! here.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;

use super::js_error::to_js;
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::team::{Event, TeamConfig, TeamMachine};

/// A team conversation's state machine (internal).
#[wasm_bindgen(js_name = __TeamMachine, skip_typescript)]
pub struct TeamMachineJs {
    inner: TeamMachine,
}

fn config(options: &JsValue) -> crate::error::Result<TeamConfig> {
    TeamConfig::read(&to_json(options, "options")?)
}

#[wasm_bindgen(js_class = __TeamMachine)]
impl TeamMachineJs {
    /// `options`: `{ endpoint?, protocol?, model? }` of the team's session
    /// options; members join with `feed({ type: 'addMember', … })`.
    #[wasm_bindgen(constructor)]
    pub fn new(
        team_task: Option<String>,
        cd: String,
        options: JsValue,
        debug: bool,
    ) -> Result<TeamMachineJs, JsValue> {
        let config = js_result(config(&options))?;
        Ok(TeamMachineJs {
            inner: TeamMachine::new(team_task, cd, config, debug),
        })
    }

    /// The team `json` holds; `options` as the constructor's, `members`:
    /// `options.members` (each member's session options, by id).
    #[wasm_bindgen(js_name = fromJSON)]
    pub fn from_json(
        json: JsValue,
        cd: Option<String>,
        options: JsValue,
        members: JsValue,
        debug: bool,
    ) -> Result<TeamMachineJs, JsValue> {
        let read = || {
            let json = to_json(&json, "json")?;
            let config = config(&options)?;
            let members = to_json(&members, "options.members")?;
            let members = members.as_array().map_or(&[][..], Vec::as_slice);
            TeamMachine::restore(&json, cd, config, members, debug)
        };
        Ok(TeamMachineJs {
            inner: js_result(read())?,
        })
    }

    /// Keeps the team's record from now on (`record` actions): `prior`,
    /// the record so far (a team reopened); `secrets`, values never written.
    pub fn record(
        &mut self,
        team_id: String,
        prior: Option<Vec<u8>>,
        secrets: Vec<String>,
        now: f64,
    ) -> Result<(), JsValue> {
        js_result(
            self.inner
                .record(&team_id, prior.as_deref(), &secrets, now.max(0.0) as u64),
        )
    }

    /// Feeds one event (`{ type, … }`) at `now` (the clock, for the
    /// record); returns its answer (a message's index, an ask's id, or
    /// null). Bad input throws `AgentContextError`.
    pub fn feed(&mut self, event: JsValue, now: Option<f64>) -> Result<JsValue, JsValue> {
        let event = js_result(to_json(&event, "event").and_then(Event::read))?;
        let now = now.unwrap_or(0.0).max(0.0) as u64;
        let answer = js_result(self.inner.handle_at(event, now))?;
        js_result(from_serializable(&answer))
    }

    /// The actions since the last call (`[{ type, … }]`); a failure of the
    /// core's carries its `AgentContextError` as `error`.
    pub fn take(&mut self) -> Result<Array, JsValue> {
        let out = Array::new();
        for action in self.inner.take_actions() {
            let value = js_result(from_serializable(&action.to_json()))?;
            if let Some(err) = action.error() {
                Reflect::set(&value, &"error".into(), &to_js(err.clone()))?;
            }
            out.push(&value);
        }
        Ok(out)
    }

    /// `toJSON()`'s data.
    #[wasm_bindgen(js_name = toJSON)]
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(&self.inner.state().to_json()))
    }
}

/// `toJSON()`'s data from a team's record (its lines), read by the core.
#[wasm_bindgen(js_name = __teamRecordJSON, skip_typescript)]
pub fn team_record_json(record: String) -> Result<JsValue, JsValue> {
    let data = js_result(crate::team::team_json(record.as_bytes()))?;
    js_result(from_serializable(&data))
}
