//! An endpoint asked before a prompt, for an agent that retries a model
//! server refusing the connection without a word (Cline for a minute,
//! Copilot CLI five times)
//! ([`AcpLaunch::probes_endpoint`](crate::agents::AcpLaunch)): when the
//! run's `endpoint` is on this machine, the host tries a connection first
//! ([`Action::Probe`]); nothing listening there fails the attempt
//! `network_error` at once, which a run tries again as that kind says.

use super::action::Action;
use super::engine::*;
use super::turn::Probe;
use crate::agent_output::Protocol;
use crate::attempt::{AgentErrorKind, Failure};

impl Engine {
    /// Session `i`'s running turn's next attempt: its prompt sent, or
    /// first its endpoint asked.
    pub(super) fn begin_attempt(&mut self, i: usize, now: u64) {
        let target = self.probe_target(i);
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        match (std::mem::take(&mut turn.probe), target) {
            (Probe::None, Some((host, port, _))) => {
                turn.probe = Probe::Asked;
                let op = turn.op;
                self.push(Action::Probe { op, host, port });
            }
            _ => self.send_prompt(i, now),
        }
    }

    /// Where session `i`'s endpoint listens (host, port, and the
    /// endpoint's field path for messages), when its agent's endpoint is
    /// asked first and it is on this machine.
    fn probe_target(&self, i: usize) -> Option<(String, u16, String)> {
        if !self.cfg.is_acp() || !self.launch_spec().probes_endpoint {
            return None;
        }
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
    /// attempt; after anything else the prompt goes (the process started
    /// again first if it went meanwhile) and the agent finds out.
    pub fn probed(&mut self, op: u64, outcome: &str, now: u64) {
        self.now = now;
        let Some(i) = self.sessions.iter().position(|s| {
            s.turn
                .as_ref()
                .is_some_and(|t| t.op == op && t.probe == Probe::Asked)
        }) else {
            return; // stopped meanwhile
        };
        let target = self.probe_target(i);
        let agent = self.agent();
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        let (host, port, field) = match (target, outcome) {
            (Some(target), "ECONNREFUSED") => target,
            _ => {
                turn.probe = Probe::Passed;
                return self.pump(now);
            }
        };
        turn.probe = Probe::None;
        let attempt = turn.start_attempt(agent, Protocol::Acp, false, now);
        // Never written: a retry sends it as it is.
        attempt.undelivered = true;
        attempt.acp.decided = Some(Failure::new(
            AgentErrorKind::NetworkError,
            format!(
                "nothing listens on {host}:{port} (connection refused), where {field}.baseUrl points ({} would retry it without a word)",
                agent.name
            ),
        ));
        self.end_attempt(i, None, now);
        self.pump(now);
    }
}
