//! The client's side of ACP beyond permissions and files, on the engine:
//! `elicitation/create` asked of the host (its `onElicitation`), declined
//! at once without one, `cancel` once its turn is cancelled; and client
//! terminals (`terminal/*`, when the app enabled them), whose processes the
//! host starts and kills as [`Action::Terminal`] says and whose output and
//! end it hands back. The rules are `crate::acp::elicitation` and
//! `crate::acp::terminals`; this file speaks them over the engine's
//! JSON-RPC.

use serde_json::{json, Value};

use super::action::{Action, HostRequest};
use super::engine::*;
use crate::acp::terminals::{ExitStatus, HostTerminal};
use crate::acp::{client, elicitation, INVALID_PARAMS};

const INTERNAL_ERROR: i64 = -32603;

impl Engine {
    /// Whether the host answers `elicitation/create` (the app gave
    /// `onElicitation`); set before the agent starts, as it is advertised.
    pub fn answer_elicitations(&mut self, on: bool) {
        self.client.elicitation = on;
    }

    /// `initialize`'s `clientCapabilities`: terminals and terminal login
    /// only when enabled, elicitation only when the host answers it.
    pub(super) fn client_capabilities(&self) -> Value {
        let terminal_auth = self.acp_config().is_some_and(|c| c.client.terminal_auth);
        let mut caps = client::capabilities(
            self.serves_terminals(),
            self.client.elicitation,
            terminal_auth,
        );
        if !self.offers_files() {
            caps["fs"] = serde_json::json!({"readTextFile": false, "writeTextFile": false});
        }
        caps
    }

    /// Whether the agent may use client terminals (one served elsewhere:
    /// with `clientFs` only).
    pub(super) fn serves_terminals(&self) -> bool {
        self.acp_config()
            .is_some_and(|c| c.client.terminals && c.reach.client_fs)
    }

    /// Whether the agent may read and write this machine's files through
    /// the client (`clientFs`: by default one started here, not one served
    /// elsewhere).
    pub(super) fn offers_files(&self) -> bool {
        self.acp_config().is_some_and(|c| c.reach.client_fs)
    }

    /// `elicitation/create` from session `at` (its `key`).
    pub(super) fn elicitation_request(
        &mut self,
        id: Value,
        params: Value,
        at: Option<usize>,
        key: Option<u64>,
    ) {
        match elicitation::read_request(&params) {
            Err(why) => {
                return self.respond_error(id, rpc_error(INVALID_PARAMS, &why, None));
            }
            Ok(None) => return self.respond(id, elicitation::declined()),
            Ok(Some(_)) => {}
        }
        if let Some(a) = at.and_then(|i| self.attempt_mut(i)) {
            a.heard = true;
        }
        let stopped = at
            .and_then(|i| self.sessions[i].turn.as_ref())
            .is_some_and(|t| t.stopped.is_some());
        if stopped {
            self.respond(id, elicitation::cancelled());
        } else if !self.client.elicitation {
            self.respond(id, elicitation::declined());
        } else {
            let call = self.call_id();
            self.calls.push(HostCall {
                call,
                rpc_id: id,
                kind: CallKind::Elicitation(params.clone()),
                key,
            });
            self.push(Action::Host {
                call,
                request: HostRequest::Elicitation(params),
            });
        }
    }

    /// The host's answer to an elicitation; a bad answer is `cancel` for
    /// the agent and an error for the host.
    pub(super) fn elicitation_answer(
        &mut self,
        rpc_id: Value,
        params: &Value,
        answer: &Value,
    ) -> crate::error::Result<()> {
        let answer = if answer.is_null() {
            Ok(elicitation::declined())
        } else {
            elicitation::response(params, answer)
        };
        match answer {
            Ok(response) => {
                self.respond(rpc_id, response);
                Ok(())
            }
            Err(why) => {
                self.respond(rpc_id, elicitation::cancelled());
                Err(crate::error::AgentContextError::invalid(why))
            }
        }
    }

    /// A `terminal/*` request of session `at` (its `key`).
    pub(super) fn terminal_request(
        &mut self,
        method: &str,
        id: Value,
        params: Value,
        at: Option<usize>,
        key: Option<u64>,
    ) {
        if let Some(a) = at.and_then(|i| self.attempt_mut(i)) {
            a.heard = true;
        }
        if method == "terminal/create" {
            let cfg = self.cfg_of(key);
            let (cd, dirs) = (cfg.options.cd.clone(), cfg.client.dirs.clone());
            let windows = self.options().platform.is_some_and(|p| p.is_windows());
            let turn = at
                .and_then(|i| self.sessions[i].turn.as_ref())
                .map(|t| t.op);
            match self.client.terminals.create(
                &params,
                (&cd, &dirs),
                windows,
                (key, turn),
                id.clone(),
            ) {
                Ok(launch) => self.push(Action::Terminal(HostTerminal::Start(launch))),
                Err(why) => self.respond_error(id, rpc_error(INVALID_PARAMS, &why, None)),
            }
            return;
        }
        let Some(tid) = params.get("terminalId").and_then(Value::as_str) else {
            let error = rpc_error(INVALID_PARAMS, "params.terminalId must be a string", None);
            return self.respond_error(id, error);
        };
        let tid = tid.to_owned();
        let Some(terminal) = self.client.terminals.get(&tid, key) else {
            let error = rpc_error(
                INVALID_PARAMS,
                &format!("no terminal {tid} in this session"),
                None,
            );
            return self.respond_error(id, error);
        };
        match method {
            "terminal/output" => {
                let result = terminal.output_result();
                self.respond(id, result);
            }
            "terminal/wait_for_exit" => {
                if let Some(result) = self.client.terminals.wait(&tid, id.clone()) {
                    self.respond(id, result);
                }
            }
            "terminal/kill" => {
                if terminal.running() {
                    self.push(Action::Terminal(HostTerminal::Kill(tid)));
                }
                self.respond(id, json!({}));
            }
            "terminal/release" => {
                self.release_terminal(&tid);
                self.respond(id, json!({}));
            }
            other => {
                let error = rpc_error(
                    crate::acp::METHOD_NOT_FOUND,
                    "Method not found",
                    Some(json!({ "method": other })),
                );
                self.respond_error(id, error);
            }
        }
    }

    /// Terminal `id` is forgotten, its process killed if it may still run.
    pub(super) fn release_terminal(&mut self, id: &str) {
        if let Some((running, waiting)) = self.client.terminals.release(id) {
            if running {
                self.push(Action::Terminal(HostTerminal::Kill(id.to_owned())));
            }
            for rpc in waiting {
                let error = rpc_error(INTERNAL_ERROR, &format!("terminal {id} was released"), None);
                self.respond_error(rpc, error);
            }
        }
    }

    /// The processes of `session`'s terminals (every one when `None`) are
    /// killed; the terminals stay for the agent to read and release (a
    /// cancelled turn).
    pub(super) fn stop_terminals(&mut self, session: Option<u64>) {
        for id in self.client.terminals.running_of(session) {
            self.push(Action::Terminal(HostTerminal::Kill(id)));
        }
    }

    /// `session`'s terminals (every one when `None`) are released: killed
    /// and forgotten (the session closes, the agent is gone).
    pub(super) fn release_terminals(&mut self, session: Option<u64>) {
        for id in self.client.terminals.ids_of(session) {
            self.release_terminal(&id);
        }
    }

    /// The host started terminal `id`'s process.
    pub fn terminal_started(&mut self, id: &str, now: u64) {
        self.now = now;
        if let Some(rpc) = self.client.terminals.started(id) {
            self.respond(rpc, json!({ "terminalId": id }));
        }
    }

    /// The host could not start terminal `id`'s process (`code`: ENOENT, …).
    pub fn terminal_failed(&mut self, id: &str, code: &str, now: u64) {
        self.now = now;
        if let Some(rpc) = self.client.terminals.failed(id) {
            let error = rpc_error(
                INTERNAL_ERROR,
                &format!("the command could not be started: {code}"),
                Some(json!({ "code": code })),
            );
            self.respond_error(rpc, error);
        }
    }

    /// Output of terminal `id`'s process: kept, and the turn is not idle.
    pub fn terminal_output(&mut self, id: &str, chunk: &[u8], now: u64) {
        self.now = now;
        self.client.terminals.output(id, chunk);
        self.touch(now);
    }

    /// Terminal `id`'s process ended.
    pub fn terminal_exited(&mut self, id: &str, code: Option<i64>, signal: Option<&str>, now: u64) {
        self.now = now;
        let exit = ExitStatus {
            exit_code: code,
            signal: signal.map(str::to_owned),
        };
        let (waiting, result) = self.client.terminals.exited(id, exit);
        for rpc in waiting {
            self.respond(rpc, result.clone());
        }
        self.touch(now);
    }

    /// Whether terminal `id` may run in `real` (its folder with links
    /// resolved by the host): inside its session's folder or its `dirs`.
    pub fn terminal_cwd_allowed(&self, id: &str, real: &str) -> bool {
        let session = self.client.terminals.session_of(id);
        let cfg = self.cfg_of(session.flatten());
        session.is_some()
            && crate::acp::fs::inside_roots(&cfg.options.cd, &cfg.client.dirs, real).is_some()
    }
}
