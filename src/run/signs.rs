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
};

/// Codex 0.169: `turn.failed` ends a failed turn; an HTTP error reads
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
};

/// Gemini CLI 0.61: a failed `result` holds the API's JSON (`"code":500`),
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
};

/// Qwen Code 0.24, from its recorded runs (tests/fixtures/cli/qwen-code/):
/// an API error is the assistant text and `result` `[API Error: 400 …]`
/// (exit 1). Not yet seen through `runAgent` against the mock.
const QWEN: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[],
    status_prefixes: &["API Error: "],
    unknown_session: &[],
    markers: &[],
};

/// GitHub Copilot CLI 1.0 and opencode 1.18, from their recorded runs: an
/// API error carries its status as a number (`statusCode`), which the
/// parsers read; no wording of their own is known yet. Not yet seen through
/// `runAgent` against the mock.
const COPILOT_OPENCODE: Signs = PLAIN;

const PLAIN: Signs = Signs {
    exit_codes: &[],
    exit_is_http_status: false,
    error_codes: &[],
    status_prefixes: &[],
    unknown_session: &[],
    markers: &[],
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

/// The signs of `format`.
pub fn signs(format: OutputFormat) -> &'static Signs {
    match format {
        OutputFormat::ClaudeStreamJson => &CLAUDE,
        OutputFormat::CodexJson => &CODEX,
        OutputFormat::GeminiStreamJson => &GEMINI,
        OutputFormat::QwenStreamJson => &QWEN,
        OutputFormat::CopilotJson | OutputFormat::OpencodeJson => &COPILOT_OPENCODE,
        OutputFormat::PlainText => &PLAIN,
    }
}
