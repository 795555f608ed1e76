//! The turn machine's steps over an agent's own command line: the process
//! started (resuming the session kept) when a turn needs one; a prompt
//! written as a `user` line to the one process, or on stdin of a process
//! of its own; each line of the one process routed; a stop sent as an
//! interrupt (the one process) or the tree killed; an attempt judged with
//! the runner's classifier; and what a session over the CLI refuses.

use serde_json::{json, Value};

use super::stream_input::{control_line, line_kind, user_line, LineKind};
use crate::agent_output::{AgentEvent, Protocol, ReplyStatus};
use crate::attempt::{classify, AgentErrorKind, AttemptEnd, Evidence, Failure, OutputTail};
use crate::engine::action::{Action, Outcome};
use crate::engine::engine::*;
use crate::engine::timers::Timer;
use crate::engine::turn::{Attempt, Turn};
use crate::engine::turns::Judged;

impl Engine {
    /// Opens the session: one process, started now (done once it runs);
    /// a process per turn, done at once (the first turn starts one).
    pub(in crate::engine) fn cli_open(&mut self, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        if let Some(failure) = self.broken.clone() {
            self.done_failed(op, failure);
        } else if self.closing.is_some() || self.closed {
            self.done_failed(op, closed_failure());
        } else if !self.persistent() || self.proc == Proc::Up {
            self.done_opened(op);
        } else {
            self.cli.opening.push(op);
            self.cli_ensure_started();
        }
        op
    }

    fn done_opened(&mut self, op: u64) {
        let snapshot = self.sessions[0].snapshot.clone();
        self.push(Action::Done {
            op,
            outcome: Outcome::Opened(Box::new(snapshot)),
        });
    }

    /// A session over the CLI sends its turns as text: a turn with
    /// attachments fails, `invalid_params` naming the agent (runAgent and
    /// ACP sessions take them).
    pub(in crate::engine) fn cli_refuse_attachments(
        &mut self,
        limits: crate::engine::TurnLimits,
        now: u64,
    ) -> u64 {
        self.now = now;
        let op = self.op_id();
        let turn = Turn::new(op, Value::Array(Vec::new()), limits);
        let failure = invalid(&format!(
            "attachments are not taken by a session over {}'s command line (protocol 'cli'); open it with protocol 'acp', or use runAgent, which takes them over the CLI",
            self.agent().name
        ));
        self.failed_turn(None, &turn, failure, now);
        op
    }

    /// What a session over the CLI cannot do: `invalid_params` naming why.
    pub(in crate::engine) fn cli_refuse(&mut self, what: CliRefusal<'_>, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        let name = self.agent().name;
        let message = match what {
            CliRefusal::Mode(id) => format!(
                "{name} offers no session modes over its command line (protocol 'cli'), so mode \"{id}\" cannot be set; choose options.sandbox or options.yolo when opening the session, or open it with protocol 'acp'"
            ),
            CliRefusal::Config(id) => format!(
                "{name} offers no config options over its command line (protocol 'cli'), so \"{id}\" cannot be set; use setModel for the model, or open the session with protocol 'acp'"
            ),
            CliRefusal::Authenticate(method) => format!(
                "{name} has no authentication methods over its command line (protocol 'cli'): \"{method}\"; log in with the CLI itself"
            ),
        };
        self.done_failed(op, invalid(&message));
        op
    }

    /// The model from now on: the next process's `--model`; a running
    /// process that reads control requests is told at once (done when it
    /// answers).
    pub(in crate::engine) fn cli_set_model(&mut self, id: &str, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        if let Some(failure) = self.broken.clone() {
            self.done_failed(op, failure);
            return op;
        }
        if id.is_empty() || id.starts_with('-') || id.contains('\0') {
            let failure = invalid(&format!(
                "setModel needs a model name (not empty, not starting with '-'), got \"{id}\""
            ));
            self.done_failed(op, failure);
            return op;
        }
        self.cli.model = Some(id.to_owned());
        self.sessions[0].snapshot.model = self.cli.model.clone();
        if self.persistent() && self.proc == Proc::Up {
            let rid = self.request_id("model");
            let line = control_line(&rid, json!({"subtype": "set_model", "model": id}));
            self.cli.controls.push((rid, Control::Model(op)));
            self.push(Action::Write(line));
        } else {
            self.done_ok(op);
        }
        op
    }

    fn request_id(&mut self, what: &str) -> String {
        self.cli.next_request += 1;
        format!("{what}-{}", self.cli.next_request)
    }

    /// Moves the queue on: the next prompt becomes the turn, its attempt
    /// starts when the process allows.
    pub(in crate::engine) fn cli_pump(&mut self, now: u64) {
        if let Some(failure) = self.broken.clone() {
            self.fail_all(failure, now);
            return;
        }
        if self.closing.is_some() {
            return;
        }
        let s = &mut self.sessions[0];
        if s.turn.is_none() {
            match s.queue.pop_front() {
                Some(Queued::Prompt(turn)) => s.turn = Some(turn),
                Some(other) => {
                    s.queue.push_front(other);
                    return;
                }
                None => return,
            }
        }
        let waiting = s
            .turn
            .as_ref()
            .is_some_and(|t| t.attempt.is_none() && !t.retrying);
        if waiting {
            self.cli_start_attempt(now);
        }
    }

    /// Starts the running turn's next attempt: writes its prompt to the
    /// process (started first if down), or starts its own process.
    fn cli_start_attempt(&mut self, now: u64) {
        let persistent = self.persistent();
        if !persistent && self.proc != Proc::Down {
            return; // the last turn's process is still going
        }
        // Its endpoint asked first, before a process is started for it.
        if self.awaits_probe(0) {
            return;
        }
        if persistent && self.proc != Proc::Up {
            return self.cli_ensure_started();
        }
        let requested = match persistent {
            true => self.cli.resumed.take(),
            false => self.sessions[0].keep_session.clone(),
        };
        self.record_request(0);
        let text = self.take_text();
        let (agent, keep) = (self.agent(), self.cli_cfg().keep_events);
        let s = &mut self.sessions[0];
        let key = s.key;
        let Some(turn) = s.turn.as_mut() else {
            return;
        };
        if !turn.continues {
            turn.text.clone_from(&text);
        }
        turn.probe = crate::engine::turn::Probe::None;
        turn.start_attempt(agent, Protocol::Cli, keep, now)
            .cli
            .requested = requested;
        let (idle, deadline) = (turn.limits.idle_ms, turn.deadline());
        self.timers.set(Timer::Idle(key), now.saturating_add(idle));
        self.timers.set(Timer::Deadline(key), deadline);
        match persistent {
            true => self.push(Action::Write(user_line(&text))),
            false => self.cli_ensure_started(),
        }
    }

    /// The running turn's text, opened by the system prompt the first time
    /// when the CLI takes none apart.
    fn take_text(&mut self) -> String {
        let s = &mut self.sessions[0];
        let Some(turn) = s.turn.as_ref() else {
            return String::new();
        };
        let text = turn.attempt_text().to_owned();
        if !s.system_inline || turn.continues {
            return text;
        }
        s.system_inline = false;
        match &self.cli_cfg().system_prompt {
            Some(system) => format!("{system}\n\n{text}"),
            None => text,
        }
    }

    /// Starts the process if it is down, resuming the session kept: for
    /// the running turn's attempt (a process per turn), with its prompt on
    /// stdin.
    fn cli_ensure_started(&mut self) {
        if self.proc != Proc::Down {
            return;
        }
        let persistent = self.persistent();
        let session = self.sessions[0].keep_session.clone();
        let prompt = self.sessions[0]
            .turn
            .as_ref()
            .filter(|t| !persistent && t.attempt.is_some())
            .map(|t| t.attempt_text().to_owned());
        let cfg = self.cli_cfg();
        let model = self.cli.model.as_deref();
        match cfg.invocation(session.as_deref(), model, prompt.as_deref()) {
            Ok(inv) => {
                let spawn = Action::Spawn {
                    command: inv.command,
                    args: inv.args,
                    env: cfg.spawn_env(),
                    default_env: Vec::new(),
                    cwd: cfg.options.cd.clone(),
                    files: inv.files,
                    outputs: inv.outputs.iter().map(|o| o.path.clone()).collect(),
                    retry_log: cfg.own_retries.log.clone(),
                };
                self.proc = Proc::Spawning;
                self.tail = OutputTail::default();
                self.cli.resumed = session;
                if let Some(a) = self.attempt_mut(0).filter(|_| prompt.is_some()) {
                    a.cli.stdin = Some(inv.stdin);
                    a.cli.outputs = inv.outputs;
                }
                self.push(spawn);
            }
            Err(e) => {
                let failure = invalid(e.message());
                let now = self.now;
                if let Some(turn) = self.sessions[0].turn.take() {
                    self.timers.clear_turn(DEFAULT);
                    self.failed_turn(Some(0), &turn, failure.clone(), now);
                }
                for op in std::mem::take(&mut self.cli.opening) {
                    self.done_failed(op, failure.clone());
                }
            }
        }
    }

    /// The process runs: the `open`s waiting for it are done; the one
    /// process takes the next turn; a process of its own gets its prompt on
    /// stdin, then EOF (a CLI waits for it).
    pub(in crate::engine) fn cli_spawned(&mut self, now: u64) {
        for op in std::mem::take(&mut self.cli.opening) {
            self.done_opened(op);
        }
        if self.persistent() {
            return self.pump(now);
        }
        if let Some(turn) = &self.sessions[0].turn {
            let text = turn
                .attempt
                .as_ref()
                .and_then(|a| a.cli.stdin.clone())
                .unwrap_or_else(|| turn.attempt_text().to_owned());
            self.push(Action::Write(text));
            self.push(Action::CloseStdin);
        }
    }

    pub(in crate::engine) fn cli_stdout(&mut self, chunk: &[u8], now: u64) {
        if self.persistent() {
            let mut lines = std::mem::take(&mut self.lines);
            lines.push(chunk, |line| self.cli_line(line, now));
            self.lines = lines;
            return self.pump(now);
        }
        let op = self.sessions[0].turn.as_ref().map_or(0, |t| t.op);
        if let Some(a) = self.attempt_mut(0) {
            a.heard = true;
            let events = a.parser.push(chunk);
            self.cli_events(op, events);
        }
    }

    /// One line of the one process's stdout.
    pub(in crate::engine) fn cli_line(&mut self, line: &[u8], now: u64) {
        let kind = line_kind(line);
        let op = self.sessions[0].turn.as_ref().map_or(0, |t| t.op);
        if let Some(a) = self.attempt_mut(0) {
            a.heard = true;
            let mut events = a.parser.push(line);
            events.extend(a.parser.push(b"\n"));
            self.cli_events(op, events);
        }
        match kind {
            LineKind::Result => {
                if self.attempt_mut(0).is_some() {
                    self.end_attempt(0, None, now);
                }
            }
            LineKind::ControlResponse {
                request_id,
                outcome,
            } => {
                let at = self
                    .cli
                    .controls
                    .iter()
                    .position(|(id, _)| *id == request_id);
                if let Some((_, Control::Model(op))) = at.map(|at| self.cli.controls.remove(at)) {
                    let outcome = match outcome {
                        Ok(()) => Outcome::Ok(Value::Null),
                        Err(why) => Outcome::Failed(Failure::new(
                            AgentErrorKind::RequestRejected,
                            format!("{} could not set the model: {why}", self.agent().name),
                        )),
                    };
                    self.push(Action::Done { op, outcome });
                }
            }
            LineKind::Other => {}
        }
    }

    fn cli_events(&mut self, op: u64, events: Vec<AgentEvent>) {
        let Some(turn) = self.sessions[0].turn.as_mut() else {
            return;
        };
        let (wanted, recorded, attempt) =
            (turn.limits.events, turn.recorded, turn.attempt_number());
        if let Some(kept) = turn.attempt.as_mut().and_then(|a| a.cli.kept.as_mut()) {
            kept.extend(events.iter().cloned());
        }
        if recorded {
            for event in &events {
                self.record_event(op, event);
            }
        }
        if wanted {
            for event in events {
                self.push(Action::Event { op, event, attempt });
            }
        }
    }

    /// The stop of the sent turn: an interrupt to the process that reads
    /// control requests (killed after the grace), else the tree killed.
    pub(in crate::engine) fn cli_stop(&mut self, now: u64) {
        if let Some(a) = self.attempt_mut(0) {
            a.stop_sent = true;
        }
        if !self.persistent() {
            return self.push(Action::Kill);
        }
        self.timers
            .set(Timer::Kill(DEFAULT), now.saturating_add(CANCEL_GRACE_MS));
        let rid = self.request_id("interrupt");
        self.cli.controls.push((rid.clone(), Control::Interrupt));
        self.push(Action::Write(control_line(
            &rid,
            json!({"subtype": "interrupt"}),
        )));
    }

    /// What an attempt over the CLI came to: at its `result` line (`end`
    /// has no exit) or with its process, judged by the classifier. A
    /// session that held a turn is the one every later process resumes.
    pub(in crate::engine) fn cli_judge(
        &mut self,
        turn: &Turn,
        attempt: Attempt,
        end: &AttemptEnd,
        at_result: bool,
    ) -> Judged {
        let agent = self.agent();
        let mut attempt = attempt;
        if let Some(failure) = attempt.cli.decided.take() {
            // No process ran for it: the session it was to resume stands.
            return Judged {
                outcome: Err(failure),
                reply: attempt.parser.finish(),
                stop_reason: None,
                exit_code: None,
                last_lines: attempt.tail.finish(),
                requested: self.sessions[0].keep_session.clone(),
                end: None,
                events: attempt.cli.kept,
            };
        }
        let mut reply = attempt.parser.finish();
        merge_outputs(agent.agent_type, &mut reply, attempt.cli.read);
        let last_lines = attempt.tail.finish();
        // A turn over at its result line went as a one-shot run would have
        // exited: 0 when it succeeded, 1 otherwise.
        let judged = AttemptEnd {
            exit_code: if at_result {
                Some(if reply.status == ReplyStatus::Success {
                    0
                } else {
                    1
                })
            } else {
                end.exit_code
            },
            ..end.clone()
        };
        let outcome = classify(&Evidence {
            agent,
            end: &judged,
            reply: &reply,
            last_lines: &last_lines,
            command: self.cfg.command_named(),
            requested_session: attempt.cli.requested.as_deref(),
            idle_timeout_s: turn.limits.idle_ms / 1000,
            max_duration_s: turn.limits.max_ms / 1000,
            platform: self.options().platform,
        });
        let stop_reason = outcome.is_ok().then(|| "end_turn".to_owned());
        let s = &mut self.sessions[0];
        match (&outcome, &reply.session_id) {
            (Ok(()), Some(id)) => {
                s.keep_session = Some(id.clone());
                s.snapshot.session_id = Some(id.clone());
            }
            (Err(f), _)
                if s.snapshot.session_id.is_none() && f.kind != AgentErrorKind::SessionNotFound =>
            {
                s.snapshot.session_id.clone_from(&reply.session_id);
            }
            _ => {}
        }
        Judged {
            outcome,
            reply,
            stop_reason,
            exit_code: if at_result { None } else { end.exit_code },
            last_lines,
            requested: attempt.cli.requested,
            end: Some(judged),
            events: attempt.cli.kept,
        }
    }

    /// The process is gone: the session it resumed is to be verified
    /// again; a model set on it is the next process's `--model` already.
    pub(in crate::engine) fn cli_process_gone(&mut self) {
        self.cli.resumed = None;
        for (_, control) in std::mem::take(&mut self.cli.controls) {
            if let Control::Model(op) = control {
                self.done_ok(op);
            }
        }
    }

    pub(in crate::engine) fn attempt_mut(&mut self, i: usize) -> Option<&mut Attempt> {
        self.sessions
            .get_mut(i)
            .and_then(|s| s.turn.as_mut())
            .and_then(|t| t.attempt.as_mut())
    }
}

/// What a session over the CLI refuses.
pub(in crate::engine) enum CliRefusal<'a> {
    Mode(&'a str),
    Config(&'a str),
    Authenticate(&'a str),
}

/// The text of a prompt's content blocks (text blocks only, joined by a
/// blank line): what a CLI reads.
pub fn prompt_text(name: &str, blocks: &Value) -> Result<String, Failure> {
    let list = blocks
        .as_array()
        .ok_or_else(|| invalid("the prompt must be an array of content blocks"))?;
    let mut texts = Vec::new();
    for (i, block) in list.iter().enumerate() {
        match (block.get("type").and_then(Value::as_str), block.get("text")) {
            (Some("text"), Some(Value::String(text))) => texts.push(text.as_str()),
            (kind, _) => {
                return Err(invalid(&format!(
                    "prompt[{i}] is a {} block: a session over {name}'s command line (protocol 'cli') sends text only; open it with protocol 'acp' for images, audio and resources",
                    kind.unwrap_or("malformed")
                )))
            }
        }
    }
    let text = texts.join("\n\n");
    if text.trim().is_empty() {
        return Err(invalid("the prompt is empty"));
    }
    Ok(text)
}

/// The files the attempt's process wrote for the reply (a run's usage
/// file), merged into `reply`; one that cannot be read as what it should be
/// is a non-fatal error of the reply (`code: "output_file"`), never dropped
/// silently.
fn merge_outputs(
    agent_type: &str,
    reply: &mut crate::agent_output::AgentReply,
    read: Vec<(crate::launch::invocation::OutputKind, String)>,
) {
    for (kind, content) in read {
        if let Err(e) = crate::agent_output::merge_output_file(agent_type, reply, kind, &content) {
            reply.errors.push(crate::agent_output::ReplyError {
                message: format!(
                    "the agent's {} file was not read: {}",
                    kind.name(),
                    e.message()
                ),
                fatal: false,
                source: "output_file".to_owned(),
                code: Some("output_file".to_owned()),
            });
        }
    }
}
