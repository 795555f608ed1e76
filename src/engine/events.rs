//! What happened to the process, for both protocols: it started, it could
//! not, it printed, it told of its own retries, it wrote a file, it exited.
//! The agent's output is counted here (its retries past `maxRetries` end
//! the turn; its chatter is not progress) and handed to the protocol's
//! reader.

use super::engine::*;
use super::timers::Timer;
use crate::attempt::{AttemptEnd, StopReason, Stream};

impl Engine {
    pub fn spawned(&mut self, now: u64) {
        self.now = now;
        if self.proc != Proc::Spawning {
            return;
        }
        self.proc = Proc::Up;
        match self.cfg.is_acp() {
            true => self.initialize(now),
            false => self.cli_spawned(now),
        }
    }

    /// The process could not be started (`ENOENT`, `EACCES`, …): final.
    pub fn spawn_failed(&mut self, code: &str, now: u64) {
        self.spawn_refused(code, None, now);
    }

    /// [`spawn_failed`](Self::spawn_failed), or, with `rejected`, a spawn
    /// that failed for a problem of the input the host found meanwhile
    /// (the working folder gone): every operation fails `invalid_params`
    /// with that message.
    pub fn spawn_refused(&mut self, code: &str, rejected: Option<&str>, now: u64) {
        self.now = now;
        if self.proc != Proc::Spawning {
            return;
        }
        self.proc = Proc::Down;
        if let Some(message) = rejected {
            return self.reject(message, now);
        }
        let end = AttemptEnd {
            spawn_error: Some(code.to_owned()),
            ..AttemptEnd::default()
        };
        let failure = self.end_failure(&end, None);
        let failure = self.adapter_named(failure);
        // A run's attempt that never started ends with the same words.
        if self
            .sessions
            .first()
            .and_then(|s| s.turn.as_ref())
            .is_some_and(|t| t.attempt.is_some())
        {
            self.end_attempt(0, Some(&end), now);
        }
        self.break_with(failure, now);
    }

    pub fn stderr(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        self.output_seen(chunk, true, now);
    }

    /// What the host read of the file the agent tells of its own retries in
    /// (the spawn's `retry_log`, Qwen Code's telemetry): counted like retry
    /// lines past maxRetries, never output, progress or part of the tail.
    pub fn retry_log(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        let mut over = Vec::new();
        for (i, s) in self.sessions.iter_mut().enumerate() {
            if let Some(a) = s.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                if a.retries.push_log(chunk) {
                    over.push((i, a.retries.exceeded()));
                }
            }
        }
        for (i, over) in over {
            self.stop_turn(i, StopReason::OwnRetries(over), now);
        }
    }

    pub fn stdout(&mut self, chunk: &[u8], now: u64) {
        self.now = now;
        self.output_seen(chunk, false, now);
        match self.cfg.is_acp() {
            true => self.acp_stdout(chunk, now),
            false => self.cli_stdout(chunk, now),
        }
    }

    /// A chunk of either stream: progress unless it is the agent's retry
    /// chatter; kept in the last lines; the agent's own retries counted, a
    /// turn past `maxRetries` of them stopped. (The process's output is
    /// not told apart by session: with several sessions prompting at once,
    /// each counts every line.)
    fn output_seen(&mut self, chunk: &[u8], stderr: bool, now: u64) {
        if crate::attempt::signs::is_progress(self.agent().signs, chunk) {
            self.touch(now);
        }
        let stream = if stderr {
            Stream::Stderr
        } else {
            Stream::Stdout
        };
        self.tail.push(stream, chunk);
        let mut over = Vec::new();
        for (i, s) in self.sessions.iter_mut().enumerate() {
            if let Some(a) = s.turn.as_mut().and_then(|t| t.attempt.as_mut()) {
                a.tail.push(stream, chunk);
                if a.retries.push(stderr, chunk) {
                    over.push((i, a.retries.exceeded()));
                }
            }
        }
        for (i, over) in over {
            self.stop_turn(i, StopReason::OwnRetries(over), now);
        }
    }

    /// The process is gone. A turn it was running ends with what it left
    /// (a crash is `process_error` with its exit and last lines, never sent
    /// again by itself); the next prompt starts the agent again and
    /// reopens the session.
    pub fn exited(&mut self, exit_code: Option<i32>, signal: Option<&str>, now: u64) {
        self.now = now;
        if let Some(last) = self.lines.take_unterminated() {
            match self.cfg.is_acp() {
                true => {
                    self.line(&last);
                    self.drain_all_events();
                }
                false => self.cli_line(&last, now),
            }
        }
        self.lines = Default::default();
        self.proc = crate::engine::state::Proc::Down;
        // The agent is gone: nobody will release its terminals.
        if self.cfg.is_acp() {
            self.release_terminals(None);
        }
        self.timers.clear(Timer::SuspendKill);
        self.timers.clear(Timer::IdleClose);
        self.timers.clear(Timer::Setup);
        let end = |stopped| AttemptEnd {
            exit_code,
            signal: signal.map(str::to_owned),
            spawn_error: None,
            stopped,
        };
        // What was in flight on the process is gone with it.
        let in_flight = match self.cfg.is_acp() {
            true => self.acp_process_gone(),
            false => {
                self.cli_process_gone();
                Vec::new()
            }
        };
        if self.closing.is_some() {
            for i in 0..self.sessions.len() {
                let stopped = self.sessions[i].turn.as_ref().and_then(|t| t.stopped);
                self.end_turn_on_exit(i, &end(stopped), now);
            }
            for op in in_flight {
                self.done_failed(op, closed_failure());
            }
            self.closed_now();
            return;
        }
        match self.cfg.is_acp() {
            true => self.acp_exited(&end(None), in_flight, now),
            false => {
                let stopped = self.sessions[0].turn.as_ref().and_then(|t| t.stopped);
                self.end_turn_on_exit(0, &end(stopped), now);
            }
        }
        self.pump(now);
    }

    /// The connection to an agent served elsewhere was lost: a crash, as
    /// when a process dies (its running turn ends `process_error` with
    /// `transport_lost` in its message; the next prompt connects again and
    /// reopens the session).
    pub fn disconnected(&mut self, opened: bool, reason: &str, now: u64) {
        self.now = now;
        if self.proc == Proc::Down {
            return;
        }
        let Some(transport) = self.acp_config().and_then(|c| c.reach.transport.clone()) else {
            return;
        };
        let line = crate::acp::transport::lost_line(&transport, opened, reason);
        self.stderr(format!("{line}\n").as_bytes(), now);
        self.exited(None, None, now);
    }

    /// What the exited process wrote to its output file at `path` (one of
    /// its `Spawn`'s `outputs`, over the CLI), read by the host before it
    /// says the process exited; merged into the attempt's reply. Anything
    /// else is ignored. Returns whether it was one of them.
    pub fn output(&mut self, path: &str, content: String) -> bool {
        let Some(a) = self
            .sessions
            .first_mut()
            .and_then(|s| s.turn.as_mut())
            .and_then(|t| t.attempt.as_mut())
        else {
            return false;
        };
        let Some(kind) = a
            .cli
            .outputs
            .iter()
            .find(|o| o.path == path)
            .map(|o| o.kind)
        else {
            return false;
        };
        a.cli.read.push((kind, content));
        true
    }

    /// A write to the process failed: it was gone. A running turn whose
    /// agent has said nothing of it, and that nobody stopped, never reached
    /// the agent (the prompt was the last thing written to it).
    pub fn write_failed(&mut self, _now: u64) {
        for s in &mut self.sessions {
            let Some(turn) = s.turn.as_mut().filter(|t| t.stopped.is_none()) else {
                continue;
            };
            if let Some(a) = turn.attempt.as_mut().filter(|a| !a.heard) {
                a.undelivered = true;
            }
        }
    }

    /// A running turn of session `i` whose process is gone ends with it,
    /// unless its prompt provably never reached the agent: then the next
    /// process gets it (the only time a prompt is sent again by itself).
    pub(super) fn end_turn_on_exit(&mut self, i: usize, end: &AttemptEnd, now: u64) {
        let key = self.sessions[i].key;
        let closing = self.closing.is_some() || self.sessions[i].closing.is_some();
        // A new process over the CLI with no session to resume: a prompt
        // its session kept is gone with it.
        let fresh = !self.cfg.is_acp() && self.sessions[i].keep_session.is_none();
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        let Some(attempt) = turn.attempt.as_ref() else {
            return;
        };
        if attempt.undelivered && turn.stopped.is_none() && !closing && !turn.resent {
            turn.resent = true;
            turn.continues &= !fresh;
            turn.attempt = None;
            turn.attempts -= 1;
            self.timers.clear(Timer::Idle(key));
            self.timers.clear(Timer::Kill(key));
            return;
        }
        self.end_attempt(i, Some(end), now);
    }
}
