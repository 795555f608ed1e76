//! The record's entries and its header line: the types, and the encoder
//! (an entry → one JSON line). No type here has a field that could carry an
//! endpoint key, an environment value or a header: what the record holds
//! is named field by field.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::agent_output::Usage;

/// The format's name, in the header line.
pub const FORMAT: &str = "agent-context/session-record";
/// The format's version, `major.minor`: a reader takes every minor version
/// of every major one up to its own (the kinds it does not know are kept
/// as they are). 2.0 keeps one record per conversation (`part` entries
/// where the agent changes); 1.x, one per agent session, is read, never
/// written.
pub const VERSION: &str = "2.0";
/// The major part of [`VERSION`].
pub const MAJOR: u64 = 2;

/// The agent type a team's own record is listed with.
pub const TEAM_AGENT_TYPE: &str = "agent-team";

/// The first line of a record file: a conversation's (2.0), or a 1.x
/// session's (`sessionId`, `agentType`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Header {
    pub format: String,
    pub version: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    pub created_at: u64,
    /// The 1.x conversation (its root session's id) this record goes on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub continues: Option<String>,
}

impl Header {
    /// The header of conversation `conversation_id`'s record.
    pub fn new(conversation_id: &str, created_at: u64) -> Header {
        Header {
            format: FORMAT.to_owned(),
            version: VERSION.to_owned(),
            conversation_id: Some(conversation_id.to_owned()),
            session_id: None,
            agent_type: None,
            created_at,
            continues: None,
        }
    }

    /// The header of a 1.x record (one agent session), as the library
    /// wrote it before conversations: read, never written.
    pub fn v1(session_id: &str, agent_type: &str, created_at: u64) -> Header {
        Header {
            format: FORMAT.to_owned(),
            version: "1.1".to_owned(),
            conversation_id: None,
            session_id: Some(session_id.to_owned()),
            agent_type: Some(agent_type.to_owned()),
            created_at,
            continues: None,
        }
    }

    /// The record's key: its conversation's id (2.0), else its session's (1.x).
    pub fn id(&self) -> &str {
        self.conversation_id
            .as_deref()
            .or(self.session_id.as_deref())
            .unwrap_or_default()
    }

    /// Whether the record is of the 1.x format (one agent session each).
    pub fn is_v1(&self) -> bool {
        self.version.split('.').next() == Some("1")
    }

    /// The header as its line, `\n` included.
    pub fn line(&self) -> String {
        let mut line = serde_json::to_string(self).unwrap_or_default();
        line.push('\n');
        line
    }
}

/// One entry: its place (`seq`, the cursor), its time (`at`, milliseconds
/// since the epoch), the turn it belongs to, and what happened.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordEntry {
    pub seq: u64,
    pub at: u64,
    pub turn: Option<u32>,
    pub body: Entry,
}

/// What an entry says, one variant per kind (`kind` in the line).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Entry {
    /// A 1.x record's session opened (2.0 writes `part`).
    Opened(Opened),
    /// An agent session of the conversation begins: the first, or the one
    /// it went on with (handed off, failed over, rebuilt).
    Part(Part),
    /// An attempt at the running turn failed: its error and the text it
    /// streamed (never a reply); the turn goes on with another attempt,
    /// or ends with its `turnEnd`.
    AttemptEnd(AttemptEnd),
    /// A forked conversation's own part begins here: the lines before it
    /// are its parent's, copied up to the turn it forked at.
    Forked(Forked),
    /// A turn's prompt: its text and what was attached (never the bytes).
    Request {
        text: String,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        attachments: Vec<AttachmentMeta>,
    },
    /// The reply's text between two other entries (a message, usually).
    Text { text: String },
    /// The agent's reasoning between two other entries.
    Thought { text: String },
    /// A tool call opened (`status: pending`) or ended (`success`/`error`).
    ToolCall(ToolCall),
    /// The agent's plan, when it changed: its entries as sent.
    Plan { entries: Value },
    /// Usage reported outside a turn (a turn's own is in its `turnEnd`).
    Usage { usage: Usage },
    /// A permission asked of the host, or its answer.
    Permission(Permission),
    /// How a turn ended.
    TurnEnd(TurnEnd),
    /// The session's mode changed.
    Mode { mode: String },
    /// The session's model changed.
    Model { model: String },
    /// The agent's process ended unasked.
    Crashed {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        exit_code: Option<i32>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        signal: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        last_lines: Vec<String>,
    },
    /// The agent's process was started again.
    Restarted,
    /// The agent's session was resumed (its id verified).
    Resumed { agent_session_id: String },
    /// The agent's session was loaded (its id verified; its replay not recorded).
    Loaded { agent_session_id: String },
    /// Another session this one was handed off to, forked from, rebuilt from, ….
    Link(Link),
    /// The session was closed.
    Closed,
    /// The turn (`turn`) never ended: its writer went away.
    Interrupted,
    /// A team's record: the team (its task and folder), first.
    Team {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        team_task: Option<String>,
        cd: String,
    },
    /// A team's record: a member as the team holds it (who it is, its
    /// session, its mark), written whenever that changes.
    Member { member: Value },
    /// The agent compacted its context: written when first seen (its place
    /// in the conversation) and at its end (`completed`, `failed`,
    /// `cancelled`), the whole summary as text; readers merge the entries
    /// of one `compactionId`.
    Compaction(CompactionEntry),
    /// A team's record: a message joined the transcript.
    Message {
        from: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
        content: String,
    },
}

impl Entry {
    /// The entry's `kind`.
    pub fn kind(&self) -> &'static str {
        match self {
            Entry::Opened(_) => "opened",
            Entry::Part(_) => "part",
            Entry::AttemptEnd(_) => "attemptEnd",
            Entry::Forked(_) => "forked",
            Entry::Request { .. } => "request",
            Entry::Text { .. } => "text",
            Entry::Thought { .. } => "thought",
            Entry::ToolCall(_) => "toolCall",
            Entry::Plan { .. } => "plan",
            Entry::Usage { .. } => "usage",
            Entry::Permission(_) => "permission",
            Entry::TurnEnd(_) => "turnEnd",
            Entry::Mode { .. } => "mode",
            Entry::Model { .. } => "model",
            Entry::Crashed { .. } => "crashed",
            Entry::Restarted => "restarted",
            Entry::Resumed { .. } => "resumed",
            Entry::Loaded { .. } => "loaded",
            Entry::Link(_) => "link",
            Entry::Closed => "closed",
            Entry::Interrupted => "interrupted",
            Entry::Team { .. } => "team",
            Entry::Member { .. } => "member",
            Entry::Message { .. } => "message",
            Entry::Compaction(_) => "compaction",
        }
    }
}

/// The session as it opened. The agent's session id is left out when it
/// is not known yet (a CLI agent tells it in its first turn: `turnEnd`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Opened {
    pub agent_type: String,
    /// `acp` or `cli`.
    pub protocol: String,
    pub cd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session_id: Option<String>,
    /// The team whose member this session is, and the member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_id: Option<String>,
}

/// Why a conversation has a new part.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PartReason {
    /// The conversation's first agent session (a fork's own first too).
    #[default]
    Opened,
    /// The app handed the conversation to another agent.
    Handoff,
    /// A turn failed in a way another agent may not, and went on with the
    /// next agent of `fallback`.
    Failover,
    /// The agent could not reopen its session: a new one carries the
    /// conversation.
    Rebuild,
}

impl PartReason {
    pub fn as_str(self) -> &'static str {
        match self {
            PartReason::Opened => "opened",
            PartReason::Handoff => "handoff",
            PartReason::Failover => "failover",
            PartReason::Rebuild => "rebuild",
        }
    }

    pub fn parse(name: &str) -> Option<PartReason> {
        Some(match name {
            "opened" => PartReason::Opened,
            "handoff" => PartReason::Handoff,
            "failover" => PartReason::Failover,
            "rebuild" => PartReason::Rebuild,
            _ => return None,
        })
    }
}

/// An agent session of a conversation, as it began. Its `sessionId` is
/// left out when it is not known yet (a CLI agent tells it with its first
/// `turnEnd`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Part {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub agent_type: String,
    /// `acp` or `cli`.
    pub protocol: String,
    pub reason: PartReason,
    /// The first turn it runs (a failover's: the turn that failed).
    pub from_turn: u32,
    /// The agent of `fallback` it runs (0 for the first).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback_index: Option<usize>,
    pub cd: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// The team whose member this conversation is, and the member.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_id: Option<String>,
}

/// A failed attempt: its number in the turn (from 1, across retries and
/// fallbacks), its error, and the text it streamed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptEnd {
    pub attempt: u32,
    pub error: TurnEndError,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// Where a forked conversation came from.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Forked {
    pub conversation_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub at_turn: u32,
}

/// A compaction of the agent's context, as one entry says it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompactionEntry {
    pub compaction_id: String,
    /// `in_progress` when first seen, then `completed`, `failed` or
    /// `cancelled` (or a later protocol's value, as the agent sent it).
    pub status: String,
    /// The summary's text, on the entry of its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What was attached to a prompt: never its bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AttachmentMeta {
    /// `image`, `resource` or `resource_link`.
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes (an image decoded, a resource's text in UTF-8).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// SHA-256 of those bytes, in hex.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// The last part of its file name or URI (no query, no user, no host).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// A tool call: opened, or ended.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    /// `pending` (opened), `success` or `error` (ended).
    pub status: String,
    /// Its input: on the entry that opens it, and on the one that ends it
    /// when it changed since (or when no entry opened it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// A permission asked (`options`) or answered (`outcome`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Permission {
    pub tool_call_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The choices offered (asked).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub options: Vec<PermissionOption>,
    /// `selected` or `cancelled` (answered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
    /// The option chosen, when `selected`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub option_id: Option<String>,
}

/// One choice of a permission request.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PermissionOption {
    pub option_id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// `allow_once`, `allow_always`, `reject_once`, `reject_always`.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub kind: String,
}

/// How a turn ended.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEnd {
    /// The agent's stop reason (`end_turn`, `cancelled`, …), when it gave one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<TurnEndError>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    pub duration_ms: u64,
    /// The agent's session id, when this turn made it known or changed it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_session_id: Option<String>,
}

/// A failed turn's error: its kind (`AgentRun.error.kind`) and message.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnEndError {
    pub kind: String,
    pub message: String,
}

/// How another session relates to this one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Relation {
    HandedOffTo,
    HandedOffFrom,
    ForkedTo,
    ForkedFrom,
    RebuiltTo,
    RebuiltFrom,
}

impl Relation {
    /// The relation as the record writes it.
    pub fn parse(name: &str) -> Option<Relation> {
        Some(match name {
            "handedOffTo" => Relation::HandedOffTo,
            "handedOffFrom" => Relation::HandedOffFrom,
            "forkedTo" => Relation::ForkedTo,
            "forkedFrom" => Relation::ForkedFrom,
            "rebuiltTo" => Relation::RebuiltTo,
            "rebuiltFrom" => Relation::RebuiltFrom,
            _ => return None,
        })
    }

    /// [`Relation::parse`], or `INVALID_INPUT` naming the unknown link.
    pub fn read(name: &str) -> crate::error::Result<Relation> {
        Relation::parse(name).ok_or_else(|| {
            crate::error::AgentContextError::invalid(format!("relation: unknown link \"{name}\""))
        })
    }

    /// Whether the other session came first (this one continues it).
    pub fn is_from(self) -> bool {
        matches!(
            self,
            Relation::HandedOffFrom | Relation::ForkedFrom | Relation::RebuiltFrom
        )
    }
}

/// Another session, and how it relates to this one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Link {
    pub relation: Relation,
    pub session_id: String,
    pub agent_type: String,
}

impl RecordEntry {
    /// Appends the entry's line (`\n` included) to `out`: `seq`, `at`,
    /// `kind`, `turn`, then the kind's own fields.
    pub fn encode_into(&self, out: &mut String) {
        use std::fmt::Write;
        let body = serde_json::to_string(&self.body).unwrap_or_default();
        // `{"kind":"<kind>"` opens the body: serde writes the tag first, and
        // no kind needs escaping.
        let head = "{\"kind\":\"".len() + self.body.kind().len() + 1;
        let (kind, rest) = body.split_at(head.min(body.len()));
        let _ = write!(
            out,
            "{{\"seq\":{},\"at\":{},{}",
            self.seq,
            self.at,
            &kind[1..]
        );
        if let Some(turn) = self.turn {
            let _ = write!(out, ",\"turn\":{turn}");
        }
        out.push_str(rest);
        out.push('\n');
    }

    /// The entry's line, `\n` included.
    pub fn line(&self) -> String {
        let mut out = String::new();
        self.encode_into(&mut out);
        out
    }

    /// An entry read back from its line; `None` when the line is not an
    /// entry of a kind this version knows.
    pub fn from_line(line: &[u8]) -> Option<RecordEntry> {
        let value: Value = serde_json::from_slice(line).ok()?;
        let seq = value.get("seq")?.as_u64()?;
        let at = value.get("at")?.as_u64()?;
        let turn = match value.get("turn") {
            None => None,
            Some(turn) => Some(u32::try_from(turn.as_u64()?).ok()?),
        };
        let body = Entry::deserialize(&value).ok()?;
        Some(RecordEntry {
            seq,
            at,
            turn,
            body,
        })
    }
}
