//! The turns over the CLI: prompts one at a time; the process started
//! (resuming the session kept) when a turn needs one; each line of the
//! persistent process routed; a turn stopped (interrupt, or the tree
//! killed), judged with the runner's classifier, retried by its rule; and
//! how a session closes.

use serde_json::{json, Value};

use super::engine::*;
use super::stream_input::{control_line, line_kind, user_line, LineKind};
use super::turn::CliTurn;
use crate::agent_output::{AgentEvent, ReplyStatus};
use crate::engine::{Action, Outcome, TurnResult};
use crate::run::{
    aborted, classify, retry_wait, AgentErrorKind, AttemptEnd, Evidence, Failure, OutputTail,
    StopReason,
};

impl CliEngine {
    /// Moves the queue on: the next prompt becomes the turn, its attempt
    /// starts when the process allows.
    pub(super) fn pump(&mut self, now: u64) {
        self.now = now;
        if let Some(failure) = self.broken.clone() {
            self.fail_waiting(failure, now);
            return;
        }
        if self.closing.is_some() {
            return;
        }
        if self.turn.is_none() {
            match self.queue.pop_front() {
                Some(turn) => self.turn = Some(turn),
                None => return,
            }
        }
        let waiting = self
            .turn
            .as_ref()
            .is_some_and(|t| t.attempt.is_none() && t.retry_at.is_none());
        if waiting {
            self.start_attempt(now);
        }
    }

    /// Starts the running turn's next attempt: writes its prompt to the
    /// process (started first if down), or starts its own process.
    fn start_attempt(&mut self, now: u64) {
        if self.persistent() {
            if self.proc != Proc::Up {
                self.ensure_started();
                return;
            }
            let requested = self.resumed.take();
            let text = self.take_text();
            let (agent, keep) = (self.cfg.agent, self.cfg.keep_events);
            if let Some(turn) = self.turn.as_mut() {
                turn.start_attempt(agent, requested, keep, now);
            }
            self.push(Action::Write(user_line(&text)));
            return;
        }
        if self.proc != Proc::Down {
            return; // the last turn's process is still going
        }
        let requested = self.keep_session.clone();
        let text = self.take_text();
        let (agent, keep) = (self.cfg.agent, self.cfg.keep_events);
        if let Some(turn) = self.turn.as_mut() {
            turn.text = text;
            turn.start_attempt(agent, requested, keep, now);
        }
        self.ensure_started();
    }

    /// The running turn's text, opened by the system prompt the first time
    /// when the CLI takes none apart.
    fn take_text(&mut self) -> String {
        let text = self
            .turn
            .as_ref()
            .map(|t| t.text.clone())
            .unwrap_or_default();
        if !self.system_inline {
            return text;
        }
        self.system_inline = false;
        match &self.cfg.system_prompt {
            Some(system) => format!("{system}\n\n{text}"),
            None => text,
        }
    }

    /// Starts the process if it is down, resuming the session kept: for
    /// the running turn's attempt (a process per turn), with its prompt on
    /// stdin.
    pub(super) fn ensure_started(&mut self) {
        if self.proc != Proc::Down {
            return;
        }
        let session = self.keep_session.clone();
        let prompt = self
            .turn
            .as_ref()
            .filter(|t| !self.persistent() && t.attempt.is_some())
            .map(|t| t.text.clone());
        match self
            .cfg
            .invocation(session.as_deref(), self.model.as_deref(), prompt.as_deref())
        {
            Ok(inv) => {
                self.proc = Proc::Spawning;
                self.tail = OutputTail::default();
                self.resumed = session;
                let outputs = inv.outputs.iter().map(|o| o.path.clone()).collect();
                if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                    if prompt.is_some() {
                        a.stdin = Some(inv.stdin);
                        a.outputs = inv.outputs;
                    }
                }
                let env = self.cfg.spawn_env();
                self.push(Action::Spawn {
                    command: inv.command,
                    args: inv.args,
                    env,
                    default_env: Vec::new(),
                    cwd: self.cfg.options.cd.clone(),
                    files: inv.files,
                    outputs,
                    retry_log: self.cfg.own_retries.log.clone(),
                });
            }
            Err(e) => {
                let failure = invalid(e.message().to_owned());
                let now = self.now;
                if let Some(turn) = self.turn.take() {
                    self.done_turn_failed(&turn, failure.clone(), now);
                }
                for op in std::mem::take(&mut self.opening) {
                    self.done_failed(op, failure.clone());
                }
            }
        }
    }

    /// One line of the persistent process's stdout.
    pub(super) fn line(&mut self, line: &[u8], now: u64) {
        let kind = line_kind(line);
        let op = self.turn.as_ref().map_or(0, |t| t.op);
        if let Some(a) = self.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
            let mut events = a.parser.push(line);
            events.extend(a.parser.push(b"\n"));
            self.events(op, events);
        }
        match kind {
            LineKind::Result => {
                if self.turn.as_ref().is_some_and(|t| t.attempt.is_some()) {
                    self.end_attempt(None, now);
                }
            }
            LineKind::ControlResponse {
                request_id,
                outcome,
            } => {
                let Some(at) = self.controls.iter().position(|(id, _)| *id == request_id) else {
                    return;
                };
                if let (_, Control::Model(op)) = self.controls.remove(at) {
                    let outcome = match outcome {
                        Ok(()) => Outcome::Ok(Value::Null),
                        Err(why) => Outcome::Failed(Failure::new(
                            AgentErrorKind::RequestRejected,
                            format!("{} could not set the model: {why}", self.cfg.agent.name),
                        )),
                    };
                    self.push(Action::Done { op, outcome });
                }
            }
            LineKind::Other => {}
        }
    }

    pub(super) fn events(&mut self, op: u64, events: Vec<AgentEvent>) {
        let wanted = self.turn.as_ref().is_some_and(|t| t.limits.events);
        if let Some(kept) = self
            .turn
            .as_mut()
            .and_then(|t| t.attempt.as_mut())
            .and_then(|a| a.kept.as_mut())
        {
            kept.extend(events.iter().cloned());
        }
        if wanted {
            for event in events {
                self.push(Action::Event { op, event });
            }
        }
    }

    /// Stops the running turn for `why`: an interrupt to the process that
    /// reads control requests (killed after the grace), else the tree
    /// killed; a turn with no attempt running just ends.
    pub(super) fn stop_turn(&mut self, why: StopReason, now: u64) {
        let persistent = self.persistent();
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        if turn.stopped.is_some() {
            return;
        }
        turn.stopped = Some(why);
        let Some(a) = turn.attempt.as_mut() else {
            // Waiting to retry, or for the process: ends now.
            let turn = self.turn.take().expect("checked above");
            let failure = match why {
                StopReason::Aborted => aborted(self.cfg.agent.name),
                _ => self.end_failure(&AttemptEnd {
                    stopped: Some(why),
                    ..AttemptEnd::default()
                }),
            };
            self.done_turn_failed(&turn, failure, now);
            if self.closing.is_some() {
                self.finish_close(now);
            }
            return self.pump(now);
        };
        a.stop_sent = true;
        if persistent {
            a.kill_at = Some(now.saturating_add(CLI_CANCEL_GRACE_MS));
            let rid = self.request_id("interrupt");
            self.controls.push((rid.clone(), Control::Interrupt));
            self.push(Action::Write(control_line(
                &rid,
                json!({"subtype": "interrupt"}),
            )));
        } else {
            self.push(Action::Kill);
        }
    }

    /// The running attempt ended: at its `result` line (`end` `None`) or
    /// with its process.
    pub(super) fn end_attempt(&mut self, end: Option<&AttemptEnd>, now: u64) {
        let agent = self.cfg.agent;
        let Some(mut turn) = self.turn.take() else {
            return;
        };
        let Some(attempt) = turn.attempt.take() else {
            self.turn = Some(turn);
            return;
        };
        let at_result = end.is_none();
        let end = end.cloned().unwrap_or_default();
        let mut reply = attempt.parser.finish();
        merge_outputs(agent.agent_type, &mut reply, attempt.read);
        let last_lines = attempt.tail.finish();
        // A turn over at its result line went as a one-shot run would have
        // exited: 0 when it succeeded, 1 otherwise.
        let judged = AttemptEnd {
            stopped: turn.stopped,
            exit_code: if at_result {
                Some(if reply.status == ReplyStatus::Success {
                    0
                } else {
                    1
                })
            } else {
                end.exit_code
            },
            ..end
        };
        let command = self.cfg.found.as_deref().unwrap_or(&self.cfg.file);
        let outcome = classify(&Evidence {
            agent,
            end: &judged,
            reply: &reply,
            last_lines: &last_lines,
            command,
            requested_session: attempt.requested.as_deref(),
            idle_timeout_s: turn.limits.idle_ms / 1000,
            max_duration_s: turn.limits.max_ms / 1000,
            platform: self.cfg.options.platform,
        });
        let failure = outcome.as_ref().err().cloned();
        let stop_reason = match (&outcome, turn.stopped) {
            (Ok(()), _) => Some("end_turn".to_owned()),
            (Err(_), Some(StopReason::Aborted)) => Some("cancelled".to_owned()),
            _ => None,
        };
        if let (Ok(()), Some(id)) = (&outcome, &reply.session_id) {
            // A session that held a turn is the one every later process resumes.
            self.keep_session = Some(id.clone());
            self.snapshot.session_id = Some(id.clone());
        } else if self.snapshot.session_id.is_none()
            && failure
                .as_ref()
                .is_some_and(|f| f.kind != AgentErrorKind::SessionNotFound)
        {
            self.snapshot.session_id = reply.session_id.clone();
        }
        let requested = attempt.requested.clone();
        let mut result = TurnResult::new(
            agent.agent_type,
            outcome,
            reply,
            stop_reason,
            if at_result { None } else { end.exit_code },
            last_lines,
            requested.as_deref(),
            turn.attempts,
        );
        result.duration_ms = now.saturating_sub(turn.started_ms);
        result.end = Some(judged);
        result.events = attempt.kept;
        // A turn the host or a deadline stopped is not tried again; in a
        // run, one stopped for its silence is, as its kind says (the
        // caller's abort never is). One stopped past the agent's own
        // retries is not: they spent maxRetries already (as over ACP).
        let again = match turn.stopped {
            None => true,
            Some(StopReason::Aborted | StopReason::OwnRetries(_)) => false,
            Some(_) => self.cfg.one_shot,
        };
        if let Some(failure) = failure.filter(|_| again) {
            let wait = retry_wait(
                failure.kind,
                turn.attempts.saturating_sub(1),
                turn.limits.max_retries,
                turn.deadline().saturating_sub(now),
            );
            if let Some(wait) = wait {
                turn.retry_at = Some(now + wait);
                turn.stopped = None;
                turn.last = Some(result);
                self.turn = Some(turn);
                return;
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

    /// The process exited while a turn ran. One process gone before it
    /// printed anything for the prompt (a crash between turns noticed only
    /// once the next prompt was written): the prompt is sent again, once,
    /// to a process started anew on the same session.
    pub(super) fn end_turn_on_exit(&mut self, end: &AttemptEnd, now: u64) {
        let persistent = self.persistent();
        let closing = self.closing.is_some();
        let Some(turn) = self.turn.as_mut() else {
            return;
        };
        let Some(a) = turn.attempt.as_ref() else {
            return;
        };
        if persistent && !a.heard && turn.stopped.is_none() && !turn.resent && !closing {
            turn.resent = true;
            turn.attempt = None;
            turn.attempts -= 1;
            return;
        }
        self.end_attempt(Some(end), now);
    }

    /// What a process end without a turn's answer means.
    pub(super) fn end_failure(&self, end: &AttemptEnd) -> Failure {
        let empty = crate::agent_output::parse_agent_output(self.cfg.agent.agent_type, b"");
        let last_lines = self.tail.clone().finish();
        let evidence = Evidence {
            agent: self.cfg.agent,
            end,
            reply: &empty,
            last_lines: &last_lines,
            command: self.cfg.found.as_deref().unwrap_or(&self.cfg.file),
            requested_session: None,
            idle_timeout_s: self.cfg.options.idle_timeout_ms / 1000,
            max_duration_s: self.cfg.options.max_duration_ms / 1000,
            platform: self.cfg.options.platform,
        };
        classify(&evidence).err().unwrap_or_else(|| {
            Failure::new(
                AgentErrorKind::ProcessError,
                format!("{} exited before answering", self.cfg.agent.name),
            )
        })
    }

    pub(super) fn done_turn_failed(&mut self, turn: &CliTurn, failure: Failure, now: u64) {
        let mut result = match &turn.last {
            Some(last) => {
                let mut r = last.clone();
                if let Some(e) = r.error.as_mut() {
                    e.kind = failure.kind;
                    e.retryable = failure.kind.is_retryable();
                    e.message = failure.message.clone();
                }
                r.success = false;
                r
            }
            None => TurnResult::new(
                self.cfg.agent.agent_type,
                Err(failure),
                crate::agent_output::parse_agent_output(self.cfg.agent.agent_type, b""),
                None,
                None,
                Vec::new(),
                self.keep_session.as_deref(),
                turn.attempts,
            ),
        };
        if turn.stopped == Some(StopReason::Aborted)
            || result.kind() == Some(AgentErrorKind::Aborted)
        {
            result.stop_reason = Some("cancelled".to_owned());
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

    /// No turn runs any more: stdin ends, and the tree is killed if it has
    /// not exited after the grace.
    pub(super) fn finish_close(&mut self, now: u64) {
        if self.turn.is_some() {
            return;
        }
        if self.proc == Proc::Down {
            return self.closed_now();
        }
        if let Some((op, _)) = self.closing {
            self.closing = Some((op, Some(now.saturating_add(CLI_CLOSE_GRACE_MS))));
        }
        self.push(Action::CloseStdin);
    }

    /// The process is gone and the session closed.
    pub(super) fn closed_now(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        if let Some((op, _)) = self.closing.take() {
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
        }
        self.push(Action::Closed);
    }

    /// Starting failed for good: every operation fails with `failure`.
    pub(super) fn break_with(&mut self, failure: Failure, now: u64) {
        self.now = now;
        self.broken = Some(failure.clone());
        self.fail_waiting(failure, now);
        if self.closing.is_some() && self.proc == Proc::Down {
            self.closed_now();
        }
    }

    /// Fails everything waiting (the running turn too).
    pub(super) fn fail_waiting(&mut self, failure: Failure, now: u64) {
        if let Some(turn) = self.turn.take() {
            self.done_turn_failed(&turn, failure.clone(), now);
        }
        for turn in std::mem::take(&mut self.queue) {
            self.done_turn_failed(&turn, failure.clone(), now);
        }
        for op in std::mem::take(&mut self.opening) {
            self.done_failed(op, failure.clone());
        }
    }
}

/// The files the attempt's process wrote for the reply (a run's usage
/// file), merged into `reply`; one that cannot be read as what it should be
/// is a non-fatal error of the reply (`code: "output_file"`), never dropped
/// silently.
fn merge_outputs(
    agent_type: &str,
    reply: &mut crate::agent_output::AgentReply,
    read: Vec<(crate::invocation::OutputKind, String)>,
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
