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
