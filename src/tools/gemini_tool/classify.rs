//! What one run of Gemini CLI came to, in the tool's words. The kind is not
//! decided here: it is the runner's ([`crate::attempt::classify`] with Gemini
//! CLI's signs, [`crate::attempt::signs`]), so that `runGeminiTool`'s
//! `error_kind` and `runAgent('google-gemini', …)`'s `error.kind` are the
//! same for the same output and end (one taxonomy, [`ErrorKind`] being
//! [`crate::attempt::AgentErrorKind`]). This module writes the envelope's
//! one-line summary (`error`) and the most specific message seen
//! (`error_detail.message`) for that kind.
//!
//! What Gemini CLI 0.61 prints, as read here (seen on the real CLI):
//! - an API error ends with a `result` line `status: "error"` whose message
//!   holds the API's JSON (`"code":500`), and the exit code is the HTTP
//!   status mod 256 (500 → 244, 400 → 144);
//! - an unreachable API: `fetch failed` in that message, exit code 1;
//! - an empty model reply: an `error` line "The model returned an empty
//!   response…", a failed `result`, exit code 0;
//! - `--resume` with a session it cannot find: `Error resuming session: …`
//!   on stderr, exit code 42, before any API call;
//! - exit code 41: no usable authentication; 55: an untrusted folder.

use crate::agent_output::{AgentReply, ReplyStatus};
use crate::agents::GOOGLE_GEMINI;
use crate::attempt;
pub use crate::attempt::{AgentErrorKind as ErrorKind, AttemptEnd, StopReason};
use crate::launch::platform::Platform;

use super::params::{shown, Limits};
use super::search::contains;

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
    /// The system it ran on, when the host said (names the limit of a
    /// spawn refused as too long).
    pub platform: Option<Platform>,
}

/// The runner's verdict on the attempt ([`crate::attempt::classify`] for
/// Gemini CLI), in the tool's words: success only when the CLI reported
/// success, exited 0 and answered in the session asked for.
pub fn classify(e: &Evidence) -> Verdict {
    let outcome = attempt::classify(&attempt::Evidence {
        agent: &GOOGLE_GEMINI,
        end: e.end,
        reply: e.reply,
        last_lines: e.last_lines,
        command: e.command,
        requested_session: e.session_id,
        idle_timeout_s: e.limits.idle_timeout_s,
        max_duration_s: e.limits.max_duration_s,
        platform: e.platform,
    });
    match outcome {
        Ok(()) => Verdict::Success {
            session_id: e.reply.session_id.clone(),
            text: e.reply.text.clone(),
        },
        Err(failure) => Verdict::Failure(describe(&failure, e)),
    }
}

/// The envelope's summary and message for the run's `failure` (its kind
/// kept).
pub fn describe(failure: &attempt::Failure, e: &Evidence) -> Failure {
    let kind = failure.kind;
    let said = said(e);
    let status = http_status_of(e);
    let with = |summary: String| Failure::new(kind, summary, said.clone());
    let api = |what: &str| match status {
        Some(status) => format!("{what} (HTTP {status})"),
        None => what.to_owned(),
    };
    match kind {
        ErrorKind::IdleTimeout => Failure::new(
            kind,
            format!(
                "Gemini CLI printed nothing for {} s and was stopped (idle timeout)",
                e.limits.idle_timeout_s
            ),
            format!(
                "no output for {} s; the process group was killed",
                e.limits.idle_timeout_s
            ),
        ),
        ErrorKind::Timeout => Failure::new(
            kind,
            format!(
                "the call reached max_duration ({} s) and Gemini CLI was stopped",
                e.limits.max_duration_s
            ),
            format!(
                "still running after max_duration ({} s); the process group was killed",
                e.limits.max_duration_s
            ),
        ),
        ErrorKind::Aborted => aborted(),
        ErrorKind::CommandNotFound => {
            let message = match e.end.spawn_error.as_deref() {
                Some(code) => format!("spawn {} {code}", e.command),
                None => said,
            };
            command_not_found(e.command, message)
        }
        ErrorKind::SpawnFailed => Failure::new(
            kind,
            format!(
                "Gemini CLI could not be started ({})",
                e.end.spawn_error.as_deref().unwrap_or("refused")
            ),
            // The runner's message says why (which limit, which permission).
            failure.message.clone(),
        ),
        ErrorKind::SessionNotFound => {
            let id = e.session_id.map(shown).unwrap_or_default();
            let line = plain_lines(e.last_lines)
                .find(|l| contains(l, "Error resuming session"))
                .map(str::to_owned);
            Failure::new(
                kind,
                format!(
                    "SESSION_ID {id} cannot be resumed: start a new session (leave SESSION_ID out) and give the context again"
                ),
                // Else another session answered: the runner says which.
                line.unwrap_or_else(|| failure.message.clone()),
            )
        }
        ErrorKind::AuthError => match status {
            Some(status) => with(format!(
                "the Gemini API refused the credentials (HTTP {status}): check GEMINI_API_KEY"
            )),
            None => {
                // Gemini CLI says what is missing, then what to do: keep both.
                let lines = meaningful_lines(e.last_lines, 2);
                Failure::new(
                    kind,
                    "Gemini CLI could not authenticate (set GEMINI_API_KEY or sign in)",
                    if lines.is_empty() || fatal(e).is_some() {
                        said
                    } else {
                        lines.join(" ")
                    },
                )
            }
        },
        ErrorKind::QuotaExceeded => with(api("the Gemini API is rate limited or out of quota")),
        ErrorKind::ContextTooLong => with(api("the prompt does not fit the model's context")),
        ErrorKind::UpstreamError => with(api("the Gemini API failed")),
        ErrorKind::RequestRejected => with(api("the Gemini API rejected the request")),
        ErrorKind::NetworkError => with("the Gemini API could not be reached".to_owned()),
        ErrorKind::EmptyResponse => {
            let empty = e
                .reply
                .errors
                .iter()
                .find(|err| contains(&err.message.to_ascii_lowercase(), "empty response"))
                .map(|err| err.message.clone());
            Failure::new(
                kind,
                "Gemini returned an empty response",
                empty.unwrap_or(said),
            )
        }
        ErrorKind::UntrustedFolder => {
            with("Gemini CLI refused to work in cd (an untrusted folder)".to_owned())
        }
        ErrorKind::Incomplete => with(match e.end.exit_code {
            Some(0) => "Gemini CLI exited without a final result".to_owned(),
            Some(code) => format!("Gemini CLI exited with code {code} without a final result"),
            None => format!(
                "Gemini CLI was ended by {} before its final result",
                signal_text(e.end)
            ),
        }),
        ErrorKind::InvalidParams => {
            let message = failure
                .message
                .strip_prefix("invalid parameters: ")
                .unwrap_or(&failure.message);
            Failure::new(kind, failure.message.clone(), message)
        }
        ErrorKind::ProcessError => with(match (e.end.exit_code, e.reply.status) {
            (Some(0), _) => "Gemini CLI reported a failed run".to_owned(),
            (Some(code), ReplyStatus::Success) => {
                format!("Gemini CLI exited with code {code} after reporting success")
            }
            (Some(code), _) => format!("Gemini CLI failed (exit code {code})"),
            (None, _) => format!("Gemini CLI was ended by {}", signal_text(e.end)),
        }),
        // The tool asks for no output schema; worded as the run said it.
        ErrorKind::InvalidOutput => Failure::new(kind, failure.message.clone(), said),
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

/// The last fatal error's message.
fn fatal<'a>(e: &Evidence<'a>) -> Option<&'a str> {
    e.reply
        .errors
        .iter()
        .filter(|err| err.fatal)
        .map(|err| err.message.as_str())
        .next_back()
}

/// The most specific message seen: the last fatal error, else the last
/// meaningful line, else how the process ended.
fn said(e: &Evidence) -> String {
    fatal(e)
        .or_else(|| last_meaningful_line(e.last_lines))
        .map(str::to_owned)
        .unwrap_or_else(|| exit_text(e.end))
}

/// The HTTP status the API answered, for the summary: read as the runner
/// reads it (the fatal errors, then the plain lines, then the exit code).
fn http_status_of(e: &Evidence) -> Option<u16> {
    e.reply
        .errors
        .iter()
        .rev()
        .filter(|err| err.fatal)
        .map(|err| err.message.as_str())
        .chain(plain_lines(e.last_lines))
        .find_map(http_status)
        .or_else(|| attempt::status_from_exit(e.end.exit_code))
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
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('{'))
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
    attempt::http_status(message, GOOGLE_GEMINI.signs.status_prefixes)
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
            platform: None,
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

    fn api_error(code: u16, message: &str) -> AgentReply {
        let text = format!(
            r#"{{"type":"result","status":"error","error":{{"type":"unknown","message":"[API Error: {{\"error\":{{\"code\":{code},\"message\":\"{message}\"}}}}]"}}}}"#
        );
        parse_agent_output("google-gemini", text.as_bytes())
    }

    #[test]
    fn api_errors_by_status() {
        // A 400 about the key is the runner's auth_error, in the tool's words.
        let key = failure_of(judge(
            exited(144),
            &fixture("gemini-error.jsonl"),
            &[],
            None,
        ));
        assert_eq!(key.kind, ErrorKind::AuthError);
        assert_eq!(
            key.summary,
            "the Gemini API refused the credentials (HTTP 400): check GEMINI_API_KEY"
        );
        assert!(key.message.contains("Mock rejects this request"));
        let rejected = failure_of(judge(
            exited(144),
            &api_error(
                400,
                "Mock rejects this request: temperature is out of range.",
            ),
            &[],
            None,
        ));
        assert_eq!(rejected.kind, ErrorKind::RequestRejected);
        assert_eq!(
            rejected.summary,
            "the Gemini API rejected the request (HTTP 400)"
        );
        assert!(rejected.message.contains("temperature is out of range"));
        let quota = failure_of(judge(
            exited(173),
            &api_error(429, "Resource has been exhausted (e.g. check quota)."),
            &[],
            None,
        ));
        assert_eq!(quota.kind, ErrorKind::QuotaExceeded);
        assert_eq!(
            quota.summary,
            "the Gemini API is rate limited or out of quota (HTTP 429)"
        );
        let long = failure_of(judge(
            exited(144),
            &api_error(400, "The input token count (1200000) exceeds the maximum number of tokens allowed (1048576)."),
            &[],
            None,
        ));
        assert_eq!(long.kind, ErrorKind::ContextTooLong);
        assert_eq!(
            long.summary,
            "the prompt does not fit the model's context (HTTP 400)"
        );

        let text = r#"{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"Mock internal error\"}}]"}}"#;
        let reply = parse_agent_output("google-gemini", text.as_bytes());
        let upstream = failure_of(judge(exited(244), &reply, &[], None));
        assert_eq!(upstream.kind, ErrorKind::UpstreamError);
        assert_eq!(upstream.summary, "the Gemini API failed (HTTP 500)");
        // Without a message, the exit code tells the status.
        let bare = parse_agent_output("google-gemini", b"");
        for (exit, kind) in [
            (244, ErrorKind::UpstreamError),
            (173, ErrorKind::QuotaExceeded),
            (145, ErrorKind::AuthError),
            (147, ErrorKind::AuthError),
            (148, ErrorKind::RequestRejected),
        ] {
            let f = failure_of(judge(exited(exit), &bare, &[], None));
            assert_eq!(f.kind, kind, "exit {exit}");
            assert!(
                f.summary.contains(&format!("(HTTP {})", exit + 256)),
                "{f:?}"
            );
        }
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
        // No final event and nothing that says why: the runner's incomplete.
        assert_eq!(
            failure_of(judge(exited(1), &bare, &echo, None)).kind,
            ErrorKind::Incomplete
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
            ErrorKind::Incomplete
        );
        // Another session answering is no resume either.
        let other = failure_of(judge(
            exited(0),
            &fixture("gemini-plain.jsonl"),
            &[],
            Some("0e3b3c9a"),
        ));
        assert_eq!(other.kind, ErrorKind::SessionNotFound);
        assert!(
            other.message.contains("answered in a new session"),
            "{other:?}"
        );

        let untrusted = failure_of(judge(
            exited(55),
            &bare,
            &["Gemini CLI is not running in a trusted directory. To proceed, either use `--skip-trust`"],
            None,
        ));
        assert_eq!(untrusted.kind, ErrorKind::UntrustedFolder);
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
        let refused = failure_of(judge(eacces, &bare, &[], None));
        assert_eq!(refused.kind, ErrorKind::SpawnFailed);
        assert_eq!(refused.summary, "Gemini CLI could not be started (EACCES)");
        assert!(refused.message.contains("permission denied"), "{refused:?}");

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
        // Ended before its final event: the runner's incomplete.
        assert_eq!(crash.kind, ErrorKind::Incomplete);
        assert_eq!(
            crash.summary,
            "Gemini CLI was ended by SIGSEGV before its final result"
        );
        assert_eq!(crash.message, "Segmentation fault");
        let silent = failure_of(judge(exited(0), &bare, &[], None));
        assert_eq!(silent.kind, ErrorKind::Incomplete);
        assert_eq!(silent.summary, "Gemini CLI exited without a final result");
        assert_eq!(silent.message, "exited with code 0");
    }
}
