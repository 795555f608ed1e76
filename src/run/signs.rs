//! How each output format says why a run failed: the per-agent facts the
//! classifier ([`super::classify`]) reads, as tables. Each was seen on the
//! real CLI against the mock API (tests/cli/run_agent.test.cjs); the
//! markers are matched without regard to case.

use super::kind::AgentErrorKind::{self, *};
use crate::agents::OutputFormat;

/// One output format's signs of failure.
#[derive(Debug)]
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

/// Claude Code 2.1: the final `result` says `is_error`, the assistant
/// message before it names the cause (`api_error_type`:
/// `authentication_error`, `rate_limit_error`, `api_error`, …), its text is
/// `API Error: 500 …`; an
/// unknown `--resume` id prints `No conversation found with session ID: …`
/// on stderr and a failed `result` (exit 1); an id that is no UUID is
/// refused on stderr.
const CLAUDE: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[
        ("authentication_error", AuthError),
        ("authentication_failed", AuthError),
        ("permission_error", AuthError),
        ("billing_error", QuotaExceeded),
        ("rate_limit_error", QuotaExceeded),
        ("rate_limit", QuotaExceeded),
        ("request_too_large", ContextTooLong),
        ("api_error", UpstreamError),
        ("overloaded_error", UpstreamError),
        ("server_error", UpstreamError),
    ],
    status_prefixes: &["API Error: ", "Request rejected ("],
    unknown_session: &[
        "No conversation found with session ID",
        "--resume requires a valid session ID",
    ],
    markers: &[
        ("Invalid API key", AuthError),
        ("Please run /login", AuthError),
        ("Credit balance is too low", QuotaExceeded),
        ("Prompt is too long", ContextTooLong),
    ],
    retry_lines: &[],
    retry_status: &[],
};

/// Codex 0.169: `turn.failed` ends a failed turn, after `Reconnecting... N/5`
/// errors while it retries; an HTTP error reads
/// `unexpected status 401 Unauthorized: …`, but a 500 reads only "We're
/// currently experiencing high demand", a 429 "Quota exceeded", and a 400
/// is the API's JSON body alone; an
/// unknown `resume` id that is a UUID fails on stderr (`no rollout found
/// for thread id`, exit 1), while one that is no UUID silently starts a new
/// thread (caught by the session id check, not here).
const CODEX: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[],
    status_prefixes: &["unexpected status "],
    unknown_session: &["no rollout found", "thread/resume failed"],
    markers: &[
        ("experiencing high demand", UpstreamError),
        ("Quota exceeded", QuotaExceeded),
        ("--skip-git-repo-check was not specified", UntrustedFolder),
        ("Not inside a trusted directory", UntrustedFolder),
        ("context window", ContextTooLong),
        // A 400 is passed on as the API's JSON body, without the status.
        ("invalid_request_error", RequestRejected),
    ],
    // `{"type":"error","message":"Reconnecting... 2/5 (We're currently
    // experiencing high demand, …)"}` on stdout before each retry of a 5xx.
    retry_lines: &["Reconnecting... "],
    retry_status: &["unexpected status "],
};

/// Gemini CLI 0.61: while it retries a 429 or 5xx it prints `Attempt N
/// failed with status 500. Retrying with backoff...` (or `Retrying after
/// N ms...`) with the error on stderr. A failed `result` holds the API's JSON (`"code":500`),
/// the exit code is the HTTP status mod 256; exit 41 is missing
/// credentials, 55 an untrusted folder; an unknown `--resume` prints
/// `Error resuming session: …` on stderr and exits 42 before any API call.
const GEMINI: Signs = Signs {
    exit_codes: &[(41, AuthError), (55, UntrustedFolder)],
    exit_is_http_status: true,
    error_codes: &[],
    status_prefixes: &["\"code\":", "\\\"code\\\":", "status: "],
    unknown_session: &["Error resuming session"],
    markers: &[
        ("not running in a trusted directory", UntrustedFolder),
        ("empty response", EmptyResponse),
    ],
    retry_lines: &["Retrying with backoff", "Retrying after "],
    retry_status: &["failed with status "],
};

/// Qwen Code 0.24.4, seen through `runAgent` against the mock
/// (tests/cli/run_agent_openai_chat.test.cjs): an API error is the
/// assistant text and `result` `[API Error: 401 …]` (exit 1), after its own
/// retries for 429 and 5xx; an unknown `--resume` id prints `No saved
/// session found with ID …` (or `with title "…"` for an id that is no UUID)
/// on stderr and exits 1 before any API call; in its unattended mode
/// (`QWEN_CODE_UNATTENDED_RETRY`) it prints `Waiting for API capacity...`
/// on stderr while it retries; at `--max-session-turns` it
/// exits 53 without a `result` line (the parser's `incomplete`).
const QWEN: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[],
    status_prefixes: &["API Error: "],
    unknown_session: &["No saved session found"],
    markers: &[],
    retry_lines: &["Waiting for API capacity"],
    retry_status: &[],
};

/// GitHub Copilot CLI 1.0.102, seen through `runAgent` against the mock: a
/// failed run ends with `session.error` (exit 1) whose `statusCode` the
/// parser keeps as the code `http_401`, `http_429`, … (read as the status
/// for every agent, see [`super::classify`]); its `errorType` (the code when
/// there is no status) says `authentication`, `rate_limit`, `query`. It
/// retries 401 twice ("transient_auth_error") and 429 and 5xx five times
/// (a 429 took 66 s) before giving up. `--resume=<id>` (runAgent's, see
/// `CliExtras::resume_existing`) of an unknown id prints `Error: No session,
/// task, or name matched '<id>'.` on stderr, exit 1, before any API call;
/// `--session-id` would have created that session.
const COPILOT: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[("authentication", AuthError), ("rate_limit", QuotaExceeded)],
    status_prefixes: &["Last error: ", "(HTTP "],
    unknown_session: &["No session, task, or name matched"],
    markers: &[("Authentication failed with provider", AuthError)],
    retry_lines: &[],
    retry_status: &[],
};

/// opencode 1.18.33, seen through `runAgent` against the mock: a failed run
/// prints an `error` line (`error.name` `APIError`, `data.statusCode` kept
/// by the parser as the code `http_NNN`) and exits 1; 429 and 5xx are
/// retried for 1–2 minutes first. An unknown `--session` id (any form)
/// prints `Error: Session not found` on stderr and exits 1 after ~20 s,
/// before any API call. A run that ends without `step_finish` reason `stop`
/// is the parser's `incomplete`. `ProviderAuthError` and
/// `ContextOverflowError` are error names in its binary, not seen offline.
const OPENCODE: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[
        ("ProviderAuthError", AuthError),
        ("ContextOverflowError", ContextTooLong),
    ],
    status_prefixes: &[],
    unknown_session: &["Session not found"],
    // Over ACP a failed call is a JSON-RPC `Internal error: <the API's
    // message>` with no status: a 5xx body's usual wording, as opencode's
    // own retry rule reads it.
    markers: &[
        ("server error", UpstreamError),
        ("service unavailable", UpstreamError),
        ("overloaded", UpstreamError),
    ],
    retry_lines: &[],
    retry_status: &[],
};

const PLAIN: Signs = Signs {
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
pub fn is_progress(format: OutputFormat, chunk: &[u8]) -> bool {
    let lines = signs(format).retry_lines;
    if lines.is_empty() {
        return true;
    }
    let text = String::from_utf8_lossy(chunk);
    !lines.iter().any(|l| text.contains(l))
}

/// The signs of `format`.
pub fn signs(format: OutputFormat) -> &'static Signs {
    match format {
        OutputFormat::ClaudeStreamJson => &CLAUDE,
        OutputFormat::CodexJson => &CODEX,
        OutputFormat::GeminiStreamJson => &GEMINI,
        OutputFormat::QwenStreamJson => &QWEN,
        OutputFormat::CopilotJson => &COPILOT,
        OutputFormat::OpencodeJson => &OPENCODE,
        OutputFormat::PlainText => &PLAIN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_chatter_is_not_progress() {
        let gemini = OutputFormat::GeminiStreamJson;
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
            OutputFormat::ClaudeStreamJson,
            b"Retrying with backoff\n"
        ));
        assert!(!is_progress(
            OutputFormat::QwenStreamJson,
            b"[qwen-code] Waiting for API capacity... attempt 1, retry in 5s\n"
        ));
    }
}
