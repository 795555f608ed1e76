//! One prompt's turn while it runs (its reply parser, its last lines, its
//! deadlines, how it was stopped) and what it resolves: a [`TurnResult`],
//! `runAgent`'s `AgentRun` with the turn's `stopReason`.

use serde::Serialize;
use serde_json::Value;

use crate::agent_output::{AgentOutputParser, AgentReply, Protocol, TextForm};
use crate::run::{AgentErrorKind, Failure, OutputTail, StopReason};

/// Per-turn settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnLimits {
    /// Without any output for this long the turn is cancelled (`idle_timeout`).
    pub idle_ms: u64,
    /// The whole turn, retries included (`timeout`).
    pub max_ms: u64,
    pub max_retries: u32,
    /// Whether the reply's events are reported (`onEvent`).
    pub events: bool,
}

/// A prompt waiting for its turn, or running.
#[derive(Debug)]
pub struct Turn {
    pub op: u64,
    /// `session/prompt`'s `prompt`: the content blocks.
    pub blocks: Value,
    /// Where the attachments' blocks start in `blocks` (their errors name
    /// `attachments[i]`); `blocks.len()` when there are none.
    pub attachments_from: usize,
    pub limits: TurnLimits,
    pub started_ms: u64,
    pub attempts: u32,
    pub attempt: Option<Attempt>,
    /// The last finished attempt's result, when a retry follows.
    pub last: Option<TurnResult>,
    /// Why the host or a deadline stopped it.
    pub stopped: Option<StopReason>,
    /// The wait before the next attempt ends at this time.
    pub retry_at: Option<u64>,
    /// Sent again once already, after the process was found gone.
    pub resent: bool,
    /// The turn's W3C `traceparent` (`_meta.traceparent` of its prompt;
    /// the session's when none).
    pub trace: Option<String>,
}

/// One attempt at a turn: the prompt sent, its answer awaited.
#[derive(Debug)]
pub struct Attempt {
    pub rpc_id: Option<u64>,
    pub parser: AgentOutputParser,
    pub tail: OutputTail,
    pub stop_reason: Option<String>,
    /// A failed request: where, and its `{ code, message, data }`.
    pub failed: Option<(super::judge::Stage, Value)>,
    /// Decided without the agent's answer (the session cannot be reopened).
    pub decided: Option<Failure>,
    pub rejected: u32,
    pub cancel_sent: bool,
    /// Whether the agent answered anything of this prompt (a line of the
    /// reply, a permission request, a line that is not JSON): stderr and
    /// the session's own state updates do not count.
    pub heard: bool,
    /// No output since then: the idle deadline runs from here.
    pub active_ms: u64,
    /// `session/cancel` was sent at this time: the tree is killed after the grace.
    pub kill_at: Option<u64>,
    /// The agent's own retries of a failed API call seen on stderr.
    pub retries: crate::run::RetryCount,
}

impl Turn {
    pub fn new(op: u64, blocks: Value, limits: TurnLimits) -> Turn {
        let attachments_from = blocks.as_array().map_or(0, Vec::len);
        Turn {
            op,
            blocks,
            attachments_from,
            limits,
            started_ms: 0,
            attempts: 0,
            attempt: None,
            last: None,
            stopped: None,
            retry_at: None,
            resent: false,
            trace: None,
        }
    }

    /// A new attempt at `now`, its parser reading the agent's ACP lines.
    pub fn start_attempt(&mut self, agent_type: &str, now: u64) {
        if self.attempts == 0 {
            self.started_ms = now;
        }
        self.attempts += 1;
        self.retry_at = None;
        self.attempt = Some(Attempt {
            rpc_id: None,
            parser: AgentOutputParser::for_protocol(
                agent_type,
                Protocol::Acp,
                self.limits.events,
                TextForm::Utf8,
            ),
            tail: OutputTail::default(),
            stop_reason: None,
            failed: None,
            decided: None,
            rejected: 0,
            cancel_sent: false,
            heard: false,
            active_ms: now,
            kill_at: None,
            retries: crate::run::RetryCount::new(
                crate::agents::find(agent_type)
                    .map_or(&crate::run::signs::NO_SIGNS, |agent| agent.signs),
                self.limits.max_retries,
            ),
        });
    }

    /// When the turn's deadline (`maxDuration`) passes.
    pub fn deadline(&self) -> u64 {
        self.started_ms.saturating_add(self.limits.max_ms)
    }

    pub fn times(&self) -> TurnTimes {
        TurnTimes {
            stopped: self.stopped.is_some(),
            retry_at: self.retry_at,
            attempt: self.attempt.as_ref().map(|a| (a.active_ms, a.kill_at)),
            deadline: self.deadline(),
            idle_ms: self.limits.idle_ms,
        }
    }
}

/// A turn's clock, as both engines keep it: what the decision of which
/// deadline is due reads.
#[derive(Clone, Copy, Debug)]
pub struct TurnTimes {
    pub stopped: bool,
    pub retry_at: Option<u64>,
    /// The running attempt's last output and kill time, when one runs.
    pub attempt: Option<(u64, Option<u64>)>,
    pub deadline: u64,
    pub idle_ms: u64,
}

/// Which of a turn's deadlines is due at `now`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Due {
    Nothing,
    /// The wait before the next attempt is over.
    Retry,
    /// The grace after a stop is over: kill the tree.
    Kill,
    /// Stop the turn (cancel, then kill after the grace).
    Stop(StopReason),
}

impl TurnTimes {
    pub fn due(&self, now: u64) -> Due {
        match self.attempt {
            None => match self.retry_at {
                Some(retry) if now >= retry => Due::Retry,
                _ => Due::Nothing,
            },
            Some((_, Some(kill))) if now >= kill => Due::Kill,
            Some((_, Some(_))) => Due::Nothing,
            Some(_) if self.stopped => Due::Nothing,
            Some(_) if now >= self.deadline => Due::Stop(StopReason::MaxDuration),
            Some((active, None)) if now >= active.saturating_add(self.idle_ms) => {
                Due::Stop(StopReason::IdleTimeout)
            }
            Some(_) => Due::Nothing,
        }
    }
}

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
    pub end: Option<crate::run::AttemptEnd>,
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
    pub fn as_run(&self) -> crate::run::AgentRun<'_> {
        crate::run::AgentRun {
            success: self.success,
            agent_type: &self.agent_type,
            session_id: self.session_id.clone(),
            requested_session_id: self.requested_session_id.as_deref(),
            reply: std::borrow::Cow::Borrowed(&self.reply),
            error: self.error.as_ref().map(|e| crate::run::RunError {
                kind: e.kind,
                message: e.message.clone(),
                retryable: e.retryable,
                exit_code: e.exit_code,
                last_lines: e.last_lines.clone(),
            }),
            duration_ms: self.duration_ms,
            attempts: self.attempts,
        }
    }

    /// The error kind, `None` on success.
    pub fn kind(&self) -> Option<AgentErrorKind> {
        self.error.as_ref().map(|e| e.kind)
    }
}
