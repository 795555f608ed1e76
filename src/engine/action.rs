//! What the engine asks its host to do, and what it tells it: the host
//! takes these from [`super::Engine::poll`] in order and carries each out.

use serde::Serialize;
use serde_json::Value;

use crate::agent_output::AgentEvent;
use crate::attempt::Failure;

use super::result::TurnResult;

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
        files: Vec<crate::launch::invocation::InvocationFile>,
        outputs: Vec<String>,
        /// A file the agent tells of its own retries in: read while the
        /// process runs, each new part handed to `retry_log`.
        retry_log: Option<crate::attempt::LogWatch>,
    },
    /// Connect to an agent served elsewhere, the agent's process from then
    /// on: each `write` is sent on it as its JSON-RPC messages, each
    /// message that comes back is handed to `stdout` as a line, `closeStdin`
    /// closes it (then `exited` with code 0), `kill` cuts it (then `exited`
    /// with signal `SIGKILL`); a connection lost otherwise is
    /// `disconnected`. Answer with `spawned` once it is made (messages
    /// written before it opens wait for it).
    Connect(crate::acp::transport::Transport),
    /// Write these bytes (whole JSON-RPC lines) to the agent's stdin.
    Write(String),
    /// End the agent's stdin.
    CloseStdin,
    /// Kill the agent's whole process tree.
    Kill,
    /// Ask the host (`onPermission`, the file system); answer with
    /// `host_answer(call, …)`.
    Host { call: u64, request: HostRequest },
    /// The agent cancelled what host request `call` asks (`$/cancel_request`):
    /// it was answered already; the app's callback is aborted (its
    /// `signal`), and what it answers later is dropped.
    HostCancel { call: u64 },
    /// An event of turn `op`'s reply, for its `onEvent`; `attempt`, the
    /// attempt that streamed it (from 1 across retries and the
    /// conversation's parts), which a text event says.
    Event {
        op: u64,
        event: AgentEvent,
        attempt: u32,
    },
    /// Turn `op`'s attempt `attempt` failed after it streamed text: that
    /// text is no reply (`onEvent` hears `{ type: 'discard', attempt }`).
    Discard { op: u64, attempt: u32 },
    /// A `session/update` the session received (modes, commands, options,
    /// and every update between turns), for `onUpdate`.
    Update(Value),
    /// The same for a session of an engine of several ([`super::Engine::process`]),
    /// by its key.
    SessionUpdate { session: u64, update: Value },
    /// Something the caller should hear (the host's logger): a prompt sent
    /// as it is that every later request of the session will carry, …
    Warn(String),
    /// Operation `op` is over.
    Done { op: u64, outcome: Outcome },
    /// Start or kill a client terminal's process
    /// ([`crate::acp::terminals::HostTerminal`]).
    Terminal(crate::acp::terminals::HostTerminal),
    /// Lines of session `session`'s record to keep (appended in order to
    /// its conversation's record).
    Record { session: u64, lines: String },
    /// Try a TCP connection to `host:port` (the endpoint, on this
    /// machine) and close it; answer with `probed(op, outcome)`:
    /// `connected`, `remote` when the agent runs on another machine (a
    /// connection from here says nothing of there), else the connection
    /// error's code (`ECONNREFUSED`, …).
    Probe { op: u64, host: String, port: u16 },
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
    /// `elicitation/create`'s params, for `onElicitation`; answer `{
    /// action, content? }` (null: declined).
    Elicitation(Value),
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

impl Action {
    /// The action as the host reads it: `{ kind, … }` (a turn's `done`
    /// carries no result: the binding writes it, the one way for every
    /// entry point).
    pub fn to_json(&self) -> Value {
        use serde_json::json;
        let pairs = |list: &[(String, String)]| -> Value {
            list.iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect::<serde_json::Map<_, _>>()
                .into()
        };
        match self {
            Action::Spawn {
                command,
                args,
                env,
                default_env,
                cwd,
                files,
                outputs,
                retry_log,
            } => json!({"kind": "spawn", "command": command, "args": args, "env": pairs(env),
                "defaultEnv": pairs(default_env), "cwd": cwd, "files": files, "outputs": outputs,
                "retryLog": retry_log}),
            Action::Connect(t) => json!({"kind": "connect", "url": t.url, "transport": t.kind,
                "headers": pairs(&t.headers)}),
            Action::Write(line) => json!({"kind": "write", "data": line}),
            Action::CloseStdin => json!({"kind": "closeStdin"}),
            Action::Kill => json!({"kind": "kill"}),
            Action::Host { call, request } => match request {
                HostRequest::Permission(params) => {
                    json!({"kind": "host", "call": call, "ask": "permission", "params": params})
                }
                HostRequest::Read { path } => {
                    json!({"kind": "host", "call": call, "ask": "read", "path": path})
                }
                HostRequest::Write { path, content } => {
                    json!({"kind": "host", "call": call, "ask": "write", "path": path, "content": content})
                }
                HostRequest::Elicitation(params) => {
                    json!({"kind": "host", "call": call, "ask": "elicitation", "params": params})
                }
            },
            Action::HostCancel { call } => json!({"kind": "cancelHost", "call": call}),
            Action::Terminal(t) => t.clone().host_json(),
            Action::Event { op, event, attempt } => {
                let text = matches!(event, AgentEvent::Text { .. });
                let mut event = json!(event);
                if let (true, Value::Object(map)) = (text, &mut event) {
                    map.insert("attempt".into(), json!(attempt));
                }
                json!({"kind": "event", "op": op, "event": event})
            }
            Action::Discard { op, attempt } => {
                json!({"kind": "event", "op": op, "event": {"type": "discard", "attempt": attempt}})
            }
            Action::Update(update) => json!({"kind": "update", "update": update}),
            Action::SessionUpdate { session, update } => {
                json!({"kind": "update", "update": update, "session": session})
            }
            Action::Done { op, outcome } => match outcome {
                Outcome::Turn(_) => json!({"kind": "done", "op": op}),
                Outcome::Opened(snapshot) => json!({"kind": "done", "op": op, "opened": snapshot}),
                Outcome::Ok(value) => json!({"kind": "done", "op": op, "ok": value}),
                Outcome::Failed(f) => json!({"kind": "done", "op": op, "failed": {
                    "kind": f.kind.as_str(), "message": f.message, "retryable": f.kind.is_retryable()}}),
            },
            Action::Warn(message) => json!({"kind": "warn", "message": message}),
            Action::Record { session, lines } => {
                json!({"kind": "record", "session": session, "lines": lines})
            }
            Action::Probe { op, host, port } => {
                json!({"kind": "probe", "op": op, "host": host, "port": port})
            }
            Action::Closed => json!({"kind": "closed"}),
        }
    }
}

/// Every queued action as the host reads it, and the turns that ended among
/// them, taken out for the binding to write the one way.
#[derive(Debug, Default)]
pub struct Polled {
    /// Each action's JSON, in order.
    pub actions: Vec<Value>,
    /// The turns whose `done` is in `actions`, by index (none for a run).
    pub turns: Vec<(usize, TurnResult)>,
    /// A run's last turn among them: a run's result is taken on its own,
    /// not sent in its `done` (a long reply is not copied and parsed twice).
    pub last: Option<TurnResult>,
}

impl super::Engine {
    /// Every queued action, in order (see [`Polled`]); `run`: the engine's
    /// turn is a run's.
    pub fn poll_all(&mut self, run: bool) -> Polled {
        let mut polled = Polled::default();
        while let Some(action) = self.poll() {
            if let Action::Done {
                outcome: Outcome::Turn(turn),
                ..
            } = &action
            {
                match run {
                    true => polled.last = Some((**turn).clone()),
                    false => polled.turns.push((polled.actions.len(), (**turn).clone())),
                }
            }
            polled.actions.push(action.to_json());
        }
        polled
    }
}
