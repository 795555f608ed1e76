//! What a turn resolves: `runAgent`'s `AgentRun` with the turn's
//! `stopReason` — the one result of every entry point (runAgent over either
//! protocol, a session's turn, the Gemini tool and the MCP tools, which
//! word it their way).

use serde::Serialize;
use serde_json::Value;

use crate::agent_output::AgentReply;
use crate::attempt::{AgentErrorKind, Failure};

/// What a turn resolves: `runAgent`'s `AgentRun`, and `stopReason`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnResult {
    pub success: bool,
    pub agent_type: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_session_id: Option<String>,
    pub reply: AgentReply,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<TurnError>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    pub duration_ms: u64,
    pub attempts: u32,
    /// How the last attempt's process ended (over the CLI), for a layer
    /// that words the failure itself (the Gemini tool's envelope).
    #[serde(skip)]
    pub end: Option<crate::attempt::AttemptEnd>,
    /// The last attempt's reply events, when the session keeps them (the
    /// Gemini tool's `all_messages`).
    #[serde(skip)]
    pub events: Option<Vec<crate::agent_output::AgentEvent>>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnError {
    pub kind: AgentErrorKind,
    pub message: String,
    pub retryable: bool,
    pub exit_code: Option<i32>,
    pub last_lines: Vec<String>,
    /// With `auth_error` over ACP: the agent's `authMethods`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub auth_methods: Option<Value>,
    /// What the failed attempt streamed before it failed: never the reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

impl TurnResult {
    /// The result of a finished attempt.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        agent_type: &str,
        outcome: std::result::Result<(), Failure>,
        reply: AgentReply,
        stop_reason: Option<String>,
        exit_code: Option<i32>,
        last_lines: Vec<String>,
        requested: Option<&str>,
        attempts: u32,
    ) -> TurnResult {
        let error = outcome.err().map(|f| TurnError {
            kind: f.kind,
            retryable: f.kind.is_retryable(),
            message: f.message,
            exit_code,
            last_lines,
            auth_methods: None,
            text: None,
        });
        TurnResult {
            success: error.is_none(),
            agent_type: agent_type.to_owned(),
            session_id: reply.session_id.clone(),
            requested_session_id: requested.map(str::to_owned),
            reply,
            error,
            stop_reason,
            duration_ms: 0,
            attempts,
            end: None,
            events: None,
        }
    }

    /// As `runAgent`'s `AgentRun` (what the tools' envelopes are made of).
    pub fn as_run(&self) -> crate::attempt::AgentRun<'_> {
        crate::attempt::AgentRun {
            success: self.success,
            agent_type: &self.agent_type,
            session_id: self.session_id.clone(),
            requested_session_id: self.requested_session_id.as_deref(),
            reply: std::borrow::Cow::Borrowed(&self.reply),
            error: self.error.as_ref().map(|e| crate::attempt::RunError {
                kind: e.kind,
                message: e.message.clone(),
                retryable: e.retryable,
                exit_code: e.exit_code,
                last_lines: e.last_lines.clone(),
                text: e.text.clone(),
            }),
            duration_ms: self.duration_ms,
            attempts: self.attempts,
        }
    }

    /// A run of `agent` (an agent type, a definition or a registry entry)
    /// that did not start: `invalid_params` with `message`.
    pub fn invalid_run(agent: &Value, message: &str) -> TurnResult {
        let label = crate::agents::definition::agent_label(agent);
        TurnResult::not_run(&label, |_| super::invalid_failure(message))
    }

    /// A run of `agent` the caller aborted before anything was spawned.
    pub fn aborted_run(agent: &Value) -> TurnResult {
        let label = crate::agents::definition::agent_label(agent);
        TurnResult::not_run(&label, crate::attempt::aborted)
    }

    /// A run that never started, of `agent_type`: `failure` (made with the
    /// agent's name).
    pub fn not_run(agent_type: &str, failure: impl FnOnce(&str) -> Failure) -> TurnResult {
        let name = crate::agents::find(agent_type).map_or("the agent", |a| a.name);
        TurnResult::new(
            agent_type,
            Err(failure(name)),
            crate::agent_output::parse_agent_output(agent_type, b""),
            None,
            None,
            Vec::new(),
            None,
            0,
        )
    }

    /// The error kind, `None` on success.
    pub fn kind(&self) -> Option<AgentErrorKind> {
        self.error.as_ref().map(|e| e.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn runs_that_never_started_carry_the_agent_and_why() {
        let run = TurnResult::invalid_run(&json!("claude-code"), "cd: missing");
        assert_eq!(run.agent_type, "claude-code");
        assert_eq!(run.kind(), Some(AgentErrorKind::InvalidParams));
        assert_eq!(
            run.error.unwrap().message,
            "invalid parameters: cd: missing"
        );
        let run = TurnResult::aborted_run(&json!({ "id": "mine", "command": "mine" }));
        assert_eq!(run.agent_type, "mine");
        assert_eq!(run.kind(), Some(AgentErrorKind::Aborted));
        assert!(run.error.unwrap().message.contains("aborted by the caller"));
    }
}
