//! What the agent prints, line by line: its requests to the client
//! (permissions, files, anything else answered "method not found"), its
//! notifications (`session/update`) and its responses to our requests.

use serde_json::{json, Value};

use super::action::{Action, HostRequest, Outcome};
use super::engine::*;
use super::judge::{error_text, Stage};
use super::messages::parse_object;
use super::timers::Timer;
use crate::acp::fs::inside_roots;
use crate::acp::permission::{self, Decision, Policy};
use crate::acp::{INVALID_PARAMS, METHOD_NOT_FOUND};
use crate::attempt::{AgentErrorKind, Failure};
use crate::launch::invocation::Sandbox;

impl Engine {
    /// The agent's stdout over ACP: split in lines, each read once.
    pub(super) fn acp_stdout(&mut self, chunk: &[u8], now: u64) {
        let mut lines = std::mem::take(&mut self.lines);
        lines.push(chunk, |line| self.line(line));
        self.lines = lines;
        self.drain_all_events();
        self.pump(now);
    }

    /// One line of the agent's stdout.
    pub(super) fn line(&mut self, line: &[u8]) {
        // The common session/update lines of a turn: read by the reply
        // parser straight from their bytes, and nothing else needs them
        // (the session's own state, which that reader skips, is read below).
        let running = self.line_session(line);
        if let Some(i) = running {
            if let Some(a) = self.attempt_mut(i).filter(|a| a.acp.rpc_id.is_some()) {
                if a.parser.acp_fast_line(line) {
                    // A line of the reply: the agent is answering this prompt.
                    a.heard = true;
                    return;
                }
                if self.quiet_line(i, line) {
                    return;
                }
            }
        }
        let message = match parse_object(line) {
            Some(m) => m,
            None => {
                // Printed on stdout while turns run: their output.
                for i in 0..self.sessions.len() {
                    if let Some(a) = self.attempt_mut(i) {
                        if a.acp.rpc_id.is_some() {
                            let text = String::from_utf8_lossy(line);
                            if !text.trim().is_empty() {
                                a.parser.non_json_line(&text);
                                a.heard = true;
                            }
                        }
                    }
                }
                return;
            }
        };
        let method = message.get("method").and_then(Value::as_str);
        let id = message.get("id").filter(|v| !v.is_null());
        match (method, id) {
            (Some(method), Some(id)) => {
                let method = method.to_owned();
                let id = id.clone();
                self.agent_request(&method, id, &message);
            }
            (Some(method), None) => {
                let method = method.to_owned();
                self.agent_notification(&method, &message);
            }
            (None, Some(id)) => {
                let Some(id) = id.as_u64() else { return };
                self.response(id, &message);
            }
            (None, None) => {}
        }
    }

    /// The session a line is for: the only one, or the one whose id it
    /// names first (read from its bytes, so that a reply line is parsed once).
    fn line_session(&self, line: &[u8]) -> Option<usize> {
        if self.sessions.len() <= 1 {
            return (!self.sessions.is_empty()).then_some(0);
        }
        self.by_id(super::messages::session_id_in(line))
    }

    /// The session a message is for (`params.sessionId`; the only one).
    pub(super) fn session_of(&self, message: &Value) -> Option<usize> {
        if self.sessions.len() == 1 {
            return Some(0);
        }
        self.by_id(message.pointer("/params/sessionId").and_then(Value::as_str))
    }

    pub(super) fn feed_turn(&mut self, i: Option<usize>, message: &Value) {
        if let Some(a) = i.and_then(|i| self.attempt_mut(i)) {
            if a.acp.rpc_id.is_some() {
                a.parser.acp_message(message);
            }
        }
    }

    pub(super) fn drain_all_events(&mut self) {
        for i in 0..self.sessions.len() {
            self.drain_events(Some(i));
        }
    }

    pub(super) fn drain_events(&mut self, i: Option<usize>) {
        let Some(turn) = i
            .and_then(|i| self.sessions.get_mut(i))
            .and_then(|s| s.turn.as_mut())
        else {
            return;
        };
        if !turn.limits.events && !turn.recorded {
            return;
        }
        let (op, wanted, recorded) = (turn.op, turn.limits.events, turn.recorded);
        let attempt = turn.attempt_number();
        let Some(a) = turn.attempt.as_mut() else {
            return;
        };
        // The events, in a buffer the engine keeps (it goes back empty).
        let mut events = std::mem::take(&mut self.event_buffer);
        a.parser.swap_events(&mut events);
        for event in events.drain(..) {
            if recorded {
                self.record_event(op, &event);
            }
            if wanted {
                self.actions.push_back(Action::Event { op, event, attempt });
            }
        }
        self.event_buffer = events;
    }

    pub(super) fn agent_notification(&mut self, method: &str, message: &Value) {
        if method == "$/cancel_request" {
            let id = message.pointer("/params/requestId").cloned();
            return self.agent_cancelled(id.unwrap_or(Value::Null));
        }
        let at = self.session_of(message);
        self.drain_events(at);
        if method != "session/update" {
            return; // extensions (`qwen/notify/…`) say nothing we keep
        }
        self.feed_turn(at, message);
        let update = message.pointer("/params/update").unwrap_or(&Value::Null);
        let Some(i) = at else {
            return; // a session we do not hold
        };
        let s = &mut self.sessions[i];
        match update.get("sessionUpdate").and_then(Value::as_str) {
            Some("current_mode_update") => {
                if let Some(id) = update.get("currentModeId").and_then(Value::as_str) {
                    s.snapshot.mode = Some(id.to_owned());
                }
            }
            Some("available_commands_update") => {
                s.commands_text = None;
                s.snapshot.commands = update
                    .get("availableCommands")
                    .cloned()
                    .unwrap_or(Value::Array(Vec::new()));
            }
            Some("config_option_update") => {
                if let Some(options) = update.get("configOptions") {
                    s.snapshot.config_options = options.clone();
                }
            }
            Some("session_info_update") => {}
            // The reply's own updates go to the turn's events.
            _ if s.turn.as_ref().is_some_and(|t| t.attempt.is_some()) => return,
            // A compaction between turns: recorded as the session's.
            Some("compaction_update" | "compaction_summary_chunk") => {
                if let Some(compaction) = s.compactions.update(update).cloned() {
                    let key = s.key;
                    let event = crate::agent_output::AgentEvent::Compaction { compaction };
                    self.record_session_event(key, &event);
                }
            }
            _ => {}
        }
        let key = self.sessions[i].key;
        self.push_update(key, update);
    }

    /// An update of session `key` for the host, when it hears them.
    pub(super) fn push_update(&mut self, key: u64, update: &Value) {
        if key == DEFAULT {
            if self.hears_updates {
                self.push(Action::Update(update.clone()));
            }
        } else {
            self.push(Action::SessionUpdate {
                session: key,
                update: update.clone(),
            });
        }
    }

    pub(super) fn agent_request(&mut self, method: &str, id: Value, message: &Value) {
        let at = self.session_of(message);
        let key = at.map(|i| self.sessions[i].key);
        self.drain_events(at);
        let params = message.get("params").cloned().unwrap_or(Value::Null);
        match method {
            "session/request_permission" => {
                self.feed_turn(at, message);
                if let Some(a) = at.and_then(|i| self.attempt_mut(i)) {
                    a.heard = true;
                }
                let live = at
                    .and_then(|i| self.sessions[i].turn.as_ref())
                    .is_some_and(|t| t.stopped.is_none());
                if !live {
                    // Cancelled: the protocol wants `cancelled` for every pending request.
                    self.respond(id, json!({"outcome": {"outcome": "cancelled"}}));
                } else if self.asks_host {
                    let call = self.call_id();
                    self.calls.push(HostCall {
                        call,
                        rpc_id: id,
                        kind: CallKind::Permission(params.clone()),
                        key,
                    });
                    self.push(Action::Host {
                        call,
                        request: HostRequest::Permission(params),
                    });
                } else {
                    let response = self.policy_answer(key, &params, None);
                    self.respond(id, response);
                }
            }
            "fs/read_text_file" | "fs/write_text_file" if self.offers_files() => {
                let write = method == "fs/write_text_file";
                let Some(path) = params.get("path").and_then(Value::as_str) else {
                    self.respond_error(
                        id,
                        rpc_error(INVALID_PARAMS, "params.path must be a string", None),
                    );
                    return;
                };
                let cfg = self.cfg_of(key);
                let cd = cfg.options.cd.clone();
                let Some(full) = inside_roots(&cd, &cfg.client.dirs, path) else {
                    let what = if write { "write" } else { "read" };
                    let more = if cfg.client.dirs.is_empty() {
                        ""
                    } else {
                        " and the session's dirs"
                    };
                    let error = rpc_error(
                        INVALID_PARAMS,
                        &format!(
                            "refused to {what} {path}: it is outside the working directory {cd}{more}"
                        ),
                        None,
                    );
                    self.respond_error(id, error);
                    return;
                };
                if write && self.options().sandbox == Some(Sandbox::ReadOnly) {
                    let error = rpc_error(
                        INVALID_PARAMS,
                        &format!("refused to write {path}: the sandbox is read-only"),
                        None,
                    );
                    self.respond_error(id, error);
                    return;
                }
                let call = self.call_id();
                let (kind, request) = if write {
                    let content = match params.get("content") {
                        Some(Value::String(s)) => s.clone(),
                        _ => String::new(),
                    };
                    (
                        CallKind::Write,
                        HostRequest::Write {
                            path: full,
                            content,
                        },
                    )
                } else {
                    (
                        CallKind::Read {
                            line: params.get("line").and_then(Value::as_u64),
                            limit: params.get("limit").and_then(Value::as_u64),
                        },
                        HostRequest::Read { path: full },
                    )
                };
                self.calls.push(HostCall {
                    call,
                    rpc_id: id,
                    kind,
                    key,
                });
                self.push(Action::Host { call, request });
            }
            "elicitation/create" => self.elicitation_request(id, params, at, key),
            m if m.starts_with("terminal/") && self.serves_terminals() => {
                self.terminal_request(m, id, params, at, key)
            }
            other => {
                let error = rpc_error(
                    METHOD_NOT_FOUND,
                    "Method not found",
                    Some(json!({ "method": other })),
                );
                self.respond_error(id, error);
            }
        }
    }

    /// The agent cancelled its request `rpc_id` (`$/cancel_request`): a
    /// pending permission is answered `cancelled` at once, any other
    /// request error -32800; the host's callback is aborted and its late
    /// answer dropped. A request already answered (or unknown) is left.
    pub(super) fn agent_cancelled(&mut self, rpc_id: Value) {
        if rpc_id.is_null() {
            return;
        }
        if let Some(at) = self.calls.iter().position(|c| c.rpc_id == rpc_id) {
            let HostCall {
                call, kind, key, ..
            } = self.calls.remove(at);
            match kind {
                CallKind::Permission(params) => {
                    let cancelled = json!({"outcome": {"outcome": "cancelled"}});
                    self.record_permission_answer(key, &params, &cancelled);
                    self.respond(rpc_id, cancelled);
                }
                _ => self.respond_error(rpc_id, request_cancelled()),
            }
            self.push(Action::HostCancel { call });
            return;
        }
        use crate::acp::terminals::Cancelled;
        match self.client.terminals.cancel(&rpc_id) {
            Some(Cancelled::Wait) => self.respond_error(rpc_id, request_cancelled()),
            Some(Cancelled::Create(id)) => {
                self.respond_error(rpc_id, request_cancelled());
                self.release_terminal(&id);
            }
            None => {}
        }
    }

    pub(super) fn call_id(&mut self) -> u64 {
        self.next_call += 1;
        self.next_call
    }

    pub(super) fn policy_answer(
        &mut self,
        key: Option<u64>,
        params: &Value,
        decision: Option<Decision>,
    ) -> Value {
        let policy = Policy::from_options(self.options().sandbox, self.options().yolo);
        let cfg = self.cfg_of(key);
        let (cd, dirs) = (cfg.options.cd.clone(), cfg.client.dirs.clone());
        let (made, response) = permission::answer_in(params, policy, (&cd, &dirs), decision);
        if made == Decision::Reject {
            if let Some(a) = key
                .and_then(|k| self.at(k))
                .and_then(|i| self.attempt_mut(i))
            {
                a.acp.rejected += 1;
            }
        }
        response
    }

    /// A response to one of our requests.
    pub(super) fn response(&mut self, id: u64, message: &Value) {
        let Some(at) = self.pending.iter().position(|(i, _)| *i == id) else {
            return;
        };
        let (_, pending) = self.pending.remove(at);
        let error = message.get("error").filter(|e| !e.is_null()).cloned();
        let result = message.get("result").cloned().unwrap_or(Value::Null);
        match pending {
            Pending::Initialize => match error {
                Some(e) => self.setup_error(None, Stage::Initialize, e),
                None => self.initialized(result),
            },
            Pending::Session(key, step) => match error {
                Some(e) => self.setup_error(Some(key), Stage::Session, e),
                None => self.session_opened(key, step, result),
            },
            Pending::AskMode(key) => {
                if let Some(i) = self.at(key) {
                    if error.is_none() {
                        if let Some(id) = self.launch_spec().ask_mode {
                            self.sessions[i].snapshot.mode = Some(id.to_owned());
                        }
                    }
                    self.ready(i);
                }
            }
            Pending::Prompt(key) => {
                if let Some(i) = self.at(key) {
                    self.feed_turn(Some(i), message);
                    self.drain_events(Some(i));
                    if let Some(a) = self.attempt_mut(i) {
                        match error {
                            Some(e) => a.acp.failed = Some((Stage::Prompt, e)),
                            None => {
                                a.acp.stop_reason = Some(
                                    result
                                        .get("stopReason")
                                        .and_then(Value::as_str)
                                        .unwrap_or("")
                                        .to_owned(),
                                )
                            }
                        }
                    }
                    self.end_attempt(i, None, self.now);
                }
            }
            Pending::Op(op, OpKind::Fork(new), _) => self.forked(op, new, error, result),
            Pending::Op(op, kind, key) => match error {
                Some(e) => {
                    let failure = self.op_failure(&kind, &e);
                    self.done_failed(op, failure);
                }
                None => {
                    if let Some(s) = key.and_then(|k| self.at(k)).map(|i| &mut self.sessions[i]) {
                        match &kind {
                            OpKind::SetMode(id) => s.snapshot.mode = Some(id.clone()),
                            OpKind::SetModel(id) => s.snapshot.model = Some(id.clone()),
                            OpKind::SetConfig(..) => {
                                if let Some(options) = result.get("configOptions") {
                                    s.snapshot.config_options = options.clone();
                                }
                            }
                            _ => {}
                        }
                    }
                    self.push(Action::Done {
                        op,
                        outcome: Outcome::Ok(result),
                    });
                }
            },
            Pending::Close(key) => {
                if let Some(i) = self.at(key).filter(|&i| self.sessions[i].closing.is_some()) {
                    self.session_closed(i);
                }
                let closes = self
                    .pending
                    .iter()
                    .any(|(_, p)| matches!(p, Pending::Close(_)));
                let ending =
                    self.closing.is_some() || self.timers.get(Timer::SuspendKill).is_some();
                if ending && !closes {
                    self.after_close();
                }
            }
        }
        let now = self.now;
        self.pump(now);
    }

    pub(super) fn op_failure(&self, kind: &OpKind, error: &Value) -> Failure {
        let name = self.agent().name;
        let what = match kind {
            OpKind::SetMode(id) => format!("set the mode {id}"),
            OpKind::SetConfig(id, _) => format!("set the option {id}"),
            OpKind::SetModel(id) => format!("set the model {id}"),
            OpKind::Authenticate(id) => format!("authenticate with {id}"),
            OpKind::Open => "open the session".to_owned(),
            OpKind::List(_) => "list its sessions".to_owned(),
            OpKind::Delete(id) => format!("delete session {id}"),
            OpKind::Logout => "log out".to_owned(),
            OpKind::Fork(_) => "fork the session".to_owned(),
        };
        let code = error.get("code").and_then(Value::as_i64);
        let kind = match code {
            Some(AUTH_REQUIRED) => AgentErrorKind::AuthError,
            Some(INVALID_PARAMS) | Some(METHOD_NOT_FOUND) => AgentErrorKind::InvalidParams,
            _ => AgentErrorKind::RequestRejected,
        };
        Failure::new(
            kind,
            format!("{name} could not {what}: {}", error_text(error)),
        )
    }
}

/// JSON-RPC's "request cancelled" (-32800): the answer to a request the
/// agent cancelled.
pub(super) fn request_cancelled() -> Value {
    rpc_error(crate::acp::REQUEST_CANCELLED, "Request cancelled", None)
}
