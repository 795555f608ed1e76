//! Several sessions on one agent process (`Engine::process`), on scripted
//! events and a fake clock: turns of two sessions at once, updates routed
//! by `sessionId`, one session closed while the other runs, a crash with
//! two sessions, `session/list`, `authenticate`.

use serde_json::{json, Value};

use super::tests::{drain, say, turn_of, written, LIMITS};
use super::*;
use crate::attempt::AgentErrorKind;

const CAPS: &str =
    r#"{"loadSession": true, "sessionCapabilities": {"resume": {}, "close": {}, "list": {}}}"#;

fn process(caps: &str) -> (Engine, Vec<Action>) {
    let cfg = SessionConfig::read("opencode", &json!({"cd": "/w"}), "").unwrap();
    let mut e = Engine::process(cfg, false);
    let op = e.open(0);
    assert!(matches!(drain(&mut e)[..], [Action::Spawn { .. }]));
    e.spawned(1);
    let init = written(&drain(&mut e));
    assert_eq!(init[0]["method"], "initialize");
    let caps: Value = serde_json::from_str(caps).unwrap();
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1,
            "agentCapabilities": caps, "authMethods": [{"id": "login", "name": "Log in"}]}}),
        2,
    );
    let seen = drain(&mut e);
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::Done { op: o, outcome: Outcome::Opened(_) } if *o == op)),
        "{seen:?}"
    );
    assert!(
        written(&seen).is_empty(),
        "no session opens before one is asked for"
    );
    (e, seen)
}

/// Adds a session with `options` and opens it as `id` (new, or as the agent was asked).
fn session(e: &mut Engine, options: Value, id: &str, now: u64) -> u64 {
    let key = e.add_session(&options).unwrap();
    let op = e.open_session(key, now);
    let sent = written(&drain(e));
    assert_eq!(sent.len(), 1, "{sent:?}");
    let result = if sent[0]["method"] == "session/new" {
        json!({"sessionId": id})
    } else {
        json!({})
    };
    say(
        e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": result}),
        now,
    );
    let seen = drain(e);
    assert!(
        seen.iter().any(|a| matches!(a, Action::Done { op: o, outcome: Outcome::Opened(s) } if *o == op && s.session_id.as_deref() == Some(id))),
        "{seen:?}"
    );
    key
}

fn chunk(session: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})
}

fn prompt(e: &mut Engine, key: u64, text: &str, now: u64) -> (u64, Value) {
    let op = e.prompt_in(key, json!([{"type": "text", "text": text}]), LIMITS, now);
    let sent = written(&drain(e));
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0]["method"], "session/prompt");
    (op, sent[0].clone())
}

fn end_turn(id: &Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "result": {"stopReason": "end_turn"}})
}

#[test]
fn two_sessions_run_turns_at_once_each_reply_its_own() {
    let (mut e, _) = process(CAPS);
    let a = session(&mut e, json!({}), "sa", 10);
    let b = session(&mut e, json!({"cd": "/w/b"}), "sb", 11);
    let (op_a, sent_a) = prompt(&mut e, a, "one", 20);
    // B's turn starts while A's runs.
    let (op_b, sent_b) = prompt(&mut e, b, "two", 21);
    assert_eq!(sent_a["params"]["sessionId"], "sa");
    assert_eq!(sent_b["params"]["sessionId"], "sb");
    // Interleaved chunks; a second prompt of A waits for A's turn.
    say(&mut e, chunk("sb", "bee "), 22);
    say(&mut e, chunk("sa", "ay "), 23);
    let op_a2 = e.prompt_in(a, json!([{"type": "text", "text": "three"}]), LIMITS, 24);
    assert!(
        written(&drain(&mut e)).is_empty(),
        "A's next prompt waits for its turn"
    );
    say(&mut e, chunk("sb", "done"), 25);
    say(&mut e, end_turn(&sent_b["id"]), 26);
    let seen = drain(&mut e);
    let turn_b = turn_of(&seen, op_b).expect("B's turn ended");
    assert_eq!(turn_b.reply.text, "bee done");
    assert_eq!(turn_b.session_id.as_deref(), Some("sb"));
    assert!(turn_of(&seen, op_a).is_none(), "A runs on");
    // Events went to their own turn.
    let events_a: Vec<u64> = seen
        .iter()
        .filter_map(|x| match x {
            Action::Event { op, .. } => Some(*op),
            _ => None,
        })
        .collect();
    assert!(events_a.iter().all(|op| *op == op_b), "{events_a:?}");
    say(&mut e, end_turn(&sent_a["id"]), 27);
    let seen = drain(&mut e);
    let turn_a = turn_of(&seen, op_a).expect("A's turn ended");
    assert_eq!(turn_a.reply.text, "ay ");
    let next = written(&seen);
    assert_eq!(next[0]["method"], "session/prompt");
    assert_eq!(next[0]["params"]["sessionId"], "sa");
    assert_eq!(next[0]["params"]["prompt"][0]["text"], "three");
    say(&mut e, end_turn(&next[0]["id"]), 28);
    assert!(turn_of(&drain(&mut e), op_a2).unwrap().success);
}

#[test]
fn updates_between_turns_and_files_go_to_their_session() {
    let (mut e, _) = process(CAPS);
    let a = session(&mut e, json!({}), "sa", 10);
    let b = session(&mut e, json!({"cd": "/w/b"}), "sb", 11);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "sb",
            "update": {"sessionUpdate": "current_mode_update", "currentModeId": "plan"}}}),
        12,
    );
    let seen = drain(&mut e);
    assert!(
        matches!(&seen[..], [Action::SessionUpdate { session, .. }] if *session == b),
        "{seen:?}"
    );
    assert_eq!(e.snapshot_of(b).unwrap().mode.as_deref(), Some("plan"));
    assert_eq!(e.snapshot_of(a).unwrap().mode, None);
    // A file of B's folder is B's; the same path for A is outside its folder.
    let (_, sent) = prompt(&mut e, b, "read", 13);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 90, "method": "fs/read_text_file", "params": {"sessionId": "sb", "path": "/w/b/x.txt"}}),
        14,
    );
    let call = match &drain(&mut e)[..] {
        [Action::Host {
            call,
            request: HostRequest::Read { path },
        }] => {
            assert_eq!(path, "/w/b/x.txt");
            *call
        }
        other => panic!("{other:?}"),
    };
    assert!(e.path_allowed(Some(call), "/w/b/x.txt", false));
    e.host_answer(call, &json!({"content": "hi"}), 15).unwrap();
    assert_eq!(written(&drain(&mut e))[0]["result"]["content"], "hi");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 91, "method": "fs/read_text_file", "params": {"sessionId": "sa", "path": "/elsewhere/x.txt"}}),
        16,
    );
    let refused = written(&drain(&mut e));
    assert!(refused[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("outside the working directory /w"));
    say(&mut e, end_turn(&sent["id"]), 17);
    drain(&mut e);
}

#[test]
fn one_session_closed_while_the_other_runs() {
    let (mut e, _) = process(CAPS);
    let a = session(&mut e, json!({}), "sa", 10);
    let b = session(&mut e, json!({}), "sb", 11);
    let (op_a, sent_a) = prompt(&mut e, a, "one", 20);
    let (op_b, _) = prompt(&mut e, b, "two", 21);
    let close = e.close_session(b, 22);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/cancel");
    assert_eq!(sent[0]["params"]["sessionId"], "sb");
    // B's prompt answers `cancelled`; then only B is closed.
    let prompt_b = 4; // initialize 1, session/new 2 and 3, prompts 4 and 5
    assert_eq!(sent_a["id"], 4);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": prompt_b + 1, "result": {"stopReason": "cancelled"}}),
        23,
    );
    let seen = drain(&mut e);
    assert_eq!(
        turn_of(&seen, op_b).unwrap().kind(),
        Some(AgentErrorKind::Aborted)
    );
    let sent = written(&seen);
    assert_eq!(sent[0]["method"], "session/close");
    assert_eq!(sent[0]["params"]["sessionId"], "sb");
    assert!(
        !seen
            .iter()
            .any(|x| matches!(x, Action::CloseStdin | Action::Kill)),
        "{seen:?}"
    );
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        24,
    );
    let seen = drain(&mut e);
    assert!(seen
        .iter()
        .any(|x| matches!(x, Action::Done { op, outcome: Outcome::Ok(_) } if *op == close)));
    // A goes on; B refuses work.
    say(&mut e, chunk("sa", "still here"), 25);
    say(&mut e, end_turn(&sent_a["id"]), 26);
    assert_eq!(
        turn_of(&drain(&mut e), op_a).unwrap().reply.text,
        "still here"
    );
    let late = e.prompt_in(b, json!([{"type": "text", "text": "x"}]), LIMITS, 27);
    assert_eq!(
        turn_of(&drain(&mut e), late).unwrap().kind(),
        Some(AgentErrorKind::Aborted)
    );
    // Closing the process closes A, then ends stdin.
    let all = e.close(28);
    let sent = written(&drain(&mut e));
    assert_eq!(sent.len(), 1);
    assert_eq!(sent[0]["params"]["sessionId"], "sa");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        29,
    );
    assert!(drain(&mut e).contains(&Action::CloseStdin));
    e.exited(Some(0), None, 30);
    let seen = drain(&mut e);
    assert!(seen
        .iter()
        .any(|x| matches!(x, Action::Done { op, .. } if *op == all)));
    assert!(seen.contains(&Action::Closed));
}

#[test]
fn a_crash_ends_both_turns_and_each_session_is_reopened_by_its_next_prompt() {
    let (mut e, _) = process(CAPS);
    let a = session(&mut e, json!({}), "sa", 10);
    let b = session(&mut e, json!({}), "sb", 11);
    let (op_a, _) = prompt(&mut e, a, "one", 20);
    let (op_b, _) = prompt(&mut e, b, "two", 21);
    say(&mut e, chunk("sa", "partial"), 22);
    say(&mut e, chunk("sb", "partial"), 22);
    e.exited(Some(1), None, 23);
    let seen = drain(&mut e);
    for (op, id) in [(op_a, "sa"), (op_b, "sb")] {
        // Each turn ends with the exit and its own partial text, which is no reply.
        let result = turn_of(&seen, op).unwrap();
        assert!(!result.success);
        assert_eq!(result.reply.text, "");
        let error = result.error.unwrap();
        assert_eq!(error.exit_code, Some(1));
        assert_eq!(error.text.as_deref(), Some("partial"));
        assert_eq!(result.session_id.as_deref(), Some(id));
    }
    assert!(
        !seen.iter().any(|x| matches!(x, Action::Spawn { .. })),
        "nothing restarts until asked"
    );
    // B's next prompt starts the agent and resumes B only.
    let op = e.prompt_in(b, json!([{"type": "text", "text": "again"}]), LIMITS, 30);
    assert!(matches!(drain(&mut e)[..], [Action::Spawn { .. }]));
    e.spawned(31);
    let init = written(&drain(&mut e));
    let caps: Value = serde_json::from_str(CAPS).unwrap();
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        32,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(reopen.len(), 1, "{reopen:?}");
    assert_eq!(reopen[0]["method"], "session/resume");
    assert_eq!(reopen[0]["params"]["sessionId"], "sb");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        33,
    );
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["params"]["sessionId"], "sb");
    say(&mut e, end_turn(&sent[0]["id"]), 34);
    assert!(turn_of(&drain(&mut e), op).unwrap().success);
    // A is reopened by its own next prompt.
    let (_, sent) = {
        let op = e.prompt_in(a, json!([{"type": "text", "text": "a again"}]), LIMITS, 40);
        let reopen = written(&drain(&mut e));
        assert_eq!(reopen[0]["method"], "session/resume");
        assert_eq!(reopen[0]["params"]["sessionId"], "sa");
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
            41,
        );
        (op, written(&drain(&mut e)))
    };
    assert_eq!(sent[0]["params"]["sessionId"], "sa");
}

#[test]
fn a_session_that_cannot_be_loaded_fails_alone() {
    let (mut e, _) = process(CAPS);
    let a = session(&mut e, json!({}), "sa", 10);
    let (_, sent_a) = prompt(&mut e, a, "one", 11);
    let b = e.add_session(&json!({"sessionId": "gone"})).unwrap();
    let op = e.open_session(b, 12);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/resume");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32002, "message": "Resource not found"}}),
        13,
    );
    let seen = drain(&mut e);
    let failed = seen.iter().find_map(|x| match x {
        Action::Done {
            op: o,
            outcome: Outcome::Failed(f),
        } if *o == op => Some(f.clone()),
        _ => None,
    });
    assert_eq!(failed.unwrap().kind, AgentErrorKind::SessionNotFound);
    assert!(
        !seen
            .iter()
            .any(|x| matches!(x, Action::Kill | Action::CloseStdin)),
        "A's process lives on"
    );
    say(&mut e, end_turn(&sent_a["id"]), 14);
    drain(&mut e);
}

#[test]
fn list_sessions_where_advertised_else_invalid_params_naming_the_agent() {
    let (mut e, _) = process(CAPS);
    let op = e.list_sessions(json!({"cwd": "/w"}), 10);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/list");
    assert_eq!(sent[0]["params"], json!({"cwd": "/w"}));
    let listed = json!({"sessions": [{"sessionId": "s9", "cwd": "/w"}]});
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": listed}),
        11,
    );
    assert!(drain(&mut e).contains(&Action::Done {
        op,
        outcome: Outcome::Ok(listed)
    }));
    let (mut e, _) = process(r#"{"loadSession": true}"#);
    let op = e.list_sessions(json!({}), 10);
    let seen = drain(&mut e);
    match &seen[..] {
        [Action::Done {
            op: o,
            outcome: Outcome::Failed(f),
        }] if *o == op => {
            assert_eq!(f.kind, AgentErrorKind::InvalidParams);
            assert!(
                f.message.contains("opencode does not list its sessions"),
                "{}",
                f.message
            );
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn authenticate_is_the_processs_and_sessions_open_after_it() {
    let (mut e, _) = process(CAPS);
    let auth = e.authenticate("login", 10);
    let key = e.add_session(&json!({})).unwrap();
    let open = e.open_session(key, 11);
    let sent = written(&drain(&mut e));
    assert_eq!(
        sent.len(),
        1,
        "the session waits for authenticate: {sent:?}"
    );
    assert_eq!(sent[0]["method"], "authenticate");
    assert_eq!(sent[0]["params"]["methodId"], "login");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        12,
    );
    let seen = drain(&mut e);
    assert!(seen
        .iter()
        .any(|x| matches!(x, Action::Done { op, outcome: Outcome::Ok(_) } if *op == auth)));
    let sent = written(&seen);
    assert_eq!(sent[0]["method"], "session/new");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"sessionId": "s1"}}),
        13,
    );
    assert!(drain(&mut e)
        .iter()
        .any(|x| matches!(x, Action::Done { op, outcome: Outcome::Opened(_) } if *op == open)));
    // A failed authenticate is auth_error when the agent says so.
    let again = e.authenticate("login", 14);
    let sent = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32000, "message": "Authentication required"}}),
        15,
    );
    let seen = drain(&mut e);
    assert!(seen.iter().any(|x| matches!(x, Action::Done { op, outcome: Outcome::Failed(f) } if *op == again && f.kind == AgentErrorKind::AuthError)));
}

#[test]
fn session_id_is_read_from_the_bytes_of_a_line() {
    use super::messages::session_id_in;
    assert_eq!(
        session_id_in(br#"{"params":{"sessionId": "ab-1","x":1}}"#),
        Some("ab-1")
    );
    assert_eq!(
        session_id_in(br#"{"params":{"text":"\"sessionId\": \"no\""}}"#),
        None
    );
    assert_eq!(session_id_in(br#"{"params":{"sessionId":"a\"b"}}"#), None);
    assert_eq!(session_id_in(b"not json"), None);
}
