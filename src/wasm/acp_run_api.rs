//! The ACP runner's binding: the internal `__AcpRunner` that the Node ACP
//! runner (`js/acp-run.cjs`) drives, in the Node-only second module beside
//! `__AgentRunner`. JSON in, JSON out; every decision is
//! `crate::acp::AcpRunner`'s.

use serde::Serialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::js_platform::{current_platform, env_pairs};
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::acp::{AcpRunner, Stage};
use crate::error::AgentContextError;
use crate::gemini_tool::AttemptEnd;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanJs<'a> {
    command: &'a str,
    args: &'a [String],
    env: std::collections::BTreeMap<&'a str, &'a str>,
    default_env: std::collections::BTreeMap<&'a str, &'a str>,
    cd: &'a str,
    idle_timeout_ms: u64,
    max_duration_ms: u64,
    max_attempts: u32,
    cancel_grace_ms: u64,
    exits_on_eof: bool,
}

/// One ACP run (internal). See `crate::acp::AcpRunner`.
#[wasm_bindgen(js_name = __AcpRunner, skip_typescript)]
pub struct AcpRunnerJs {
    inner: AcpRunner,
}

fn json(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    js_result(to_json(value, what))
}

fn out<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    js_result(from_serializable(value))
}

impl AcpRunnerJs {
    /// The core runner (for the MCP tools' envelope).
    pub(crate) fn runner(&self) -> &AcpRunner {
        &self.inner
    }
}

#[wasm_bindgen(js_class = __AcpRunner)]
impl AcpRunnerJs {
    /// `request`: `{ prompt, systemFlag? }`; `options`: `RunAgentOptions`
    /// without the functions and `env`; `command`: `options.command` or ''.
    #[wasm_bindgen(constructor)]
    pub fn new(
        agent_type: String,
        request: JsValue,
        options: JsValue,
        command: String,
    ) -> AcpRunnerJs {
        let read =
            to_json(&request, "request").and_then(|r| to_json(&options, "options").map(|o| (r, o)));
        let inner = match read {
            Ok((request, options)) => AcpRunner::new(&agent_type, &request, &options, &command),
            Err(e) => {
                let mut run = AcpRunner::new(&agent_type, &Value::Null, &Value::Null, &command);
                run.reject(e.message());
                run
            }
        };
        AcpRunnerJs { inner }
    }

    /// What to spawn, or `undefined` once the run is over.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        match self.inner.plan() {
            None => Ok(JsValue::UNDEFINED),
            Some(p) => out(&PlanJs {
                command: p.command,
                args: p.args,
                env: p
                    .env
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect(),
                default_env: p
                    .default_env
                    .iter()
                    .map(|(k, v)| (k.as_str(), v.as_str()))
                    .collect(),
                cd: p.cd,
                idle_timeout_ms: p.idle_timeout_ms,
                max_duration_ms: p.max_duration_ms,
                max_attempts: p.max_attempts,
                cancel_grace_ms: p.cancel_grace_ms,
                exits_on_eof: p.exits_on_eof,
            }),
        }
    }

    pub fn launch(
        &mut self,
        found: String,
        file: String,
        args: Vec<String>,
        env: JsValue,
    ) -> Result<(), JsValue> {
        let env = js_result(env_pairs(&env))?;
        self.inner
            .launch(current_platform(), &found, &file, &args, &env);
        Ok(())
    }

    #[wasm_bindgen(js_name = cannotLaunch)]
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: String) {
        self.inner.cannot_launch(spawn_failed, &message);
    }

    pub fn reject(&mut self, message: String) {
        self.inner.reject(&message);
    }

    #[wasm_bindgen(js_name = startAttempt)]
    pub fn start_attempt(&mut self) {
        self.inner.start_attempt();
    }

    #[wasm_bindgen(js_name = initializeParams)]
    pub fn initialize_params(&self) -> Result<JsValue, JsValue> {
        out(&self.inner.initialize_params())
    }

    /// `{ method, params }`, or `undefined`: the session asked for cannot be
    /// opened (end the attempt).
    #[wasm_bindgen(js_name = sessionRequest)]
    pub fn session_request(&mut self, initialized: JsValue) -> Result<JsValue, JsValue> {
        let initialized = json(&initialized, "initialize result")?;
        match self.inner.session_request(&initialized) {
            None => Ok(JsValue::UNDEFINED),
            Some((method, params)) => out(&serde_json::json!({"method": method, "params": params})),
        }
    }

    #[wasm_bindgen(js_name = sessionOpened)]
    pub fn session_opened(&mut self, result: JsValue) -> Result<(), JsValue> {
        let result = json(&result, "session result")?;
        self.inner.session_opened(&result);
        Ok(())
    }

    /// `session/set_mode`'s params, or `undefined`.
    #[wasm_bindgen(js_name = modeParams)]
    pub fn mode_params(&self, opened: JsValue) -> Result<JsValue, JsValue> {
        let opened = json(&opened, "session result")?;
        match self.inner.mode_params(&opened) {
            None => Ok(JsValue::UNDEFINED),
            Some(params) => out(&params),
        }
    }

    #[wasm_bindgen(js_name = promptParams)]
    pub fn prompt_params(&mut self) -> Result<JsValue, JsValue> {
        out(&self.inner.prompt_params())
    }

    /// `session/close`'s params once the turn is over, or `undefined`.
    #[wasm_bindgen(js_name = closeParams)]
    pub fn close_params(&self) -> Result<JsValue, JsValue> {
        match self.inner.close_params() {
            None => Ok(JsValue::UNDEFINED),
            Some(params) => out(&params),
        }
    }

    #[wasm_bindgen(js_name = cancelParams)]
    pub fn cancel_params(&self) -> Result<JsValue, JsValue> {
        out(&self.inner.cancel_params())
    }

    /// The response to a permission request; `decision`: `onPermission`'s
    /// answer or `undefined` for the policy's.
    pub fn permission(
        &mut self,
        request: JsValue,
        decision: Option<String>,
    ) -> Result<JsValue, JsValue> {
        let request = json(&request, "permission request")?;
        let response = js_result(self.inner.permission(&request, decision.as_deref()))?;
        out(&response)
    }

    /// `{ path }` to read or write, or `{ error }` to answer.
    #[wasm_bindgen(js_name = fsPath)]
    pub fn fs_path(&self, params: JsValue, write: bool) -> Result<JsValue, JsValue> {
        let params = json(&params, "fs params")?;
        match self.inner.fs_path(&params, write) {
            Ok(path) => out(&serde_json::json!({ "path": path })),
            Err(error) => out(&serde_json::json!({ "error": error })),
        }
    }

    /// `{ result }` or `{ error }` for a read of a file that does not exist.
    #[wasm_bindgen(js_name = missingFile)]
    pub fn missing_file(&self, path: String) -> Result<JsValue, JsValue> {
        match self.inner.missing_file(&path) {
            Ok(result) => out(&serde_json::json!({ "result": result })),
            Err(error) => out(&serde_json::json!({ "error": error })),
        }
    }

    #[wasm_bindgen(js_name = unknownRequest)]
    pub fn unknown_request(&self, method: String) -> Result<JsValue, JsValue> {
        out(&self.inner.unknown_request(&method))
    }

    /// Feeds stdout; with `events`, returns the events completed, else `undefined`.
    #[wasm_bindgen(js_name = pushStdout)]
    pub fn push_stdout(&mut self, chunk: &[u8], events: bool) -> Result<JsValue, JsValue> {
        let completed = self.inner.push_stdout(chunk);
        if !events || completed.is_empty() {
            return Ok(JsValue::UNDEFINED);
        }
        out(&completed)
    }

    /// Whether the prompts from now on make events (`pushStdout`'s `events`
    /// then returns them); off when the run has no `onEvent`.
    #[wasm_bindgen(js_name = setEvents)]
    pub fn set_events(&mut self, on: bool) {
        self.inner.set_events(on);
    }

    #[wasm_bindgen(js_name = pushStderr)]
    pub fn push_stderr(&mut self, chunk: &[u8]) {
        self.inner.push_stderr(chunk);
    }

    #[wasm_bindgen(js_name = promptEnded)]
    pub fn prompt_ended(&mut self, response: JsValue) -> Result<(), JsValue> {
        let response = json(&response, "prompt response")?;
        self.inner.prompt_ended(&response);
        Ok(())
    }

    /// A request failed: `stage` is 'initialize', 'session' or 'prompt';
    /// `error` the JSON-RPC error `{ code, message, data }`.
    #[wasm_bindgen(js_name = requestFailed)]
    pub fn request_failed(&mut self, stage: String, error: JsValue) -> Result<(), JsValue> {
        let stage = js_result(Stage::parse(&stage).ok_or_else(|| {
            AgentContextError::invalid(format!(
                "stage must be 'initialize', 'session' or 'prompt', got \"{stage}\""
            ))
        }))?;
        let error = json(&error, "error")?;
        self.inner.request_failed(stage, &error);
        Ok(())
    }

    #[wasm_bindgen(js_name = attemptSettled)]
    pub fn attempt_settled(&self) -> bool {
        self.inner.attempt_settled()
    }

    /// How the attempt's process ended; the wait before the next one, or `undefined`.
    #[wasm_bindgen(js_name = endAttempt)]
    pub fn end_attempt(
        &mut self,
        exit_code: Option<i32>,
        signal: Option<String>,
        spawn_error: Option<String>,
        stopped: Option<String>,
        elapsed_ms: f64,
    ) -> Result<Option<f64>, JsValue> {
        let end = js_result(AttemptEnd::new(
            exit_code,
            signal,
            spawn_error,
            stopped.as_deref(),
        ))?;
        Ok(self
            .inner
            .end_attempt(&end, elapsed_ms.max(0.0) as u64)
            .map(|w| w as f64))
    }

    pub fn abort(&mut self) {
        self.inner.abort();
    }

    #[wasm_bindgen(js_name = lastAttemptKind)]
    pub fn last_attempt_kind(&self) -> Option<String> {
        self.inner
            .last_attempt_kind()
            .map(|k| k.as_str().to_owned())
    }

    /// The `AgentRun`.
    pub fn result(&self, duration_ms: f64) -> Result<JsValue, JsValue> {
        let run = js_result(self.inner.result(duration_ms.max(0.0) as u64))?;
        out(&run)
    }
}
