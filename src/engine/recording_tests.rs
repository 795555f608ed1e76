//! The session record as the engine keeps it: scripted sessions (each a
//! part of a conversation), the record lines they hand over, read back by
//! the core's reader.

use serde_json::{json, Value};

use super::tests::{chunk, drain, engine, open, say, written, LIMITS};
use super::*;
use crate::record::{read_record_str, OpenTurn, PartReason, ReadOptions, RecordSeed};
use crate::record::{PartStart, RecordStart};

/// Every record line handed over, in order (the header is the host's).
fn record_of(actions: &[Action], _header: &mut Option<String>, lines: &mut String) {
    for a in actions {
        if let Action::Record { lines: l, .. } = a {
            lines.push_str(l);
        }
    }
}

/// A new conversation's first part.
fn first_part() -> RecordStart {
    RecordStart {
        seed: RecordSeed {
            next_seq: 1,
            ..RecordSeed::default()
        },
        part: Some(PartStart {
            reason: PartReason::Opened,
            from_turn: 1,
            fallback_index: Some(0),
            team: None,
        }),
    }
}

/// A prompt answered with `re: text` and `end_turn`, its record lines kept.
fn turn(e: &mut Engine, text: &str, now: u64, lines: &mut String) {
    e.prompt(json!([{"type": "text", "text": text}]), LIMITS, now);
    let actions = drain(e);
    record_of(&actions, &mut None, lines);
    let sent = written(&actions);
    say(e, chunk("s1", &format!("re: {text}")), now + 10);
    say(
        e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        now + 20,
    );
    record_of(&drain(e), &mut None, lines);
}

fn entries(lines: &str) -> Vec<Value> {
    let read = read_record_str(lines, ReadOptions::default()).unwrap();
    read.lines
        .iter()
        .map(|l| serde_json::from_slice(l.text).unwrap())
        .collect()
}

#[test]
fn an_acp_session_is_recorded_from_its_open_to_its_close() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    e.record(
        DEFAULT,
        first_part(),
        &["sk-secret-value-123".to_owned()],
        5,
    );
    let (mut header, mut lines) = (None, String::new());
    record_of(&drain(&mut e), &mut header, &mut lines);
    // A turn with a tool call, a permission the policy answers, text in two pieces.
    let op = e.prompt(
        json!([{"type": "text", "text": "Read notes (key sk-secret-value-123)"}]),
        LIMITS,
        100,
    );
    let actions = drain(&mut e);
    record_of(&actions, &mut None, &mut lines);
    let sent = written(&actions);
    say(&mut e, chunk("s1", "Let me "), 110);
    say(&mut e, chunk("s1", "look."), 111);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {
            "sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read", "status": "pending",
            "rawInput": {"file_path": "notes.txt"}}}}),
        120,
    );
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {
            "sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed",
            "content": [{"type": "content", "content": {"type": "text", "text": "4217"}}]}}}),
        130,
    );
    say(&mut e, chunk("s1", "The code is 4217."), 140);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        150,
    );
    let actions = drain(&mut e);
    // The turn's end is recorded before the turn is handed back.
    let at_record = actions
        .iter()
        .rposition(|a| matches!(a, Action::Record { .. }))
        .unwrap();
    let at_done = actions
        .iter()
        .position(|a| matches!(a, Action::Done { op: o, .. } if *o == op))
        .unwrap();
    assert!(at_record < at_done);
    record_of(&actions, &mut None, &mut lines);
    turn(&mut e, "second", 200, &mut lines);
    e.close(300);
    let mut actions = drain(&mut e);
    e.exited(Some(0), None, 310);
    actions.extend(drain(&mut e));
    record_of(&actions, &mut None, &mut lines);
    assert!(!lines.contains("sk-secret-value-123"), "{lines}");
    let kinds: Vec<String> = entries(&lines)
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        kinds,
        [
            "part", "request", "text", "toolCall", "toolCall", "text", "turnEnd", "request",
            "text", "turnEnd", "closed"
        ],
        "{lines}"
    );
    let all = entries(&lines);
    assert_eq!(all[0]["sessionId"], "s1");
    assert_eq!(all[0]["protocol"], "acp");
    assert_eq!(
        (all[0]["reason"].as_str(), all[0]["fromTurn"].as_u64()),
        (Some("opened"), Some(1))
    );
    assert_eq!(all[1]["text"], "Read notes (key [redacted])");
    assert_eq!(all[2]["text"], "Let me look.");
    assert_eq!(all[6]["stopReason"], "end_turn");
    assert_eq!(all[8]["text"], "re: second");
    let seqs: Vec<u64> = all.iter().map(|v| v["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[test]
fn a_reopened_part_goes_on_numbering_from_where_the_conversation_stands() {
    // The conversation's record stands at seq 4, two turns; its live part reopened.
    let mut e = engine("claude-code", json!({"sessionId": "s1"}));
    open(&mut e, json!({"loadSession": true}), 0);
    let start = RecordStart {
        seed: RecordSeed {
            next_seq: 5,
            turns: 2,
            open_turn: None,
        },
        part: None,
    };
    e.record(DEFAULT, start, &[], 10);
    let mut lines = String::new();
    record_of(&drain(&mut e), &mut None, &mut lines);
    turn(&mut e, "again", 20, &mut lines);
    let all = entries(&lines);
    assert_eq!(
        all[0]["kind"], "loaded",
        "the live part reopened: its session loaded"
    );
    assert_eq!(all[0]["seq"], 5);
    assert_eq!(all[0]["agentSessionId"], "s1");
    assert_eq!(
        (all[1]["kind"].as_str(), all[1]["turn"].as_u64()),
        (Some("request"), Some(3))
    );
}

#[test]
fn a_failed_over_turn_goes_on_in_the_next_part_without_a_second_request() {
    // The part before wrote turn 3's request and one failed attempt.
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let start = RecordStart {
        seed: RecordSeed {
            next_seq: 9,
            turns: 3,
            open_turn: Some(OpenTurn {
                turn: 3,
                attempts: 1,
            }),
        },
        part: Some(PartStart {
            reason: PartReason::Failover,
            from_turn: 3,
            fallback_index: Some(1),
            team: None,
        }),
    };
    e.record(DEFAULT, start, &[], 10);
    e.conversation_turns(DEFAULT, false, Some(1));
    let mut lines = String::new();
    record_of(&drain(&mut e), &mut None, &mut lines);
    let limits = TurnLimits {
        events: true,
        ..LIMITS
    };
    let op = e.prompt(
        json!([{"type": "text", "text": "the question, carried"}]),
        limits,
        20,
    );
    let actions = drain(&mut e);
    record_of(&actions, &mut None, &mut lines);
    let sent = written(&actions);
    say(&mut e, chunk("s1", "an answer"), 30);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        40,
    );
    let actions = drain(&mut e);
    // Its text says the attempt: the second of the turn.
    let attempts: Vec<u32> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Event { op: o, attempt, .. } if *o == op => Some(*attempt),
            _ => None,
        })
        .collect();
    assert!(
        !attempts.is_empty() && attempts.iter().all(|&a| a == 2),
        "{attempts:?}"
    );
    record_of(&actions, &mut None, &mut lines);
    let all = entries(&lines);
    let kinds: Vec<&str> = all.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["part", "text", "turnEnd"], "{lines}");
    assert_eq!(
        (
            all[0]["seq"].as_u64(),
            all[0]["reason"].as_str(),
            all[0]["fromTurn"].as_u64()
        ),
        (Some(9), Some("failover"), Some(3))
    );
    assert_eq!(
        (all[2]["turn"].as_u64(), all[2]["seq"].as_u64()),
        (Some(3), Some(11))
    );
}

#[test]
fn a_failed_attempt_ends_with_attempt_end_and_its_text_is_discarded() {
    // A session whose conversation has another agent: a hands-off failure
    // ends the attempt, not the turn.
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    e.record(DEFAULT, first_part(), &[], 5);
    e.conversation_turns(DEFAULT, true, None);
    let mut lines = String::new();
    record_of(&drain(&mut e), &mut None, &mut lines);
    let limits = TurnLimits {
        events: true,
        max_retries: 0,
        ..LIMITS
    };
    let op = e.prompt(json!([{"type": "text", "text": "hello"}]), limits, 10);
    let actions = drain(&mut e);
    record_of(&actions, &mut None, &mut lines);
    let sent = written(&actions);
    say(&mut e, chunk("s1", "API Error: 429 rate limited"), 20);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32603, "message": "HTTP 429: rate limited"}}),
        30,
    );
    let actions = drain(&mut e);
    let result = tests::turn_of(&actions, op).unwrap();
    assert_eq!(
        result.error.as_ref().map(|e| e.kind),
        Some(crate::attempt::AgentErrorKind::QuotaExceeded)
    );
    assert_eq!(result.reply.text, "", "a failed attempt is no reply");
    assert!(actions
        .iter()
        .any(|a| matches!(a, Action::Discard { op: o, attempt: 1 } if *o == op)));
    record_of(&actions, &mut None, &mut lines);
    let all = entries(&lines);
    let kinds: Vec<&str> = all.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["part", "request", "attemptEnd"],
        "the turn is left open: {lines}"
    );
    assert_eq!(all[2]["attempt"], 1);
    assert_eq!(all[2]["error"]["kind"], "quota_exceeded");
    assert_eq!(all[2]["text"], "API Error: 429 rate limited");
    // Without another agent, the same failure ends the turn after its attemptEnd.
    e.conversation_turns(DEFAULT, false, None);
    let op = e.prompt(json!([{"type": "text", "text": "again"}]), limits, 40);
    let actions = drain(&mut e);
    let mut more = String::new();
    record_of(&actions, &mut None, &mut more);
    let sent = written(&actions);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32603, "message": "HTTP 429: rate limited"}}),
        50,
    );
    let actions = drain(&mut e);
    assert!(tests::turn_of(&actions, op).is_some());
    record_of(&actions, &mut None, &mut more);
    let kinds: Vec<String> = entries(&more)
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["request", "attemptEnd", "turnEnd"], "{more}");
}

#[test]
fn a_crash_in_a_turn_and_the_reopen_are_recorded() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({"sessionCapabilities": {"resume": {}}}), 0);
    e.record(DEFAULT, first_part(), &[], 1);
    let mut lines = String::new();
    record_of(&drain(&mut e), &mut None, &mut lines);
    let op = e.prompt(json!([{"type": "text", "text": "go"}]), LIMITS, 10);
    record_of(&drain(&mut e), &mut None, &mut lines);
    e.stderr(b"boom\n", 15);
    e.exited(Some(3), None, 20);
    let actions = drain(&mut e);
    assert!(tests::turn_of(&actions, op).is_some());
    record_of(&actions, &mut None, &mut lines);
    let all = entries(&lines);
    let kinds: Vec<&str> = all.iter().map(|v| v["kind"].as_str().unwrap()).collect();
    assert_eq!(
        kinds,
        ["part", "request", "crashed", "attemptEnd", "turnEnd"],
        "{lines}"
    );
    assert_eq!(all[2]["exitCode"], 3);
    assert_eq!(all[4]["error"]["kind"], "process_error");
    // The next prompt starts the agent again and resumes the session.
    e.prompt(json!([{"type": "text", "text": "again"}]), LIMITS, 30);
    assert!(matches!(drain(&mut e)[0], Action::Spawn { .. }));
    e.spawned(31);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1,
            "agentCapabilities": {"sessionCapabilities": {"resume": {}}}}}),
        32,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(reopen[0]["method"], "session/resume");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        33,
    );
    let mut more = String::new();
    record_of(&drain(&mut e), &mut None, &mut more);
    let more = entries(&more);
    assert_eq!(more[0]["kind"], "resumed", "{more:?}");
    assert_eq!(more[0]["agentSessionId"], "s1");
    assert_eq!(more[1]["kind"], "request");
    assert_eq!(more[1]["turn"], 2);
}

#[test]
fn mode_changes_are_recorded_and_a_part_no_longer_recorded_writes_nothing() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    e.record(DEFAULT, first_part(), &[], 1);
    let mut lines = String::new();
    record_of(&drain(&mut e), &mut None, &mut lines);
    e.set_mode("plan", 10);
    let actions = drain(&mut e);
    record_of(&actions, &mut None, &mut lines);
    let sent = written(&actions);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        11,
    );
    record_of(&drain(&mut e), &mut None, &mut lines);
    let all = entries(&lines);
    assert_eq!(all[1]["kind"], "mode");
    assert_eq!(all[1]["mode"], "plan");
    // The conversation went on with another part: closing this one writes nothing.
    e.stop_recording(DEFAULT);
    e.close(20);
    let mut actions = drain(&mut e);
    e.exited(Some(0), None, 30);
    actions.extend(drain(&mut e));
    assert!(!actions.iter().any(|a| matches!(a, Action::Record { .. })));
}
