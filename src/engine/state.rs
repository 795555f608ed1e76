//! The engine's state as data: where the process and each session stand,
//! what waits for an answer, and what the host is asked. No behaviour
//! beyond making a session: the engine's files (`engine.rs`, `sessions.rs`,
//! `setup.rs`, `turns.rs`, …) act on it.

use std::collections::VecDeque;

use serde_json::Value;

use super::action::Snapshot;
use super::config::SessionConfig;
use super::judge::Stage;
use super::turn::Turn;
use crate::acp::session::SessionStep;

/// Where the process stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proc {
    /// Not running (not yet started, or gone).
    Down,
    /// `Spawn` asked for; waiting for `spawned`.
    Spawning,
    /// Running, stdin open.
    Up,
}

/// Where `initialize` stands on the running process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Init {
    None,
    Initializing,
    Done,
}

/// Where a session stands on the running process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Setup {
    None,
    Opening,
    /// Setting the mode in which the agent asks before acting.
    AskingMode,
    Ready,
}

/// A request of ours awaiting its response; `u64`s after the first of
/// `Session`, `AskMode`, `Prompt` and `Close` are the session's key.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Pending {
    Initialize,
    Session(u64, SessionStep),
    AskMode(u64),
    Prompt(u64),
    /// A user's operation (`set_mode`, …), of a session or the process.
    Op(u64, OpKind, Option<u64>),
    /// `session/close`, as the session ends.
    Close(u64),
}

#[derive(Clone, Debug, PartialEq)]
pub(super) enum OpKind {
    SetMode(String),
    SetConfig(String, Value),
    SetModel(String),
    Authenticate(String),
    /// A session opened, or (of the process) the process started.
    Open,
    /// `session/list`'s params.
    List(Value),
    /// `session/fork` of the session it is queued in, into session `u64`.
    Fork(u64),
}

/// A queued user operation.
#[derive(Debug)]
pub(super) enum Queued {
    Prompt(Box<Turn>),
    Other(u64, OpKind),
}

/// A request from the agent waiting for the host's answer.
#[derive(Debug)]
pub(super) struct HostCall {
    pub(super) call: u64,
    pub(super) rpc_id: Value,
    pub(super) kind: CallKind,
    /// The session it came from (its folder bounds the files).
    pub(super) key: Option<u64>,
}

#[derive(Debug)]
pub(super) enum CallKind {
    Permission(Value),
    /// `elicitation/create`'s params.
    Elicitation(Value),
    Read {
        line: Option<u64>,
        limit: Option<u64>,
    },
    Write,
}

/// One session on the process.
#[derive(Debug)]
pub(crate) struct Session {
    pub(super) key: u64,
    /// Its settings: the process's, with its own folder, system prompt,
    /// MCP servers and the session to reopen (`options.session_id`).
    pub(super) cfg: SessionConfig,
    pub(super) setup: Setup,
    pub(super) queue: VecDeque<Queued>,
    pub(super) turn: Option<Box<Turn>>,
    pub(super) snapshot: Snapshot,
    /// The latest commands list of a turn, as the agent sent it, until the
    /// session is read (`settle_snapshot`).
    pub(super) commands_text: Option<String>,
    /// The session to reopen after a restart: asked for by the user, or
    /// one that was sent a prompt.
    pub(super) keep_session: Option<String>,
    /// The instructions still to open the next prompt: a new session of an
    /// agent that takes no system prompt at `session/new`.
    pub(super) system_inline: bool,
    /// A failure to open it that ends the operations waiting for it.
    pub(super) setup_failed: Option<(Stage, Value)>,
    /// `close_session` was called: its op.
    pub(super) closing: Option<u64>,
    pub(super) closed: bool,
}

impl Session {
    pub(super) fn new(key: u64, cfg: SessionConfig) -> Session {
        Session {
            key,
            keep_session: cfg.options.session_id.clone(),
            cfg,
            setup: Setup::None,
            queue: VecDeque::new(),
            turn: None,
            snapshot: Snapshot {
                modes: Value::Array(Vec::new()),
                config_options: Value::Array(Vec::new()),
                commands: Value::Array(Vec::new()),
                auth_methods: Value::Array(Vec::new()),
                ..Snapshot::default()
            },
            commands_text: None,
            system_inline: false,
            setup_failed: None,
            closing: None,
            closed: false,
        }
    }

    /// Whether nothing of it runs or waits.
    pub(super) fn is_idle(&self) -> bool {
        self.turn.is_none() && self.queue.is_empty() && self.closing.is_none()
    }
}
