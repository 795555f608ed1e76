//! How an agent says why a run failed: the shape of the tables the
//! classifier ([`super::classify`]) reads. Each agent's own table is in its
//! file under `src/agents/` (`AgentSpec::signs`), seen on the real CLI
//! against the mock API (tests/cli/run_agent.test.cjs); the markers are
//! matched without regard to case.

use super::kind::AgentErrorKind::{self, *};

/// One agent's signs of failure.
#[derive(Debug, PartialEq, Eq)]
pub struct Signs {
    /// Exit codes with one meaning, whatever was printed.
    pub exit_codes: &'static [(i32, AgentErrorKind)],
    /// The exit code is the API's HTTP status mod 256 (Gemini CLI: 500 → 244).
    pub exit_is_http_status: bool,
    /// The CLI's own error codes (`ReplyError.code`) and their kind.
    pub error_codes: &'static [(&'static str, AgentErrorKind)],
    /// Text before an HTTP status in an error message.
    pub status_prefixes: &'static [&'static str],
    /// Lines saying the session asked for cannot be resumed.
    pub unknown_session: &'static [&'static str],
    /// Other wording and its kind, checked before [`COMMON_MARKERS`].
    pub markers: &'static [(&'static str, AgentErrorKind)],
    /// What the agent prints while it retries a failed API call: a chunk
    /// holding one is not progress for the idle timeout ([`is_progress`]).
    pub retry_lines: &'static [&'static str],
    /// Text before the HTTP status in a retry line: each such line is one of
    /// the agent's own retries, counted against `maxRetries`
    /// ([`super::retry_count`]). Empty: not counted.
    pub retry_status: &'static [&'static str],
}

/// No signs: an agent the registry does not know (or given by its
/// definition) is read by the common markers alone.
pub const NO_SIGNS: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[],
    status_prefixes: &[],
    unknown_session: &[],
    markers: &[],
    retry_lines: &[],
    retry_status: &[],
};

/// What every CLI may say, after its own markers.
pub const COMMON_MARKERS: &[(&str, AgentErrorKind)] = &[
    ("fetch failed", NetworkError),
    ("ECONNREFUSED", NetworkError),
    ("ECONNRESET", NetworkError),
    ("ETIMEDOUT", NetworkError),
    ("ENOTFOUND", NetworkError),
    ("EAI_AGAIN", NetworkError),
    ("socket hang up", NetworkError),
    ("error sending request", NetworkError),
    ("UND_ERR_", NetworkError),
    ("context_length_exceeded", ContextTooLong),
    ("maximum context length", ContextTooLong),
    ("prompt is too long", ContextTooLong),
    ("input token count", ContextTooLong),
    ("rate limit", QuotaExceeded),
    ("RESOURCE_EXHAUSTED", QuotaExceeded),
    ("exceeded your current quota", QuotaExceeded),
    ("too many requests", QuotaExceeded),
    ("API key not valid", AuthError),
    ("invalid api key", AuthError),
    ("incorrect api key", AuthError),
    ("invalid x-api-key", AuthError),
    ("UNAUTHENTICATED", AuthError),
];

/// Whether a chunk of the agent's output (stdout or stderr) is progress,
/// which restarts the idle timeout: not when it holds one of the agent's
/// retry lines (Gemini CLI's `Attempt 1 failed with status 500. Retrying
/// with backoff...` and the error printed with it), or a stalled API would
/// keep a run alive for as long as the agent retries.
pub fn is_progress(signs: &Signs, chunk: &[u8]) -> bool {
    let lines = signs.retry_lines;
    if lines.is_empty() {
        return true;
    }
    let text = String::from_utf8_lossy(chunk);
    !lines.iter().any(|l| text.contains(l))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_chatter_is_not_progress() {
        let gemini = crate::agents::GOOGLE_GEMINI.signs;
        assert!(!is_progress(
            gemini,
            b"Attempt 1 failed with status 500. Retrying with backoff... ApiError: {\"error\":{\"code\":500}}\n    at x (y.js:1:2)\n"
        ));
        assert!(!is_progress(
            gemini,
            b"Attempt 2 failed: quota. Retrying after 5123ms...\n"
        ));
        assert!(is_progress(
            gemini,
            b"{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Hi\"}\n"
        ));
        assert!(is_progress(gemini, b"YOLO mode is enabled.\n"));
        // Agents without retry lines: any output is progress.
        assert!(is_progress(
            crate::agents::find("claude-code").unwrap().signs,
            b"Retrying with backoff\n"
        ));
        assert!(!is_progress(
            crate::agents::find("qwen-code").unwrap().signs,
            b"[qwen-code] Waiting for API capacity... attempt 1, retry in 5s\n"
        ));
    }
}
