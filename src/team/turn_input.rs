//! `planTeamTurn`'s request read from the caller's value, and the turn it
//! plans, with the lines a debugging caller logs.

use crate::error::Result;
use crate::formats::host_value::{self as host, HostValue};
use crate::prompt::host_input::{max_bytes, MessageArray};

use super::turn::{plan_turn, Member, TeamTurn, TurnRequest};

/// The keys `planTeamTurn`'s request knows.
pub const REQUEST_KEYS: &[&str] = &[
    "teamTask",
    "transcript",
    "member",
    "mark",
    "fresh",
    "message",
];

/// One turn's request, its transcript read on demand.
pub struct TurnInput<V: HostValue> {
    team_task: String,
    pub member: Member,
    mark: Option<usize>,
    fresh: bool,
    message: String,
    transcript: MessageArray<V>,
}

fn text<V: HostValue>(target: &V, prefix: &str, key: &str) -> Result<Option<String>> {
    let path = || format!("{prefix}{key}");
    host::optional_string(host::field(target, prefix, key)?, &path)
}

fn member<V: HostValue>(value: V) -> Result<Member> {
    let value = host::object(&value, "request.member", "an object")?;
    let prefix = "request.member.";
    let required = |key: &str| -> Result<String> {
        host::required_string(host::field(value, prefix, key)?, &|| {
            format!("{prefix}{key}")
        })
    };
    Ok(Member {
        id: required("id")?,
        agent_type: required("agentType")?,
        system_instruction: text(value, prefix, "systemInstruction")?.unwrap_or_default(),
        instruction_file_text: text(value, prefix, "instructionFileText")?.unwrap_or_default(),
        max_bytes: max_bytes(&host::field(value, prefix, "maxBytes")?, prefix, true)?,
    })
}

impl<V: HostValue> TurnInput<V> {
    /// Reads `{ teamTask?, transcript, member, mark?, fresh?, message? }`.
    pub fn read(request: &V) -> Result<TurnInput<V>> {
        host::object(request, "request", "an object")?;
        let prefix = "request.";
        let team_task = text(request, prefix, "teamTask")?.unwrap_or_default();
        let member = member(host::field(request, prefix, "member")?)?;
        let mark = host::field(request, prefix, "mark")?;
        let mark = match host::is_absent(&mark) {
            true => None,
            false => Some(host::optional_count(mark, 0, &|| "request.mark".into())?),
        };
        let fresh = host::field(request, prefix, "fresh")?;
        let fresh = host::optional_bool(fresh, &|| "request.fresh".into())?.unwrap_or(false);
        let message = text(request, prefix, "message")?.unwrap_or_default();
        let transcript = host::field(request, prefix, "transcript")?;
        Ok(TurnInput {
            team_task,
            member,
            mark,
            fresh,
            message,
            transcript: MessageArray::new(transcript, "transcript")?,
        })
    }

    /// The member's turn.
    pub fn plan(&self) -> Result<TeamTurn> {
        let request = TurnRequest {
            fresh: self.fresh,
            ..TurnRequest::new(&self.team_task, &self.member, self.mark, &self.message)
        };
        plan_turn(&request, &self.transcript)
    }

    /// The lines a debugging caller logs of `turn`: its trims, then what is sent.
    pub fn debug_lines(&self, turn: &TeamTurn) -> Vec<String> {
        let id = &self.member.id;
        let trims = turn
            .decisions
            .iter()
            .map(|d| format!("[Debug][Trim] {id} {d}"));
        trims
            .chain(turn.output.send_lines(&self.member.agent_type))
            .collect()
    }
}
