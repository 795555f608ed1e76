//! The session engine: one agent process spoken to over ACP, as a state
//! machine with no I/O and no clock. The host feeds it what happened
//! (`spawned`, `stdout`, `stderr`, `exited`, `host_answer`, `timeout`,
//! each with the time now) and what the user asked (`open`, `prompt`,
//! `cancel`, `set_mode`, …); it answers with [`Action`]s from `poll()` and
//! says when to wake it with `poll_timeout()`.
//!
//! What it decides: when to start the agent and how; the JSON-RPC client
//! (ids, requests, responses, notifications, errors, each line parsed
//! once); which request opens the session (new, resume or load, verified:
//! never a silent new session for one the user had); prompts in order, one
//! turn at a time; cancel, then kill after a grace; the deadlines of each
//! turn; retries; permission answers (the host's option, or the sandbox
//! policy), `cancelled` once the turn is cancelled; which files the agent
//! may read and write; what each turn came to; and how a session closes
//! (`session/close`, stdin ended, killed after a bound).

use std::collections::VecDeque;

use serde_json::{json, Value};

use super::action::{Action, Outcome, Snapshot};
use super::config::SessionConfig;
use super::judge::Stage;
pub(super) use super::state::*;
use super::turn::{Due, TurnLimits};
use crate::acp::fs::inside;
use crate::acp::PROTOCOL_VERSION;
use crate::agent_output::lines::LineBuffer;
use crate::invocation::Sandbox;
use crate::run::{
    aborted, command_not_found, AgentErrorKind, AttemptEnd, Failure, OutputTail, StopReason, Stream,
};

/// After `session/cancel`, how long the turn may take to end before the
/// process tree is killed.
pub const CANCEL_GRACE_MS: u64 = 5_000;
/// How long a closing session is given to save itself and exit.
pub const CLOSE_GRACE_MS: u64 = 5_000;
/// ACP's `auth_required` error code.
pub const AUTH_REQUIRED: i64 = -32000;

/// The session engine of one agent process (see the module's doc) and its
/// sessions ([`Session`]).
#[derive(Debug)]
pub struct Engine {
    pub(super) cfg: SessionConfig,
    pub(super) proc: Proc,
    pub(super) init: Init,
    /// The warning for an adapter no longer maintained was given.
    pub(super) warned_superseded: bool,
    /// How long the agent is given to save its session, once its stdin
    /// ended, before it is killed (an agent that ignores EOF; 0: at once).
    pub(super) save_wait_ms: u64,
    pub(super) lines: LineBuffer,
    pub(super) next_id: u64,
    pub(super) pending: Vec<(u64, Pending)>,
    pub(super) next_op: u64,
    pub(super) next_call: u64,
    /// The sessions on this process, in the order opened.
    pub(super) sessions: Vec<Session>,
    pub(super) next_key: u64,
    /// Operations of the process itself (`authenticate`, `session/list`, its start).
    pub(super) process_queue: VecDeque<(u64, OpKind)>,
    pub(super) calls: Vec<HostCall>,
    pub(super) actions: VecDeque<Action>,
    /// `initialize`'s result on the running process.
    pub(super) initialized: Value,
    /// What `initialize` said (capabilities, auth methods, agent info).
    pub(super) info: Snapshot,
    /// Whether `session/close` is advertised.
    pub(super) can_close: bool,
    /// Whether the host answers permissions (`onPermission`).
    pub(super) asks_host: bool,
    /// Whether the host hears the default session's updates (`onUpdate`):
    /// when not, no `Update` action is made for it.
    pub(super) hears_updates: bool,
    /// The process's last lines (for a failure before any turn).
    pub(super) tail: OutputTail,
    /// Set when starting failed for good (command not found, …): every
    /// operation fails with it.
    pub(super) broken: Option<Failure>,
    /// A failure of `initialize` (or of the start) that ends what waits.
    pub(super) init_failed: Option<(Stage, Value)>,
    /// Since when the setup waits for the agent (its idle deadline).
    pub(super) setup_active_ms: Option<u64>,
    /// `close()` was called: its op, and when the process must be gone.
    pub(super) closing: Option<(u64, Option<u64>)>,
    pub(super) closed: bool,
    /// Since when nothing runs or waits (for `idleClose`).
    pub(super) idle_since: Option<u64>,
    /// The process was stopped for `idleClose`: killed if still there then.
    pub(super) suspend_kill_at: Option<u64>,
    /// The last time the host gave.
    pub(super) now: u64,
}

/// The key of the session of an engine made by [`Engine::new`].
pub const DEFAULT: u64 = 0;

impl Engine {
    /// An engine for one session on its process (`openAgentSession`,
    /// `runAgent`): its session is [`DEFAULT`], opened with `cfg`.
    pub fn new(cfg: SessionConfig, asks_host: bool) -> Engine {
        let mut engine = Engine::process(cfg, asks_host);
        let session = Session::new(DEFAULT, engine.cfg.clone());
        engine.sessions.push(session);
        engine.next_key = DEFAULT + 1;
        engine
    }

    /// An engine for the process alone (`openAgent`): sessions are added
    /// with [`add_session`](Self::add_session).
    pub fn process(cfg: SessionConfig, asks_host: bool) -> Engine {
        Engine {
            cfg,
            proc: Proc::Down,
            init: Init::None,
            warned_superseded: false,
            save_wait_ms: 0,
            lines: LineBuffer::default(),
            next_id: 0,
            pending: Vec::new(),
            next_op: 0,
            next_call: 0,
            sessions: Vec::new(),
            next_key: DEFAULT + 1,
            process_queue: VecDeque::new(),
            calls: Vec::new(),
            actions: VecDeque::new(),
            initialized: Value::Null,
            info: Snapshot {
                auth_methods: Value::Array(Vec::new()),
                ..Snapshot::default()
            },
            can_close: false,
            asks_host,
            hears_updates: true,
            tail: OutputTail::default(),
            broken: None,
            init_failed: None,
            setup_active_ms: None,
            closing: None,
            closed: false,
            idle_since: None,
            suspend_kill_at: None,
            now: 0,
        }
    }

    pub fn config(&self) -> &SessionConfig {
        &self.cfg
    }

    /// The settings with the command the host resolved
    /// ([`SessionConfig::launch`]).
    pub fn set_launch(&mut self, cfg: SessionConfig) {
        for s in &mut self.sessions {
            s.cfg.command.clone_from(&cfg.command);
            s.cfg.args.clone_from(&cfg.args);
            s.cfg.found.clone_from(&cfg.found);
            s.cfg.options.platform = cfg.options.platform;
        }
        self.cfg = cfg;
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
        let mut at: Option<u64> = None;
        let mut min = |t: u64| at = Some(at.map_or(t, |a| a.min(t)));
        for turn in self.sessions.iter().filter_map(|s| s.turn.as_ref()) {
            match &turn.attempt {
                Some(a) => {
                    if let Some(kill) = a.kill_at {
                        min(kill);
                    } else if turn.stopped.is_none() {
                        min(a.active_ms.saturating_add(turn.limits.idle_ms));
                        min(turn.deadline());
                    }
                }
                None => {
                    if let Some(retry) = turn.retry_at {
                        min(retry);
                    }
                }
            }
        }
        if let Some(since) = self.setup_active_ms {
            min(since.saturating_add(self.cfg.options.idle_timeout_ms));
        }
        if let Some((_, Some(kill))) = self.closing {
            min(kill);
        }
        if let (Some(since), Some(after)) = (self.idle_since, self.cfg.idle_close_ms) {
            min(since.saturating_add(after));
        }
        if let Some(kill) = self.suspend_kill_at {
            min(kill);
        }
        at
    }

    // ----- what the user asks -----

    /// Start the agent and open the session (done once it is open); on an
    /// engine of the process alone, start it (done once initialized).
    pub fn open(&mut self, now: u64) -> u64 {
        if self.at(DEFAULT).is_some() {
            return self.open_session(DEFAULT, now);
        }
        let op = self.op_id();
        self.process_queue.push_back((op, OpKind::Open));
        self.pump(now);
        op
    }

    /// Queue a prompt: `blocks` are `session/prompt`'s content blocks.
    pub fn prompt(&mut self, blocks: Value, limits: TurnLimits, now: u64) -> u64 {
        self.prompt_in(DEFAULT, blocks, limits, now)
    }

    pub fn set_mode(&mut self, id: &str, now: u64) -> u64 {
        self.queue_in(DEFAULT, OpKind::SetMode(id.to_owned()), now)
    }

    pub fn set_config_option(&mut self, id: &str, value: Value, now: u64) -> u64 {
        self.queue_in(DEFAULT, OpKind::SetConfig(id.to_owned(), value), now)
    }

    pub fn set_model(&mut self, id: &str, now: u64) -> u64 {
        self.queue_in(DEFAULT, OpKind::SetModel(id.to_owned()), now)
    }

    /// `authenticate` on the process (started for it when down).
    pub fn authenticate(&mut self, method: &str, now: u64) -> u64 {
        let op = self.op_id();
        self.process_queue
            .push_back((op, OpKind::Authenticate(method.to_owned())));
        self.pump(now);
        op
    }

    /// Cancel the running turn (it ends `aborted`, `stopReason`
    /// `cancelled`); queued prompts stay queued.
    pub fn cancel(&mut self, now: u64) {
        self.cancel_in(DEFAULT, now);
    }

    /// Abort prompt `op` (its signal): cancelled when running, removed
    /// when queued.
    pub fn abort(&mut self, op: u64, now: u64) {
        self.now = now;
        for i in 0..self.sessions.len() {
            if self.sessions[i].turn.as_ref().is_some_and(|t| t.op == op) {
                self.stop_turn(i, StopReason::Aborted, now);
                return;
            }
            let queue = &mut self.sessions[i].queue;
            if let Some(at) = queue
                .iter()
                .position(|q| matches!(q, Queued::Prompt(t) if t.op == op))
            {
                if let Some(Queued::Prompt(turn)) = queue.remove(at) {
                    let failure = aborted(self.cfg.agent.name);
                    self.done_turn_failed(i, &turn, failure, now);
                }
                return;
            }
        }
    }

    /// Close the process and every session on it: queued work is aborted,
    /// the running turns cancelled, then `session/close` for each where
    /// advertised, stdin ended, and the tree killed if it has not exited
    /// after a bound. Done once the process is gone.
    pub fn close(&mut self, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        if self.closing.is_some() || self.closed {
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
            return op;
        }
        self.closing = Some((op, None));
        let closed = || Failure::new(AgentErrorKind::Aborted, "the session was closed");
        for (op, _) in std::mem::take(&mut self.process_queue) {
            self.done_failed(op, closed());
        }
        for i in 0..self.sessions.len() {
            self.abort_queue(i, now);
        }
        for i in 0..self.sessions.len() {
            if self.sessions[i].turn.is_some() {
                self.stop_turn(i, StopReason::Aborted, now);
            }
        }
        self.finish_close(now);
        op
    }

    // ----- what happened -----

    /// The command could not be resolved (`command_not_found`, or
    /// `spawn_failed` when only a shell could run it): every operation fails.
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: &str, now: u64) {
        let agent = self.cfg.agent;
        let failure = if spawn_failed {
            Failure::new(
                AgentErrorKind::SpawnFailed,
                format!("{} could not be started: {message}", agent.name),
            )
        } else {
            self.adapter_named(command_not_found(
                agent,
                &self.cfg.command,
                message.to_owned(),
            ))
        };
        self.break_with(failure, now);
    }

    /// A problem with the input found by the host (a bad `cd`, …): every
    /// operation fails with `invalid_params`.
    pub fn reject(&mut self, message: &str, now: u64) {
        self.break_with(
            Failure::new(
                AgentErrorKind::InvalidParams,
                format!("invalid parameters: {message}"),
            ),
            now,
        );
    }

    pub fn spawned(&mut self, now: u64) {
        self.now = now;
        if self.proc != Proc::Spawning {
            return;
        }
        self.proc = Proc::Up;
        self.init = Init::Initializing;
        self.setup_active_ms = Some(now);
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
            "clientInfo": {"name": "agent-context", "version": env!("CARGO_PKG_VERSION")},
        });
        self.request("initialize", params, Pending::Initialize);
    }

    /// The process could not be started (`ENOENT`, `EACCES`, …).
    pub fn spawn_failed(&mut self, code: &str, now: u64) {
        self.now = now;
        if self.proc != Proc::Spawning {
            return;
        }
        self.proc = Proc::Down;
        let end = AttemptEnd {
            spawn_error: Some(code.to_owned()),
            ..AttemptEnd::default()
        };
        let failure = self.end_failure(&end, None);
        let failure = self.adapter_named(failure);
        self.break_with(failure, now);
    }

    /// A "not found" message names the package that installs what runs
    /// over ACP (an adapter, for some agents), not the agent's CLI.
    fn adapter_named(&self, mut failure: Failure) -> Failure {
        let (cli, acp) = (self.cfg.agent.package(), self.cfg.launch.package);
        if failure.kind == AgentErrorKind::CommandNotFound && cli != acp {
            failure.message = failure.message.replace(cli, acp);
        }
        failure
    }

    pub fn stderr(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        // An agent's retry chatter is not progress (run::signs::is_progress).
        if crate::run::signs::is_progress(self.cfg.agent.signs, chunk) {
            self.touch(now);
        }
        self.tail.push(Stream::Stderr, chunk);
        let mut over = Vec::new();
        for (i, session) in self.sessions.iter_mut().enumerate() {
            let Some(a) = session.turn.as_mut().and_then(|t| t.attempt.as_mut()) else {
                continue;
            };
            a.tail.push(Stream::Stderr, chunk);
            // Past maxRetries of the agent's own retries: the turn ends.
            // (The process's output is not told apart by session: with
            // several sessions prompting at once, each counts every line.)
            if a.retries.push(true, chunk) {
                over.push((i, a.retries.exceeded()));
            }
        }
        for (i, over) in over {
            self.stop_turn(i, StopReason::OwnRetries(over), now);
        }
    }

    /// What the host read of the file the agent tells of its own retries in
    /// (the spawn's `retry_log`): counted like retry lines past maxRetries,
    /// never output, progress or part of the tail.
    pub fn retry_log(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        let mut over = Vec::new();
        for (i, session) in self.sessions.iter_mut().enumerate() {
            let Some(a) = session.turn.as_mut().and_then(|t| t.attempt.as_mut()) else {
                continue;
            };
            if a.retries.push_log(chunk) {
                over.push((i, a.retries.exceeded()));
            }
        }
        for (i, over) in over {
            self.stop_turn(i, StopReason::OwnRetries(over), now);
        }
    }

    pub fn stdout(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        // An agent's retry chatter is not progress (run::signs::is_progress).
        if crate::run::signs::is_progress(self.cfg.agent.signs, chunk) {
            self.touch(now);
        }
        self.tail.push(Stream::Stdout, chunk);
        let mut over = Vec::new();
        for (i, session) in self.sessions.iter_mut().enumerate() {
            let Some(a) = session.turn.as_mut().and_then(|t| t.attempt.as_mut()) else {
                continue;
            };
            a.tail.push(Stream::Stdout, chunk);
            // Codex's adapter says `Reconnecting... 2/5` in a session update.
            // (The process's output is not told apart by session: with
            // several sessions prompting at once, each counts every line.)
            if a.retries.push(false, chunk) {
                over.push((i, a.retries.exceeded()));
            }
        }
        for (i, over) in over {
            self.stop_turn(i, StopReason::OwnRetries(over), now);
        }
        let mut lines = std::mem::take(&mut self.lines);
        lines.push(chunk, |line| self.line(line));
        self.lines = lines;
        self.drain_all_events();
        self.pump(now);
    }

    /// The process is gone.
    pub fn exited(&mut self, exit_code: Option<i32>, signal: Option<&str>, now: u64) {
        self.now = now;
        if let Some(last) = self.lines.take_unterminated() {
            self.line(&last);
            self.drain_all_events();
        }
        self.suspend_kill_at = None;
        self.idle_since = None;
        let was_ready: Vec<bool> = self
            .sessions
            .iter()
            .map(|s| s.setup == Setup::Ready)
            .collect();
        self.proc = Proc::Down;
        let what = if self.init == Init::Done {
            "its session request"
        } else {
            "initialize"
        };
        self.init = Init::None;
        for s in &mut self.sessions {
            s.setup = Setup::None;
        }
        self.setup_active_ms = None;
        self.calls.clear();
        let init_failed = self.init_failed.take();
        let mut ops_in_flight = Vec::new();
        for (_, p) in std::mem::take(&mut self.pending) {
            if let Pending::Op(op, kind, _) = p {
                ops_in_flight.push((op, kind));
            }
        }
        let ended = |s: &Session| AttemptEnd {
            exit_code,
            signal: signal.map(str::to_owned),
            spawn_error: None,
            stopped: s.turn.as_ref().and_then(|t| t.stopped),
        };
        if self.closing.is_some() {
            for i in 0..self.sessions.len() {
                let end = ended(&self.sessions[i]);
                self.end_turn_on_exit(i, &end, now);
            }
            for (op, _) in ops_in_flight {
                self.done_failed(
                    op,
                    Failure::new(AgentErrorKind::Aborted, "the session was closed"),
                );
            }
            if !self.closed {
                self.closed = true;
                for i in 0..self.sessions.len() {
                    self.session_closed(i);
                }
                if let Some((op, _)) = self.closing.take() {
                    self.push(Action::Done {
                        op,
                        outcome: Outcome::Ok(Value::Null),
                    });
                }
                self.push(Action::Closed);
            }
            return;
        }
        let crash = |e: &Engine, s: &Session| e.early_failure(&ended(s), what);
        let end = AttemptEnd {
            exit_code,
            signal: signal.map(str::to_owned),
            ..AttemptEnd::default()
        };
        let failure = match &init_failed {
            Some((stage, error)) => self.setup_failure(None, *stage, error),
            None if what == "initialize" => self.early_failure(&end, what),
            None => self.end_failure(&end, None),
        };
        for (op, _) in ops_in_flight {
            self.done_failed(op, failure.clone());
        }
        if init_failed.is_some() || !self.process_queue.is_empty() {
            for (op, _) in std::mem::take(&mut self.process_queue) {
                self.done_failed(op, failure.clone());
            }
        }
        for (i, was_ready) in was_ready.into_iter().enumerate() {
            if let Some((stage, error)) = self.sessions[i].setup_failed.take() {
                let key = self.sessions[i].key;
                let failure = self.setup_failure(Some(key), stage, &error);
                self.fail_waiting(i, failure, now);
            } else if init_failed.is_some() {
                self.fail_waiting(i, failure.clone(), now);
            } else if !was_ready {
                // Died while starting or opening the session: what waits for it fails.
                let failure = crash(self, &self.sessions[i]);
                self.fail_waiting(i, failure, now);
            } else if self.sessions[i].turn.is_some() {
                let end = ended(&self.sessions[i]);
                self.end_turn_on_exit(i, &end, now);
            }
        }
        self.pump(now);
    }

    /// Whether the agent may read (`write` false) or write `path` (its
    /// links resolved by the host) for host request `call`: inside its
    /// session's folder, and no write under `read-only`.
    pub fn path_allowed(&self, call: Option<u64>, path: &str, write: bool) -> bool {
        let key = call.and_then(|c| self.calls.iter().find(|h| h.call == c).and_then(|h| h.key));
        let cd = &self.cfg_of(key).options.cd;
        let inside_cd = inside(cd, path).is_some();
        inside_cd && !(write && self.cfg.options.sandbox == Some(Sandbox::ReadOnly))
    }

    /// Time passed: deadlines that are due fire.
    pub fn timeout(&mut self, now: u64) {
        self.now = now;
        if let Some(kill) = self.suspend_kill_at {
            if now >= kill {
                self.suspend_kill_at = None;
                if self.proc != Proc::Down {
                    self.push(Action::Kill);
                }
            }
        }
        if let (Some(since), Some(after)) = (self.idle_since, self.cfg.idle_close_ms) {
            if now >= since.saturating_add(after) {
                self.suspend(now);
            }
        }
        if let Some((_, Some(kill))) = self.closing {
            if now >= kill && self.proc != Proc::Down {
                self.closing = self.closing.map(|(op, _)| (op, None));
                self.push(Action::Kill);
            }
        }
        if let Some(since) = self.setup_active_ms {
            if now >= since.saturating_add(self.cfg.options.idle_timeout_ms) {
                self.setup_active_ms = None;
                self.init_failed.get_or_insert((
                    Stage::Initialize,
                    json!({"message": format!(
                        "{} did not answer within {} s while starting",
                        self.cfg.agent.name,
                        self.cfg.options.idle_timeout_ms / 1000
                    ), "idle": true}),
                ));
                self.push(Action::Kill);
            }
        }
        for i in 0..self.sessions.len() {
            let due = self.sessions[i]
                .turn
                .as_ref()
                .map_or(Due::Nothing, |t| t.times().due(now));
            match due {
                Due::Nothing => {}
                Due::Retry => {
                    if let Some(turn) = self.sessions[i].turn.as_mut() {
                        turn.retry_at = None;
                    }
                    self.pump(now);
                }
                Due::Kill => {
                    if let Some(a) = self.sessions[i]
                        .turn
                        .as_mut()
                        .and_then(|t| t.attempt.as_mut())
                    {
                        a.kill_at = None;
                    }
                    self.push(Action::Kill);
                }
                Due::Stop(why) => self.stop_turn(i, why, now),
            }
        }
    }

    // ----- inside -----

    pub(super) fn op_id(&mut self) -> u64 {
        self.next_op += 1;
        self.next_op
    }

    pub(super) fn push(&mut self, action: Action) {
        self.actions.push_back(action);
    }

    pub(super) fn touch(&mut self, now: u64) {
        for a in self.attempts_mut() {
            a.active_ms = now;
        }
        if self.setup_active_ms.is_some() {
            self.setup_active_ms = Some(now);
        }
    }

    /// The running attempts of every session.
    pub(super) fn attempts_mut(&mut self) -> impl Iterator<Item = &mut super::turn::Attempt> {
        self.sessions
            .iter_mut()
            .filter_map(|s| s.turn.as_mut().and_then(|t| t.attempt.as_mut()))
    }

    pub(super) fn request(&mut self, method: &str, params: Value, pending: Pending) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.pending.push((id, pending));
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.push(Action::Write(format!("{line}\n")));
        id
    }

    pub(super) fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.push(Action::Write(format!("{line}\n")));
    }

    pub(super) fn respond(&mut self, id: Value, result: Value) {
        if self.proc != Proc::Up {
            return;
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.push(Action::Write(format!("{line}\n")));
    }

    pub(super) fn respond_error(&mut self, id: Value, error: Value) {
        if self.proc != Proc::Up {
            return;
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "error": error});
        self.push(Action::Write(format!("{line}\n")));
    }
}

pub(super) fn rpc_error(code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message});
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
