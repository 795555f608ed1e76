//! Seed 003's retry policy, the runner's ([`crate::run::retry_wait`]): the
//! retryable kinds ([`ErrorKind::is_retryable`]: timeouts, network and
//! upstream errors, empty replies, rate limits) are tried again after
//! 0.5 s, 1 s, 2 s (then 2 s for every further retry); nothing else is,
//! `command_not_found` never. `max_duration` bounds the whole call, retries
//! and waits included, so a retry starts only when time is left.

use super::classify::ErrorKind;
pub use crate::run::{backoff_ms, BACKOFF_MS, MIN_ATTEMPT_MS};

/// How long to wait before trying again after a failure of `kind`, or `None`
/// when the call ends here: the kind is not retried, `max_retries` are used
/// up, or `remaining_ms` of `max_duration` would not cover the wait and a
/// useful attempt.
///
/// ```
/// use agent_context::gemini_tool::{retry_delay, ErrorKind};
/// assert_eq!(retry_delay(ErrorKind::UpstreamError, 0, 1, 60_000), Some(500));
/// assert_eq!(retry_delay(ErrorKind::UpstreamError, 1, 1, 60_000), None);
/// assert_eq!(retry_delay(ErrorKind::CommandNotFound, 0, 3, 60_000), None);
/// ```
pub fn retry_delay(
    kind: ErrorKind,
    retries_done: u32,
    max_retries: u32,
    remaining_ms: u64,
) -> Option<u64> {
    crate::run::retry_wait(kind, retries_done, max_retries, remaining_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_half_a_second_and_stays_at_two() {
        let waits: Vec<u64> = (0..5).map(backoff_ms).collect();
        assert_eq!(waits, [500, 1000, 2000, 2000, 2000]);
        assert_eq!(backoff_ms(u32::MAX), 2000);
    }

    #[test]
    fn only_transient_kinds_are_retried_within_the_budget() {
        let hour = 3_600_000;
        for kind in [
            ErrorKind::IdleTimeout,
            ErrorKind::Timeout,
            ErrorKind::NetworkError,
            ErrorKind::UpstreamError,
            ErrorKind::EmptyResponse,
            ErrorKind::QuotaExceeded,
        ] {
            assert_eq!(retry_delay(kind, 0, 3, hour), Some(500), "{kind:?}");
            assert_eq!(retry_delay(kind, 2, 3, hour), Some(2000), "{kind:?}");
            assert_eq!(retry_delay(kind, 3, 3, hour), None, "{kind:?}");
            assert_eq!(retry_delay(kind, 0, 0, hour), None, "{kind:?}");
        }
        for kind in [
            ErrorKind::CommandNotFound,
            ErrorKind::SessionNotFound,
            ErrorKind::InvalidParams,
            ErrorKind::RequestRejected,
            ErrorKind::AuthError,
            ErrorKind::Aborted,
            ErrorKind::ProcessError,
            ErrorKind::SpawnFailed,
            ErrorKind::ContextTooLong,
            ErrorKind::UntrustedFolder,
            ErrorKind::Incomplete,
        ] {
            assert_eq!(retry_delay(kind, 0, 10, hour), None, "{kind:?}");
        }
    }

    #[test]
    fn no_retry_without_time_for_the_wait_and_an_attempt() {
        let kind = ErrorKind::UpstreamError;
        assert_eq!(retry_delay(kind, 0, 1, 1500), Some(500));
        assert_eq!(retry_delay(kind, 0, 1, 1499), None);
        assert_eq!(retry_delay(kind, 1, 2, 1999), None);
        assert_eq!(retry_delay(kind, 0, 1, 0), None);
    }
}
