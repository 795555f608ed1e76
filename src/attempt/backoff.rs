//! Seed 003's waits between attempts, for every agent's runner: 0.5 s, 1 s,
//! 2 s, then 2 s for every further retry.

/// The waits before the first, second and third retry; later ones wait the last.
pub const BACKOFF_MS: [u64; 3] = [500, 1000, 2000];

/// A retry that would have less than this left after its wait is not started:
/// it could only run into `max_duration`.
pub const MIN_ATTEMPT_MS: u64 = 1000;

/// The wait before retry number `retries_done + 1`.
pub fn backoff_ms(retries_done: u32) -> u64 {
    BACKOFF_MS[(retries_done as usize).min(BACKOFF_MS.len() - 1)]
}

/// Seed 003's retry rule: a retryable kind, retries left, and time left for
/// the wait and a useful attempt within `maxDuration`.
pub fn retry_wait(
    kind: crate::error_kind::AgentErrorKind,
    retries_done: u32,
    max_retries: u32,
    remaining_ms: u64,
) -> Option<u64> {
    if !kind.is_retryable() || retries_done >= max_retries {
        return None;
    }
    let wait = backoff_ms(retries_done);
    (remaining_ms >= wait + MIN_ATTEMPT_MS).then_some(wait)
}
