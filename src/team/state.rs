//! The team as data: what `toJSON` gives and `fromJSON` reads. Version 3
//! names each member's conversation; version 2 names each member's own
//! session options; versions 1 and 2 are still read.

use serde_json::{json, Map, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};
use crate::prompt::input::ContextMessage;

use super::members::{MemberRecord, SESSION_OPTIONS};

/// The version `toJSON` writes.
pub const JSON_VERSION: u64 = 3;

/// A member and where its session is.
#[derive(Clone, Debug, PartialEq)]
pub struct Seat {
    pub record: MemberRecord,
    /// The session it last had, to resume.
    pub session_id: Option<String>,
    /// Its conversation (with a store: its sessions, one record).
    pub conversation_id: Option<String>,
    /// How many transcript messages its session has been through; `None`
    /// before its first turn, or once its session was lost.
    pub mark: Option<usize>,
}

/// The team task, the working folder, the members and the transcript.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TeamState {
    pub team_task: Option<String>,
    pub cd: String,
    pub members: Vec<Seat>,
    pub transcript: Vec<ContextMessage>,
}

/// `{ from, to?, content }`.
pub fn message_json(m: &ContextMessage) -> Value {
    let mut out = Map::new();
    out.insert("from".into(), json!(m.from));
    if let Some(to) = &m.to {
        out.insert("to".into(), json!(to));
    }
    out.insert("content".into(), json!(m.content));
    Value::Object(out)
}

/// Reads `{ from, to?, content }` at `path`.
pub fn read_message(value: &Value, path: &str) -> Result<ContextMessage> {
    let o = Obj::new(value, path)?;
    let from = match o.get("from") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        other => {
            return Err(AgentContextError::invalid(format!(
                "{} must be a non-empty string, got {}",
                o.path_of("from"),
                other.map_or("undefined", type_name)
            )))
        }
    };
    Ok(ContextMessage {
        from,
        to: o.opt_str("to")?.map(str::to_owned),
        content: o.req_str("content")?.to_owned(),
    })
}

impl Seat {
    /// `{ id, agentType, definition?, systemInstruction?, instructionFileText?,
    /// protocol?, maxBytes?, sessionOptions?, sessionId?, mark }`.
    pub fn to_json(&self) -> Value {
        let r = &self.record;
        let mut out = Map::new();
        out.insert("id".into(), json!(r.id));
        out.insert("agentType".into(), json!(r.agent_type));
        let optional = [
            ("definition", r.definition.clone()),
            (
                "systemInstruction",
                r.system_instruction.as_ref().map(|s| json!(s)),
            ),
            (
                "instructionFileText",
                r.instruction_file_text.as_ref().map(|s| json!(s)),
            ),
            ("protocol", r.protocol.as_ref().map(|s| json!(s))),
            ("maxBytes", r.max_bytes.map(|n| json!(n))),
            (
                "sessionOptions",
                Some(json!(r.session_options)).filter(|_| !r.session_options.is_empty()),
            ),
            ("sessionId", self.session_id.as_ref().map(|s| json!(s))),
            (
                "conversationId",
                self.conversation_id.as_ref().map(|s| json!(s)),
            ),
            (
                "fallbackUsed",
                Some(json!(r.fallback_used)).filter(|_| r.fallback_used > 0),
            ),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                out.insert(key.into(), value);
            }
        }
        out.insert("mark".into(), json!(self.mark));
        Value::Object(out)
    }
}

impl TeamState {
    /// `{ version: 3, teamTask, cd, members, transcript }`.
    pub fn to_json(&self) -> Value {
        json!({
            "version": JSON_VERSION,
            "teamTask": self.team_task,
            "cd": self.cd,
            "members": self.members.iter().map(Seat::to_json).collect::<Vec<_>>(),
            "transcript": self.transcript.iter().map(message_json).collect::<Vec<_>>(),
        })
    }

    /// Reads what `to_json` wrote (version 1, 2 or 3), naming the field of
    /// any problem (`json.members[0].mark …`).
    pub fn read(value: &Value) -> Result<TeamState> {
        let o = Obj::new(value, "json")?;
        match o.get("version").and_then(Value::as_u64) {
            Some(1 | 2) | Some(JSON_VERSION) => {}
            _ => {
                return Err(AgentContextError::invalid(format!(
                    "json.version must be {JSON_VERSION} (or 1 or 2, still read), got {}",
                    o.get("version")
                        .map_or("undefined".to_owned(), |v| v.to_string())
                )))
            }
        }
        let transcript = o
            .req_array("transcript")?
            .iter()
            .enumerate()
            .map(|(i, m)| read_message(m, &format!("json.transcript[{i}]")))
            .collect::<Result<Vec<_>>>()?;
        let mut members = Vec::new();
        for (i, m) in o.req_array("members")?.iter().enumerate() {
            let path = format!("json.members[{i}]");
            let mut record = MemberRecord::read(m, &path)?;
            let s = Obj::new(m, &path)?;
            record.session_options = s
                .opt_str_list("sessionOptions")?
                .unwrap_or_default()
                .into_iter()
                .map(|name| match SESSION_OPTIONS.contains(&name) {
                    true => Ok(name.to_owned()),
                    false => Err(AgentContextError::invalid(format!(
                        "{path}.sessionOptions may name {}, got \"{name}\"",
                        SESSION_OPTIONS.join(", ")
                    ))),
                })
                .collect::<Result<Vec<_>>>()?;
            let mark = match s.get("mark") {
                None => None,
                Some(v) => match v.as_u64().and_then(|n| usize::try_from(n).ok()) {
                    Some(n) if n <= transcript.len() => Some(n),
                    _ => {
                        return Err(AgentContextError::invalid(format!(
                            "{path}.mark must be a whole number up to the transcript's length ({}), got {v}",
                            transcript.len()
                        )))
                    }
                },
            };
            record.fallback_used = match s.get("fallbackUsed") {
                None => 0,
                Some(v) => v
                    .as_u64()
                    .and_then(|n| usize::try_from(n).ok())
                    .ok_or_else(|| {
                        AgentContextError::invalid(format!(
                            "{path}.fallbackUsed must be a whole number, got {v}"
                        ))
                    })?,
            };
            members.push(Seat {
                record,
                session_id: s.opt_str("sessionId")?.map(str::to_owned),
                conversation_id: s.opt_str("conversationId")?.map(str::to_owned),
                mark,
            });
        }
        Ok(TeamState {
            team_task: o.opt_str("teamTask")?.map(str::to_owned),
            cd: o.opt_str("cd")?.unwrap_or_default().to_owned(),
            members,
            transcript,
        })
    }
}
