//! The Gemini tool (seed 003, SPEC §7): Gemini CLI run as a tool for another
//! agent. This is every decision of it — parameters and defaults, the
//! command line, reading the output, the error's wording (its kind and the
//! retry schedule are the runner's, [`crate::run`]: one taxonomy with
//! `runAgent`), the envelope, the duration text, the prompt template, the
//! tool's schema; the Node runner (`js/gemini-tool.cjs`) only spawns the
//! process, feeds its output here, and times and kills it.
//!
//! One call is a [`GeminiToolRun`]: `plan()` → for each attempt
//! `start_attempt()`, `push_stdout`/`push_stderr`, `end_attempt()` (which
//! says whether to wait and try again) → `envelope()`.

mod attempt;
mod classify;
mod definition;
mod duration;
mod envelope;
mod params;
mod prompt_template;
mod retry;
mod run;
mod search;

pub use crate::run::{OutputTail, Stream, LAST_LINES, LINE_MAX_CHARS};
pub use attempt::{Attempt, AttemptContext, AttemptReport};
pub use classify::{
    classify, http_status, AttemptEnd, ErrorKind, Evidence, Failure, StopReason, Verdict,
};
pub use definition::{input_schema, tool_definition};
pub use duration::format_duration;
pub use envelope::{
    failure_envelope, metrics_line, success_envelope, ErrorDetail, Extras, Metrics, TOOL_NAME,
};
pub use params::{
    lenient_limits, GeminiToolParams, Limits, DEFAULT_MAX_DURATION_S, DEFAULT_MAX_RETRIES,
    DEFAULT_MODEL, DEFAULT_SANDBOX, DEFAULT_TIMEOUT_S, DEFAULT_YOLO, MAX_RETRIES_LIMIT,
    MAX_SECONDS, PARAMETER_NAMES,
};
pub use prompt_template::{
    compose_tool_prompt, format_engineering_context, read_context, ContextFile, EngineeringContext,
    TaskType, ToolPromptInput, GEMINI_TOOL_PROMPT_TEMPLATE,
};
pub use retry::{backoff_ms, retry_delay, BACKOFF_MS, MIN_ATTEMPT_MS};
pub use run::{CdProblem, GeminiToolRun, Plan};
