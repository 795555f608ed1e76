//! The sessions on one agent process: each has its queue, its running
//! turn, its state (modes, options, commands…) and the session to reopen
//! after a restart; the user's operations are addressed to one of them by
//! its key. `Engine::new` makes an engine with one session ([`DEFAULT`]),
//! `Engine::process` one to which sessions are added (`openAgent`).

use serde_json::{json, Value};

use super::action::{Action, Outcome, Snapshot};
use super::config::SessionConfig;
use super::engine::*;
use super::turn::{Turn, TurnLimits};
use crate::error::Result;
use crate::run::{aborted, AgentErrorKind, Failure, StopReason};

impl Engine {
    /// Adds a session on the process, opened by [`open_session`](Self::open_session):
    /// `options` may give its own `cd`, `sessionId` (resumed or loaded,
    /// verified), `systemPrompt` and `mcpServers`; the rest is the process's.
    pub fn add_session(&mut self, options: &Value) -> Result<u64> {
        let cfg = self.cfg.for_session(options)?;
        self.drop_closed();
        let key = self.next_key;
        self.next_key += 1;
        self.sessions.push(Session::new(key, cfg));
        Ok(key)
    }

    /// Opens session `key` (starting the agent when it is down): done
    /// with its snapshot once open.
    pub fn open_session(&mut self, key: u64, now: u64) -> u64 {
        self.queue_in(key, OpKind::Open, now)
    }

    /// The state of session `key`.
    pub fn snapshot_of(&mut self, key: u64) -> Option<&Snapshot> {
        let i = self.at(key)?;
        self.settle_snapshot(i);
        Some(&self.sessions[i].snapshot)
    }

    /// Queue a prompt in session `key`.
    pub fn prompt_in(&mut self, key: u64, blocks: Value, limits: TurnLimits, now: u64) -> u64 {
        let op = self.op_id();
        let turn = Queued::Prompt(Box::new(Turn::new(op, blocks, limits)));
        self.enqueue(key, turn, op, now);
        op
    }

    pub fn set_mode_in(&mut self, key: u64, id: &str, now: u64) -> u64 {
        self.queue_in(key, OpKind::SetMode(id.to_owned()), now)
    }

    pub fn set_config_option_in(&mut self, key: u64, id: &str, value: Value, now: u64) -> u64 {
        self.queue_in(key, OpKind::SetConfig(id.to_owned(), value), now)
    }

    pub fn set_model_in(&mut self, key: u64, id: &str, now: u64) -> u64 {
        self.queue_in(key, OpKind::SetModel(id.to_owned()), now)
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

    /// `session/list` (`params`: `{ cwd?, cursor? }`), where the agent
    /// advertises it; done with its result.
    pub fn list_sessions(&mut self, params: Value, now: u64) -> u64 {
        let op = self.op_id();
        self.process_queue.push_back((op, OpKind::List(params)));
        self.pump(now);
        op
    }

    /// Close session `key` alone: its queued work is aborted, its running
    /// turn cancelled, then `session/close` where advertised; the process
    /// goes on. Done once it is closed.
    pub fn close_session(&mut self, key: u64, now: u64) -> u64 {
        self.now = now;
        let op = self.op_id();
        let Some(i) = self.at(key) else {
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
            return op;
        };
        let s = &mut self.sessions[i];
        if s.closed || s.closing.is_some() || self.closing.is_some() || self.closed {
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
            return op;
        }
        s.closing = Some(op);
        self.release_terminals(Some(key));
        self.abort_queue(i, now);
        if self.sessions[i].turn.is_some() {
            self.stop_turn(i, StopReason::Aborted, now);
        } else {
            self.finish_close_session(i);
        }
        self.pump(now);
        op
    }

    // ----- inside -----

    /// Where session `key` is in the list.
    pub(super) fn at(&self, key: u64) -> Option<usize> {
        self.sessions.iter().position(|s| s.key == key)
    }

    /// The settings of session `key` (the process's when none).
    pub(super) fn cfg_of(&self, key: Option<u64>) -> &SessionConfig {
        key.and_then(|k| self.at(k))
            .map_or(&self.cfg, |i| &self.sessions[i].cfg)
    }

    /// The session whose id the agent named.
    pub(super) fn by_id(&self, id: Option<&str>) -> Option<usize> {
        let id = id?;
        self.sessions
            .iter()
            .position(|s| s.snapshot.session_id.as_deref() == Some(id))
    }

    pub(super) fn queue_in(&mut self, key: u64, kind: OpKind, now: u64) -> u64 {
        let op = self.op_id();
        self.enqueue(key, Queued::Other(op, kind), op, now);
        op
    }

    pub(super) fn enqueue(&mut self, key: u64, queued: Queued, op: u64, now: u64) {
        match self.at(key) {
            Some(i) if !self.sessions[i].closed && self.sessions[i].closing.is_none() => {
                self.sessions[i].queue.push_back(queued);
                self.pump(now);
            }
            _ => {
                let failure = Failure::new(
                    AgentErrorKind::Aborted,
                    format!("the session with {} is closed", self.cfg.agent.name),
                );
                match queued {
                    Queued::Prompt(turn) => self.push_failed_turn(None, &turn, failure, now),
                    Queued::Other(..) => self.done_failed(op, failure),
                }
            }
        }
    }

    /// Session `i`'s queued work ends `aborted`.
    pub(super) fn abort_queue(&mut self, i: usize, now: u64) {
        let name = self.cfg.agent.name;
        for queued in std::mem::take(&mut self.sessions[i].queue) {
            match queued {
                Queued::Prompt(turn) => self.done_turn_failed(i, &turn, aborted(name), now),
                Queued::Other(op, _) => self.done_failed(
                    op,
                    Failure::new(AgentErrorKind::Aborted, "the session was closed"),
                ),
            }
        }
    }

    /// Session `i` closing alone, its turn over: `session/close` where
    /// advertised, else closed now.
    pub(super) fn finish_close_session(&mut self, i: usize) {
        let s = &self.sessions[i];
        if s.turn.is_some() || s.closing.is_none() {
            return;
        }
        let ready = s.setup == Setup::Ready && self.proc == Proc::Up;
        if let (true, true, Some(id)) = (self.can_close, ready, s.snapshot.session_id.clone()) {
            let key = s.key;
            self.request(
                "session/close",
                json!({ "sessionId": id }),
                Pending::Close(key),
            );
            return;
        }
        self.session_closed(i);
    }

    /// Session `i` is closed: its close is done.
    pub(super) fn session_closed(&mut self, i: usize) {
        let s = &mut self.sessions[i];
        s.closed = true;
        s.setup = Setup::None;
        if let Some(op) = s.closing.take() {
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
        }
    }

    /// Forgets the closed sessions of a process engine.
    pub(super) fn drop_closed(&mut self) {
        if self.closing.is_none() && !self.closed {
            self.sessions.retain(|s| !(s.closed && s.key != DEFAULT));
        }
    }

    /// `session/list`'s params checked against what the agent advertises.
    pub(super) fn list_problem(&self) -> Option<Failure> {
        let listed = self
            .initialized
            .pointer("/agentCapabilities/sessionCapabilities/list")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        (!listed).then(|| {
            Failure::new(
                AgentErrorKind::InvalidParams,
                format!(
                    "invalid parameters: {} does not list its sessions over ACP (it does not advertise sessionCapabilities.list)",
                    self.cfg.agent.name
                ),
            )
        })
    }
}
