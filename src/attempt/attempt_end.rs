//! How an attempt's process ended, as the session engine judges it: how
//! the host saw it end, and why the engine stopped it, if it did.

/// Why the engine stopped the process itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StopReason {
    IdleTimeout,
    MaxDuration,
    Aborted,
    /// The agent retried a failed API call more than `maxRetries` times
    /// ([`super::RetryCount`]): what its last retry line said, and how many
    /// it made.
    OwnRetries(Option<super::OwnRetriesOver>),
}

/// How an attempt's process ended.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AttemptEnd {
    pub exit_code: Option<i32>,
    /// The signal that ended it (`SIGKILL`, …).
    pub signal: Option<String>,
    /// The error code when it could not be started (`ENOENT`, `EACCES`, …).
    pub spawn_error: Option<String>,
    pub stopped: Option<StopReason>,
}
