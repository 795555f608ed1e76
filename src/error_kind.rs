//! The one error taxonomy of every agent run (SPEC §10): what `AgentRun.error.kind` says.

use serde::Serialize;

/// Why a run failed. `retryable` kinds may succeed when tried again; the
/// runner retries only those (seed 003's rules), never `command_not_found`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum AgentErrorKind {
    /// The request or the options cannot be used (a field is named).
    InvalidParams,
    /// The executable does not exist.
    CommandNotFound,
    /// The OS refused to start it (EACCES, EINVAL, E2BIG, ENAMETOOLONG, …).
    SpawnFailed,
    /// No usable credentials (HTTP 401/403, a rejected key, Gemini exit 41).
    AuthError,
    /// Rate limited or out of quota (HTTP 429, capacity).
    QuotaExceeded,
    /// The prompt does not fit the model's context.
    ContextTooLong,
    /// The session asked to resume is unknown, or another one answered.
    SessionNotFound,
    /// The CLI refuses to work in the folder (trust, git check).
    UntrustedFolder,
    /// The API failed on its side (HTTP 5xx, 408, 499).
    UpstreamError,
    /// The API refused the request (another HTTP 4xx).
    RequestRejected,
    /// The API could not be reached.
    NetworkError,
    /// The model answered nothing.
    EmptyResponse,
    /// No output for `timeout` seconds: the process tree was killed.
    IdleTimeout,
    /// `maxDuration` ran out: the process tree was killed.
    Timeout,
    /// The caller aborted: the process tree was killed.
    Aborted,
    /// The agent exited (even with 0) without its final event.
    Incomplete,
    /// Anything else: a failed run the CLI did not explain, a crash.
    ProcessError,
    /// With `outputSchema`: the reply held no value matching the schema,
    /// after the corrective turns `maxRetries` allowed.
    InvalidOutput,
}

impl AgentErrorKind {
    pub const ALL: [AgentErrorKind; 18] = [
        AgentErrorKind::InvalidParams,
        AgentErrorKind::CommandNotFound,
        AgentErrorKind::SpawnFailed,
        AgentErrorKind::AuthError,
        AgentErrorKind::QuotaExceeded,
        AgentErrorKind::ContextTooLong,
        AgentErrorKind::SessionNotFound,
        AgentErrorKind::UntrustedFolder,
        AgentErrorKind::UpstreamError,
        AgentErrorKind::RequestRejected,
        AgentErrorKind::NetworkError,
        AgentErrorKind::EmptyResponse,
        AgentErrorKind::IdleTimeout,
        AgentErrorKind::Timeout,
        AgentErrorKind::Aborted,
        AgentErrorKind::Incomplete,
        AgentErrorKind::ProcessError,
        AgentErrorKind::InvalidOutput,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            AgentErrorKind::InvalidParams => "invalid_params",
            AgentErrorKind::CommandNotFound => "command_not_found",
            AgentErrorKind::SpawnFailed => "spawn_failed",
            AgentErrorKind::AuthError => "auth_error",
            AgentErrorKind::QuotaExceeded => "quota_exceeded",
            AgentErrorKind::ContextTooLong => "context_too_long",
            AgentErrorKind::SessionNotFound => "session_not_found",
            AgentErrorKind::UntrustedFolder => "untrusted_folder",
            AgentErrorKind::UpstreamError => "upstream_error",
            AgentErrorKind::RequestRejected => "request_rejected",
            AgentErrorKind::NetworkError => "network_error",
            AgentErrorKind::EmptyResponse => "empty_response",
            AgentErrorKind::IdleTimeout => "idle_timeout",
            AgentErrorKind::Timeout => "timeout",
            AgentErrorKind::Aborted => "aborted",
            AgentErrorKind::Incomplete => "incomplete",
            AgentErrorKind::ProcessError => "process_error",
            AgentErrorKind::InvalidOutput => "invalid_output",
        }
    }

    /// Whether another attempt may succeed: the transient kinds of seed 003
    /// (timeouts, network, upstream, empty replies) and rate limits.
    pub fn is_retryable(self) -> bool {
        matches!(
            self,
            AgentErrorKind::IdleTimeout
                | AgentErrorKind::Timeout
                | AgentErrorKind::NetworkError
                | AgentErrorKind::UpstreamError
                | AgentErrorKind::EmptyResponse
                | AgentErrorKind::QuotaExceeded
        )
    }

    /// The kind named `name` (`as_str`'s words).
    pub fn from_name(name: &str) -> Option<AgentErrorKind> {
        AgentErrorKind::ALL.into_iter().find(|k| k.as_str() == name)
    }

    /// Whether a session's `fallback` takes a turn that ended this way (its
    /// retries spent) to the next agent: a failure another agent may not
    /// have — out of quota, refused credentials, not installed, the API
    /// failing. Bad input, a timeout or an abort would be the same there.
    pub fn hands_off(self) -> bool {
        matches!(
            self,
            AgentErrorKind::QuotaExceeded
                | AgentErrorKind::AuthError
                | AgentErrorKind::CommandNotFound
                | AgentErrorKind::UpstreamError
        )
    }

    /// The kind an HTTP status stands for.
    pub fn from_http_status(status: u16) -> AgentErrorKind {
        match status {
            401 | 403 => AgentErrorKind::AuthError,
            429 => AgentErrorKind::QuotaExceeded,
            413 => AgentErrorKind::ContextTooLong,
            408 | 499 | 500..=599 => AgentErrorKind::UpstreamError,
            _ => AgentErrorKind::RequestRejected,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_and_four_kinds_hand_off() {
        for kind in AgentErrorKind::ALL {
            assert_eq!(AgentErrorKind::from_name(kind.as_str()), Some(kind));
        }
        assert_eq!(AgentErrorKind::from_name("quota"), None);
        let handed: Vec<&str> = AgentErrorKind::ALL
            .iter()
            .filter(|k| k.hands_off())
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            handed,
            [
                "command_not_found",
                "auth_error",
                "quota_exceeded",
                "upstream_error"
            ]
        );
    }

    #[test]
    fn names_are_the_specs_and_only_transient_kinds_retry() {
        let names: Vec<&str> = AgentErrorKind::ALL.iter().map(|k| k.as_str()).collect();
        assert_eq!(names.len(), 18);
        for kind in AgentErrorKind::ALL {
            assert_eq!(
                serde_json::to_value(kind).unwrap(),
                serde_json::json!(kind.as_str())
            );
        }
        let retried: Vec<&str> = AgentErrorKind::ALL
            .iter()
            .filter(|k| k.is_retryable())
            .map(|k| k.as_str())
            .collect();
        assert_eq!(
            retried,
            [
                "quota_exceeded",
                "upstream_error",
                "network_error",
                "empty_response",
                "idle_timeout",
                "timeout"
            ]
        );
        assert_eq!(
            AgentErrorKind::from_http_status(401),
            AgentErrorKind::AuthError
        );
        assert_eq!(
            AgentErrorKind::from_http_status(429),
            AgentErrorKind::QuotaExceeded
        );
        assert_eq!(
            AgentErrorKind::from_http_status(503),
            AgentErrorKind::UpstreamError
        );
        assert_eq!(
            AgentErrorKind::from_http_status(404),
            AgentErrorKind::RequestRejected
        );
    }
}
