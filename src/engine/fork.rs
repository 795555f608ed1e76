//! `session/fork`: a new session on the same process holding the history
//! of another, where the agent advertises
//! `agentCapabilities.sessionCapabilities.fork`. The new session is added
//! first ([`Engine::add_session`]), then opened by forking the source once
//! the source's earlier work is done; it is then a session like any other
//! (its turns, its close, reopened by its own id after a restart).

use serde_json::{json, Map, Value};

use super::engine::*;
use crate::acp::session::SessionStep;
use crate::attempt::{AgentErrorKind, Failure};

impl Engine {
    /// Opens session `new` (added, not yet opened) as a fork of session
    /// `source`: done with the new session's state, or failed
    /// (`invalid_params` when the agent does not fork sessions).
    pub fn fork_session(&mut self, source: u64, new: u64, now: u64) -> u64 {
        if let Some(i) = self.at(new) {
            // Opened by the fork, not by `session/new`.
            self.sessions[i].setup = Setup::Opening;
        }
        self.queue_in(source, OpKind::Fork(new), now)
    }

    /// Whether the agent advertises `session/fork`.
    fn forks(&self) -> bool {
        self.initialized
            .pointer("/agentCapabilities/sessionCapabilities/fork")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false))
    }

    /// Sends the fork of session `i` into session `new` (operation `op`).
    pub(super) fn send_fork(&mut self, i: usize, op: u64, new: u64) {
        let name = self.agent().name;
        let fail = |message: String| Failure::new(AgentErrorKind::InvalidParams, message);
        let Some(j) = self.at(new) else {
            return self.done_failed(
                op,
                fail("invalid parameters: the new session is gone".into()),
            );
        };
        if !self.forks() {
            self.sessions[j].setup = Setup::None;
            return self.done_failed(
                op,
                fail(format!(
                    "invalid parameters: {name} does not fork sessions over ACP (it does not advertise sessionCapabilities.fork)"
                )),
            );
        }
        let Some(source) = self.sessions[i].snapshot.session_id.clone() else {
            return self.done_failed(
                op,
                fail("invalid parameters: the session has no id to fork".into()),
            );
        };
        let target = self.sessions[j]
            .cfg
            .as_deref()
            .unwrap_or_else(|| self.acp_cfg());
        let mcp = match target.mcp_for(&self.initialized) {
            Ok(mcp) => mcp,
            Err(e) => {
                return self.done_failed(op, fail(format!("invalid parameters: {}", e.message())))
            }
        };
        let dirs = match target.dirs_for(&self.initialized) {
            Ok(dirs) => dirs,
            Err(e) => {
                return self.done_failed(op, fail(format!("invalid parameters: {}", e.message())))
            }
        };
        let mut params = Map::new();
        params.insert("sessionId".into(), json!(source));
        params.insert("cwd".into(), json!(target.options.cd));
        if let Some(dirs) = dirs {
            params.insert("additionalDirectories".into(), dirs);
        }
        params.insert("mcpServers".into(), mcp);
        if super::setup::takes_system_prompt(&self.initialized) {
            super::setup::system_prompt_params(
                &mut params,
                target,
                target.launch,
                &self.initialized,
            );
        }
        crate::acp::client::with_trace(&mut params, target.client.traceparent.as_deref());
        let key = self.sessions[i].key;
        let idle = self.options().idle_timeout_ms;
        self.timers
            .set_once(super::timers::Timer::Setup, self.now.saturating_add(idle));
        self.request(
            "session/fork",
            Value::Object(params),
            Pending::Op(op, OpKind::Fork(new), Some(key)),
        );
    }

    /// `session/fork` answered: the new session is open (done with its
    /// state once it is ready), or the fork failed.
    pub(super) fn forked(&mut self, op: u64, new: u64, error: Option<Value>, result: Value) {
        let Some(j) = self.at(new) else {
            return self.done_failed(
                op,
                Failure::new(AgentErrorKind::Aborted, "the new session was closed"),
            );
        };
        if let Some(error) = error {
            self.sessions[j].setup = Setup::None;
            let failure = self.op_failure(&OpKind::Fork(new), &error);
            return self.done_failed(op, failure);
        }
        if result.get("sessionId").and_then(Value::as_str).is_none() {
            self.sessions[j].setup = Setup::None;
            let failure = Failure::new(
                AgentErrorKind::ProcessError,
                format!("{} forked a session without an id", self.agent().name),
            );
            return self.done_failed(op, failure);
        }
        // Done once ready (after the mode in which the agent asks, if set):
        // `ready` answers the open waiting at the front of its queue.
        let s = &mut self.sessions[j];
        s.snapshot.capabilities = self.info.capabilities.clone();
        s.snapshot.auth_methods = self.info.auth_methods.clone();
        s.snapshot.agent_info = self.info.agent_info.clone();
        s.queue.push_front(Queued::Other(op, OpKind::Open));
        self.session_opened(new, SessionStep::New, result);
    }
}
