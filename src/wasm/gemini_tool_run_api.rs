//! The Gemini tool's runner binding: the internal `__GeminiToolRun` that the
//! Node runner (`js/gemini-tool.cjs`) drives. Compiled with the
//! `gemini-tool` feature into its own module
//! (pkg/node/agent_context_node_bg.wasm), which Node loads on the
//! first `runGeminiTool` call, so the main module (and every browser) does
//! without this code.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::js_platform::{current_platform, env_pairs};
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::gemini_tool::{AttemptEnd, CdProblem, GeminiToolRun};

/// What the runner spawns and how it times it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PlanJs<'a> {
    command: &'a str,
    args: &'a [String],
    stdin: &'a str,
    cd: &'a str,
    idle_timeout_ms: u64,
    max_duration_ms: u64,
    max_attempts: u32,
}

/// One call of the tool, driven by the Node runner (internal: not part of
/// the API). See `crate::gemini_tool::GeminiToolRun`.
#[wasm_bindgen(js_name = __GeminiToolRun, skip_typescript)]
pub struct GeminiToolRunJs {
    inner: GeminiToolRun,
}

fn ms(value: f64) -> u64 {
    // `as` saturates, and NaN becomes 0.
    value.max(0.0) as u64
}

#[wasm_bindgen(js_class = __GeminiToolRun)]
impl GeminiToolRunJs {
    /// Reads the parameters; bad ones make a call that is already over.
    #[wasm_bindgen(constructor)]
    pub fn new(params: JsValue, command: String) -> GeminiToolRunJs {
        let inner = match to_json(&params, "params") {
            Ok(value) => GeminiToolRun::new(&value, &command),
            Err(e) => GeminiToolRun::unreadable(e.message(), &command),
        };
        GeminiToolRunJs { inner }
    }

    /// `{ command, args, stdin, cd, idleTimeoutMs, maxDurationMs, maxAttempts }`, or
    /// `undefined` when the call is over.
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        match self.inner.plan() {
            None => Ok(JsValue::UNDEFINED),
            Some(p) => js_result(from_serializable(&PlanJs {
                command: p.command,
                args: p.args,
                stdin: p.stdin,
                cd: p.cd,
                idle_timeout_ms: p.idle_timeout_ms,
                max_duration_ms: p.max_duration_ms,
                max_attempts: p.max_attempts,
            })),
        }
    }

    /// The command was not found by name: `searched` (the message listing
    /// every place looked at) goes into a `command_not_found` error.
    #[wasm_bindgen(js_name = notFound)]
    pub fn not_found(&mut self, searched: String) {
        self.inner.not_found(&searched);
    }

    /// The command was resolved: spawn `file` with `args` first, in `env`
    /// (the child's whole environment); the command line is planned again
    /// for this platform and counted whole.
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

    /// `'missing'`, `'not_a_directory'`, or the file system's error code.
    #[wasm_bindgen(js_name = rejectCd)]
    pub fn reject_cd(&mut self, problem: String) {
        let problem = match problem.as_str() {
            "missing" => CdProblem::Missing,
            "not_a_directory" => CdProblem::NotADirectory,
            _ => CdProblem::Other(problem),
        };
        self.inner.reject_cd(&problem);
    }

    #[wasm_bindgen(js_name = startAttempt)]
    pub fn start_attempt(&mut self) {
        self.inner.start_attempt();
    }

    #[wasm_bindgen(js_name = pushStdout)]
    pub fn push_stdout(&mut self, chunk: &[u8]) {
        self.inner.push_stdout(chunk);
    }

    #[wasm_bindgen(js_name = pushStderr)]
    pub fn push_stderr(&mut self, chunk: &[u8]) {
        self.inner.push_stderr(chunk);
    }

    /// Whether Gemini CLI retried more than `max_retries` times in this
    /// attempt: stop the process with `'own_retries'`.
    #[wasm_bindgen(js_name = overOwnRetries)]
    pub fn over_own_retries(&self) -> bool {
        self.inner.over_own_retries()
    }

    /// How the attempt's process ended (`stopped`: `'idle_timeout'`,
    /// `'timeout'`, `'aborted'` or `undefined`); returns the milliseconds to
    /// wait before the next attempt, or `undefined`.
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
            .map(|wait| wait as f64))
    }

    pub fn abort(&mut self) {
        self.inner.abort();
    }

    pub fn envelope(&self, duration_ms: f64) -> Result<JsValue, JsValue> {
        let envelope = js_result(self.inner.envelope(ms(duration_ms)))?;
        js_result(from_serializable(&envelope))
    }

    /// The `log_metrics` line, or `undefined` when it was not asked for.
    #[wasm_bindgen(js_name = metricsLine)]
    pub fn metrics_line(&self, duration_ms: f64) -> Result<Option<String>, JsValue> {
        if !self.inner.logs_metrics() {
            return Ok(None);
        }
        js_result(self.inner.metrics_line(ms(duration_ms))).map(Some)
    }
}
