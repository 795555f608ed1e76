//! A conversation's record read once for what it is now: its parts (the
//! agent sessions it went through, in order), where each begins, the
//! turns, the turn left open, whether it was closed, what it was forked
//! from, and the cursor. What a summary shows, what a conversation
//! reopened goes on from, and how each entry is named by its part, all
//! come from this one pass. A 1.x record (one agent session) reads as a
//! conversation of one part.

use serde::Serialize;
use serde_json::Value;

use super::entry::{Forked, Header, PartReason, Relation};
use super::read::{read_record, read_record_as_recorded, Line, ReadOptions, RecordRead};
use super::recorder::{OpenTurn, RecordSeed};
use crate::agent_output::Usage;
use crate::error::Result;

/// One agent session of a conversation, as its record says.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PartRead {
    /// The agent's session id ('' until a CLI part's first turn tells it).
    pub session_id: String,
    pub agent_type: String,
    pub protocol: String,
    pub reason: PartReason,
    pub from_turn: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fallback_index: Option<usize>,
    /// The `seq` of its first entry (its `part`, or a 1.x `opened`).
    #[serde(skip)]
    pub first_seq: u64,
    #[serde(skip)]
    pub cd: String,
}

/// What a conversation's record holds now.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConversationState {
    pub header: Option<Header>,
    pub parts: Vec<PartRead>,
    /// The last entry's `seq`.
    pub cursor: u64,
    pub turns: u32,
    /// The turn begun and not ended (no `turnEnd` nor `interrupted`), with
    /// the attempts that failed at it.
    pub open_turn: Option<OpenTurn>,
    pub closed: bool,
    pub forked_from: Option<Forked>,
    pub team_id: Option<String>,
    pub member_id: Option<String>,
    /// A team's own record (its first entry is `team`).
    pub team: bool,
    pub team_task: Option<String>,
    pub title: String,
    pub usage: Usage,
    pub created_at: u64,
    pub updated_at: u64,
    pub skipped: u64,
    /// The model and mode last recorded (of the live part).
    pub model: Option<String>,
    pub mode: Option<String>,
    /// A 1.x record's links to the sessions before and after it.
    pub links: Vec<(Relation, String, String)>,
}

impl ConversationState {
    /// The state of `record` (its bytes).
    pub fn of(record: &[u8]) -> Result<ConversationState> {
        // A record the recorder wrote is read by its lines' prefixes; any
        // other (garbage, a torn line) by the checking reader.
        // What a conversation reopens from: no usage is summed, and of the
        // turns' ends only the last naming an agent session in each part is
        // read (a long conversation has one a turn).
        if let Some(read) = read_record_as_recorded(record) {
            return Ok(ConversationState::read(&read, false));
        }
        Ok(ConversationState::read(
            &read_record(record, ReadOptions::default())?,
            false,
        ))
    }

    /// The state of what was read already, its usage summed.
    pub fn from_read(read: &RecordRead<'_>) -> ConversationState {
        ConversationState::read(read, true)
    }

    fn read(read: &RecordRead<'_>, usage: bool) -> ConversationState {
        let mut state = ConversationState {
            header: read.header.clone(),
            cursor: read.cursor,
            skipped: read.skipped,
            created_at: read
                .header
                .as_ref()
                .map(|h| h.created_at)
                .or_else(|| read.lines.first().map(|l| l.at))
                .unwrap_or_default(),
            updated_at: read.lines.last().map_or(0, |l| l.at),
            ..ConversationState::default()
        };
        // Without usage: the last turn's end naming a session, not yet read.
        let mut named_end: Option<&Line<'_>> = None;
        for line in &read.lines {
            if !usage {
                match &*line.kind {
                    "turnEnd" => {
                        state.open_turn = None;
                        if memchr::memmem::find(line.text, b"\"agentSessionId\"").is_some() {
                            named_end = Some(line);
                        }
                        continue;
                    }
                    "part" | "opened" | "resumed" | "loaded" | "team" => {
                        if let Some(end) = named_end.take() {
                            state.named_by(end.text);
                        }
                    }
                    _ => {}
                }
            }
            state.take(line);
        }
        if let Some(end) = named_end {
            state.named_by(end.text);
        }
        state
    }

    /// The live part's agent session, as a turn's end names it (a CLI part
    /// tells its session id with its first turn).
    fn named_by(&mut self, end: &[u8]) {
        if let (Some(id), Some(part)) = (
            super::fields::EndFields::of(end).agent_session_id,
            self.parts.last_mut(),
        ) {
            if part.session_id != id {
                part.session_id = id.into_owned();
            }
        }
    }

    /// The conversation's id: its header's (a 1.x record's session id).
    pub fn id(&self) -> &str {
        self.header.as_ref().map_or("", Header::id)
    }

    /// The part that runs the conversation now (the last one).
    pub fn live(&self) -> Option<&PartRead> {
        self.parts.last()
    }

    /// Which part holds entry `seq` (the last that began at or before it).
    pub fn part_of(&self, seq: u64) -> Option<usize> {
        let after = self.parts.partition_point(|p| p.first_seq <= seq);
        after.checked_sub(1)
    }

    /// Where the record of the conversation's next part goes on from.
    pub fn seed(&self) -> RecordSeed {
        RecordSeed {
            next_seq: self.cursor + 1,
            turns: self.turns,
            open_turn: self.open_turn,
        }
    }

    fn take(&mut self, line: &Line<'_>) {
        let parsed = || -> Value {
            std::str::from_utf8(line.text)
                .ok()
                .and_then(|t| serde_json::from_str(t).ok())
                .unwrap_or(Value::Null)
        };
        let text_of =
            |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
        let turn = line.turn.and_then(|t| u32::try_from(t).ok());
        match &*line.kind {
            "part" | "opened" => {
                self.closed = false;
                let p = parsed();
                let v1 = line.kind == "opened";
                let session_id = if v1 {
                    text_of(&p, "agentSessionId")
                        .or_else(|| self.header.as_ref().and_then(|h| h.session_id.clone()))
                } else {
                    text_of(&p, "sessionId")
                };
                let reason = text_of(&p, "reason")
                    .and_then(|r| PartReason::parse(&r))
                    .unwrap_or_default();
                let from_turn = p
                    .get("fromTurn")
                    .and_then(Value::as_u64)
                    .and_then(|t| u32::try_from(t).ok())
                    .unwrap_or(self.turns + 1);
                // A 1.x session that opened again (restarted) is the same part.
                if v1 && !self.parts.is_empty() {
                    return;
                }
                self.parts.push(PartRead {
                    session_id: session_id.unwrap_or_default(),
                    agent_type: text_of(&p, "agentType").unwrap_or_default(),
                    protocol: text_of(&p, "protocol").unwrap_or_default(),
                    reason,
                    from_turn,
                    fallback_index: p
                        .get("fallbackIndex")
                        .and_then(Value::as_u64)
                        .map(|n| n as usize),
                    first_seq: line.seq,
                    cd: text_of(&p, "cd").unwrap_or_default(),
                });
                self.model = text_of(&p, "model");
                self.mode = text_of(&p, "mode");
                if let Some(team) = text_of(&p, "teamId") {
                    self.team_id = Some(team);
                }
                if let Some(member) = text_of(&p, "memberId") {
                    self.member_id = Some(member);
                }
            }
            "forked" => {
                if let Ok(forked) = serde_json::from_value::<Forked>(parsed()) {
                    self.forked_from = Some(forked);
                }
            }
            "team" => {
                self.team = true;
                let team = parsed();
                self.team_task = text_of(&team, "teamTask");
                self.title = self
                    .team_task
                    .as_deref()
                    .map(super::fields::title_of)
                    .unwrap_or_default();
                if let Some(cd) = text_of(&team, "cd") {
                    self.parts.push(PartRead {
                        cd,
                        first_seq: line.seq,
                        ..PartRead::default()
                    });
                }
            }
            "member" | "message" => self.closed = false,
            "request" => {
                let n = turn.unwrap_or(self.turns + 1);
                self.turns = self.turns.max(n);
                self.open_turn = Some(OpenTurn {
                    turn: n,
                    attempts: 0,
                });
                if self.title.is_empty() {
                    if let Some(text) = text_of(&parsed(), "text") {
                        self.title = super::fields::title_of(&text);
                    }
                }
            }
            "attemptEnd" => {
                if let Some(open) = self.open_turn.as_mut() {
                    let attempt = parsed().get("attempt").and_then(Value::as_u64);
                    open.attempts = attempt
                        .and_then(|a| u32::try_from(a).ok())
                        .unwrap_or(open.attempts + 1)
                        .max(open.attempts);
                }
            }
            "turnEnd" => {
                self.open_turn = None;
                let end = super::fields::EndFields::of(line.text);
                if let Some(usage) = &end.usage {
                    self.usage.add(usage);
                }
                if let (Some(id), Some(part)) = (end.agent_session_id, self.parts.last_mut()) {
                    if part.session_id != id {
                        part.session_id = id.into_owned();
                    }
                }
            }
            "interrupted" => self.open_turn = None,
            "closed" => (self.closed, self.open_turn) = (true, None),
            "resumed" | "loaded" => {
                self.closed = false;
                if let (Some(id), Some(part)) =
                    (text_of(&parsed(), "agentSessionId"), self.parts.last_mut())
                {
                    part.session_id = id;
                }
            }
            "restarted" => self.closed = false,
            "link" => {
                let link = parsed();
                let relation = text_of(&link, "relation").and_then(|r| Relation::parse(&r));
                if let (Some(relation), Some(id)) = (relation, text_of(&link, "sessionId")) {
                    let agent = text_of(&link, "agentType").unwrap_or_default();
                    self.links.push((relation, id, agent));
                }
            }
            "model" => self.model = text_of(&parsed(), "model"),
            "mode" => self.mode = text_of(&parsed(), "mode"),
            _ => {}
        }
    }
}
