//! The session record, kept as the engine runs: each recorded session has
//! a [`Recorder`] (`crate::record`), and what happens to the session — it
//! opened, a turn's request, its reply's events, permissions, the turn's
//! end, mode and model changes, a crash, a reopen, a link, its close — is
//! turned into record lines handed to the host as [`Action::Record`] (the
//! host keeps them in memory and appends them to its conversation's
//! record). A session is one part of a conversation: the host says where
//! the conversation's record stands ([`RecordStart`]), and the engine goes
//! on numbering from there; the conversation's header is the host's.

use crate::acp::session::SessionStep;
use crate::agent_output::AgentEvent;
use crate::error_kind::AgentErrorKind;
use crate::launch::attachments::Attachment;
use crate::record::RecordStart;
use crate::record::{Part, Recorder, TurnOutcome};

use super::state::SessionRecord;

use super::action::Action;
use super::engine::Engine;
use super::result::TurnResult;

impl Engine {
    /// Records session `key` from now on, from `start` (see
    /// [`RecordStart`]); `secrets`: values never written (the endpoint's
    /// key, the environment's values).
    pub fn record(&mut self, key: u64, start: RecordStart, secrets: &[String], now: u64) {
        self.now = now;
        let recorder =
            Recorder::seeded(start.seed).with_secrets(secrets.iter().map(String::as_str));
        self.records.retain(|r| r.key != key);
        let reopened = start.part.is_none();
        self.records.push(SessionRecord {
            key,
            recorder,
            op: None,
            opened: reopened,
            part: start.part,
            mode: None,
            model: None,
            next_text: None,
        });
        // Recording a session already open: it is written as opened now
        // (the live part reopened: as resumed or loaded).
        if let Some(i) = self.at(key) {
            if self.sessions[i].setup == super::state::Setup::Ready {
                let s = &self.sessions[i];
                let step = match (&s.cfg, &s.keep_session) {
                    (Some(_), _) => s.opened_by,
                    (None, Some(_)) => Some(SessionStep::Resume),
                    (None, None) => None,
                };
                if reopened && !step.is_some_and(|s| s != SessionStep::New) {
                    // Reopened as a new session: nothing to say of it.
                    let snap = self.sessions[i].snapshot.clone();
                    if let Some(r) = self.rec_mut(key) {
                        r.opened = true;
                        r.mode = snap.mode;
                        r.model = snap.model;
                    }
                    return;
                }
                self.record_ready(i, step);
            }
        }
    }

    /// Session `key` is no longer recorded here, and nothing more is
    /// written of it (the conversation goes on with another part).
    pub fn stop_recording(&mut self, key: u64) {
        self.records.retain(|r| r.key != key);
    }

    /// Whether session `key`'s hands-off failures end an attempt rather
    /// than the turn (the conversation has another agent to go on with),
    /// and how many attempts its next turn had before (a turn another part
    /// began).
    pub fn conversation_turns(&mut self, key: u64, hands_off: bool, attempts_before: Option<u32>) {
        if let Some(i) = self.at(key) {
            let s = &mut self.sessions[i];
            s.hands_off = hands_off;
            if attempts_before.is_some() {
                s.attempts_before = attempts_before;
            }
        }
    }

    /// The next request of session `key` is recorded as `text`.
    pub fn record_next_as(&mut self, key: u64, text: &str) {
        if let Some(r) = self.rec_mut(key) {
            r.next_text = Some(text.to_owned());
        }
    }

    pub(super) fn is_recorded(&self, key: u64) -> bool {
        self.records.iter().any(|r| r.key == key)
    }

    fn rec_mut(&mut self, key: u64) -> Option<&mut SessionRecord> {
        self.records.iter_mut().find(|r| r.key == key)
    }

    /// Hands `lines` to the host.
    fn emit_record(&mut self, key: u64, lines: String) {
        // Most of a turn's events write nothing (text is held).
        if lines.is_empty() {
            return;
        }
        self.actions.push_back(Action::Record {
            session: key,
            lines,
        });
    }

    /// Session `i` is open (`step`: how, over ACP): its `part` the first
    /// time (a new part of the conversation), `resumed` or `loaded` when it
    /// was reopened, `restarted` when its process was started again.
    pub(super) fn record_ready(&mut self, i: usize, step: Option<SessionStep>) {
        let key = self.sessions[i].key;
        let snap = self.sessions[i].snapshot.clone();
        let protocol = if self.cfg.is_acp() { "acp" } else { "cli" };
        let cd = match self.sessions[i].cfg.as_deref() {
            Some(c) => c.options.cd.clone(),
            None => self.options().cd.clone(),
        };
        let agent_type = self.agent().agent_type;
        let now = self.now;
        let Some(r) = self.rec_mut(key) else { return };
        let id = snap.session_id.clone().unwrap_or_default();
        let lines = match (r.opened, step) {
            (false, _) => {
                r.opened = true;
                r.mode.clone_from(&snap.mode);
                r.model.clone_from(&snap.model);
                let start = r.part.take().unwrap_or_default();
                let (team_id, member_id) = start.team.unzip();
                r.recorder.part(
                    now,
                    Part {
                        session_id: snap.session_id.clone(),
                        agent_type: agent_type.to_owned(),
                        protocol: protocol.to_owned(),
                        reason: start.reason,
                        from_turn: start.from_turn.max(1),
                        fallback_index: start.fallback_index,
                        cd,
                        model: snap.model.clone(),
                        mode: snap.mode.clone(),
                        team_id,
                        member_id,
                    },
                )
            }
            (true, Some(step @ (SessionStep::Load | SessionStep::Resume))) => {
                r.mode.clone_from(&snap.mode);
                r.model.clone_from(&snap.model);
                match step {
                    SessionStep::Load => r.recorder.loaded(now, &id),
                    _ => r.recorder.resumed(now, &id),
                }
            }
            (true, _) => r.recorder.restarted(now),
        };
        self.emit_record(key, lines);
    }

    /// Session `i`'s running turn starts an attempt: its request is
    /// recorded with the first (a turn another part began is not asked
    /// again), and its reply's events are read for the record.
    pub(super) fn record_request(&mut self, i: usize) {
        let key = self.sessions[i].key;
        let now = self.now;
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        if turn.attempts > 0 {
            if turn.recorded {
                if let Some(r) = self.records.iter_mut().find(|r| r.key == key) {
                    r.recorder.attempt_start();
                }
            }
            return;
        }
        if !self.records.iter().any(|r| r.key == key) {
            return;
        }
        turn.recorded = true;
        let op = turn.op;
        let attachments: Vec<Attachment> = std::mem::take(&mut turn.attachments);
        let text = turn.blocks.as_array().map_or_else(String::new, |blocks| {
            blocks[..turn.attachments_from.min(blocks.len())]
                .iter()
                .filter_map(|b| b.get("text").and_then(serde_json::Value::as_str))
                .collect::<Vec<_>>()
                .join("\n\n")
        });
        let Some(r) = self.rec_mut(key) else { return };
        r.op = Some(op);
        let text = r.next_text.take().unwrap_or(text);
        let lines = r.recorder.request(now, &text, &attachments);
        r.recorder.attempt_start();
        self.emit_record(key, lines);
    }

    /// Turn `op`'s running attempt failed (`kind`, `message`) and another
    /// follows, or the turn goes on with the conversation's next agent:
    /// its `attemptEnd` (the text it streamed, never a reply).
    pub(super) fn record_attempt_end(&mut self, op: u64, kind: AgentErrorKind, message: &str) {
        let now = self.now;
        let Some(r) = self.records.iter_mut().find(|r| r.op == Some(op)) else {
            return;
        };
        let key = r.key;
        let lines = r.recorder.attempt_end(now, kind, message);
        self.emit_record(key, lines);
    }

    /// An event of turn `op`'s reply.
    pub(super) fn record_event(&mut self, op: u64, event: &AgentEvent) {
        let now = self.now;
        let Some(r) = self.records.iter_mut().find(|r| r.op == Some(op)) else {
            return;
        };
        let key = r.key;
        let lines = r.recorder.event(now, event);
        self.emit_record(key, lines);
    }

    /// An event of session `key` outside a turn (a compaction between
    /// turns).
    pub(super) fn record_session_event(&mut self, key: u64, event: &AgentEvent) {
        let now = self.now;
        let Some(r) = self.rec_mut(key) else { return };
        let lines = r.recorder.event(now, event);
        self.emit_record(key, lines);
    }

    /// What an action about to be handed over means for the record: a
    /// turn's end, a permission asked, the process closed; and any change
    /// of a session's mode or model since.
    pub(super) fn record_action(&mut self, action: &Action) {
        let now = self.now;
        match action {
            Action::Done {
                op,
                outcome: super::action::Outcome::Turn(result),
            } => self.record_turn_end(*op, result),
            Action::Host {
                request: super::action::HostRequest::Permission(params),
                ..
            } => {
                if let Some(key) = self.key_of_params(params) {
                    if let Some(r) = self.rec_mut(key) {
                        let lines = r.recorder.permission_asked(now, params);
                        self.emit_record(key, lines);
                    }
                }
            }
            Action::Closed => {
                for key in self.records.iter().map(|r| r.key).collect::<Vec<_>>() {
                    self.record_closed(key);
                }
            }
            Action::Done { .. } | Action::Update(_) | Action::SessionUpdate { .. } => {}
            _ => return,
        }
        self.record_settings();
    }

    /// The host answered a permission request of session `key`.
    pub(super) fn record_permission_answer(
        &mut self,
        key: Option<u64>,
        params: &serde_json::Value,
        answer: &serde_json::Value,
    ) {
        let now = self.now;
        let Some(key) = key.or_else(|| self.key_of_params(params)) else {
            return;
        };
        if let Some(r) = self.rec_mut(key) {
            let lines = r.recorder.permission_answered(now, params, answer);
            self.emit_record(key, lines);
        }
    }

    /// The process of session `key` ended in its turn, unasked.
    pub(super) fn record_crash(
        &mut self,
        key: u64,
        end: &crate::attempt::AttemptEnd,
        last: &[String],
    ) {
        let now = self.now;
        if let Some(r) = self.rec_mut(key) {
            let lines = r
                .recorder
                .crashed(now, end.exit_code, end.signal.as_deref(), last);
            self.emit_record(key, lines);
        }
    }

    /// Session `key` closed (once).
    pub(super) fn record_closed(&mut self, key: u64) {
        let now = self.now;
        if let Some(at) = self.records.iter().position(|r| r.key == key) {
            let mut r = self.records.remove(at);
            let lines = r.recorder.closed(now);
            self.records.push(r);
            self.emit_record(key, lines);
            self.records.retain(|r| r.key != key);
        }
    }

    fn record_turn_end(&mut self, op: u64, result: &TurnResult) {
        let now = self.now;
        let Some(at) = self.records.iter().position(|r| r.op == Some(op)) else {
            return;
        };
        let key = self.records[at].key;
        let failed = result
            .error
            .as_ref()
            .filter(|e| e.kind != AgentErrorKind::Aborted)
            .map(|e| (e.kind, e.message.clone()));
        let hands_off = self.at(key).is_some_and(|i| self.sessions[i].hands_off);
        let r = &mut self.records[at];
        r.op = None;
        let mut lines = String::new();
        if let Some((kind, message)) = &failed {
            lines.push_str(&r.recorder.attempt_end(now, *kind, message));
            if hands_off && kind.hands_off() {
                // The turn goes on with the conversation's next agent.
                r.recorder.leave_turn();
                return self.emit_record(key, lines);
            }
        }
        lines.push_str(&r.recorder.turn_end(now, &outcome_of(result)));
        self.emit_record(key, lines);
    }

    /// A mode or model that changed since it was last written.
    fn record_settings(&mut self) {
        let now = self.now;
        for n in 0..self.records.len() {
            let key = self.records[n].key;
            let Some(i) = self.at(key) else { continue };
            let (mode, model) = {
                let s = &self.sessions[i].snapshot;
                (s.mode.clone(), s.model.clone())
            };
            let r = &mut self.records[n];
            if !r.opened {
                continue;
            }
            let mut lines = String::new();
            if let Some(m) = mode.as_deref().filter(|m| r.mode.as_deref() != Some(m)) {
                lines.push_str(&r.recorder.mode(now, m));
                r.mode = mode.clone();
            }
            if let Some(m) = model.as_deref().filter(|m| r.model.as_deref() != Some(m)) {
                lines.push_str(&r.recorder.model(now, m));
                r.model = model.clone();
            }
            self.emit_record(key, lines);
        }
    }

    /// The session a request's params name (`sessionId`), by its key.
    fn key_of_params(&self, params: &serde_json::Value) -> Option<u64> {
        let id = params.get("sessionId").and_then(serde_json::Value::as_str);
        self.sessions
            .iter()
            .find(|s| id.is_some() && s.snapshot.session_id.as_deref() == id)
            .or_else(|| (self.sessions.len() == 1).then(|| &self.sessions[0]))
            .map(|s| s.key)
    }
}

/// How a turn ended, as the record keeps it.
fn outcome_of(result: &TurnResult) -> TurnOutcome {
    TurnOutcome {
        stop_reason: result.stop_reason.clone(),
        error: result.error.as_ref().map(|e| (e.kind, e.message.clone())),
        usage: result.reply.usage.clone(),
        duration_ms: result.duration_ms,
    }
}
