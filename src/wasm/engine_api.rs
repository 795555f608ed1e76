//! The session engine's binding: the internal `__Engine` that the Node
//! executor (`js/engine-host.cjs`) drives, in the Node-only second module.
//! Inputs are the engine's; `pollAll()` returns every queued action as
//! plain objects (`{ kind, … }`). No decision is made here.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::js_platform::{current_platform, env_pairs};
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::agent_output::parse_agent_output;
use crate::agents::definition::agent_label;
use crate::engine::{Action, Engine, HostRequest, Outcome, SessionConfig, TurnLimits, TurnResult};
use crate::error::AgentContextError;
use crate::run::{AgentErrorKind, Failure};

/// One agent process and its session (internal). See `crate::engine::Engine`.
#[wasm_bindgen(js_name = __Engine, skip_typescript)]
pub struct EngineJs {
    inner: Engine,
    /// The last turn that ended (for the tools' envelopes).
    last_turn: Option<TurnResult>,
}

impl EngineJs {
    /// The last turn that ended, `duration_ms` long.
    pub(crate) fn last_turn(&self, duration_ms: u64) -> Option<TurnResult> {
        self.last_turn.clone().map(|mut t| {
            t.duration_ms = duration_ms;
            t
        })
    }
}

fn pairs(list: &[(String, String)]) -> Value {
    Value::Object(
        list.iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

fn failure_json(f: &Failure) -> Value {
    json!({"kind": f.kind.as_str(), "message": f.message, "retryable": f.kind.is_retryable()})
}

pub(super) fn action_json(action: Action) -> Value {
    match action {
        Action::Spawn {
            command,
            args,
            env,
            default_env,
            cwd,
            files,
            outputs,
            retry_log,
        } => json!({"kind": "spawn", "command": command, "args": args, "env": pairs(&env),
            "defaultEnv": pairs(&default_env), "cwd": cwd, "files": files, "outputs": outputs,
            "retryLog": retry_log}),
        Action::Write(line) => json!({"kind": "write", "data": line}),
        Action::CloseStdin => json!({"kind": "closeStdin"}),
        Action::Kill => json!({"kind": "kill"}),
        Action::Host { call, request } => match request {
            HostRequest::Permission(params) => {
                json!({"kind": "host", "call": call, "ask": "permission", "params": params})
            }
            HostRequest::Read { path } => {
                json!({"kind": "host", "call": call, "ask": "read", "path": path})
            }
            HostRequest::Write { path, content } => {
                json!({"kind": "host", "call": call, "ask": "write", "path": path, "content": content})
            }
        },
        Action::Event { op, event } => json!({"kind": "event", "op": op, "event": event}),
        Action::Update(update) => json!({"kind": "update", "update": update}),
        Action::SessionUpdate { session, update } => {
            json!({"kind": "update", "update": update, "session": session})
        }
        Action::Done { op, outcome } => match outcome {
            Outcome::Turn(result) => json!({"kind": "done", "op": op, "turn": *result}),
            Outcome::Opened(snapshot) => json!({"kind": "done", "op": op, "opened": *snapshot}),
            Outcome::Ok(value) => json!({"kind": "done", "op": op, "ok": value}),
            Outcome::Failed(f) => json!({"kind": "done", "op": op, "failed": failure_json(&f)}),
        },
        Action::Warn(message) => json!({"kind": "warn", "message": message}),
        Action::Closed => json!({"kind": "closed"}),
    }
}

/// The session an operation is for: the engine's only one when not given.
fn key(session: Option<f64>) -> u64 {
    session.map_or(crate::engine::DEFAULT, |k| k as u64)
}

pub(super) fn now_ms(now: f64) -> u64 {
    if now.is_finite() && now > 0.0 {
        now as u64
    } else {
        0
    }
}

#[wasm_bindgen(js_class = __Engine)]
impl EngineJs {
    /// `agent`: an agent type, an `AgentDefinition` or an ACP registry
    /// entry; `options`: the session's options without the functions and
    /// `env`; `command`: `options.command` or ''; `process`: an engine of
    /// the process alone, its sessions added with `addSession`;
    /// `hears_updates: false`: no `update` action for the default session
    /// (the host has no `onUpdate`). Bad options
    /// throw `AgentContextError` (`INVALID_INPUT`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        agent: JsValue,
        options: JsValue,
        command: String,
        asks_host: bool,
        process: Option<bool>,
        hears_updates: Option<bool>,
    ) -> Result<EngineJs, JsValue> {
        let agent = js_result(to_json(&agent, "agentType"))?;
        let options = js_result(to_json(&options, "options"))?;
        let cfg = js_result(SessionConfig::read_agent(&agent, &options, &command))?;
        let mut inner = if process == Some(true) {
            Engine::process(cfg, asks_host)
        } else {
            Engine::new(cfg, asks_host)
        };
        inner.hear_updates(hears_updates != Some(false));
        Ok(EngineJs {
            inner,
            last_turn: None,
        })
    }

    /// A session on the process (`{ cd?, sessionId?, systemPrompt?,
    /// mcpServers? }`): its key, for `openSession` and the operations'
    /// `session` argument. Bad options throw `INVALID_INPUT`.
    #[wasm_bindgen(js_name = addSession)]
    pub fn add_session(&mut self, options: JsValue) -> Result<f64, JsValue> {
        let options = if options.is_null() || options.is_undefined() {
            Value::Null
        } else {
            js_result(to_json(&options, "sessionOptions"))?
        };
        Ok(js_result(self.inner.add_session(&options))? as f64)
    }

    #[wasm_bindgen(js_name = openSession)]
    pub fn open_session(&mut self, key: f64, now: f64) -> f64 {
        self.inner.open_session(key as u64, now_ms(now)) as f64
    }

    #[wasm_bindgen(js_name = closeSession)]
    pub fn close_session(&mut self, key: f64, now: f64) -> f64 {
        self.inner.close_session(key as u64, now_ms(now)) as f64
    }

    /// `session/list` with `params` (`{ cwd?, cursor? }`).
    #[wasm_bindgen(js_name = listSessions)]
    pub fn list_sessions(&mut self, params: JsValue, now: f64) -> Result<f64, JsValue> {
        let params = js_result(to_json(&params, "params"))?;
        Ok(self.inner.list_sessions(params, now_ms(now)) as f64)
    }

    /// What `initialize` said: `{ capabilities, authMethods, agentInfo, … }`.
    #[wasm_bindgen(js_name = processInfo)]
    pub fn process_info(&self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(self.inner.process_info()))
    }

    /// Session `key`'s state, undefined once it is gone.
    #[wasm_bindgen(js_name = snapshotOf)]
    pub fn snapshot_of(&mut self, key: f64) -> Result<JsValue, JsValue> {
        match self.inner.snapshot_of(key as u64) {
            Some(s) => js_result(from_serializable(s)),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// The AgentRun of a call that did not run: `invalid_params` with `message`.
    #[wasm_bindgen(js_name = invalidRun)]
    pub fn invalid_run(
        agent: JsValue,
        message: String,
        duration_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let agent_type = to_json(&agent, "agentType")
            .map(|v| agent_label(&v))
            .unwrap_or_default();
        let failure = Failure::new(
            AgentErrorKind::InvalidParams,
            format!("invalid parameters: {message}"),
        );
        let mut result = TurnResult::new(
            &agent_type,
            Err(failure),
            parse_agent_output(&agent_type, b""),
            None,
            None,
            Vec::new(),
            None,
            0,
        );
        result.duration_ms = now_ms(duration_ms);
        js_result(from_serializable(&result))
    }

    /// The command to resolve, the folder, and the defaults of a turn.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        let cfg = self.inner.config();
        js_result(from_serializable(&json!({
            "command": cfg.command,
            "cd": cfg.options.cd,
            "idleTimeoutMs": cfg.options.idle_timeout_ms,
            "maxDurationMs": cfg.options.max_duration_ms,
            "maxRetries": cfg.options.max_retries,
            "sessionId": cfg.options.session_id,
            "agentName": cfg.name,
            "agentType": cfg.id,
            "warnings": cfg.warnings,
            // Written into the run's folder before the agent starts.
            "files": cfg.files(),
            // The run's home, made there before the agent starts.
            "home": cfg.options.home,
        })))
    }

    /// The command was resolved; a line over the system's limits fails
    /// every operation with `invalid_params`.
    pub fn launch(
        &mut self,
        found: String,
        file: String,
        args: Vec<String>,
        env: JsValue,
        now: f64,
    ) -> Result<(), JsValue> {
        let env = js_result(env_pairs(&env))?;
        let platform = current_platform();
        let mut cfg = self.inner.config().clone();
        match cfg.launch(platform, &found, &file, &args, &env) {
            Ok(()) => self.inner.set_launch(cfg),
            Err(e) => self.inner.reject(e.message(), now_ms(now)),
        }
        Ok(())
    }

    #[wasm_bindgen(js_name = cannotLaunch)]
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: String, now: f64) {
        self.inner
            .cannot_launch(spawn_failed, &message, now_ms(now));
    }

    pub fn reject(&mut self, message: String, now: f64) {
        self.inner.reject(&message, now_ms(now));
    }

    pub fn open(&mut self, now: f64) -> f64 {
        self.inner.open(now_ms(now)) as f64
    }

    /// `blocks`: the prompt's content blocks; `limits`: `{ idleMs, maxMs,
    /// maxRetries, events }`; `attachments`: the turn's, as the host read
    /// them (undefined: none).
    pub fn prompt(
        &mut self,
        blocks: JsValue,
        limits: JsValue,
        now: f64,
        session: Option<f64>,
        attachments: JsValue,
    ) -> Result<f64, JsValue> {
        let blocks = js_result(to_json(&blocks, "prompt"))?;
        let attachments = if attachments.is_undefined() {
            Value::Null
        } else {
            js_result(to_json(&attachments, "attachments"))?
        };
        let limits = js_result(to_json(&limits, "limits"))?;
        let get = |k: &str| limits.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        let limits = TurnLimits {
            idle_ms: get("idleMs") as u64,
            max_ms: get("maxMs") as u64,
            max_retries: get("maxRetries") as u32,
            events: limits
                .get("events")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        };
        Ok(self.inner.prompt_with_attachments(
            key(session),
            blocks,
            &attachments,
            limits,
            now_ms(now),
        ) as f64)
    }

    pub fn cancel(&mut self, now: f64, session: Option<f64>) {
        self.inner.cancel_in(key(session), now_ms(now));
    }

    pub fn abort(&mut self, op: f64, now: f64) {
        self.inner.abort(op as u64, now_ms(now));
    }

    #[wasm_bindgen(js_name = setMode)]
    pub fn set_mode(&mut self, id: String, now: f64, session: Option<f64>) -> f64 {
        self.inner.set_mode_in(key(session), &id, now_ms(now)) as f64
    }

    #[wasm_bindgen(js_name = setConfigOption)]
    pub fn set_config_option(
        &mut self,
        id: String,
        value: JsValue,
        now: f64,
        session: Option<f64>,
    ) -> Result<f64, JsValue> {
        let value = js_result(to_json(&value, "value"))?;
        if !(value.is_string() || value.is_boolean()) {
            return Err(super::js_error::to_js(AgentContextError::invalid(
                "setConfigOption's value must be a string or a boolean",
            )));
        }
        Ok(self
            .inner
            .set_config_option_in(key(session), &id, value, now_ms(now)) as f64)
    }

    #[wasm_bindgen(js_name = setModel)]
    pub fn set_model(&mut self, id: String, now: f64, session: Option<f64>) -> f64 {
        self.inner.set_model_in(key(session), &id, now_ms(now)) as f64
    }

    pub fn authenticate(&mut self, method: String, now: f64) -> f64 {
        self.inner.authenticate(&method, now_ms(now)) as f64
    }

    pub fn close(&mut self, now: f64) -> f64 {
        self.inner.close(now_ms(now)) as f64
    }

    pub fn spawned(&mut self, now: f64) {
        self.inner.spawned(now_ms(now));
    }

    #[wasm_bindgen(js_name = spawnFailed)]
    pub fn spawn_failed(&mut self, code: String, now: f64) {
        self.inner.spawn_failed(&code, now_ms(now));
    }

    pub fn stdout(&mut self, chunk: &[u8], now: f64) {
        self.inner.stdout(chunk, now_ms(now));
    }

    pub fn stderr(&mut self, chunk: &[u8], now: f64) {
        self.inner.stderr(chunk, now_ms(now));
    }

    /// What was read of the spawn action's `retryLog` file since the last
    /// call.
    #[wasm_bindgen(js_name = retryLog)]
    pub fn retry_log(&mut self, chunk: &[u8], now: f64) {
        self.inner.retry_log(chunk, now_ms(now));
    }

    pub fn exited(&mut self, code: Option<i32>, signal: Option<String>, now: f64) {
        self.inner.exited(code, signal.as_deref(), now_ms(now));
    }

    /// The host's answer to a `host` action; a bad permission answer
    /// throws after the agent was answered as the policy would.
    #[wasm_bindgen(js_name = hostAnswer)]
    pub fn host_answer(&mut self, call: f64, answer: JsValue, now: f64) -> Result<(), JsValue> {
        let answer = if answer.is_null() || answer.is_undefined() {
            Value::Null
        } else {
            js_result(to_json(&answer, "answer"))?
        };
        js_result(self.inner.host_answer(call as u64, &answer, now_ms(now)))
    }

    #[wasm_bindgen(js_name = pathAllowed)]
    pub fn path_allowed(&self, path: String, write: bool, call: Option<f64>) -> bool {
        self.inner
            .path_allowed(call.map(|c| c as u64), &path, write)
    }

    pub fn timeout(&mut self, now: f64) {
        self.inner.timeout(now_ms(now));
    }

    /// Every queued action, in order (an empty array when none).
    #[wasm_bindgen(js_name = pollAll)]
    pub fn poll_all(&mut self) -> Result<JsValue, JsValue> {
        let mut list = Vec::new();
        while let Some(action) = self.inner.poll() {
            if let Action::Done {
                outcome: Outcome::Turn(turn),
                ..
            } = &action
            {
                self.last_turn = Some((**turn).clone());
            }
            list.push(action_json(action));
        }
        if list.is_empty() {
            return Ok(js_sys::Array::new().into());
        }
        js_result(from_serializable(&list))
    }

    /// When to call `timeout` next (the host's clock), or undefined.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.inner.poll_timeout().map(|t| t as f64)
    }

    pub fn snapshot(&mut self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(self.inner.snapshot()))
    }
}

/// The largest image an attachment may hold, in bytes: the host reads no
/// file bigger than this.
#[wasm_bindgen(js_name = __attachmentMaxBytes, skip_typescript)]
pub fn attachment_max_bytes() -> f64 {
    crate::attachments::MAX_IMAGE_BYTES as f64
}
