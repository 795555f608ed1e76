//! The session record as the engine keeps it: scripted sessions, the
//! record lines they hand over, read back by the core's reader.

use serde_json::{json, Value};

use super::tests::{chunk, drain, engine, open, say, written, LIMITS};
use super::*;
use crate::record::{read_record_str, ReadOptions};

/// The header handed over (once) and every record line, in order.
fn record_of(actions: &[Action], header: &mut Option<String>, lines: &mut String) {
    for a in actions {
        if let Action::Record {
            header: h,
            lines: l,
            ..
        } = a
        {
            if let Some(h) = h {
                assert!(header.is_none(), "the header is handed over once");
                *header = Some(h.clone());
            }
            lines.push_str(l);
        }
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
    e.record(DEFAULT, None, &["sk-secret-value-123".to_owned()], 5)
        .unwrap();
    let (mut header, mut lines) = (None, String::new());
    record_of(&drain(&mut e), &mut header, &mut lines);
    let header: Value = serde_json::from_str(header.as_deref().unwrap()).unwrap();
    assert_eq!(header["sessionId"], "s1");
    assert_eq!(header["agentType"], "claude-code");
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
            "opened", "request", "text", "toolCall", "toolCall", "text", "turnEnd", "request",
            "text", "turnEnd", "closed"
        ],
        "{lines}"
    );
    let all = entries(&lines);
    assert_eq!(all[0]["agentSessionId"], "s1");
    assert_eq!(all[0]["protocol"], "acp");
    assert_eq!(all[1]["text"], "Read notes (key [redacted])");
    assert_eq!(all[2]["text"], "Let me look.");
    assert_eq!(all[6]["stopReason"], "end_turn");
    assert_eq!(all[8]["text"], "re: second");
    let seqs: Vec<u64> = all.iter().map(|v| v["seq"].as_u64().unwrap()).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[test]
fn a_restored_record_goes_on_and_marks_the_turn_the_old_host_never_ended() {
    // What the old host wrote: a turn with its request and no end.
    let prior = concat!(
        "{\"format\":\"agent-context/session-record\",\"version\":\"1.0\",\"sessionId\":\"s1\",\"agentType\":\"claude-code\",\"createdAt\":1}\n",
        "{\"seq\":1,\"at\":1,\"kind\":\"opened\",\"agentType\":\"claude-code\",\"protocol\":\"acp\",\"cd\":\"/w\"}\n",
        "{\"seq\":2,\"at\":2,\"kind\":\"request\",\"turn\":1,\"text\":\"first\"}\n",
        "{\"seq\":3,\"at\":3,\"kind\":\"text\",\"turn\":1,\"text\":\"half a rep",
    );
    let mut e = engine("claude-code", json!({"sessionId": "s1"}));
    open(&mut e, json!({"loadSession": true}), 0);
    e.record(DEFAULT, Some(prior.as_bytes()), &[], 10).unwrap();
    let (mut header, mut lines) = (None, String::new());
    record_of(&drain(&mut e), &mut header, &mut lines);
    assert_eq!(header, None, "a record that exists has its header");
    turn(&mut e, "again", 20, &mut lines);
    let all = entries(&lines);
    assert_eq!(all[0]["kind"], "interrupted");
    assert_eq!(all[0]["turn"], 1);
    assert_eq!(
        all[0]["seq"], 3,
        "the torn line is not an entry: seq goes on from 2"
    );
    assert_eq!(
        all[1]["kind"], "loaded",
        "a record that goes on: the session loaded"
    );
    assert_eq!(all[1]["agentSessionId"], "s1");
    assert_eq!(all[2]["kind"], "request");
    assert_eq!(all[2]["turn"], 2);
    // A record of a newer major version is refused.
    let newer = "{\"format\":\"agent-context/session-record\",\"version\":\"2.0\",\"sessionId\":\"s1\",\"agentType\":\"claude-code\",\"createdAt\":1}\n";
    let err = e
        .record(DEFAULT, Some(newer.as_bytes()), &[], 30)
        .unwrap_err();
    assert_eq!(err.code(), crate::error::ErrorCode::InvalidInput);
}

#[test]
fn a_crash_in_a_turn_and_the_reopen_are_recorded() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({"sessionCapabilities": {"resume": {}}}), 0);
    e.record(DEFAULT, None, &[], 1).unwrap();
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
        ["opened", "request", "crashed", "turnEnd"],
        "{lines}"
    );
    assert_eq!(all[2]["exitCode"], 3);
    assert_eq!(all[3]["error"]["kind"], "process_error");
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
fn mode_changes_and_links_are_recorded() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    e.record(DEFAULT, None, &[], 1).unwrap();
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
    e.record_link(
        DEFAULT,
        crate::record::Relation::HandedOffTo,
        "s9",
        "openai-codex",
        12,
    );
    record_of(&drain(&mut e), &mut None, &mut lines);
    let all = entries(&lines);
    assert_eq!(all[1]["kind"], "mode");
    assert_eq!(all[1]["mode"], "plan");
    assert_eq!(all[2]["kind"], "link");
    assert_eq!(all[2]["relation"], "handedOffTo");
    assert_eq!(all[2]["sessionId"], "s9");
}
