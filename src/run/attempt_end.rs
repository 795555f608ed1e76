//! How an attempt's process ended, as the JS process layer reports it to the
//! core: shared by every agent's runner (and the Gemini tool, a layer over it).

use crate::error::{AgentContextError, Result};

/// Why the runner stopped the process itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    IdleTimeout,
    MaxDuration,
    Aborted,
    /// The agent retried a failed API call more than `maxRetries` times
    /// ([`super::RetryCount`]): what its last retry line said, and how many
    /// it made (`None` until the runner fills it in).
    OwnRetries(Option<super::OwnRetriesOver>),
}

/// How an attempt's process ended, as the runner saw it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttemptEnd {
    pub exit_code: Option<i32>,
    /// The signal that ended it (`SIGKILL`, …).
    pub signal: Option<String>,
    /// The error code when it could not be started (`ENOENT`, `EACCES`, …).
    pub spawn_error: Option<String>,
    pub stopped: Option<StopReason>,
}

impl AttemptEnd {
    /// From the JS runner; `stopped` is `'idle_timeout'`, `'timeout'`,
    /// `'aborted'` or `'own_retries'` (the runner fills in what it counted).
    pub fn new(
        exit_code: Option<i32>,
        signal: Option<String>,
        spawn_error: Option<String>,
        stopped: Option<&str>,
    ) -> Result<AttemptEnd> {
        let stopped = match stopped {
            None => None,
            Some("idle_timeout") => Some(StopReason::IdleTimeout),
            Some("timeout") => Some(StopReason::MaxDuration),
            Some("aborted") => Some(StopReason::Aborted),
            Some("own_retries") => Some(StopReason::OwnRetries(None)),
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "stopped must be 'idle_timeout', 'timeout', 'aborted' or 'own_retries', got \"{other}\""
                )))
            }
        };
        Ok(AttemptEnd {
            exit_code,
            signal,
            spawn_error,
            stopped,
        })
    }
}
