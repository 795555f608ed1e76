//! The one turn machine, for both protocols: prompts queued per session
//! and run one at a time; a turn stopped (the protocol's stop, then the
//! tree killed after the grace), judged, retried by one rule, ended with
//! one result; and how a session and the process close.

use super::action::{Action, Outcome};
use super::engine::*;
use super::result::TurnResult;
use super::timers::Timer;
use super::turn::Turn;
use crate::attempt::{aborted, retry_wait, AgentErrorKind, AttemptEnd, Failure, StopReason};

/// Above this, a session's prompt is warned about (see `warn_if_large`).
pub const LARGE_PROMPT_BYTES: usize = 1_000_000;

/// What an attempt came to, as its protocol judged it: the parts of the
/// turn's result.
pub(super) struct Judged {
    pub outcome: Result<(), Failure>,
    pub reply: crate::agent_output::AgentReply,
    /// The agent's own stop reason (ACP), or the turn's over the CLI.
    pub stop_reason: Option<String>,
    pub exit_code: Option<i32>,
    pub last_lines: Vec<String>,
    /// The session the attempt was asked to continue.
    pub requested: Option<String>,
    /// How its process ended (over the CLI), for a layer that words the
    /// failure itself (the Gemini tool's envelope).
    pub end: Option<AttemptEnd>,
    /// Its reply's events, when the session keeps them.
    pub events: Option<Vec<crate::agent_output::AgentEvent>>,
}

impl Engine {
    /// Moves the queues on: starts the process or a session when work
    /// waits for it, sends what can be sent.
    pub(super) fn pump(&mut self, now: u64) {
        self.now = now;
        match self.cfg.is_acp() {
            true => {
                self.acp_pump(now);
                self.note_idle(now);
            }
            false => self.cli_pump(now),
        }
    }

    /// Queue a prompt in session `key` (over the CLI, only text can be sent:
    /// anything else ends the turn at once, `invalid_params`).
    pub fn prompt_in(
        &mut self,
        key: u64,
        blocks: serde_json::Value,
        limits: super::TurnLimits,
        now: u64,
    ) -> u64 {
        self.now = now;
        let op = self.op_id();
        if !self.one_shot {
            self.warn_if_large(&blocks);
        }
        let mut turn = Box::new(Turn::new(op, blocks, limits));
        if !self.cfg.is_acp() {
            match super::cli::prompt_text(self.agent().name, &turn.blocks) {
                Ok(text) => turn.text = text,
                Err(failure) => {
                    self.failed_turn(None, &turn, failure, now);
                    return op;
                }
            }
        }
        self.enqueue(key, Queued::Prompt(turn), op, now);
        op
    }

    /// A prompt of a session over [`LARGE_PROMPT_BYTES`] is sent as it is,
    /// and the agent's session keeps it: the caller hears so.
    pub(super) fn warn_if_large(&mut self, blocks: &serde_json::Value) {
        let bytes: usize = blocks
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|b| b.get("text").and_then(serde_json::Value::as_str))
            .map(str::len)
            .sum();
        if bytes > LARGE_PROMPT_BYTES {
            self.push(Action::Warn(format!(
                "a prompt of {:.1} MB is sent to {} as it is (maxBytes bounds an AssemblerInput assembled by the library, not a prompt given as text), and the agent's session keeps it: every later request of the session carries it",
                bytes as f64 / 1e6,
                self.agent().name
            )));
        }
    }

    pub(super) fn enqueue(&mut self, key: u64, queued: Queued, op: u64, now: u64) {
        match self.at(key) {
            Some(i) if !self.sessions[i].closed && self.sessions[i].closing.is_none() => {
                let mut queued = queued;
                if let Queued::Prompt(turn) = &mut queued {
                    turn.attempts_before = self.sessions[i].attempts_before.take().unwrap_or(0);
                }
                self.sessions[i].queue.push_back(queued);
                self.pump(now);
            }
            _ => {
                let failure = Failure::new(
                    AgentErrorKind::Aborted,
                    format!("the session with {} is closed", self.agent().name),
                );
                match queued {
                    Queued::Prompt(turn) => self.failed_turn(None, &turn, failure, now),
                    Queued::Other(..) => self.done_failed(op, failure),
                }
            }
        }
    }

    /// Cancel session `key`'s running turn.
    pub fn cancel_in(&mut self, key: u64, now: u64) {
        self.now = now;
        if let Some(i) = self.at(key) {
            if self.sessions[i].turn.is_some() {
                self.stop_turn(i, StopReason::Aborted, now);
            }
        }
    }

    /// Abort prompt `op` (its signal): stopped when running, removed when
    /// queued (it ends `aborted`, `stopReason` `cancelled`, either way).
    pub fn abort(&mut self, op: u64, now: u64) {
        self.now = now;
        for i in 0..self.sessions.len() {
            if self.sessions[i].turn.as_ref().is_some_and(|t| t.op == op) {
                self.stop_turn(i, StopReason::Aborted, now);
                return;
            }
            let queue = &mut self.sessions[i].queue;
            let at = queue
                .iter()
                .position(|q| matches!(q, Queued::Prompt(t) if t.op == op));
            if let Some(Queued::Prompt(turn)) = at.and_then(|at| queue.remove(at)) {
                let failure = aborted(self.agent().name);
                self.failed_turn(Some(i), &turn, failure, now);
                return;
            }
        }
    }

    /// Turn `turn` of session `i` (`None`: of no session) ends with
    /// `failure`: the last attempt's result in its words when there was
    /// one, `stopReason` `cancelled` when the caller stopped it.
    pub(super) fn failed_turn(
        &mut self,
        i: Option<usize>,
        turn: &Turn,
        failure: Failure,
        now: u64,
    ) {
        let keep = i.and_then(|i| self.sessions[i].keep_session.clone());
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
            None => self.unheard_result(&failure, keep.as_deref(), turn.attempts),
        };
        result.success = false;
        if failure.kind == AgentErrorKind::Aborted {
            result.stop_reason = Some("cancelled".to_owned());
        }
        if failure.kind == AgentErrorKind::AuthError && self.cfg.is_acp() {
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

    /// Stops session `i`'s running turn for `why`: the protocol's stop
    /// once its prompt was handed over (ACP `session/cancel`, an interrupt,
    /// or the tree killed), the tree killed after the grace; before that,
    /// the turn just ends.
    pub(super) fn stop_turn(&mut self, i: usize, why: StopReason, now: u64) {
        let key = self.sessions[i].key;
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        if turn.stopped.is_some() {
            return;
        }
        turn.stopped = Some(why);
        if !turn.sent() {
            // Waiting to retry, for the session or for the process: ends now.
            let turn = self.sessions[i].turn.take().expect("checked above");
            self.timers.clear_turn(key);
            let failure = match why {
                StopReason::Aborted => aborted(self.agent().name),
                _ => self.end_failure(
                    &AttemptEnd {
                        stopped: Some(why),
                        ..AttemptEnd::default()
                    },
                    Some(&turn.limits),
                ),
            };
            self.failed_turn(Some(i), &turn, failure, now);
            self.after_turn(i, now);
            return self.pump(now);
        }
        self.timers.clear(Timer::Idle(key));
        self.timers.clear(Timer::Deadline(key));
        match self.cfg.is_acp() {
            true => self.acp_stop(i, now),
            false => self.cli_stop(now),
        }
    }

    /// Session `i`'s running attempt ended: its prompt answered (`end`
    /// `None`) or its process gone. Judged by its protocol, then one rule:
    /// tried again when its kind may succeed again, with retries and time
    /// left — unless the caller stopped it, or (in a session) a deadline or
    /// the agent's own retries did; else its result is the turn's.
    pub(super) fn end_attempt(&mut self, i: usize, end: Option<&AttemptEnd>, now: u64) {
        let key = self.sessions[i].key;
        let Some(mut turn) = self.sessions[i].turn.take() else {
            return;
        };
        let Some(attempt) = turn.attempt.take() else {
            self.sessions[i].turn = Some(turn);
            return;
        };
        self.timers.clear(Timer::Idle(key));
        self.timers.clear(Timer::Kill(key));
        let at_result = end.is_none();
        let undelivered = attempt.undelivered;
        let end = AttemptEnd {
            stopped: turn.stopped,
            ..end.cloned().unwrap_or_default()
        };
        let judged = match self.cfg.is_acp() {
            true => self.acp_judge(i, &turn, attempt, &end),
            false => self.cli_judge(&turn, attempt, &end, at_result),
        };
        let kept = self.failed_prompt_kept(i, judged.requested.as_deref(), undelivered);
        let name = self.agent().name;
        let crashed = self.persistent() && !at_result && end.stopped.is_none();
        let outcome = match (turn.stopped, judged.outcome) {
            // The one process died in the turn: a crash, whatever it left.
            (None, Err(f)) if crashed && f.kind == AgentErrorKind::Incomplete => {
                Err(crashed_failure(name, &end))
            }
            // The caller's stop: `aborted`, whatever the agent said.
            (Some(StopReason::Aborted), Err(_)) => Err(stopped_as(aborted(name), &end)),
            // Past maxRetries of its own retries: whatever it said after.
            (Some(StopReason::OwnRetries(over)), _) => {
                Err(stopped_as(crate::attempt::own_retries(name, over), &end))
            }
            (_, outcome) => outcome,
        };
        if crashed && matches!(&outcome, Err(f) if f.kind == AgentErrorKind::ProcessError) {
            self.record_crash(key, &end, &judged.last_lines);
        }
        let auth = matches!(&outcome, Err(f) if f.kind == AgentErrorKind::AuthError);
        let mut result = TurnResult::new(
            self.agent().agent_type,
            outcome.clone(),
            judged.reply,
            judged.stop_reason,
            judged.exit_code,
            judged.last_lines,
            judged.requested.as_deref(),
            turn.attempts,
        );
        // A turn the caller or the engine stopped was cancelled, whatever
        // the agent answered (or if it never did).
        if outcome.is_err() && turn.stopped.is_some() {
            result.stop_reason = Some("cancelled".to_owned());
        }
        if auth && self.cfg.is_acp() {
            if let Some(e) = result.error.as_mut() {
                e.auth_methods = Some(self.info.auth_methods.clone());
            }
        }
        result.end = judged.end;
        result.events = judged.events;
        result.duration_ms = now.saturating_sub(turn.started_ms);
        // A turn the caller stopped is not tried again, nor one stopped past
        // the agent's own retries (they spent maxRetries already); in a
        // run, one stopped for its silence or its deadline is, as its kind
        // says.
        let again = match turn.stopped {
            None => true,
            Some(StopReason::Aborted | StopReason::OwnRetries(_)) => false,
            Some(_) => self.one_shot,
        };
        if let Some(failure) = outcome.as_ref().err().filter(|_| again) {
            let wait = retry_wait(
                failure.kind,
                turn.attempts.saturating_sub(1),
                turn.limits.max_retries,
                turn.deadline().saturating_sub(now),
            );
            if let Some(wait) = wait {
                // The failed attempt's text is no reply.
                self.record_attempt_end(turn.op, failure.kind, &failure.message);
                self.discard_attempt(&turn, &mut result);
                turn.retrying = true;
                turn.continues = kept;
                turn.stopped = None;
                turn.last = Some(result);
                self.timers.set(Timer::Retry(key), now + wait);
                self.sessions[i].turn = Some(turn);
                return;
            }
        }
        self.timers.clear_turn(key);
        if outcome
            .as_ref()
            .is_err_and(|f| f.kind != AgentErrorKind::Aborted)
        {
            self.discard_attempt(&turn, &mut result);
        }
        self.push(Action::Done {
            op: turn.op,
            outcome: Outcome::Turn(Box::new(result)),
        });
        self.after_turn(i, now);
    }

    /// A failed attempt of `turn` is no reply: what it streamed moves from
    /// `result`'s reply to its error (`error.text`), and `onEvent`, which
    /// heard it, is told to drop it.
    fn discard_attempt(&mut self, turn: &Turn, result: &mut TurnResult) {
        if result.reply.text.is_empty() {
            return;
        }
        let text = std::mem::take(&mut result.reply.text);
        if let Some(error) = result.error.as_mut() {
            error.text = Some(text);
        }
        if turn.limits.events {
            self.push(Action::Discard {
                op: turn.op,
                attempt: turn.attempt_number(),
            });
        }
    }

    /// A turn of session `i` that was waiting for its session or its process
    /// failed before its prompt was handed over: in a run, tried again as
    /// its kind says (the process is started anew); otherwise, or with no
    /// retry left, it ends with `failure`. Returns whether it waits to retry.
    pub(super) fn fail_before_sent(&mut self, i: usize, failure: &Failure, now: u64) -> bool {
        if !self.one_shot {
            return false;
        }
        let key = self.sessions[i].key;
        let turn = match self.sessions[i].turn.take() {
            Some(turn) => turn,
            None => match self.sessions[i].queue.pop_front() {
                Some(Queued::Prompt(turn)) => turn,
                Some(other) => {
                    self.sessions[i].queue.push_front(other);
                    return false;
                }
                None => return false,
            },
        };
        let mut turn = turn;
        if turn.attempts == 0 {
            turn.started_ms = now;
        }
        turn.attempts += 1;
        let wait = retry_wait(
            failure.kind,
            turn.attempts.saturating_sub(1),
            turn.limits.max_retries,
            turn.deadline().saturating_sub(now),
        );
        let Some(wait) = wait else {
            self.sessions[i].turn = Some(turn);
            return false;
        };
        let keep = self.sessions[i].keep_session.clone();
        let mut last = self.unheard_result(failure, keep.as_deref(), turn.attempts);
        last.duration_ms = now.saturating_sub(turn.started_ms);
        turn.last = Some(last);
        turn.retrying = true;
        self.timers.set(Timer::Retry(key), now + wait);
        self.sessions[i].turn = Some(turn);
        true
    }

    /// A turn of session `i` is over: a close waiting for it goes on.
    pub(super) fn after_turn(&mut self, i: usize, now: u64) {
        if self.closing.is_some() {
            self.finish_close(now);
        } else if self.sessions[i].closing.is_some() {
            self.finish_close_session(i);
        }
    }

    /// What a process end without an answer means, judged with the
    /// deadlines in force (the turn's `limits`, else the options').
    pub(super) fn end_failure(
        &self,
        end: &AttemptEnd,
        limits: Option<&super::TurnLimits>,
    ) -> Failure {
        let name = self.agent().name;
        self.judge_end(end, limits, |evidence| {
            crate::attempt::classify(evidence).err().unwrap_or_else(|| {
                Failure::new(
                    AgentErrorKind::ProcessError,
                    format!("{name} exited before answering"),
                )
            })
        })
    }

    /// Close the process and every session on it: queued work is aborted,
    /// the running turns stopped, then each session closed as its protocol
    /// does (`session/close` where advertised), stdin ended, and the tree
    /// killed if it has not exited after a bound. Done once it is gone.
    pub fn close(&mut self, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        if self.closing.is_some() || self.closed {
            self.done_ok(op);
            return op;
        }
        self.closing = Some(op);
        self.release_terminals(None);
        for (op, _) in std::mem::take(&mut self.process_queue) {
            self.done_failed(op, closed_failure());
        }
        for op in std::mem::take(&mut self.cli.opening) {
            self.done_failed(op, closed_failure());
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

    /// Session `i`'s queued work ends `aborted`.
    pub(super) fn abort_queue(&mut self, i: usize, now: u64) {
        let name = self.agent().name;
        for queued in std::mem::take(&mut self.sessions[i].queue) {
            match queued {
                Queued::Prompt(turn) => self.failed_turn(Some(i), &turn, aborted(name), now),
                Queued::Other(op, _) => self.done_failed(op, closed_failure()),
            }
        }
    }

    /// No turn runs any more: the sessions close, then stdin ends and the
    /// tree is killed if it has not exited after the grace.
    pub(super) fn finish_close(&mut self, now: u64) {
        if self.sessions.iter().any(|s| s.turn.is_some()) {
            return;
        }
        if self.proc == Proc::Down {
            return self.closed_now();
        }
        if self.timers.get(Timer::CloseKill).is_some() {
            return; // on its way already
        }
        self.timers
            .set(Timer::CloseKill, now.saturating_add(CLOSE_GRACE_MS));
        match self.cfg.is_acp() {
            true => self.acp_close_sessions(),
            false => self.push(Action::CloseStdin),
        }
    }

    /// The process is gone and every session closed: nothing more comes.
    pub(super) fn closed_now(&mut self) {
        if self.closed {
            return;
        }
        self.closed = true;
        self.timers = Default::default();
        for i in 0..self.sessions.len() {
            self.session_closed(i);
        }
        if let Some(op) = self.closing.take() {
            self.done_ok(op);
        }
        self.push(Action::Closed);
    }

    /// Session `i` is closed: its close is done.
    pub(super) fn session_closed(&mut self, i: usize) {
        self.record_closed(self.sessions[i].key);
        let s = &mut self.sessions[i];
        s.closed = true;
        s.setup = Setup::None;
        if let Some(op) = s.closing.take() {
            self.done_ok(op);
        }
    }

    /// Starting failed for good: every operation fails with `failure`.
    pub(super) fn break_with(&mut self, failure: Failure, now: u64) {
        self.now = now;
        self.broken = Some(failure.clone());
        self.fail_all(failure, now);
        if self.closing.is_some() && self.proc == Proc::Down {
            self.closed_now();
        }
    }

    /// Fails every waiting operation, of the process and of each session.
    pub(super) fn fail_all(&mut self, failure: Failure, now: u64) {
        for (op, _) in std::mem::take(&mut self.process_queue) {
            self.done_failed(op, failure.clone());
        }
        for op in std::mem::take(&mut self.cli.opening) {
            self.done_failed(op, failure.clone());
        }
        for i in 0..self.sessions.len() {
            self.fail_waiting(i, failure.clone(), now);
        }
    }

    /// Fails the operations waiting for session `i` (its running turn too).
    pub(super) fn fail_waiting(&mut self, i: usize, failure: Failure, now: u64) {
        if let Some(turn) = self.sessions[i].turn.take() {
            self.timers.clear_turn(self.sessions[i].key);
            self.failed_turn(Some(i), &turn, failure.clone(), now);
        }
        for queued in std::mem::take(&mut self.sessions[i].queue) {
            match queued {
                Queued::Prompt(turn) => self.failed_turn(Some(i), &turn, failure.clone(), now),
                Queued::Other(op, _) => self.done_failed(op, failure.clone()),
            }
        }
    }
}

impl Engine {
    /// The result of a turn that failed with no attempt of its own heard
    /// (the process died starting): `failure`, and what the process printed
    /// last.
    fn unheard_result(&self, failure: &Failure, keep: Option<&str>, attempts: u32) -> TurnResult {
        let agent_type = self.agent().agent_type;
        TurnResult::new(
            agent_type,
            Err(failure.clone()),
            crate::agent_output::parse_agent_output(agent_type, b""),
            None,
            None,
            self.tail.clone().finish(),
            keep,
            attempts,
        )
    }
}

/// A kept process that ended in the middle of a turn nobody stopped.
fn crashed_failure(name: &str, end: &AttemptEnd) -> Failure {
    let how = match (&end.signal, end.exit_code) {
        (Some(signal), _) => format!("killed by {signal}"),
        (None, Some(code)) => format!("exit code {code}"),
        (None, None) => "its output closed".to_owned(),
    };
    Failure::new(
        AgentErrorKind::ProcessError,
        format!("{name} exited during the turn ({how}) without finishing it"),
    )
}

/// `failure` of a turn the engine stopped, saying what became of the process.
fn stopped_as(mut failure: Failure, end: &AttemptEnd) -> Failure {
    failure.message = format!("{}; {}", failure.message, crate::attempt::stop_words(end));
    failure
}
