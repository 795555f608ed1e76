//! The sessions on one agent process: each has its queue, its running
//! turn, its state (modes, options, commands…) and the session to reopen
//! after a restart; the user's operations are addressed to one of them by
//! its key. `Engine::new` makes an engine with one session ([`DEFAULT`]),
//! `Engine::process` one to which sessions are added (`openAgent`).

use serde_json::{json, Value};

use super::action::Snapshot;
use super::cli::CliRefusal;
use super::config::SessionConfig;
use super::engine::*;
use crate::attempt::{AgentErrorKind, Failure, StopReason};
use crate::error::Result;

impl Engine {
    /// Adds a session on the process, opened by [`open_session`](Self::open_session):
    /// `options` may give its own `cd`, `sessionId` (resumed or loaded,
    /// verified), `systemPrompt` and `mcpServers`; the rest is the process's.
    pub fn add_session(&mut self, options: &Value) -> Result<u64> {
        if !self.cfg.is_acp() {
            return Err(crate::error::AgentContextError::invalid(
                "a session over the command line holds one session: open another with openAgentSession",
            ));
        }
        let cfg = self.acp_cfg().for_session(options)?;
        self.drop_closed();
        let key = self.next_key;
        self.next_key += 1;
        let keep = cfg.options.session_id.clone();
        self.sessions.push(Session::new(key, Some(cfg), keep));
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

    /// Over the CLI no mode can be set: `invalid_params` naming why.
    pub fn set_mode_in(&mut self, key: u64, id: &str, now: u64) -> u64 {
        if !self.cfg.is_acp() {
            return self.cli_refuse(CliRefusal::Mode(id), now);
        }
        self.queue_in(key, OpKind::SetMode(id.to_owned()), now)
    }

    /// [`Engine::set_config_option_in`] of a value from the host, which
    /// must be a string or a boolean (else `INVALID_INPUT`, nothing queued).
    pub fn set_config_value_in(
        &mut self,
        key: u64,
        id: &str,
        value: Value,
        now: u64,
    ) -> Result<u64> {
        if !(value.is_string() || value.is_boolean()) {
            return Err(crate::error::AgentContextError::invalid(
                "setConfigOption's value must be a string or a boolean",
            ));
        }
        Ok(self.set_config_option_in(key, id, value, now))
    }

    /// Over the CLI no option can be set: `invalid_params` naming why.
    pub fn set_config_option_in(&mut self, key: u64, id: &str, value: Value, now: u64) -> u64 {
        if !self.cfg.is_acp() {
            return self.cli_refuse(CliRefusal::Config(id), now);
        }
        self.queue_in(key, OpKind::SetConfig(id.to_owned(), value), now)
    }

    /// Over the CLI: the next process's `--model` (a running process that
    /// reads control requests is told at once).
    pub fn set_model_in(&mut self, key: u64, id: &str, now: u64) -> u64 {
        if !self.cfg.is_acp() {
            return self.cli_set_model(id, now);
        }
        self.queue_in(key, OpKind::SetModel(id.to_owned()), now)
    }

    /// `session/list` (`params`: `{ cwd?, cursor? }`), where the agent
    /// advertises it; done with its result.
    pub fn list_sessions(&mut self, params: Value, now: u64) -> u64 {
        let op = self.op_id();
        self.process_queue.push_back((op, OpKind::List(params)));
        self.pump(now);
        op
    }

    /// `session/delete` of the agent's session `id` (the process started
    /// for it when down), where the agent advertises it; otherwise
    /// `invalid_params` naming the agent, nothing sent.
    pub fn delete_session(&mut self, id: &str, now: u64) -> u64 {
        let op = self.op_id();
        self.process_queue
            .push_back((op, OpKind::Delete(id.to_owned())));
        self.pump(now);
        op
    }

    /// `logout` (likewise).
    pub fn logout(&mut self, now: u64) -> u64 {
        let op = self.op_id();
        self.process_queue.push_back((op, OpKind::Logout));
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
            self.done_ok(op);
            return op;
        };
        let s = &mut self.sessions[i];
        if s.closed || s.closing.is_some() || self.closing.is_some() || self.closed {
            self.done_ok(op);
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

    /// The settings of session `key` (the process's when none).
    pub(super) fn cfg_of(&self, key: Option<u64>) -> &SessionConfig {
        key.and_then(|k| self.at(k))
            .and_then(|i| self.sessions[i].cfg.as_deref())
            .unwrap_or_else(|| self.acp_cfg())
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
                    self.agent().name
                ),
            )
        })
    }
}
