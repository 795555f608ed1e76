//! An endpoint asked before each attempt: when the run's `endpoint` is on
//! this machine (`localhost`, `127.x.y.z`, `[::1]`), the host tries a
//! connection first ([`Action::Probe`]), for every agent over either
//! protocol; nothing listening there fails the attempt `network_error` at
//! once, which a run tries again as that kind says. Left to themselves the
//! agents spend seconds to minutes on a refused connection (Codex's
//! reconnects, Gemini CLI's and Claude Code's retries, Cline's silent
//! minute), and only then say so.
//!
//! The probe comes before the process is started when a turn is what
//! starts it (a run, a turn of a process per turn, a session whose process
//! went), so that a dead endpoint costs no agent start-up; a session opened
//! ahead of its first prompt opens whatever the endpoint does, and each of
//! its prompts is asked for (an endpoint may go down, or come up, between
//! turns).

use super::action::Action;
use super::engine::*;
use super::turn::{Probe, Turn};
use crate::agent_output::Protocol;
use crate::attempt::{AgentErrorKind, Failure};

impl Engine {
    /// Session `i`'s running turn's next attempt (the process up and the
    /// session open): its prompt sent, or first its endpoint asked.
    pub(super) fn begin_attempt(&mut self, i: usize, now: u64) {
        if self.awaits_probe(i) {
            return;
        }
        if let Some(turn) = self.sessions[i].turn.as_mut() {
            turn.probe = Probe::None;
        }
        self.send_prompt(i, now);
    }

    /// Whether session `i`'s next attempt waits for its endpoint to be
    /// asked: the running turn's when it waits for an attempt, else the
    /// first prompt queued. Asked now when it was not yet for this attempt;
    /// false once the answer let it go (or when there is nothing to ask).
    pub(super) fn awaits_probe(&mut self, i: usize) -> bool {
        let target = self.probe_target(i);
        let s = &mut self.sessions[i];
        let turn: &mut Turn = match s.turn.as_mut() {
            Some(turn) if turn.attempt.is_some() || turn.retrying => return false,
            Some(turn) => turn,
            None => match s.queue.front_mut() {
                Some(Queued::Prompt(turn)) => turn,
                _ => return false,
            },
        };
        match (turn.probe, target) {
            (Probe::Asked, _) => true,
            (Probe::None, Some((host, port, _))) => {
                turn.probe = Probe::Asked;
                let op = turn.op;
                self.push(Action::Probe { op, host, port });
                true
            }
            _ => false,
        }
    }

    /// Where session `i`'s endpoint listens (host, port, and the
    /// endpoint's field path for messages), when it is on this machine.
    fn probe_target(&self, i: usize) -> Option<(String, u16, String)> {
        let options = self.sessions[i]
            .cfg
            .as_ref()
            .map_or(self.options(), |c| &c.options);
        let endpoint = options.endpoint.as_ref()?;
        let (host, port) = crate::launch::endpoint::loopback_address(&endpoint.base_url)?;
        Some((host, port, endpoint.field.clone()))
    }

    /// The host's answer to the [`Action::Probe`] of turn `op`: `connected`,
    /// `remote` (the agent runs on another machine), or the connection
    /// error's code. Only a refused connection (`ECONNREFUSED`) ends the
    /// attempt; after anything else the attempt goes on (the process
    /// started first if it is down) and the agent finds out.
    pub fn probed(&mut self, op: u64, outcome: &str, now: u64) {
        self.now = now;
        let asked = |t: &Turn| t.op == op && t.probe == Probe::Asked;
        let Some(i) = self.sessions.iter().position(|s| {
            s.turn.as_deref().is_some_and(asked)
                || matches!(s.queue.front(), Some(Queued::Prompt(t)) if asked(t))
        }) else {
            return; // stopped meanwhile
        };
        let target = self.probe_target(i);
        let (host, port, field) = match (target, outcome) {
            (Some(target), "ECONNREFUSED") => target,
            _ => {
                if let Some(turn) = self.probed_turn(i) {
                    turn.probe = Probe::Passed;
                }
                return self.pump(now);
            }
        };
        // A queued prompt becomes the running turn: its attempt failed.
        if self.sessions[i].turn.is_none() {
            if let Some(Queued::Prompt(turn)) = self.sessions[i].queue.pop_front() {
                self.sessions[i].turn = Some(turn);
            }
        }
        let agent = self.agent();
        let protocol = match self.cfg.is_acp() {
            true => Protocol::Acp,
            false => Protocol::Cli,
        };
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        turn.probe = Probe::None;
        let attempt = turn.start_attempt(agent, protocol, false, now);
        // Never sent: a retry sends it as it is.
        attempt.undelivered = true;
        let failure = Failure::new(
            AgentErrorKind::NetworkError,
            format!(
                "nothing listens on {host}:{port} (connection refused), where {field}.baseUrl points, so {} could not reach its model; the prompt was not sent",
                agent.name
            ),
        );
        match protocol {
            Protocol::Acp => attempt.acp.decided = Some(failure),
            Protocol::Cli => attempt.cli.decided = Some(failure),
        }
        self.end_attempt(i, None, now);
        self.pump(now);
    }

    /// Session `i`'s turn whose endpoint was asked: the running one, else
    /// the first prompt queued.
    fn probed_turn(&mut self, i: usize) -> Option<&mut Turn> {
        let s = &mut self.sessions[i];
        match s.turn.as_mut() {
            Some(turn) => Some(turn),
            None => match s.queue.front_mut() {
                Some(Queued::Prompt(turn)) => Some(turn),
                _ => None,
            },
        }
    }
}
