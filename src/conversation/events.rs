//! What the conversation's machine and its host say to each other: what it
//! is opened with ([`Setup`]), the host's events in ([`Event`], read from
//! the host's `{ type, … }`) and the machine's actions out ([`Action`],
//! written as the host's `{ type, … }`). The decisions are the machine's
//! (machine.rs).

use serde_json::{json, Value};

use super::fallback::Fallback;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;

/// What a conversation is opened with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Setup {
    /// Its id (a UUID the host makes) and when it began.
    pub id: String,
    pub created_at: u64,
    /// The agent it opens with: an agent type, or a definition.
    pub agent: Value,
    /// The session options every part starts from (the host keeps what
    /// JSON cannot carry: the callbacks, the store).
    pub options: Value,
    pub fallback: Vec<Fallback>,
    /// A part whose agent session cannot be reopened is rebuilt.
    pub rebuild: bool,
    /// The host plans what a failed-over turn carries (a team member).
    pub host_carries: bool,
    /// The team and member whose conversation it is.
    pub team: Option<(String, String)>,
}

/// An agent session, as events name it: which entry of `fallback` its
/// agent is (0: the conversation's own).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SessionRef {
    pub session_id: Option<String>,
    pub agent_type: String,
    pub fallback_index: usize,
}

impl SessionRef {
    fn json(&self) -> Value {
        json!({ "sessionId": self.session_id, "agentType": self.agent_type, "fallbackIndex": self.fallback_index })
    }

    /// As a `handoff` event names it.
    pub(super) fn event_json(&self) -> Value {
        json!({ "sessionId": self.session_id, "agentType": self.agent_type })
    }
}

/// What the host tells the machine (`{ type, … }`).
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// Open the conversation's live part.
    Start,
    /// Part `part`'s agent session is open (`session_id`, when known).
    Opened {
        part: u64,
        session_id: Option<String>,
    },
    /// Opening part `part` failed (`kind`, `message`).
    OpenFailed {
        part: u64,
        kind: String,
        message: String,
    },
    /// The app's turn `ask` is next (`continues`: the host's plan for a
    /// turn that went on with another agent, `hostCarries`).
    Prompt { ask: u64, continues: bool },
    /// Ask `ask`'s turn ended on its part.
    TurnDone {
        ask: u64,
        success: bool,
        kind: Option<String>,
        message: Option<String>,
        session_id: Option<String>,
    },
    /// The app hands the conversation to `agent` with `options`.
    Handoff { agent: Value, options: Value },
    /// The conversation ends: its live part closes.
    Close,
}

impl Event {
    /// The host's `{ type, … }`.
    pub fn read(value: &Value) -> Result<Event> {
        let o = Obj::new(value, "event")?;
        let count = |key: &str| -> Result<u64> {
            o.get(key).and_then(Value::as_u64).ok_or_else(|| {
                AgentContextError::invalid(format!("{} must be a whole number", o.path_of(key)))
            })
        };
        let text = |key: &str| o.opt_str(key).map(|s| s.map(str::to_owned));
        Ok(match o.req_str("type")? {
            "start" => Event::Start,
            "opened" => Event::Opened {
                part: count("part")?,
                session_id: text("sessionId")?,
            },
            "openFailed" => Event::OpenFailed {
                part: count("part")?,
                kind: text("kind")?.unwrap_or_else(|| "process_error".into()),
                message: text("message")?.unwrap_or_default(),
            },
            "prompt" => Event::Prompt {
                ask: count("ask")?,
                continues: o.opt_bool("continues")?.unwrap_or(false),
            },
            "turnDone" => Event::TurnDone {
                ask: count("ask")?,
                success: o.opt_bool("success")?.unwrap_or(false),
                kind: text("kind")?,
                message: text("message")?,
                session_id: text("sessionId")?,
            },
            "handoff" => Event::Handoff {
                agent: o.get("agent").cloned().unwrap_or(Value::Null),
                options: o.get("options").cloned().unwrap_or_else(|| json!({})),
            },
            "close" => Event::Close,
            other => {
                return Err(AgentContextError::invalid(format!(
                    "event.type: no event is called \"{other}\""
                )))
            }
        })
    }
}

/// What the host does, in order.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Open part `part`: an agent session of `agent` with `options`
    /// (resuming `resume` when given), recorded from `record`
    /// (`RecordStart`'s JSON). Answer with `opened` or `openFailed`.
    OpenPart {
        part: u64,
        agent: Value,
        options: Value,
        resume: Option<String>,
        record: Value,
    },
    /// Close part `part` (nothing waits): `ends`, the conversation ends
    /// with it (its record says `closed`); else the host stops recording it
    /// first (the conversation goes on with another part).
    ClosePart { part: u64, ends: bool },
    /// Send ask `ask`'s turn on part `part` (its request made ready by
    /// `prepare`), its session told `hands_off` and `attempts_before`.
    Send {
        ask: u64,
        part: u64,
        hands_off: bool,
        attempts_before: Option<u32>,
    },
    /// An event for ask `ask`'s `onEvent`.
    Event { ask: u64, event: Value },
    /// Ask `ask` is done: the host resolves it with its last turn, which
    /// went on with `handed_off_to` when it did; `continues`: the host
    /// plans the turn again for the new agent (`hostCarries`).
    Done {
        ask: u64,
        handed_off_to: Option<SessionRef>,
        continues: bool,
    },
    /// The conversation is open (its live part).
    Opened,
    /// Opening the conversation failed.
    Failed { kind: String, message: String },
    /// The handoff is done: part `part` is the live end.
    HandedOff { part: u64 },
    /// The handoff failed; the conversation stays where it was.
    HandoffFailed { kind: String, message: String },
    /// Lines the machine wrote, for the store (already in its record).
    Write { lines: String },
}

impl Action {
    pub fn to_json(&self) -> Value {
        match self {
            Action::OpenPart {
                part,
                agent,
                options,
                resume,
                record,
            } => json!({ "type": "openPart", "part": part, "agent": agent, "options": options,
                "resume": resume, "record": record }),
            Action::ClosePart { part, ends } => {
                json!({ "type": "closePart", "part": part, "ends": ends })
            }
            Action::Send {
                ask,
                part,
                hands_off,
                attempts_before,
            } => json!({ "type": "send", "ask": ask, "part": part, "handsOff": hands_off,
                "attemptsBefore": attempts_before }),
            Action::Event { ask, event } => json!({ "type": "event", "ask": ask, "event": event }),
            Action::Done {
                ask,
                handed_off_to,
                continues,
            } => json!({ "type": "done", "ask": ask,
                "handedOffTo": handed_off_to.as_ref().map(SessionRef::json), "continues": continues }),
            Action::Opened => json!({ "type": "opened" }),
            Action::Failed { kind, message } => {
                json!({ "type": "failed", "kind": kind, "message": message })
            }
            Action::HandedOff { part } => json!({ "type": "handedOff", "part": part }),
            Action::HandoffFailed { kind, message } => {
                json!({ "type": "handoffFailed", "kind": kind, "message": message })
            }
            Action::Write { lines } => json!({ "type": "write", "lines": lines }),
        }
    }
}
