//! A team's own record: the team kept in a session store beside its
//! members' sessions, so that `AgentTeam.open(store, teamId)` brings it back
//! after a restart. It is a record of the session-record format (one JSON
//! entry a line, `seq` and `at` first) under the team's id, whose header
//! names the agent type [`TEAM_AGENT_TYPE`]; its entries are
//!
//! - `team` (`teamTask?`, `cd`): first, once;
//! - `message` (`from`, `to?`, `content`): a message joined the transcript;
//! - `member` (`member`: the member as `toJSON()` gives it — who it is, its
//!   session id, its mark): a member joined, or its session or mark
//!   changed (the last one of a member's id is the one that holds);
//! - `closed`: the team was closed.
//!
//! [`TeamRecorder`] writes what changed since it last wrote, comparing the
//! team's state with what it wrote (the machine hands it the state after
//! each event); [`team_json`] reads a record back into `toJSON()`'s data.

use serde_json::{json, Map, Value};

use crate::error::{AgentContextError, Result};
use crate::record::{read_record, Entry, Header, ReadOptions, Recorder};

use super::state::{TeamState, JSON_VERSION};

/// The agent type a team's record names in its header.
pub use crate::record::TEAM_AGENT_TYPE;

/// Writes a team's record (sans-IO: it returns the lines to append).
pub struct TeamRecorder {
    recorder: Recorder,
    team_id: String,
    created_at: u64,
    /// The header is written (or the record went on from one).
    headed: bool,
    /// The `team` entry is written.
    started: bool,
    /// Transcript messages written.
    messages: usize,
    /// Each member as last written.
    members: Vec<Value>,
}

impl std::fmt::Debug for TeamRecorder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TeamRecorder")
            .field("team_id", &self.team_id)
            .field("messages", &self.messages)
            .finish_non_exhaustive()
    }
}

impl TeamRecorder {
    /// The recorder of team `team_id`: `prior`, the record so far (a team
    /// reopened); `secrets`, values never written (the endpoint's key, the
    /// environments' values).
    pub fn new(
        team_id: &str,
        prior: Option<&[u8]>,
        secrets: &[String],
        now: u64,
    ) -> Result<TeamRecorder> {
        let (recorder, known) = match prior {
            Some(bytes) => {
                let (recorder, _) = Recorder::continuing(bytes, now)?;
                (recorder, Some(team_json(bytes)?))
            }
            None => (Recorder::new(), None),
        };
        let members = known
            .as_ref()
            .and_then(|k| k.get("members"))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let messages = known
            .as_ref()
            .and_then(|k| k.get("transcript"))
            .and_then(Value::as_array)
            .map_or(0, Vec::len);
        Ok(TeamRecorder {
            recorder: recorder.with_secrets(secrets.iter().map(String::as_str)),
            team_id: team_id.to_owned(),
            created_at: now,
            headed: prior.is_some(),
            started: known.is_some(),
            messages,
            members,
        })
    }

    /// The team's id (its record's).
    pub fn team_id(&self) -> &str {
        &self.team_id
    }

    /// The header (the first time) and the lines that write what changed
    /// in `state` since the last call; `closed`: the team was closed.
    pub fn changes(
        &mut self,
        state: &TeamState,
        closed: bool,
        now: u64,
    ) -> (Option<String>, String) {
        let mut out = String::new();
        if !self.started {
            self.started = true;
            let team = Entry::Team {
                team_task: state.team_task.clone(),
                cd: state.cd.clone(),
            };
            out.push_str(&self.recorder.team_entry(now, team));
        }
        // Messages first: a member's mark never counts a message not written.
        for m in state.transcript.iter().skip(self.messages) {
            let message = Entry::Message {
                from: m.from.clone(),
                to: m.to.clone(),
                content: m.content.clone(),
            };
            out.push_str(&self.recorder.team_entry(now, message));
        }
        self.messages = self.messages.max(state.transcript.len());
        for seat in &state.members {
            let member = seat.to_json();
            let at = self.members.iter().position(|m| m["id"] == member["id"]);
            if at.is_some_and(|i| self.members[i] == member) {
                continue;
            }
            match at {
                Some(i) => self.members[i] = member.clone(),
                None => self.members.push(member.clone()),
            }
            out.push_str(&self.recorder.team_entry(now, Entry::Member { member }));
        }
        if closed {
            out.push_str(&self.recorder.closed(now));
        }
        let header = (!self.headed && !out.is_empty()).then(|| {
            self.headed = true;
            Header::new(&self.team_id, self.created_at).line()
        });
        (header, out)
    }
}

/// `toJSON()`'s data from a team's record (`{ version, teamTask, cd,
/// members, transcript }`); a record with no `team` entry is
/// `INVALID_INPUT`.
pub fn team_json(record: &[u8]) -> Result<Value> {
    let read = read_record(record, ReadOptions::default())?;
    let mut team: Option<(Value, Value)> = None;
    let mut members: Vec<Value> = Vec::new();
    let mut transcript = Vec::new();
    for line in &read.lines {
        let parse = || serde_json::from_slice::<Value>(line.text).unwrap_or(Value::Null);
        match &*line.kind {
            "team" if team.is_none() => {
                let v = parse();
                team = Some((v["teamTask"].clone(), v["cd"].clone()));
            }
            "message" => {
                let v = parse();
                let mut m = Map::new();
                for key in ["from", "to", "content"] {
                    if let Some(value) = v.get(key).filter(|v| v.is_string()) {
                        m.insert(key.into(), value.clone());
                    }
                }
                transcript.push(Value::Object(m));
            }
            "member" => {
                let member = parse()["member"].clone();
                match members.iter().position(|m| m["id"] == member["id"]) {
                    Some(i) => members[i] = member,
                    None => members.push(member),
                }
            }
            _ => {}
        }
    }
    let Some((team_task, cd)) = team else {
        return Err(AgentContextError::invalid(
            "the record is not a team's: it has no `team` entry (AgentTeam.open takes the id of a team recorded with a store)",
        ));
    };
    // What is read back is checked as `fromJSON` checks it.
    let data = json!({
        "version": JSON_VERSION,
        "teamTask": team_task,
        "cd": cd,
        "members": members,
        "transcript": transcript,
    });
    Ok(TeamState::read(&data)?.to_json())
}
