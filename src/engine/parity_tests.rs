//! Parity: one table of scripted scenarios — silence, an abort before the
//! prompt is handed over, an abort while queued, a cancel, a crash between
//! turns and in a turn, the agent's own retries, retries spent — run against
//! both protocols on a fake clock, each reaching the decisions the table
//! expects. Where a protocol cannot do what the other does, the row says
//! so: [`Side::differs`] names the protocol fact.
//!
//! The sides: an agent over ACP (one process, its session opened with
//! `session/new`), Claude Code over its CLI keeping one process (a `user`
//! line a turn), and Gemini CLI over its CLI with a process per turn.

use serde_json::{json, Value};

use super::*;
use crate::attempt::AgentErrorKind;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Side {
    /// Over ACP (`agent`'s adapter or `--acp`).
    Acp(&'static str),
    /// Claude Code's CLI, one process for every turn.
    ClaudeCli,
    /// Gemini CLI's CLI, a process per turn.
    GeminiCli,
}

const SESSIONS: [Side; 3] = [Side::Acp("claude-code"), Side::ClaudeCli, Side::GeminiCli];
/// Runs (`runAgent`) over both protocols, of one agent.
const RUNS: [Side; 2] = [Side::Acp("google-gemini"), Side::GeminiCli];

/// One side's agent, played against the engine: it answers what the engine
/// writes as the real agent does (initialize, the session) and is told by
/// the scenario how to answer each turn.
struct Sim {
    side: Side,
    e: Engine,
    now: u64,
    /// Spawns asked for, how many of the next go silent, and whether the
    /// running one is.
    spawns: u32,
    silent_starts: u32,
    silent: bool,
    /// The pending `session/prompt` request's id (ACP).
    prompt_id: Option<Value>,
    /// What the agent wrote back for each turn's text (prompts seen).
    prompts: Vec<String>,
    /// The turns that ended, by op.
    done: Vec<(u64, TurnResult)>,
    /// The session id the agent keeps.
    session: &'static str,
}

const SESSION_ID: &str = "4f2c9a1e-0b7d-4c3e-9a51-2d6e8f0c7b13";

impl Sim {
    fn new(side: Side, run: bool, options: Value) -> Sim {
        let mut o = json!({"cd": "/w", "maxRetries": 0});
        for (k, v) in options.as_object().unwrap() {
            o[k] = v.clone();
        }
        let e = match (side, run) {
            (Side::Acp(agent), _) => {
                let mut e = Engine::new(SessionConfig::read(agent, &o, "").unwrap(), false);
                if run {
                    e.for_run();
                }
                e
            }
            (Side::ClaudeCli, false) => {
                Engine::cli(CliSessionConfig::read("claude-code", &o, "").unwrap())
            }
            (Side::GeminiCli, false) => {
                Engine::cli(CliSessionConfig::read("google-gemini", &o, "").unwrap())
            }
            (_, true) => {
                let agent = if side == Side::ClaudeCli {
                    "claude-code"
                } else {
                    "google-gemini"
                };
                let output = crate::prompt::output::AssemblerOutput {
                    prompt: "hi".into(),
                    system_flag: None,
                };
                Engine::cli(CliSessionConfig::read_run(&json!(agent), &output, &o, "").unwrap())
            }
        };
        Sim {
            side,
            e,
            now: 0,
            spawns: 0,
            silent_starts: 0,
            silent: false,
            prompt_id: None,
            prompts: Vec::new(),
            done: Vec::new(),
            session: SESSION_ID,
        }
    }

    fn limits(&self, max_retries: u32) -> TurnLimits {
        TurnLimits {
            idle_ms: 30_000,
            max_ms: 600_000,
            max_retries,
            events: false,
        }
    }

    fn prompt(&mut self, text: &str, max_retries: u32) -> u64 {
        let limits = self.limits(max_retries);
        let op = self
            .e
            .prompt(json!([{"type": "text", "text": text}]), limits, self.now);
        self.pump();
        op
    }

    /// Carries out what the engine asked, as the agent would.
    fn pump(&mut self) {
        for _ in 0..20 {
            let actions: Vec<Action> = std::iter::from_fn(|| self.e.poll()).collect();
            if actions.is_empty() {
                return;
            }
            for action in actions {
                self.act(action);
            }
        }
        panic!("{:?}: the engine kept asking", self.side);
    }

    fn act(&mut self, action: Action) {
        let now = self.now;
        match action {
            Action::Spawn { .. } => {
                self.spawns += 1;
                self.silent = self.silent_starts > 0;
                self.silent_starts = self.silent_starts.saturating_sub(1);
                self.e.spawned(now);
            }
            Action::Write(line) => self.read(&line),
            Action::Kill => self.e.exited(None, Some("SIGTERM"), now),
            Action::Done {
                op,
                outcome: Outcome::Turn(t),
            } => self.done.push((op, *t)),
            _ => {}
        }
    }

    /// What the agent reads on stdin.
    fn read(&mut self, line: &str) {
        let Ok(message) = serde_json::from_str::<Value>(line.trim_end()) else {
            self.prompts.push(line.to_owned()); // a per-turn CLI's stdin: the prompt
            return;
        };
        let now = self.now;
        if let Side::ClaudeCli = self.side {
            if message["type"] == "user" {
                let text = message["message"]["content"][0]["text"].as_str().unwrap();
                self.prompts.push(text.to_owned());
            }
            return;
        }
        if self.silent {
            return; // a start that says nothing
        }
        let id = message["id"].clone();
        let reply = |result: Value| json!({"jsonrpc": "2.0", "id": id, "result": result});
        match message["method"].as_str() {
            Some("initialize") => self.say(reply(json!({"protocolVersion": 1,
                "agentCapabilities": {"loadSession": true, "sessionCapabilities": {"resume": {}}}}))),
            Some("session/new") => self.say(reply(json!({"sessionId": self.session}))),
            Some("session/resume" | "session/load") => self.say(reply(json!({}))),
            Some("session/prompt") => {
                let text = message["params"]["prompt"][0]["text"].as_str().unwrap();
                self.prompts.push(text.to_owned());
                self.prompt_id = Some(id);
            }
            _ => {}
        }
        let _ = now;
    }

    fn say(&mut self, message: Value) {
        self.e.stdout(format!("{message}\n").as_bytes(), self.now);
    }

    fn lines(&mut self, lines: &[Value]) {
        for line in lines {
            self.say(line.clone());
        }
    }

    /// The agent answers the running turn with `text`.
    fn answer(&mut self, text: &str) {
        self.now += 100;
        let s = self.session;
        match self.side {
            Side::Acp(_) => {
                self.say(json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": s,
                    "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}}));
                let id = self.prompt_id.take().expect("a prompt to answer");
                self.say(json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": "end_turn"}}));
            }
            Side::ClaudeCli => self.lines(&[
                json!({"type": "system", "subtype": "init", "session_id": s}),
                json!({"type": "assistant", "session_id": s, "message": {"role": "assistant",
                    "content": [{"type": "text", "text": text}]}}),
                json!({"type": "result", "subtype": "success", "is_error": false, "result": text,
                    "session_id": s, "stop_reason": "end_turn"}),
            ]),
            Side::GeminiCli => {
                self.lines(&[
                    json!({"type": "init", "session_id": s, "model": "m"}),
                    json!({"type": "message", "role": "assistant", "content": text, "delta": true}),
                    json!({"type": "result", "status": "success", "stats": {"total_tokens": 1}}),
                ]);
                self.e.exited(Some(0), None, self.now);
            }
        }
        self.pump();
    }

    /// The API answers the running turn HTTP 500 and the agent gives up.
    fn fail_500(&mut self) {
        self.now += 100;
        match self.side {
            Side::Acp(_) => {
                let id = self.prompt_id.take().expect("a prompt to fail");
                self.say(json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": "Internal error",
                    "data": {"details": "[API Error: got status: 500 Internal Server Error]"}}}));
            }
            Side::ClaudeCli => unreachable!("not played"),
            Side::GeminiCli => {
                self.lines(&[
                    json!({"type": "init", "session_id": self.session, "model": "m"}),
                    json!({"type": "result", "status": "error", "error": {"type": "unknown",
                        "message": "[API Error: {\"error\":{\"code\":500,\"message\":\"boom\",\"status\":\"INTERNAL\"}}]"}}),
                ]);
                self.e.exited(Some(244), None, self.now);
            }
        }
        self.pump();
    }

    /// The agent ends the running turn as asked (a cancel or an interrupt);
    /// a process per turn is killed (`Action::Kill`, played by `pump`).
    fn ack_stop(&mut self) {
        self.now += 10;
        match self.side {
            Side::Acp(_) => {
                let id = self.prompt_id.take().expect("a prompt to end");
                self.say(
                    json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": "cancelled"}}),
                );
            }
            Side::ClaudeCli => self.say(
                json!({"type": "result", "subtype": "error_during_execution",
                "is_error": true, "session_id": self.session}),
            ),
            Side::GeminiCli => {}
        }
        self.pump();
    }

    /// The agent's own retry of a failed API call, as Gemini CLI prints it.
    fn retry_line(&mut self, n: u32) {
        self.now += 1_000;
        let line = format!("Attempt {n} failed with status 500. Retrying with backoff... ApiError: {{\"error\":{{\"code\":500}}}}\n");
        self.e.stderr(line.as_bytes(), self.now);
        self.pump();
    }

    fn crash(&mut self) {
        self.now += 10;
        self.e.stderr(b"fatal: out of memory\n", self.now);
        self.e.exited(None, Some("SIGKILL"), self.now);
        self.pump();
    }

    /// Time passes; the deadlines due fire.
    fn wait(&mut self, ms: u64) {
        self.now += ms;
        self.e.timeout(self.now);
        self.pump();
    }

    /// Waits for whatever the engine waits for (a retry's backoff).
    fn wait_for_engine(&mut self) {
        let at = self
            .e
            .poll_timeout()
            .expect("the engine waits for something");
        self.now = at;
        self.e.timeout(at);
        self.pump();
    }

    fn turn(&self, op: u64) -> &TurnResult {
        &self
            .done
            .iter()
            .find(|(o, _)| *o == op)
            .unwrap_or_else(|| panic!("{:?}: turn {op} did not end: {:?}", self.side, self.done))
            .1
    }
}

/// What a turn must come to.
fn expect(sim: &Sim, op: u64, kind: Option<AgentErrorKind>, stop: Option<&str>, attempts: u32) {
    let t = sim.turn(op);
    assert_eq!(t.kind(), kind, "{:?}: {t:?}", sim.side);
    assert_eq!(t.stop_reason.as_deref(), stop, "{:?}: {t:?}", sim.side);
    assert_eq!(t.attempts, attempts, "{:?}: {t:?}", sim.side);
}

#[test]
fn a_start_that_says_nothing_is_tried_again_in_a_run() {
    for side in RUNS {
        let mut sim = Sim::new(side, true, json!({"maxRetries": 1, "timeout": 30}));
        // Over ACP the start is `initialize`; over the CLI the prompt is on stdin.
        sim.silent_starts = 1;
        let op = sim.prompt("hi", 1);
        sim.wait(30_000); // the idle limit: stopped
        assert!(
            sim.done.is_empty(),
            "{side:?}: tried again, not ended: {:?}",
            sim.done
        );
        sim.wait_for_engine(); // the backoff: started again
        assert_eq!(sim.spawns, 2, "{side:?}");
        sim.answer("hello");
        expect(&sim, op, None, Some("end_turn"), 2);
    }
}

#[test]
fn a_silent_turn_in_a_session_ends_idle_timeout_cancelled_and_is_not_tried_again() {
    for side in SESSIONS {
        let mut sim = Sim::new(side, false, json!({}));
        sim.e.open(0);
        sim.pump();
        let op = sim.prompt("hi", 2);
        sim.wait(30_000);
        sim.ack_stop();
        expect(
            &sim,
            op,
            Some(AgentErrorKind::IdleTimeout),
            Some("cancelled"),
            1,
        );
        let message = &sim.turn(op).error.as_ref().unwrap().message;
        assert!(
            message.contains("printed nothing for 30 s"),
            "{side:?}: {message}"
        );
    }
}

#[test]
fn an_abort_before_the_prompt_is_handed_over_is_aborted_and_cancelled() {
    // Over ACP and a CLI keeping one process, the prompt waits for the
    // start; over a CLI with a process per turn the prompt is handed over
    // with the spawn (a protocol fact): the abort stops that process.
    for side in SESSIONS {
        let mut sim = Sim::new(side, false, json!({}));
        sim.silent_starts = 1;
        let limits = sim.limits(0);
        let op = sim
            .e
            .prompt(json!([{"type": "text", "text": "hi"}]), limits, 0);
        sim.e.abort(op, 5);
        sim.pump();
        let attempts = if side == Side::GeminiCli { 1 } else { 0 };
        expect(
            &sim,
            op,
            Some(AgentErrorKind::Aborted),
            Some("cancelled"),
            attempts,
        );
        assert!(
            sim.prompts.len() <= attempts as usize,
            "{side:?}: {:?}",
            sim.prompts
        );
    }
}

#[test]
fn an_abort_while_queued_ends_that_turn_alone() {
    for side in SESSIONS {
        let mut sim = Sim::new(side, false, json!({}));
        let first = sim.prompt("one", 0);
        let second = sim.prompt("two", 0);
        sim.e.abort(second, sim.now);
        sim.pump();
        expect(
            &sim,
            second,
            Some(AgentErrorKind::Aborted),
            Some("cancelled"),
            0,
        );
        sim.answer("re: one");
        expect(&sim, first, None, Some("end_turn"), 1);
        assert_eq!(
            sim.prompts,
            ["one"],
            "{side:?}: the queued prompt never reached the agent"
        );
    }
}

#[test]
fn a_cancel_ends_the_running_turn_aborted_and_cancelled() {
    for side in SESSIONS {
        let mut sim = Sim::new(side, false, json!({}));
        let op = sim.prompt("one", 2);
        sim.e.cancel(sim.now + 5);
        sim.pump();
        sim.ack_stop();
        expect(
            &sim,
            op,
            Some(AgentErrorKind::Aborted),
            Some("cancelled"),
            1,
        );
        // The next turn goes on in the same session.
        let next = sim.prompt("two", 0);
        sim.answer("re: two");
        expect(&sim, next, None, Some("end_turn"), 1);
    }
}

#[test]
fn a_crash_between_turns_is_met_by_the_next_prompt_reopening_the_session() {
    for side in SESSIONS {
        let mut sim = Sim::new(side, false, json!({}));
        let one = sim.prompt("one", 0);
        sim.answer("re: one");
        expect(&sim, one, None, Some("end_turn"), 1);
        let spawns = sim.spawns;
        if side != Side::GeminiCli {
            sim.crash(); // a process per turn is gone after each turn anyway
        }
        let two = sim.prompt("two", 0);
        sim.answer("re: two");
        expect(&sim, two, None, Some("end_turn"), 1);
        assert_eq!(sim.spawns, spawns + 1, "{side:?}: started again");
        assert_eq!(sim.prompts, ["one", "two"], "{side:?}");
    }
}

#[test]
fn a_crash_in_a_turn_ends_it_with_what_the_process_left_never_sent_again() {
    // A process kept for every turn that dies in one is a crash
    // (`process_error`); a process of its own ending without its final
    // event is `incomplete`, as every turn of it ends by the process ending
    // (a protocol fact).
    for side in SESSIONS {
        let mut sim = Sim::new(side, false, json!({}));
        let op = sim.prompt("one", 2);
        sim.crash();
        let kind = match side {
            Side::GeminiCli => AgentErrorKind::Incomplete,
            _ => AgentErrorKind::ProcessError,
        };
        expect(&sim, op, Some(kind), None, 1);
        let error = sim.turn(op).error.clone().unwrap();
        assert!(
            error
                .last_lines
                .contains(&"fatal: out of memory".to_owned()),
            "{side:?}: {error:?}"
        );
        assert_eq!(sim.prompts.len(), 1, "{side:?}: not sent again");
    }
}

#[test]
fn the_agents_own_retries_past_max_retries_stop_the_turn() {
    // Gemini CLI tells of its retries on stderr over both protocols;
    // Claude Code tells of none (its own are bounded by a variable).
    for side in [Side::Acp("google-gemini"), Side::GeminiCli] {
        let mut sim = Sim::new(side, false, json!({}));
        let op = sim.prompt("hi", 1);
        sim.retry_line(1);
        assert!(
            sim.done.is_empty(),
            "{side:?}: one retry is within maxRetries 1"
        );
        sim.retry_line(2);
        sim.ack_stop();
        if side == Side::Acp("google-gemini") {
            sim.wait(CANCEL_GRACE_MS); // it did not end the turn: killed
        }
        expect(
            &sim,
            op,
            Some(AgentErrorKind::UpstreamError),
            Some("cancelled"),
            1,
        );
    }
}

#[test]
fn a_run_retries_a_failed_turn_until_its_retries_are_spent() {
    for side in RUNS {
        let mut sim = Sim::new(side, true, json!({"maxRetries": 1}));
        let op = sim.prompt("hi", 1);
        sim.fail_500();
        assert!(sim.done.is_empty(), "{side:?}: tried again");
        sim.wait_for_engine();
        sim.fail_500();
        expect(&sim, op, Some(AgentErrorKind::UpstreamError), None, 2);
        assert_eq!(sim.prompts.len(), 2, "{side:?}");
    }
}

#[test]
fn a_prompt_written_to_a_process_already_gone_goes_to_the_next_once() {
    // The process died between turns and the host learnt it only once the
    // next prompt was written: the write failed (EPIPE), so the prompt
    // never reached it. A process per turn gets each prompt as it starts.
    for side in [Side::Acp("claude-code"), Side::ClaudeCli] {
        let mut sim = Sim::new(side, false, json!({}));
        let one = sim.prompt("one", 0);
        sim.answer("re: one");
        expect(&sim, one, None, Some("end_turn"), 1);
        let spawns = sim.spawns;
        let two = sim.prompt("two", 0);
        sim.e.write_failed(sim.now);
        sim.crash();
        assert!(
            sim.done.iter().all(|(op, _)| *op != two),
            "{side:?}: not ended"
        );
        assert_eq!(sim.spawns, spawns + 1, "{side:?}: started again for it");
        sim.answer("re: two");
        expect(&sim, two, None, Some("end_turn"), 1);
        // Written twice, to two processes: the first never read it.
        assert_eq!(sim.prompts, ["one", "two", "two"], "{side:?}");
        // Once only: a second failed write ends the turn.
        let three = sim.prompt("three", 0);
        sim.e.write_failed(sim.now);
        sim.crash();
        sim.e.write_failed(sim.now);
        sim.crash();
        expect(&sim, three, Some(AgentErrorKind::ProcessError), None, 1);
    }
}
