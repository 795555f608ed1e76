//! `planTeamTurn`: one member's turn in a team conversation (the core's
//! `team` module), for `AgentTeam` in Node and for any host that moves the
//! bytes itself, in a browser too.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use super::call_options::CallOptions;
use super::js_input::{self, get, is_plain_object, type_name, JsContext};
use super::json_bridge::from_serializable;
use super::{js_output, js_result};
use crate::error::{AgentContextError, Result as CoreResult};
use crate::prompt::input::{max_bytes_from_number, DEFAULT_MAX_BYTES};
use crate::team::{self, Member, TeamTurn, TurnRequest};

const REQUEST_KEYS: &[&str] = &[
    "teamTask",
    "transcript",
    "member",
    "mark",
    "fresh",
    "message",
];

fn text(target: &JsValue, key: &'static str, path: &str) -> CoreResult<Option<String>> {
    let name = || format!("{path}{key}");
    js_input::optional_string(get(target, &JsValue::from_str(key), name)?, name)
}

fn member(value: JsValue) -> CoreResult<Member> {
    if !is_plain_object(&value) {
        return Err(AgentContextError::invalid(format!(
            "request.member must be an object, got {}",
            type_name(&value)
        )));
    }
    let required = |key: &'static str| -> CoreResult<String> {
        let name = || format!("request.member.{key}");
        js_input::required_string(get(&value, &JsValue::from_str(key), name)?, name)
    };
    let max_bytes = get(&value, &"maxBytes".into(), || {
        "request.member.maxBytes".into()
    })?;
    let max_bytes = match max_bytes.as_f64() {
        _ if max_bytes.is_undefined() || max_bytes.is_null() => DEFAULT_MAX_BYTES,
        Some(n) => max_bytes_from_number(n)
            .map_err(|e| AgentContextError::invalid(format!("request.member.{}", e.message())))?,
        None => {
            return Err(AgentContextError::invalid(format!(
                "request.member.maxBytes must be a finite number >= 0, got {}",
                type_name(&max_bytes)
            )))
        }
    };
    Ok(Member {
        id: required("id")?,
        agent_type: required("agentType")?,
        system_instruction: text(&value, "systemInstruction", "request.member.")?
            .unwrap_or_default(),
        instruction_file_text: text(&value, "instructionFileText", "request.member.")?
            .unwrap_or_default(),
        max_bytes,
    })
}

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

/// Plans one member's turn: the full prompt for it when its session is
/// fresh (`mark` missing or `fresh: true`), else only the messages written
/// since its mark that concern it, in its layout. Returns `{ kind, output,
/// mark, sent, dropped, report }`: `output` is what to send, `mark` the
/// member's mark once it is sent, `sent` and `dropped` transcript indices.
///
/// ```js
/// const turn = planTeamTurn({ teamTask, transcript, member: { id: 'carol', agentType: 'google-gemini' }, mark: 4 });
/// // turn.kind === 'delta'; turn.output.prompt: 'Conversation so far:\n- max: …'
/// ```
#[wasm_bindgen(js_name = planTeamTurn, skip_typescript)] // declared in types.d.ts
pub fn plan_team_turn(request: JsValue, options: Option<Object>) -> Result<JsValue, JsValue> {
    let options = js_result(CallOptions::read_optional(options))?;
    if !is_plain_object(&request) {
        return js_result(Err(AgentContextError::invalid(format!(
            "request must be an object, got {}",
            type_name(&request)
        ))));
    }
    for warning in js_input::unknown_key_warnings(&request, "planTeamTurn's request", REQUEST_KEYS)
    {
        options.warn(&warning)?;
    }
    let read = || -> CoreResult<(String, Member, Option<usize>, bool, String, JsContext)> {
        let team_task = text(&request, "teamTask", "request.")?.unwrap_or_default();
        let member = member(get(&request, &"member".into(), || "request.member".into())?)?;
        let mark = get(&request, &"mark".into(), || "request.mark".into())?;
        let mark = if mark.is_undefined() || mark.is_null() {
            None
        } else {
            Some(js_input::optional_count(mark, 0, || "request.mark".into())?)
        };
        let fresh = get(&request, &"fresh".into(), || "request.fresh".into())?;
        let fresh = js_input::optional_bool(fresh, || "request.fresh".into())?.unwrap_or(false);
        let message = text(&request, "message", "request.")?.unwrap_or_default();
        let transcript = JsContext::named(
            get(&request, &"transcript".into(), || {
                "request.transcript".into()
            })?,
            "transcript",
        )?;
        Ok((team_task, member, mark, fresh, message, transcript))
    };
    let (team_task, member, mark, fresh, message, transcript) = js_result(read())?;
    let turn = js_result(team::plan_turn(
        &TurnRequest {
            fresh,
            ..TurnRequest::new(&team_task, &member, mark, &message)
        },
        &transcript,
    ))?;
    if let Some(warning) = &turn.warning {
        options.warn(warning)?;
    }
    if options.debug_enabled() {
        for decision in &turn.decisions {
            options.debug(&format!("[Debug][Trim] {} {decision}", member.id))?;
        }
        for line in turn.output.send_lines(&member.agent_type) {
            options.debug(&line)?;
        }
    }
    js_result(turn_object(&turn))
}
