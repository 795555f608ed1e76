//! The Gemini tool (seed 003, SPEC §7): Gemini CLI run as a tool for another
//! agent. This is every decision of it — parameters and defaults, the
//! error's wording, the envelope, the duration text, the prompt template,
//! the tool's schema. The run itself is `runAgent`'s: a run of Gemini CLI on
//! the CLI session engine ([`crate::engine::cli`]), whose command line,
//! attempts, retries and error kinds are the same for both (one taxonomy).
//!
//! One call is a [`GeminiToolCall`]: its parameters read, `run_request()`
//! (the run's request and options; the Node side runs it on the engine,
//! `js/api/gemini-tool.cjs` over `js/api/run.cjs`), then `envelope()` of the
//! run's result.

mod call;
mod classify;
mod definition;
mod duration;
mod envelope;
mod params;
mod prompt_template;
mod search;

pub use crate::attempt::{backoff_ms, BACKOFF_MS, MIN_ATTEMPT_MS};
pub use crate::attempt::{OutputTail, Stream, LAST_LINES, LINE_MAX_CHARS};
pub use call::{GeminiToolCall, GEMINI_AGENT};
pub use classify::{
    classify, describe, http_status, AttemptEnd, ErrorKind, Evidence, Failure, StopReason, Verdict,
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
