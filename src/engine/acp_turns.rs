//! The turn machine's steps over ACP: the process and its sessions started
//! for work that waits, a prompt sent as `session/prompt`, a stop sent as
//! `session/cancel` (pending permissions answered `cancelled`), an answer
//! judged, the sessions closed with `session/close` where advertised, a
//! process stopped for `idleClose`, and what its exit leaves.

use serde_json::{json, Value};

use super::action::Action;
use super::engine::*;
use super::judge::{judge, Stage};
use super::timers::Timer;
use super::turn::{Probe, Turn};
use super::turns::Judged;
use crate::acp::PROTOCOL_VERSION;
use crate::agent_output::Protocol;
use crate::attempt::{AgentErrorKind, AttemptEnd, Failure, OutputTail};

impl Engine {
    pub(super) fn acp_pump(&mut self, now: u64) {
        if let Some(failure) = self.broken.clone() {
            if !self.process_queue.is_empty() || self.sessions.iter().any(|s| !s.queue.is_empty()) {
                self.fail_all(failure, now);
            }
            return;
        }
        if self.closed {
            let name = self.agent().name;
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
                let name = self.agent().name;
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
        // A turn waiting for its (next) attempt.
        if let Some(turn) = s.turn.as_ref() {
            if turn.attempt.is_none() && !turn.retrying && turn.probe != Probe::Asked {
                if s.setup == Setup::Ready {
                    self.begin_attempt(i, now);
                } else if !self.awaits_probe(i) {
                    // Its endpoint asked before the process is started.
                    self.ensure_session(i, authenticating, now);
                }
            }
        }
        while !self.sessions[i].queue.is_empty() {
            if self.sessions[i].setup != Setup::Ready {
                // A prompt that starts the process asks its endpoint first.
                if !self.awaits_probe(i) {
                    self.ensure_session(i, authenticating, now);
                }
                break;
            }
            match self.sessions[i].queue.pop_front() {
                Some(Queued::Prompt(turn)) => {
                    if self.sessions[i].turn.is_some() {
                        self.sessions[i].queue.push_front(Queued::Prompt(turn));
                        break;
                    }
                    if let Some(failure) = self.prompt_refusal(&turn) {
                        self.failed_turn(Some(i), &turn, failure, now);
                        continue;
                    }
                    self.sessions[i].turn = Some(turn);
                    self.begin_attempt(i, now);
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

    /// Keeps the `idleClose` deadline: set while nothing runs.
    pub(super) fn note_idle(&mut self, now: u64) {
        let Some(after) = self.acp_cfg().idle_close_ms else {
            return;
        };
        if self.is_idle() {
            self.timers
                .set_once(Timer::IdleClose, now.saturating_add(after));
        } else {
            self.timers.clear(Timer::IdleClose);
        }
    }

    /// `idleClose` passed: the process stops, its sessions to be reopened
    /// by their next prompt, when the agent can resume or load them
    /// (otherwise the process stays: a session is never dropped silently).
    pub(super) fn suspend(&mut self, now: u64) {
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
        let launch = self.launch_spec();
        for (_, id) in &open {
            if crate::acp::session::plan_session(launch, &self.initialized, Some(id)).is_err() {
                return;
            }
        }
        self.timers
            .set(Timer::SuspendKill, now.saturating_add(CLOSE_GRACE_MS));
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
        self.lines = Default::default();
        self.tail = OutputTail::default();
        self.init_failed = None;
        let cfg = self.acp_cfg();
        if let Some(transport) = &cfg.reach.transport {
            let connect = Action::Connect(transport.clone());
            return self.push(connect);
        }
        let spawn = Action::Spawn {
            command: cfg.command.clone(),
            args: cfg.args.clone(),
            env: cfg.env.clone(),
            default_env: cfg.default_env.clone(),
            cwd: cfg.options.cd.clone(),
            files: Vec::new(),
            outputs: Vec::new(),
            retry_log: cfg.retry_log.clone(),
        };
        self.push(spawn);
    }

    /// The process is up: `initialize`, once.
    pub(super) fn initialize(&mut self, now: u64) {
        self.init = Init::Initializing;
        let idle = self.options().idle_timeout_ms;
        self.timers.set(Timer::Setup, now.saturating_add(idle));
        let params = json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": self.client_capabilities(),
            "clientInfo": {"name": "agent-context", "version": env!("CARGO_PKG_VERSION")},
        });
        self.request("initialize", params, Pending::Initialize);
    }

    /// The agent said nothing for the idle limit while starting: it is
    /// stopped, and what waits for it fails (a run tries again).
    pub(super) fn setup_silent(&mut self) {
        let (name, idle) = (self.agent().name, self.options().idle_timeout_ms);
        self.init_failed.get_or_insert((
            Stage::Initialize,
            json!({"message": format!(
                "{name} did not answer within {} s while starting",
                idle / 1000
            ), "idle": true}),
        ));
        self.kill();
    }

    /// Sends session `i`'s running turn's prompt (a new attempt).
    pub(super) fn send_prompt(&mut self, i: usize, now: u64) {
        self.record_request(i);
        let agent = self.agent();
        let s = &mut self.sessions[i];
        let session = s.snapshot.session_id.clone();
        let Some(turn) = s.turn.as_mut() else {
            return;
        };
        turn.start_attempt(agent, Protocol::Acp, false, now);
        let (idle, deadline) = (turn.limits.idle_ms, turn.deadline());
        let mut blocks = turn.attempt_blocks();
        // Said once: the session holds it from then on (or the prompt it
        // opened, sent again, carries it again).
        let inline = s.system_inline || (turn.system_carried && !turn.continues);
        if inline {
            s.system_inline = false;
            turn.system_carried = true;
            if let Some(system) = s.cfg.as_ref().and_then(|c| c.system_prompt.as_ref()) {
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
        let trace = s
            .turn
            .as_ref()
            .and_then(|t| t.trace.clone())
            .or_else(|| s.cfg.as_ref().and_then(|c| c.client.traceparent.clone()));
        self.timers.set(Timer::Idle(key), now.saturating_add(idle));
        self.timers.set(Timer::Deadline(key), deadline);
        let mut params = json!({"sessionId": session, "prompt": blocks});
        if let Value::Object(p) = &mut params {
            crate::acp::client::with_trace(p, trace.as_deref());
        }
        let id = self.request("session/prompt", params, Pending::Prompt(key));
        if let Some(a) = self.attempt_mut(i) {
            a.acp.rpc_id = Some(id);
        }
    }

    /// The stop of session `i`'s sent turn: `session/cancel`, its
    /// permission requests answered `cancelled`, the tree killed after
    /// the grace.
    pub(super) fn acp_stop(&mut self, i: usize, now: u64) {
        let (key, session) = (
            self.sessions[i].key,
            self.sessions[i].snapshot.session_id.clone(),
        );
        if let Some(a) = self.attempt_mut(i) {
            a.stop_sent = true;
        }
        self.timers
            .set(Timer::Kill(key), now.saturating_add(CANCEL_GRACE_MS));
        self.notify("session/cancel", json!({ "sessionId": session }));
        for call in std::mem::take(&mut self.calls) {
            let cancelled = match &call.kind {
                CallKind::Permission(_) => Some(json!({"outcome": {"outcome": "cancelled"}})),
                CallKind::Elicitation(_) => Some(crate::acp::elicitation::cancelled()),
                _ => None,
            };
            match cancelled {
                Some(answer) if call.key == Some(key) => {
                    self.respond(call.rpc_id, answer);
                    // The app's callback is aborted; its late answer is dropped.
                    self.push(Action::HostCancel { call: call.call });
                }
                _ => self.calls.push(call),
            }
        }
        self.stop_terminals(Some(key));
    }

    /// What an attempt over ACP came to: the prompt's answer, the process's
    /// end, the reply read.
    pub(super) fn acp_judge(
        &mut self,
        i: usize,
        turn: &Turn,
        attempt: super::turn::Attempt,
        end: &AttemptEnd,
    ) -> Judged {
        let agent = self.agent();
        let s = &self.sessions[i];
        let mut reply = attempt.parser.finish();
        reply.session_id = s.snapshot.session_id.clone().or(reply.session_id);
        let last_lines = attempt.tail.finish();
        let mut options = s
            .cfg
            .as_ref()
            .map_or(self.options(), |c| &c.options)
            .clone();
        options.idle_timeout_ms = turn.limits.idle_ms;
        options.max_duration_ms = turn.limits.max_ms;
        let a = attempt.acp;
        let outcome = judge(
            agent,
            &options,
            end,
            &mut reply,
            &last_lines,
            &a.stop_reason,
            &a.failed,
            a.decided,
            a.rejected,
            self.cfg.command_named(),
        );
        let auth = matches!(&a.failed, Some((_, e)) if e.get("code").and_then(Value::as_i64) == Some(AUTH_REQUIRED));
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
        Judged {
            outcome,
            reply,
            stop_reason: a.stop_reason,
            exit_code: end.exit_code,
            last_lines,
            requested: s.keep_session.clone(),
            end: None,
            events: None,
        }
    }

    /// No turn runs any more: every session is closed (`session/close`
    /// where advertised), then stdin ended.
    pub(super) fn acp_close_sessions(&mut self) {
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
        if self.launch_spec().exits_on_eof {
            return;
        }
        let at = self.now.saturating_add(self.save_wait_ms);
        let suspending = self.timers.get(Timer::SuspendKill).is_some();
        match (self.save_wait_ms, self.closing.is_some()) {
            (1.., true) => self.timers.set(Timer::CloseKill, at),
            (1.., false) if suspending => self.timers.set(Timer::SuspendKill, at),
            _ => self.push(Action::Kill),
        }
    }

    /// The process is gone: its sessions are to be opened again, what it
    /// was asked is unanswered. Returns the user's operations that were in
    /// flight on it.
    pub(super) fn acp_process_gone(&mut self) -> Vec<u64> {
        // What it had not answered yet, for a failure to start.
        self.gone_before = match self.init {
            Init::Done => "its session request",
            _ => "initialize",
        };
        self.init = Init::None;
        self.calls.clear();
        let mut in_flight = Vec::new();
        for (_, p) in std::mem::take(&mut self.pending) {
            if let Pending::Op(op, ..) = p {
                in_flight.push(op);
            }
        }
        in_flight
    }

    /// What the exit means for each session (not closing): a failure to
    /// start or open ends what waits for it (a run tries again), a running
    /// turn ends with the process.
    pub(super) fn acp_exited(&mut self, end: &AttemptEnd, in_flight: Vec<u64>, now: u64) {
        let was_ready: Vec<bool> = self
            .sessions
            .iter()
            .map(|s| s.setup == Setup::Ready)
            .collect();
        for s in &mut self.sessions {
            s.setup = Setup::None;
        }
        let init_failed = self.init_failed.take();
        let what = self.gone_before;
        let failure = match &init_failed {
            Some((stage, error)) => self.setup_failure(None, *stage, error),
            None if what == "initialize" => self.early_failure(end, what),
            None => self.end_failure(end, None),
        };
        for op in in_flight {
            self.done_failed(op, failure.clone());
        }
        if init_failed.is_some() || !self.process_queue.is_empty() {
            for (op, _) in std::mem::take(&mut self.process_queue) {
                self.done_failed(op, failure.clone());
            }
        }
        for (i, was_ready) in was_ready.into_iter().enumerate() {
            let waiting = self.sessions[i].turn.is_some() || !self.sessions[i].queue.is_empty();
            if let Some((stage, error)) = self.sessions[i].setup_failed.take() {
                let key = self.sessions[i].key;
                let failure = self.setup_failure(Some(key), stage, &error);
                if !(waiting && self.fail_before_sent(i, &failure, now)) {
                    self.fail_waiting(i, failure, now);
                }
            } else if init_failed.is_some() || !was_ready {
                // Died while starting or opening the session: what waits
                // for it fails (a run tries again).
                let failure = match init_failed.is_some() {
                    true => failure.clone(),
                    false => self.early_failure(end, what),
                };
                if !(waiting && self.fail_before_sent(i, &failure, now)) {
                    self.fail_waiting(i, failure, now);
                }
            } else {
                let stopped = self.sessions[i].turn.as_ref().and_then(|t| t.stopped);
                let end = AttemptEnd {
                    stopped,
                    ..end.clone()
                };
                self.end_turn_on_exit(i, &end, now);
            }
        }
    }

    pub(super) fn request(&mut self, method: &str, params: Value, pending: Pending) -> u64 {
        self.next_id += 1;
        let id = self.next_id;
        self.pending.push((id, pending));
        let line = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        self.push(Action::Write(format!("{line}\n")));
        id
    }

    /// The requests of ours that `which` picks are given up (a deadline
    /// passed, the process is about to be stopped): the agent is told with
    /// `$/cancel_request` each. Over the CLI, nothing.
    pub(super) fn give_up(&mut self, which: impl Fn(&Pending) -> bool) {
        if !self.cfg.is_acp() || self.proc != Proc::Up {
            return;
        }
        let ids: Vec<u64> = self
            .pending
            .iter()
            .filter(|(_, p)| which(p))
            .map(|(id, _)| *id)
            .collect();
        for id in ids {
            self.notify("$/cancel_request", json!({ "requestId": id }));
        }
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

    /// Kills the tree if it runs.
    pub(super) fn kill(&mut self) {
        if self.proc != Proc::Down {
            self.push(Action::Kill);
        }
    }
}
