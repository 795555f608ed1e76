//! The binding of the session engine over an agent's command line: the
//! internal `__CliEngine` that the Node executor (`js/engine-host.cjs`)
//! drives exactly as `__Engine` (the same methods, the same actions from
//! `pollAll()`), in the Node-only second module. `persistent` says whether
//! one process holds every turn. No decision is made here.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::engine_api::{action_json, now_ms};
use super::js_platform::{current_platform, env_pairs};
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use super::run_result_api::RunResultJs;
use crate::engine::cli::{CliEngine, CliSessionConfig};
use crate::engine::{Action, Outcome, TurnLimits, TurnResult};
use crate::output::AssemblerOutput;

/// One session over an agent's CLI (internal). See `crate::engine::cli::CliEngine`.
#[wasm_bindgen(js_name = __CliEngine, skip_typescript)]
pub struct CliEngineJs {
    inner: CliEngine,
    /// The last turn that ended (a run's result).
    last_turn: Option<TurnResult>,
    /// A run's engine: its turn is taken with `result()`, not sent in its
    /// `done` action (a long reply is not copied and parsed twice).
    run: bool,
}

#[wasm_bindgen(js_class = __CliEngine)]
impl CliEngineJs {
    /// `options`: the session's options without the functions and `env`;
    /// `command`: `options.command` or ''. `asks_host` is ignored (a CLI
    /// asks no permission of the client). Bad options throw
    /// `AgentContextError` (`INVALID_INPUT`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        agent: JsValue,
        options: JsValue,
        command: String,
        _asks_host: bool,
    ) -> Result<CliEngineJs, JsValue> {
        let agent = js_result(to_json(&agent, "agentType"))?;
        let options = js_result(to_json(&options, "options"))?;
        let cfg = js_result(CliSessionConfig::read_agent(&agent, &options, &command))?;
        Ok(CliEngineJs {
            inner: CliEngine::new(cfg),
            last_turn: None,
            run: false,
        })
    }

    /// The engine of one run (`runAgent` over the CLI, the Gemini tool):
    /// `request` is `{ prompt, systemFlag? }`, `options` `RunAgentOptions`
    /// without the functions and `env`; `keepEvents`: each attempt keeps
    /// its events for the result. Bad input throws `AgentContextError`
    /// (`INVALID_INPUT`) naming the field.
    #[wasm_bindgen(js_name = forRun)]
    pub fn for_run(
        agent: JsValue,
        request: JsValue,
        options: JsValue,
        command: String,
        keep_events: bool,
    ) -> Result<CliEngineJs, JsValue> {
        let agent = js_result(to_json(&agent, "agentType"))?;
        let request = js_result(to_json(&request, "request"))?;
        let options = js_result(to_json(&options, "options"))?;
        let output = js_result(run_request(&request))?;
        let mut cfg = js_result(CliSessionConfig::read_run(
            &agent, &output, &options, &command,
        ))?;
        cfg.keep_events = keep_events;
        Ok(CliEngineJs {
            inner: CliEngine::new(cfg),
            last_turn: None,
            run: true,
        })
    }

    /// The last turn that ended, as a run's result (taken).
    pub fn result(&mut self) -> Option<RunResultJs> {
        self.last_turn.take().map(RunResultJs::new)
    }

    /// What the exited process wrote to its output file at `path` (one of
    /// its spawn's `outputs`), before `exited`.
    pub fn output(&mut self, path: String, content: String) -> bool {
        self.inner.output(&path, content)
    }

    /// The command to resolve, the folder, and the defaults of a turn.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        let cfg = self.inner.config();
        js_result(from_serializable(&json!({
            "command": cfg.options.command,
            "cd": cfg.options.cd,
            "idleTimeoutMs": cfg.options.idle_timeout_ms,
            "maxDurationMs": cfg.options.max_duration_ms,
            "maxRetries": cfg.options.max_retries,
            "sessionId": cfg.options.session_id,
            "agentName": cfg.agent.name,
            // Written into the run's folder before the agent starts.
            "files": cfg.options.endpoint_files(),
            // The run's home, made there before the agent starts.
            "home": cfg.options.home,
            "agentType": cfg.agent.agent_type,
            "warnings": Vec::<String>::new(),
            "persistent": cfg.persistent(),
        })))
    }

    /// Whether one process holds every turn.
    #[wasm_bindgen(getter)]
    pub fn persistent(&self) -> bool {
        self.inner.persistent()
    }

    pub fn launch(
        &mut self,
        found: String,
        file: String,
        args: Vec<String>,
        env: JsValue,
        now: f64,
    ) -> Result<(), JsValue> {
        let env = js_result(env_pairs(&env))?;
        self.inner
            .launch(current_platform(), &found, &file, &args, env, now_ms(now));
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
    /// maxRetries, events }`; `_session`: one session per engine over the
    /// CLI; `attachments`: the turn's (undefined: none).
    pub fn prompt(
        &mut self,
        blocks: JsValue,
        limits: JsValue,
        now: f64,
        _session: Option<f64>,
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
        Ok(self
            .inner
            .prompt_with_attachments(blocks, &attachments, limits, now_ms(now)) as f64)
    }

    pub fn cancel(&mut self, now: f64) {
        self.inner.cancel(now_ms(now));
    }

    pub fn abort(&mut self, op: f64, now: f64) {
        self.inner.abort(op as u64, now_ms(now));
    }

    #[wasm_bindgen(js_name = setMode)]
    pub fn set_mode(&mut self, id: String, now: f64) -> f64 {
        self.inner.set_mode(&id, now_ms(now)) as f64
    }

    #[wasm_bindgen(js_name = setConfigOption)]
    pub fn set_config_option(
        &mut self,
        id: String,
        value: JsValue,
        now: f64,
    ) -> Result<f64, JsValue> {
        let value = js_result(to_json(&value, "value"))?;
        Ok(self.inner.set_config_option(&id, value, now_ms(now)) as f64)
    }

    #[wasm_bindgen(js_name = setModel)]
    pub fn set_model(&mut self, id: String, now: f64) -> f64 {
        self.inner.set_model(&id, now_ms(now)) as f64
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

    /// The spawn failed with `code`; `rejected`: the host found the input
    /// at fault meanwhile (the working folder gone), and says how.
    #[wasm_bindgen(js_name = spawnFailed)]
    pub fn spawn_failed(&mut self, code: String, now: f64, rejected: Option<String>) {
        self.inner
            .spawn_refused(&code, rejected.as_deref(), now_ms(now));
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

    /// Never asked for over the CLI (no `host` action); kept so the host
    /// drives both engines alike.
    #[wasm_bindgen(js_name = hostAnswer)]
    pub fn host_answer(&mut self, _call: f64, _answer: JsValue, _now: f64) {}

    /// No client file system over the CLI: always false.
    #[wasm_bindgen(js_name = pathAllowed)]
    pub fn path_allowed(&self, _path: String, _write: bool) -> bool {
        false
    }

    pub fn timeout(&mut self, now: f64) {
        self.inner.timeout(now_ms(now));
    }

    /// Every queued action, in order (an empty array when none).
    #[wasm_bindgen(js_name = pollAll)]
    pub fn poll_all(&mut self) -> Result<JsValue, JsValue> {
        let mut list = Vec::new();
        while let Some(action) = self.inner.poll() {
            match action {
                Action::Done {
                    op,
                    outcome: Outcome::Turn(turn),
                } if self.run => {
                    self.last_turn = Some(*turn);
                    list.push(json!({"kind": "done", "op": op}));
                }
                Action::Done {
                    op,
                    outcome: Outcome::Turn(turn),
                } => {
                    self.last_turn = Some((*turn).clone());
                    list.push(action_json(Action::Done {
                        op,
                        outcome: Outcome::Turn(turn),
                    }));
                }
                action => list.push(action_json(action)),
            }
        }
        if list.is_empty() {
            return Ok(js_sys::Array::new().into());
        }
        js_result(from_serializable(&list))
    }

    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.inner.poll_timeout().map(|t| t as f64)
    }

    pub fn snapshot(&self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(self.inner.snapshot()))
    }
}

/// A run's request, `{ prompt, systemFlag? }`, read.
fn run_request(request: &Value) -> crate::error::Result<AssemblerOutput> {
    let o = crate::json_read::Obj::new(request, "request")?;
    Ok(AssemblerOutput {
        prompt: o.req_str("prompt")?.to_owned(),
        system_flag: o.opt_str("systemFlag")?.map(str::to_owned),
    })
}
