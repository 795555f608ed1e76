//! What the host and the team's machine tell each other: the events it
//! feeds ([`Event`]) and the actions it executes ([`Action`]).

use serde::Deserialize;
use serde_json::{json, Value};

use crate::error::AgentContextError;
use crate::prompt::output::AssemblerOutput;

/// What the host tells the machine.
#[derive(Clone, Debug, Deserialize, PartialEq)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum Event {
    /// A person's or an outside message (`{ from, to?, content }`); answers its index.
    Post { message: Value },
    /// A member joins (`member` as given, read at `path`).
    AddMember { member: Value, path: String },
    /// Runs one turn of `member`; answers the ask's id.
    Ask {
        member: String,
        #[serde(default)]
        message: Option<String>,
        #[serde(default, rename = "replyTo")]
        reply_to: Option<String>,
    },
    /// The member's session is open (its id, and its conversation's);
    /// `fallback`: it opened on the agent of that entry of the fallback it
    /// was given (its own agent could not start).
    Opened {
        member: String,
        #[serde(default, rename = "sessionId")]
        session_id: Option<String>,
        #[serde(default, rename = "conversationId")]
        conversation_id: Option<String>,
        #[serde(default)]
        fallback: Option<usize>,
    },
    /// Opening the member's session failed (the error's `kind`).
    OpenFailed {
        member: String,
        #[serde(default)]
        kind: Option<String>,
    },
    /// The member's turn ended: the reply's text, the error's kind, the
    /// session's id afterwards; `moved`: the turn failed and the member's
    /// conversation went on with the agent of that entry of the fallback it
    /// was given, where the turn goes on (the team plans it again).
    TurnDone {
        member: String,
        success: bool,
        #[serde(default)]
        text: Option<String>,
        #[serde(default)]
        kind: Option<String>,
        #[serde(default, rename = "sessionId")]
        session_id: Option<String>,
        #[serde(default)]
        moved: Option<usize>,
    },
    /// Sending the prompt threw (the host rejects the ask with what it caught).
    PromptFailed { member: String },
    /// Every session closes; no turn starts any more.
    Close,
}

impl Event {
    /// An event as the host sends it (`{ type, … }`).
    pub fn read(value: Value) -> crate::error::Result<Event> {
        serde_json::from_value(value)
            .map_err(|e| AgentContextError::invalid(format!("not an event of the team: {e}")))
    }
}

/// Why an ask failed.
#[derive(Clone, Debug, PartialEq)]
pub enum Cause {
    /// What opening the session threw (the host holds it).
    Open,
    /// What sending the prompt threw (the host holds it).
    Prompt,
    /// The core's error.
    Error(AgentContextError),
}

/// What the host does.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Open a session for `member` with the team's session options, the
    /// member's own over them, and these: the member's conversation (its
    /// id, to go on with it), and the agents it goes on with when its own
    /// fails (`next`: `{ fallback, agent, protocol, endpoint, systemPrompt }`
    /// each, whose session options are those of `fallback[n - 1]`).
    Open {
        member: String,
        /// Its agent type, or the definition it was given by.
        agent: Value,
        /// Whose session options it takes: 0, the member's own; `n`, those
        /// of its `fallback[n - 1]` (the agent it went on with).
        fallback: usize,
        protocol: &'static str,
        /// `'own'`, `'team'` or `'none'`.
        endpoint: &'static str,
        session_id: Option<String>,
        system_prompt: Option<String>,
        conversation_id: Option<String>,
        next: Vec<Value>,
    },
    /// Send `request` (an `AssemblerOutput`) on the member's session, with
    /// the turn options of ask `ask`; `continues`: the turn that went on
    /// with another agent, planned for it.
    Prompt {
        member: String,
        ask: u64,
        request: AssemblerOutput,
        continues: bool,
    },
    /// Close the member's session (nothing waits for it).
    Close { member: String },
    /// Ask `ask` is done: the host resolves it with the turn and `context`.
    Done { ask: u64, context: Value },
    /// Ask `ask` of `member` failed.
    Fail {
        ask: u64,
        member: String,
        cause: Cause,
    },
    /// A line for the logger (`'warn'` or `'debug'`).
    Log { level: &'static str, text: String },
    /// Lines to append to the team's record (`header` first, the first
    /// time).
    Record {
        header: Option<String>,
        lines: String,
    },
}

impl Action {
    /// The action as plain data (`{ type, … }`); a failure's core error is
    /// [`Action::error`].
    pub fn to_json(&self) -> Value {
        match self {
            Action::Open {
                member,
                agent,
                fallback,
                protocol,
                endpoint,
                session_id,
                system_prompt,
                conversation_id,
                next,
            } => json!({"type": "open", "member": member, "agent": agent, "fallback": fallback,
                "protocol": protocol, "endpoint": endpoint, "sessionId": session_id,
                "systemPrompt": system_prompt, "conversationId": conversation_id, "next": next}),
            Action::Prompt {
                member,
                ask,
                request,
                continues,
            } => json!({"type": "prompt", "member": member, "ask": ask, "continues": continues,
                "request": {"prompt": request.prompt, "systemFlag": request.system_flag}}),
            Action::Close { member } => json!({"type": "close", "member": member}),
            Action::Done { ask, context } => {
                json!({"type": "done", "ask": ask, "context": context})
            }
            Action::Fail { ask, member, cause } => {
                json!({"type": "fail", "ask": ask, "member": member, "cause": match cause {
                    Cause::Open => "open",
                    Cause::Prompt => "prompt",
                    Cause::Error(_) => "error",
                }})
            }
            Action::Log { level, text } => json!({"type": "log", "level": level, "text": text}),
            Action::Record { header, lines } => {
                json!({"type": "record", "header": header, "lines": lines})
            }
        }
    }

    /// The core's error of a failed ask.
    pub fn error(&self) -> Option<&AgentContextError> {
        match self {
            Action::Fail {
                cause: Cause::Error(e),
                ..
            } => Some(e),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_read_by_its_type_or_refused() {
        let event = Event::read(json!({ "type": "close" })).unwrap();
        assert_eq!(event, Event::Close);
        let err = Event::read(json!({ "type": "dance" })).unwrap_err();
        assert!(err.message().starts_with("not an event of the team: "));
    }
}
