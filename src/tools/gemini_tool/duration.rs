//! The envelope's `duration`: `1m30s`, `0m30s`, `1h2m5s` (seed 003).

/// Milliseconds as whole seconds (rounded half up), minutes always shown,
/// hours only from one hour on: `0m0s`, `0m30s`, `1m30s`, `1h0m5s`.
///
/// ```
/// use agent_context::tools::gemini_tool::format_duration;
/// assert_eq!(format_duration(90_000), "1m30s");
/// assert_eq!(format_duration(29_500), "0m30s");
/// assert_eq!(format_duration(3_725_000), "1h2m5s");
/// ```
pub fn format_duration(ms: u64) -> String {
    let total = ms / 1000 + u64::from(ms % 1000 >= 500);
    let (hours, minutes, seconds) = (total / 3600, total % 3600 / 60, total % 60);
    if hours > 0 {
        format!("{hours}h{minutes}m{seconds}s")
    } else {
        format!("{minutes}m{seconds}s")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_like_the_seed() {
        assert_eq!(format_duration(0), "0m0s");
        assert_eq!(format_duration(499), "0m0s");
        assert_eq!(format_duration(500), "0m1s");
        assert_eq!(format_duration(30_000), "0m30s");
        assert_eq!(format_duration(59_499), "0m59s");
        assert_eq!(format_duration(59_500), "1m0s");
        assert_eq!(format_duration(90_000), "1m30s");
        assert_eq!(format_duration(1_800_000), "30m0s");
        assert_eq!(format_duration(3_599_600), "1h0m0s");
        assert_eq!(format_duration(86_400_000), "24h0m0s");
        assert_eq!(format_duration(u64::MAX), "5124095576030h25m52s");
    }
}
