//! `AgentRun` (SPEC §10): what `runAgent` resolves.

use std::borrow::Cow;

use serde::Serialize;

use crate::agent_output::AgentReply;
use crate::error_kind::AgentErrorKind;

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
    /// What the failed attempt streamed before it failed: never the reply.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}
