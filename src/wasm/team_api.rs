//! `planTeamTurn`: one member's turn in a team conversation (the core's
//! `team` module), for `AgentTeam` in Node and for any host that moves the
//! bytes itself, in a browser too.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::call_options::CallOptions;
use super::json_bridge::from_serializable;
use super::{js_output, js_result};
use crate::error::Result as CoreResult;
use crate::formats::host_value as host;
use crate::team::{TeamTurn, TurnInput, REQUEST_KEYS};

fn set(target: &Object, key: &str, value: &JsValue) {
    // Defining a property on a fresh ordinary object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

fn indices(list: &[usize]) -> JsValue {
    list.iter()
        .map(|&i| JsValue::from_f64(i as f64))
        .collect::<Array>()
        .into()
}

fn turn_object(turn: &TeamTurn) -> CoreResult<JsValue> {
    let obj = Object::new();
    set(&obj, "kind", &JsValue::from_str(turn.kind.as_str()));
    set(&obj, "output", &js_output::assembler_output(&turn.output));
    set(&obj, "mark", &JsValue::from_f64(turn.mark as f64));
    set(&obj, "sent", &indices(&turn.sent));
    set(&obj, "dropped", &indices(&turn.dropped));
    set(&obj, "report", &from_serializable(&turn.report)?);
    Ok(obj.into())
}

/// Plans one member's turn.
#[wasm_bindgen(js_name = planTeamTurn, skip_typescript)] // declared in types.d.ts
pub fn plan_team_turn(request: JsValue, options: Option<Object>) -> Result<JsValue, JsValue> {
    let options = js_result(CallOptions::read_optional(options))?;
    for warning in host::unknown_key_warnings(&request, "planTeamTurn's request", REQUEST_KEYS) {
        options.warn(&warning)?;
    }
    let input = js_result(TurnInput::read(&request))?;
    let turn = js_result(input.plan())?;
    if let Some(warning) = &turn.warning {
        options.warn(warning)?;
    }
    if options.debug_enabled() {
        for line in input.debug_lines(&turn) {
            options.debug(&line)?;
        }
    }
    js_result(turn_object(&turn))
}
