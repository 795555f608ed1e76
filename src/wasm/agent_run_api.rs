//! The agent runner's binding: the internal `__AgentRunner` that the Node
//! runner (`js/agent-run.cjs`) drives. Compiled with the `gemini-tool`
//! feature into the Node-only second module (it also carries the Gemini
//! tool, which is a layer over the same runner in JS), so the main module and
//! every browser do without it.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::js_long_text::{js_string, js_string_utf16};
use super::js_platform::{current_platform, env_pairs};
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::gemini_tool::AttemptEnd;
use crate::invocation::{InvocationFile, InvocationOutput};
use crate::run::AgentRunner;

/// What the runner spawns and how it times it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanJs<'a> {
    command: &'a str,
    args: &'a [String],
    stdin: &'a str,
    files: &'a [InvocationFile],
    outputs: &'a [InvocationOutput],
    cd: &'a str,
    idle_timeout_ms: u64,
    max_duration_ms: u64,
    max_attempts: u32,
    /// Variables added to the child's environment.
    env: &'a [(String, String)],
    /// The run's home to make before spawning (`null`: none).
    home: Option<&'a crate::run_home::HomeRequest>,
}

/// One `runAgent` call (internal: not part of the API). See
/// `crate::run::AgentRunner`.
#[wasm_bindgen(js_name = __AgentRunner, skip_typescript)]
pub struct AgentRunnerJs {
    inner: AgentRunner,
}

fn ms(value: f64) -> u64 {
    value.max(0.0) as u64
}

impl AgentRunnerJs {
    /// The core's runner (for the MCP tools' envelope).
    pub(crate) fn runner(&self) -> &AgentRunner {
        &self.inner
    }
}

#[wasm_bindgen(js_class = __AgentRunner)]
impl AgentRunnerJs {
    /// `request`: `{ prompt, systemFlag? }`; `options`: `RunAgentOptions`
    /// without `signal`, `onEvent` and `env`. Bad ones make a run that is
    /// already over (`invalid_params`).
    #[wasm_bindgen(constructor)]
    pub fn new(
        agent_type: String,
        request: JsValue,
        options: JsValue,
        command: String,
    ) -> AgentRunnerJs {
        let read =
            to_json(&request, "request").and_then(|r| to_json(&options, "options").map(|o| (r, o)));
        let inner = match read {
            Ok((request, options)) => AgentRunner::new_on(
                Some(current_platform()),
                &agent_type,
                &request,
                &options,
                &command,
            ),
            Err(e) => {
                let mut run = AgentRunner::new(
                    &agent_type,
                    &serde_json::Value::Null,
                    &serde_json::Value::Null,
                    &command,
                );
                run.reject(e.message());
                run
            }
        };
        let mut inner = inner;
        // The reply's string is made from UTF-16 units (when no events are
        // asked for): a copy, where UTF-8 would be decoded.
        inner.set_utf16_text(true);
        AgentRunnerJs { inner }
    }

    /// `{ command, args, stdin, files, outputs, cd, idleTimeoutMs,
    /// maxDurationMs, maxAttempts, env }` (`env`: `[name, value]` pairs to add),
    /// or `undefined` when the run is over.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        match self.inner.plan() {
            None => Ok(JsValue::UNDEFINED),
            Some(p) => js_result(from_serializable(&PlanJs {
                command: p.command,
                args: p.args,
                stdin: p.stdin,
                files: p.files,
                outputs: p.outputs,
                cd: p.cd,
                idle_timeout_ms: p.idle_timeout_ms,
                max_duration_ms: p.max_duration_ms,
                max_attempts: p.max_attempts,
                env: p.env,
                home: p.home,
            })),
        }
    }

    /// The command was resolved: spawn `file` with `args` first, in `env`
    /// (the child's whole environment); the command line is planned again
    /// for this platform and counted whole. `found` is the file found.
    pub fn launch(
        &mut self,
        found: String,
        file: String,
        args: Vec<String>,
        env: JsValue,
    ) -> Result<(), JsValue> {
        let env = js_result(env_pairs(&env))?;
        self.inner
            .launch(current_platform(), &found, &file, &args, env);
        Ok(())
    }

    /// The command was not resolved: `command_not_found` with `message`
    /// (every place searched), or `spawn_failed` when `spawnFailed`.
    #[wasm_bindgen(js_name = cannotLaunch)]
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: String) {
        self.inner.cannot_launch(spawn_failed, &message);
    }

    /// Ends the run with `invalid_params` (a bad `cd`).
    pub fn reject(&mut self, message: String) {
        self.inner.reject(&message);
    }

    /// Whether the parser's events are wanted (`onEvent`); off, `pushStdout`
    /// never builds them.
    #[wasm_bindgen(js_name = setEvents)]
    pub fn set_events(&mut self, on: bool) {
        self.inner.set_events(on);
    }

    #[wasm_bindgen(js_name = startAttempt)]
    pub fn start_attempt(&mut self) {
        self.inner.start_attempt();
    }

    /// Feeds stdout; with `events`, returns the parser's events it
    /// completed (an array), else `undefined`.
    #[wasm_bindgen(js_name = pushStdout)]
    pub fn push_stdout(&mut self, chunk: &[u8], events: bool) -> Result<JsValue, JsValue> {
        let completed = self.inner.push_stdout(chunk);
        if !events || completed.is_empty() {
            return Ok(JsValue::UNDEFINED);
        }
        js_result(from_serializable(&completed))
    }

    /// The content of the plan's output file at `path`, read after the
    /// attempt's process ended; returns whether it is one of the plan's.
    #[wasm_bindgen(js_name = pushOutput)]
    pub fn push_output(&mut self, path: String, content: String) -> bool {
        self.inner.push_output(&path, content)
    }

    /// Whether a chunk of output restarts the idle timeout (an agent's
    /// retry lines do not).
    #[wasm_bindgen(js_name = isProgress)]
    pub fn is_progress(&self, chunk: &[u8]) -> bool {
        self.inner.is_progress(chunk)
    }

    #[wasm_bindgen(js_name = pushStderr)]
    pub fn push_stderr(&mut self, chunk: &[u8]) {
        self.inner.push_stderr(chunk);
    }

    /// Whether the agent retried a failed API call more than `maxRetries`
    /// times in this attempt: stop the process with `'own_retries'`.
    #[wasm_bindgen(js_name = overOwnRetries)]
    pub fn over_own_retries(&self) -> bool {
        self.inner.over_own_retries()
    }

    /// How the attempt's process ended; returns the milliseconds to wait
    /// before the next attempt, or `undefined`.
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
            .end_attempt(&end, ms(elapsed_ms))
            .map(|w| w as f64))
    }

    pub fn abort(&mut self) {
        self.inner.abort();
    }

    /// The last attempt's error kind (also while a retry follows), or `undefined`.
    #[wasm_bindgen(js_name = lastAttemptKind)]
    pub fn last_attempt_kind(&self) -> Option<String> {
        self.inner
            .last_attempt_kind()
            .map(|k| k.as_str().to_owned())
    }

    /// The `AgentRun`. The reply's text (most of a long run) crosses as one
    /// string, not inside the JSON of the rest, which would escape, decode
    /// and parse it again; `text` stays the reply's first key.
    pub fn result(&self, duration_ms: f64) -> Result<JsValue, JsValue> {
        let (mut run, units) = js_result(self.inner.result_parts(ms(duration_ms)))?;
        let text = std::mem::take(&mut run.reply.to_mut().text);
        let object = js_result(from_serializable(&run))?;
        let reply = js_sys::Reflect::get(&object, &JsValue::from_str("reply"))?;
        let text = if units.is_empty() {
            js_string(&text)
        } else {
            js_string_utf16(units)
        };
        js_sys::Reflect::set(&reply, &JsValue::from_str("text"), &text)?;
        Ok(object)
    }
}
