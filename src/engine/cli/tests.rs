//! The CLI session engine on scripted events and a fake clock: no process,
//! no I/O. Each test plays the CLI's side line by line and checks the
//! actions.

use serde_json::{json, Value};

use super::*;
use crate::attempt::AgentErrorKind;
use crate::engine::{
    Action, Engine, Outcome, TurnLimits, TurnResult, CANCEL_GRACE_MS, CLOSE_GRACE_MS,
};

pub(super) const LIMITS: TurnLimits = TurnLimits {
    idle_ms: 30_000,
    max_ms: 90_000,
    max_retries: 0,
    events: true,
};

pub(super) fn engine(agent: &str, options: Value) -> Engine {
    let mut o = json!({"cd": "/w"});
    for (k, v) in options.as_object().unwrap() {
        o[k] = v.clone();
    }
    Engine::cli(CliSessionConfig::read(agent, &o, "").unwrap())
}

pub(super) fn drain(e: &mut Engine) -> Vec<Action> {
    std::iter::from_fn(|| e.poll()).collect()
}

pub(super) fn text(prompt: &str) -> Value {
    json!([{"type": "text", "text": prompt}])
}

pub(super) fn say(e: &mut Engine, line: Value, now: u64) {
    e.stdout(format!("{line}\n").as_bytes(), now);
}

pub(super) fn spawn_args(actions: &[Action]) -> Option<Vec<String>> {
    actions.iter().find_map(|a| match a {
        Action::Spawn { args, .. } => Some(args.clone()),
        _ => None,
    })
}

/// The lines written to stdin, parsed.
pub(super) fn written(actions: &[Action]) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Write(line) => {
                assert!(line.ends_with('\n'), "{line:?}");
                Some(serde_json::from_str(line.trim_end()).unwrap())
            }
            _ => None,
        })
        .collect()
}

pub(super) fn turn_of(actions: &[Action], op: u64) -> TurnResult {
    actions
        .iter()
        .find_map(|a| match a {
            Action::Done {
                op: o,
                outcome: Outcome::Turn(t),
            } if *o == op => Some((**t).clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no turn {op} in {actions:?}"))
}

pub(super) fn claude_answer(e: &mut Engine, session: &str, reply: &str, now: u64) {
    say(
        e,
        json!({"type": "system", "subtype": "init", "session_id": session}),
        now,
    );
    say(
        e,
        json!({"type": "assistant", "session_id": session,
        "message": {"role": "assistant", "content": [{"type": "text", "text": reply}]}}),
        now,
    );
    say(
        e,
        json!({"type": "result", "subtype": "success", "is_error": false, "result": reply,
        "session_id": session, "stop_reason": "end_turn"}),
        now,
    );
}

/// A Claude session opened and its process running.
pub(super) fn claude_open(options: Value) -> Engine {
    let mut e = engine("claude-code", options);
    assert!(e.persistent());
    let op = e.open(0);
    let seen = drain(&mut e);
    let args = spawn_args(&seen).expect("the process starts at open");
    assert_eq!(
        args[..6],
        [
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",
            "--input-format",
            "stream-json"
        ]
    );
    e.spawned(10);
    let seen = drain(&mut e);
    assert!(
        matches!(&seen[..], [Action::Done { op: o, outcome: Outcome::Opened(_) }] if *o == op),
        "{seen:?}"
    );
    e
}

#[test]
fn claude_three_turns_in_one_process() {
    let mut e = claude_open(json!({"model": "m1"}));
    for (i, prompt) in ["one", "two", "three"].iter().enumerate() {
        let now = 100 * (i as u64 + 1);
        let op = e.prompt(text(prompt), LIMITS, now);
        let seen = drain(&mut e);
        assert_eq!(spawn_args(&seen), None, "no new process for turn {i}");
        let lines = written(&seen);
        assert_eq!(
            lines,
            [json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "text", "text": prompt}]}})]
        );
        claude_answer(&mut e, "s1", &format!("answer {i}"), now + 5);
        let seen = drain(&mut e);
        assert!(seen
            .iter()
            .any(|a| matches!(a, Action::Event { op: o, .. } if *o == op)));
        let turn = turn_of(&seen, op);
        assert!(turn.success, "{turn:?}");
        assert_eq!(turn.reply.text, format!("answer {i}"));
        assert_eq!(turn.session_id.as_deref(), Some("s1"));
        assert_eq!(turn.stop_reason.as_deref(), Some("end_turn"));
        assert_eq!(turn.duration_ms, 5);
        assert_eq!(e.snapshot().session_id.as_deref(), Some("s1"));
    }
    // Close: stdin ends; the process exits; done.
    let close = e.close(1000);
    assert_eq!(drain(&mut e), [Action::CloseStdin]);
    e.exited(Some(0), None, 1100);
    assert_eq!(
        drain(&mut e),
        [
            Action::Done {
                op: close,
                outcome: Outcome::Ok(Value::Null)
            },
            Action::Closed
        ]
    );
}

#[test]
fn claude_prompts_queue_behind_the_running_turn() {
    let mut e = claude_open(json!({}));
    let a = e.prompt(text("a"), LIMITS, 100);
    let b = e.prompt(text("b"), LIMITS, 101);
    let seen = drain(&mut e);
    assert_eq!(written(&seen).len(), 1, "one turn at a time");
    claude_answer(&mut e, "s1", "A", 200);
    let seen = drain(&mut e);
    assert!(turn_of(&seen, a).success);
    assert_eq!(written(&seen)[0]["message"]["content"][0]["text"], "b");
    claude_answer(&mut e, "s1", "B", 300);
    assert_eq!(turn_of(&drain(&mut e), b).reply.text, "B");
}

#[test]
fn claude_cancel_interrupts_then_the_next_turn_runs_in_the_same_process() {
    let mut e = claude_open(json!({}));
    let op = e.prompt(text("stall"), LIMITS, 100);
    drain(&mut e);
    say(
        &mut e,
        json!({"type": "system", "subtype": "init", "session_id": "s1"}),
        150,
    );
    e.cancel(200);
    let lines = written(&drain(&mut e));
    assert_eq!(lines[0]["type"], "control_request");
    assert_eq!(lines[0]["request"], json!({"subtype": "interrupt"}));
    assert_eq!(e.poll_timeout(), Some(200 + CANCEL_GRACE_MS));
    let rid = lines[0]["request_id"].clone();
    say(
        &mut e,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": rid}}),
        210,
    );
    say(
        &mut e,
        json!({"type": "result", "subtype": "error_during_execution", "is_error": true, "session_id": "s1"}),
        220,
    );
    let turn = turn_of(&drain(&mut e), op);
    assert_eq!(turn.kind(), Some(AgentErrorKind::Aborted));
    assert_eq!(turn.stop_reason.as_deref(), Some("cancelled"));
    assert_eq!(e.poll_timeout(), None, "no kill once the turn ended");
    let next = e.prompt(text("and now?"), LIMITS, 300);
    let seen = drain(&mut e);
    assert_eq!(spawn_args(&seen), None);
    claude_answer(&mut e, "s1", "fine", 350);
    assert!(turn_of(&drain(&mut e), next).success);
}

#[test]
fn claude_killed_after_the_grace_then_resumed_on_the_next_turn() {
    let mut e = claude_open(json!({}));
    let first = e.prompt(text("one"), LIMITS, 100);
    drain(&mut e);
    claude_answer(&mut e, "s1", "ok", 150);
    assert!(turn_of(&drain(&mut e), first).success);
    let stuck = e.prompt(text("two"), LIMITS, 200);
    drain(&mut e);
    say(
        &mut e,
        json!({"type": "system", "subtype": "init", "session_id": "s1"}),
        210,
    );
    e.cancel(300);
    drain(&mut e);
    e.timeout(300 + CANCEL_GRACE_MS - 1);
    assert!(drain(&mut e).is_empty());
    e.timeout(300 + CANCEL_GRACE_MS);
    assert_eq!(drain(&mut e), [Action::Kill]);
    e.exited(None, Some("SIGKILL"), 5400);
    let turn = turn_of(&drain(&mut e), stuck);
    assert_eq!(turn.kind(), Some(AgentErrorKind::Aborted));
    // The next turn starts the CLI again on the same session.
    let third = e.prompt(text("three"), LIMITS, 6000);
    let args = spawn_args(&drain(&mut e)).expect("started again");
    assert!(args.contains(&"--resume=s1".to_owned()), "{args:?}");
    e.spawned(6010);
    assert_eq!(
        written(&drain(&mut e))[0]["message"]["content"][0]["text"],
        "three"
    );
    claude_answer(&mut e, "s1", "back", 6100);
    let turn = turn_of(&drain(&mut e), third);
    assert!(turn.success, "{turn:?}");
    assert_eq!(turn.requested_session_id.as_deref(), Some("s1"));
}

#[test]
fn claude_crash_between_turns_resumes_and_is_verified() {
    let mut e = claude_open(json!({}));
    let first = e.prompt(text("one"), LIMITS, 100);
    drain(&mut e);
    claude_answer(&mut e, "s1", "ok", 150);
    assert!(turn_of(&drain(&mut e), first).success);
    e.exited(Some(1), None, 500);
    assert!(drain(&mut e).is_empty(), "nothing waits: nothing to say");
    let second = e.prompt(text("two"), LIMITS, 600);
    assert!(spawn_args(&drain(&mut e))
        .unwrap()
        .contains(&"--resume=s1".to_owned()));
    e.spawned(610);
    drain(&mut e);
    // Another session answered: never a silent new session.
    claude_answer(&mut e, "s2", "who?", 700);
    let turn = turn_of(&drain(&mut e), second);
    assert_eq!(
        turn.kind(),
        Some(AgentErrorKind::SessionNotFound),
        "{turn:?}"
    );
    assert_eq!(e.snapshot().session_id.as_deref(), Some("s1"));
}

#[test]
fn claude_gone_after_its_prompt_was_written_ends_that_turn_and_the_next_resumes() {
    let mut e = claude_open(json!({}));
    let one = e.prompt(text("one"), LIMITS, 100);
    drain(&mut e);
    claude_answer(&mut e, "s1", "first", 110);
    assert!(turn_of(&drain(&mut e), one).success);
    let two = e.prompt(text("two"), LIMITS, 120);
    assert_eq!(written(&drain(&mut e)).len(), 1);
    e.stderr(b"boom\n", 130);
    e.exited(Some(1), None, 140);
    let seen = drain(&mut e);
    // Never written again by itself: it may have reached the model.
    assert!(spawn_args(&seen).is_none(), "not started again: {seen:?}");
    let turn = turn_of(&seen, two);
    // The one process died in the turn: a crash.
    assert_eq!(turn.kind(), Some(AgentErrorKind::ProcessError), "{turn:?}");
    let error = turn.error.unwrap();
    assert_eq!(
        (error.exit_code, error.last_lines),
        (Some(1), vec!["boom".to_owned()])
    );
    // The next prompt starts it again on the same session.
    let three = e.prompt(text("three"), LIMITS, 150);
    let seen = drain(&mut e);
    let args = spawn_args(&seen).expect("started again");
    assert!(args.contains(&"--resume=s1".to_owned()), "{args:?}");
    e.spawned(160);
    let lines = written(&drain(&mut e));
    assert_eq!(lines.len(), 1);
    assert_eq!(lines[0]["message"]["content"][0]["text"], "three");
    claude_answer(&mut e, "s1", "third", 170);
    assert!(turn_of(&drain(&mut e), three).success);
}

#[test]
fn claude_idle_turn_is_interrupted_and_ends_idle_timeout() {
    let mut e = claude_open(json!({}));
    let op = e.prompt(text("one"), LIMITS, 100);
    drain(&mut e);
    assert_eq!(e.poll_timeout(), Some(100 + LIMITS.idle_ms));
    e.timeout(100 + LIMITS.idle_ms);
    assert_eq!(
        written(&drain(&mut e))[0]["request"]["subtype"],
        "interrupt"
    );
    say(
        &mut e,
        json!({"type": "result", "subtype": "error_during_execution", "is_error": true, "session_id": "s1"}),
        30_200,
    );
    let turn = turn_of(&drain(&mut e), op);
    assert_eq!(turn.kind(), Some(AgentErrorKind::IdleTimeout), "{turn:?}");
}

#[test]
fn claude_set_model_is_a_control_request_and_the_next_process_flag() {
    let mut e = claude_open(json!({"model": "m1"}));
    let op = e.set_model("m2", 50);
    let lines = written(&drain(&mut e));
    assert_eq!(
        lines[0]["request"],
        json!({"subtype": "set_model", "model": "m2"})
    );
    say(
        &mut e,
        json!({"type": "control_response", "response": {"subtype": "success", "request_id": lines[0]["request_id"]}}),
        60,
    );
    assert_eq!(
        drain(&mut e),
        [Action::Done {
            op,
            outcome: Outcome::Ok(Value::Null)
        }]
    );
    assert_eq!(e.snapshot().model.as_deref(), Some("m2"));
    let refused = e.set_model("m3", 70);
    let lines = written(&drain(&mut e));
    say(
        &mut e,
        json!({"type": "control_response", "response": {"subtype": "error", "request_id": lines[0]["request_id"], "error": "unknown model"}}),
        80,
    );
    match &drain(&mut e)[..] {
        [Action::Done {
            op,
            outcome: Outcome::Failed(f),
        }] if *op == refused => {
            assert_eq!(f.kind, AgentErrorKind::RequestRejected);
            assert!(f.message.contains("unknown model"));
        }
        other => panic!("{other:?}"),
    }
    e.exited(Some(0), None, 90);
    e.prompt(text("hi"), LIMITS, 100);
    let args = spawn_args(&drain(&mut e)).unwrap();
    assert!(args.contains(&"--model=m3".to_owned()), "{args:?}");
}

#[test]
fn modes_options_and_authentication_are_refused_naming_the_agent() {
    let mut e = claude_open(json!({}));
    type Ask = fn(&mut Engine) -> u64;
    let asks: [Ask; 3] = [
        |e| e.set_mode("plan", 1),
        |e| e.set_config_option("x", json!(true), 1),
        |e| e.authenticate("login", 1),
    ];
    for ask in asks {
        let op = ask(&mut e);
        match &drain(&mut e)[..] {
            [Action::Done {
                op: o,
                outcome: Outcome::Failed(f),
            }] if *o == op => {
                assert_eq!(f.kind, AgentErrorKind::InvalidParams);
                assert!(
                    f.message.contains("Claude Code") && f.message.contains("protocol 'cli'"),
                    "{}",
                    f.message
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn claude_close_kills_a_process_that_does_not_exit() {
    let mut e = claude_open(json!({}));
    let close = e.close(100);
    assert_eq!(drain(&mut e), [Action::CloseStdin]);
    assert_eq!(e.poll_timeout(), Some(100 + CLOSE_GRACE_MS));
    e.timeout(100 + CLOSE_GRACE_MS);
    assert_eq!(drain(&mut e), [Action::Kill]);
    e.exited(None, Some("SIGKILL"), 5200);
    assert_eq!(
        drain(&mut e),
        [
            Action::Done {
                op: close,
                outcome: Outcome::Ok(Value::Null)
            },
            Action::Closed
        ]
    );
}

#[test]
fn claude_close_during_a_turn_interrupts_it_first() {
    let mut e = claude_open(json!({}));
    let op = e.prompt(text("one"), LIMITS, 100);
    let queued = e.prompt(text("two"), LIMITS, 100);
    drain(&mut e);
    let close = e.close(200);
    let seen = drain(&mut e);
    assert_eq!(turn_of(&seen, queued).kind(), Some(AgentErrorKind::Aborted));
    assert_eq!(written(&seen)[0]["request"]["subtype"], "interrupt");
    say(
        &mut e,
        json!({"type": "result", "subtype": "error_during_execution", "is_error": true, "session_id": "s1"}),
        250,
    );
    let seen = drain(&mut e);
    assert_eq!(turn_of(&seen, op).kind(), Some(AgentErrorKind::Aborted));
    assert_eq!(seen.last(), Some(&Action::CloseStdin));
    e.exited(Some(0), None, 300);
    assert_eq!(
        drain(&mut e),
        [
            Action::Done {
                op: close,
                outcome: Outcome::Ok(Value::Null)
            },
            Action::Closed
        ]
    );
}

/// `file` found on Linux, spawned as it is with `env`.
pub(super) fn resolved(file: &str, env: Vec<(String, String)>) -> crate::engine::Resolved {
    crate::engine::Resolved {
        platform: crate::launch::platform::Platform::Linux,
        found: file.into(),
        file: file.into(),
        prefix: Vec::new(),
        env,
    }
}
