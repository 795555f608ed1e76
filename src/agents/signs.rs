//! How an agent says why a run failed: the shape of the table each agent's
//! file fills in (`AgentSpec::signs`), read by the run's classifier
//! (`crate::attempt::signs`; the kinds are `crate::error_kind`'s), its retry counter and its idle timeout.
//! An agent's table names what it has and ends with `..NO_SIGNS`.

use crate::error_kind::AgentErrorKind;

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
    /// (`crate::attempt::RetryCount`). Empty: not counted.
    pub retry_status: &'static [&'static str],
    /// A retry line holding one of these is not one of the turn's retries,
    /// not counted: a call's first try (Copilot's `model.call_failure` with
    /// `"retryAttempt":0`, Droid's log record with `"attempt":1`), or a side
    /// call's (opencode's title call, `small=true`).
    pub not_retries: &'static [&'static str],
    /// Its retry lines tell of every failed call and say nothing of which
    /// try it was (opencode's `stream error` log lines): the first of an
    /// attempt is its first try, not counted.
    pub first_failure_counted: bool,
    /// Lines of its own side traffic (telemetry it cannot send offline,
    /// Droid's; a catalogue it cannot fetch, opencode's): never counted,
    /// not progress for the idle timeout, and not evidence of why a turn
    /// failed.
    pub chatter: &'static [&'static str],
    /// Its error codes (`ReplyError.code`) that mean the API answered a
    /// model call with an error, for an agent that passes the API's message
    /// on without the HTTP status (opencode over ACP: `APIError`). It
    /// retries what is transient itself and says so in words the markers
    /// read, so such an error that no status, code or wording explains is
    /// the API refusing the request (`request_rejected`).
    pub api_error_codes: &'static [&'static str],
    /// Wording of a failure, and what the user can do about it, added to
    /// the failure's message (Claude Code refusing to skip permissions as
    /// root names `IS_SANDBOX=1`).
    pub hints: &'static [(&'static str, &'static str)],
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
    not_retries: &[],
    first_failure_counted: false,
    chatter: &[],
    api_error_codes: &[],
    hints: &[],
};
