//! A member's `fallback`: the agents its conversation goes on with when
//! its own fails. Which agent is next, and when, is the conversation's
//! (`crate::conversation`): a member's session is a conversation given the
//! entries of the fallback after the one it runs. What is the team's is how
//! each entry runs for the member — its session options, its endpoint (the
//! team's, its own or none: an entry that cannot take the member is left
//! out, with a warning, when its session opens) and the instructions its
//! layout keeps apart — and, once the conversation went on with an entry,
//! the member on that agent: its agent type, its runs, `fallbackUsed`.

use serde_json::{json, Value};

use crate::error::{AgentContextError, Result};

use super::super::members::{
    check_team_family, decide_runs, own_option_names, MemberRecord, Runs, TeamConfig,
};
use super::{Session, TeamMachine};
pub(in crate::team) use crate::conversation::fallback::{read, Fallback};

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
    /// Member `i` on entry `n` of its fallback (0-based), as it would run
    /// there, or why it cannot.
    fn entry_runs(&self, i: usize, n: usize) -> Result<(MemberRecord, Runs)> {
        let old = &self.state.members[i].record;
        let next = &self.live[i].fallback[n];
        let path = format!("member \"{}\".fallback[{n}]", old.id);
        let mut record = MemberRecord::read(&on_agent(old, &next.agent), &path)?;
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
        record.fallback_used = n + 1;
        record.session_options.clone_from(&old.session_options);
        Ok((record, runs))
    }

    /// The entries of member `i`'s fallback after the one it runs, each as
    /// its session would open (`{ fallback, agent, protocol, endpoint,
    /// systemPrompt }`); one that cannot take the member is left out, said
    /// in a warning.
    pub(super) fn next_agents(&mut self, i: usize) -> Vec<Value> {
        let mut out = Vec::new();
        let from = self.state.members[i].record.fallback_used;
        for n in from..self.live[i].fallback.len() {
            match self.entry_runs(i, n) {
                Ok((record, runs)) => {
                    let agent = record
                        .definition
                        .clone()
                        .unwrap_or_else(|| json!(record.agent_type));
                    out.push(json!({
                        "fallback": n + 1,
                        "agent": agent,
                        "protocol": runs.protocol,
                        "endpoint": runs.endpoint.as_str(),
                        "systemPrompt": self.instructions_apart_of(&record),
                    }));
                }
                Err(e) => {
                    let id = self.state.members[i].record.id.clone();
                    self.log(
                        "warn",
                        format!(
                            "[agent-context] member \"{id}\".fallback[{n}] could not take the member: {}",
                            e.message()
                        ),
                    );
                }
            }
        }
        out
    }

    /// Member `i`'s conversation went on with entry `entry` of its fallback
    /// (1-based, as `fallbackUsed`): the member is on that agent now, its
    /// session fresh (it holds nothing of the member's view yet). False when
    /// the entry cannot be read.
    pub(super) fn moved_to(&mut self, i: usize, entry: usize) -> bool {
        let Some(n) = entry
            .checked_sub(1)
            .filter(|&n| n < self.live[i].fallback.len())
        else {
            return false;
        };
        let Ok((record, runs)) = self.entry_runs(i, n) else {
            return false;
        };
        let flag = self.instructions_apart_of(&record);
        let seat = &mut self.state.members[i];
        seat.record = record;
        seat.mark = None;
        let live = &mut self.live[i];
        live.runs = runs;
        live.session = Session::Open;
        live.holds = false;
        // The new agent's session took the instructions its layout keeps apart.
        live.system_held = true;
        live.flag_instructions = flag;
        if let Some(turn) = live.turn.as_mut() {
            turn.handed_off = Some(seat.record.agent_type.clone());
        }
        true
    }
}
