//! The session engine: one agent process (or, over a CLI without a
//! streaming input, a process per turn) and its sessions, as one state
//! machine with no I/O and no clock, for both protocols. The host feeds it
//! what happened (`spawned`, `stdout`, `stderr`, `exited`, `host_answer`,
//! `timeout`, each with the time now) and what the user asked (`open`,
//! `prompt`, `cancel`, `set_mode`, …); it answers with [`Action`]s from
//! `poll()` and says when to wake it with `poll_timeout()`.
//!
//! One turn machine: every session has one queue and at most one running
//! turn; every deadline is in one table ([`TimerTable`]); a turn is stopped,
//! judged, retried and ended by the same code whatever the protocol
//! (`turns.rs`). What differs — how a prompt is written, what ends a turn,
//! how a session is opened and reopened, what a stop sends — is in the
//! protocol's own files: ACP (`setup.rs`, `inbound.rs`, `ops.rs`,
//! `acp_turns.rs`, …, the JSON-RPC client, each line parsed once) and the
//! CLI (`cli/wire.rs`: Claude Code keeps one process reading a message a
//! line; the others start a process per turn resuming the session with
//! their verified flag).

use std::collections::VecDeque;

use serde_json::Value;

use super::action::{Action, Outcome, Snapshot};
use super::cli::CliSessionConfig;
use super::config::{Resolved, SessionConfig};
use super::judge::Stage;
pub(super) use super::state::*;
use super::timers::{Timer, TimerTable};
use crate::agent_output::lines::LineBuffer;
use crate::agents::{AcpLaunch, AgentSpec};
use crate::attempt::{command_not_found, AgentErrorKind, Failure, OutputTail, RunOptions};

/// After a stop (`session/cancel`, an interrupt), how long the turn may
/// take to end before the process tree is killed.
pub const CANCEL_GRACE_MS: u64 = 5_000;
/// How long a closing session is given to save itself and exit.
pub const CLOSE_GRACE_MS: u64 = 5_000;
/// ACP's `auth_required` error code.
pub const AUTH_REQUIRED: i64 = -32000;

/// The session engine (see the module's doc).
#[derive(Debug)]
pub struct Engine {
    pub(super) cfg: Config,
    /// A run (`runAgent`, the Gemini tool): a turn stopped for its silence
    /// or past the agent's own retries is tried again, as its kind says.
    pub(super) one_shot: bool,
    pub(super) proc: Proc,
    pub(super) lines: LineBuffer,
    /// The sessions, in the order opened (over the CLI: one).
    pub(super) sessions: Vec<Session>,
    pub(super) next_key: u64,
    pub(super) next_op: u64,
    pub(super) actions: VecDeque<Action>,
    pub(super) timers: TimerTable,
    /// The process's last lines (for a failure outside a turn).
    pub(super) tail: OutputTail,
    /// Set when starting failed for good (command not found, …): every
    /// operation fails with it.
    pub(super) broken: Option<Failure>,
    /// `close()` was called: its op.
    pub(super) closing: Option<u64>,
    pub(super) closed: bool,
    /// The last time the host gave.
    pub(super) now: u64,
    // ----- over ACP -----
    pub(super) init: Init,
    pub(super) next_id: u64,
    pub(super) pending: Vec<(u64, Pending)>,
    pub(super) next_call: u64,
    /// Operations of the process itself (`authenticate`, `session/list`, its start).
    pub(super) process_queue: VecDeque<(u64, OpKind)>,
    pub(super) calls: Vec<HostCall>,
    /// `initialize`'s result on the running process.
    pub(super) initialized: Value,
    /// What `initialize` said (capabilities, auth methods, agent info).
    pub(super) info: Snapshot,
    /// Whether `session/close` is advertised.
    pub(super) can_close: bool,
    /// Whether the host answers permissions (`onPermission`).
    pub(super) asks_host: bool,
    /// Whether the host hears the default session's updates (`onUpdate`).
    pub(super) hears_updates: bool,
    /// A failure of `initialize` (or of the start) that ends what waits.
    pub(super) init_failed: Option<(Stage, Value)>,
    /// The warning for an adapter no longer maintained was given.
    pub(super) warned_superseded: bool,
    /// How long the agent is given to save its session, once its stdin
    /// ended, before it is killed (an agent that ignores EOF; 0: at once).
    pub(super) save_wait_ms: u64,
    /// What the process that went had not answered yet (`initialize`, its
    /// session request), set as it goes.
    pub(super) gone_before: &'static str,
    /// The sessions recorded (`recording.rs`).
    pub(super) records: Vec<SessionRecord>,
    /// A parser's events are swapped out into this (see `drain_events`).
    pub(super) event_buffer: Vec<crate::agent_output::AgentEvent>,
    // ----- over the CLI -----
    pub(super) cli: CliState,
    /// Elicitations and client terminals (`client_side.rs`).
    pub(super) client: crate::acp::client::ClientState,
}

/// The key of the session of an engine made by [`Engine::new`] or [`Engine::cli`].
pub const DEFAULT: u64 = 0;

impl Engine {
    /// An engine for one session over ACP on its process
    /// (`openAgentSession`, `runAgent`): its session is [`DEFAULT`].
    pub fn new(cfg: SessionConfig, asks_host: bool) -> Engine {
        let mut engine = Engine::process(cfg, asks_host);
        let cfg = engine.acp_cfg().clone();
        let keep = cfg.options.session_id.clone();
        engine.sessions.push(Session::new(DEFAULT, Some(cfg), keep));
        engine
    }

    /// An engine for an ACP process alone (`openAgent`): sessions are
    /// added with [`add_session`](Self::add_session).
    pub fn process(cfg: SessionConfig, asks_host: bool) -> Engine {
        let mut engine = Engine::with(Config::Acp(Box::new(cfg)));
        engine.asks_host = asks_host;
        engine
    }

    /// An engine for one session over the agent's own command line; a
    /// run's (`CliSessionConfig::one_shot`) tries a turn stopped for its
    /// silence again.
    pub fn cli(cfg: CliSessionConfig) -> Engine {
        let keep = cfg.options.session_id.clone();
        let model = cfg.options.model.clone();
        let inline = cfg.system_prompt.is_some() && !cfg.system_as_flag() && keep.is_none();
        let one_shot = cfg.one_shot;
        let mut engine = Engine::with(Config::Cli(Box::new(cfg)));
        engine.one_shot = one_shot;
        let mut session = Session::new(DEFAULT, None, keep.clone());
        session.system_inline = inline;
        session.snapshot.session_id = keep;
        session.snapshot.capabilities = Value::Object(Default::default());
        session.snapshot.models = Value::Array(Vec::new());
        session.snapshot.model = model.clone();
        session.setup = Setup::Ready;
        engine.sessions.push(session);
        engine.cli.model = model;
        engine
    }

    fn with(cfg: Config) -> Engine {
        Engine {
            cfg,
            one_shot: false,
            proc: Proc::Down,
            lines: LineBuffer::default(),
            sessions: Vec::new(),
            next_key: DEFAULT + 1,
            next_op: 0,
            actions: VecDeque::new(),
            timers: TimerTable::default(),
            tail: OutputTail::default(),
            broken: None,
            closing: None,
            closed: false,
            now: 0,
            init: Init::None,
            next_id: 0,
            pending: Vec::new(),
            next_call: 0,
            process_queue: VecDeque::new(),
            calls: Vec::new(),
            initialized: Value::Null,
            info: Snapshot {
                auth_methods: Value::Array(Vec::new()),
                ..Snapshot::default()
            },
            can_close: false,
            asks_host: false,
            hears_updates: true,
            init_failed: None,
            warned_superseded: false,
            save_wait_ms: 0,
            gone_before: "initialize",
            event_buffer: Vec::new(),
            records: Vec::new(),
            cli: CliState::default(),
            client: Default::default(),
        }
    }

    /// A run's engine (`runAgent`): one prompt, then closed; a turn
    /// stopped for its silence or past the agent's own retries is tried
    /// again, as its kind says.
    pub fn for_run(&mut self) {
        self.one_shot = true;
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    /// The settings over ACP (`None` over the CLI).
    pub fn acp_config(&self) -> Option<&SessionConfig> {
        match &self.cfg {
            Config::Acp(c) => Some(c),
            Config::Cli(_) => None,
        }
    }

    /// The settings over the CLI (`None` over ACP).
    pub fn cli_config(&self) -> Option<&CliSessionConfig> {
        match &self.cfg {
            Config::Cli(c) => Some(c),
            Config::Acp(_) => None,
        }
    }

    /// The ACP settings of an engine that speaks ACP. Only the ACP files
    /// call it, and only on such an engine (its protocol never changes).
    pub(super) fn acp_cfg(&self) -> &SessionConfig {
        match &self.cfg {
            Config::Acp(c) => c,
            Config::Cli(_) => unreachable!("an ACP step on an engine over the CLI"),
        }
    }

    /// The CLI settings of an engine over the CLI (likewise).
    pub(super) fn cli_cfg(&self) -> &CliSessionConfig {
        match &self.cfg {
            Config::Cli(c) => c,
            Config::Acp(_) => unreachable!("a CLI step on an engine over ACP"),
        }
    }

    pub(super) fn agent(&self) -> &'static AgentSpec {
        self.cfg.agent()
    }

    pub(super) fn launch_spec(&self) -> &'static AcpLaunch {
        self.acp_cfg().launch
    }

    pub(super) fn options(&self) -> &RunOptions {
        self.cfg.options()
    }

    /// Whether one process holds every turn (ACP; a CLI reading a message a
    /// line in a session), else a process per turn.
    pub fn persistent(&self) -> bool {
        match &self.cfg {
            Config::Acp(_) => true,
            Config::Cli(c) => c.persistent(),
        }
    }

    /// The command was resolved; a command line over the platform's limits
    /// fails every operation, `invalid_params`.
    pub fn launch(&mut self, resolved: Resolved, now: u64) {
        let outcome = match &mut self.cfg {
            Config::Acp(cfg) => {
                let outcome = cfg.launch(&resolved);
                if outcome.is_ok() {
                    for s in &mut self.sessions {
                        if let Some(sc) = s.cfg.as_mut() {
                            sc.command.clone_from(&cfg.command);
                            sc.args.clone_from(&cfg.args);
                            sc.found.clone_from(&cfg.found);
                            sc.options.platform = cfg.options.platform;
                        }
                    }
                }
                outcome
            }
            Config::Cli(cfg) => cfg.launch(resolved),
        };
        if let Err(e) = outcome {
            self.reject(e.message(), now);
        }
    }

    /// The session as it stands (the first one; see [`snapshot_of`](Self::snapshot_of)).
    pub fn snapshot(&mut self) -> &Snapshot {
        if self.sessions.is_empty() {
            return &self.info;
        }
        self.settle_snapshot(0);
        &self.sessions[0].snapshot
    }

    /// Whether the host hears the default session's updates (`Update`
    /// actions); true unless told otherwise.
    pub fn hear_updates(&mut self, on: bool) {
        self.hears_updates = on;
    }

    /// What `initialize` said: capabilities, auth methods, agent info.
    pub fn process_info(&self) -> &Snapshot {
        &self.info
    }

    /// Whether the agent process is running.
    pub fn is_running(&self) -> bool {
        self.proc != Proc::Down
    }

    /// The next action, in order.
    pub fn poll(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// When to call [`timeout`](Self::timeout) next (the host's clock).
    pub fn poll_timeout(&self) -> Option<u64> {
        self.timers.next()
    }

    /// Time passed: the deadlines that are due fire, earliest first.
    pub fn timeout(&mut self, now: u64) {
        self.now = now;
        for timer in self.timers.take_due(now) {
            let session = timer.session().and_then(|k| self.at(k));
            match (timer, session) {
                (Timer::SuspendKill | Timer::CloseKill, _) => {
                    self.give_up(|p| matches!(p, Pending::Close(_)));
                    self.kill()
                }
                (Timer::IdleClose, _) => self.suspend(now),
                (Timer::Setup, _) => {
                    self.give_up(|p| {
                        matches!(
                            p,
                            Pending::Initialize
                                | Pending::Session(..)
                                | Pending::AskMode(_)
                                | Pending::Op(_, OpKind::Fork(_), _)
                        )
                    });
                    self.setup_silent()
                }
                (Timer::Retry(_), Some(i)) => {
                    if let Some(turn) = self.sessions[i].turn.as_mut() {
                        turn.retrying = false;
                    }
                    self.pump(now);
                }
                (Timer::Kill(key), Some(_)) => {
                    self.give_up(|p| *p == Pending::Prompt(key));
                    self.push(Action::Kill)
                }
                (Timer::Deadline(_), Some(i)) => {
                    self.stop_turn(i, crate::attempt::StopReason::MaxDuration, now)
                }
                (Timer::Idle(_), Some(i)) => {
                    self.stop_turn(i, crate::attempt::StopReason::IdleTimeout, now)
                }
                _ => {}
            }
        }
    }

    // ----- what the user asks -----

    /// Start the agent and open the session (done once it is open; over
    /// the CLI with a process per turn, at once); on an engine of the
    /// process alone, start it (done once initialized).
    pub fn open(&mut self, now: u64) -> u64 {
        if !self.cfg.is_acp() {
            return self.cli_open(now);
        }
        if self.at(DEFAULT).is_some() {
            return self.open_session(DEFAULT, now);
        }
        let op = self.op_id();
        self.process_queue.push_back((op, OpKind::Open));
        self.pump(now);
        op
    }

    /// Queue a prompt in the default session: `blocks` are its content blocks.
    pub fn prompt(&mut self, blocks: Value, limits: super::TurnLimits, now: u64) -> u64 {
        self.prompt_in(DEFAULT, blocks, limits, now)
    }

    pub fn set_mode(&mut self, id: &str, now: u64) -> u64 {
        self.set_mode_in(DEFAULT, id, now)
    }

    pub fn set_config_option(&mut self, id: &str, value: Value, now: u64) -> u64 {
        self.set_config_option_in(DEFAULT, id, value, now)
    }

    pub fn set_model(&mut self, id: &str, now: u64) -> u64 {
        self.set_model_in(DEFAULT, id, now)
    }

    /// `authenticate` on the process (started for it when down).
    pub fn authenticate(&mut self, method: &str, now: u64) -> u64 {
        if !self.cfg.is_acp() {
            return self.cli_refuse(super::cli::CliRefusal::Authenticate(method), now);
        }
        let op = self.op_id();
        self.process_queue
            .push_back((op, OpKind::Authenticate(method.to_owned())));
        self.pump(now);
        op
    }

    /// Cancel the default session's running turn (it ends `aborted`,
    /// `stopReason` `cancelled`); queued prompts stay queued.
    pub fn cancel(&mut self, now: u64) {
        self.cancel_in(DEFAULT, now);
    }

    /// The command could not be resolved (`command_not_found`, or
    /// `spawn_failed` when only a shell could run it): every operation fails.
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: &str, now: u64) {
        let agent = self.agent();
        let failure = if spawn_failed {
            Failure::new(
                AgentErrorKind::SpawnFailed,
                format!("{} could not be started: {message}", agent.name),
            )
        } else {
            let command = match &self.cfg {
                Config::Acp(c) => c.command.clone(),
                Config::Cli(c) => c.options.command.clone(),
            };
            self.adapter_named(command_not_found(agent, &command, message.to_owned()))
        };
        self.break_with(failure, now);
    }

    /// A problem with the input found by the host (a bad `cd`, a command
    /// line over the system's limits): every operation fails with
    /// `invalid_params`.
    pub fn reject(&mut self, message: &str, now: u64) {
        self.break_with(invalid(message), now);
    }

    /// A "not found" message names the package that installs what runs
    /// over ACP (an adapter, for some agents), not the agent's CLI.
    pub(super) fn adapter_named(&self, mut failure: Failure) -> Failure {
        if let Config::Acp(cfg) = &self.cfg {
            let (cli, acp) = (cfg.agent.package(), cfg.launch.package);
            if failure.kind == AgentErrorKind::CommandNotFound && cli != acp {
                failure.message = failure.message.replace(cli, acp);
            }
        }
        failure
    }

    // ----- inside -----

    pub(super) fn op_id(&mut self) -> u64 {
        self.next_op += 1;
        self.next_op
    }

    pub(super) fn push(&mut self, action: Action) {
        if !self.records.is_empty() {
            self.record_action(&action);
        }
        self.actions.push_back(action);
    }

    pub(super) fn done_failed(&mut self, op: u64, failure: Failure) {
        self.push(Action::Done {
            op,
            outcome: Outcome::Failed(failure),
        });
    }

    pub(super) fn done_ok(&mut self, op: u64) {
        self.push(Action::Done {
            op,
            outcome: Outcome::Ok(Value::Null),
        });
    }

    /// Output that counts as progress: the running turns' idle deadlines,
    /// and the start's, move.
    pub(super) fn touch(&mut self, now: u64) {
        for s in &self.sessions {
            if let Some(turn) = s.turn.as_ref().filter(|t| t.stopped.is_none()) {
                if turn.attempt.is_some() {
                    self.timers
                        .set(Timer::Idle(s.key), now.saturating_add(turn.limits.idle_ms));
                }
            }
        }
        if self.timers.get(Timer::Setup).is_some() {
            let idle = self.options().idle_timeout_ms;
            self.timers.set(Timer::Setup, now.saturating_add(idle));
        }
    }

    /// Where session `key` is in the list.
    pub(super) fn at(&self, key: u64) -> Option<usize> {
        self.sessions.iter().position(|s| s.key == key)
    }
}

/// `invalid_params` with `message`.
pub fn invalid(message: &str) -> Failure {
    Failure::new(
        AgentErrorKind::InvalidParams,
        format!("invalid parameters: {message}"),
    )
}

/// What an operation on a closed session ends with.
pub(super) fn closed_failure() -> Failure {
    Failure::new(AgentErrorKind::Aborted, "the session was closed")
}

pub(super) fn rpc_error(code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = serde_json::json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    e
}

pub(super) fn ids(list: &Value, key: &str) -> String {
    let names: Vec<String> = list
        .as_array()
        .map(|l| {
            l.iter()
                .filter_map(|m| m.get(key).and_then(Value::as_str))
                .map(|s| format!("\"{s}\""))
                .collect()
        })
        .unwrap_or_default();
    if names.is_empty() {
        "none".to_owned()
    } else {
        names.join(", ")
    }
}

pub(super) fn auth_method_names(methods: &Value) -> String {
    ids(methods, "id")
}
