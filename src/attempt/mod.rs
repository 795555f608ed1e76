//! What every attempt at a turn is made of, for the session engine that
//! runs every agent ([`crate::engine`]: over ACP, and over the CLI for
//! sessions, `runAgent` and the Gemini tool): the options and defaults
//! ([`RunOptions`]), what an attempt came to (one taxonomy,
//! [`AgentErrorKind`], with each agent's signs as data in [`signs`]:
//! [`classify`]), the agent's own retries counted and bounded
//! ([`RetryCount`], [`own_retry_config`]), the retry schedule
//! ([`retry_wait`]), the last lines kept ([`OutputTail`]) and the
//! [`AgentRun`] a run resolves.

mod attempt_end;
mod backoff;
mod classify;
mod options;
mod own_retries;
mod result;
mod retry_count;
pub mod signs;
mod tail;
mod transport_lost;

pub use crate::error_kind::AgentErrorKind;
pub use attempt_end::{AttemptEnd, StopReason};
pub use backoff::{backoff_ms, retry_wait, BACKOFF_MS, MIN_ATTEMPT_MS};
pub use classify::{
    aborted, classify, command_not_found, ended_early, http_status, names_connection_failure,
    own_retries, rejection, status_from_exit, stop_words, Evidence, Failure,
};
pub use options::{
    RunOptions, DEFAULT_MAX_DURATION_S, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_S, MAX_RETRIES_LIMIT,
    MAX_SECONDS,
};
pub use own_retries::{own_retry_config, LogWatch, OwnRetryConfig};
pub use result::{AgentRun, RunError};
pub use retry_count::{OwnRetriesOver, RetryCount};
pub use tail::{OutputTail, Stream, LAST_LINES, LINE_MAX_CHARS};
pub use transport_lost::{transport_lost_in, TRANSPORT_LOST};
