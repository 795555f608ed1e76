//! How an agent says why a run failed: the shape of the table each agent's
//! file fills in (`AgentSpec::signs`), read by the run's classifier
//! (`crate::run::signs`; the kinds are `crate::error_kind`'s), its retry counter and its idle timeout.

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
