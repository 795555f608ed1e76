//! How an agent says why a run failed: the shape of the tables the
//! classifier ([`super::classify`]) reads. Each agent's own table is in its
//! file under `src/agents/` (`AgentSpec::signs`), seen on the real CLI
//! against the mock API (tests/cli/run_agent.test.cjs); the markers are
//! matched without regard to case.

pub use crate::agents::signs::{Signs, NO_SIGNS};
use crate::error_kind::AgentErrorKind::{self, *};

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
    // What the agents' HTTP clients say when no connection could be made
    // (Bun's `ConnectionRefused`, the OpenAI SDK's `Connection error.`).
    ("Connection refused", NetworkError),
    ("ConnectionRefused", NetworkError),
    ("Connection error", NetworkError),
    ("Unable to connect", NetworkError),
    ("Could not connect", NetworkError),
    ("waiting for network", NetworkError),
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
/// with backoff...` and the error printed with it) or of its chatter while
/// it waits, or a stalled API would keep a run alive for as long as the
/// agent retries.
pub fn is_progress(signs: &Signs, chunk: &[u8]) -> bool {
    !signs
        .retry_lines
        .iter()
        .chain(signs.chatter)
        .any(|l| memchr::memmem::find(chunk, l.as_bytes()).is_some())
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
