//! `AgentRun` (SPEC §10): what `runAgent` resolves.

use std::borrow::Cow;

use serde::Serialize;

use crate::agent_output::{parse_agent_output, AgentReply};
use crate::error::{AgentContextError, ErrorCode, Result};

use super::classify::Failure;
use crate::error_kind::AgentErrorKind;

/// What a runner's last attempt left: its reply, exit code and last lines.
pub struct LastAttempt<'a> {
    pub reply: &'a AgentReply,
    pub exit_code: Option<i32>,
    pub last_lines: &'a [String],
}

impl<'a> AgentRun<'a> {
    /// The run both runners (over the CLI and over ACP) resolve:
    /// `outcome` is `None` while the run has not ended (an internal error
    /// to ask then); no attempt gives the empty reply.
    pub fn finished(
        agent_type: &'a str,
        outcome: Option<&std::result::Result<(), Failure>>,
        last: Option<LastAttempt<'a>>,
        requested_session_id: Option<&'a str>,
        duration_ms: u64,
        attempts: u32,
    ) -> Result<AgentRun<'a>> {
        let outcome = outcome.ok_or_else(|| {
            AgentContextError::new(
                ErrorCode::Internal,
                "runAgent: the result was asked for before the run ended",
            )
        })?;
        let reply = match &last {
            Some(attempt) => Cow::Borrowed(attempt.reply),
            None => Cow::Owned(parse_agent_output(agent_type, b"")),
        };
        let error = outcome.as_ref().err().map(|f| RunError {
            kind: f.kind,
            message: f.message.clone(),
            retryable: f.kind.is_retryable(),
            exit_code: last.as_ref().and_then(|a| a.exit_code),
            last_lines: last
                .as_ref()
                .map_or_else(Vec::new, |a| a.last_lines.to_vec()),
        });
        Ok(AgentRun {
            success: outcome.is_ok(),
            agent_type,
            session_id: reply.session_id.clone(),
            requested_session_id,
            reply,
            error,
            duration_ms,
            attempts,
        })
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRun<'a> {
    pub success: bool,
    pub agent_type: &'a str,
    /// The session the agent answered in (resume it with `sessionId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The `sessionId` asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub requested_session_id: Option<&'a str>,
    /// The last attempt's reply (§6).
    pub reply: Cow<'a, AgentReply>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<RunError>,
    pub duration_ms: u64,
    pub attempts: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RunError {
    pub kind: AgentErrorKind,
    pub message: String,
    pub retryable: bool,
    /// The last attempt's exit code; `null` when it was not started or
    /// ended by a signal.
    pub exit_code: Option<i32>,
    /// The last lines it printed (stdout and stderr), cleaned.
    pub last_lines: Vec<String>,
}
