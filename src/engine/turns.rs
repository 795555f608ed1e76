//! The queue and the turns: operations sent in order, one prompt at a
//! time; a turn stopped (cancel, then kill after the grace), judged,
//! retried; and how a session closes.

use serde_json::{json, Value};

use super::action::{Action, Outcome};
use super::engine::*;
use super::judge::judge;
use super::turn::{Turn, TurnResult};
use crate::agent_output::lines::LineBuffer;
use crate::run::{
    aborted, retry_wait, AgentErrorKind, AttemptEnd, Failure, OutputTail, StopReason,
};

impl Engine {
    pub(super) fn done_failed(&mut self, op: u64, failure: Failure) {
        self.push(Action::Done {
            op,
            outcome: Outcome::Failed(failure),
        });
    }

    pub(super) fn done_turn_failed(&mut self, i: usize, turn: &Turn, failure: Failure, now: u64) {
        let keep = self.sessions[i].keep_session.clone();
        self.push_failed_turn(keep, turn, failure, now);
    }

    /// Turn `turn` ended with `failure` (`keep`: the session it was for).
    pub(super) fn push_failed_turn(
        &mut self,
        keep: Option<String>,
        turn: &Turn,
        failure: Failure,
        now: u64,
    ) {
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
            // No attempt of its own (the process died starting): what the
            // process printed last.
            None => TurnResult::new(
                self.cfg.agent.agent_type,
                Err(failure.clone()),
                crate::agent_output::parse_agent_output(self.cfg.agent.agent_type, b""),
                None,
                None,
                self.tail.clone().finish(),
                keep.as_deref(),
                turn.attempts,
            ),
        };
        if result.error.is_none() {
            result.success = false;
        }
        if failure.kind == AgentErrorKind::AuthError {
            if let Some(e) = result.error.as_mut() {
                e.auth_methods = Some(self.info.auth_methods.clone());
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
    pub(super) fn pump(&mut self, now: u64) {
        self.pump_queue(now);
        self.note_idle(now);
    }

    fn pump_queue(&mut self, now: u64) {
        self.now = now;
        if let Some(failure) = self.broken.clone() {
            if !self.process_queue.is_empty() || self.sessions.iter().any(|s| !s.queue.is_empty()) {
                self.fail_all(failure, now);
            }
            return;
        }
        if self.closed {
            let name = self.cfg.agent.name;
            let failure = Failure::new(
                AgentErrorKind::Aborted,
                format!("the session with {name} is closed"),
            );
            self.fail_all(failure, now);
            return;
        }
        if self.closing.is_some() {
            return;
        }
        // The process's own operations, once it is initialized.
        while !self.process_queue.is_empty() {
            if self.proc != Proc::Up || self.init != Init::Done {
                self.ensure_started(now);
                break;
            }
            if let Some((op, kind)) = self.process_queue.pop_front() {
                self.send_process_op(op, kind);
            }
        }
        // A session opens once `authenticate` has been answered.
        let authenticating = self
            .pending
            .iter()
            .any(|(_, p)| matches!(p, Pending::Op(_, OpKind::Authenticate(_), _)))
            || !self.process_queue.is_empty();
        for i in 0..self.sessions.len() {
            self.pump_session(i, authenticating, now);
        }
    }

    fn pump_session(&mut self, i: usize, authenticating: bool, now: u64) {
        let s = &self.sessions[i];
        if s.closed {
            if !s.queue.is_empty() {
                let name = self.cfg.agent.name;
                let failure = Failure::new(
                    AgentErrorKind::Aborted,
                    format!("the session with {name} is closed"),
                );
                self.fail_waiting(i, failure, now);
            }
            return;
        }
        if s.closing.is_some() {
            return;
        }
        // A turn waiting to retry.
        if let Some(turn) = s.turn.as_ref() {
            if turn.attempt.is_none() && turn.retry_at.is_none() {
                if s.setup == Setup::Ready {
                    self.send_prompt(i, now);
                } else {
                    self.ensure_session(i, authenticating, now);
                }
            }
        }
        while !self.sessions[i].queue.is_empty() {
            if self.sessions[i].setup != Setup::Ready {
                self.ensure_session(i, authenticating, now);
                break;
            }
            match self.sessions[i].queue.pop_front() {
                Some(Queued::Prompt(turn)) => {
                    if self.sessions[i].turn.is_some() {
                        self.sessions[i].queue.push_front(Queued::Prompt(turn));
                        break;
                    }
                    if let Some(failure) = self.prompt_refusal(&turn) {
                        self.done_turn_failed(i, &turn, failure, now);
                        continue;
                    }
                    self.sessions[i].turn = Some(turn);
                    self.send_prompt(i, now);
                }
                Some(Queued::Other(op, kind)) => self.send_op(i, op, kind),
                None => break,
            }
        }
    }

    /// Starts the process, or opens session `i` on it, for work that waits.
    fn ensure_session(&mut self, i: usize, authenticating: bool, now: u64) {
        if self.proc == Proc::Down {
            return self.ensure_started(now);
        }
        let s = &self.sessions[i];
        let can_open = self.proc == Proc::Up && self.init == Init::Done && !authenticating;
        if can_open && s.setup == Setup::None && s.setup_failed.is_none() {
            self.open_request(i);
        }
    }

    /// Whether nothing runs or waits: no turn, no queued or pending
    /// request, no host question, every session open.
    fn is_idle(&self) -> bool {
        self.sessions
            .iter()
            .all(|s| s.closed || (s.is_idle() && s.setup == Setup::Ready))
            && self.process_queue.is_empty()
            && self.pending.is_empty()
            && self.calls.is_empty()
            && self.init == Init::Done
            && self.proc == Proc::Up
            && self.closing.is_none()
    }

    /// Keeps `idle_since` for `idleClose`.
    pub(super) fn note_idle(&mut self, now: u64) {
        if self.is_idle() {
            self.idle_since.get_or_insert(now);
        } else {
            self.idle_since = None;
        }
    }

    /// `idleClose` passed: the process stops, its sessions to be reopened
    /// by their next prompt, when the agent can resume or load them
    /// (otherwise the process stays: a session is never dropped silently).
    pub(super) fn suspend(&mut self, now: u64) {
        self.idle_since = None;
        if !self.is_idle() {
            return;
        }
        let open: Vec<(u64, String)> = self
            .sessions
            .iter()
            .filter(|s| !s.closed)
            .filter_map(|s| s.snapshot.session_id.clone().map(|id| (s.key, id)))
            .collect();
        if open.is_empty() {
            return;
        }
        for (_, id) in &open {
            let step =
                crate::acp::session::plan_session(self.cfg.launch, &self.initialized, Some(id));
            if step.is_err() {
                return;
            }
        }
        self.suspend_kill_at = Some(now.saturating_add(super::engine::CLOSE_GRACE_MS));
        for (key, id) in open {
            if let Some(i) = self.at(key) {
                self.sessions[i].keep_session = Some(id.clone());
            }
            if self.can_close {
                self.request(
                    "session/close",
                    json!({ "sessionId": id }),
                    Pending::Close(key),
                );
            }
        }
        if !self.can_close {
            self.after_close();
        }
    }

    /// Starts the process if it is down; the sessions open once it is up.
    pub(super) fn ensure_started(&mut self, _now: u64) {
        if self.proc != Proc::Down {
            return;
        }
        self.proc = Proc::Spawning;
        self.init = Init::None;
        for s in &mut self.sessions {
            s.setup = Setup::None;
            s.setup_failed = None;
        }
        self.lines = LineBuffer::default();
        self.tail = OutputTail::default();
        self.init_failed = None;
        self.push(Action::Spawn {
            command: self.cfg.command.clone(),
            args: self.cfg.args.clone(),
            env: self.cfg.env.clone(),
            default_env: self.cfg.default_env.clone(),
            cwd: self.cfg.options.cd.clone(),
            files: Vec::new(),
            outputs: Vec::new(),
            retry_log: self.cfg.retry_log.clone(),
        });
    }

    /// Sends session `i`'s running turn's prompt (a new attempt).
    pub(super) fn send_prompt(&mut self, i: usize, now: u64) {
        let agent_type = self.cfg.agent.agent_type;
        let s = &mut self.sessions[i];
        let session = s.snapshot.session_id.clone();
        let Some(turn) = s.turn.as_mut() else {
            return;
        };
        turn.start_attempt(agent_type, now);
        let mut blocks = turn.blocks.clone();
        if s.system_inline {
            // Said once: the session holds it from then on.
            s.system_inline = false;
            if let Some(system) = &s.cfg.system_prompt {
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
        // A session that was sent a prompt may hold it: reopened after a
        // restart, whatever the turn comes to (never a silent new one).
        if session.is_some() {
            s.keep_session = session.clone();
        }
        let key = s.key;
        let params = json!({"sessionId": session, "prompt": blocks});
        let id = self.request("session/prompt", params, Pending::Prompt(key));
        if let Some(a) = self.sessions[i]
            .turn
            .as_mut()
            .and_then(|t| t.attempt.as_mut())
        {
            a.rpc_id = Some(id);
        }
    }

    /// Stops session `i`'s running turn for `why`: `session/cancel` once
    /// the prompt was sent, its permission requests answered `cancelled`,
    /// and the tree killed after the grace; before that, the turn just ends.
    pub(super) fn stop_turn(&mut self, i: usize, why: StopReason, now: u64) {
        let s = &mut self.sessions[i];
        let (key, session) = (s.key, s.snapshot.session_id.clone());
        let Some(turn) = s.turn.as_mut() else {
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
            let turn = s.turn.take().expect("checked above");
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
            self.done_turn_failed(i, &turn, failure, now);
            self.after_turn(i, now);
            return self.pump(now);
        }
        if let Some(a) = turn.attempt.as_mut() {
            a.cancel_sent = true;
            a.kill_at = Some(now.saturating_add(CANCEL_GRACE_MS));
        }
        self.notify("session/cancel", json!({ "sessionId": session }));
        for call in std::mem::take(&mut self.calls) {
            if let (CallKind::Permission(_), Some(true)) = (&call.kind, call.key.map(|k| k == key))
            {
                self.respond(call.rpc_id, json!({"outcome": {"outcome": "cancelled"}}));
            } else {
                self.calls.push(call);
            }
        }
    }

    /// A turn of session `i` is over: a close waiting for it goes on.
    fn after_turn(&mut self, i: usize, now: u64) {
        if self.closing.is_some() {
            self.finish_close(now);
        } else if self.sessions[i].closing.is_some() {
            self.finish_close_session(i);
        }
    }

    /// Session `i`'s running attempt ended (its prompt answered, or the
    /// process gone).
    pub(super) fn end_attempt(&mut self, i: usize, end: &AttemptEnd, now: u64) {
        let agent = self.cfg.agent;
        let Some(mut turn) = self.sessions[i].turn.take() else {
            return;
        };
        let Some(attempt) = turn.attempt.take() else {
            self.sessions[i].turn = Some(turn);
            return;
        };
        let s = &self.sessions[i];
        let mut reply = attempt.parser.finish();
        reply.session_id = s.snapshot.session_id.clone().or(reply.session_id);
        let last_lines = attempt.tail.finish();
        let end = AttemptEnd {
            stopped: turn.stopped,
            ..end.clone()
        };
        let outcome = judge(
            agent,
            &s.cfg.options,
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
            // Stopped past maxRetries of its own retries: whatever it said after.
            (Some(StopReason::OwnRetries(over)), _) => {
                Err(crate::run::own_retries(agent.name, over))
            }
            (_, outcome) => outcome,
        };
        let auth = matches!(&attempt.failed, Some((_, e)) if e.get("code").and_then(Value::as_i64) == Some(AUTH_REQUIRED));
        let outcome = match outcome {
            Err(_) if auth => Err(Failure::new(
                AgentErrorKind::AuthError,
                format!(
                    "{} needs authentication (methods: {})",
                    agent.name,
                    auth_method_names(&self.info.auth_methods)
                ),
            )),
            other => other,
        };
        let failure = outcome.as_ref().err().cloned();
        let mut result = TurnResult::new(
            agent.agent_type,
            outcome,
            reply,
            attempt.stop_reason.clone(),
            end.exit_code,
            last_lines,
            s.keep_session.as_deref(),
            turn.attempts,
        );
        if auth {
            if let Some(e) = result.error.as_mut() {
                e.auth_methods = Some(self.info.auth_methods.clone());
            }
        }
        result.duration_ms = now.saturating_sub(turn.started_ms);
        // Retry what may succeed again, with time left.
        if let Some(failure) = failure.filter(|_| turn.stopped.is_none()) {
            let wait = retry_wait(
                failure.kind,
                turn.attempts.saturating_sub(1),
                turn.limits.max_retries,
                turn.deadline().saturating_sub(now),
            );
            if let Some(wait) = wait {
                turn.retry_at = Some(now + wait);
                turn.last = Some(result);
                self.sessions[i].turn = Some(turn);
                return;
            }
        }
        self.push(Action::Done {
            op: turn.op,
            outcome: Outcome::Turn(Box::new(result)),
        });
        self.after_turn(i, now);
    }

    /// The process died while a turn ran. Gone before it said anything
    /// about the prompt (a crash between turns noticed only once the next
    /// prompt was written), the prompt is sent again, once, to the agent
    /// started anew on the same session.
    pub(super) fn end_turn_on_exit(&mut self, i: usize, end: &AttemptEnd, now: u64) {
        let closing = self.closing.is_some() || self.sessions[i].closing.is_some();
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        let unheard = turn.attempt.as_ref().is_some_and(|a| !a.heard);
        if unheard && turn.stopped.is_none() && !turn.resent && !closing {
            turn.resent = true;
            turn.attempt = None;
            turn.attempts -= 1;
            return;
        }
        if turn.attempt.is_some() {
            self.end_attempt(i, end, now);
        }
    }

    /// What a process end without an answer means.
    pub(super) fn end_failure(
        &self,
        end: &AttemptEnd,
        reply: Option<&crate::agent_output::AgentReply>,
    ) -> Failure {
        self.judge_end(end, reply, |evidence| {
            crate::run::classify(evidence).err().unwrap_or_else(|| {
                Failure::new(
                    AgentErrorKind::ProcessError,
                    format!("{} exited before answering", self.cfg.agent.name),
                )
            })
        })
    }

    /// No turn runs any more: every session is closed, then stdin ended.
    pub(super) fn finish_close(&mut self, now: u64) {
        if self.sessions.iter().any(|s| s.turn.is_some()) {
            return;
        }
        if self.proc == Proc::Down {
            // Nothing running: closed at once.
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
            return;
        }
        match self.closing {
            Some((op, None)) => self.closing = Some((op, Some(now.saturating_add(CLOSE_GRACE_MS)))),
            _ => return, // on its way already
        }
        let ready = self.can_close && self.init == Init::Done && self.proc == Proc::Up;
        let open: Vec<(u64, String)> = self
            .sessions
            .iter()
            .filter(|s| ready && s.setup == Setup::Ready && !s.closed && s.closing.is_none())
            .filter_map(|s| s.snapshot.session_id.clone().map(|id| (s.key, id)))
            .collect();
        for (key, id) in &open {
            self.request(
                "session/close",
                json!({ "sessionId": id }),
                Pending::Close(*key),
            );
        }
        if !self
            .pending
            .iter()
            .any(|(_, p)| matches!(p, Pending::Close(_)))
        {
            self.after_close();
        }
    }

    /// `session/close` answered (or not advertised): stdin ends; an agent
    /// that ignores EOF is killed now, or once it had the time to save its
    /// session (`save_wait_ms`: Zed's frozen Claude adapter).
    pub(super) fn after_close(&mut self) {
        if self.proc == Proc::Down {
            return;
        }
        self.push(Action::CloseStdin);
        if self.cfg.launch.exits_on_eof {
            return;
        }
        let at = self.now.saturating_add(self.save_wait_ms);
        match (self.save_wait_ms, &mut self.closing) {
            (1.., Some((_, kill))) => *kill = Some(at),
            (1.., None) if self.suspend_kill_at.is_some() => self.suspend_kill_at = Some(at),
            _ => self.push(Action::Kill),
        }
    }
}
