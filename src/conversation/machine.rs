//! The conversation's machine, sans IO: which agent session runs its next
//! turn, what that turn carries, and what the record holds of it. Events
//! in (the app's prompt, a handoff; a part opened or not; a turn done;
//! the record's lines), actions out (open a part with these options and
//! this record start, send the turn, close a part, a handoff event, the
//! turn done). The host opens the agents' sessions, moves their bytes and
//! keeps the store; it decides nothing.
//!
//! - **Parts.** The conversation's agent sessions, one after another: the
//!   first, then each one it went on with. Opening fails over too: when
//!   the first agent cannot start for a reason another may not have
//!   (`command_not_found`, `auth_error`, …), the next of `fallback` opens.
//! - **Failover.** A turn that fails in such a way, when `fallback` has
//!   another agent, is not ended: its attempt is (`attemptEnd`), the part
//!   is closed, the next agent opens as a new part (`failover`), and the
//!   same turn goes on there carrying the conversation — its request once.
//!   With `hostCarries` (a team member) the host plans what the turn
//!   carries, and the machine says the turn continues instead.
//! - **Handoff** moves the conversation to another agent: the new part is
//!   its live end, the old one closed once the new one is open.
//! - **Rebuild.** Reopening a part whose agent session cannot be reopened
//!   (`session_not_found`) opens a new one carrying the conversation, when
//!   asked for.

use std::cell::RefCell;
use std::collections::VecDeque;

use serde_json::{json, Value};

pub use super::events::{Action, Event, SessionRef, Setup};
use super::fallback::{agent_type_of, hands_off, options_for, own_options};
use super::tracked::Tracked;
use crate::error::{AgentContextError, Result};
use crate::record::{
    Carried, ConversationState, Header, Page, PageIndex, PartRead, PartReason, ReadOptions,
    TurnEndError,
};

/// An agent session of the conversation, as the machine holds it.
#[derive(Clone, Debug, PartialEq)]
struct Live {
    part: u64,
    agent: Value,
    /// The agent of `fallback` it runs (0: the conversation's own).
    used: usize,
    session_id: Option<String>,
}

/// Why a part is opening.
#[derive(Clone, Debug, PartialEq)]
enum Why {
    /// The conversation's first part (`used`: the agent of `fallback` tried).
    Open,
    /// The live part reopened (its agent session resumed or loaded).
    Reopen,
    Rebuild,
    Failover {
        ask: u64,
        reason: String,
        from: SessionRef,
    },
    Handoff,
}

/// One conversation; see the module's documentation.
#[derive(Debug)]
pub struct Conversation {
    setup: Setup,
    /// The record as it stands (header and lines), and what it says.
    record: Vec<u8>,
    /// The record's pages, read as it grows (by [`Conversation::page`]).
    pages: RefCell<PageIndex>,
    state: Tracked,
    live: Option<Live>,
    opening: Option<(Live, Why)>,
    next_part: u64,
    /// The live part's next turn carries the conversation.
    carry: bool,
    running: Option<u64>,
    /// The app's turns after the running one, in the order asked (one
    /// turn at a time: each waits for the one before it, and for a new
    /// part to open after a failover or a handoff).
    waiting: VecDeque<(u64, bool)>,
    /// The failure a failed-over ask ends with when no agent takes it.
    failing: Option<(u64, String, String)>,
    /// The agent session the running ask went on with (a failover).
    handed_off: Option<(u64, SessionRef)>,
    closed: bool,
    actions: VecDeque<Action>,
}

impl Conversation {
    /// A new conversation: nothing recorded yet.
    pub fn new(setup: Setup) -> Conversation {
        Conversation {
            setup,
            record: Vec::new(),
            pages: RefCell::default(),
            state: Tracked::default(),
            live: None,
            opening: None,
            next_part: 0,
            carry: false,
            running: None,
            waiting: VecDeque::new(),
            failing: None,
            handed_off: None,
            closed: false,
            actions: VecDeque::new(),
        }
    }

    /// A conversation reopened from its record (`record`, its bytes, read
    /// once): its live part is reopened on `start`. `asked`: the agent
    /// session the app asked for, which must be the live part's —
    /// `SESSION_MOVED` naming the live end otherwise.
    pub fn restore(
        mut setup: Setup,
        record: Vec<u8>,
        asked: Option<&str>,
        now: u64,
    ) -> Result<Conversation> {
        let state = ConversationState::of(&record)?;
        let header = state.header.clone().ok_or_else(|| {
            AgentContextError::invalid(
                "the conversation's record has no header: it is not a conversation",
            )
        })?;
        let live = state.live().cloned().ok_or_else(|| {
            AgentContextError::invalid(format!(
                "conversation \"{}\" has no agent session to go on with",
                header.id()
            ))
        })?;
        if let Some(asked) = asked.filter(|a| *a != live.session_id) {
            return Err(moved(header.id(), &live, asked));
        }
        setup.id = header.id().to_owned();
        setup.created_at = header.created_at;
        if setup.team.is_none() {
            setup.team = state.team_id.clone().zip(state.member_id.clone());
        }
        let mut me = Conversation::new(setup);
        me.state = Tracked::of(&state, true);
        me.record = record;
        if !me.record.is_empty() && !me.record.ends_with(b"\n") {
            // A torn last line ends here; the next entry starts on its own.
            me.record.push(b'\n');
            me.write("\n".to_owned());
        }
        if let Some(open) = me.state.open_turn.take() {
            // Its writer went away: the turn never ended.
            let line = crate::record::RecordEntry {
                seq: me.state.cursor + 1,
                at: now,
                turn: Some(open.turn),
                body: crate::record::Entry::Interrupted,
            }
            .line();
            me.own_lines(line);
        }
        let (agent, used) = me.agent_of(&live);
        me.live = Some(Live {
            part: 0,
            agent,
            used,
            session_id: Some(live.session_id.clone()).filter(|s| !s.is_empty()),
        });
        Ok(me)
    }

    /// A fork: a new conversation whose record holds `record` (its
    /// parent's lines up to the turn it forked at, [`super::fork_record`]).
    /// Its first part carries them, unless `own` (the agent forked its own
    /// session, which holds them).
    /// `given`: the fork's own options, over its parent's (those that
    /// belong to the parent's agent left out when it forks to another).
    pub fn forked(
        mut setup: Setup,
        record: Vec<u8>,
        own: bool,
        given: &Value,
        other_agent: bool,
    ) -> Result<Conversation> {
        let state = ConversationState::of(&record)?;
        let base = match other_agent {
            true => options_for(&setup.options, &Value::Null),
            false => own_options(&setup.options),
        };
        let mut base = match base {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        base.remove("sessionId");
        if let Value::Object(given) = given {
            base.extend(given.clone());
        }
        setup.options = Value::Object(base);
        let mut me = Conversation::new(setup);
        me.state = Tracked::of(&state, false);
        me.record = record;
        me.carry = !own;
        let copied = String::from_utf8_lossy(&me.record[first_line_end(&me.record)..]).into_owned();
        me.write(copied);
        Ok(me)
    }

    /// The conversation's id.
    pub fn id(&self) -> &str {
        &self.setup.id
    }

    /// The turns recorded so far.
    pub fn turns(&self) -> u32 {
        self.state.turns
    }

    /// The record as it stands (the header first).
    pub fn record(&self) -> &[u8] {
        &self.record
    }

    /// The page of the record after `options.after`, unchecked (as
    /// [`crate::record::conversation_page`]'s): only the lines recorded
    /// since the last page are read anew.
    pub fn page(&self, options: ReadOptions) -> Result<Page<'_>> {
        self.pages.borrow_mut().page(&self.record, options)
    }

    /// The live part's agent (a type, or a definition) and its type.
    pub fn live_agent(&self) -> Option<(&Value, &str)> {
        self.live
            .as_ref()
            .map(|l| (&l.agent, agent_type_of(&l.agent)))
    }

    /// Which entry of `fallback` the live part's agent is (0: the
    /// conversation's own).
    pub fn live_fallback_index(&self) -> Option<usize> {
        self.live.as_ref().map(|l| l.used)
    }

    /// Whether the live part's next turn carries the conversation, and
    /// what it carries: the conversation so far, its open turn left out.
    pub fn carried(&self) -> Result<Option<Carried>> {
        // A team member's turns carry what the team plans, never this.
        if !self.carry || self.setup.host_carries {
            return Ok(None);
        }
        let agent = self.live_agent().map_or("agent", |(_, t)| t);
        crate::record::carry(&self.record, agent, None).map(Some)
    }

    /// The header line a new conversation's record starts with.
    pub fn header_line(&self) -> String {
        Header::new(&self.setup.id, self.setup.created_at).line()
    }

    /// Lines an agent session of the conversation recorded (appended to the
    /// record, in order).
    pub fn lines(&mut self, lines: &[u8]) {
        self.state.follow(lines);
        self.record.extend_from_slice(lines);
    }

    /// The next action, in order.
    pub fn poll(&mut self) -> Option<Action> {
        self.actions.pop_front()
    }

    /// Feeds an event at `now`.
    pub fn handle(&mut self, event: Event, now: u64) -> Result<()> {
        if self.closed {
            return match event {
                Event::Close => Ok(()),
                // A turn that ran while it was closed ends as its agent
                // ended it (stopped): never moved on to another agent.
                Event::TurnDone { ask, .. } if self.running == Some(ask) => {
                    self.running = None;
                    self.actions.push_back(Action::Done {
                        ask,
                        handed_off_to: None,
                        continues: false,
                    });
                    Ok(())
                }
                _ => Err(AgentContextError::invalid("the conversation is closed")),
            };
        }
        match event {
            Event::Start => self.start(),
            Event::Opened { part, session_id } => self.opened(part, session_id),
            Event::OpenFailed {
                part,
                kind,
                message,
            } => self.open_failed(part, &kind, &message, now),
            Event::Prompt { ask, continues } => self.prompt(ask, continues),
            Event::TurnDone {
                ask,
                success,
                kind,
                message,
                session_id,
            } => self.turn_done(ask, success, kind, message, session_id),
            Event::Handoff { agent, options } => self.handoff(agent, options),
            Event::Close => {
                self.closed = true;
                // Turns that never ran end with no result (the host says so).
                for (ask, _) in std::mem::take(&mut self.waiting) {
                    self.actions.push_back(Action::Done {
                        ask,
                        handed_off_to: None,
                        continues: false,
                    });
                }
                if let Some(live) = self.live.take() {
                    self.actions.push_back(Action::ClosePart {
                        part: live.part,
                        ends: true,
                    });
                }
                if let Some((opening, _)) = self.opening.take() {
                    self.actions.push_back(Action::ClosePart {
                        part: opening.part,
                        ends: false,
                    });
                }
            }
        }
        Ok(())
    }

    // ----- opening -----

    fn start(&mut self) {
        if self.opening.is_some() {
            return;
        }
        match self.live.take() {
            // A restored conversation: its live part reopened.
            Some(live) => {
                let options = self.options_of(live.used);
                let resume = live.session_id.clone();
                let record = self.record_start(None);
                self.open(live, Why::Reopen, options, resume, record);
            }
            None => {
                let agent = self.setup.agent.clone();
                self.open_agent(agent, 0, Why::Open, PartReason::Opened);
            }
        }
    }

    /// Opens agent `agent` (of `fallback` entry `used`) as a new part.
    fn open_agent(&mut self, agent: Value, used: usize, why: Why, reason: PartReason) {
        let mut options = self.options_of(used);
        if why == Why::Rebuild {
            // A new agent session: the one that could not be reopened is not asked for.
            if let Value::Object(map) = &mut options {
                map.remove("sessionId");
            }
        }
        let from_turn = match self.state.open_turn {
            Some(open) => open.turn,
            None => self.state.turns + 1,
        };
        let record = self.record_start(Some(json!({
            "reason": reason.as_str(),
            "fromTurn": from_turn,
            "fallbackIndex": used,
        })));
        let live = Live {
            part: 0,
            agent,
            used,
            session_id: None,
        };
        self.open(live, why, options, None, record);
    }

    fn open(
        &mut self,
        mut live: Live,
        why: Why,
        options: Value,
        resume: Option<String>,
        record: Value,
    ) {
        self.next_part += 1;
        live.part = self.next_part;
        self.actions.push_back(Action::OpenPart {
            part: live.part,
            agent: live.agent.clone(),
            options,
            resume,
            record,
        });
        self.opening = Some((live, why));
    }

    /// The options the agent of `fallback` entry `used` runs with.
    fn options_of(&self, used: usize) -> Value {
        match used {
            0 => own_options(&self.setup.options),
            n => options_for(
                &self.setup.options,
                self.setup
                    .fallback
                    .get(n - 1)
                    .map_or(&Value::Null, |f| &f.options),
            ),
        }
    }

    /// Where the record of a part begins (`part`: a new part's start).
    fn record_start(&self, part: Option<Value>) -> Value {
        let mut start = json!({
            "nextSeq": self.state.cursor + 1,
            "turns": self.state.turns,
            "openTurn": self.state.open_turn.map(|o| json!({ "turn": o.turn, "attempts": o.attempts })),
        });
        if let Some(mut part) = part {
            if let Some((team, member)) = &self.setup.team {
                part["teamId"] = json!(team);
                part["memberId"] = json!(member);
            }
            start["part"] = part;
        }
        start
    }

    fn opened(&mut self, part: u64, session_id: Option<String>) {
        let Some((mut live, why)) = self.opening.take_if(|(l, _)| l.part == part) else {
            return;
        };
        live.session_id = session_id;
        let old = self.live.replace(live.clone());
        let to = SessionRef {
            session_id: live.session_id.clone(),
            agent_type: agent_type_of(&live.agent).to_owned(),
            fallback_index: live.used,
        };
        match why {
            Why::Open | Why::Reopen => {
                if self.record.is_empty() {
                    // The store writes it when it opens the record.
                    let header = self.header_line();
                    self.lines(header.as_bytes());
                }
                self.actions.push_back(Action::Opened);
                self.next_turn();
            }
            Why::Rebuild => {
                self.carry = true;
                self.actions.push_back(Action::Opened);
                self.next_turn();
            }
            Why::Handoff => {
                self.carry = true;
                if let Some(old) = old {
                    self.actions.push_back(Action::ClosePart {
                        part: old.part,
                        ends: false,
                    });
                }
                self.actions.push_back(Action::HandedOff { part });
                self.next_turn();
            }
            Why::Failover { ask, reason, from } => {
                self.failing = None;
                self.handed_off = Some((ask, to.clone()));
                let event = json!({ "type": "handoff", "reason": reason, "from": from.event_json(), "to": to.event_json() });
                self.actions.push_back(Action::Event { ask, event });
                if self.setup.host_carries {
                    self.running = None;
                    self.actions.push_back(Action::Done {
                        ask,
                        handed_off_to: Some(to),
                        continues: true,
                    });
                    self.next_turn();
                } else {
                    self.carry = true;
                    self.send(ask);
                }
            }
        }
    }

    fn open_failed(&mut self, part: u64, kind: &str, message: &str, now: u64) {
        let Some((live, why)) = self.opening.take_if(|(l, _)| l.part == part) else {
            return;
        };
        match why {
            Why::Open if hands_off(kind) => {
                if !self.next_agent(live.used, Why::Open, PartReason::Opened) {
                    self.fail(kind, message);
                }
            }
            Why::Reopen if kind == "session_not_found" && self.setup.rebuild => {
                let (agent, used) = (live.agent.clone(), live.used);
                self.open_agent(agent, used, Why::Rebuild, PartReason::Rebuild);
            }
            Why::Open | Why::Reopen | Why::Rebuild => self.fail(kind, message),
            Why::Failover { ask, reason, from } => {
                let why = Why::Failover { ask, reason, from };
                if !self.next_agent(live.used, why, PartReason::Failover) {
                    self.end_failed_turn(ask, now);
                }
            }
            Why::Handoff => self.actions.push_back(Action::HandoffFailed {
                kind: kind.to_owned(),
                message: message.to_owned(),
            }),
        }
    }

    /// Opens the agent of `fallback` after entry `after`; false when none is left.
    fn next_agent(&mut self, after: usize, why: Why, reason: PartReason) -> bool {
        let Some(next) = self.setup.fallback.get(after) else {
            return false;
        };
        let agent = next.agent.clone();
        self.open_agent(agent, after + 1, why, reason);
        true
    }

    fn fail(&mut self, kind: &str, message: &str) {
        self.actions.push_back(Action::Failed {
            kind: kind.to_owned(),
            message: message.to_owned(),
        });
    }

    // ----- turns -----

    fn prompt(&mut self, ask: u64, continues: bool) {
        self.waiting.push_back((ask, continues));
        self.next_turn();
    }

    /// The next waiting turn, sent once no turn runs and the live part is
    /// open.
    fn next_turn(&mut self) {
        if self.running.is_some() || self.opening.is_some() || self.live.is_none() {
            return;
        }
        let Some((ask, continues)) = self.waiting.pop_front() else {
            return;
        };
        if continues {
            // The host's plan of a turn that went on with another agent: it
            // carries what the host planned (no conversation of ours).
            self.carry = false;
        }
        self.send(ask);
    }

    fn send(&mut self, ask: u64) {
        let Some(live) = &self.live else {
            return;
        };
        self.running = Some(ask);
        let hands_off = self.setup.fallback.len() > live.used;
        let attempts_before = self.state.open_turn.map(|o| o.attempts);
        self.actions.push_back(Action::Send {
            ask,
            part: live.part,
            hands_off,
            attempts_before,
        });
    }

    /// The live part's turn was made ready and sent: what it carried is
    /// carried no more once it succeeds.
    fn turn_done(
        &mut self,
        ask: u64,
        success: bool,
        kind: Option<String>,
        message: Option<String>,
        session_id: Option<String>,
    ) {
        if self.running != Some(ask) {
            return;
        }
        if let (Some(id), Some(live)) = (session_id, self.live.as_mut()) {
            live.session_id = Some(id);
        }
        let kind = kind.unwrap_or_default();
        let live = self.live.clone();
        let failover = !success
            && hands_off(&kind)
            && live
                .as_ref()
                .is_some_and(|l| self.setup.fallback.len() > l.used);
        if success {
            self.carry = false;
        }
        let Some(live) = live.filter(|_| failover) else {
            self.running = None;
            let handed_off_to = self
                .handed_off
                .take()
                .filter(|(a, _)| *a == ask)
                .map(|(_, to)| {
                    // The session id the turn made known.
                    let id = self.live.as_ref().and_then(|l| l.session_id.clone());
                    SessionRef {
                        session_id: id.or(to.session_id),
                        ..to
                    }
                });
            self.actions.push_back(Action::Done {
                ask,
                handed_off_to,
                continues: false,
            });
            self.next_turn();
            return;
        };
        let from = SessionRef {
            session_id: live.session_id.clone(),
            agent_type: agent_type_of(&live.agent).to_owned(),
            fallback_index: live.used,
        };
        self.failing = Some((ask, kind.clone(), message.unwrap_or_default()));
        self.actions.push_back(Action::ClosePart {
            part: live.part,
            ends: false,
        });
        self.live = None;
        let why = Why::Failover {
            ask,
            reason: kind,
            from,
        };
        self.next_agent(live.used, why, PartReason::Failover);
    }

    /// No agent of `fallback` took ask `ask`'s turn: it ends as it failed.
    fn end_failed_turn(&mut self, ask: u64, now: u64) {
        let (kind, message) = match self.failing.take() {
            Some((_, kind, message)) => (kind, message),
            None => ("process_error".into(), String::new()),
        };
        if let Some(open) = self.state.open_turn {
            let line = crate::record::RecordEntry {
                seq: self.state.cursor + 1,
                at: now,
                turn: Some(open.turn),
                body: crate::record::Entry::TurnEnd(crate::record::TurnEnd {
                    error: Some(TurnEndError { kind, message }),
                    ..Default::default()
                }),
            }
            .line();
            self.own_lines(line);
        }
        self.running = None;
        self.actions.push_back(Action::Done {
            ask,
            handed_off_to: None,
            continues: false,
        });
        if self.live.is_none() {
            // No agent took the conversation: the turns after it never run.
            for (ask, _) in std::mem::take(&mut self.waiting) {
                self.actions.push_back(Action::Done {
                    ask,
                    handed_off_to: None,
                    continues: false,
                });
            }
        }
        self.next_turn();
    }

    // ----- handoff -----

    fn handoff(&mut self, agent: Value, options: Value) {
        if self.opening.is_some() || self.running.is_some() {
            self.actions.push_back(Action::HandoffFailed {
                kind: "invalid_params".into(),
                message: "handoff: the conversation is busy (a turn runs, or an agent is opening)"
                    .into(),
            });
            return;
        }
        let used = self.live.as_ref().map_or(0, |l| l.used);
        let options = options_for(&self.setup.options, &options);
        let record = self.record_start(Some(json!({
            "reason": "handoff",
            "fromTurn": self.state.turns + 1,
        })));
        let live = Live {
            part: 0,
            agent,
            // A handed-off conversation is past its fallback.
            used: self.setup.fallback.len().max(used),
            session_id: None,
        };
        self.open(live, Why::Handoff, options, None, record);
    }

    // ----- the record -----

    /// Lines the machine writes itself: kept, and handed to the host.
    fn own_lines(&mut self, lines: String) {
        self.lines(lines.as_bytes());
        self.write(lines);
    }

    fn write(&mut self, lines: String) {
        self.actions.push_back(Action::Write { lines });
    }

    /// The agent a recorded part ran, and which entry of `fallback` it is:
    /// the entry its `fallbackIndex` names, else one of the same agent type.
    fn agent_of(&self, part: &PartRead) -> (Value, usize) {
        let entry = |n: usize| match n {
            0 => Some(&self.setup.agent),
            n => self.setup.fallback.get(n - 1).map(|f| &f.agent),
        };
        if let Some(n) = part.fallback_index {
            if let Some(agent) = entry(n).filter(|a| agent_type_of(a) == part.agent_type) {
                return (agent.clone(), n);
            }
        }
        for n in 0..=self.setup.fallback.len() {
            if let Some(agent) = entry(n).filter(|a| agent_type_of(a) == part.agent_type) {
                return (agent.clone(), n);
            }
        }
        // An agent none of the options name: its type, past the fallback.
        (json!(part.agent_type), self.setup.fallback.len())
    }
}

/// Where the first line (the header) of `record` ends.
fn first_line_end(record: &[u8]) -> usize {
    record.iter().position(|&b| b == b'\n').map_or(0, |i| i + 1)
}

/// `SESSION_MOVED`: agent session `asked` is no longer conversation `id`'s
/// live end (`live`).
pub fn moved(id: &str, live: &PartRead, asked: &str) -> AgentContextError {
    AgentContextError::new(
        crate::error::ErrorCode::SessionMoved,
        format!(
            "agent session \"{asked}\" is no longer where conversation \"{id}\" goes on: it moved to {} (session \"{}\"); open the conversation (openConversation) or that session",
            live.agent_type, live.session_id
        ),
    )
    .with_details(json!({
        "conversationId": id,
        "sessionId": live.session_id,
        "agentType": live.agent_type,
    }))
}

#[cfg(test)]
#[path = "machine_tests.rs"]
mod tests;
