//! What the host tells the engine, besides the agent's bytes and the clock:
//! the caller's operations and the process's life, one value each, read
//! from the host's JSON (`{ type, … }`) so every host feeds them one way.

use serde_json::Value;

use super::engine::{Engine, DEFAULT};
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::Obj;

/// One input; `session` left out is the engine's only session.
#[derive(Debug)]
pub enum HostInput {
    /// The caller's operations (each answers with its op id).
    Open,
    OpenSession {
        session: u64,
    },
    CloseSession {
        session: u64,
    },
    ListSessions {
        params: Value,
    },
    SetMode {
        id: String,
        session: Option<u64>,
    },
    SetModel {
        id: String,
        session: Option<u64>,
    },
    SetConfigOption {
        id: String,
        value: Value,
        session: Option<u64>,
    },
    Authenticate {
        method: String,
    },
    /// `session/delete` of the agent's session `session_id`.
    DeleteSession {
        session_id: String,
    },
    Logout,
    Close,
    /// Session `session` (from `addSession`) opened as a fork of `source`.
    ForkSession {
        source: u64,
        session: u64,
    },
    /// Whether the host answers `elicitation/create`.
    AnswerElicitations {
        on: bool,
    },
    Cancel {
        session: Option<u64>,
    },
    Abort {
        op: u64,
    },
    /// The process's life.
    Spawned,
    /// The spawn failed with `code`; `rejected`: the host found the input
    /// at fault meanwhile (the working folder gone), and says how.
    SpawnFailed {
        code: String,
        rejected: Option<String>,
    },
    /// The answer to a `probe` action of turn `op`: `connected`, `remote`,
    /// or the connection error's code.
    Probed {
        op: u64,
        outcome: String,
    },
    /// A write to the process failed (it was gone).
    WriteFailed,
    /// The connection to an agent served elsewhere was lost (not closed as
    /// the engine asked): `opened` whether anything came back on it,
    /// `reason` its error's code or message ('' when the server closed it).
    Disconnected {
        opened: bool,
        reason: String,
    },
    /// The process ended: its exit code (a Windows code of 2^31 or more
    /// reads as JavaScript's `ToInt32` reads it) or the signal that ended it.
    Exited {
        code: Option<i64>,
        signal: Option<String>,
    },
    /// What the client's terminal `id` did.
    TerminalStarted {
        id: String,
    },
    TerminalFailed {
        id: String,
        code: String,
    },
    TerminalExited {
        id: String,
        code: Option<i64>,
        signal: Option<String>,
    },
    /// The command could not be found or started.
    CannotLaunch {
        spawn_failed: bool,
        message: String,
    },
    /// The host refused the input (`message` says why).
    Reject {
        message: String,
    },
    /// The session's next request is recorded as `text`.
    RecordNextAs {
        session: u64,
        text: String,
    },
    /// Record `session` from now on: where its conversation's record
    /// stands (`crate::engine::RecordStart`'s JSON), the values never written.
    Record {
        session: u64,
        start: Value,
        secrets: Vec<String>,
    },
    /// `session` is not recorded here any more (its conversation goes on
    /// with another part).
    StopRecording {
        session: u64,
    },
    /// How `session`'s turns end for its conversation: `hands_off`, a
    /// hands-off failure ends an attempt (the conversation has another
    /// agent); `attempts_before`, the attempts its next turn had (a turn
    /// another part began).
    Conversation {
        session: u64,
        hands_off: bool,
        attempts_before: Option<u32>,
    },
}

impl HostInput {
    /// The host's `{ type, … }`, its fields camelCase. (Read by hand: a
    /// derived reader of this enum weighs ~100 KB of WebAssembly.)
    pub fn read(value: Value) -> Result<HostInput> {
        use HostInput as I;
        let o = Obj::new(&value, "input")?;
        let count = |key: &str| Ok::<_, AgentContextError>(o.opt_count(key)?.map(|n| n as u64));
        let need = |key: &str| {
            count(key)?.ok_or_else(|| {
                let path = o.path_of(key);
                AgentContextError::invalid(format!(
                    "{path} must be a whole number >= 0, got undefined"
                ))
            })
        };
        let text = |key: &str| o.req_str(key).map(str::to_owned);
        let maybe = |key: &str| Ok::<_, AgentContextError>(o.opt_str(key)?.map(str::to_owned));
        let code = |key: &str| o.get(key).and_then(Value::as_f64).map(|c| c as i64);
        Ok(match o.req_str("type")? {
            "open" => I::Open,
            "openSession" => I::OpenSession {
                session: need("session")?,
            },
            "closeSession" => I::CloseSession {
                session: need("session")?,
            },
            "listSessions" => I::ListSessions {
                params: o.get("params").cloned().unwrap_or(Value::Null),
            },
            "setMode" => I::SetMode {
                id: text("id")?,
                session: count("session")?,
            },
            "setModel" => I::SetModel {
                id: text("id")?,
                session: count("session")?,
            },
            "setConfigOption" => I::SetConfigOption {
                id: text("id")?,
                value: o.get("value").cloned().unwrap_or(Value::Null),
                session: count("session")?,
            },
            "authenticate" => I::Authenticate {
                method: text("method")?,
            },
            "deleteSession" => I::DeleteSession {
                session_id: text("sessionId")?,
            },
            "logout" => I::Logout,
            "close" => I::Close,
            "forkSession" => I::ForkSession {
                source: need("source")?,
                session: need("session")?,
            },
            "cancel" => I::Cancel {
                session: count("session")?,
            },
            "answerElicitations" => I::AnswerElicitations {
                on: o.opt_bool("on")?.unwrap_or(false),
            },
            "abort" => I::Abort { op: need("op")? },
            "spawned" => I::Spawned,
            "spawnFailed" => I::SpawnFailed {
                code: text("code")?,
                rejected: maybe("rejected")?,
            },
            "probed" => I::Probed {
                op: need("op")?,
                outcome: text("outcome")?,
            },
            "writeFailed" => I::WriteFailed,
            "disconnected" => I::Disconnected {
                opened: o.opt_bool("opened")?.unwrap_or(false),
                reason: maybe("reason")?.unwrap_or_default(),
            },
            "exited" => I::Exited {
                code: code("code"),
                signal: maybe("signal")?,
            },
            "terminalStarted" => I::TerminalStarted { id: text("id")? },
            "terminalFailed" => I::TerminalFailed {
                id: text("id")?,
                code: text("code")?,
            },
            "terminalExited" => I::TerminalExited {
                id: text("id")?,
                code: code("code"),
                signal: maybe("signal")?,
            },
            "cannotLaunch" => I::CannotLaunch {
                spawn_failed: o.opt_bool("spawnFailed")?.unwrap_or(false),
                message: text("message")?,
            },
            "reject" => I::Reject {
                message: text("message")?,
            },
            "recordNextAs" => I::RecordNextAs {
                session: need("session")?,
                text: text("text")?,
            },
            "record" => I::Record {
                session: need("session")?,
                start: o.get("start").cloned().unwrap_or(Value::Null),
                secrets: match o.get("secrets") {
                    None | Some(Value::Null) => Vec::new(),
                    Some(Value::Array(list)) => list
                        .iter()
                        .filter_map(|v| v.as_str().map(str::to_owned))
                        .collect(),
                    Some(_) => {
                        return Err(AgentContextError::invalid(format!(
                            "{} must be an array of strings",
                            o.path_of("secrets")
                        )))
                    }
                },
            },
            "stopRecording" => I::StopRecording {
                session: need("session")?,
            },
            "conversation" => I::Conversation {
                session: need("session")?,
                hands_off: o.opt_bool("handsOff")?.unwrap_or(false),
                attempts_before: count("attemptsBefore")?
                    .map(|n| u32::try_from(n).unwrap_or(u32::MAX)),
            },
            other => {
                return Err(AgentContextError::invalid(format!(
                    "input.type: no input is called \"{other}\""
                )))
            }
        })
    }
}

impl Engine {
    /// Takes `input` at `now`: the op id of an operation it starts.
    pub fn input(&mut self, input: HostInput, now: u64) -> Result<Option<u64>> {
        use HostInput as I;
        let key = |session: Option<u64>| session.unwrap_or(DEFAULT);
        Ok(match input {
            I::Open => Some(self.open(now)),
            I::OpenSession { session } => Some(self.open_session(session, now)),
            I::CloseSession { session } => Some(self.close_session(session, now)),
            I::ListSessions { params } => Some(self.list_sessions(params, now)),
            I::SetMode { id, session } => Some(self.set_mode_in(key(session), &id, now)),
            I::SetModel { id, session } => Some(self.set_model_in(key(session), &id, now)),
            I::SetConfigOption { id, value, session } => {
                Some(self.set_config_value_in(key(session), &id, value, now)?)
            }
            I::Authenticate { method } => Some(self.authenticate(&method, now)),
            I::DeleteSession { session_id } => Some(self.delete_session(&session_id, now)),
            I::Logout => Some(self.logout(now)),
            I::Close => Some(self.close(now)),
            I::ForkSession { source, session } => Some(self.fork_session(source, session, now)),
            I::AnswerElicitations { on } => {
                self.answer_elicitations(on);
                None
            }
            I::TerminalStarted { id } => {
                self.terminal_started(&id, now);
                None
            }
            I::TerminalFailed { id, code } => {
                self.terminal_failed(&id, &code, now);
                None
            }
            I::TerminalExited { id, code, signal } => {
                self.terminal_exited(&id, code, signal.as_deref(), now);
                None
            }
            I::Cancel { session } => {
                self.cancel_in(key(session), now);
                None
            }
            I::Abort { op } => {
                self.abort(op, now);
                None
            }
            I::Spawned => {
                self.spawned(now);
                None
            }
            I::SpawnFailed { code, rejected } => {
                self.spawn_refused(&code, rejected.as_deref(), now);
                None
            }
            I::Probed { op, outcome } => {
                self.probed(op, &outcome, now);
                None
            }
            I::WriteFailed => {
                self.write_failed(now);
                None
            }
            I::Disconnected { opened, reason } => {
                self.disconnected(opened, &reason, now);
                None
            }
            I::Exited { code, signal } => {
                // `as` wraps, as `ToInt32` does.
                self.exited(code.map(|c| c as i32), signal.as_deref(), now);
                None
            }
            I::CannotLaunch {
                spawn_failed,
                message,
            } => {
                self.cannot_launch(spawn_failed, &message, now);
                None
            }
            I::Reject { message } => {
                self.reject(&message, now);
                None
            }
            I::RecordNextAs { session, text } => {
                self.record_next_as(session, &text);
                None
            }
            I::Record {
                session,
                start,
                secrets,
            } => {
                let start = crate::record::RecordStart::read(&start)?;
                self.record(session, start, &secrets, now);
                None
            }
            I::StopRecording { session } => {
                self.stop_recording(session);
                None
            }
            I::Conversation {
                session,
                hands_off,
                attempts_before,
            } => {
                self.conversation_turns(session, hands_off, attempts_before);
                None
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn inputs_read_from_the_hosts_json() {
        let read = |v: Value| HostInput::read(v).unwrap();
        // A Windows crash's code (0xC0000005) is over i32: read, not refused.
        let crash = read(json!({ "type": "exited", "code": 3_221_225_477u64, "signal": null }));
        assert!(matches!(
            crash,
            HostInput::Exited {
                code: Some(3_221_225_477),
                signal: None
            }
        ));
        assert_eq!(
            3_221_225_477i64 as i32, -1_073_741_819,
            "as ToInt32 reads it"
        );
        let set = read(json!({ "type": "setConfigOption", "id": "mode" }));
        assert!(matches!(
            set,
            HostInput::SetConfigOption {
                value: Value::Null,
                session: None,
                ..
            }
        ));
        let record =
            json!({ "type": "record", "session": 0, "start": { "nextSeq": 3 }, "secrets": ["k"] });
        assert!(matches!(read(record), HostInput::Record { .. }));
        let bad = [
            (
                json!({ "type": "nope" }),
                "input.type: no input is called \"nope\"",
            ),
            (
                json!({ "type": "abort" }),
                "input.op must be a whole number >= 0, got undefined",
            ),
            (
                json!({ "type": "reject", "message": 1 }),
                "input.message must be a string, got a number",
            ),
            (json!(3), "input must be an object, got a number"),
        ];
        for (input, expected) in bad {
            let err = HostInput::read(input).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert_eq!(err.message(), expected);
        }
    }
}
