//! What a turn came to: the prompt's answer (its `stopReason`, or the
//! JSON-RPC error of a request), how the process ended if it did, and what
//! the reply parser read, judged into success or one of the run's error
//! kinds, with the same words over ACP as over the CLI.

use serde_json::Value;

use crate::agent_output::{AgentReply, ReplyError, ReplyStatus};
use crate::agents::AgentSpec;
use crate::attempt::{
    classify, names_connection_failure, rejection, AgentErrorKind, AttemptEnd, Evidence, Failure,
    RunOptions,
};

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
        // As the CLI runner reads a failed run: the HTTP status, the words
        // (the process may still run: no exit code is made up for it).
        if let Some(failure) = by_status(agent, reply) {
            return Err(failure);
        }
        let ev = evidence(agent, options, end, reply, last_lines, command);
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
            if let Some(failure) = by_status(agent, reply) {
                return Err(failure);
            }
            let ev = evidence(agent, options, end, reply, last_lines, command);
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
/// 400 that says why, such as a bad key, is what its words say), unless
/// the error's words say the connection failed: Gemini CLI over ACP
/// answers `fetch failed` with the JSON-RPC code 500, and no HTTP answer
/// came (left to the classifier).
fn by_status(agent: &AgentSpec, reply: &AgentReply) -> Option<Failure> {
    let status = u16::try_from(reply.api_error_status?).ok()?;
    let said = reply
        .errors
        .iter()
        .rev()
        .find(|e| e.fatal)
        .map_or("", |e| e.message.as_str());
    if names_connection_failure(agent.signs, said) {
        return None;
    }
    let kind = match AgentErrorKind::from_http_status(status) {
        AgentErrorKind::RequestRejected => rejection(agent.signs, said),
        kind => kind,
    };
    let name = agent.name;
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

impl super::Engine {
    /// The process ended before it answered `what` (`initialize`, the
    /// session request): what it printed last says why.
    pub(super) fn early_failure(&self, end: &AttemptEnd, what: &str) -> Failure {
        self.judge_end(end, None, |evidence| {
            crate::attempt::ended_early(evidence, what)
        })
    }

    /// `judge` of what the process's end, `limits` (the deadlines in force:
    /// the turn's, else the options') and its last lines tell.
    pub(super) fn judge_end(
        &self,
        end: &AttemptEnd,
        limits: Option<&super::TurnLimits>,
        judge: impl FnOnce(&crate::attempt::Evidence) -> Failure,
    ) -> Failure {
        let agent = self.agent();
        let empty = crate::agent_output::parse_agent_output(agent.agent_type, b"");
        let last_lines = self.tail.clone().finish();
        let options = self.options();
        judge(&crate::attempt::Evidence {
            agent,
            end,
            reply: &empty,
            last_lines: &last_lines,
            command: self.cfg.command_named(),
            requested_session: None,
            idle_timeout_s: limits.map_or(options.idle_timeout_ms, |l| l.idle_ms) / 1000,
            max_duration_s: limits.map_or(options.max_duration_ms, |l| l.max_ms) / 1000,
            platform: options.platform,
        })
    }
}

#[cfg(test)]
mod tests {
    //! What a failed ACP turn comes to, from the lines real agents sent
    //! against the mocks (nothing listening on the port, HTTP 400 and 500).
    use super::*;
    use crate::agent_output::{AgentOutputParser, Protocol, TextForm};
    use serde_json::json;

    /// The turn's outcome when the prompt was answered with `error` after
    /// the session updates `updates` (ACP lines).
    fn prompt_failed(agent_type: &str, updates: &str, error: Value) -> Failure {
        let agent = crate::agents::find(agent_type).unwrap();
        let options = RunOptions::read(&json!({"cd": "/w"}), "agent").unwrap();
        let response = json!({"jsonrpc": "2.0", "id": 3, "error": error}).to_string();
        let mut parser =
            AgentOutputParser::for_protocol(agent_type, Protocol::Acp, false, TextForm::Utf8);
        parser.push_str(&format!("{updates}{response}\n"));
        let mut reply = parser.finish();
        let lines = vec![response];
        let failed = Some((Stage::Prompt, error));
        let end = AttemptEnd::default();
        judge(
            agent, &options, &end, &mut reply, &lines, &None, &failed, None, 0, "agent",
        )
        .unwrap_err()
    }

    fn chunk(text: &str) -> String {
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}}).to_string() + "\n"
    }

    #[test]
    fn nothing_listening_is_a_network_error_whatever_code_the_agent_gives() {
        // Gemini CLI answers with the JSON-RPC code 500: no HTTP answer came.
        let gemini = prompt_failed(
            "google-gemini",
            "",
            json!({"code": 500, "message": "exception TypeError: fetch failed sending request"}),
        );
        assert_eq!(
            gemini.kind,
            AgentErrorKind::NetworkError,
            "{}",
            gemini.message
        );
        assert!(!gemini.message.contains("HTTP 500"), "{}", gemini.message);
        // Claude's adapter: the text, then the error marked `server_error`;
        // the process did not exit, and the message says no exit code.
        let text =
            "API Error: Connection refused — a firewall or proxy may be blocking it (ECONNREFUSED)";
        let claude = prompt_failed(
            "claude-code",
            &chunk(text),
            json!({"code": -32603, "message": format!("Internal error: {text}"), "data": {"errorKind": "server_error"}}),
        );
        assert_eq!(
            claude.kind,
            AgentErrorKind::NetworkError,
            "{}",
            claude.message
        );
        assert!(!claude.message.contains("exit code"), "{}", claude.message);
        assert!(claude.kind.is_retryable());
        // Cline (Bun's wording), Factory Droid (the OpenAI SDK's).
        let cline = prompt_failed(
            "cline",
            "",
            json!({"code": -32603, "message": "Internal error: Cannot connect to API: Unable to connect. Is the computer able to access the url? (ConnectionRefused)"}),
        );
        assert_eq!(
            cline.kind,
            AgentErrorKind::NetworkError,
            "{}",
            cline.message
        );
        let droid = prompt_failed(
            "factory-droid",
            "",
            json!({"code": -32603, "message": "Internal error", "data": "Agent error: Connection error."}),
        );
        assert_eq!(
            droid.kind,
            AgentErrorKind::NetworkError,
            "{}",
            droid.message
        );
        // A status in the words is an HTTP answer: a proxy's 502.
        let proxy = prompt_failed(
            "claude-code",
            "",
            json!({"code": -32603, "message": "Internal error: API Error: 502 upstream connect error: Connection refused"}),
        );
        assert_eq!(
            proxy.kind,
            AgentErrorKind::UpstreamError,
            "{}",
            proxy.message
        );
    }

    #[test]
    fn an_http_400_is_request_rejected_with_or_without_its_status() {
        // Gemini CLI: the JSON-RPC code is the status, the message the API's body.
        let gemini = prompt_failed(
            "google-gemini",
            "",
            json!({"code": 400, "message": "{\"error\":{\"code\":400,\"message\":\"Mock rejects this request: temperature is out of range.\",\"status\":\"INVALID_ARGUMENT\"}}"}),
        );
        assert_eq!(
            gemini.kind,
            AgentErrorKind::RequestRejected,
            "{}",
            gemini.message
        );
        assert!(gemini.message.contains("HTTP 400"), "{}", gemini.message);
        // ... unless its words say more: a bad key.
        let key = prompt_failed(
            "google-gemini",
            "",
            json!({"code": 400, "message": "API key not valid. Please pass a valid API key."}),
        );
        assert_eq!(key.kind, AgentErrorKind::AuthError, "{}", key.message);
        // Qwen Code: the status opens `data.details`.
        let qwen = prompt_failed(
            "qwen-code",
            "",
            json!({"code": -32603, "message": "Internal error", "data": {"details": "400 Mock rejects this request: bad parameter."}}),
        );
        assert_eq!(
            qwen.kind,
            AgentErrorKind::RequestRejected,
            "{}",
            qwen.message
        );
        // opencode and Cline pass the API's message on without its status.
        let opencode = prompt_failed(
            "opencode",
            "",
            json!({"code": -32603, "message": "Internal error: Mock rejects this request: bad parameter.", "data": {"service": "session", "errorName": "APIError"}}),
        );
        assert_eq!(
            opencode.kind,
            AgentErrorKind::RequestRejected,
            "{}",
            opencode.message
        );
        let cline = prompt_failed(
            "cline",
            "",
            json!({"code": -32603, "message": "Internal error: Mock rejects this request: bad parameter.", "data": {"message": "Mock rejects this request: bad parameter."}}),
        );
        assert_eq!(
            cline.kind,
            AgentErrorKind::RequestRejected,
            "{}",
            cline.message
        );
        // Their 5xx, after their own retries, in a 5xx body's words.
        let cline = prompt_failed(
            "cline",
            "",
            json!({"code": -32603, "message": "Internal error: Mock server error: the model is unavailable."}),
        );
        assert_eq!(
            cline.kind,
            AgentErrorKind::UpstreamError,
            "{}",
            cline.message
        );
        // Another agent's unexplained error stays a process error, in true words.
        let other = prompt_failed(
            "claude-code",
            "",
            json!({"code": -32603, "message": "Internal error: something broke"}),
        );
        assert_eq!(
            other.kind,
            AgentErrorKind::ProcessError,
            "{}",
            other.message
        );
        assert_eq!(
            other.message,
            "Claude Code failed: Internal error: something broke"
        );
    }
}
