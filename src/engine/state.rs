//! The engine's state as data: which protocol it speaks and with what
//! settings, where the process and each session stand, what waits for an
//! answer. No behaviour beyond making a session: the engine's files act
//! on it.

use std::collections::VecDeque;

use serde_json::Value;

use super::action::Snapshot;
use super::cli::CliSessionConfig;
use super::config::SessionConfig;
use super::judge::Stage;
use super::turn::Turn;
use crate::acp::session::SessionStep;
use crate::agents::AgentSpec;
use crate::attempt::RunOptions;
use crate::record::Recorder;

/// What the engine speaks, with its settings: the Agent Client Protocol
/// (one process, any number of sessions) or the agent's own command line
/// (one session: one process for every turn, or a process per turn).
#[derive(Debug)]
pub enum Config {
    Acp(Box<SessionConfig>),
    Cli(Box<CliSessionConfig>),
}

impl Config {
    pub fn agent(&self) -> &'static AgentSpec {
        match self {
            Config::Acp(c) => c.agent,
            Config::Cli(c) => c.agent,
        }
    }

    pub fn options(&self) -> &RunOptions {
        match self {
            Config::Acp(c) => &c.options,
            Config::Cli(c) => &c.options,
        }
    }

    /// The command as messages name it: the file found, else as given.
    pub fn command_named(&self) -> &str {
        match self {
            Config::Acp(c) => c.found.as_deref().unwrap_or(&c.command),
            Config::Cli(c) => c.found.as_deref().unwrap_or(&c.file),
        }
    }

    pub fn is_acp(&self) -> bool {
        matches!(self, Config::Acp(_))
    }
}

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

/// Where `initialize` stands on the running process (ACP).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Init {
    None,
    Initializing,
    Done,
}

/// Where a session stands on the running process (ACP; a session over the
/// CLI is ready whenever its process allows a turn).
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
    /// `session/delete` of this session id.
    Delete(String),
    /// `logout`.
    Logout,
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

/// A control request to a CLI that reads them, awaiting its response.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Control {
    Interrupt,
    /// `set_model` for operation `op`.
    Model(u64),
}

/// What only a session over the CLI keeps.
#[derive(Debug, Default)]
pub(super) struct CliState {
    /// The session the running process was started to resume, verified on
    /// its first turn.
    pub(super) resumed: Option<String>,
    /// The model of the next process (`options.model`, then `setModel`).
    pub(super) model: Option<String>,
    /// `open` operations waiting for the process.
    pub(super) opening: Vec<u64>,
    pub(super) controls: Vec<(String, Control)>,
    pub(super) next_request: u64,
}

/// One session: its queue, its running turn, its state.
#[derive(Debug)]
pub(crate) struct Session {
    pub(super) key: u64,
    /// Its settings over ACP: the process's, with its own folder, system
    /// prompt, MCP servers and the session to reopen. None over the CLI,
    /// whose one session has the engine's.
    pub(super) cfg: Option<Box<SessionConfig>>,
    pub(super) setup: Setup,
    pub(super) queue: VecDeque<Queued>,
    pub(super) turn: Option<Box<Turn>>,
    pub(super) snapshot: Snapshot,
    /// The latest commands list of a turn, as the agent sent it, until the
    /// session is read (`settle_snapshot`).
    pub(super) commands_text: Option<String>,
    /// The session to reopen after a restart: asked for by the user, or
    /// one that was sent a prompt (over the CLI: one that held a turn).
    pub(super) keep_session: Option<String>,
    /// The instructions still to open the next prompt: a new session of an
    /// agent that takes no system prompt when the session is made.
    pub(super) system_inline: bool,
    /// A failure to open it that ends the operations waiting for it.
    pub(super) setup_failed: Option<(Stage, Value)>,
    /// `close_session` was called: its op.
    pub(super) closing: Option<u64>,
    pub(super) closed: bool,
    /// How it was last opened over ACP (new, resumed, loaded).
    pub(super) opened_by: Option<SessionStep>,
    /// Its conversation has another agent: a hands-off failure ends an
    /// attempt, not the turn, in its record.
    pub(super) hands_off: bool,
    /// The attempts its next turn had before (a turn another part began).
    pub(super) attempts_before: Option<u32>,
    /// The agent's compactions reported between turns (a turn's are its
    /// reply's).
    pub(super) compactions: crate::agent_output::compaction::Compactions,
}

impl Session {
    pub(super) fn new(key: u64, cfg: Option<SessionConfig>, keep: Option<String>) -> Session {
        Session {
            key,
            keep_session: keep,
            cfg: cfg.map(Box::new),
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
            opened_by: None,
            hands_off: false,
            attempts_before: None,
            compactions: Default::default(),
        }
    }

    /// Whether nothing of it runs or waits.
    pub(super) fn is_idle(&self) -> bool {
        self.turn.is_none() && self.queue.is_empty() && self.closing.is_none()
    }
}

/// What the engine keeps of one recorded session.
pub(crate) struct SessionRecord {
    pub(super) key: u64,
    pub(super) recorder: Recorder,
    /// The op of the turn being recorded.
    pub(super) op: Option<u64>,
    /// Its first entry was written (`part`), or it is the live part
    /// reopened (its `resumed`, `loaded` or `restarted` are written).
    pub(super) opened: bool,
    /// The part it begins, until its `part` entry is written.
    pub(super) part: Option<crate::record::PartStart>,
    pub(super) mode: Option<String>,
    pub(super) model: Option<String>,
    /// What the next request is recorded as (instead of the prompt sent:
    /// the user's words of a turn that carries a rebuilt conversation).
    pub(super) next_text: Option<String>,
}

impl std::fmt::Debug for SessionRecord {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionRecord")
            .field("key", &self.key)
            .field("opened", &self.opened)
            .finish_non_exhaustive()
    }
}
