//! Running agents (SPEC §10): one runner for every agent CLI. Every decision
//! is here — the options and defaults, the command line (through
//! [`crate::invocation`]), reading the output live, the error kind (one
//! taxonomy, [`AgentErrorKind`], with each agent's signs as data in
//! [`signs`]), resume verification, the retry schedule, the [`AgentRun`];
//! the Node runner (`js/agent-run.cjs`) only spawns, writes and closes
//! stdin, times and kills the process tree.
//!
//! One call is an [`AgentRunner`]: `plan()` → `launch()` once the host
//! resolved the command (or `cannot_launch()`) → `plan()` → for each attempt
//! `start_attempt()`, `push_stdout`/`push_stderr`, `end_attempt()` (which
//! says whether to wait and try again) → `result()`.

mod attempt;
mod attempt_end;
mod backoff;
mod classify;
mod options;
mod own_retries;
mod result;
mod retry_count;
mod runner;
pub mod signs;
mod tail;

pub use crate::error_kind::AgentErrorKind;
pub use attempt_end::{AttemptEnd, StopReason};
pub use backoff::{backoff_ms, BACKOFF_MS, MIN_ATTEMPT_MS};
pub use classify::{
    aborted, classify, command_not_found, http_status, own_retries, status_from_exit, Evidence,
    Failure,
};
pub use options::{
    RunOptions, DEFAULT_MAX_DURATION_S, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S, MAX_RETRIES_LIMIT,
    MAX_SECONDS,
};
pub use own_retries::{own_retry_config, OwnRetryConfig};
pub use result::{AgentRun, LastAttempt, RunError};
pub use retry_count::{OwnRetriesOver, RetryCount};
pub use runner::{retry_wait, AgentRunner, RunPlan};
pub use tail::{OutputTail, Stream, LAST_LINES, LINE_MAX_CHARS};

#[cfg(test)]
mod more_agents_tests;
#[cfg(test)]
mod tests;
