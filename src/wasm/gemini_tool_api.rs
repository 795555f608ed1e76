//! The Gemini tool (seed 003): `composeGeminiToolPrompt`,
//! `formatEngineeringContext`, `geminiToolDefinition`, and the internal
//! `__GeminiToolRun` that the Node runner (`js/gemini-tool.cjs`) drives.

use serde::Serialize;
use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::gemini_tool::{
    compose_tool_prompt, format_engineering_context, read_context, tool_definition, AttemptEnd,
    CdProblem, GeminiToolRun, ToolPromptInput,
};

/// Seed 003's prompt template filled in: the task type (`'consult'`,
/// `'review'`, `'execute'`, or 咨询 / 审核 / 执行), the background, the
/// numbered tasks, the expected output and the engineering context (a
/// string, or the `{ path, content }[]` that `readEngineeringContext`
/// returns). Empty parts are left out.
///
/// ```js
/// const PROMPT = composeGeminiToolPrompt({
///   taskType: 'review', background: 'A Rust library compiled to WebAssembly.',
///   tasks: ['Review src/budget.rs for off-by-one errors'], expectedOutput: ['A list of findings'],
///   engineeringContext: readEngineeringContext(cd),
/// });
/// ```
#[wasm_bindgen(js_name = composeGeminiToolPrompt, skip_typescript)] // declared in types.d.ts
pub fn compose_gemini_tool_prompt(input: JsValue) -> Result<String, JsValue> {
    let value = js_result(to_json(&input, "input"))?;
    let input = js_result(ToolPromptInput::read(&value))?;
    Ok(compose_tool_prompt(&input))
}

/// The template's engineering-context paragraph alone, to put before a
/// prompt written by hand; `''` when there is nothing in it.
///
/// ```js
/// const block = formatEngineeringContext(readEngineeringContext(cd));
/// const PROMPT = block ? `${block}\n\n${question}` : question;
/// ```
#[wasm_bindgen(js_name = formatEngineeringContext, skip_typescript)] // declared in types.d.ts
pub fn format_engineering_context_js(context: JsValue) -> Result<String, JsValue> {
    if context.is_undefined() || context.is_null() {
        return Ok(String::new());
    }
    let value = js_result(to_json(&context, "engineeringContext"))?;
    let context = js_result(read_context(Some(&value), "engineeringContext"))?;
    Ok(context.map_or_else(String::new, |c| format_engineering_context(&c)))
}

/// The tool as an agent sees it: `{ name: 'gemini', description,
/// inputSchema }` with the JSON Schema of seed 003's parameters (what the
/// MCP server lists).
///
/// ```js
/// const { inputSchema } = geminiToolDefinition();
/// Object.keys(inputSchema.properties); // ['PROMPT', 'cd', 'sandbox', …]
/// ```
#[wasm_bindgen(js_name = geminiToolDefinition, skip_typescript)] // declared in types.d.ts
pub fn gemini_tool_definition() -> Result<JsValue, JsValue> {
    js_result(from_serializable(&tool_definition()))
}

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
