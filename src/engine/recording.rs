//! The session record, kept as the engine runs: each recorded session has
//! a [`Recorder`] (`crate::record`), and what happens to the session — it
//! opened, a turn's request, its reply's events, permissions, the turn's
//! end, mode and model changes, a crash, a reopen, a link, its close — is
//! turned into record lines handed to the host as [`Action::Record`] (the
//! host keeps them in memory and appends them to its store). The record's
//! header comes once the agent's session id is known (over ACP when the
//! session opens; over a CLI that makes it, after the first turn).

use crate::acp::session::SessionStep;
use crate::agent_output::AgentEvent;
use crate::error::Result;
use crate::launch::attachments::Attachment;
use crate::record::{Header, Opened, Recorder, Relation, TurnOutcome};

use super::state::SessionRecord;

use super::action::Action;
use super::engine::Engine;
use super::result::TurnResult;

impl Engine {
    /// Records session `key` from now on. `prior`: the record it goes on
    /// (restored after a restart; its unfinished turn is marked
    /// `interrupted` first); `secrets`: values never written (the
    /// endpoint's key, the environment's values). A record of a newer
    /// major version is `INVALID_INPUT`.
    pub fn record(
        &mut self,
        key: u64,
        prior: Option<&[u8]>,
        secrets: &[String],
        now: u64,
    ) -> Result<()> {
        self.record_member(key, prior, secrets, None, now)
    }

    /// [`Engine::record`] of a team member's session: `team`, the team's
    /// id and the member's, written in its `opened` entry.
    pub fn record_member(
        &mut self,
        key: u64,
        prior: Option<&[u8]>,
        secrets: &[String],
        team: Option<(String, String)>,
        now: u64,
    ) -> Result<()> {
        self.now = now;
        let (recorder, first) = match prior {
            Some(bytes) => Recorder::continuing(bytes, now)?,
            None => (Recorder::new(), String::new()),
        };
        let recorder = recorder.with_secrets(secrets.iter().map(String::as_str));
        self.records.retain(|r| r.key != key);
        self.records.push(SessionRecord {
            key,
            recorder,
            headed: prior.is_some(),
            created_at: now,
            op: None,
            opened: false,
            mode: None,
            model: None,
            next_text: None,
            team,
        });
        self.emit_record(key, first);
        // Recording a session already open: it is written as opened now
        // (a record that goes on: as resumed or loaded).
        if let Some(i) = self.at(key) {
            if self.sessions[i].setup == super::state::Setup::Ready {
                let s = &self.sessions[i];
                let step = match (&s.cfg, &s.keep_session) {
                    (Some(_), _) => s.opened_by,
                    (None, Some(_)) => Some(SessionStep::Resume),
                    (None, None) => None,
                };
                if prior.is_some() && step.is_some_and(|s| s != SessionStep::New) {
                    if let Some(r) = self.rec_mut(key) {
                        r.opened = true;
                    }
                }
                self.record_ready(i, step);
            }
        }
        Ok(())
    }

    /// The next request of session `key` is recorded as `text`.
    pub fn record_next_as(&mut self, key: u64, text: &str) {
        if let Some(r) = self.rec_mut(key) {
            r.next_text = Some(text.to_owned());
        }
    }

    /// Another session relates to session `key` (handed off, forked,
    /// rebuilt, to or from it).
    pub fn record_link(
        &mut self,
        key: u64,
        relation: Relation,
        session_id: &str,
        agent_type: &str,
        now: u64,
    ) {
        self.now = now;
        let lines = match self.rec_mut(key) {
            Some(r) => r.recorder.link(now, relation, session_id, agent_type),
            None => return,
        };
        self.emit_record(key, lines);
    }

    pub(super) fn is_recorded(&self, key: u64) -> bool {
        self.records.iter().any(|r| r.key == key)
    }

    fn rec_mut(&mut self, key: u64) -> Option<&mut SessionRecord> {
        self.records.iter_mut().find(|r| r.key == key)
    }

    /// Hands `lines` to the host, with the header first when the session's
    /// id just became known.
    fn emit_record(&mut self, key: u64, lines: String) {
        // Most of a turn's events write nothing (text is held): no lookup.
        if lines.is_empty() && self.records.iter().any(|r| r.key == key && r.headed) {
            return;
        }
        let id = self
            .at(key)
            .and_then(|i| self.sessions[i].snapshot.session_id.clone());
        let agent_type = self.agent().agent_type;
        let Some(r) = self.rec_mut(key) else { return };
        let header = match (&id, r.headed) {
            (Some(id), false) => {
                r.headed = true;
                Some(Header::new(id, agent_type, r.created_at).line())
            }
            _ => None,
        };
        if lines.is_empty() && header.is_none() {
            return;
        }
        self.actions.push_back(Action::Record {
            session: key,
            header,
            lines,
        });
    }

    /// Session `i` is open (`step`: how, over ACP): `opened` the first
    /// time, `resumed` or `loaded` when it was reopened (a restart).
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
                let (team_id, member_id) = r.team.clone().unzip();
                r.recorder.opened(
                    now,
                    Opened {
                        agent_type: agent_type.to_owned(),
                        protocol: protocol.to_owned(),
                        cd,
                        model: snap.model.clone(),
                        mode: snap.mode.clone(),
                        agent_session_id: snap.session_id.clone(),
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

    /// Session `i`'s running turn starts: its request is recorded, and its
    /// reply's events are read for the record.
    pub(super) fn record_request(&mut self, i: usize) {
        let key = self.sessions[i].key;
        let now = self.now;
        let Some(turn) = self.sessions[i].turn.as_mut() else {
            return;
        };
        if turn.attempts > 0 || !self.records.iter().any(|r| r.key == key) {
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
        let Some(r) = self.records.iter_mut().find(|r| r.op == Some(op)) else {
            return;
        };
        r.op = None;
        let key = r.key;
        let lines = r.recorder.turn_end(now, &outcome_of(result));
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
