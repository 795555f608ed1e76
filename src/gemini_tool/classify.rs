//! What one run of Gemini CLI came to: success, or an `error_kind` with a
//! summary and the CLI's own message. Decided from how the process ended,
//! what its `stream-json` output said, and its last lines.
//!
//! The facts it relies on (Gemini CLI 0.61, seen on the real CLI):
//! - an API error ends with a `result` line `status: "error"` whose message
//!   holds the API's JSON (`"code":500`), and the exit code is the HTTP
//!   status mod 256 (500 → 244, 400 → 144);
//! - an unreachable API: `fetch failed` in that message, exit code 1;
//! - an empty model reply: an `error` line "The model returned an empty
//!   response…", a failed `result`, exit code 0;
//! - `--resume` with a session it cannot find: `Error resuming session: …`
//!   on stderr, exit code 42, before any API call;
//! - exit code 41: no usable authentication.

use crate::agent_output::{AgentReply, ReplyStatus};
use crate::agents::OutputFormat;
use crate::run::{self, signs::signs};
pub use crate::run::{AttemptEnd, StopReason};

use super::params::{shown, Limits};
use super::search::contains;

/// The envelope's `error_kind`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ErrorKind {
    /// No output for `timeout` seconds: the process group was killed.
    IdleTimeout,
    /// `max_duration` ran out: the process group was killed.
    Timeout,
    /// The `gemini` executable was not found.
    CommandNotFound,
    /// The API failed on its side (HTTP 5xx, 429, 408, 499).
    UpstreamError,
    /// The API refused the request (any other HTTP 4xx: key, model, input).
    RequestRejected,
    /// The API could not be reached.
    NetworkError,
    /// The model answered nothing.
    EmptyResponse,
    /// Gemini CLI has no usable credentials (exit code 41).
    AuthError,
    /// `SESSION_ID` names a session Gemini CLI cannot resume.
    SessionNotFound,
    /// The parameters (or `cd`) are not usable.
    InvalidParams,
    /// The caller aborted the call.
    Aborted,
    /// Anything else: a crash, a signal, an unexpected exit.
    ProcessError,
}

impl ErrorKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorKind::IdleTimeout => "idle_timeout",
            ErrorKind::Timeout => "timeout",
            ErrorKind::CommandNotFound => "command_not_found",
            ErrorKind::UpstreamError => "upstream_error",
            ErrorKind::RequestRejected => "request_rejected",
            ErrorKind::NetworkError => "network_error",
            ErrorKind::EmptyResponse => "empty_response",
            ErrorKind::AuthError => "auth_error",
            ErrorKind::SessionNotFound => "session_not_found",
            ErrorKind::InvalidParams => "invalid_params",
            ErrorKind::Aborted => "aborted",
            ErrorKind::ProcessError => "process_error",
        }
    }

    /// Whether another attempt may succeed (seed 003: timeouts, network
    /// errors and the like are retried; `command_not_found` never).
    pub fn is_retried(self) -> bool {
        matches!(
            self,
            ErrorKind::IdleTimeout
                | ErrorKind::Timeout
                | ErrorKind::NetworkError
                | ErrorKind::UpstreamError
                | ErrorKind::EmptyResponse
        )
    }
}

/// What an attempt came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    Success {
        session_id: Option<String>,
        text: String,
    },
    Failure(Failure),
}

/// A failed attempt (or call): the kind, a one-line summary (`error`) and
/// the most specific message seen (`error_detail.message`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: ErrorKind,
    pub summary: String,
    pub message: String,
}

impl Failure {
    pub fn new(kind: ErrorKind, summary: impl Into<String>, message: impl Into<String>) -> Self {
        Failure {
            kind,
            summary: summary.into(),
            message: message.into(),
        }
    }
}

/// Everything known about one finished attempt.
pub struct Evidence<'a> {
    pub end: &'a AttemptEnd,
    pub reply: &'a AgentReply,
    /// The last lines of stdout and stderr, cleaned.
    pub last_lines: &'a [String],
    /// The executable the runner spawned.
    pub command: &'a str,
    /// The `SESSION_ID` being resumed, if any.
    pub session_id: Option<&'a str>,
    pub limits: Limits,
}

/// Success only when the CLI reported success and exited 0; otherwise the
/// first matching kind, in this order: stopped by the runner, not started,
/// command not found (exit 127), session not resumable, API error by HTTP
/// status, unreachable API, empty reply, authentication, anything else.
pub fn classify(e: &Evidence) -> Verdict {
    if let Some(stop) = e.end.stopped {
        return Verdict::Failure(stopped(stop, e));
    }
    if let Some(code) = &e.end.spawn_error {
        return Verdict::Failure(not_started(code, e.command));
    }
    let exit = e.end.exit_code;
    if e.reply.status == ReplyStatus::Success && exit == Some(0) {
        return Verdict::Success {
            session_id: e.reply.session_id.clone(),
            text: e.reply.text.clone(),
        };
    }
    Verdict::Failure(failure(e, exit))
}

fn stopped(stop: StopReason, e: &Evidence) -> Failure {
    match stop {
        StopReason::IdleTimeout => Failure::new(
            ErrorKind::IdleTimeout,
            format!(
                "Gemini CLI printed nothing for {} s and was stopped (idle timeout)",
                e.limits.idle_timeout_s
            ),
            format!(
                "no output for {} s; the process group was killed",
                e.limits.idle_timeout_s
            ),
        ),
        StopReason::MaxDuration => Failure::new(
            ErrorKind::Timeout,
            format!(
                "the call reached max_duration ({} s) and Gemini CLI was stopped",
                e.limits.max_duration_s
            ),
            format!(
                "still running after max_duration ({} s); the process group was killed",
                e.limits.max_duration_s
            ),
        ),
        StopReason::Aborted => aborted(),
    }
}

/// The caller's abort.
pub fn aborted() -> Failure {
    Failure::new(
        ErrorKind::Aborted,
        "the call was aborted by the caller",
        "aborted; the process group was killed",
    )
}

fn not_started(code: &str, command: &str) -> Failure {
    if code == "ENOENT" {
        return command_not_found(command, format!("spawn {command} ENOENT"));
    }
    Failure::new(
        ErrorKind::ProcessError,
        format!("Gemini CLI could not be started ({code})"),
        format!("spawn {command} {code}"),
    )
}

fn command_not_found(command: &str, message: String) -> Failure {
    let where_ = if command.bytes().any(|b| b == b'/') {
        format!("{command} does not exist")
    } else {
        format!("`{command}` is not on PATH")
    };
    Failure::new(
        ErrorKind::CommandNotFound,
        format!(
            "Gemini CLI was not found: {where_} (install @google/gemini-cli, or set AGENT_CONTEXT_GEMINI_BIN to its executable)"
        ),
        message,
    )
}

fn failure(e: &Evidence, exit: Option<i32>) -> Failure {
    let fatal = e
        .reply
        .errors
        .iter()
        .filter(|err| err.fatal)
        .map(|err| err.message.as_str())
        .next_back();
    let stderr_hint = last_meaningful_line(e.last_lines);
    let message = fatal
        .or(stderr_hint)
        .map(str::to_owned)
        .unwrap_or_else(|| exit_text(e.end));

    if exit == Some(127) {
        return command_not_found(e.command, message);
    }
    if let Some(id) = e.session_id {
        if let Some(line) =
            plain_lines(e.last_lines).find(|l| contains(l, "Error resuming session"))
        {
            return Failure::new(
                ErrorKind::SessionNotFound,
                format!(
                    "SESSION_ID {} cannot be resumed: start a new session (leave SESSION_ID out) and give the context again",
                    shown(id)
                ),
                line.to_owned(),
            );
        }
    }
    if let Some(status) = fatal
        .and_then(http_status)
        .or_else(|| run::status_from_exit(exit))
    {
        let upstream = status >= 500 || matches!(status, 408 | 429 | 499);
        return if upstream {
            Failure::new(
                ErrorKind::UpstreamError,
                format!("the Gemini API failed (HTTP {status})"),
                message,
            )
        } else {
            Failure::new(
                ErrorKind::RequestRejected,
                format!("the Gemini API rejected the request (HTTP {status})"),
                message,
            )
        };
    }
    // Not the JSON lines: they carry the prompt and the reply, which may
    // well talk about `fetch failed`.
    let network_evidence = fatal
        .into_iter()
        .chain(plain_lines(e.last_lines))
        .any(is_network_error);
    if network_evidence {
        return Failure::new(
            ErrorKind::NetworkError,
            "the Gemini API could not be reached",
            message,
        );
    }
    if let Some(empty) = e
        .reply
        .errors
        .iter()
        .find(|err| contains(&err.message.to_ascii_lowercase(), "empty response"))
    {
        return Failure::new(
            ErrorKind::EmptyResponse,
            "Gemini returned an empty response",
            empty.message.clone(),
        );
    }
    if exit == Some(41) {
        // Gemini CLI says what is missing, then what to do: keep both.
        let said = meaningful_lines(e.last_lines, 2);
        return Failure::new(
            ErrorKind::AuthError,
            "Gemini CLI could not authenticate (set GEMINI_API_KEY or sign in)",
            if said.is_empty() {
                message
            } else {
                said.join(" ")
            },
        );
    }
    let summary = match (exit, e.reply.status) {
        (Some(0), ReplyStatus::Incomplete) => "Gemini CLI exited without a final result".to_owned(),
        (Some(0), _) => "Gemini CLI reported a failed run".to_owned(),
        (Some(code), ReplyStatus::Success) => {
            format!("Gemini CLI exited with code {code} after reporting success")
        }
        (Some(code), _) => format!("Gemini CLI failed (exit code {code})"),
        (None, _) => format!("Gemini CLI was ended by {}", signal_text(e.end)),
    };
    Failure::new(ErrorKind::ProcessError, summary, message)
}

fn exit_text(end: &AttemptEnd) -> String {
    match end.exit_code {
        Some(code) => format!("exited with code {code}"),
        None => format!("ended by {}", signal_text(end)),
    }
}

fn signal_text(end: &AttemptEnd) -> &str {
    end.signal.as_deref().unwrap_or("an unknown signal")
}

/// The lines that are not JSON events (stderr's, mostly).
fn plain_lines(lines: &[String]) -> impl Iterator<Item = &str> {
    lines
        .iter()
        .map(|l| l.as_str())
        .filter(|l| !l.starts_with('{'))
}

/// The last line that says something: not a JSON event, not a stack frame.
fn last_meaningful_line(lines: &[String]) -> Option<&str> {
    meaningful_lines(lines, 1).pop()
}

/// The last `n` such lines, in order.
fn meaningful_lines(lines: &[String], n: usize) -> Vec<&str> {
    let mut found: Vec<&str> = lines
        .iter()
        .rev()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('{') && !l.starts_with("at ") && *l != "}")
        .take(n)
        .collect();
    found.reverse();
    found
}

/// The HTTP status in an API error message: `"code":500` (the API's JSON,
/// possibly escaped) or `status: 500` — Gemini CLI's signs in the runner's
/// table.
pub fn http_status(message: &str) -> Option<u16> {
    run::http_status(
        message,
        signs(OutputFormat::GeminiStreamJson).status_prefixes,
    )
}

fn is_network_error(text: &str) -> bool {
    const MARKERS: [&str; 8] = [
        "fetch failed",
        "ECONNREFUSED",
        "ECONNRESET",
        "ETIMEDOUT",
        "ENOTFOUND",
        "EAI_AGAIN",
        "socket hang up",
        "UND_ERR_",
    ];
    MARKERS.iter().any(|m| contains(text, m))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_output::parse_agent_output;

    fn fixture(name: &str) -> AgentReply {
        let path = format!("{}/tests/fixtures/cli/{name}", env!("CARGO_MANIFEST_DIR"));
        parse_agent_output("google-gemini", &std::fs::read(path).unwrap())
    }

    fn judge(
        end: AttemptEnd,
        reply: &AgentReply,
        lines: &[&str],
        session: Option<&str>,
    ) -> Verdict {
        let lines: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        classify(&Evidence {
            end: &end,
            reply,
            last_lines: &lines,
            command: "gemini",
            session_id: session,
            limits: Limits::default(),
        })
    }

    fn exited(code: i32) -> AttemptEnd {
        AttemptEnd {
            exit_code: Some(code),
            ..Default::default()
        }
    }

    fn failure_of(v: Verdict) -> Failure {
        match v {
            Verdict::Failure(f) => f,
            other => panic!("expected a failure, got {other:?}"),
        }
    }

    #[test]
    fn a_reported_success_with_exit_zero_is_success() {
        let reply = fixture("gemini-plain.jsonl");
        assert_eq!(
            judge(exited(0), &reply, &[], None),
            Verdict::Success {
                session_id: Some("c93265c3-ff3f-4d07-b32a-67a5ff5c389a".into()),
                text: "Mock reply: use React for the dashboard.".into()
            }
        );
        let f = failure_of(judge(exited(3), &reply, &[], None));
        assert_eq!(f.kind, ErrorKind::ProcessError);
        assert_eq!(
            f.summary,
            "Gemini CLI exited with code 3 after reporting success"
        );
    }

    #[test]
    fn api_errors_by_status() {
        let rejected = failure_of(judge(
            exited(144),
            &fixture("gemini-error.jsonl"),
            &[],
            None,
        ));
        assert_eq!(rejected.kind, ErrorKind::RequestRejected);
        assert_eq!(
            rejected.summary,
            "the Gemini API rejected the request (HTTP 400)"
        );
        assert!(rejected.message.contains("Mock rejects this request"));

        let text = r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"Mock internal error\"}}]"}}"#;
        let reply = parse_agent_output("google-gemini", text.as_bytes());
        let upstream = failure_of(judge(exited(244), &reply, &[], None));
        assert_eq!(upstream.kind, ErrorKind::UpstreamError);
        assert_eq!(upstream.summary, "the Gemini API failed (HTTP 500)");
        // Without a message, the exit code tells the status.
        let bare = parse_agent_output("google-gemini", b"");
        assert_eq!(
            failure_of(judge(exited(173), &bare, &[], None)).kind,
            ErrorKind::UpstreamError
        );
        assert_eq!(
            failure_of(judge(exited(147), &bare, &[], None)).kind,
            ErrorKind::RequestRejected
        );
        assert!(ErrorKind::UpstreamError.is_retried());
        assert!(!ErrorKind::RequestRejected.is_retried());
    }

    #[test]
    fn status_parsing() {
        assert_eq!(
            http_status(r#"[API Error: {"error":{"code":503,"message":"x"}}]"#),
            Some(503)
        );
        assert_eq!(http_status(r#"{\"code\": 429}"#), Some(429));
        assert_eq!(http_status("ApiError: x\n  status: 404"), Some(404));
        assert_eq!(http_status(r#""code":12 "code":4000 "code":"x""#), None);
        assert_eq!(http_status("no status"), None);
    }

    #[test]
    fn unreachable_empty_auth_and_resume() {
        let text = r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: exception TypeError: fetch failed sending request]"}}"#;
        let reply = parse_agent_output("google-gemini", text.as_bytes());
        let net = failure_of(judge(exited(1), &reply, &[], None));
        assert_eq!(net.kind, ErrorKind::NetworkError);
        assert!(net.message.contains("fetch failed"));
        // Our prompt (echoed on stdout) may say it: that is no evidence.
        let bare = parse_agent_output("google-gemini", b"");
        let echo =
            [r#"{"type":"message","role":"user","content":"Why does fetch failed show up?"}"#];
        assert_eq!(
            failure_of(judge(exited(1), &bare, &echo, None)).kind,
            ErrorKind::ProcessError
        );
        let stderr = ["Error: connect ECONNREFUSED 127.0.0.1:9"];
        assert_eq!(
            failure_of(judge(exited(1), &bare, &stderr, None)).kind,
            ErrorKind::NetworkError
        );

        let empty = failure_of(judge(exited(0), &fixture("gemini-empty.jsonl"), &[], None));
        assert_eq!(empty.kind, ErrorKind::EmptyResponse);
        assert!(empty
            .message
            .starts_with("The model returned an empty response"));

        let bare = parse_agent_output("google-gemini", b"");
        let auth_lines = [
            "YOLO mode is enabled.",
            "When using Gemini API, you must specify the GEMINI_API_KEY environment variable.",
            "Update your environment and try again (no reload needed if using .env)!",
        ];
        let auth = failure_of(judge(exited(41), &bare, &auth_lines, None));
        assert_eq!(auth.kind, ErrorKind::AuthError);
        assert_eq!(auth.message, format!("{} {}", auth_lines[1], auth_lines[2]));
        let silent = failure_of(judge(exited(41), &bare, &[], None));
        assert_eq!(silent.message, "exited with code 41");

        let lines = [
            "Warning: Basic terminal detected",
            "Error resuming session: No previous sessions found for this project.",
        ];
        let resume = failure_of(judge(exited(42), &bare, &lines, Some("0e3b3c9a")));
        assert_eq!(resume.kind, ErrorKind::SessionNotFound);
        assert_eq!(resume.message, lines[1]);
        assert!(resume
            .summary
            .starts_with("SESSION_ID 0e3b3c9a cannot be resumed"));
        // Without a SESSION_ID that line cannot be about ours.
        assert_eq!(
            failure_of(judge(exited(42), &bare, &lines, None)).kind,
            ErrorKind::ProcessError
        );
    }

    #[test]
    fn stops_spawn_failures_and_crashes() {
        let bare = parse_agent_output("google-gemini", b"");
        let stop = |s| AttemptEnd {
            stopped: Some(s),
            signal: Some("SIGKILL".into()),
            ..Default::default()
        };
        let idle = failure_of(judge(stop(StopReason::IdleTimeout), &bare, &[], None));
        assert_eq!(idle.kind, ErrorKind::IdleTimeout);
        assert_eq!(
            idle.summary,
            "Gemini CLI printed nothing for 300 s and was stopped (idle timeout)"
        );
        assert_eq!(
            failure_of(judge(stop(StopReason::MaxDuration), &bare, &[], None)).kind,
            ErrorKind::Timeout
        );
        assert_eq!(
            failure_of(judge(stop(StopReason::Aborted), &bare, &[], None)).kind,
            ErrorKind::Aborted
        );

        let enoent = AttemptEnd {
            spawn_error: Some("ENOENT".into()),
            ..Default::default()
        };
        let missing = failure_of(judge(enoent, &bare, &[], None));
        assert_eq!(missing.kind, ErrorKind::CommandNotFound);
        assert_eq!(missing.message, "spawn gemini ENOENT");
        assert!(missing.summary.contains("`gemini` is not on PATH"));
        assert_eq!(
            failure_of(judge(
                exited(127),
                &bare,
                &["env: 'node': No such file or directory"],
                None
            ))
            .kind,
            ErrorKind::CommandNotFound
        );
        let eacces = AttemptEnd {
            spawn_error: Some("EACCES".into()),
            ..Default::default()
        };
        assert_eq!(
            failure_of(judge(eacces, &bare, &[], None)).kind,
            ErrorKind::ProcessError
        );

        let killed = AttemptEnd {
            signal: Some("SIGSEGV".into()),
            ..Default::default()
        };
        let crash = failure_of(judge(
            killed,
            &bare,
            &[
                "{\"type\":\"init\"}",
                "    at foo (x.js:1)",
                "Segmentation fault",
                "",
            ],
            None,
        ));
        assert_eq!(crash.kind, ErrorKind::ProcessError);
        assert_eq!(crash.summary, "Gemini CLI was ended by SIGSEGV");
        assert_eq!(crash.message, "Segmentation fault");
        let silent = failure_of(judge(exited(0), &bare, &[], None));
        assert_eq!(silent.summary, "Gemini CLI exited without a final result");
        assert_eq!(silent.message, "exited with code 0");
    }

    #[test]
    fn attempt_end_from_the_runner() {
        let end = AttemptEnd::new(None, Some("SIGKILL".into()), None, Some("timeout")).unwrap();
        assert_eq!(end.stopped, Some(StopReason::MaxDuration));
        assert_eq!(end.signal.as_deref(), Some("SIGKILL"));
        assert_eq!(
            AttemptEnd::new(None, None, None, Some("late"))
                .unwrap_err()
                .message(),
            "stopped must be 'idle_timeout', 'timeout' or 'aborted', got \"late\""
        );
    }
}
