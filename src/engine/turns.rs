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

    pub(super) fn done_turn_failed(&mut self, turn: &Turn, failure: Failure, now: u64) {
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
    pub(super) fn pump(&mut self, now: u64) {
        self.pump_queue(now);
        self.note_idle(now);
    }

    fn pump_queue(&mut self, now: u64) {
        self.now = now;
        if let Some(failure) = self.broken.clone() {
            if !self.queue.is_empty() {
                self.fail_waiting(failure, now);
            }
            return;
        }
        if self.closed {
            let name = self.cfg.agent.name;
            self.fail_waiting(
                Failure::new(
                    AgentErrorKind::Aborted,
                    format!("the session with {name} is closed"),
                ),
                now,
            );
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

    /// Whether nothing runs or waits: no turn, no queued or pending
    /// request, no host question, the session open.
    fn is_idle(&self) -> bool {
        self.turn.is_none()
            && self.queue.is_empty()
            && self.pending.is_empty()
            && self.calls.is_empty()
            && self.setup == Setup::Ready
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

    /// `idleClose` passed: the process stops, the session to be reopened by
    /// the next prompt, when the agent can resume or load it (otherwise the
    /// process stays: a session is never dropped silently).
    pub(super) fn suspend(&mut self, now: u64) {
        self.idle_since = None;
        if !self.is_idle() {
            return;
        }
        let Some(id) = self.snapshot.session_id.clone() else {
            return;
        };
        let step = crate::acp::session::plan_session(self.cfg.launch, &self.initialized, Some(&id));
        if step.is_err() {
            return;
        }
        self.keep_session = Some(id.clone());
        self.suspend_kill_at = Some(now.saturating_add(super::engine::CLOSE_GRACE_MS));
        if self.can_close {
            self.request("session/close", json!({ "sessionId": id }), Pending::Close);
        } else {
            self.after_close();
        }
    }

    /// Starts the process if it is down; the session opens once it is up.
    pub(super) fn ensure_started(&mut self, _now: u64) {
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

    pub(super) fn send_op(&mut self, op: u64, kind: OpKind) {
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
                // An id of the session's model list that the option does
                // not offer (codex-acp lists `model[effort]` there) goes
                // through `session/set_model`.
                let listed = |list: &Value, key: &str| {
                    list.as_array().is_some_and(|l| {
                        l.iter()
                            .any(|m| m.get(key).and_then(Value::as_str) == Some(id.as_str()))
                    })
                };
                let in_option = self
                    .snapshot
                    .config_options
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|o| o.get("category").and_then(Value::as_str) == Some("model"))
                    .filter_map(|o| o.get("options"))
                    .any(|values| {
                        listed(values, "value")
                            || values.as_array().is_some_and(|groups| {
                                groups
                                    .iter()
                                    .filter_map(|g| g.get("options"))
                                    .any(|v| listed(v, "value"))
                            })
                    });
                let only_in_models = listed(&self.snapshot.models, "modelId") && !in_option;
                if let (Some(config_id), false) = (option, only_in_models) {
                    let params = json!({"sessionId": session, "configId": config_id, "value": id});
                    self.request("session/set_config_option", params, Pending::Op(op, kind));
                } else if self.snapshot.models.is_array()
                    && !self.snapshot.models.as_array().is_some_and(Vec::is_empty)
                {
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
    pub(super) fn send_prompt(&mut self, now: u64) {
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
        // A session that was sent a prompt may hold it: reopened after a
        // restart, whatever the turn comes to (never a silent new one).
        if session.is_some() {
            self.keep_session = session.clone();
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
    pub(super) fn stop_turn(&mut self, why: StopReason, now: u64) {
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
    pub(super) fn end_attempt(&mut self, end: &AttemptEnd, now: u64) {
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

    /// The process died while a turn ran. Gone before it said anything
    /// about the prompt (a crash between turns noticed only once the next
    /// prompt was written), the prompt is sent again, once, to the agent
    /// started anew on the same session.
    pub(super) fn end_turn_on_exit(&mut self, end: &AttemptEnd, now: u64) {
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
    pub(super) fn end_failure(
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
    pub(super) fn finish_close(&mut self, now: u64) {
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
    pub(super) fn after_close(&mut self) {
        if self.proc == Proc::Down {
            return;
        }
        self.push(Action::CloseStdin);
        if !self.cfg.launch.exits_on_eof {
            self.push(Action::Kill);
        }
    }
}
