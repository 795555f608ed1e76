//! The session engine's binding: the internal `__Engine` that the Node
//! executor (`js/host/engine-host.cjs`) drives, for both protocols, in the
//! Node-only module. It reads the host's input, calls the engine and writes
//! its actions as plain objects (`pollAll()`); every decision is the
//! engine's. A turn's result crosses one way for every entry point
//! ([`turn_js`]): a session's turn in its `done` action, a run's kept for
//! `result()` (a `__RunResult`, which runAgent, the Gemini tool and the MCP
//! tools word their way).

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::js_platform::{current_platform, env_pairs};
use super::json_bridge::{from_serializable, to_json};
use super::run_result_api::{turn_js, RunResultJs};
use super::{js_result, ms};
use crate::engine::{Engine, HostInput, Purpose, TurnLimits, TurnResult};
use crate::prompt::output::AssemblerOutput;

/// One agent process and its sessions, or one run (internal). See
/// `crate::engine::Engine`.
#[wasm_bindgen(js_name = __Engine, skip_typescript)]
pub struct EngineJs {
    pub(super) inner: Engine,
    /// A run's engine: its turn is taken with `result()`, not sent in its
    /// `done` action (a long reply is not copied and parsed twice).
    run: bool,
    /// The last turn of a run.
    last_turn: Option<TurnResult>,
}

/// The session an operation is for: the engine's only one when not given.
fn key(session: Option<f64>) -> u64 {
    session.map_or(crate::engine::DEFAULT, |k| k as u64)
}

fn json_or_null(value: &JsValue, what: &str) -> Result<Value, JsValue> {
    if value.is_null() || value.is_undefined() {
        return Ok(Value::Null);
    }
    js_result(to_json(value, what))
}

impl EngineJs {
    fn made(engine: crate::error::Result<Engine>, run: bool) -> Result<EngineJs, JsValue> {
        Ok(EngineJs {
            inner: js_result(engine)?,
            run,
            last_turn: None,
        })
    }
}

#[wasm_bindgen(js_class = __Engine)]
impl EngineJs {
    /// An engine for a session kept open (`openAgentSession`), or with
    /// `process` for an ACP process to which sessions are added
    /// (`openAgent`): `agent` an agent type, an `AgentDefinition` or an ACP
    /// registry entry; `options` the session's without the functions and
    /// `env`; `command`: `options.command` or ''; `hearsUpdates: false`: no
    /// `update` action for it. Bad options throw `AgentContextError`
    /// (`INVALID_INPUT`).
    pub fn session(
        agent: JsValue,
        options: JsValue,
        command: String,
        asks_host: bool,
        hears_updates: bool,
        process: bool,
    ) -> Result<EngineJs, JsValue> {
        let (agent, options) = (to_json(&agent, "agentType"), to_json(&options, "options"));
        let (agent, options) = (js_result(agent)?, js_result(options)?);
        let purpose = if process { Purpose::Process } else { Purpose::Session };
        let mut made = EngineJs::made(Engine::make(&agent, &options, &command, purpose, asks_host), false)?;
        made.inner.hear_updates(hears_updates);
        Ok(made)
    }

    /// An engine for one run (`runAgent`, the Gemini tool): `request` is
    /// `{ prompt, systemFlag? }`, `options` `RunAgentOptions` without the
    /// functions and `env`; over the protocol `options.protocol` names,
    /// else the agent's default. `keepEvents`: each attempt keeps its events
    /// for the result. Bad input throws `AgentContextError`
    /// (`INVALID_INPUT`) naming the field.
    pub fn run(
        agent: JsValue,
        request: JsValue,
        options: JsValue,
        command: String,
        asks_host: bool,
        keep_events: bool,
    ) -> Result<EngineJs, JsValue> {
        let agent = js_result(to_json(&agent, "agentType"))?;
        let request = js_result(to_json(&request, "request"))?;
        let options = js_result(to_json(&options, "options"))?;
        let request = js_result(AssemblerOutput::read(&request, "request"))?;
        let purpose = Purpose::Run {
            request: &request,
            keep_events,
        };
        let engine = Engine::make(&agent, &options, &command, purpose, asks_host);
        EngineJs::made(engine, true)
    }

    /// The protocol a run of `agent` with `options` goes over: `'acp'` or `'cli'`.
    #[wasm_bindgen(js_name = runProtocol)]
    pub fn run_protocol(agent: JsValue, options: JsValue) -> String {
        let agent = to_json(&agent, "agentType").unwrap_or_default();
        let options = to_json(&options, "options").unwrap_or_default();
        crate::engine::run_protocol(&agent, &options).to_owned()
    }

    /// The run's result (taken), once its turn ended.
    pub fn result(&mut self) -> Option<RunResultJs> {
        self.last_turn.take().map(RunResultJs::new)
    }

    /// What the host prepares before the agent starts: `{ protocol,
    /// command, cd, idleTimeoutMs, maxDurationMs, maxRetries, sessionId,
    /// agentName, agentType, warnings, files, home, persistent }`.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(&self.inner.plan()))
    }

    #[wasm_bindgen(getter)]
    pub fn persistent(&self) -> bool {
        self.inner.persistent()
    }

    /// A session on the process (`{ cd?, sessionId?, systemPrompt?,
    /// mcpServers? }`): its key, for `openSession` and the operations'
    /// `session` argument. Bad options throw `INVALID_INPUT`.
    #[wasm_bindgen(js_name = addSession)]
    pub fn add_session(&mut self, options: JsValue) -> Result<f64, JsValue> {
        let options = json_or_null(&options, "sessionOptions")?;
        Ok(js_result(self.inner.add_session(&options))? as f64)
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

    pub fn snapshot(&mut self) -> Result<JsValue, JsValue> {
        js_result(from_serializable(self.inner.snapshot()))
    }

    /// The command was resolved; a command line over the system's limits
    /// fails every operation with `invalid_params`.
    pub fn launch(
        &mut self,
        found: String,
        file: String,
        args: Vec<String>,
        env: JsValue,
        now: f64,
    ) -> Result<(), JsValue> {
        let resolved = crate::engine::Resolved {
            platform: current_platform(),
            found,
            file,
            prefix: args,
            env: js_result(env_pairs(&env))?,
        };
        self.inner.launch(resolved, ms(now));
        Ok(())
    }

    /// Whatever else the host tells the engine (`{ type, … }`, see
    /// `crate::engine::HostInput`): the caller's operations, which answer
    /// with their op id, and the process's life. Bad input throws
    /// `AgentContextError` (`INVALID_INPUT`).
    pub fn input(&mut self, input: JsValue, now: f64) -> Result<Option<f64>, JsValue> {
        let input = js_result(to_json(&input, "input").and_then(HostInput::read))?;
        let op = js_result(self.inner.input(input, ms(now)))?;
        Ok(op.map(|op| op as f64))
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
        let attachments = json_or_null(&attachments, "attachments")?;
        let limits = js_result(to_json(&limits, "limits"))?;
        let trace = js_result(crate::acp::client::turn_traceparent(&limits))?;
        let limits = TurnLimits::read(&limits);
        Ok(self.inner.prompt_with_attachments(
            key(session),
            blocks,
            &attachments,
            limits,
            trace,
            ms(now),
        ) as f64)
    }

    pub fn stdout(&mut self, chunk: &[u8], now: f64) {
        self.inner.stdout(chunk, ms(now));
    }

    pub fn stderr(&mut self, chunk: &[u8], now: f64) {
        self.inner.stderr(chunk, ms(now));
    }

    /// What was read of the spawn action's `retryLog` file since the last call.
    #[wasm_bindgen(js_name = retryLog)]
    pub fn retry_log(&mut self, chunk: &[u8], now: f64) {
        self.inner.retry_log(chunk, ms(now));
    }

    /// What the exited process wrote to its output file at `path` (one of
    /// its spawn's `outputs`), before `exited`.
    pub fn output(&mut self, path: String, content: String) -> bool {
        self.inner.output(&path, content)
    }

    /// The host's answer to a `host` action; a bad permission answer
    /// throws after the agent was answered as the policy would.
    #[wasm_bindgen(js_name = hostAnswer)]
    pub fn host_answer(&mut self, call: f64, answer: JsValue, now: f64) -> Result<(), JsValue> {
        let answer = json_or_null(&answer, "answer")?;
        js_result(self.inner.host_answer(call as u64, &answer, ms(now)))
    }

    #[wasm_bindgen(js_name = pathAllowed)]
    pub fn path_allowed(&self, path: String, write: bool, call: Option<f64>) -> bool {
        self.inner
            .path_allowed(call.map(|c| c as u64), &path, write)
    }

    pub fn timeout(&mut self, now: f64) {
        self.inner.timeout(ms(now));
    }

    /// Every queued action, in order (an empty array when none). A turn's
    /// `done` carries its result (`turn`), but a run's, which `result()`
    /// takes.
    #[wasm_bindgen(js_name = pollAll)]
    pub fn poll_all(&mut self) -> Result<JsValue, JsValue> {
        let polled = self.inner.poll_all(self.run);
        if polled.last.is_some() {
            self.last_turn = polled.last;
        }
        let list = polled.actions;
        if list.is_empty() {
            return Ok(js_sys::Array::new().into());
        }
        // One crossing for the whole batch (a turn's chunks are many).
        let array = js_result(from_serializable(&list))?;
        for (at, mut turn) in polled.turns {
            let object = js_sys::Reflect::get_u32(&array, at as u32)?;
            js_sys::Reflect::set(&object, &"turn".into(), &turn_js(&mut turn, false)?)?;
        }
        Ok(array)
    }

    /// When to call `timeout` next (the host's clock), or undefined.
    #[wasm_bindgen(js_name = pollTimeout)]
    pub fn poll_timeout(&self) -> Option<f64> {
        self.inner.poll_timeout().map(|t| t as f64)
    }
}

/// The largest image an attachment may hold, in bytes: the host reads no
/// file bigger than this.
#[wasm_bindgen(js_name = __attachmentMaxBytes, skip_typescript)]
pub fn attachment_max_bytes() -> f64 {
    crate::launch::attachments::MAX_IMAGE_BYTES as f64
}
