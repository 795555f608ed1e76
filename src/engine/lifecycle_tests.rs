//! The engine's lifecycle on scripted events and a fake clock: a missing
//! command, crashes and how the session is reopened, `idleClose`, close.

use serde_json::json;

use super::tests::{chunk, drain, engine, open, say, turn, turn_of, written, LIMITS};
use super::*;
use crate::attempt::AgentErrorKind;

#[test]
fn a_crash_between_turns_resumes_the_same_session() {
    let mut e = engine("claude-code", json!({}));
    let caps = json!({"loadSession": true, "sessionCapabilities": {"resume": {}}});
    open(&mut e, caps.clone(), 0);
    turn(&mut e, "one", 10);
    e.exited(Some(1), None, 50);
    assert!(drain(&mut e).is_empty(), "nothing restarts until asked");
    let op = e.prompt(json!([{"type": "text", "text": "two"}]), LIMITS, 60);
    assert!(matches!(drain(&mut e)[0], Action::Spawn { .. }));
    e.spawned(61);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        62,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(reopen[0]["method"], "session/resume");
    assert_eq!(reopen[0]["params"]["sessionId"], "s1");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        63,
    );
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["params"]["sessionId"], "s1");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        64,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(result.session_id.as_deref(), Some("s1"));
}

#[test]
fn a_crash_where_the_session_cannot_be_reopened_is_session_not_found() {
    let mut e = engine("google-gemini", json!({}));
    let caps = json!({"loadSession": true});
    open(&mut e, caps.clone(), 0);
    turn(&mut e, "one", 10);
    e.exited(Some(0), None, 50);
    let op = e.prompt(json!([{"type": "text", "text": "two"}]), LIMITS, 60);
    drain(&mut e);
    e.spawned(61);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        62,
    );
    let actions = drain(&mut e);
    assert!(written(&actions).is_empty(), "no new session: {actions:?}");
    assert!(actions.contains(&Action::Kill));
    e.exited(None, Some("SIGTERM"), 63);
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(AgentErrorKind::SessionNotFound));
}

#[test]
fn close_closes_the_session_then_ends_stdin_then_kills() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({"sessionCapabilities": {"close": {}}}), 0);
    turn(&mut e, "one", 10);
    let op = e.close(100);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/close");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        110,
    );
    // Claude's adapter ignores EOF: stdin ends, then it is killed.
    assert_eq!(drain(&mut e), vec![Action::CloseStdin, Action::Kill]);
    e.exited(None, Some("SIGTERM"), 120);
    let actions = drain(&mut e);
    assert!(actions
        .iter()
        .any(|a| matches!(a, Action::Done { op: o, .. } if *o == op)));
    assert_eq!(actions.last(), Some(&Action::Closed));
}

#[test]
fn a_close_that_hangs_is_killed_after_the_bound() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    e.close(100);
    assert_eq!(
        drain(&mut e),
        vec![Action::CloseStdin],
        "Gemini exits on EOF"
    );
    assert_eq!(e.poll_timeout(), Some(100 + CLOSE_GRACE_MS));
    e.timeout(100 + CLOSE_GRACE_MS);
    assert_eq!(drain(&mut e), vec![Action::Kill]);
}

#[test]
fn a_missing_command_fails_every_waiting_operation() {
    let mut e = engine("claude-code", json!({}));
    let open = e.open(0);
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 0);
    drain(&mut e);
    e.cannot_launch(false, "searched PATH", 1);
    let actions = drain(&mut e);
    assert!(actions.iter().any(
        |a| matches!(a, Action::Done { op: o, outcome: Outcome::Failed(f) }
        if *o == open && f.kind == AgentErrorKind::CommandNotFound)
    ));
    assert_eq!(
        turn_of(&actions, op).unwrap().kind(),
        Some(AgentErrorKind::CommandNotFound)
    );
}

#[test]
fn a_crash_after_the_prompt_was_written_ends_that_turn_and_the_next_reopens_the_session() {
    // The agent may have read the prompt (and sent it to its model): it is
    // never sent again by itself. The turn ends with what the process left;
    // the next prompt starts the agent again on the same session.
    let mut e = engine("openai-codex", json!({}));
    let caps = json!({"loadSession": true});
    open(&mut e, caps.clone(), 0);
    turn(&mut e, "one", 10);
    let op = e.prompt(json!([{"type": "text", "text": "two"}]), LIMITS, 60);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/prompt");
    e.stderr(b"fatal: out of memory\n", 61);
    e.exited(None, Some("SIGKILL"), 62);
    let after = drain(&mut e);
    assert!(
        !after.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "not started again by itself: {after:?}"
    );
    let result = turn_of(&after, op).expect("the turn ended with the process");
    let error = result.error.expect("a failure");
    assert_eq!(
        error.kind,
        AgentErrorKind::ProcessError,
        "{}",
        error.message
    );
    assert!(error.message.contains("SIGKILL"), "{}", error.message);
    assert!(error
        .last_lines
        .contains(&"fatal: out of memory".to_owned()));
    assert_eq!(result.attempts, 1);
    // The next prompt: started again, the session loaded, the prompt sent once.
    let op = e.prompt(json!([{"type": "text", "text": "three"}]), LIMITS, 70);
    assert!(
        matches!(drain(&mut e)[0], Action::Spawn { .. }),
        "started again"
    );
    e.spawned(71);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        72,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(reopen[0]["method"], "session/load");
    assert_eq!(reopen[0]["params"]["sessionId"], "s1");
    // A loaded session replays its history: not this turn's reply.
    say(&mut e, chunk("s1", "re: one"), 73);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        74,
    );
    let sent = written(&drain(&mut e));
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["params"]["prompt"][0]["text"], "three");
    say(&mut e, chunk("s1", "re: three"), 75);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        76,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(result.reply.text, "re: three");
    assert_eq!(result.attempts, 1);
}

#[test]
fn a_crash_during_a_turn_keeps_its_exit_code_and_last_lines() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 10);
    drain(&mut e);
    e.stdout(b"not json: warming up\n", 11);
    e.stderr(b"crashed\n", 12);
    e.exited(Some(3), None, 13);
    let result = turn_of(&drain(&mut e), op).unwrap();
    let error = result.error.unwrap();
    assert_eq!(error.exit_code, Some(3));
    assert!(
        error.last_lines.contains(&"crashed".to_owned()),
        "{:?}",
        error.last_lines
    );
    assert_eq!(result.reply.non_json_lines, ["not json: warming up"]);
}

#[test]
fn a_missing_adapter_names_its_own_package() {
    let mut e = engine("claude-code", json!({}));
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 0);
    drain(&mut e);
    e.cannot_launch(false, "searched PATH", 1);
    let result = turn_of(&drain(&mut e), op).unwrap();
    let launch = crate::agents::find("claude-code").unwrap().acp.unwrap();
    assert!(result.error.unwrap().message.contains(launch.package));
}

#[test]
fn idle_close_stops_the_process_and_the_next_prompt_reopens_the_session() {
    let mut e = engine("claude-code", json!({"idleClose": 10}));
    let caps = json!({"sessionCapabilities": {"resume": {}, "close": {}}});
    open(&mut e, caps.clone(), 0);
    turn(&mut e, "one", 100);
    assert_eq!(e.poll_timeout(), Some(120 + 10_000));
    e.timeout(120 + 10_000);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/close");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        10_130,
    );
    assert_eq!(drain(&mut e), vec![Action::CloseStdin, Action::Kill]);
    e.exited(None, Some("SIGTERM"), 10_140);
    assert!(
        drain(&mut e).is_empty(),
        "no operation ends: the session stays"
    );
    assert_eq!(e.poll_timeout(), None);
    let op = e.prompt(json!([{"type": "text", "text": "two"}]), LIMITS, 20_000);
    assert!(matches!(drain(&mut e)[0], Action::Spawn { .. }));
    e.spawned(20_001);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        20_002,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(
        (
            reopen[0]["method"].as_str(),
            reopen[0]["params"]["sessionId"].as_str()
        ),
        (Some("session/resume"), Some("s1"))
    );
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        20_003,
    );
    let sent = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        20_004,
    );
    assert!(turn_of(&drain(&mut e), op).unwrap().success);
    // An agent that cannot reopen a session keeps its process.
    let mut e = engine("google-gemini", json!({"idleClose": 10}));
    open(&mut e, json!({"loadSession": true}), 0);
    turn(&mut e, "one", 100);
    e.timeout(120 + 10_000);
    assert!(drain(&mut e).is_empty());
    assert!(e.is_running());
}

#[test]
fn a_spawn_that_finds_no_adapter_names_the_adapters_package() {
    let mut e = engine("claude-code", json!({}));
    let op = e.open(0);
    drain(&mut e);
    e.spawn_failed("ENOENT", 1);
    let failed = drain(&mut e).into_iter().find_map(|a| match a {
        Action::Done {
            op: o,
            outcome: Outcome::Failed(f),
        } if o == op => Some(f),
        _ => None,
    });
    let f = failed.unwrap();
    assert_eq!(f.kind, AgentErrorKind::CommandNotFound);
    let launch = crate::agents::find("claude-code").unwrap().acp.unwrap();
    assert!(f.message.contains(launch.package), "{}", f.message);
    assert!(
        !f.message.contains("@anthropic-ai/claude-code"),
        "{}",
        f.message
    );
}

#[test]
fn nothing_starts_again_after_close() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    e.close(10);
    drain(&mut e);
    e.exited(Some(0), None, 20);
    assert_eq!(drain(&mut e).last(), Some(&Action::Closed));
    let op = e.prompt(json!([{"type": "text", "text": "late"}]), LIMITS, 30);
    let actions = drain(&mut e);
    assert!(
        !actions.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "{actions:?}"
    );
    assert_eq!(
        turn_of(&actions, op).unwrap().kind(),
        Some(AgentErrorKind::Aborted)
    );
}

#[test]
fn a_first_turn_cancelled_then_killed_reopens_the_same_session() {
    let mut e = engine("opencode", json!({}));
    let caps = json!({"loadSession": true, "sessionCapabilities": {"close": {}, "fork": {}, "list": {}, "resume": {}}});
    open(&mut e, caps.clone(), 0);
    let first = e.prompt(
        json!([{"type": "text", "text": "This one stalls (mark 3391)."}]),
        LIMITS,
        10,
    );
    drain(&mut e);
    e.cancel(20);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/cancel");
    e.timeout(20 + CANCEL_GRACE_MS);
    assert!(drain(&mut e).contains(&Action::Kill));
    e.exited(None, Some("SIGTERM"), 20 + CANCEL_GRACE_MS + 5);
    let cancelled = turn_of(&drain(&mut e), first).expect("the cancelled turn ended");
    assert_eq!(cancelled.kind(), Some(AgentErrorKind::Aborted));
    let op = e.prompt(json!([{"type": "text", "text": "And now?"}]), LIMITS, 6_000);
    assert!(matches!(drain(&mut e)[0], Action::Spawn { .. }));
    e.spawned(6_001);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        6_002,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(reopen[0]["method"], "session/resume", "{reopen:?}");
    assert_eq!(reopen[0]["params"]["sessionId"], "s1");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        6_003,
    );
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["params"]["sessionId"], "s1");
    say(&mut e, chunk("s1", "ok"), 6_004);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        6_005,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert!(result.success, "{result:?}");
    assert_eq!(result.session_id.as_deref(), Some("s1"));
}

#[test]
fn a_crash_after_only_stderr_and_a_late_title_ends_the_turn_with_what_it_left() {
    let mut e = engine("claude-code", json!({}));
    let caps = json!({"sessionCapabilities": {"resume": {}}});
    open(&mut e, caps.clone(), 0);
    turn(&mut e, "one", 10);
    let op = e.prompt(json!([{"type": "text", "text": "two"}]), LIMITS, 60);
    drain(&mut e);
    // What the dying agent still printed: the last turn's title, a log line.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
        "update": {"sessionUpdate": "session_info_update", "title": "one"}}}),
        61,
    );
    e.stderr(b"[idle-compaction] skip\n", 62);
    e.exited(None, Some("SIGKILL"), 63);
    let actions = drain(&mut e);
    let result = turn_of(&actions, op).expect("the turn ended with the process");
    let error = result.error.unwrap();
    assert_eq!(
        error.kind,
        AgentErrorKind::ProcessError,
        "{}",
        error.message
    );
    assert!(error
        .last_lines
        .contains(&"[idle-compaction] skip".to_owned()));
    assert!(
        !actions.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "not started again by itself: {actions:?}"
    );
}
