//! A member's `fallback`: the agents it goes on with when its own fails.
//! A turn (or the opening of its session) that ends `quota_exceeded`,
//! `auth_error`, `command_not_found` or `upstream_error` — the run's
//! retries spent — runs again on the next agent of the list that can take
//! the member: a new session, sent the full prompt for it (the team's
//! deltas go on from there). The member keeps its id, instructions and
//! budget; its agent type becomes the new agent's, with that entry's
//! session options (`{ agent, options }`), and `fallbackUsed` counts the
//! entries it went through. Bad input (`invalid_params`) is never handed
//! off.

use serde_json::{json, Value};

use crate::error::{AgentContextError, Result};
use crate::error_kind::AgentErrorKind;
use crate::formats::json_read::type_name;

use super::super::members::{
    check_team_family, decide_runs, own_option_names, MemberRecord, Runs, TeamConfig,
};
use super::{Session, TeamMachine};
use crate::team::events::Action;

/// One agent of a member's `fallback`, and its session options.
#[derive(Clone, Debug, PartialEq)]
pub(in crate::team) struct Fallback {
    /// An agent type or an agent definition.
    agent: Value,
    options: Value,
}

/// `own.fallback` (at `path.fallback`): agent types, agent definitions, or
/// `{ agent, options }`.
pub(in crate::team) fn read(own: &Value, path: &str) -> Result<Vec<Fallback>> {
    let list = match own.get("fallback") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{path}.fallback must be an array of agents (or {{ agent, options }}), got {}",
                type_name(other)
            )))
        }
    };
    let mut out = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let at = format!("{path}.fallback[{i}]");
        let (agent, options) = match entry {
            Value::String(s) if !s.is_empty() => (entry.clone(), json!({})),
            Value::Object(o) if o.contains_key("agent") => {
                let options = match o.get("options") {
                    None | Some(Value::Null) => json!({}),
                    Some(v @ Value::Object(_)) => v.clone(),
                    Some(other) => {
                        return Err(AgentContextError::invalid(format!(
                            "{at}.options must be an object, got {}",
                            type_name(other)
                        )))
                    }
                };
                match &o["agent"] {
                    a @ (Value::String(_) | Value::Object(_)) => (a.clone(), options),
                    other => {
                        return Err(AgentContextError::invalid(format!(
                            "{at}.agent must be an agent type or an AgentDefinition, got {}",
                            type_name(other)
                        )))
                    }
                }
            }
            Value::Object(_) => (entry.clone(), json!({})),
            other => {
                return Err(AgentContextError::invalid(format!(
                "{at} must be an agent type, an AgentDefinition or {{ agent, options }}, got {}",
                type_name(other)
            )))
            }
        };
        out.push(Fallback { agent, options });
    }
    Ok(out)
}

/// How a member's sessions run: with its own options, or — a member that
/// went on with `fallback[n - 1]` (restored) — with that entry's.
pub(in crate::team) fn runs(
    record: &mut MemberRecord,
    own: &Value,
    fallback: &[Fallback],
    path: &str,
    config: &TeamConfig,
) -> Result<Runs> {
    let used = record.fallback_used;
    if used == 0 {
        return decide_runs(record, own, path, config);
    }
    let Some(entry) = fallback.get(used - 1) else {
        return Err(AgentContextError::invalid(format!(
            "{path}: member \"{}\" went on with {}, the agent {used} of its fallback: give its fallback again ({path}.fallback)",
            record.id, record.agent_type
        )));
    };
    let runs = decide_runs(
        record,
        &entry.options,
        &format!("{path}.fallback[{}]", used - 1),
        config,
    )?;
    record.session_options = own_option_names(own);
    Ok(runs)
}

/// `member` on agent `agent` (a type or a definition), the rest of who it is kept.
fn on_agent(member: &MemberRecord, agent: &Value) -> Value {
    let mut out = json!({ "id": member.id });
    match agent {
        Value::Object(_) => out["definition"] = agent.clone(),
        _ => out["agentType"] = agent.clone(),
    }
    let optional = [
        (
            "systemInstruction",
            member.system_instruction.as_ref().map(|s| json!(s)),
        ),
        (
            "instructionFileText",
            member.instruction_file_text.as_ref().map(|s| json!(s)),
        ),
        ("protocol", member.protocol.as_ref().map(|s| json!(s))),
        ("maxBytes", member.max_bytes.map(|n| json!(n))),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            out[key] = value;
        }
    }
    out
}

impl TeamMachine {
    /// Member `i`'s running turn failed with `kind`: when that is a
    /// failure another agent may not have and an agent of its `fallback`
    /// can take the member, the turn goes on there (a new session, the full
    /// prompt) and this says true.
    pub(super) fn fail_over(&mut self, i: usize, kind: Option<&str>) -> bool {
        let hands_off =
            |k: &&str| AgentErrorKind::from_name(k).is_some_and(AgentErrorKind::hands_off);
        let Some(kind) = kind.filter(hands_off) else {
            return false;
        };
        if self.closed || self.live[i].turn.is_none() {
            return false;
        }
        let old = self.state.members[i].record.clone();
        for n in old.fallback_used..self.live[i].fallback.len() {
            let next = self.live[i].fallback[n].clone();
            let path = format!("member \"{}\".fallback[{n}]", old.id);
            let taken =
                MemberRecord::read(&on_agent(&old, &next.agent), &path).and_then(|mut record| {
                    let runs = decide_runs(&mut record, &next.options, &path, &self.config)?;
                    let mut takers: Vec<(&str, _)> = (0..self.live.len())
                        .filter(|&j| j != i)
                        .filter_map(|j| {
                            let family = self.live[j].runs.team_family?;
                            Some((self.state.members[j].record.id.as_str(), family))
                        })
                        .collect();
                    if let Some(family) = runs.team_family {
                        takers.push((old.id.as_str(), family));
                    }
                    check_team_family(&self.config, &takers)?;
                    Ok((record, runs))
                });
            let (mut record, runs) = match taken {
                Ok(taken) => taken,
                Err(e) => {
                    self.log(
                        "warn",
                        format!(
                            "[agent-context] {path} could not take the member: {}",
                            e.message()
                        ),
                    );
                    continue;
                }
            };
            record.fallback_used = n + 1;
            record.session_options = old.session_options.clone();
            let to = record.agent_type.clone();
            let seat = &mut self.state.members[i];
            seat.record = record;
            seat.session_id = None;
            seat.mark = None;
            let live = &mut self.live[i];
            live.runs = runs;
            live.session = Session::None;
            live.holds = false;
            live.system_held = false;
            live.flag_instructions = None;
            let Some(turn) = live.turn.as_mut() else {
                return false;
            };
            turn.plan = None;
            turn.bytes = 0;
            turn.system_given = false;
            turn.retried = false;
            turn.handed_off = Some(to.clone());
            let ask = turn.ask.id;
            self.actions.push_back(Action::Handoff {
                member: old.id.clone(),
                ask,
                reason: kind.to_owned(),
                from: old.agent_type.clone(),
                to,
            });
            self.open_new(i);
            return true;
        }
        false
    }
}
