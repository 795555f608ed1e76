//! What the engine asks its host to do, and what it tells it: the host
//! takes these from [`super::Engine::poll`] in order and carries each out.

use serde::Serialize;
use serde_json::Value;

use crate::agent_output::AgentEvent;
use crate::run::Failure;

use super::turn::TurnResult;

/// One thing for the host to do or to hear.
#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// Start the agent: `command args…` in `cwd`, the caller's environment
    /// with `env` added and `default_env` added where missing; stdin kept
    /// open. Before it, write `files` and remove the `outputs` left from
    /// before; once it exited, hand each output file it wrote to the engine
    /// (`output`), then say it exited. Answer with `spawned` or
    /// `spawn_failed`.
    Spawn {
        command: String,
        args: Vec<String>,
        env: Vec<(String, String)>,
        default_env: Vec<(String, String)>,
        cwd: String,
        files: Vec<crate::invocation::InvocationFile>,
        outputs: Vec<String>,
        /// A file the agent tells of its own retries in: read while the
        /// process runs, each new part handed to `retry_log`.
        retry_log: Option<crate::run::LogWatch>,
    },
    /// Write these bytes (whole JSON-RPC lines) to the agent's stdin.
    Write(String),
    /// End the agent's stdin.
    CloseStdin,
    /// Kill the agent's whole process tree.
    Kill,
    /// Ask the host (`onPermission`, the file system); answer with
    /// `host_answer(call, …)`.
    Host { call: u64, request: HostRequest },
    /// An event of turn `op`'s reply, for its `onEvent`.
    Event { op: u64, event: AgentEvent },
    /// A `session/update` the session received (modes, commands, options,
    /// and every update between turns), for `onUpdate`.
    Update(Value),
    /// The same for a session of an engine of several ([`super::Engine::process`]),
    /// by its key.
    SessionUpdate { session: u64, update: Value },
    /// Operation `op` is over.
    Done { op: u64, outcome: Outcome },
    /// Something the caller should know, for its logger (an adapter that
    /// is no longer maintained, once per engine).
    Warn(String),
    /// The process is gone and the session closed: nothing more will come.
    Closed,
}

/// A question for the host.
#[derive(Clone, Debug, PartialEq)]
pub enum HostRequest {
    /// `session/request_permission`'s params, for `onPermission`.
    Permission(Value),
    /// Read this file (its links not yet resolved: check the real path with
    /// `path_allowed` first). Answer `{ content }`, or `{ error: code }`.
    Read { path: String },
    /// Write `content` to this file (same check). Answer `{}` or `{ error }`.
    Write { path: String, content: String },
}

/// How an operation ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Outcome {
    /// A prompt's turn (also when it failed).
    Turn(Box<TurnResult>),
    /// The session is open (`open`, and the session's state now).
    Opened(Box<Snapshot>),
    /// Any other operation succeeded; its response.
    Ok(Value),
    Failed(Failure),
}

/// The session as the host shows it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Snapshot {
    pub session_id: Option<String>,
    /// `initialize`'s `agentCapabilities`.
    pub capabilities: Value,
    pub auth_methods: Value,
    /// `availableModes`, and the current one.
    pub modes: Value,
    pub mode: Option<String>,
    pub config_options: Value,
    /// The models the agent offers (`models.availableModels`), and the current one.
    pub models: Value,
    pub model: Option<String>,
    pub commands: Value,
    pub agent_info: Value,
}
