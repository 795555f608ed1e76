//! Starting on a running process: `initialize` once, then each session
//! new, resumed or loaded (never a silent new one for a session the user
//! had), the mode in which the agent asks; and what a failed start means.

use serde_json::{json, Map, Value};

use super::action::{Action, Outcome};
use super::engine::*;
use super::judge::{error_text, Stage};
use super::timers::Timer;
use crate::acp::session::{plan_session, SessionStep};
use crate::attempt::{AgentErrorKind, Failure};

impl Engine {
    pub(super) fn initialized(&mut self, result: Value) {
        self.info.capabilities = result
            .get("agentCapabilities")
            .cloned()
            .unwrap_or(Value::Null);
        self.info.auth_methods = result
            .get("authMethods")
            .cloned()
            .unwrap_or(Value::Array(Vec::new()));
        self.info.auth_methods =
            with_terminal_commands(self.info.auth_methods.take(), self.acp_cfg());
        self.info.agent_info = result.get("agentInfo").cloned().unwrap_or(Value::Null);
        self.save_wait_ms = crate::agents::save_wait_ms(&self.info.agent_info);
        // An adapter no longer maintained: said once, whatever restarts.
        if !self.warned_superseded {
            if let Some(warning) = crate::agents::superseded_warning(&self.info.agent_info) {
                self.warned_superseded = true;
                self.push(Action::Warn(warning));
            }
        }
        for s in &mut self.sessions {
            s.snapshot.capabilities = self.info.capabilities.clone();
            s.snapshot.auth_methods = self.info.auth_methods.clone();
            s.snapshot.agent_info = self.info.agent_info.clone();
        }
        self.can_close = result
            .pointer("/agentCapabilities/sessionCapabilities/close")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        self.initialized = result;
        self.init = Init::Done;
        self.timers.clear(Timer::Setup);
    }

    /// Sends the request that opens session `i` (new, resume or load).
    pub(super) fn open_request(&mut self, i: usize) {
        let s = &self.sessions[i];
        let (key, asked) = (s.key, s.keep_session.clone());
        let launch = self.launch_spec();
        let step = match plan_session(launch, &self.initialized, asked.as_deref()) {
            Ok(step) => step,
            Err(why) => {
                let message = format!(
                    "{} cannot reopen session {} over ACP: {why}",
                    self.agent().name,
                    asked.unwrap_or_default()
                );
                let failure = Failure::new(AgentErrorKind::SessionNotFound, message);
                return self.setup_decided(i, failure);
            }
        };
        let Some(scfg) = s.cfg.as_deref() else {
            return;
        };
        let mcp = match scfg.mcp_for(&self.initialized) {
            Ok(mcp) => mcp,
            Err(e) => {
                let failure = Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", e.message()),
                );
                return self.setup_decided(i, failure);
            }
        };
        let dirs = match scfg.dirs_for(&self.initialized) {
            Ok(dirs) => dirs,
            Err(e) => {
                let failure = Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", e.message()),
                );
                return self.setup_decided(i, failure);
            }
        };
        let mut params = Map::new();
        if let Some(id) = asked.filter(|_| step != SessionStep::New) {
            params.insert("sessionId".into(), json!(id));
        }
        params.insert("cwd".into(), json!(scfg.options.cd));
        if let Some(dirs) = dirs {
            params.insert("additionalDirectories".into(), dirs);
        }
        params.insert("mcpServers".into(), mcp);
        let carried = system_prompt_params(&mut params, scfg, launch, &self.initialized);
        crate::acp::client::with_trace(&mut params, scfg.client.traceparent.as_deref());
        let system_inline = step == SessionStep::New && !carried && scfg.system_prompt.is_some();
        let s = &mut self.sessions[i];
        s.setup = Setup::Opening;
        s.system_inline = system_inline;
        let idle = self.options().idle_timeout_ms;
        self.timers
            .set_once(Timer::Setup, self.now.saturating_add(idle));
        self.request(
            step.method(),
            Value::Object(params),
            Pending::Session(key, step),
        );
    }

    pub(super) fn session_opened(&mut self, key: u64, step: SessionStep, result: Value) {
        let ask_mode = self.launch_spec().ask_mode;
        let Some(i) = self.at(key) else { return };
        let id = match step {
            SessionStep::New => result
                .get("sessionId")
                .and_then(Value::as_str)
                .map(str::to_owned),
            _ => self.sessions[i].keep_session.clone(),
        };
        let reopened = step;
        let s = &mut self.sessions[i];
        s.opened_by = Some(step);
        s.snapshot.session_id = id.clone();
        if let (Some(id), Some(cfg)) = (&id, s.cfg.as_mut()) {
            cfg.options.session_id = Some(id.clone());
        }
        if let Some(modes) = result.get("modes").filter(|m| !m.is_null()) {
            s.snapshot.modes = modes
                .get("availableModes")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            s.snapshot.mode = modes
                .get("currentModeId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(models) = result.get("models").filter(|m| !m.is_null()) {
            s.snapshot.models = models
                .get("availableModels")
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            s.snapshot.model = models
                .get("currentModelId")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        if let Some(options) = result.get("configOptions").filter(|m| !m.is_null()) {
            s.snapshot.config_options = options.clone();
        }
        // The mode in which the agent asks, so that the policy answers
        // (Qwen's default mode approves by itself).
        if let (Some(wanted), Some(id)) = (ask_mode, id) {
            let offered = s.snapshot.modes.as_array().is_some_and(|m| {
                m.iter()
                    .any(|m| m.get("id").and_then(Value::as_str) == Some(wanted))
            });
            if offered && s.snapshot.mode.as_deref() != Some(wanted) {
                s.setup = Setup::AskingMode;
                self.request(
                    "session/set_mode",
                    json!({"sessionId": id, "modeId": wanted}),
                    Pending::AskMode(key),
                );
                return;
            }
        }
        self.record_ready(i, Some(reopened));
        self.ready(i);
    }

    pub(super) fn ready(&mut self, i: usize) {
        self.sessions[i].setup = Setup::Ready;
        let opening = self
            .sessions
            .iter()
            .any(|s| matches!(s.setup, Setup::Opening | Setup::AskingMode));
        if !opening {
            self.timers.clear(Timer::Setup);
        }
        if let Some(Queued::Other(op, OpKind::Open)) = self.sessions[i].queue.front() {
            let op = *op;
            self.sessions[i].queue.pop_front();
            self.settle_snapshot(i);
            let snapshot = self.sessions[i].snapshot.clone();
            self.push(Action::Done {
                op,
                outcome: Outcome::Opened(Box::new(snapshot)),
            });
        }
    }

    /// A setup request failed (`key` None: `initialize`). What waits for
    /// it fails; the process is stopped unless other sessions live on it.
    pub(super) fn setup_error(&mut self, key: Option<u64>, stage: Stage, error: Value) {
        let Some(i) = key.and_then(|k| self.at(k)) else {
            self.init_failed = Some((stage, error));
            self.timers.clear(Timer::Setup);
            return self.stop_process();
        };
        let others_live = self
            .sessions
            .iter()
            .enumerate()
            .any(|(j, s)| j != i && !s.closed && (s.setup == Setup::Ready || !s.is_idle()));
        if others_live {
            let failure = self.setup_failure(key, stage, &error);
            self.sessions[i].setup = Setup::None;
            self.fail_waiting(i, failure, self.now);
            if !self
                .sessions
                .iter()
                .any(|s| matches!(s.setup, Setup::Opening | Setup::AskingMode))
            {
                self.timers.clear(Timer::Setup);
            }
            return;
        }
        self.sessions[i].setup_failed = Some((stage, error));
        self.timers.clear(Timer::Setup);
        self.stop_process();
    }

    /// Session `i` cannot be opened: decided without asking the agent.
    pub(super) fn setup_decided(&mut self, i: usize, failure: Failure) {
        let key = self.sessions[i].key;
        let error = json!({"decided": failure.message, "kind": failure.kind.as_str()});
        self.setup_error(Some(key), Stage::Session, error);
    }

    pub(super) fn setup_failure(&self, key: Option<u64>, stage: Stage, error: &Value) -> Failure {
        let name = self.agent().name;
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
                    auth_method_names(&self.info.auth_methods)
                ),
            );
        }
        let asked = key
            .and_then(|k| self.at(k))
            .and_then(|i| self.sessions[i].keep_session.as_ref());
        if let (Stage::Session, Some(asked)) = (stage, asked) {
            return Failure::new(
                AgentErrorKind::SessionNotFound,
                format!(
                    "{name} cannot reopen session {asked}: {}",
                    error_text(error)
                ),
            );
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
}

/// Whether the agent takes a client's system prompt on its session
/// requests (`sessionCapabilities.systemPrompt`, unstable in ACP 1.25).
pub(super) fn takes_system_prompt(initialized: &Value) -> bool {
    initialized
        .pointer("/agentCapabilities/sessionCapabilities/systemPrompt")
        .is_some_and(|c| !c.is_null() && c != &Value::Bool(false))
}

/// The session's system prompt in `params` where the agent takes one:
/// `systemPrompt: { mode: 'append', content }` where it advertises
/// `sessionCapabilities.systemPrompt`, else Claude's `_meta.systemPrompt`.
/// False when it goes inline (in front of the first prompt) instead.
pub(super) fn system_prompt_params(
    params: &mut Map<String, Value>,
    scfg: &super::config::SessionConfig,
    launch: &crate::agents::AcpLaunch,
    initialized: &Value,
) -> bool {
    let Some(system) = &scfg.system_prompt else {
        return false;
    };
    if takes_system_prompt(initialized) {
        params.insert(
            "systemPrompt".into(),
            json!({"mode": "append", "content": [{"type": "text", "text": system}]}),
        );
        true
    } else if launch.system_prompt_meta {
        params.insert("_meta".into(), json!({"systemPrompt": {"append": system}}));
        true
    } else {
        false
    }
}

/// The agent's auth methods, each terminal login (`type: 'terminal'`) with
/// the command that runs it in a terminal: `terminal: { command, args, env }`,
/// the agent's own command line as it is started here with the method's
/// `args` after it, and the method's `env` (to set over the environment the
/// session was given).
pub(super) fn with_terminal_commands(methods: Value, cfg: &super::config::SessionConfig) -> Value {
    let Value::Array(list) = methods else {
        return methods;
    };
    let list = list
        .into_iter()
        .map(|mut m| {
            if m.get("type").and_then(Value::as_str) != Some("terminal") {
                return m;
            }
            let mut args = cfg.args.clone();
            if let Some(more) = m.get("args").and_then(Value::as_array) {
                args.extend(more.iter().filter_map(Value::as_str).map(str::to_owned));
            }
            let env = m
                .get("env")
                .filter(|e| e.is_object())
                .cloned()
                .unwrap_or_else(|| json!({}));
            m["terminal"] = json!({"command": cfg.command, "args": args, "env": env});
            m
        })
        .collect();
    Value::Array(list)
}
