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

use serde_json::{json, Map, Value};

use super::action::{Action, HostRequest, Outcome, Snapshot};
use super::config::SessionConfig;
use super::judge::{error_text, judge, Stage};
use super::turn::{Turn, TurnLimits, TurnResult};
use crate::acp::fs::inside;
use crate::acp::permission::{self, Decision, Policy};
use crate::acp::session::{plan_session, SessionStep};
use crate::acp::{INVALID_PARAMS, METHOD_NOT_FOUND, PROTOCOL_VERSION, RESOURCE_NOT_FOUND};
use crate::agent_output::lines::LineBuffer;
use crate::invocation::Sandbox;
use crate::run::{
    aborted, backoff_ms, command_not_found, AgentErrorKind, AttemptEnd, Failure, OutputTail,
    StopReason, Stream, MIN_ATTEMPT_MS,
};

/// After `session/cancel`, how long the turn may take to end before the
/// process tree is killed.
pub const CANCEL_GRACE_MS: u64 = 5_000;
/// How long a closing session is given to save itself and exit.
pub const CLOSE_GRACE_MS: u64 = 5_000;
/// ACP's `auth_required` error code.
pub const AUTH_REQUIRED: i64 = -32000;

/// Where the process stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Proc {
    /// Not running (not yet started, or gone).
    Down,
    /// `Spawn` asked for; waiting for `spawned`.
    Spawning,
    /// Running, stdin open.
    Up,
}

/// Where the session stands on the running process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Setup {
    None,
    Initializing,
    Opening,
    /// Setting the mode in which the agent asks before acting.
    AskingMode,
    Ready,
}

/// A request of ours awaiting its response.
#[derive(Clone, Debug, PartialEq)]
enum Pending {
    Initialize,
    Session(SessionStep),
    AskMode,
    Prompt,
    /// A user's operation (`set_mode`, …).
    Op(u64, OpKind),
    /// `session/close`, as the session ends.
    Close,
}

#[derive(Clone, Debug, PartialEq)]
enum OpKind {
    SetMode(String),
    SetConfig(String, Value),
    SetModel(String),
    Authenticate(String),
    Open,
}

/// A queued user operation.
#[derive(Debug)]
enum Queued {
    Prompt(Box<Turn>),
    Other(u64, OpKind),
}

/// A request from the agent waiting for the host's answer.
#[derive(Debug)]
struct HostCall {
    call: u64,
    rpc_id: Value,
    kind: CallKind,
}

#[derive(Debug)]
enum CallKind {
    Permission(Value),
    Read {
        line: Option<u64>,
        limit: Option<u64>,
    },
    Write,
}

/// The session engine of one agent process (see the module's doc).
#[derive(Debug)]
pub struct Engine {
    cfg: SessionConfig,
    proc: Proc,
    setup: Setup,
    lines: LineBuffer,
    next_id: u64,
    pending: Vec<(u64, Pending)>,
    next_op: u64,
    next_call: u64,
    queue: VecDeque<Queued>,
    turn: Option<Box<Turn>>,
    calls: Vec<HostCall>,
    actions: VecDeque<Action>,
    /// `initialize`'s result on the running process.
    initialized: Value,
    snapshot: Snapshot,
    /// The session to reopen after a restart: asked for by the user, or
    /// one that has held a turn.
    keep_session: Option<String>,
    /// Whether `session/close` is advertised.
    can_close: bool,
    /// The instructions still to open the next prompt: a new session of an
    /// agent that takes no system prompt at `session/new`.
    system_inline: bool,
    /// Whether the host answers permissions (`onPermission`).
    asks_host: bool,
    /// The process's last lines (for a failure before any turn).
    tail: OutputTail,
    /// Set when starting failed for good (command not found, …): every
    /// operation fails with it.
    broken: Option<Failure>,
    /// A failure of the setup that ends the operations waiting for it.
    setup_failed: Option<(Stage, Value)>,
    /// Since when the setup waits for the agent (its idle deadline).
    setup_active_ms: Option<u64>,
    /// `close()` was called: its op, and when the process must be gone.
    closing: Option<(u64, Option<u64>)>,
    closed: bool,
    /// The last time the host gave.
    now: u64,
}

impl Engine {
    pub fn new(cfg: SessionConfig, asks_host: bool) -> Engine {
        let keep_session = cfg.options.session_id.clone();
        Engine {
            cfg,
            proc: Proc::Down,
            setup: Setup::None,
            lines: LineBuffer::default(),
            next_id: 0,
            pending: Vec::new(),
            next_op: 0,
            next_call: 0,
            queue: VecDeque::new(),
            turn: None,
            calls: Vec::new(),
            actions: VecDeque::new(),
            initialized: Value::Null,
            snapshot: Snapshot {
                modes: Value::Array(Vec::new()),
                config_options: Value::Array(Vec::new()),
                commands: Value::Array(Vec::new()),
                auth_methods: Value::Array(Vec::new()),
                ..Snapshot::default()
            },
            keep_session,
            can_close: false,
            system_inline: false,
            asks_host,
            tail: OutputTail::default(),
            broken: None,
            setup_failed: None,
            setup_active_ms: None,
            closing: None,
            closed: false,
            now: 0,
        }
    }

    pub fn config(&self) -> &SessionConfig {
        &self.cfg
    }

    /// The settings with the command the host resolved
    /// ([`SessionConfig::launch`]).
    pub fn set_launch(&mut self, cfg: SessionConfig) {
        self.cfg = cfg;
    }

    /// The session as it stands.
    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
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
        if let Some(turn) = &self.turn {
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
        at
    }

    // ----- what the user asks -----

    /// Start the agent and open the session (done once it is open).
    pub fn open(&mut self, now: u64) -> u64 {
        let op = self.op_id();
        self.queue.push_back(Queued::Other(op, OpKind::Open));
        self.pump(now);
        op
    }

    /// Queue a prompt: `blocks` are `session/prompt`'s content blocks.
    pub fn prompt(&mut self, blocks: Value, limits: TurnLimits, now: u64) -> u64 {
        let op = self.op_id();
        self.queue
            .push_back(Queued::Prompt(Box::new(Turn::new(op, blocks, limits))));
        self.pump(now);
        op
    }

    pub fn set_mode(&mut self, id: &str, now: u64) -> u64 {
        self.queue_other(OpKind::SetMode(id.to_owned()), now)
    }

    pub fn set_config_option(&mut self, id: &str, value: Value, now: u64) -> u64 {
        self.queue_other(OpKind::SetConfig(id.to_owned(), value), now)
    }

    pub fn set_model(&mut self, id: &str, now: u64) -> u64 {
        self.queue_other(OpKind::SetModel(id.to_owned()), now)
    }

    pub fn authenticate(&mut self, method: &str, now: u64) -> u64 {
        self.queue_other(OpKind::Authenticate(method.to_owned()), now)
    }

    fn queue_other(&mut self, kind: OpKind, now: u64) -> u64 {
        let op = self.op_id();
        self.queue.push_back(Queued::Other(op, kind));
        self.pump(now);
        op
    }

    /// Cancel the running turn (it ends `aborted`, `stopReason`
    /// `cancelled`); queued prompts stay queued.
    pub fn cancel(&mut self, now: u64) {
        self.now = now;
        if self.turn.is_some() {
            self.stop_turn(StopReason::Aborted, now);
        }
    }

    /// Abort prompt `op` (its signal): cancelled when running, removed
    /// when queued.
    pub fn abort(&mut self, op: u64, now: u64) {
        self.now = now;
        if self.turn.as_ref().is_some_and(|t| t.op == op) {
            self.stop_turn(StopReason::Aborted, now);
            return;
        }
        if let Some(at) = self
            .queue
            .iter()
            .position(|q| matches!(q, Queued::Prompt(t) if t.op == op))
        {
            if let Some(Queued::Prompt(turn)) = self.queue.remove(at) {
                let failure = aborted(self.cfg.agent.name);
                self.done_turn_failed(&turn, failure, now);
            }
        }
    }

    /// Close the session: queued work is aborted, the running turn
    /// cancelled, then `session/close` where advertised, stdin ended, and
    /// the tree killed if it has not exited after a bound. Done once the
    /// process is gone.
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
        let name = self.cfg.agent.name;
        for queued in std::mem::take(&mut self.queue) {
            match queued {
                Queued::Prompt(turn) => self.done_turn_failed(&turn, aborted(name), now),
                Queued::Other(op, _) => self.done_failed(
                    op,
                    Failure::new(AgentErrorKind::Aborted, "the session was closed"),
                ),
            }
        }
        if self.turn.is_some() {
            self.stop_turn(StopReason::Aborted, now);
        } else {
            self.finish_close(now);
        }
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
            let mut failure = command_not_found(agent, &self.cfg.command, message.to_owned());
            if self.cfg.launch.package != agent.cli.package {
                failure.message = failure
                    .message
                    .replace(agent.cli.package, self.cfg.launch.package);
            }
            failure
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
        self.setup = Setup::Initializing;
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
        self.break_with(failure, now);
    }

    pub fn stderr(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        self.touch(now);
        self.tail.push(Stream::Stderr, chunk);
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            a.tail.push(Stream::Stderr, chunk);
        }
    }

    pub fn stdout(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        self.touch(now);
        self.tail.push(Stream::Stdout, chunk);
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            a.tail.push(Stream::Stdout, chunk);
            a.heard = true;
        }
        let mut lines = std::mem::take(&mut self.lines);
        lines.push(chunk, |line| self.line(line));
        self.lines = lines;
        self.drain_events();
        self.pump(now);
    }

    /// The process is gone.
    pub fn exited(&mut self, exit_code: Option<i32>, signal: Option<&str>, now: u64) {
        self.now = now;
        if let Some(last) = self.lines.take_unterminated() {
            self.line(&last);
            self.drain_events();
        }
        let was_ready = self.setup == Setup::Ready;
        self.proc = Proc::Down;
        self.setup = Setup::None;
        self.setup_active_ms = None;
        self.calls.clear();
        let setup_failed = self.setup_failed.take();
        let mut ops_in_flight = Vec::new();
        for (_, p) in std::mem::take(&mut self.pending) {
            if let Pending::Op(op, kind) = p {
                ops_in_flight.push((op, kind));
            }
        }
        let end = AttemptEnd {
            exit_code,
            signal: signal.map(str::to_owned),
            spawn_error: None,
            stopped: self.turn.as_ref().and_then(|t| t.stopped),
        };
        if self.closing.is_some() {
            self.end_turn_on_exit(&end, now);
            for (op, _) in ops_in_flight {
                self.done_failed(
                    op,
                    Failure::new(AgentErrorKind::Aborted, "the session was closed"),
                );
            }
            if !self.closed {
                self.closed = true;
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
        let failure = match &setup_failed {
            Some((stage, error)) => self.setup_failure(*stage, error),
            None => self.end_failure(&end, None),
        };
        for (op, _) in ops_in_flight {
            self.done_failed(op, failure.clone());
        }
        if !was_ready {
            // Died while starting or opening the session: what waits for it fails.
            self.fail_waiting(failure, now);
        } else if self.turn.is_some() {
            self.end_turn_on_exit(&end, now);
        }
        self.pump(now);
    }

    /// The host's answer to [`Action::Host`] `call`: for a permission,
    /// `{ optionId }` or `{ decision: 'allow' | 'allow_always' | 'reject' }`
    /// or null for the policy's; for a read, `{ content }` or `{ error }`;
    /// for a write, `{}` or `{ error }`. `Err` names what is wrong with the
    /// answer (it is then answered as the policy would, or refused).
    pub fn host_answer(&mut self, call: u64, answer: &Value, now: u64) -> crate::error::Result<()> {
        self.now = now;
        let Some(at) = self.calls.iter().position(|c| c.call == call) else {
            return Ok(()); // answered already (the turn was cancelled)
        };
        let HostCall { rpc_id, kind, .. } = self.calls.remove(at);
        let mut problem = None;
        match kind {
            CallKind::Permission(params) => {
                let response = match permission_choice(&params, answer) {
                    Ok(choice) => choice,
                    Err(e) => {
                        problem = Some(e);
                        None
                    }
                };
                let response = match response {
                    Some(r) => r,
                    None => {
                        let decision = if problem.is_some() {
                            Some(Decision::Reject)
                        } else {
                            None
                        };
                        self.policy_answer(&params, decision)
                    }
                };
                self.respond(rpc_id, response);
            }
            CallKind::Read { line, limit } => match answer.get("content").and_then(Value::as_str) {
                Some(content) => {
                    let content = slice_lines(content, line, limit);
                    self.respond(rpc_id, json!({ "content": content }));
                }
                None => {
                    let code = answer.get("error").and_then(Value::as_str).unwrap_or("EIO");
                    let error = if code == "ENOENT" {
                        if self.cfg.launch.missing_file_is_empty {
                            self.respond(rpc_id, json!({"content": ""}));
                            return Ok(());
                        }
                        rpc_error(RESOURCE_NOT_FOUND, "Resource not found", None)
                    } else if code == "OUTSIDE" {
                        rpc_error(
                            INVALID_PARAMS,
                            &format!(
                                "refused to read: the file lies outside the working directory {}",
                                self.cfg.options.cd
                            ),
                            None,
                        )
                    } else {
                        rpc_error(-32603, &format!("cannot read the file: {code}"), None)
                    };
                    self.respond_error(rpc_id, error);
                }
            },
            CallKind::Write => match answer.get("error").and_then(Value::as_str) {
                None => self.respond(rpc_id, json!({})),
                Some(code) => {
                    let error = if code == "OUTSIDE" {
                        rpc_error(
                            INVALID_PARAMS,
                            &format!(
                                "refused to write: the file lies outside the working directory {}",
                                self.cfg.options.cd
                            ),
                            None,
                        )
                    } else {
                        rpc_error(-32603, &format!("cannot write the file: {code}"), None)
                    };
                    self.respond_error(rpc_id, error);
                }
            },
        }
        match problem {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Whether the agent may read (`write` false) or write `path` (its
    /// links resolved by the host): inside `cd`, and no write under
    /// `read-only`.
    pub fn path_allowed(&self, path: &str, write: bool) -> bool {
        let inside_cd = inside(&self.cfg.options.cd, path).is_some();
        inside_cd && !(write && self.cfg.options.sandbox == Some(Sandbox::ReadOnly))
    }

    /// Time passed: deadlines that are due fire.
    pub fn timeout(&mut self, now: u64) {
        self.now = now;
        if let Some((_, Some(kill))) = self.closing {
            if now >= kill && self.proc != Proc::Down {
                self.closing = self.closing.map(|(op, _)| (op, None));
                self.push(Action::Kill);
            }
        }
        if let Some(since) = self.setup_active_ms {
            if now >= since.saturating_add(self.cfg.options.idle_timeout_ms) {
                self.setup_active_ms = None;
                self.setup_failed.get_or_insert((
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
        enum Due {
            Nothing,
            Retry,
            Kill,
            Stop(StopReason),
        }
        let due = match self.turn.as_ref() {
            None => Due::Nothing,
            Some(turn) => match &turn.attempt {
                None => match turn.retry_at {
                    Some(retry) if now >= retry => Due::Retry,
                    _ => Due::Nothing,
                },
                Some(a) => match a.kill_at {
                    Some(kill) if now >= kill => Due::Kill,
                    Some(_) => Due::Nothing,
                    None if turn.stopped.is_some() => Due::Nothing,
                    None if now >= turn.deadline() => Due::Stop(StopReason::MaxDuration),
                    None if now >= a.active_ms.saturating_add(turn.limits.idle_ms) => {
                        Due::Stop(StopReason::IdleTimeout)
                    }
                    None => Due::Nothing,
                },
            },
        };
        match due {
            Due::Nothing => {}
            Due::Retry => {
                if let Some(turn) = self.turn.as_mut() {
                    turn.retry_at = None;
                }
                self.pump(now);
            }
            Due::Kill => {
                if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                    a.kill_at = None;
                }
                self.push(Action::Kill);
            }
            Due::Stop(why) => self.stop_turn(why, now),
        }
    }

    // ----- inside -----

    fn op_id(&mut self) -> u64 {
        self.next_op += 1;
        self.next_op
    }

    fn push(&mut self, action: Action) {
        self.actions.push_back(action);
    }

    fn touch(&mut self, now: u64) {
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            a.active_ms = now;
        }
        if self.setup_active_ms.is_some() {
            self.setup_active_ms = Some(now);
        }
    }

    fn request(&mut self, method: &str, params: Value, pending: Pending) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.pending.push((id, pending));
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.push(Action::Write(format!("{line}\n")));
        id
    }

    fn notify(&mut self, method: &str, params: Value) {
        let line = json!({"jsonrpc": "2.0", "method": method, "params": params});
        self.push(Action::Write(format!("{line}\n")));
    }

    fn respond(&mut self, id: Value, result: Value) {
        if self.proc != Proc::Up {
            return;
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "result": result});
        self.push(Action::Write(format!("{line}\n")));
    }

    fn respond_error(&mut self, id: Value, error: Value) {
        if self.proc != Proc::Up {
            return;
        }
        let line = json!({"jsonrpc": "2.0", "id": id, "error": error});
        self.push(Action::Write(format!("{line}\n")));
    }

    /// One line of the agent's stdout.
    fn line(&mut self, line: &[u8]) {
        // The common session/update lines of a turn: read by the reply
        // parser straight from their bytes, and nothing else needs them.
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            if a.rpc_id.is_some() && a.parser.acp_fast_line(line) {
                return;
            }
        }
        let message = match parse_object(line) {
            Some(m) => m,
            None => {
                if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                    if a.rpc_id.is_some() {
                        let text = String::from_utf8_lossy(line);
                        if !text.trim().is_empty() {
                            a.parser.non_json_line(&text);
                        }
                    }
                }
                return;
            }
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|v| !v.is_null());
        match (method, id) {
            (Some(method), Some(id)) => {
                let method = method.to_owned();
                let id = id.clone();
                self.agent_request(&method, id, &message);
            }
            (Some(method), None) => {
                let method = method.to_owned();
                self.agent_notification(&method, &message);
            }
            (None, Some(id)) => {
                let Some(id) = id.as_u64() else { return };
                self.response(id, &message);
            }
            (None, None) => {}
        }
    }

    fn feed_turn(&mut self, message: &Value) {
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            if a.rpc_id.is_some() {
                a.parser.acp_message(message);
            }
        }
    }

    fn drain_events(&mut self) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if !turn.limits.events {
            return;
        }
        let op = turn.op;
        let Some(a) = turn.attempt.as_mut() else {
            return;
        };
        for event in a.parser.take_events() {
            self.actions.push_back(Action::Event { op, event });
        }
    }

    fn agent_notification(&mut self, method: &str, message: &Value) {
        self.drain_events();
        if method != "session/update" {
            return; // extensions (`qwen/notify/…`) say nothing we keep
        }
        self.feed_turn(message);
        let update = message.pointer("/params/update").unwrap_or(&Value::Null);
        match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("current_mode_update") => {
                if let Some(id) = update.get("currentModeId").and_then(Value::as_str) {
                    self.snapshot.mode = Some(id.to_owned());
                }
            }
            Some("available_commands_update") => {
                self.snapshot.commands = update
                    .get("availableCommands")
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new()));
            }
            Some("config_option_update") => {
                if let Some(options) = update.get("configOptions") {
                    self.snapshot.config_options = options.clone();
                }
            }
            Some("session_info_update") => {}
            // The reply's own updates go to the turn's events.
            _ if self.turn.as_ref().is_some_and(|t| t.attempt.is_some()) => return,
            _ => {}
        }
        self.push(Action::Update(update.clone()));
    }

    fn agent_request(&mut self, method: &str, id: Value, message: &Value) {
        self.drain_events();
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "session/request_permission" => {
                self.feed_turn(message);
                let live = self.turn.as_ref().is_some_and(|t| t.stopped.is_none());
                if !live {
                    // Cancelled: the protocol wants `cancelled` for every pending request.
                    self.respond(id, json!({"outcome": {"outcome": "cancelled"}}));
                } else if self.asks_host {
                    let call = self.call_id();
                    self.calls.push(HostCall {
                        call,
                        rpc_id: id,
                        kind: CallKind::Permission(params.clone()),
                    });
                    self.push(Action::Host {
                        call,
                        request: HostRequest::Permission(params),
                    });
                } else {
                    let response = self.policy_answer(&params, None);
                    self.respond(id, response);
                }
            }
            "fs/read_text_file" | "fs/write_text_file" => {
                let write = method == "fs/write_text_file";
                let Some(path) = params.get("path").and_then(Value::as_str) else {
                    self.respond_error(
                        id,
                        rpc_error(INVALID_PARAMS, "params.path must be a string", None),
                    );
                    return;
                };
                let Some(full) = inside(&self.cfg.options.cd, path) else {
                    let what = if write { "write" } else { "read" };
                    let error = rpc_error(
                        INVALID_PARAMS,
                        &format!(
                            "refused to {what} {path}: it is outside the working directory {}",
                            self.cfg.options.cd
                        ),
                        None,
                    );
                    self.respond_error(id, error);
                    return;
                };
                if write && self.cfg.options.sandbox == Some(Sandbox::ReadOnly) {
                    let error = rpc_error(
                        INVALID_PARAMS,
                        &format!("refused to write {path}: the sandbox is read-only"),
                        None,
                    );
                    self.respond_error(id, error);
                    return;
                }
                let call = self.call_id();
                let (kind, request) = if write {
                    let content = match params.get("content") {
                        Some(Value::String(s)) => s.clone(),
                        _ => String::new(),
                    };
                    (
                        CallKind::Write,
                        HostRequest::Write {
                            path: full,
                            content,
                        },
                    )
                } else {
                    (
                        CallKind::Read {
                            line: params.get("line").and_then(Value::as_u64),
                            limit: params.get("limit").and_then(Value::as_u64),
                        },
                        HostRequest::Read { path: full },
                    )
                };
                self.calls.push(HostCall {
                    call,
                    rpc_id: id,
                    kind,
                });
                self.push(Action::Host { call, request });
            }
            other => {
                let error = rpc_error(
                    METHOD_NOT_FOUND,
                    "Method not found",
                    Some(json!({ "method": other })),
                );
                self.respond_error(id, error);
            }
        }
    }

    fn call_id(&mut self) -> u64 {
        self.next_call += 1;
        self.next_call
    }

    fn policy_answer(&mut self, params: &Value, decision: Option<Decision>) -> Value {
        let policy = Policy::from_options(self.cfg.options.sandbox, self.cfg.options.yolo);
        let (made, response) = permission::answer(params, policy, &self.cfg.options.cd, decision);
        if made == Decision::Reject {
            if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                a.rejected += 1;
            }
        }
        response
    }

    /// A response to one of our requests.
    fn response(&mut self, id: u64, message: &Value) {
        let Some(at) = self.pending.iter().position(|(i, _)| *i == id) else {
            return;
        };
        let (_, pending) = self.pending.remove(at);
        let error = message.get("error").filter(|e| !e.is_null()).cloned();
        let result = message.get("result").cloned().unwrap_or(Value::Null);
        match pending {
            Pending::Initialize => match error {
                Some(e) => self.setup_error(Stage::Initialize, e),
                None => self.initialized(result),
            },
            Pending::Session(step) => match error {
                Some(e) => self.setup_error(Stage::Session, e),
                None => self.session_opened(step, result),
            },
            Pending::AskMode => {
                if error.is_none() {
                    if let Some(id) = self.cfg.launch.ask_mode {
                        self.snapshot.mode = Some(id.to_owned());
                    }
                }
                self.ready();
            }
            Pending::Prompt => {
                self.feed_turn(message);
                self.drain_events();
                if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                    match error {
                        Some(e) => a.failed = Some((Stage::Prompt, e)),
                        None => {
                            a.stop_reason = Some(
                                result
                                    .get("stopReason")
                                    .and_then(Value::as_str)
                                    .unwrap_or("")
                                    .to_owned(),
                            )
                        }
                    }
                }
                self.end_attempt(&AttemptEnd::default(), self.now);
            }
            Pending::Op(op, kind) => match error {
                Some(e) => {
                    let failure = self.op_failure(&kind, &e);
                    self.done_failed(op, failure);
                }
                None => {
                    match &kind {
                        OpKind::SetMode(id) => self.snapshot.mode = Some(id.clone()),
                        OpKind::SetModel(id) => self.snapshot.model = Some(id.clone()),
                        OpKind::SetConfig(..) => {
                            if let Some(options) = result.get("configOptions") {
                                self.snapshot.config_options = options.clone();
                            }
                        }
                        _ => {}
                    }
                    self.push(Action::Done {
                        op,
                        outcome: Outcome::Ok(result),
                    });
                }
            },
            Pending::Close => self.after_close(),
        }
        let now = self.now;
        self.pump(now);
    }

    fn op_failure(&self, kind: &OpKind, error: &Value) -> Failure {
        let name = self.cfg.agent.name;
        let what = match kind {
            OpKind::SetMode(id) => format!("set the mode {id}"),
            OpKind::SetConfig(id, _) => format!("set the option {id}"),
            OpKind::SetModel(id) => format!("set the model {id}"),
            OpKind::Authenticate(id) => format!("authenticate with {id}"),
            OpKind::Open => "open the session".to_owned(),
        };
        let code = error.get("code").and_then(Value::as_i64);
        let kind = match code {
            Some(AUTH_REQUIRED) => AgentErrorKind::AuthError,
            Some(INVALID_PARAMS) | Some(METHOD_NOT_FOUND) => AgentErrorKind::InvalidParams,
            _ => AgentErrorKind::RequestRejected,
        };
        Failure::new(
            kind,
            format!("{name} could not {what}: {}", error_text(error)),
        )
    }

    fn initialized(&mut self, result: Value) {
        self.snapshot.capabilities = result
            .get("agentCapabilities")
            .cloned()
            .unwrap_or(Value::Null);
        self.snapshot.auth_methods = result
            .get("authMethods")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        self.snapshot.agent_info = result.get("agentInfo").cloned().unwrap_or(Value::Null);
        self.can_close = result
            .pointer("/agentCapabilities/sessionCapabilities/close")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        self.initialized = result;
        self.open_session();
    }

    fn open_session(&mut self) {
        let asked = self.keep_session.clone();
        let step = match plan_session(self.cfg.launch, &self.initialized, asked.as_deref()) {
            Ok(step) => step,
            Err(why) => {
                let message = format!(
                    "{} cannot reopen session {} over ACP: {why}",
                    self.cfg.agent.name,
                    asked.unwrap_or_default()
                );
                return self.setup_decided(Failure::new(AgentErrorKind::SessionNotFound, message));
            }
        };
        let mcp = match self.cfg.mcp_for(&self.initialized) {
            Ok(mcp) => mcp,
            Err(e) => {
                return self.setup_decided(Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", e.message()),
                ))
            }
        };
        let mut params = Map::new();
        if let Some(id) = asked.filter(|_| step != SessionStep::New) {
            params.insert("sessionId".into(), json!(id));
        }
        params.insert("cwd".into(), json!(self.cfg.options.cd));
        params.insert("mcpServers".into(), mcp);
        if let (true, Some(system)) = (self.cfg.launch.system_prompt_meta, &self.cfg.system_prompt)
        {
            params.insert("_meta".into(), json!({"systemPrompt": {"append": system}}));
        }
        self.setup = Setup::Opening;
        self.system_inline = step == SessionStep::New
            && !self.cfg.launch.system_prompt_meta
            && self.cfg.system_prompt.is_some();
        self.request(step.method(), Value::Object(params), Pending::Session(step));
    }

    fn session_opened(&mut self, step: SessionStep, result: Value) {
        let id = match step {
            SessionStep::New => result
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => self.keep_session.clone(),
        };
        self.snapshot.session_id = id.clone();
        if let Some(id) = &id {
            self.cfg.options.session_id = Some(id.clone());
        }
        if let Some(modes) = result.get("modes").filter(|m| !m.is_null()) {
            self.snapshot.modes = modes
                .get("availableModes")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            self.snapshot.mode = modes
                .get("currentModeId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(models) = result.get("models").filter(|m| !m.is_null()) {
            self.snapshot.models = models
                .get("availableModels")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            self.snapshot.model = models
                .get("currentModelId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(options) = result.get("configOptions").filter(|m| !m.is_null()) {
            self.snapshot.config_options = options.clone();
        }
        // The mode in which the agent asks, so that the policy answers
        // (Qwen's default mode approves by itself).
        if let (Some(wanted), Some(id)) = (self.cfg.launch.ask_mode, id) {
            let offered = self.snapshot.modes.as_array().is_some_and(|m| {
                m.iter()
                    .any(|m| m.get("id").and_then(Value::as_str) == Some(wanted))
            });
            if offered && self.snapshot.mode.as_deref() != Some(wanted) {
                self.setup = Setup::AskingMode;
                self.request(
                    "session/set_mode",
                    json!({"sessionId": id, "modeId": wanted}),
                    Pending::AskMode,
                );
                return;
            }
        }
        self.ready();
    }

    fn ready(&mut self) {
        self.setup = Setup::Ready;
        self.setup_active_ms = None;
        if let Some(Queued::Other(op, OpKind::Open)) = self.queue.front() {
            let op = *op;
            self.queue.pop_front();
            let snapshot = self.snapshot.clone();
            self.push(Action::Done {
                op,
                outcome: Outcome::Opened(Box::new(snapshot)),
            });
        }
    }

    /// A setup request failed: the process is stopped; what waits fails.
    fn setup_error(&mut self, stage: Stage, error: Value) {
        self.setup_failed = Some((stage, error));
        self.setup_active_ms = None;
        self.stop_process();
    }

    /// The session cannot be opened: decided without asking the agent.
    fn setup_decided(&mut self, failure: Failure) {
        self.setup_failed = Some((
            Stage::Session,
            json!({"decided": failure.message, "kind": failure.kind.as_str()}),
        ));
        self.setup_active_ms = None;
        self.stop_process();
    }

    fn setup_failure(&self, stage: Stage, error: &Value) -> Failure {
        let name = self.cfg.agent.name;
        if let Some(message) = error.get("decided").and_then(Value::as_str) {
            let kind = match error.get("kind").and_then(Value::as_str) {
                Some("invalid_params") => AgentErrorKind::InvalidParams,
                _ => AgentErrorKind::SessionNotFound,
            };
            return Failure::new(kind, message);
        }
        if error.get("idle").is_some() {
            return Failure::new(AgentErrorKind::IdleTimeout, error_text(error));
        }
        let code = error.get("code").and_then(Value::as_i64);
        if code == Some(AUTH_REQUIRED) {
            return Failure::new(
                AgentErrorKind::AuthError,
                format!(
                    "{name} needs authentication: {} (methods: {})",
                    error_text(error),
                    auth_method_names(&self.snapshot.auth_methods)
                ),
            );
        }
        if stage == Stage::Session {
            if let Some(asked) = &self.keep_session {
                return Failure::new(
                    AgentErrorKind::SessionNotFound,
                    format!(
                        "{name} cannot reopen session {asked}: {}",
                        error_text(error)
                    ),
                );
            }
        }
        let what = if stage == Stage::Initialize {
            "initialize"
        } else {
            "open a session"
        };
        Failure::new(
            AgentErrorKind::ProcessError,
            format!("{name} failed to {what}: {}", error_text(error)),
        )
    }

    /// Ends the process: stdin closed, and killed (an agent that ignores
    /// EOF at once, the others after the grace).
    fn stop_process(&mut self) {
        if self.proc == Proc::Down {
            return;
        }
        self.push(Action::CloseStdin);
        self.push(Action::Kill);
    }

    /// Starting failed for good: every operation fails with `failure`.
    fn break_with(&mut self, failure: Failure, now: u64) {
        self.now = now;
        self.broken = Some(failure.clone());
        self.fail_waiting(failure, now);
        if let Some((op, _)) = self.closing.take() {
            self.closed = true;
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
            self.push(Action::Closed);
        }
    }

    /// Fails the operations waiting for the session (the running turn too).
    fn fail_waiting(&mut self, failure: Failure, now: u64) {
        if let Some(turn) = self.turn.take() {
            self.done_turn_failed(&turn, failure.clone(), now);
        }
        for queued in std::mem::take(&mut self.queue) {
            match queued {
                Queued::Prompt(turn) => self.done_turn_failed(&turn, failure.clone(), now),
                Queued::Other(op, _) => self.done_failed(op, failure.clone()),
            }
        }
    }

    fn done_failed(&mut self, op: u64, failure: Failure) {
        self.push(Action::Done {
            op,
            outcome: Outcome::Failed(failure),
        });
    }

    fn done_turn_failed(&mut self, turn: &Turn, failure: Failure, now: u64) {
        let mut result = match &turn.last {
            Some(last) => {
                let mut r = last.clone();
                if let Some(e) = r.error.as_mut() {
                    e.kind = failure.kind;
                    e.retryable = failure.kind.is_retryable();
                    e.message = failure.message.clone();
                }
                r
            }
            None => TurnResult::new(
                self.cfg.agent.agent_type,
                Err(failure.clone()),
                crate::agent_output::parse_agent_output(self.cfg.agent.agent_type, b""),
                None,
                None,
                Vec::new(),
                self.keep_session.as_deref(),
                turn.attempts,
            ),
        };
        if result.error.is_none() {
            result.success = false;
        }
        if failure.kind == AgentErrorKind::AuthError {
            if let Some(e) = result.error.as_mut() {
                e.auth_methods = Some(self.snapshot.auth_methods.clone());
            }
        }
        result.duration_ms = if turn.attempts == 0 {
            0
        } else {
            now.saturating_sub(turn.started_ms)
        };
        self.push(Action::Done {
            op: turn.op,
            outcome: Outcome::Turn(Box::new(result)),
        });
    }

    /// Moves the queue on: starts the process or the session when work
    /// waits for it, sends what can be sent.
    fn pump(&mut self, now: u64) {
        self.now = now;
        if let Some(failure) = self.broken.clone() {
            if !self.queue.is_empty() {
                self.fail_waiting(failure, now);
            }
            return;
        }
        if self.closing.is_some() {
            return;
        }
        // A turn waiting to retry.
        if let Some(turn) = self.turn.as_ref() {
            if turn.attempt.is_none() && turn.retry_at.is_none() {
                if self.setup == Setup::Ready {
                    self.send_prompt(now);
                } else {
                    self.ensure_started(now);
                }
            }
        }
        while let Some(front) = self.queue.front() {
            let needs_session = !matches!(front, Queued::Other(_, OpKind::Authenticate(_)));
            if needs_session && self.setup != Setup::Ready {
                if matches!(front, Queued::Other(_, OpKind::Authenticate(_))) {
                    break;
                }
                self.ensure_started(now);
                break;
            }
            if !needs_session && self.proc != Proc::Up {
                self.ensure_started(now);
                break;
            }
            match self.queue.pop_front() {
                Some(Queued::Prompt(turn)) => {
                    if self.turn.is_some() {
                        self.queue.push_front(Queued::Prompt(turn));
                        break;
                    }
                    self.turn = Some(turn);
                    self.send_prompt(now);
                }
                Some(Queued::Other(op, kind)) => self.send_op(op, kind),
                None => break,
            }
        }
    }

    /// Starts the process if it is down; the session opens once it is up.
    fn ensure_started(&mut self, _now: u64) {
        if self.proc != Proc::Down {
            return;
        }
        self.proc = Proc::Spawning;
        self.setup = Setup::None;
        self.lines = LineBuffer::default();
        self.tail = OutputTail::default();
        self.setup_failed = None;
        self.push(Action::Spawn {
            command: self.cfg.command.clone(),
            args: self.cfg.args.clone(),
            env: self.cfg.env.clone(),
            default_env: self.cfg.default_env.clone(),
            cwd: self.cfg.options.cd.clone(),
        });
    }

    fn send_op(&mut self, op: u64, kind: OpKind) {
        let session = self.snapshot.session_id.clone();
        match &kind {
            OpKind::Open => {
                let snapshot = self.snapshot.clone();
                self.push(Action::Done {
                    op,
                    outcome: Outcome::Opened(Box::new(snapshot)),
                });
            }
            OpKind::SetMode(id) => {
                let offered = self.snapshot.modes.as_array().is_some_and(|m| {
                    m.iter()
                        .any(|m| m.get("id").and_then(Value::as_str) == Some(id))
                });
                if !offered {
                    let failure = Failure::new(
                        AgentErrorKind::InvalidParams,
                        format!(
                            "invalid parameters: {} offers no mode \"{id}\" (modes: {})",
                            self.cfg.agent.name,
                            ids(&self.snapshot.modes, "id")
                        ),
                    );
                    return self.done_failed(op, failure);
                }
                let params = json!({"sessionId": session, "modeId": id});
                self.request("session/set_mode", params, Pending::Op(op, kind));
            }
            OpKind::SetConfig(id, value) => {
                let params = json!({"sessionId": session, "configId": id, "value": value});
                self.request("session/set_config_option", params, Pending::Op(op, kind));
            }
            OpKind::SetModel(id) => {
                // A config option of the model category, else the older
                // `session/set_model`, else it cannot be set.
                let option = self.snapshot.config_options.as_array().and_then(|options| {
                    options
                        .iter()
                        .find(|o| o.get("category").and_then(Value::as_str) == Some("model"))
                        .and_then(|o| o.get("id"))
                        .and_then(Value::as_str)
                        .map(str::to_owned)
                });
                if let Some(config_id) = option {
                    let params = json!({"sessionId": session, "configId": config_id, "value": id});
                    self.request("session/set_config_option", params, Pending::Op(op, kind));
                } else if self.snapshot.models.is_array() {
                    let params = json!({"sessionId": session, "modelId": id});
                    self.request("session/set_model", params, Pending::Op(op, kind));
                } else {
                    let failure = Failure::new(
                        AgentErrorKind::InvalidParams,
                        format!(
                            "invalid parameters: {} offers no way to choose the model in a session over ACP (set options.model when opening it)",
                            self.cfg.agent.name
                        ),
                    );
                    self.done_failed(op, failure);
                }
            }
            OpKind::Authenticate(method) => {
                let params = json!({ "methodId": method });
                self.request("authenticate", params, Pending::Op(op, kind));
            }
        }
    }

    /// Sends the running turn's prompt (a new attempt).
    fn send_prompt(&mut self, now: u64) {
        let agent_type = self.cfg.agent.agent_type;
        let session = self.snapshot.session_id.clone();
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        turn.start_attempt(agent_type, now);
        let mut blocks = turn.blocks.clone();
        if self.system_inline {
            // Said once: the session holds it from then on.
            self.system_inline = false;
            if let Some(system) = &self.cfg.system_prompt {
                let first_is_text = blocks[0]["type"] == "text";
                match blocks.pointer_mut("/0/text") {
                    Some(Value::String(text)) if first_is_text => {
                        *text = format!("{system}\n\n{text}");
                    }
                    _ => {
                        if let Value::Array(list) = &mut blocks {
                            list.insert(0, json!({"type": "text", "text": system}));
                        }
                    }
                }
            }
        }
        let params = json!({"sessionId": session, "prompt": blocks});
        let id = self.request("session/prompt", params, Pending::Prompt);
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            a.rpc_id = Some(id);
        }
    }

    /// Stops the running turn for `why`: `session/cancel` once the prompt
    /// was sent, its permission requests answered `cancelled`, and the
    /// tree killed after the grace; before that, the turn just ends.
    fn stop_turn(&mut self, why: StopReason, now: u64) {
        let session = self.snapshot.session_id.clone();
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if turn.stopped.is_some() {
            return;
        }
        turn.stopped = Some(why);
        let sent = turn.attempt.as_ref().is_some_and(|a| a.rpc_id.is_some());
        if !sent {
            // Waiting to retry, or for the session: ends now.
            let name = self.cfg.agent.name;
            let turn = self.turn.take().expect("checked above");
            let failure = match why {
                StopReason::Aborted => aborted(name),
                _ => self.end_failure(
                    &AttemptEnd {
                        stopped: Some(why),
                        ..AttemptEnd::default()
                    },
                    None,
                ),
            };
            self.done_turn_failed(&turn, failure, now);
            if self.closing.is_some() {
                self.finish_close(now);
            }
            return self.pump(now);
        }
        if let Some(a) = turn.attempt.as_mut() {
            a.cancel_sent = true;
            a.kill_at = Some(now.saturating_add(CANCEL_GRACE_MS));
        }
        self.notify("session/cancel", json!({ "sessionId": session }));
        for call in std::mem::take(&mut self.calls) {
            if let CallKind::Permission(_) = call.kind {
                self.respond(call.rpc_id, json!({"outcome": {"outcome": "cancelled"}}));
            } else {
                self.calls.push(call);
            }
        }
    }

    /// The running attempt ended (its prompt answered, or the process gone).
    fn end_attempt(&mut self, end: &AttemptEnd, now: u64) {
        let agent = self.cfg.agent;
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        let Some(attempt) = turn.attempt.take() else {
            self.turn = Some(turn);
            return;
        };
        let mut reply = attempt.parser.finish();
        reply.session_id = self.snapshot.session_id.clone().or(reply.session_id);
        let last_lines = attempt.tail.finish();
        let end = AttemptEnd {
            stopped: turn.stopped,
            ..end.clone()
        };
        let outcome = judge(
            agent,
            &self.cfg.options,
            &end,
            &mut reply,
            &last_lines,
            &attempt.stop_reason,
            &attempt.failed,
            attempt.decided,
            attempt.rejected,
            self.cfg.found.as_deref().unwrap_or(&self.cfg.command),
        );
        // The user's cancel: `aborted`, whatever the agent said.
        let outcome = match (turn.stopped, outcome) {
            (Some(StopReason::Aborted), Err(_)) => Err(aborted(agent.name)),
            (_, outcome) => outcome,
        };
        let auth = matches!(&attempt.failed, Some((_, e)) if e.get("code").and_then(Value::as_i64) == Some(AUTH_REQUIRED));
        let outcome = match outcome {
            Err(_) if auth => Err(Failure::new(
                AgentErrorKind::AuthError,
                format!(
                    "{} needs authentication (methods: {})",
                    agent.name,
                    auth_method_names(&self.snapshot.auth_methods)
                ),
            )),
            other => other,
        };
        let ok = outcome.is_ok();
        let failure = outcome.as_ref().err().cloned();
        let mut result = TurnResult::new(
            agent.agent_type,
            outcome,
            reply,
            attempt.stop_reason.clone(),
            end.exit_code,
            last_lines,
            self.keep_session.as_deref(),
            turn.attempts,
        );
        if auth {
            if let Some(e) = result.error.as_mut() {
                e.auth_methods = Some(self.snapshot.auth_methods.clone());
            }
        }
        result.duration_ms = now.saturating_sub(turn.started_ms);
        if ok {
            // A session that held a turn is reopened after a restart.
            self.keep_session = self.snapshot.session_id.clone();
        }
        // Retry what may succeed again, with time left.
        if let Some(failure) = failure.filter(|_| turn.stopped.is_none()) {
            let remaining = turn.deadline().saturating_sub(now);
            let retries_done = turn.attempts.saturating_sub(1);
            if failure.kind.is_retryable() && retries_done < turn.limits.max_retries {
                let wait = backoff_ms(retries_done);
                if remaining >= wait + MIN_ATTEMPT_MS {
                    turn.retry_at = Some(now + wait);
                    turn.last = Some(result);
                    self.turn = Some(turn);
                    return;
                }
            }
        }
        self.push(Action::Done {
            op: turn.op,
            outcome: Outcome::Turn(Box::new(result)),
        });
        if self.closing.is_some() {
            self.finish_close(now);
        }
    }

    /// The process died while a turn ran. Gone before it said anything
    /// about the prompt (a crash between turns noticed only once the next
    /// prompt was written), the prompt is sent again, once, to the agent
    /// started anew on the same session.
    fn end_turn_on_exit(&mut self, end: &AttemptEnd, now: u64) {
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let unheard = turn.attempt.as_ref().is_some_and(|a| !a.heard);
        if unheard && turn.stopped.is_none() && !turn.resent && self.closing.is_none() {
            turn.resent = true;
            turn.attempt = None;
            turn.attempts -= 1;
            return;
        }
        if turn.attempt.is_some() {
            self.end_attempt(end, now);
        }
    }

    /// What a process end without an answer means.
    fn end_failure(
        &self,
        end: &AttemptEnd,
        reply: Option<&crate::agent_output::AgentReply>,
    ) -> Failure {
        let empty = crate::agent_output::parse_agent_output(self.cfg.agent.agent_type, b"");
        let reply = reply.unwrap_or(&empty);
        let last_lines = self.tail.clone().finish();
        let evidence = crate::run::Evidence {
            agent: self.cfg.agent,
            end,
            reply,
            last_lines: &last_lines,
            command: self.cfg.found.as_deref().unwrap_or(&self.cfg.command),
            requested_session: None,
            idle_timeout_s: self.cfg.options.idle_timeout_ms / 1000,
            max_duration_s: self.cfg.options.max_duration_ms / 1000,
            platform: self.cfg.options.platform,
        };
        crate::run::classify(&evidence).err().unwrap_or_else(|| {
            Failure::new(
                AgentErrorKind::ProcessError,
                format!("{} exited before answering", self.cfg.agent.name),
            )
        })
    }

    /// No turn runs any more: the session is closed, then stdin ended.
    fn finish_close(&mut self, now: u64) {
        if self.turn.is_some() {
            return;
        }
        if self.proc == Proc::Down {
            // Nothing running: closed at once.
            self.closed = true;
            if let Some((op, _)) = self.closing.take() {
                self.push(Action::Done {
                    op,
                    outcome: Outcome::Ok(Value::Null),
                });
            }
            self.push(Action::Closed);
            return;
        }
        if let Some((op, _)) = self.closing {
            self.closing = Some((op, Some(now.saturating_add(CLOSE_GRACE_MS))));
        }
        let session = self.snapshot.session_id.clone();
        if self.can_close && self.setup == Setup::Ready && self.proc == Proc::Up {
            if let Some(id) = session {
                self.request("session/close", json!({ "sessionId": id }), Pending::Close);
                return;
            }
        }
        self.after_close();
    }

    /// `session/close` answered (or not advertised): stdin ends; an agent
    /// that ignores EOF is killed now.
    fn after_close(&mut self) {
        if self.proc == Proc::Down {
            return;
        }
        self.push(Action::CloseStdin);
        if !self.cfg.launch.exits_on_eof {
            self.push(Action::Kill);
        }
    }
}

/// The host's permission answer as the response, `None` for the policy's.
fn permission_choice(params: &Value, answer: &Value) -> crate::error::Result<Option<Value>> {
    use crate::error::AgentContextError;
    let options = params
        .get("options")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let offered = || {
        options
            .iter()
            .filter_map(|o| o.get("optionId").and_then(Value::as_str))
            .map(|id| format!("'{id}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(id) = answer.get("optionId").and_then(Value::as_str) {
        let known = options
            .iter()
            .any(|o| o.get("optionId").and_then(Value::as_str) == Some(id));
        if !known {
            return Err(AgentContextError::invalid(format!(
                "onPermission answered optionId \"{id}\", which the agent did not offer (offered: {})",
                offered()
            )));
        }
        return Ok(Some(
            json!({"outcome": {"outcome": "selected", "optionId": id}}),
        ));
    }
    if answer.get("cancelled").and_then(Value::as_bool) == Some(true) {
        return Ok(Some(json!({"outcome": {"outcome": "cancelled"}})));
    }
    match answer.get("decision").and_then(Value::as_str) {
        None => Ok(None),
        Some(text) => {
            let decision = Decision::parse(text).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "onPermission must answer an optionId the agent offered ({}) or 'allow', 'allow_always' or 'reject', got \"{text}\"",
                    offered()
                ))
            })?;
            let policy = Policy::All;
            let (_, response) = permission::answer(params, policy, "", Some(decision));
            Ok(Some(response))
        }
    }
}

/// The lines `line` (1-based) to `line + limit` of `content`.
fn slice_lines(content: &str, line: Option<u64>, limit: Option<u64>) -> String {
    if line.is_none() && limit.is_none() {
        return content.to_owned();
    }
    let from = line.unwrap_or(1).saturating_sub(1) as usize;
    let lines: Vec<&str> = content.split('\n').collect();
    let to = match limit {
        Some(l) => from.saturating_add(l as usize).min(lines.len()),
        None => lines.len(),
    };
    if from >= lines.len() {
        return String::new();
    }
    lines[from..to].join("\n")
}

fn parse_object(line: &[u8]) -> Option<Value> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if line[start] != b'{' {
        return None;
    }
    serde_json::from_slice::<Value>(line)
        .ok()
        .filter(Value::is_object)
}

fn rpc_error(code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    e
}

fn ids(list: &Value, key: &str) -> String {
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

fn auth_method_names(methods: &Value) -> String {
    ids(methods, "id")
}
