//! A conversation at a glance, from its record: what a store's `list()`
//! shows.

use serde::Serialize;

use super::entry::{Header, Relation};
use super::read::{read_record, ReadOptions, RecordRead};
use super::state::{ConversationState, PartRead};
use crate::agent_output::Usage;
use crate::error::Result;

pub use super::fields::{title_of, usage_of, TITLE_CHARS};

/// Where a session stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not closed, and no turn left unfinished by a writer that is gone.
    Open,
    Closed,
    /// Its last turn never ended and nothing writes it any more.
    Interrupted,
}

/// The session another one came from (a 1.x record's first link).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkedFrom {
    pub session_id: String,
    pub agent_type: String,
    pub relation: Relation,
}

/// What a record is: a conversation, or a team's own record.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    #[default]
    Conversation,
    Team,
}

/// An agent session, named.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    pub session_id: String,
    pub agent_type: String,
}

/// The conversation a fork came from, and the turn it forked at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ForkedFrom {
    pub conversation_id: String,
    pub at_turn: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
}

/// A conversation at a glance, from its record: what a store's `list()`
/// shows, one per record. `sessionId`, `agentType` and `protocol` are its
/// live part's (a 1.x record's, its session's).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub conversation_id: String,
    pub kind: Kind,
    /// The record's format version (`2.0`; `1.x` for a session recorded
    /// before conversations).
    pub version: String,
    pub session_id: String,
    pub agent_type: String,
    /// `acp` or `cli`.
    pub protocol: String,
    pub cd: String,
    /// The first prompt, on one line, shortened.
    pub title: String,
    pub created_at: u64,
    pub updated_at: u64,
    pub turns: u32,
    /// Every turn's usage, summed.
    pub usage: Usage,
    pub status: Status,
    pub live: SessionRef,
    pub parts: Vec<PartRead>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forked_from: Option<ForkedFrom>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linked_from: Option<LinkedFrom>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub member_id: Option<String>,
    /// Lines of the record that are not entries.
    pub skipped: u64,
    /// The 1.x conversation this record goes on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub continues: Option<String>,
}

/// The summary of the record `record`; `writing` says whether a writer
/// still holds it (a turn it has not ended yet is then running, not
/// interrupted). `None` for bytes with no valid header: not a record.
pub fn summarize(record: &[u8], writing: bool) -> Result<Option<SessionSummary>> {
    Ok(summarize_read(
        &read_record(record, ReadOptions::default())?,
        writing,
    ))
}

/// [`summarize`] of what was read already.
pub fn summarize_read(read: &RecordRead<'_>, writing: bool) -> Option<SessionSummary> {
    let state = ConversationState::from_read(read);
    let header = state.header.as_ref()?;
    Some(summary_of(&state, header, writing))
}

/// The summary of a conversation's state.
pub fn summary_of(state: &ConversationState, header: &Header, writing: bool) -> SessionSummary {
    let id = header.id().to_owned();
    let live = state.live();
    let v1 = header.is_v1();
    let agent_type = match (state.team, v1) {
        (true, _) => header
            .agent_type
            .clone()
            .unwrap_or_else(|| super::entry::TEAM_AGENT_TYPE.to_owned()),
        _ => live
            .map(|p| p.agent_type.clone())
            .or_else(|| header.agent_type.clone())
            .unwrap_or_default(),
    };
    let session_id = match (state.team || v1, live) {
        (true, _) => header.session_id.clone().unwrap_or_else(|| id.clone()),
        (false, Some(p)) => p.session_id.clone(),
        (false, None) => String::new(),
    };
    let parts: Vec<PartRead> = if state.team {
        Vec::new()
    } else {
        state.parts.clone()
    };
    let linked_from = state
        .links
        .iter()
        .find(|(relation, _, _)| relation.is_from())
        .map(|(relation, session_id, agent_type)| LinkedFrom {
            session_id: session_id.clone(),
            agent_type: agent_type.clone(),
            relation: *relation,
        });
    let status = match (state.closed, state.open_turn.is_some() && !writing) {
        (true, _) => Status::Closed,
        (false, true) => Status::Interrupted,
        (false, false) => Status::Open,
    };
    SessionSummary {
        conversation_id: id.clone(),
        kind: if state.team {
            Kind::Team
        } else {
            Kind::Conversation
        },
        version: header.version.clone(),
        live: SessionRef {
            session_id: session_id.clone(),
            agent_type: agent_type.clone(),
        },
        session_id,
        agent_type,
        protocol: live.map(|p| p.protocol.clone()).unwrap_or_default(),
        cd: live
            .or(state.parts.first())
            .map(|p| p.cd.clone())
            .unwrap_or_default(),
        title: state.title.clone(),
        created_at: state.created_at,
        updated_at: state.updated_at,
        turns: state.turns,
        usage: state.usage.clone(),
        status,
        parts,
        forked_from: state.forked_from.as_ref().map(|f| ForkedFrom {
            conversation_id: f.conversation_id.clone(),
            at_turn: f.at_turn,
            session_id: f.session_id.clone(),
        }),
        linked_from,
        team_id: if state.team {
            Some(id)
        } else {
            state.team_id.clone()
        },
        member_id: state.member_id.clone(),
        skipped: state.skipped,
        continues: header.continues.clone(),
    }
}
