//! One prompt's turn over the CLI while it runs: its text, its deadlines,
//! its attempts (each with the CLI's own output parser and last lines),
//! how it was stopped.

use crate::agent_output::{AgentEvent, AgentOutputParser, Protocol, TextForm};
use crate::agents::AgentSpec;
use crate::engine::{TurnLimits, TurnResult};
use crate::invocation::{InvocationOutput, OutputKind};
use crate::run::{OutputTail, RetryCount, StopReason};

/// A prompt waiting for its turn, or running.
#[derive(Debug)]
pub struct CliTurn {
    pub op: u64,
    /// The prompt's text (the content blocks' text, joined).
    pub text: String,
    pub limits: TurnLimits,
    pub started_ms: u64,
    pub attempts: u32,
    pub attempt: Option<CliAttempt>,
    /// The last finished attempt's result, when a retry follows.
    pub last: Option<TurnResult>,
    /// Why the host or a deadline stopped it.
    pub stopped: Option<StopReason>,
    /// The wait before the next attempt ends at this time.
    pub retry_at: Option<u64>,
    /// Sent again once already, after the process was found gone before
    /// it printed anything.
    pub resent: bool,
}

/// One attempt: the prompt written, the CLI's lines read until the turn's
/// last line (one process) or its exit (a process per turn).
#[derive(Debug)]
pub struct CliAttempt {
    pub parser: AgentOutputParser,
    pub tail: OutputTail,
    /// The session the process was asked to resume (verified).
    pub requested: Option<String>,
    /// Whether the CLI printed anything since the prompt was written.
    pub heard: bool,
    /// No output since then: the idle deadline runs from here.
    pub active_ms: u64,
    /// Interrupted at this time: the tree is killed after the grace.
    pub kill_at: Option<u64>,
    /// The stop was asked of the CLI (interrupt written, or the tree killed).
    pub stop_sent: bool,
    /// The agent's own retries of a failed API call, read from its output.
    pub retries: RetryCount,
    /// What its process reads on stdin (a process of its own), written
    /// once it runs.
    pub stdin: Option<String>,
    /// The files its process writes for the reply (a run's usage file),
    /// and what the host read of them once it exited.
    pub outputs: Vec<InvocationOutput>,
    pub read: Vec<(OutputKind, String)>,
    /// Its reply's events, kept for the turn's result when the session
    /// keeps them.
    pub kept: Option<Vec<AgentEvent>>,
}

impl CliTurn {
    pub fn new(op: u64, text: String, limits: TurnLimits) -> CliTurn {
        CliTurn {
            op,
            text,
            limits,
            started_ms: 0,
            attempts: 0,
            attempt: None,
            last: None,
            stopped: None,
            retry_at: None,
            resent: false,
        }
    }

    /// A new attempt at `now`, its parser reading `agent`'s CLI output;
    /// `keep_events`: its events are kept for the result.
    pub fn start_attempt(
        &mut self,
        agent: &'static AgentSpec,
        requested: Option<String>,
        keep_events: bool,
        now: u64,
    ) {
        if self.attempts == 0 {
            self.started_ms = now;
        }
        self.attempts += 1;
        self.retry_at = None;
        self.attempt = Some(CliAttempt {
            parser: AgentOutputParser::for_protocol(
                agent.agent_type,
                Protocol::Cli,
                self.limits.events || keep_events,
                TextForm::Utf8,
            ),
            tail: OutputTail::default(),
            requested,
            heard: false,
            active_ms: now,
            kill_at: None,
            stop_sent: false,
            retries: RetryCount::new(agent.signs, self.limits.max_retries),
            stdin: None,
            outputs: Vec::new(),
            read: Vec::new(),
            kept: keep_events.then(Vec::new),
        });
    }

    /// When the turn's deadline (`maxDuration`) passes.
    pub fn deadline(&self) -> u64 {
        self.started_ms.saturating_add(self.limits.max_ms)
    }

    pub fn times(&self) -> crate::engine::TurnTimes {
        crate::engine::TurnTimes {
            stopped: self.stopped.is_some(),
            retry_at: self.retry_at,
            attempt: self.attempt.as_ref().map(|a| (a.active_ms, a.kill_at)),
            deadline: self.deadline(),
            idle_ms: self.limits.idle_ms,
        }
    }
}
