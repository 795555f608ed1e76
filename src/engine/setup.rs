//! Starting the session on a running process: `initialize`, then a new,
//! resumed or loaded session (never a silent new one for a session the
//! user had), the mode in which the agent asks; and what a failed start means.

use serde_json::{json, Map, Value};

use super::action::{Action, Outcome};
use super::engine::*;
use super::judge::{error_text, Stage};
use crate::acp::session::{plan_session, SessionStep};
use crate::run::{AgentErrorKind, Failure};

impl Engine {
    pub(super) fn initialized(&mut self, result: Value) {
        self.snapshot.capabilities = result
            .get("agentCapabilities")
            .cloned()
            .unwrap_or(Value::Null);
        self.snapshot.auth_methods = result
            .get("authMethods")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        self.snapshot.agent_info = result.get("agentInfo").cloned().unwrap_or(Value::Null);
        self.can_close = result
            .pointer("/agentCapabilities/sessionCapabilities/close")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        self.initialized = result;
        self.open_session();
    }

    pub(super) fn open_session(&mut self) {
        let asked = self.keep_session.clone();
        let step = match plan_session(self.cfg.launch, &self.initialized, asked.as_deref()) {
            Ok(step) => step,
            Err(why) => {
                let message = format!(
                    "{} cannot reopen session {} over ACP: {why}",
                    self.cfg.agent.name,
                    asked.unwrap_or_default()
                );
                return self.setup_decided(Failure::new(AgentErrorKind::SessionNotFound, message));
            }
        };
        let mcp = match self.cfg.mcp_for(&self.initialized) {
            Ok(mcp) => mcp,
            Err(e) => {
                return self.setup_decided(Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", e.message()),
                ))
            }
        };
        let mut params = Map::new();
        if let Some(id) = asked.filter(|_| step != SessionStep::New) {
            params.insert("sessionId".into(), json!(id));
        }
        params.insert("cwd".into(), json!(self.cfg.options.cd));
        params.insert("mcpServers".into(), mcp);
        if let (true, Some(system)) = (self.cfg.launch.system_prompt_meta, &self.cfg.system_prompt)
        {
            params.insert("_meta".into(), json!({"systemPrompt": {"append": system}}));
        }
        self.setup = Setup::Opening;
        self.system_inline = step == SessionStep::New
            && !self.cfg.launch.system_prompt_meta
            && self.cfg.system_prompt.is_some();
        self.request(step.method(), Value::Object(params), Pending::Session(step));
    }

    pub(super) fn session_opened(&mut self, step: SessionStep, result: Value) {
        let id = match step {
            SessionStep::New => result
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => self.keep_session.clone(),
        };
        self.snapshot.session_id = id.clone();
        if let Some(id) = &id {
            self.cfg.options.session_id = Some(id.clone());
        }
        if let Some(modes) = result.get("modes").filter(|m| !m.is_null()) {
            self.snapshot.modes = modes
                .get("availableModes")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            self.snapshot.mode = modes
                .get("currentModeId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(models) = result.get("models").filter(|m| !m.is_null()) {
            self.snapshot.models = models
                .get("availableModels")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            self.snapshot.model = models
                .get("currentModelId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(options) = result.get("configOptions").filter(|m| !m.is_null()) {
            self.snapshot.config_options = options.clone();
        }
        // The mode in which the agent asks, so that the policy answers
        // (Qwen's default mode approves by itself).
        if let (Some(wanted), Some(id)) = (self.cfg.launch.ask_mode, id) {
            let offered = self.snapshot.modes.as_array().is_some_and(|m| {
                m.iter()
                    .any(|m| m.get("id").and_then(Value::as_str) == Some(wanted))
            });
            if offered && self.snapshot.mode.as_deref() != Some(wanted) {
                self.setup = Setup::AskingMode;
                self.request(
                    "session/set_mode",
                    json!({"sessionId": id, "modeId": wanted}),
                    Pending::AskMode,
                );
                return;
            }
        }
        self.ready();
    }

    pub(super) fn ready(&mut self) {
        self.setup = Setup::Ready;
        self.setup_active_ms = None;
        if let Some(Queued::Other(op, OpKind::Open)) = self.queue.front() {
            let op = *op;
            self.queue.pop_front();
            let snapshot = self.snapshot.clone();
            self.push(Action::Done {
                op,
                outcome: Outcome::Opened(Box::new(snapshot)),
            });
        }
    }

    /// A setup request failed: the process is stopped; what waits fails.
    pub(super) fn setup_error(&mut self, stage: Stage, error: Value) {
        self.setup_failed = Some((stage, error));
        self.setup_active_ms = None;
        self.stop_process();
    }

    /// The session cannot be opened: decided without asking the agent.
    pub(super) fn setup_decided(&mut self, failure: Failure) {
        self.setup_failed = Some((
            Stage::Session,
            json!({"decided": failure.message, "kind": failure.kind.as_str()}),
        ));
        self.setup_active_ms = None;
        self.stop_process();
    }

    pub(super) fn setup_failure(&self, stage: Stage, error: &Value) -> Failure {
        let name = self.cfg.agent.name;
        if let Some(message) = error.get("decided").and_then(Value::as_str) {
            let kind = match error.get("kind").and_then(Value::as_str) {
                Some("invalid_params") => AgentErrorKind::InvalidParams,
                _ => AgentErrorKind::SessionNotFound,
            };
            return Failure::new(kind, message);
        }
        if error.get("idle").is_some() {
            return Failure::new(AgentErrorKind::IdleTimeout, error_text(error));
        }
        let code = error.get("code").and_then(Value::as_i64);
        if code == Some(AUTH_REQUIRED) {
            return Failure::new(
                AgentErrorKind::AuthError,
                format!(
                    "{name} needs authentication: {} (methods: {})",
                    error_text(error),
                    auth_method_names(&self.snapshot.auth_methods)
                ),
            );
        }
        if stage == Stage::Session {
            if let Some(asked) = &self.keep_session {
                return Failure::new(
                    AgentErrorKind::SessionNotFound,
                    format!(
                        "{name} cannot reopen session {asked}: {}",
                        error_text(error)
                    ),
                );
            }
        }
        let what = if stage == Stage::Initialize {
            "initialize"
        } else {
            "open a session"
        };
        Failure::new(
            AgentErrorKind::ProcessError,
            format!("{name} failed to {what}: {}", error_text(error)),
        )
    }

    /// Ends the process: stdin closed, and killed (an agent that ignores
    /// EOF at once, the others after the grace).
    pub(super) fn stop_process(&mut self) {
        if self.proc == Proc::Down {
            return;
        }
        self.push(Action::CloseStdin);
        self.push(Action::Kill);
    }

    /// Starting failed for good: every operation fails with `failure`.
    pub(super) fn break_with(&mut self, failure: Failure, now: u64) {
        self.now = now;
        self.broken = Some(failure.clone());
        self.fail_waiting(failure, now);
        if let Some((op, _)) = self.closing.take() {
            self.closed = true;
            self.push(Action::Done {
                op,
                outcome: Outcome::Ok(Value::Null),
            });
            self.push(Action::Closed);
        }
    }

    /// Fails the operations waiting for the session (the running turn too).
    pub(super) fn fail_waiting(&mut self, failure: Failure, now: u64) {
        if let Some(turn) = self.turn.take() {
            self.done_turn_failed(&turn, failure.clone(), now);
        }
        for queued in std::mem::take(&mut self.queue) {
            match queued {
                Queued::Prompt(turn) => self.done_turn_failed(&turn, failure.clone(), now),
                Queued::Other(op, _) => self.done_failed(op, failure.clone()),
            }
        }
    }
}
