//! One prompt's turn, for both protocols: waiting in its session's queue,
//! then running an attempt at a time (its reply parser, its last lines,
//! the agent's own retries counted, how it was stopped), and what each
//! finished attempt leaves for the next. The turn's deadlines live in the
//! engine's one timer table ([`super::timers`]).

use serde_json::Value;

use crate::agent_output::{AgentEvent, AgentOutputParser, Protocol, TextForm};
use crate::agents::AgentSpec;
use crate::attempt::{OutputTail, RetryCount, StopReason};
use crate::launch::invocation::{InvocationOutput, OutputKind};

use super::judge::Stage;
use super::result::TurnResult;

/// What a session's retry sends in place of a prompt the agent's session
/// kept (`retry_prompt.rs` decides when).
pub const CONTINUE_TEXT: &str = "Your reply to my last message was interrupted by an error. Please answer that message now, going on from where you stopped.";

/// Per-turn settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TurnLimits {
    /// Without any output for this long the turn is stopped (`idle_timeout`).
    pub idle_ms: u64,
    /// The whole turn, retries included (`maxDuration`).
    pub max_ms: u64,
    pub max_retries: u32,
    /// Whether the reply's events are reported (`onEvent`).
    pub events: bool,
}

impl TurnLimits {
    /// A prompt's `limits` as the host sends them: `{ idleMs, maxMs,
    /// maxRetries, events }`, each 0 (or false) when missing.
    pub fn read(limits: &Value) -> TurnLimits {
        let get = |k: &str| limits.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        TurnLimits {
            idle_ms: get("idleMs") as u64,
            max_ms: get("maxMs") as u64,
            max_retries: get("maxRetries") as u32,
            events: limits
                .get("events")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }
    }
}

/// A prompt waiting for its turn, or running.
#[derive(Debug)]
pub struct Turn {
    pub op: u64,
    /// The prompt's content blocks (ACP's `session/prompt`).
    pub blocks: Value,
    /// The prompt as text (what a CLI reads: the text blocks joined).
    pub text: String,
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
    /// Waiting for the next attempt (its time is the `Retry` timer's).
    pub retrying: bool,
    /// Sent again once already, its prompt having provably never reached
    /// the process it was written to.
    pub resent: bool,
    /// The agent's session holds its prompt from a failed attempt: the next
    /// attempt asks it to answer that instead of sending it again
    /// (`retry_prompt.rs`).
    pub continues: bool,
    /// An attempt of it carried the session's system prompt (said once, at
    /// the head of the first prompt): a retry that sends the prompt again
    /// carries it again.
    pub system_carried: bool,
    /// The turn's W3C `traceparent` (`_meta.traceparent` of its prompt;
    /// the session's when none).
    pub trace: Option<String>,
    /// Recorded in its session's record: its reply's events are read for it.
    pub recorded: bool,
    /// Its attachments, until its request is recorded (their metadata).
    pub attachments: Vec<crate::launch::attachments::Attachment>,
    /// Where its next attempt stands with the endpoint asked first
    /// (`super::probe`), queued or running.
    pub probe: Probe,
    /// The attempts made at it by the conversation's part before this one
    /// (a turn that failed over): its attempts are numbered on.
    pub attempts_before: u32,
}

/// A turn's next attempt and the [`Action::Probe`](super::Action::Probe)
/// of its endpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Probe {
    /// Not asked (or not to be).
    #[default]
    None,
    /// Waiting for the host's answer.
    Asked,
    /// Something may listen there: the prompt goes at the next step.
    Passed,
}

/// One attempt at a turn: the prompt sent, its answer awaited.
#[derive(Debug)]
pub struct Attempt {
    pub parser: AgentOutputParser,
    pub tail: OutputTail,
    /// Whether the agent answered anything of this prompt (a line of the
    /// reply, a permission request, a line that is not JSON).
    pub heard: bool,
    /// The stop was told to the agent (cancel or interrupt written, or the
    /// tree killed).
    pub stop_sent: bool,
    /// Its prompt provably never reached the agent: a write to the process
    /// failed (it was gone) before the agent said anything of it.
    pub undelivered: bool,
    /// The agent's own retries of a failed API call, read from its output.
    pub retries: RetryCount,
    /// Over ACP: the `session/prompt` request's id once sent, its answer.
    pub acp: AcpAttempt,
    /// Over the CLI: the process's inputs and the files it writes.
    pub cli: CliAttempt,
}

/// What an attempt over ACP keeps.
#[derive(Debug, Default)]
pub struct AcpAttempt {
    pub rpc_id: Option<u64>,
    pub stop_reason: Option<String>,
    /// A failed request: where, and its `{ code, message, data }`.
    pub failed: Option<(Stage, Value)>,
    /// Decided without the agent's answer (the session cannot be reopened).
    pub decided: Option<crate::attempt::Failure>,
    /// Permission requests the policy or the host rejected.
    pub rejected: u32,
}

/// What an attempt over the CLI keeps.
#[derive(Debug, Default)]
pub struct CliAttempt {
    /// The session the process was asked to resume (verified).
    pub requested: Option<String>,
    /// What its process reads on stdin (a process of its own), written
    /// once it runs.
    pub stdin: Option<String>,
    /// The files its process writes for the reply (a run's usage file),
    /// and what the host read of them once it exited.
    pub outputs: Vec<InvocationOutput>,
    pub read: Vec<(OutputKind, String)>,
    /// Its reply's events, kept for the turn's result when the session
    /// keeps them (the Gemini tool's `all_messages`).
    pub kept: Option<Vec<AgentEvent>>,
    /// Decided before any process ran (its endpoint refused the probe).
    pub decided: Option<crate::attempt::Failure>,
}

impl Turn {
    pub fn new(op: u64, blocks: Value, limits: TurnLimits) -> Turn {
        let attachments_from = blocks.as_array().map_or(0, Vec::len);
        Turn {
            op,
            blocks,
            text: String::new(),
            attachments_from,
            limits,
            started_ms: 0,
            attempts: 0,
            attempt: None,
            last: None,
            stopped: None,
            retrying: false,
            resent: false,
            continues: false,
            system_carried: false,
            trace: None,
            recorded: false,
            attachments: Vec::new(),
            probe: Probe::None,
            attempts_before: 0,
        }
    }

    /// The running (or last) attempt's number in the conversation's turn.
    pub fn attempt_number(&self) -> u32 {
        self.attempts_before + self.attempts.max(1)
    }

    /// A new attempt at `now`, its parser reading `agent`'s output over
    /// `protocol`; `keep_events`: its events are kept for the result.
    pub fn start_attempt(
        &mut self,
        agent: &'static AgentSpec,
        protocol: Protocol,
        keep_events: bool,
        now: u64,
    ) -> &mut Attempt {
        if self.attempts == 0 {
            self.started_ms = now;
        }
        self.attempts += 1;
        self.retrying = false;
        self.attempt.insert(Attempt {
            parser: AgentOutputParser::for_protocol(
                agent.agent_type,
                protocol,
                self.limits.events || keep_events || self.recorded,
                TextForm::Utf8,
            ),
            tail: OutputTail::default(),
            heard: false,
            stop_sent: false,
            undelivered: false,
            retries: RetryCount::new(agent.signs, self.limits.max_retries),
            acp: AcpAttempt::default(),
            cli: CliAttempt {
                kept: keep_events.then(Vec::new),
                ..CliAttempt::default()
            },
        })
    }

    /// When the turn's deadline (`maxDuration`) passes.
    pub fn deadline(&self) -> u64 {
        self.started_ms.saturating_add(self.limits.max_ms)
    }

    /// The content blocks its next attempt sends (over ACP).
    pub fn attempt_blocks(&self) -> Value {
        match self.continues {
            true => serde_json::json!([{"type": "text", "text": CONTINUE_TEXT}]),
            false => self.blocks.clone(),
        }
    }

    /// The text its next attempt sends (over the CLI).
    pub fn attempt_text(&self) -> &str {
        match self.continues {
            true => CONTINUE_TEXT,
            false => &self.text,
        }
    }

    /// Whether its prompt was handed to the agent (over ACP its request
    /// written; over the CLI the process started with it).
    pub fn sent(&self) -> bool {
        self.attempt.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_read_what_the_host_sends_and_zero_the_rest() {
        let limits = serde_json::json!({ "idleMs": 1500.7, "maxRetries": 2, "events": true });
        let read = TurnLimits::read(&limits);
        assert_eq!(
            read,
            TurnLimits {
                idle_ms: 1500,
                max_ms: 0,
                max_retries: 2,
                events: true
            }
        );
        assert!(!TurnLimits::read(&serde_json::json!({ "events": 1 })).events);
    }
}
