//! The team's state machine, sans IO: events in (a message posted, a
//! member asked, its session opened or not, its turn done), actions out
//! (open a session with these options, prompt it with this request, close
//! it, the ask is done or failed, log this). The host opens the sessions,
//! moves the bytes and feeds back what happened; every decision is here:
//! when a session is opened, resumed or found lost, what each turn sends,
//! what the member's mark becomes, what joins the transcript.
//!
//! - A member's turns run one after another (later asks wait in its
//!   queue); different members' turns run side by side.
//! - No session: the member's stored session is resumed, with its
//!   instructions again where its agent takes them on a reopened session
//!   (else the next prompt opens with them); with none stored, the full
//!   prompt is planned and a new session opened with the instructions its
//!   layout keeps apart as the system prompt.
//! - A session the agent lost (`session_not_found` on resuming, or from a
//!   turn, once per ask): the member starts a new one with the whole view.
//! - A turn done: the mark moves to the plan's (the prompt reached the
//!   session, whatever the turn came to), and a successful reply with text
//!   joins the transcript.

use std::collections::VecDeque;

use serde_json::{json, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::input_keys::TEAM_MEMBER;
use crate::prompt::input::ContextMessage;
use crate::prompt::output::AssemblerOutput;

use super::events::{Action, Cause, Event};
use super::members::{check_team_family, MemberRecord, Runs, TeamConfig, SESSION_OPTIONS};
use super::record::TeamRecorder;
use super::state::{message_json, read_message, Seat, TeamState};
use super::turn::{plan_turn, TeamTurn, TurnKind, TurnRequest};

mod fallback;
use fallback::Fallback;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Session {
    None,
    /// Reopening the stored session.
    Resuming,
    /// Opening a new one for the planned full prompt.
    Opening,
    Open,
}

#[derive(Clone, Debug)]
struct Ask {
    id: u64,
    message: String,
    reply_to: Option<String>,
}

#[derive(Clone, Debug)]
struct Turn {
    ask: Ask,
    plan: Option<TeamTurn>,
    /// UTF-8 bytes sent for it: the prompt, and the instructions that went
    /// with the opening of its session.
    bytes: usize,
    /// Its session was reopened with the instructions kept apart.
    system_given: bool,
    /// A new session was started after one was lost in this ask.
    retried: bool,
    /// The agent it went on with after its own failed (`fallback`).
    handed_off: Option<String>,
}

/// A member's live side (never stored).
#[derive(Clone, Debug)]
struct Live {
    runs: Runs,
    session: Session,
    /// The open session has been through the member's mark.
    holds: bool,
    /// The open session holds the member's instructions.
    system_held: bool,
    /// The instructions its layout keeps apart (a resumed session's).
    flag_instructions: Option<String>,
    queue: VecDeque<Ask>,
    turn: Option<Turn>,
    /// The agents it goes on with when its own fails (its `fallback`).
    fallback: Vec<Fallback>,
    /// The running turn went on with another agent: its next prompt
    /// continues it there.
    continues: bool,
}

/// A team conversation's machine.
#[derive(Debug)]
pub struct TeamMachine {
    state: TeamState,
    live: Vec<Live>,
    config: TeamConfig,
    next_ask: u64,
    closed: bool,
    debug: bool,
    actions: VecDeque<Action>,
    /// The team's own record, when it is kept in a store.
    recorder: Option<TeamRecorder>,
    /// The host's clock, as of the last event.
    now: u64,
}

const CLOSED: &str = "the team is closed (AgentTeam.fromJSON(team.toJSON(), options) continues it)";

impl TeamMachine {
    /// A team with no members yet; `debug`: log each plan's decisions and
    /// what is sent.
    pub fn new(team_task: Option<String>, cd: String, config: TeamConfig, debug: bool) -> Self {
        TeamMachine {
            state: TeamState {
                team_task,
                cd,
                ..TeamState::default()
            },
            live: Vec::new(),
            config,
            next_ask: 1,
            closed: false,
            debug,
            actions: VecDeque::new(),
            recorder: None,
            now: 0,
        }
    }

    /// The team `json` holds (`toJSON()`'s data), with the session options
    /// given again: the team's (`config`), each member's (`given`,
    /// `options.members`: `[{ id, endpoint?, env?, model?, command? }]`).
    /// A member that ran with options of its own must be given them again.
    pub fn restore(
        json: &Value,
        cd: Option<String>,
        config: TeamConfig,
        given: &[Value],
        debug: bool,
    ) -> Result<Self> {
        let mut state = TeamState::read(json)?;
        if let Some(cd) = cd {
            state.cd = cd;
        }
        let found = |id: &str| state.members.iter().position(|s| s.record.id == id);
        let mut own = vec![None; state.members.len()];
        for (j, value) in given.iter().enumerate() {
            let path = format!("options.members[{j}]");
            let o = crate::formats::json_read::Obj::new(value, &path)?;
            let id = o.req_str("id")?;
            let Some(i) = found(id) else {
                let ids: Vec<&str> = state.members.iter().map(|s| s.record.id.as_str()).collect();
                return Err(AgentContextError::invalid(format!(
                    "{path}.id is \"{id}\", which is no member of the team (members: {})",
                    ids.join(", ")
                )));
            };
            let identity = TEAM_MEMBER
                .iter()
                .filter(|k| **k != "id" && !SESSION_OPTIONS.contains(*k));
            for key in identity {
                if value.get(*key).is_some() {
                    return Err(AgentContextError::invalid(format!(
                        "{path}.{key}: the JSON holds who member \"{id}\" is; options.members gives its session options only (endpoint, env, model, command)"
                    )));
                }
            }
            own[i] = Some((value.clone(), path));
        }
        let mut machine =
            TeamMachine::new(state.team_task.clone(), state.cd.clone(), config, debug);
        machine.state.transcript = state.transcript;
        for (i, seat) in state.members.into_iter().enumerate() {
            let (value, path) = own[i]
                .take()
                .unwrap_or_else(|| (json!({}), format!("json.members[{i}]")));
            let missing: Vec<&str> = seat
                .record
                .session_options
                .iter()
                .map(String::as_str)
                .filter(|k| value.get(*k).is_none())
                .collect();
            if !missing.is_empty() {
                return Err(AgentContextError::invalid(format!(
                    "json.members[{i}] (\"{}\") ran with its own {}, which the JSON does not hold: give {} again in options.members ({{ id: \"{}\", {} }}), or null to leave {} out",
                    seat.record.id,
                    missing.join(", "),
                    if missing.len() == 1 { "it" } else { "them" },
                    seat.record.id,
                    missing.join(", "),
                    if missing.len() == 1 { "it" } else { "one" },
                )));
            }
            machine.seat(seat, &value, &path)?;
        }
        Ok(machine)
    }

    /// The stored side: what `toJSON` gives.
    pub fn state(&self) -> &TeamState {
        &self.state
    }

    /// The actions since the last call, in order.
    pub fn take_actions(&mut self) -> Vec<Action> {
        self.actions.drain(..).collect()
    }

    /// Keeps the team's record from now on (`Action::Record`): `prior`,
    /// the record so far (a team reopened); `secrets`, values never
    /// written. What the team holds now is written first.
    pub fn record(
        &mut self,
        team_id: &str,
        prior: Option<&[u8]>,
        secrets: &[String],
        now: u64,
    ) -> Result<()> {
        self.now = now;
        self.recorder = Some(TeamRecorder::new(team_id, prior, secrets, now)?);
        self.write_record(false);
        Ok(())
    }

    /// The team's record id, when it is recorded.
    pub fn team_id(&self) -> Option<&str> {
        self.recorder.as_ref().map(TeamRecorder::team_id)
    }

    /// Feeds one event at `now` (the host's clock, for the record); answers
    /// a posted message's index, an ask's id, or null.
    pub fn handle_at(&mut self, event: Event, now: u64) -> Result<Value> {
        self.now = now;
        self.handle(event)
    }

    /// What changed in the team since its record was last written.
    fn write_record(&mut self, closed: bool) {
        let Some(recorder) = self.recorder.as_mut() else {
            return;
        };
        let (header, lines) = recorder.changes(&self.state, closed, self.now);
        if header.is_some() || !lines.is_empty() {
            self.actions.push_back(Action::Record { header, lines });
        }
    }

    /// Feeds one event (at the time of the last one); answers a posted
    /// message's index, an ask's id, or null.
    pub fn handle(&mut self, event: Event) -> Result<Value> {
        let closing = event == Event::Close;
        let answer = self.handle_event(event);
        self.write_record(closing);
        answer
    }

    fn handle_event(&mut self, event: Event) -> Result<Value> {
        match event {
            Event::Post { message } => {
                let message = read_message(&message, "message")?;
                if self.index(&message.from).is_some() {
                    return Err(AgentContextError::invalid(format!(
                        "message.from is \"{}\", a member of the team: a member's messages are its replies (team.ask)",
                        message.from
                    )));
                }
                self.state.transcript.push(message);
                return Ok(json!(self.state.transcript.len() - 1));
            }
            Event::AddMember { member, path } => {
                let record = MemberRecord::read(&member, &path)?;
                let seat = Seat {
                    record,
                    session_id: None,
                    conversation_id: None,
                    mark: None,
                };
                self.seat(seat, &member, &path)?;
            }
            Event::Ask {
                member,
                message,
                reply_to,
            } => return self.ask(&member, message, reply_to),
            Event::Opened {
                member,
                session_id,
                conversation_id,
                fallback,
            } => {
                if let Some(i) = self.index(&member) {
                    if conversation_id.is_some() {
                        self.state.members[i].conversation_id = conversation_id;
                    }
                    self.opened(i, session_id, fallback);
                }
            }
            Event::OpenFailed { member, kind } => {
                if let Some(i) = self.index(&member) {
                    self.open_failed(i, kind.as_deref());
                }
            }
            Event::TurnDone {
                member,
                success,
                text,
                kind,
                session_id,
                moved,
            } => {
                if let Some(i) = self.index(&member) {
                    match moved {
                        Some(entry) => self.went_on(i, entry, session_id),
                        None => self.turn_done(i, success, text, kind.as_deref(), session_id),
                    }
                }
            }
            Event::PromptFailed { member } => {
                if let Some(i) = self.index(&member) {
                    if let Some(turn) = self.live[i].turn.take() {
                        self.fail(i, turn.ask.id, Cause::Prompt);
                    }
                    self.advance(i);
                }
            }
            Event::Close => self.close(),
        }
        Ok(Value::Null)
    }

    /// How the member's sessions run (scripted tests change it).
    #[cfg(test)]
    pub(super) fn runs_mut(&mut self, id: &str) -> Option<&mut Runs> {
        let i = self.index(id)?;
        Some(&mut self.live[i].runs)
    }

    fn index(&self, id: &str) -> Option<usize> {
        self.state.members.iter().position(|s| s.record.id == id)
    }

    /// Seats a member: its runs decided with its own options (`own`).
    fn seat(&mut self, mut seat: Seat, own: &Value, path: &str) -> Result<()> {
        if self.index(&seat.record.id).is_some() {
            return Err(AgentContextError::invalid(format!(
                "a member named \"{}\" is already on the team",
                seat.record.id
            )));
        }
        let fallback = fallback::read(own, path)?;
        let runs = fallback::runs(&mut seat.record, own, &fallback, path, &self.config)?;
        let mut takers: Vec<(&str, _)> = self
            .state
            .members
            .iter()
            .zip(&self.live)
            .filter_map(|(s, l)| l.runs.team_family.map(|f| (s.record.id.as_str(), f)))
            .collect();
        if let Some(family) = runs.team_family {
            takers.push((seat.record.id.as_str(), family));
        }
        check_team_family(&self.config, &takers)?;
        self.state.members.push(seat);
        self.live.push(Live {
            runs,
            session: Session::None,
            holds: false,
            system_held: false,
            flag_instructions: None,
            queue: VecDeque::new(),
            turn: None,
            fallback,
            continues: false,
        });
        Ok(())
    }

    fn ask(
        &mut self,
        member: &str,
        message: Option<String>,
        reply_to: Option<String>,
    ) -> Result<Value> {
        let Some(i) = self.index(member) else {
            let ids: Vec<&str> = self
                .state
                .members
                .iter()
                .map(|s| s.record.id.as_str())
                .collect();
            return Err(AgentContextError::invalid(format!(
                "no member named {} (members: {})",
                json!(member),
                ids.join(", ")
            )));
        };
        if self.closed {
            return Err(AgentContextError::invalid(CLOSED));
        }
        let id = self.next_ask;
        self.next_ask += 1;
        self.live[i].queue.push_back(Ask {
            id,
            message: message.unwrap_or_default(),
            reply_to,
        });
        self.advance(i);
        Ok(json!(id))
    }

    /// Starts the member's next ask when none runs.
    fn advance(&mut self, i: usize) {
        while self.live[i].turn.is_none() {
            let Some(ask) = self.live[i].queue.pop_front() else {
                return;
            };
            if self.closed {
                self.fail(i, ask.id, Cause::Error(AgentContextError::invalid(CLOSED)));
                continue;
            }
            self.live[i].turn = Some(Turn {
                ask,
                plan: None,
                bytes: 0,
                system_given: false,
                retried: false,
                handed_off: None,
            });
            match (self.live[i].session, &self.state.members[i].session_id) {
                (Session::Open, _) => self.send(i),
                (_, Some(_)) => self.resume(i),
                (_, None) => self.open_new(i),
            }
        }
    }

    fn member_json(&self, i: usize) -> Value {
        let r = &self.state.members[i].record;
        r.definition.clone().unwrap_or_else(|| json!(r.agent_type))
    }

    fn open_action(
        &mut self,
        i: usize,
        session_id: Option<String>,
        system_prompt: Option<String>,
    ) -> Action {
        let next = self.next_agents(i);
        let live = &self.live[i];
        let seat = &self.state.members[i];
        Action::Open {
            member: seat.record.id.clone(),
            agent: self.member_json(i),
            fallback: seat.record.fallback_used,
            protocol: live.runs.protocol,
            endpoint: live.runs.endpoint.as_str(),
            session_id,
            system_prompt,
            conversation_id: seat.conversation_id.clone(),
            next,
        }
    }

    /// Reopens the stored session, with the instructions its layout keeps
    /// apart where the agent takes them on a reopened session.
    fn resume(&mut self, i: usize) {
        let flag = self.instructions_apart(i);
        let given = flag
            .clone()
            .filter(|_| self.live[i].runs.reopen_takes_system);
        let live = &mut self.live[i];
        live.session = Session::Resuming;
        live.flag_instructions = flag;
        if let Some(turn) = live.turn.as_mut() {
            turn.bytes = given.as_ref().map_or(0, String::len);
            turn.system_given = given.is_some();
        }
        let id = self.state.members[i].session_id.clone();
        let action = self.open_action(i, id, given);
        self.actions.push_back(action);
    }

    /// The member's instructions as its layout keeps them apart from the
    /// prompt (Claude Code's system prompt), within its budget; `None` when
    /// they open the prompt instead, or there are none (or they do not fit
    /// the budget, which the session's first prompt met).
    fn instructions_apart(&self, i: usize) -> Option<String> {
        self.instructions_apart_of(&self.state.members[i].record)
    }

    /// [`TeamMachine::instructions_apart`] of a member as `record` has it.
    fn instructions_apart_of(&self, record: &MemberRecord) -> Option<String> {
        let member = record.member();
        if member.system_instruction.is_empty() && member.instruction_file_text.is_empty() {
            return None;
        }
        let request = TurnRequest::new("", &member, None, "");
        let plan = plan_turn(&request, &Vec::<ContextMessage>::new()).ok()?;
        plan.output.system_flag
    }

    /// Plans the full prompt and opens a new session for it.
    fn open_new(&mut self, i: usize) {
        let plan = match self.plan(i, true) {
            Ok(plan) => plan,
            Err(e) => return self.end_failed(i, Cause::Error(e)),
        };
        let system = plan.output.system_flag.clone();
        let live = &mut self.live[i];
        live.session = Session::Opening;
        if let Some(turn) = live.turn.as_mut() {
            turn.bytes = system.as_ref().map_or(0, String::len);
            turn.plan = Some(plan);
        }
        let action = self.open_action(i, None, system);
        self.actions.push_back(action);
    }

    fn plan(&mut self, i: usize, fresh: bool) -> Result<TeamTurn> {
        let seat = &self.state.members[i];
        let member = seat.record.member();
        let Some(turn) = self.live[i].turn.as_ref() else {
            return Err(AgentContextError::invalid("no turn is running"));
        };
        let request = TurnRequest {
            fresh,
            ..TurnRequest::new(
                self.state.team_task.as_deref().unwrap_or(""),
                &member,
                seat.mark,
                &turn.ask.message,
            )
        };
        let plan = plan_turn(&request, &self.state.transcript)?;
        if self.debug {
            for decision in &plan.decisions {
                self.log("debug", format!("[Debug][Trim] {} {decision}", member.id));
            }
        }
        Ok(plan)
    }

    fn opened(&mut self, i: usize, session_id: Option<String>, fallback: Option<usize>) {
        let was = self.live[i].session;
        if !matches!(was, Session::Resuming | Session::Opening) {
            return;
        }
        self.live[i].session = Session::Open;
        if self.closed {
            return self.close_session(i, Cause::Error(AgentContextError::invalid(CLOSED)));
        }
        // Its own agent could not start: the conversation opened the next.
        if let Some(entry) = fallback.filter(|&n| n > self.state.members[i].record.fallback_used) {
            if self.moved_to(i, entry) {
                self.state.members[i].session_id = session_id;
                return self.send(i);
            }
        }
        let seat = &mut self.state.members[i];
        let live = &mut self.live[i];
        if was == Session::Resuming {
            // Another id than the one asked for is another session: it holds nothing.
            live.holds =
                seat.mark.is_some() && session_id.is_some() && session_id == seat.session_id;
            live.system_held = live.turn.as_ref().is_some_and(|t| t.system_given)
                || live.flag_instructions.is_none();
            if session_id.is_some() {
                seat.session_id = session_id;
            }
            return self.send(i);
        }
        seat.session_id = session_id;
        live.holds = false;
        live.system_held = true;
        let Some(plan) = live.turn.as_ref().and_then(|t| t.plan.as_ref()) else {
            return;
        };
        // The instructions kept apart went with the session.
        let request = AssemblerOutput {
            prompt: plan.output.prompt.clone(),
            system_flag: None,
        };
        self.prompt(i, request);
    }

    /// Plans the turn on the open session and sends it.
    fn send(&mut self, i: usize) {
        let fresh = !self.live[i].holds || self.state.members[i].mark.is_none();
        let plan = match self.plan(i, fresh) {
            Ok(plan) => plan,
            Err(e) => return self.end_failed(i, Cause::Error(e)),
        };
        let live = &mut self.live[i];
        let mut request = plan.output.clone();
        if plan.kind == TurnKind::Full && live.system_held {
            request.system_flag = None;
        } else if plan.kind == TurnKind::Delta && !live.system_held {
            // A reopened session that did not take them: the prompt opens with them.
            request.system_flag = live.flag_instructions.clone();
        }
        live.system_held = true;
        if let Some(turn) = live.turn.as_mut() {
            turn.plan = Some(plan);
        }
        self.prompt(i, request);
    }

    fn prompt(&mut self, i: usize, request: AssemblerOutput) {
        let Some(turn) = self.live[i].turn.as_ref() else {
            return;
        };
        let ask = turn.ask.id;
        let continues = std::mem::take(&mut self.live[i].continues);
        let member = self.state.members[i].record.id.clone();
        if self.debug {
            if let Some(flag) = &request.system_flag {
                self.log(
                    "debug",
                    format!(
                        "[Debug][Send] {member} systemFlag ({} bytes):\n{flag}",
                        flag.len()
                    ),
                );
            }
            self.log(
                "debug",
                format!(
                    "[Debug][Send] {member} prompt ({} bytes):\n{}",
                    request.prompt.len(),
                    request.prompt
                ),
            );
        }
        if let Some(turn) = self.live[i].turn.as_mut() {
            turn.bytes += request.byte_len();
        }
        self.actions.push_back(Action::Prompt {
            member,
            ask,
            request,
            continues,
        });
    }

    /// Member `i`'s turn failed and its conversation went on with entry
    /// `entry` of its fallback: the member is on that agent, and the same
    /// turn goes on there, planned for it from the whole view.
    fn went_on(&mut self, i: usize, entry: usize, session_id: Option<String>) {
        if self.live[i].turn.is_none() {
            return;
        }
        if !self.moved_to(i, entry) {
            return self.end_failed(
                i,
                Cause::Error(AgentContextError::invalid(format!(
                    "member \"{}\" went on with fallback entry {entry}, which it does not have",
                    self.state.members[i].record.id
                ))),
            );
        }
        if session_id.is_some() {
            self.state.members[i].session_id = session_id;
        }
        self.live[i].continues = true;
        self.send(i);
    }

    fn open_failed(&mut self, i: usize, kind: Option<&str>) {
        let was = self.live[i].session;
        if !matches!(was, Session::Resuming | Session::Opening) {
            return;
        }
        self.live[i].session = Session::None;
        if was == Session::Resuming && kind == Some("session_not_found") && !self.closed {
            // The agent no longer has it: a new session, with the whole view.
            self.lose(i);
            return self.open_new(i);
        }
        self.end_failed(i, Cause::Open);
    }

    /// The member's session is gone with what it held.
    fn lose(&mut self, i: usize) {
        let seat = &mut self.state.members[i];
        seat.session_id = None;
        seat.mark = None;
        let live = &mut self.live[i];
        live.holds = false;
        if live.session == Session::Open {
            live.session = Session::None;
            let member = seat.record.id.clone();
            self.actions.push_back(Action::Close { member });
        }
    }

    fn turn_done(
        &mut self,
        i: usize,
        success: bool,
        text: Option<String>,
        kind: Option<&str>,
        session_id: Option<String>,
    ) {
        let Some(plan) = self.live[i].turn.as_ref().and_then(|t| t.plan.clone()) else {
            return;
        };
        if kind == Some("session_not_found") {
            self.lose(i);
            let retry = self.live[i].turn.as_ref().is_some_and(|t| !t.retried);
            if retry && !self.closed {
                if let Some(turn) = self.live[i].turn.as_mut() {
                    turn.retried = true;
                }
                return self.open_new(i);
            }
        } else {
            let seat = &mut self.state.members[i];
            seat.mark = Some(plan.mark);
            if session_id.is_some() {
                seat.session_id = session_id;
            }
            self.live[i].holds = true;
        }
        let Some(turn) = self.live[i].turn.take() else {
            return;
        };
        let member = self.state.members[i].record.id.clone();
        let text = text.filter(|t| success && !t.trim().is_empty());
        if let Some(content) = text {
            self.state.transcript.push(ContextMessage {
                from: member.clone(),
                to: turn.ask.reply_to.clone(),
                content,
            });
        }
        let dropped: Vec<Value> = plan
            .dropped
            .iter()
            .filter_map(|&d| self.state.transcript.get(d).map(message_json))
            .collect();
        if !dropped.is_empty() {
            self.log("warn", format!(
                "[agent-context] {member}'s prompt left out the {} oldest messages that concern it, to fit maxBytes {}",
                dropped.len(),
                plan.report.max_bytes
            ));
        }
        let mut context = json!({
            "kind": plan.kind.as_str(),
            "bytes": turn.bytes,
            "messages": plan.sent.len(),
            "dropped": dropped,
            "report": serde_json::to_value(&plan.report).unwrap_or(Value::Null),
        });
        if let Some(agent_type) = &turn.handed_off {
            context["handedOffTo"] = json!({ "agentType": agent_type });
        }
        self.actions.push_back(Action::Done {
            ask: turn.ask.id,
            context,
        });
        self.advance(i);
    }

    fn log(&mut self, level: &'static str, text: String) {
        self.actions.push_back(Action::Log { level, text });
    }

    fn fail(&mut self, i: usize, ask: u64, cause: Cause) {
        let member = self.state.members[i].record.id.clone();
        self.actions.push_back(Action::Fail { ask, member, cause });
    }

    /// The running ask fails; the member's next one starts.
    fn end_failed(&mut self, i: usize, cause: Cause) {
        if let Some(turn) = self.live[i].turn.take() {
            self.fail(i, turn.ask.id, cause);
        }
        self.advance(i);
    }

    /// Closes the member's open session and fails its running ask.
    fn close_session(&mut self, i: usize, cause: Cause) {
        self.live[i].session = Session::None;
        self.live[i].holds = false;
        let member = self.state.members[i].record.id.clone();
        self.actions.push_back(Action::Close { member });
        self.end_failed(i, cause);
    }

    fn close(&mut self) {
        self.closed = true;
        for i in 0..self.live.len() {
            if self.live[i].session == Session::Open {
                self.live[i].session = Session::None;
                self.live[i].holds = false;
                let member = self.state.members[i].record.id.clone();
                self.actions.push_back(Action::Close { member });
            }
            let waiting: Vec<Ask> = self.live[i].queue.drain(..).collect();
            for ask in waiting {
                self.fail(i, ask.id, Cause::Error(AgentContextError::invalid(CLOSED)));
            }
        }
    }
}
