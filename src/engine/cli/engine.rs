//! The session engine over an agent's command line, as a state machine
//! with no I/O and no clock: the same inputs and [`Action`]s as the ACP
//! engine ([`crate::engine::Engine`]), so one host drives both.
//!
//! Two cases, by the agent's table ([`CliExtras::stream_input`]):
//! - **one process** (Claude Code, `--input-format stream-json`): started
//!   at `open`, a `user` line per turn, the turn over at its `result`
//!   line; cancel writes an `interrupt` control request (the tree is
//!   killed after a grace if the turn does not end); a process gone
//!   between turns is started again with `--resume <id>` for the next;
//! - **a process per turn** (the others): the prompt written to stdin and
//!   stdin closed, the turn over when the process exits; the first turn
//!   opens a new session, each later one resumes it with the CLI's flag,
//!   verified (another session answering is `session_not_found`); cancel
//!   kills the tree.
//!
//! [`CliExtras::stream_input`]: crate::agents::CliExtras::stream_input

use std::collections::VecDeque;

use serde_json::{json, Value};

use super::config::CliSessionConfig;
use super::stream_input::control_line;
use super::turn::CliTurn;
use crate::agent_output::lines::LineBuffer;
use crate::engine::{Action, Due, Outcome, Snapshot, TurnLimits};
use crate::platform::Platform;
use crate::run::{
    aborted, command_not_found, AgentErrorKind, AttemptEnd, Failure, OutputTail, StopReason, Stream,
};

/// After an interrupt, how long the turn may take to end before the
/// process tree is killed.
pub const CLI_CANCEL_GRACE_MS: u64 = 5_000;
/// How long a process whose stdin ended is given to exit.
pub const CLI_CLOSE_GRACE_MS: u64 = 5_000;

/// Where the process stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proc {
    Down,
    Spawning,
    Up,
}

/// A control request awaiting its response.
#[derive(Clone, Debug, PartialEq)]
pub(super) enum Control {
    Interrupt,
    /// `set_model` for operation `op`.
    Model(u64),
}

/// The session engine over an agent's CLI (see the module's doc).
#[derive(Debug)]
pub struct CliEngine {
    pub(super) cfg: CliSessionConfig,
    pub(super) proc: Proc,
    /// The running process's stdout split in lines (one process only).
    pub(super) lines: LineBuffer,
    pub(super) queue: VecDeque<Box<CliTurn>>,
    pub(super) turn: Option<Box<CliTurn>>,
    pub(super) actions: VecDeque<Action>,
    pub(super) snapshot: Snapshot,
    /// The session every later process resumes: asked for by the user, or
    /// one that has held a turn.
    pub(super) keep_session: Option<String>,
    /// The session the running process was started to resume, verified on
    /// its first turn.
    pub(super) resumed: Option<String>,
    /// The model of the next process (`options.model`, then `setModel`).
    pub(super) model: Option<String>,
    /// The system prompt still to open the next prompt (a new session of
    /// a CLI without a system prompt flag).
    pub(super) system_inline: bool,
    /// `open` operations waiting for the process.
    pub(super) opening: Vec<u64>,
    pub(super) controls: Vec<(String, Control)>,
    pub(super) next_request: u64,
    pub(super) next_op: u64,
    /// The process's last lines (for a failure outside a turn).
    pub(super) tail: OutputTail,
    /// Starting failed for good: every operation fails with it.
    pub(super) broken: Option<Failure>,
    /// `close()` was called: its op, and when the process must be gone.
    pub(super) closing: Option<(u64, Option<u64>)>,
    pub(super) closed: bool,
    pub(super) now: u64,
}

impl CliEngine {
    pub fn new(cfg: CliSessionConfig) -> CliEngine {
        let keep_session = cfg.options.session_id.clone();
        let model = cfg.options.model.clone();
        let system_inline =
            cfg.system_prompt.is_some() && !cfg.system_as_flag() && keep_session.is_none();
        let snapshot = Snapshot {
            session_id: keep_session.clone(),
            capabilities: json!({}),
            auth_methods: json!([]),
            modes: json!([]),
            config_options: json!([]),
            models: json!([]),
            model: model.clone(),
            commands: json!([]),
            ..Snapshot::default()
        };
        CliEngine {
            cfg,
            proc: Proc::Down,
            lines: LineBuffer::default(),
            queue: VecDeque::new(),
            turn: None,
            actions: VecDeque::new(),
            snapshot,
            keep_session,
            resumed: None,
            model,
            system_inline,
            opening: Vec::new(),
            controls: Vec::new(),
            next_request: 0,
            next_op: 0,
            tail: OutputTail::default(),
            broken: None,
            closing: None,
            closed: false,
            now: 0,
        }
    }

    pub fn config(&self) -> &CliSessionConfig {
        &self.cfg
    }

    /// Whether one process holds every turn (else a process per turn).
    pub fn persistent(&self) -> bool {
        self.cfg.persistent()
    }

    pub fn snapshot(&self) -> &Snapshot {
        &self.snapshot
    }

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
        if let Some((_, Some(kill))) = self.closing {
            min(kill);
        }
        at
    }

    // ----- what the user asks -----

    /// Opens the session: one process, started now (done once it runs);
    /// a process per turn, done at once (the first turn starts one).
    pub fn open(&mut self, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        if let Some(failure) = self.broken.clone() {
            self.done_failed(op, failure);
        } else if self.closing.is_some() || self.closed {
            self.done_failed(op, closed_failure());
        } else if !self.persistent() || self.proc == Proc::Up {
            self.done_opened(op);
        } else {
            self.opening.push(op);
            self.ensure_started();
        }
        op
    }

    /// Queue a prompt: `blocks` are content blocks; over the CLI only text
    /// blocks can be sent (anything else fails the turn, `invalid_params`).
    pub fn prompt(&mut self, blocks: Value, limits: TurnLimits, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        let turn = Box::new(CliTurn::new(op, String::new(), limits));
        match prompt_text(self.cfg.agent.name, &blocks) {
            Ok(text) => {
                let mut turn = turn;
                turn.text = text;
                self.queue.push_back(turn);
                self.pump(now);
            }
            Err(failure) => self.done_turn_failed(&turn, failure, now),
        }
        op
    }

    /// Queue a prompt with attachments (`null` or `[]`: none). A session
    /// over the CLI sends its turns as text: a turn with attachments fails,
    /// `invalid_params` naming the agent (runAgent and ACP sessions take
    /// them).
    pub fn prompt_with_attachments(
        &mut self,
        blocks: Value,
        attachments: &Value,
        limits: TurnLimits,
        now: u64,
    ) -> u64 {
        let none = attachments.is_null() || attachments.as_array().is_some_and(Vec::is_empty);
        if none {
            return self.prompt(blocks, limits, now);
        }
        self.now = now;
        let op = self.op_id();
        let turn = CliTurn::new(op, String::new(), limits);
        let failure = invalid(format!(
            "attachments are not taken by a session over {}'s command line (protocol 'cli'); open it with protocol 'acp', or use runAgent, which takes them over the CLI",
            self.cfg.agent.name
        ));
        self.done_turn_failed(&turn, failure, now);
        op
    }

    /// Modes are not offered over the CLI: `invalid_params` naming the agent.
    pub fn set_mode(&mut self, id: &str, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        let failure = invalid(format!(
            "{} offers no session modes over its command line (protocol 'cli'), so mode \"{id}\" cannot be set; choose options.sandbox or options.yolo when opening the session, or open it with protocol 'acp'",
            self.cfg.agent.name
        ));
        self.done_failed(op, failure);
        op
    }

    /// Config options are not offered over the CLI: `invalid_params`.
    pub fn set_config_option(&mut self, id: &str, _value: Value, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        let failure = invalid(format!(
            "{} offers no config options over its command line (protocol 'cli'), so \"{id}\" cannot be set; use setModel for the model, or open the session with protocol 'acp'",
            self.cfg.agent.name
        ));
        self.done_failed(op, failure);
        op
    }

    /// The model from now on: the next process's `--model`; a running
    /// process that reads control requests is told at once (done when it
    /// answers).
    pub fn set_model(&mut self, id: &str, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        if let Some(failure) = self.broken.clone() {
            self.done_failed(op, failure);
            return op;
        }
        if id.is_empty() || id.starts_with('-') || id.contains('\0') {
            let failure = invalid(format!(
                "setModel needs a model name (not empty, not starting with '-'), got \"{id}\""
            ));
            self.done_failed(op, failure);
            return op;
        }
        self.model = Some(id.to_owned());
        self.snapshot.model = self.model.clone();
        if self.persistent() && self.proc == Proc::Up {
            let rid = self.request_id("model");
            let line = control_line(&rid, json!({"subtype": "set_model", "model": id}));
            self.controls.push((rid, Control::Model(op)));
            self.push(Action::Write(line));
        } else {
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
        }
        op
    }

    /// There is nothing to authenticate over the CLI: `invalid_params`.
    pub fn authenticate(&mut self, method: &str, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        let failure = invalid(format!(
            "{} has no authentication methods over its command line (protocol 'cli'): \"{method}\"; log in with the CLI itself",
            self.cfg.agent.name
        ));
        self.done_failed(op, failure);
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

    /// Abort prompt `op` (its signal): stopped when running, removed when queued.
    pub fn abort(&mut self, op: u64, now: u64) {
        self.now = now;
        if self.turn.as_ref().is_some_and(|t| t.op == op) {
            self.stop_turn(StopReason::Aborted, now);
            return;
        }
        if let Some(at) = self.queue.iter().position(|t| t.op == op) {
            if let Some(turn) = self.queue.remove(at) {
                let failure = aborted(self.cfg.agent.name);
                self.done_turn_failed(&turn, failure, now);
            }
        }
    }

    /// Close the session: queued prompts are aborted, the running turn
    /// stopped, stdin ended and the tree killed if it has not exited after
    /// a bound. Done once the process is gone.
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
        for turn in std::mem::take(&mut self.queue) {
            self.done_turn_failed(&turn, aborted(name), now);
        }
        for op in std::mem::take(&mut self.opening) {
            self.done_failed(op, closed_failure());
        }
        if self.turn.is_some() {
            self.stop_turn(StopReason::Aborted, now);
        } else {
            self.finish_close(now);
        }
        op
    }

    // ----- what happened -----

    /// The command could not be resolved: every operation fails.
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: &str, now: u64) {
        let agent = self.cfg.agent;
        let failure = if spawn_failed {
            Failure::new(
                AgentErrorKind::SpawnFailed,
                format!("{} could not be started: {message}", agent.name),
            )
        } else {
            command_not_found(agent, &self.cfg.options.command, message.to_owned())
        };
        self.break_with(failure, now);
    }

    /// A problem with the input found by the host (a bad `cd`, a command
    /// line over the system's limits): every operation fails, `invalid_params`.
    pub fn reject(&mut self, message: &str, now: u64) {
        self.break_with(invalid(message.to_owned()), now);
    }

    /// The command was resolved (see [`CliSessionConfig::launch`]); a
    /// command line over the limits fails every operation.
    pub fn launch(
        &mut self,
        platform: Platform,
        found: &str,
        file: &str,
        prefix: &[String],
        env: Vec<(String, String)>,
        now: u64,
    ) {
        if let Err(e) = self.cfg.launch(platform, found, file, prefix, env) {
            self.reject(e.message(), now);
        }
    }

    pub fn spawned(&mut self, now: u64) {
        self.now = now;
        if self.proc != Proc::Spawning {
            return;
        }
        self.proc = Proc::Up;
        for op in std::mem::take(&mut self.opening) {
            self.done_opened(op);
        }
        if self.persistent() {
            self.pump(now);
        } else if let Some(turn) = &self.turn {
            // The prompt on stdin, then EOF: a CLI waits for it.
            let text = turn
                .attempt
                .as_ref()
                .and_then(|a| a.stdin.clone())
                .unwrap_or_else(|| turn.text.clone());
            self.push(Action::Write(text));
            self.push(Action::CloseStdin);
        }
    }

    /// The process could not be started (`ENOENT`, `EACCES`, …): final.
    pub fn spawn_failed(&mut self, code: &str, now: u64) {
        self.spawn_refused(code, None, now);
    }

    /// [`spawn_failed`](Self::spawn_failed), or, with `rejected`, a spawn
    /// that failed for a problem of the input the host found meanwhile
    /// (the working folder gone): every operation fails `invalid_params`
    /// with that message.
    pub fn spawn_refused(&mut self, code: &str, rejected: Option<&str>, now: u64) {
        self.now = now;
        if self.proc != Proc::Spawning {
            return;
        }
        self.proc = Proc::Down;
        if let Some(message) = rejected {
            return self.reject(message, now);
        }
        let end = AttemptEnd {
            spawn_error: Some(code.to_owned()),
            ..AttemptEnd::default()
        };
        let failure = self.end_failure(&end);
        if self.turn.as_ref().is_some_and(|t| t.attempt.is_some()) {
            self.end_attempt(Some(&end), now);
        }
        self.break_with(failure, now);
    }

    pub fn stderr(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        self.tail.push(Stream::Stderr, chunk);
        // An agent's retry chatter is not progress (run::signs::is_progress).
        let progress = crate::run::signs::is_progress(self.cfg.agent.signs, chunk);
        let mut over = None;
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            a.tail.push(Stream::Stderr, chunk);
            if progress {
                a.active_ms = now;
            }
            if a.retries.push(true, chunk) {
                over = Some(a.retries.exceeded());
            }
        }
        if let Some(over) = over {
            // Past maxRetries of the agent's own retries: the turn ends.
            self.stop_turn(StopReason::OwnRetries(over), now);
        }
    }

    /// What the host read of the file the agent tells of its own retries in
    /// (the spawn's `retry_log`, Qwen Code's telemetry): counted like retry
    /// lines past maxRetries; never output, progress or part of the tail.
    pub fn retry_log(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        let mut over = None;
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            if a.retries.push_log(chunk) {
                over = Some(a.retries.exceeded());
            }
        }
        if let Some(over) = over {
            self.stop_turn(StopReason::OwnRetries(over), now);
        }
    }

    pub fn stdout(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        self.tail.push(Stream::Stdout, chunk);
        let progress = crate::run::signs::is_progress(self.cfg.agent.signs, chunk);
        let op = self.turn.as_ref().map_or(0, |t| t.op);
        let mut over = None;
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            a.tail.push(Stream::Stdout, chunk);
            if progress {
                a.active_ms = now;
            }
            a.heard = true;
            if a.retries.push(false, chunk) {
                over = Some(a.retries.exceeded());
            }
            if !self.cfg.persistent() {
                let events = a.parser.push(chunk);
                self.events(op, events);
                if let Some(over) = over {
                    self.stop_turn(StopReason::OwnRetries(over), now);
                }
                return;
            }
        }
        if let Some(over) = over {
            self.stop_turn(StopReason::OwnRetries(over), now);
        }
        if self.cfg.persistent() {
            let mut lines = std::mem::take(&mut self.lines);
            lines.push(chunk, |line| self.line(line, now));
            self.lines = lines;
            self.pump(now);
        }
    }

    /// What the exited process wrote to its output file at `path` (one of
    /// its `Spawn`'s `outputs`), read by the host before it says the
    /// process exited; merged into the attempt's reply. Anything else is
    /// ignored. Returns whether it was one of them.
    pub fn output(&mut self, path: &str, content: String) -> bool {
        let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) else {
            return false;
        };
        let Some(kind) = a.outputs.iter().find(|o| o.path == path).map(|o| o.kind) else {
            return false;
        };
        a.read.push((kind, content));
        true
    }

    /// The process is gone.
    pub fn exited(&mut self, exit_code: Option<i32>, signal: Option<&str>, now: u64) {
        self.now = now;
        if let Some(last) = self.lines.take_unterminated() {
            self.line(&last, now);
        }
        self.proc = Proc::Down;
        self.lines = LineBuffer::default();
        self.resumed = None;
        // A model set on it is the next process's `--model` already.
        for (_, control) in std::mem::take(&mut self.controls) {
            if let Control::Model(op) = control {
                self.push(Action::Done {
                    op,
                    outcome: Outcome::Ok(Value::Null),
                });
            }
        }
        let end = AttemptEnd {
            exit_code,
            signal: signal.map(str::to_owned),
            spawn_error: None,
            stopped: self.turn.as_ref().and_then(|t| t.stopped),
        };
        self.end_turn_on_exit(&end, now);
        if self.closing.is_some() {
            self.closed_now();
            return;
        }
        self.pump(now);
    }

    /// Time passed: deadlines that are due fire.
    pub fn timeout(&mut self, now: u64) {
        self.now = now;
        if let Some((op, Some(kill))) = self.closing {
            if now >= kill && self.proc != Proc::Down {
                self.closing = Some((op, None));
                self.push(Action::Kill);
            }
        }
        let due = self
            .turn
            .as_ref()
            .map_or(Due::Nothing, |t| t.times().due(now));
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

    // ----- small helpers -----

    pub(super) fn op_id(&mut self) -> u64 {
        self.next_op += 1;
        self.next_op
    }

    pub(super) fn request_id(&mut self, what: &str) -> String {
        self.next_request += 1;
        format!("{what}-{}", self.next_request)
    }

    pub(super) fn push(&mut self, action: Action) {
        self.actions.push_back(action);
    }

    pub(super) fn done_failed(&mut self, op: u64, failure: Failure) {
        self.push(Action::Done {
            op,
            outcome: Outcome::Failed(failure),
        });
    }

    pub(super) fn done_opened(&mut self, op: u64) {
        let snapshot = self.snapshot.clone();
        self.push(Action::Done {
            op,
            outcome: Outcome::Opened(Box::new(snapshot)),
        });
    }
}

pub(super) fn invalid(message: String) -> Failure {
    Failure::new(
        AgentErrorKind::InvalidParams,
        format!("invalid parameters: {message}"),
    )
}

pub(super) fn closed_failure() -> Failure {
    Failure::new(AgentErrorKind::Aborted, "the session was closed")
}

/// The text of a prompt's content blocks (text blocks only, joined by a
/// blank line): what a CLI reads.
fn prompt_text(name: &str, blocks: &Value) -> Result<String, Failure> {
    let list = blocks
        .as_array()
        .ok_or_else(|| invalid("the prompt must be an array of content blocks".to_owned()))?;
    let mut texts = Vec::new();
    for (i, block) in list.iter().enumerate() {
        match (block.get("type").and_then(Value::as_str), block.get("text")) {
            (Some("text"), Some(Value::String(text))) => texts.push(text.as_str()),
            (kind, _) => {
                return Err(invalid(format!(
                    "prompt[{i}] is a {} block: a session over {name}'s command line (protocol 'cli') sends text only; open it with protocol 'acp' for images, audio and resources",
                    kind.unwrap_or("malformed")
                )))
            }
        }
    }
    let text = texts.join("\n\n");
    if text.trim().is_empty() {
        return Err(invalid("the prompt is empty".to_owned()));
    }
    Ok(text)
}
