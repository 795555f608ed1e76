//! What both of Codex's `exec --json` schemas (`codex`, `codex_legacy`) read
//! the same way: the token usage of a turn and the notices of a retry.

use serde_json::Value;

use super::json::count_field;
use super::reply::Usage;

/// `usage` of `turn.completed` (and of the older `token_count`); Codex's
/// `input_tokens` already counts the cached ones.
pub fn turn_usage(usage: &Value) -> Usage {
    let input = count_field(usage, "input_tokens");
    let output = count_field(usage, "output_tokens");
    Usage {
        input_tokens: input,
        cached_input_tokens: count_field(usage, "cached_input_tokens"),
        output_tokens: output,
        total_tokens: input.zip(output).map(|(i, o)| i + o),
        reasoning_output_tokens: count_field(usage, "reasoning_output_tokens"),
        cache_write_input_tokens: count_field(usage, "cache_write_input_tokens"),
        ..Usage::default()
    }
}

/// Whether an `error` message announces a retry rather than a failure
/// (`Reconnecting... 1/5 (…)`; in 0.44 `stream error: …; retrying 1/5 in
/// 200ms…`).
pub fn is_retry(message: &str) -> bool {
    message.starts_with("Reconnecting")
        || (message.starts_with("stream error") && message.ends_with("ms…"))
}

#[cfg(test)]
mod tests {
    use super::is_retry;

    #[test]
    fn retry_notices_of_every_release_are_told_from_failures() {
        assert!(is_retry(
            "Reconnecting... 1/5 (We're currently experiencing high demand)"
        ));
        assert!(is_retry(
            "stream error: exceeded retry limit, last status: 503 Service Unavailable; retrying 1/1 in 207ms…"
        ));
        assert!(!is_retry("stream error: connection closed"));
        assert!(!is_retry(
            "We're currently experiencing high demand, which may cause temporary errors."
        ));
    }
}
