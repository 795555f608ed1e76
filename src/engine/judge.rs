//! What a turn came to: the prompt's answer (its `stopReason`, or the
//! JSON-RPC error of a request), how the process ended if it did, and what
//! the reply parser read, judged into success or one of the run's error
//! kinds, with the same words over ACP as over the CLI.

use serde_json::Value;

use crate::agent_output::{AgentReply, ReplyError, ReplyStatus};
use crate::agents::AgentSpec;
use crate::run::{classify, AgentErrorKind, AttemptEnd, Evidence, Failure, RunOptions};

/// Where a JSON-RPC request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Initialize,
    Session,
    Prompt,
}

/// What one attempt came to.
#[allow(clippy::too_many_arguments)]
pub fn judge(
    agent: &'static AgentSpec,
    options: &RunOptions,
    end: &AttemptEnd,
    reply: &mut AgentReply,
    last_lines: &[String],
    stop_reason: &Option<String>,
    failed: &Option<(Stage, Value)>,
    decided: Option<Failure>,
    rejected: u32,
    command: &str,
) -> std::result::Result<(), Failure> {
    let name = agent.name;
    let asked = options.session_id.as_deref();
    // Stopped by the runner, or never started: the CLI runner's words.
    if end.stopped.is_some() || end.spawn_error.is_some() {
        return classify(&evidence(agent, options, end, reply, last_lines, command));
    }
    if let Some(failure) = decided {
        return Err(failure);
    }
    if let Some((stage, error)) = failed {
        let message = error_text(error);
        reply.status = ReplyStatus::Error;
        // The parser read the error response of the prompt; a request
        // before it (initialize, the session) it did not see.
        let seen = reply
            .errors
            .iter()
            .any(|e| e.fatal && message.contains(&e.message));
        if !seen {
            reply.errors.push(ReplyError {
                message: message.clone(),
                fatal: true,
                source: "jsonrpc".to_owned(),
                code: None,
            });
        }
        if *stage == Stage::Session {
            if let Some(asked) = asked {
                return Err(Failure::new(
                    AgentErrorKind::SessionNotFound,
                    format!("{name} cannot resume session {asked}: {message}"),
                ));
            }
        }
        // As the CLI runner reads a failed run: the HTTP status, the words.
        let failed_end = AttemptEnd {
            exit_code: Some(1),
            ..end.clone()
        };
        if let Some(failure) = by_status(name, reply) {
            return Err(failure);
        }
        let ev = evidence(agent, options, &failed_end, reply, last_lines, command);
        let failure = classify(&ev).err().unwrap_or_else(|| {
            Failure::new(
                AgentErrorKind::ProcessError,
                format!("{name} failed: {message}"),
            )
        });
        return Err(failure);
    }
    let Some(stop) = stop_reason else {
        reply.status = ReplyStatus::Incomplete;
        let ev = evidence(agent, options, end, reply, last_lines, command);
        return Err(classify(&ev).err().unwrap_or_else(|| {
            Failure::new(
                AgentErrorKind::Incomplete,
                format!("{name} ended without answering the prompt"),
            )
        }));
    };
    if let (Some(asked), Some(got)) = (asked, reply.session_id.as_deref()) {
        if asked != got {
            return Err(Failure::new(
                AgentErrorKind::SessionNotFound,
                format!("{name} did not resume session {asked}: it answered in session {got}"),
            ));
        }
    }
    let fail = |kind: AgentErrorKind, what: String| Err(Failure::new(kind, what));
    match stop.as_str() {
        // A turn that ended normally after the agent reported a fatal
        // error as its message (the parser's errors) failed.
        "end_turn" if reply.errors.iter().any(|e| e.fatal) => {
            reply.status = ReplyStatus::Error;
            let failed_end = AttemptEnd {
                exit_code: Some(1),
                ..end.clone()
            };
            if let Some(failure) = by_status(name, reply) {
                return Err(failure);
            }
            let ev = evidence(agent, options, &failed_end, reply, last_lines, command);
            Err(classify(&ev).err().unwrap_or_else(|| {
                Failure::new(
                    AgentErrorKind::ProcessError,
                    format!("{name} reported an error"),
                )
            }))
        }
        "end_turn" => {
            reply.status = ReplyStatus::Success;
            Ok(())
        }
        "cancelled" => {
            reply.status = ReplyStatus::Incomplete;
            let why = if rejected > 0 {
                format!(" after {rejected} permission request(s) were rejected")
            } else {
                String::new()
            };
            fail(
                AgentErrorKind::Incomplete,
                format!("{name} ended the turn cancelled{why}"),
            )
        }
        "refusal" => {
            reply.status = ReplyStatus::Error;
            fail(
                AgentErrorKind::RequestRejected,
                format!("{name}: the model refused to answer (stopReason refusal)"),
            )
        }
        other => {
            reply.status = ReplyStatus::Incomplete;
            fail(
                AgentErrorKind::Incomplete,
                format!("{name} stopped before the end of its turn (stopReason {other})"),
            )
        }
    }
}

/// The kind of the HTTP status the parser read from the agent's error (a
/// 400 that says why, such as a bad key, is left to the classifier's words).
fn by_status(name: &str, reply: &AgentReply) -> Option<Failure> {
    let status = u16::try_from(reply.api_error_status?).ok()?;
    let kind = AgentErrorKind::from_http_status(status);
    if kind == AgentErrorKind::RequestRejected {
        return None;
    }
    let said = reply
        .errors
        .iter()
        .rev()
        .find(|e| e.fatal)
        .map_or("", |e| e.message.as_str());
    Some(Failure::new(
        kind,
        format!("{name}: the API answered HTTP {status}: {said}"),
    ))
}

fn evidence<'a>(
    agent: &'static AgentSpec,
    options: &'a RunOptions,
    end: &'a AttemptEnd,
    reply: &'a AgentReply,
    last_lines: &'a [String],
    command: &'a str,
) -> Evidence<'a> {
    Evidence {
        agent,
        end,
        reply,
        last_lines,
        command,
        requested_session: None,
        idle_timeout_s: options.idle_timeout_ms / 1000,
        max_duration_s: options.max_duration_ms / 1000,
        platform: options.platform,
    }
}

/// A JSON-RPC error's words: its message, and `data`'s (`details`, or the
/// whole of it) when it says more.
pub fn error_text(error: &Value) -> String {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("JSON-RPC error");
    let data = match error.get("data") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v
            .get("details")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string()),
    };
    if data.is_empty() || message.contains(&data) {
        message.to_owned()
    } else {
        format!("{message}: {data}")
    }
}
