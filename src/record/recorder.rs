//! The recorder a session holds (sans-IO): told what happens, it returns
//! the lines to append now. It numbers the entries (`seq`) and takes their
//! time from its caller. A message's text (and a run of thoughts) is held
//! and written as one entry when something else is written or the turn
//! ends, never one entry per streamed piece; a tool call is written when it
//! opens and when it ends, its updates in between not at all; a run of
//! plans is written as its last one, and only when it changed.

use std::collections::HashSet;

use memchr::memmem::Finder;
use serde_json::Value;

use super::entry::{
    AttachmentMeta, AttemptEnd, CompactionEntry, Entry, Link, Opened, Part, Permission,
    PermissionOption, RecordEntry, Relation, ToolCall, TurnEnd, TurnEndError,
};
use super::read::{read_record, ReadOptions};
use super::sha256::Sha256;
use crate::agent_output::{AgentEvent, ToolStatus, ToolUse, Usage};
use crate::error::Result;
use crate::error_kind::AgentErrorKind;
use crate::launch::attachments::{base64, Attachment};

/// A secret shorter than this is not looked for (it would match words).
pub const MIN_SECRET_BYTES: usize = 8;

/// The text written in a secret's place.
pub const REDACTED: &str = "[redacted]";

/// What the recorder holds until it is written.
#[derive(Default)]
struct Held {
    at: u64,
    text: String,
}

/// A tool call opened and not ended yet: what its opening entry said.
struct OpenTool {
    id: String,
    input: Value,
}

/// Records one session; see the module's documentation.
#[derive(Default)]
pub struct Recorder {
    next_seq: u64,
    turns: u32,
    /// The running turn.
    turn: Option<u32>,
    text: Held,
    thought: Held,
    /// A plan not written yet, and the last one written.
    plan: Option<(u64, Value)>,
    last_plan: Option<Value>,
    open_tools: Vec<OpenTool>,
    /// Tool calls of this turn already ended: their late updates are not
    /// written.
    ended_tools: HashSet<String>,
    /// The running turn's latest usage.
    usage: Option<Usage>,
    agent_session_id: Option<String>,
    /// The running turn made the agent's session id known or changed it.
    session_changed: bool,
    replaying: bool,
    secrets: Vec<Finder<'static>>,
    /// A turn another part of the conversation began: the next request
    /// continues it (not written again), its attempts counted on.
    continues: Option<OpenTurn>,
    /// The running attempt's number in its turn (from 1).
    attempt: u32,
    /// The text the running attempt streamed that was written already
    /// (a failed attempt's `attemptEnd` holds all of it).
    attempt_text: String,
    /// Compactions written when first seen, and those written at their end.
    compactions_seen: HashSet<String>,
    compactions_ended: HashSet<String>,
}

/// Where a conversation's record stands, for the recorder of its next
/// part: the next entry's `seq`, the turns recorded, and the turn left
/// open by the part before (a failover's: its number and the attempts
/// made at it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordSeed {
    pub next_seq: u64,
    pub turns: u32,
    pub open_turn: Option<OpenTurn>,
}

/// A turn that began and did not end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenTurn {
    pub turn: u32,
    pub attempts: u32,
}

/// How a turn ended, as [`Recorder::turn_end`] takes it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TurnOutcome {
    pub stop_reason: Option<String>,
    pub error: Option<(AgentErrorKind, String)>,
    /// The turn's usage; when `None`, the last the reply reported.
    pub usage: Option<Usage>,
    pub duration_ms: u64,
}

impl Recorder {
    /// The recorder of a new record: its first entry is `seq` 1.
    pub fn new() -> Recorder {
        Recorder {
            next_seq: 1,
            ..Recorder::default()
        }
    }

    /// The recorder of a conversation's next part, from where its record
    /// stands.
    pub fn seeded(seed: RecordSeed) -> Recorder {
        Recorder {
            next_seq: seed.next_seq.max(1),
            turns: seed.turns,
            continues: seed.open_turn,
            ..Recorder::default()
        }
    }

    /// The recorder of a record that goes on: `record` is what it holds so
    /// far. Returns it, and the lines to append first: `interrupted` (at
    /// `at`) for a turn the record left unfinished (its writer went away). A record of
    /// a newer major version is `INVALID_INPUT`.
    pub fn continuing(record: &[u8], at: u64) -> Result<(Recorder, String)> {
        let read = read_record(record, ReadOptions::default())?;
        let mut recorder = Recorder::new();
        let mut unfinished = None;
        for line in &read.lines {
            match &*line.kind {
                "request" => {
                    let turn = line.turn.and_then(|t| u32::try_from(t).ok());
                    recorder.turns = recorder.turns.max(turn.unwrap_or(recorder.turns + 1));
                    unfinished = turn;
                }
                "turnEnd" | "interrupted" | "closed" => unfinished = None,
                "compaction" => {
                    if let Ok(c) = serde_json::from_slice::<CompactionEntry>(line.text) {
                        if crate::agent_output::compaction::is_terminal(&c.status) {
                            recorder.compactions_ended.insert(c.compaction_id.clone());
                        }
                        recorder.compactions_seen.insert(c.compaction_id);
                    }
                }
                _ => {}
            }
        }
        recorder.next_seq = read.cursor + 1;
        let mut out = String::new();
        if let Some(turn) = unfinished {
            recorder.push(&mut out, at, Some(turn), Entry::Interrupted);
        }
        Ok((recorder, out))
    }

    /// Values never written: each one found in an entry is written as
    /// [`REDACTED`] (the endpoint's key, the environment's values). Those
    /// shorter than [`MIN_SECRET_BYTES`] or only digits are not looked for.
    pub fn with_secrets<'a>(mut self, secrets: impl IntoIterator<Item = &'a str>) -> Recorder {
        for secret in secrets {
            if secret.len() < MIN_SECRET_BYTES || secret.bytes().all(|b| b.is_ascii_digit()) {
                continue;
            }
            // As it appears inside a JSON string of a line.
            let quoted = serde_json::to_string(secret).unwrap_or_default();
            let escaped = &quoted[1..quoted.len() - 1];
            self.secrets
                .push(Finder::new(escaped.as_bytes()).into_owned());
        }
        self
    }

    /// The seq the next entry gets (the cursor is one below).
    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    /// The turns recorded so far.
    pub fn turns(&self) -> u32 {
        self.turns
    }

    /// A 1.x record's session opened (2.0 records write [`Recorder::part`]).
    pub fn opened(&mut self, at: u64, opened: Opened) -> String {
        if opened.agent_session_id.is_some() {
            self.agent_session_id.clone_from(&opened.agent_session_id);
        }
        self.write(at, Entry::Opened(opened))
    }

    /// An agent session of the conversation begins (its first entry).
    pub fn part(&mut self, at: u64, part: Part) -> String {
        if part.session_id.is_some() {
            self.agent_session_id.clone_from(&part.session_id);
        }
        self.write(at, Entry::Part(part))
    }

    /// A turn starts with this prompt: its text and what is attached to it
    /// (their kind, type, size and digest only). A turn still running ends
    /// `interrupted` first. The turn another part began (a failover) goes
    /// on instead: its request is written already.
    pub fn request(&mut self, at: u64, text: &str, attachments: &[Attachment]) -> String {
        if let Some(open) = self.continues.take() {
            self.turn = Some(open.turn);
            self.turns = self.turns.max(open.turn);
            self.attempt = open.attempts;
            return String::new();
        }
        let mut out = self.end_running(at, Entry::Interrupted);
        self.turns += 1;
        self.turn = Some(self.turns);
        self.attempt = 0;
        let attachments = attachments.iter().map(attachment_meta).collect();
        let entry = Entry::Request {
            text: text.to_owned(),
            attachments,
        };
        self.push(&mut out, at, self.turn, entry);
        out
    }

    /// An attempt at the running turn begins; returns its number (from 1,
    /// across retries and the conversation's parts).
    pub fn attempt_start(&mut self) -> u32 {
        self.attempt += 1;
        self.attempt_text.clear();
        self.attempt
    }

    /// The running attempt failed (`kind`, `message`) and is not the
    /// turn's reply: `attemptEnd` holds the text it streamed (never a
    /// `text` entry of its own from here). The turn goes on, or ends with
    /// [`Recorder::turn_end`].
    pub fn attempt_end(&mut self, at: u64, kind: AgentErrorKind, message: &str) -> String {
        let mut out = String::new();
        if !self.thought.text.is_empty() {
            self.flush_held(&mut out, true);
        }
        self.flush_plan(&mut out);
        let held = std::mem::take(&mut self.text);
        let mut text = std::mem::take(&mut self.attempt_text);
        text.push_str(&held.text);
        let end = AttemptEnd {
            attempt: self.attempt.max(1),
            error: TurnEndError {
                kind: kind.as_str().to_owned(),
                message: message.to_owned(),
            },
            text: (!text.is_empty()).then_some(text),
        };
        self.push(&mut out, at, self.turn, Entry::AttemptEnd(end));
        out
    }

    /// The running turn is left open for the conversation's next part (a
    /// failover): nothing more is written of it here.
    pub fn leave_turn(&mut self) {
        self.text = Held::default();
        self.thought = Held::default();
        self.plan = None;
        self.reset_turn();
    }

    /// An event of the running turn's reply (or between turns). During an
    /// agent's replay of its history nothing is recorded.
    pub fn event(&mut self, at: u64, event: &AgentEvent) -> String {
        if self.replaying {
            return String::new();
        }
        match event {
            AgentEvent::Text { text } => self.hold_text(at, text, false),
            AgentEvent::Thought { text } => self.hold_text(at, text, true),
            AgentEvent::ToolUse { tool_use } => self.tool(at, tool_use),
            AgentEvent::Plan { entries } => {
                let out = self.flush_text();
                // A run of plans is written as its last one, unless that is
                // the plan written last.
                if self.last_plan.as_ref() == Some(entries) {
                    self.plan = None;
                } else if self.plan.as_ref().map(|(_, held)| held) != Some(entries) {
                    self.plan = Some((at, entries.clone()));
                }
                out
            }
            AgentEvent::Usage { usage } if self.turn.is_some() => {
                self.usage = Some(usage.clone());
                String::new()
            }
            AgentEvent::Usage { usage } => self.write(
                at,
                Entry::Usage {
                    usage: usage.clone(),
                },
            ),
            AgentEvent::Session { session_id } => {
                if self.agent_session_id.as_deref() != Some(session_id) {
                    self.agent_session_id = Some(session_id.clone());
                    self.session_changed = true;
                }
                String::new()
            }
            AgentEvent::Compaction { compaction } => self.compaction(at, compaction),
            // Notes, the status, lines that are not JSON and unknown ones
            // are not the conversation: the turn's end says how it ended.
            // Notices are live only.
            AgentEvent::Notice { .. }
            | AgentEvent::Error { .. }
            | AgentEvent::Status { .. }
            | AgentEvent::NonJson { .. }
            | AgentEvent::Unknown { .. } => String::new(),
        }
    }

    /// A compaction as it stands now: written when first seen (its place)
    /// and once more at its end, with its whole summary; nothing between.
    fn compaction(&mut self, at: u64, c: &crate::agent_output::Compaction) -> String {
        if self.compactions_ended.contains(&c.id) {
            return String::new();
        }
        let first = self.compactions_seen.insert(c.id.clone());
        let ended = c.is_terminal();
        if !first && !ended {
            return String::new();
        }
        if ended {
            self.compactions_ended.insert(c.id.clone());
        }
        let entry = CompactionEntry {
            compaction_id: c.id.clone(),
            status: c.status.clone(),
            summary: c.summary.clone().filter(|_| ended),
            error: c.error.clone(),
        };
        self.write(at, Entry::Compaction(entry))
    }

    /// The agent asked the host (`session/request_permission`'s params).
    pub fn permission_asked(&mut self, at: u64, request: &Value) -> String {
        let str_of = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let tool_call = request.get("toolCall").unwrap_or(&Value::Null);
        let options = request
            .get("options")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .map(|o| PermissionOption {
                option_id: str_of(o, "optionId").unwrap_or_default(),
                name: str_of(o, "name").unwrap_or_default(),
                kind: str_of(o, "kind").unwrap_or_default(),
            })
            .collect();
        let permission = Permission {
            tool_call_id: str_of(tool_call, "toolCallId").unwrap_or_default(),
            title: str_of(tool_call, "title"),
            options,
            ..Permission::default()
        };
        self.write(at, Entry::Permission(permission))
    }

    /// The answer to that request: its ACP result (`{ outcome: { outcome:
    /// 'selected', optionId } }` or `{ outcome: { outcome: 'cancelled' } }`).
    pub fn permission_answered(&mut self, at: u64, request: &Value, answer: &Value) -> String {
        let outcome = answer.get("outcome").unwrap_or(&Value::Null);
        let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
        let permission = Permission {
            tool_call_id: request
                .get("toolCall")
                .and_then(|t| text(t, "toolCallId"))
                .unwrap_or_default(),
            outcome: Some(text(outcome, "outcome").unwrap_or_else(|| "cancelled".to_owned())),
            option_id: text(outcome, "optionId"),
            ..Permission::default()
        };
        self.write(at, Entry::Permission(permission))
    }

    /// The running turn ended.
    pub fn turn_end(&mut self, at: u64, outcome: &TurnOutcome) -> String {
        let end = TurnEnd {
            stop_reason: outcome.stop_reason.clone(),
            error: outcome.error.as_ref().map(|(kind, message)| TurnEndError {
                kind: kind.as_str().to_owned(),
                message: message.clone(),
            }),
            usage: outcome.usage.clone().or_else(|| self.usage.take()),
            duration_ms: outcome.duration_ms,
            agent_session_id: if self.session_changed {
                self.agent_session_id.clone()
            } else {
                None
            },
        };
        let mut out = self.flush_all();
        self.push(&mut out, at, self.turn, Entry::TurnEnd(end));
        self.reset_turn();
        out
    }

    /// The session's mode is now `mode`.
    pub fn mode(&mut self, at: u64, mode: &str) -> String {
        self.write(
            at,
            Entry::Mode {
                mode: mode.to_owned(),
            },
        )
    }

    /// The session's model is now `model`.
    pub fn model(&mut self, at: u64, model: &str) -> String {
        self.write(
            at,
            Entry::Model {
                model: model.to_owned(),
            },
        )
    }

    /// The agent's process ended unasked: its exit code or signal, and its
    /// last lines (looked through for the secrets too).
    pub fn crashed(
        &mut self,
        at: u64,
        exit_code: Option<i32>,
        signal: Option<&str>,
        last_lines: &[String],
    ) -> String {
        let entry = Entry::Crashed {
            exit_code,
            signal: signal.map(str::to_owned),
            last_lines: last_lines.to_vec(),
        };
        self.write(at, entry)
    }

    /// The agent's process started again.
    pub fn restarted(&mut self, at: u64) -> String {
        self.write(at, Entry::Restarted)
    }

    /// The agent's session `agent_session_id` was resumed.
    pub fn resumed(&mut self, at: u64, agent_session_id: &str) -> String {
        self.agent_session_id = Some(agent_session_id.to_owned());
        let entry = Entry::Resumed {
            agent_session_id: agent_session_id.to_owned(),
        };
        self.write(at, entry)
    }

    /// What the agent sends from now on is its replay of the history
    /// (`session/load`): not recorded, until [`loaded`](Self::loaded) or
    /// [`end_replay`](Self::end_replay).
    pub fn begin_replay(&mut self) {
        self.replaying = true;
    }

    /// The replay is over without a load (it failed).
    pub fn end_replay(&mut self) {
        self.replaying = false;
    }

    /// The agent's session `agent_session_id` was loaded: its replay is over.
    pub fn loaded(&mut self, at: u64, agent_session_id: &str) -> String {
        self.replaying = false;
        self.agent_session_id = Some(agent_session_id.to_owned());
        let entry = Entry::Loaded {
            agent_session_id: agent_session_id.to_owned(),
        };
        self.write(at, entry)
    }

    /// Another session relates to this one.
    pub fn link(
        &mut self,
        at: u64,
        relation: Relation,
        session_id: &str,
        agent_type: &str,
    ) -> String {
        let link = Link {
            relation,
            session_id: session_id.to_owned(),
            agent_type: agent_type.to_owned(),
        };
        self.write(at, Entry::Link(link))
    }

    /// Usage reported outside a turn.
    pub fn usage(&mut self, at: u64, usage: &Usage) -> String {
        self.write(
            at,
            Entry::Usage {
                usage: usage.clone(),
            },
        )
    }

    /// The session closed; a turn still running ends `interrupted` first.
    pub fn closed(&mut self, at: u64) -> String {
        let mut out = self.end_running(at, Entry::Interrupted);
        self.push(&mut out, at, None, Entry::Closed);
        out
    }

    /// An entry of a team's record (`team`, `member`, `message`), its
    /// secrets redacted.
    pub fn team_entry(&mut self, at: u64, entry: Entry) -> String {
        self.write(at, entry)
    }

    /// Writes what is held, then `entry` (of the running turn, if any).
    fn write(&mut self, at: u64, entry: Entry) -> String {
        let mut out = self.flush_all();
        self.push(&mut out, at, self.turn, entry);
        out
    }

    /// Ends the running turn with `entry` (what is held written first).
    fn end_running(&mut self, at: u64, entry: Entry) -> String {
        let mut out = self.flush_all();
        if self.turn.is_some() {
            self.push(&mut out, at, self.turn, entry);
            self.reset_turn();
        }
        out
    }

    fn reset_turn(&mut self) {
        self.turn = None;
        self.attempt_text.clear();
        self.open_tools.clear();
        self.ended_tools.clear();
        self.usage = None;
        self.session_changed = false;
    }

    fn hold_text(&mut self, at: u64, piece: &str, thought: bool) -> String {
        if piece.is_empty() {
            return String::new();
        }
        let mut out = String::new();
        self.flush_plan(&mut out);
        let other = if thought { &self.text } else { &self.thought };
        if !other.text.is_empty() {
            self.flush_held(&mut out, !thought);
        }
        let held = if thought {
            &mut self.thought
        } else {
            &mut self.text
        };
        if held.text.is_empty() {
            held.at = at;
        }
        held.text.push_str(piece);
        out
    }

    fn tool(&mut self, at: u64, tool: &ToolUse) -> String {
        if self.ended_tools.contains(&tool.id) {
            return String::new();
        }
        let open = self.open_tools.iter().position(|t| t.id == tool.id);
        let status = match tool.status {
            ToolStatus::Pending if open.is_some() => return String::new(),
            ToolStatus::Pending => "pending",
            ToolStatus::Success => "success",
            ToolStatus::Error => "error",
        };
        let input = match open {
            Some(i) => {
                let opened = self.open_tools.swap_remove(i);
                (opened.input != tool.input).then(|| tool.input.clone())
            }
            // An input not given yet (`null`) is left out.
            None => (!tool.input.is_null()).then(|| tool.input.clone()),
        };
        if tool.status == ToolStatus::Pending {
            self.open_tools.push(OpenTool {
                id: tool.id.clone(),
                input: tool.input.clone(),
            });
        } else {
            self.ended_tools.insert(tool.id.clone());
        }
        let call = ToolCall {
            id: tool.id.clone(),
            name: tool.name.clone(),
            status: status.to_owned(),
            input,
            output: tool.output.clone(),
        };
        self.write(at, Entry::ToolCall(call))
    }

    /// Writes the held text, thoughts and plan, in the order they came.
    fn flush_all(&mut self) -> String {
        let mut out = self.flush_text();
        self.flush_plan(&mut out);
        out
    }

    /// Writes the held text and thoughts (at most one of them is held).
    fn flush_text(&mut self) -> String {
        let mut out = String::new();
        if !self.thought.text.is_empty() {
            self.flush_held(&mut out, true);
        }
        if !self.text.text.is_empty() {
            self.flush_held(&mut out, false);
        }
        out
    }

    fn flush_held(&mut self, out: &mut String, thought: bool) {
        let held = std::mem::take(if thought {
            &mut self.thought
        } else {
            &mut self.text
        });
        let entry = if thought {
            Entry::Thought { text: held.text }
        } else {
            if self.turn.is_some() {
                self.attempt_text.push_str(&held.text);
            }
            Entry::Text { text: held.text }
        };
        self.push(out, held.at, self.turn, entry);
    }

    fn flush_plan(&mut self, out: &mut String) {
        if let Some((at, entries)) = self.plan.take() {
            self.push(
                out,
                at,
                self.turn,
                Entry::Plan {
                    entries: entries.clone(),
                },
            );
            self.last_plan = Some(entries);
        }
    }

    /// Encodes the next entry onto `out`, its secrets redacted.
    fn push(&mut self, out: &mut String, at: u64, turn: Option<u32>, body: Entry) {
        let entry = RecordEntry {
            seq: self.next_seq,
            at,
            turn,
            body,
        };
        self.next_seq += 1;
        let start = out.len();
        entry.encode_into(out);
        if self.secrets.is_empty() {
            return;
        }
        let line = &out[start..];
        if self
            .secrets
            .iter()
            .all(|f| f.find(line.as_bytes()).is_none())
        {
            return;
        }
        let mut clean = line.to_owned();
        for finder in &self.secrets {
            let needle = finder.needle();
            while let Some(i) = finder.find(clean.as_bytes()) {
                // The needle is whole UTF-8 (a JSON string's inside).
                clean.replace_range(i..i + needle.len(), REDACTED);
            }
        }
        out.truncate(start);
        out.push_str(&clean);
    }
}

/// An attachment as the record names it.
fn attachment_meta(attachment: &Attachment) -> AttachmentMeta {
    let name_of = |uri: &str| {
        let path = uri.split(['?', '#']).next().unwrap_or_default();
        let last = path.rsplit(['/', '\\']).next().unwrap_or_default();
        (!last.is_empty() && !last.contains('@') && !last.contains(':')).then(|| last.to_owned())
    };
    let digest = |bytes: &[u8]| {
        let mut hash = Sha256::default();
        hash.update(bytes);
        hash.hex()
    };
    match attachment {
        Attachment::Image(image) => {
            let mut hash = Sha256::default();
            let mut size = 0u64;
            base64::decode_pieces(&image.data, |piece| {
                size += piece.len() as u64;
                hash.update(piece);
            });
            AttachmentMeta {
                kind: attachment.kind().to_owned(),
                mime_type: Some(image.mime_type.clone()),
                size: Some(size),
                sha256: Some(hash.hex()),
                name: image.file.as_deref().and_then(name_of),
            }
        }
        Attachment::Resource {
            uri,
            text,
            mime_type,
        } => AttachmentMeta {
            kind: attachment.kind().to_owned(),
            mime_type: mime_type.clone(),
            size: Some(text.len() as u64),
            sha256: Some(digest(text.as_bytes())),
            name: name_of(uri),
        },
        Attachment::ResourceLink { name, .. } => AttachmentMeta {
            kind: attachment.kind().to_owned(),
            name: name_of(name),
            ..AttachmentMeta::default()
        },
    }
}
