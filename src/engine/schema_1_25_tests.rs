//! ACP schema 1.25 on the engine, scripted: requests the agent cancels
//! (`$/cancel_request`) and ours given up, `additionalDirectories`,
//! `session/delete` and `logout`, boolean config options, terminal login
//! methods, the unstable `systemPrompt`, and the agent's compaction and
//! notices in the events and the record.

use serde_json::{json, Value};

use super::tests::{chunk, drain, engine, open, say, turn_of, written, LIMITS};
use super::*;
use crate::agent_output::AgentEvent;
use crate::attempt::AgentErrorKind;

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

fn cancel_request(id: u64) -> Value {
    json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": id}})
}

fn update(update: Value) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": update}})
}

/// The host request among `actions`: its call id.
fn host_call(actions: &[Action]) -> u64 {
    actions
        .iter()
        .find_map(|a| match a {
            Action::Host { call, .. } => Some(*call),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no host request: {actions:?}"))
}

/// An engine of `agent` whose host answers permissions, with a prompt sent
/// and unanswered: its request id.
fn prompting(agent: &str, options: Value) -> (Engine, u64, Value) {
    let mut o = json!({"cd": "/w"});
    for (k, v) in options.as_object().unwrap() {
        o[k] = v.clone();
    }
    let mut e = Engine::new(SessionConfig::read(agent, &o, "").unwrap(), true);
    open(
        &mut e,
        json!({"sessionCapabilities": {"additionalDirectories": {}}}),
        0,
    );
    let op = e.prompt(json!([{"type": "text", "text": "go"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    (e, op, sent[0]["id"].clone())
}

const PERMISSION: &str = r#"{"sessionId": "s1", "toolCall": {"toolCallId": "t1", "kind": "edit"},
    "options": [{"optionId": "ok", "kind": "allow_once"}, {"optionId": "no", "kind": "reject_once"}]}"#;

#[test]
fn a_permission_the_agent_cancels_is_answered_cancelled_at_once_and_never_again() {
    let (mut e, _, _) = prompting("google-gemini", json!({}));
    let params: Value = serde_json::from_str(PERMISSION).unwrap();
    say(
        &mut e,
        request(40, "session/request_permission", params),
        20,
    );
    let call = host_call(&drain(&mut e));
    say(&mut e, cancel_request(40), 30);
    let seen = drain(&mut e);
    let out = written(&seen);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(out[0]["id"], 40);
    assert_eq!(
        out[0]["result"],
        json!({"outcome": {"outcome": "cancelled"}})
    );
    assert!(
        seen.contains(&Action::HostCancel { call }),
        "the app's callback is aborted: {seen:?}"
    );
    // The app answers late: nothing more is written.
    e.host_answer(call, &json!({"optionId": "ok"}), 40).unwrap();
    assert!(written(&drain(&mut e)).is_empty(), "no late second answer");
    // A cancel of a request already answered, or unknown, does nothing.
    say(&mut e, cancel_request(40), 41);
    say(&mut e, cancel_request(999), 42);
    assert!(written(&drain(&mut e)).is_empty());
}

#[test]
fn a_file_request_or_elicitation_the_agent_cancels_is_error_32800() {
    let (mut e, _, _) = prompting("google-gemini", json!({}));
    e.answer_elicitations(true);
    say(
        &mut e,
        request(
            50,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/w/a.txt"}),
        ),
        20,
    );
    let read = host_call(&drain(&mut e));
    say(
        &mut e,
        request(
            51,
            "elicitation/create",
            json!({"sessionId": "s1", "mode": "form", "message": "Which?",
            "requestedSchema": {"type": "object", "properties": {"db": {"type": "string"}}}}),
        ),
        21,
    );
    let ask = host_call(&drain(&mut e));
    say(&mut e, cancel_request(51), 22);
    say(&mut e, cancel_request(50), 23);
    let seen = drain(&mut e);
    let out = written(&seen);
    assert_eq!(out.len(), 2);
    for (message, id) in out.iter().zip([51, 50]) {
        assert_eq!(message["id"], id);
        assert_eq!(message["error"]["code"], -32800);
    }
    assert!(seen.contains(&Action::HostCancel { call: read }));
    assert!(seen.contains(&Action::HostCancel { call: ask }));
    e.host_answer(read, &json!({"content": "late"}), 30)
        .unwrap();
    e.host_answer(ask, &json!({"action": "decline"}), 31)
        .unwrap();
    assert!(written(&drain(&mut e)).is_empty(), "no late answers");
}

#[test]
fn terminal_requests_the_agent_cancels_are_error_32800() {
    let (mut e, _, _) = prompting("google-gemini", json!({"terminals": true}));
    say(
        &mut e,
        request(
            60,
            "terminal/create",
            json!({"sessionId": "s1", "command": "sleep", "args": ["9"]}),
        ),
        20,
    );
    let id = match &drain(&mut e)[..] {
        [Action::Terminal(crate::acp::terminals::HostTerminal::Start(launch))] => launch.id.clone(),
        other => panic!("{other:?}"),
    };
    say(&mut e, cancel_request(60), 21);
    let seen = drain(&mut e);
    assert_eq!(written(&seen)[0]["error"]["code"], -32800);
    assert!(
        seen.contains(&Action::Terminal(
            crate::acp::terminals::HostTerminal::Kill(id.clone())
        )),
        "the terminal given up is killed: {seen:?}"
    );
    e.terminal_started(&id, 22);
    assert!(
        written(&drain(&mut e)).is_empty(),
        "no late answer to create"
    );
}

#[test]
fn a_cancelled_turn_aborts_the_apps_callbacks_too() {
    let (mut e, _, _) = prompting("google-gemini", json!({}));
    let params: Value = serde_json::from_str(PERMISSION).unwrap();
    say(
        &mut e,
        request(40, "session/request_permission", params),
        20,
    );
    let call = host_call(&drain(&mut e));
    e.cancel(25);
    let seen = drain(&mut e);
    assert!(seen.contains(&Action::HostCancel { call }), "{seen:?}");
}

#[test]
fn a_prompt_given_up_after_the_grace_is_cancelled_with_cancel_request() {
    let (mut e, _, id) = prompting("claude-code", json!({}));
    e.cancel(20);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/cancel");
    e.timeout(20 + CANCEL_GRACE_MS);
    let seen = drain(&mut e);
    assert_eq!(
        written(&seen),
        [json!({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": id}})]
    );
    assert_eq!(seen.last(), Some(&Action::Kill));
}

#[test]
fn a_start_given_up_cancels_its_requests() {
    let mut e = engine("claude-code", json!({}));
    e.open(0);
    drain(&mut e);
    e.spawned(0);
    let init = written(&drain(&mut e));
    e.timeout(e.poll_timeout().unwrap());
    let seen = drain(&mut e);
    assert_eq!(written(&seen)[0]["method"], "$/cancel_request");
    assert_eq!(written(&seen)[0]["params"]["requestId"], init[0]["id"]);
    assert!(seen.contains(&Action::Kill));
}

/// `initialize` answered with `caps`; the session request written.
fn session_request(options: Value, caps: Value) -> (Engine, Vec<Action>) {
    let mut e = engine("claude-code", options);
    let op = e.open(0);
    drain(&mut e);
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        1,
    );
    let seen = drain(&mut e);
    let _ = op;
    (e, seen)
}

#[test]
fn dirs_are_additional_directories_where_advertised_else_opening_fails_naming_them() {
    let dirs = json!({"dirs": ["/a", "/b"]});
    let caps = json!({"sessionCapabilities": {"additionalDirectories": {}}});
    let (_, seen) = session_request(dirs.clone(), caps);
    let sent = written(&seen);
    assert_eq!(sent[0]["method"], "session/new");
    assert_eq!(
        sent[0]["params"]["additionalDirectories"],
        json!(["/a", "/b"])
    );
    let (_, seen) = session_request(
        json!({}),
        json!({"sessionCapabilities": {"additionalDirectories": {}}}),
    );
    assert!(
        written(&seen)[0]["params"]
            .get("additionalDirectories")
            .is_none(),
        "none given: none sent"
    );
    let (mut e, seen) = session_request(dirs, json!({}));
    assert!(
        !written(&seen)
            .iter()
            .any(|m| m.get("method").is_some_and(|m| m != "initialize")),
        "no session request sent: {seen:?}"
    );
    assert!(seen.contains(&Action::Kill), "the process stops: {seen:?}");
    e.exited(None, Some("SIGTERM"), 5);
    let failed = drain(&mut e)
        .iter()
        .find_map(|a| match a {
            Action::Done {
                outcome: Outcome::Failed(f),
                ..
            } => Some(f.clone()),
            _ => None,
        })
        .expect("opening failed");
    assert_eq!(failed.kind, AgentErrorKind::InvalidParams);
    assert!(
        failed.message.contains("options.dirs") && failed.message.contains("Claude Code"),
        "{}",
        failed.message
    );
}

#[test]
fn files_in_the_sessions_dirs_are_allowed() {
    let (mut e, _, _) = prompting("google-gemini", json!({"dirs": ["/shared"]}));
    assert!(e.path_allowed(None, "/shared/notes.txt", true));
    assert!(!e.path_allowed(None, "/elsewhere/notes.txt", false));
    say(
        &mut e,
        request(
            70,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/shared/notes.txt"}),
        ),
        20,
    );
    assert!(matches!(
        &drain(&mut e)[..],
        [Action::Host { request: HostRequest::Read { path }, .. }] if path == "/shared/notes.txt"
    ));
    say(
        &mut e,
        request(
            71,
            "fs/read_text_file",
            json!({"sessionId": "s1", "path": "/elsewhere/x"}),
        ),
        21,
    );
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["error"]["code"], -32602);
    assert!(out[0]["error"]["message"]
        .as_str()
        .unwrap()
        .contains("dirs"));
}

/// A process engine (openAgent) of an agent advertising `caps`.
fn process(caps: Value) -> Engine {
    let cfg = SessionConfig::read("claude-code", &json!({"cd": "/w"}), "").unwrap();
    let mut e = Engine::process(cfg, false);
    e.open(0);
    drain(&mut e);
    e.spawned(1);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps,
            "authMethods": [{"id": "agent-login", "name": "Log in"},
                {"id": "tui", "name": "Log in in a terminal", "type": "terminal", "args": ["auth", "login"], "env": {"X": "1"}}]}}),
        2,
    );
    drain(&mut e);
    e
}

#[test]
fn delete_and_logout_are_sent_where_advertised_and_refused_without_sending_where_not() {
    let mut e = process(json!({"sessionCapabilities": {"delete": {}}, "auth": {"logout": {}}}));
    let op = e.delete_session("s9", 10);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/delete");
    assert_eq!(sent[0]["params"], json!({"sessionId": "s9"}));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        11,
    );
    assert!(drain(&mut e).contains(&Action::Done {
        op,
        outcome: Outcome::Ok(json!({}))
    }));
    e.logout(12);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "logout");
    let mut e = process(json!({}));
    for (logout, what) in [(false, "sessionCapabilities.delete"), (true, "auth.logout")] {
        let op = if logout {
            e.logout(11)
        } else {
            e.delete_session("s9", 10)
        };
        let seen = drain(&mut e);
        assert!(written(&seen).is_empty(), "nothing sent: {seen:?}");
        match &seen[..] {
            [Action::Done {
                op: o,
                outcome: Outcome::Failed(f),
            }] if *o == op => {
                assert_eq!(f.kind, AgentErrorKind::InvalidParams);
                assert!(
                    f.message.contains("Claude Code") && f.message.contains(what),
                    "{}",
                    f.message
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

#[test]
fn terminal_logins_are_listed_with_their_command() {
    let e = process(json!({}));
    let methods = e.process_info().auth_methods.clone();
    assert!(methods[0].get("terminal").is_none(), "an agent's own login");
    let terminal = &methods[1]["terminal"];
    assert_eq!(terminal["command"], "claude-agent-acp");
    assert_eq!(terminal["args"], json!(["auth", "login"]));
    assert_eq!(terminal["env"], json!({"X": "1"}));
}

#[test]
fn a_boolean_option_says_its_type() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    e.set_config_value_in(DEFAULT, "fast", json!(true), 10)
        .unwrap();
    let sent = written(&drain(&mut e));
    assert_eq!(
        sent[0]["params"],
        json!({"sessionId": "s1", "configId": "fast", "type": "boolean", "value": true})
    );
    e.set_config_value_in(DEFAULT, "mode", json!("plan"), 11)
        .unwrap();
    let sent = written(&drain(&mut e));
    assert!(
        sent[0]["params"].get("type").is_none(),
        "a value id as before"
    );
}

#[test]
fn the_system_prompt_goes_as_system_prompt_where_advertised_else_as_claudes_meta() {
    let system = json!({"systemPrompt": "Be brief."});
    let caps = json!({"sessionCapabilities": {"systemPrompt": {}}});
    let (_, seen) = session_request(system.clone(), caps);
    let params = &written(&seen)[0]["params"];
    assert_eq!(
        params["systemPrompt"],
        json!({"mode": "append", "content": [{"type": "text", "text": "Be brief."}]})
    );
    assert!(params.get("_meta").is_none());
    let (_, seen) = session_request(system, json!({}));
    let params = &written(&seen)[0]["params"];
    assert_eq!(params["_meta"]["systemPrompt"]["append"], "Be brief.");
    assert!(params.get("systemPrompt").is_none());
}

#[test]
fn compaction_and_notices_are_events_and_only_compaction_is_recorded() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    e.record(DEFAULT, crate::record::RecordStart::default(), &[], 5);
    drain(&mut e);
    let op = e.prompt(json!([{"type": "text", "text": "go on"}]), LIMITS, 10);
    let started = drain(&mut e);
    let sent = written(&started);
    say(&mut e, chunk("s1", "Before. "), 11);
    say(
        &mut e,
        update(
            json!({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "in_progress"}),
        ),
        12,
    );
    say(
        &mut e,
        update(
            json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1",
            "content": {"type": "text", "text": "We chose SQLite."}}),
        ),
        13,
    );
    say(
        &mut e,
        update(
            json!({"sessionUpdate": "notice", "severity": "warning", "title": "Model fallback", "description": "Using a smaller model."}),
        ),
        14,
    );
    say(
        &mut e,
        update(
            json!({"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed"}),
        ),
        15,
    );
    say(&mut e, chunk("s1", "After."), 16);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        17,
    );
    let mut seen = started;
    seen.extend(drain(&mut e));
    let events: Vec<&AgentEvent> = seen
        .iter()
        .filter_map(|a| match a {
            Action::Event { event, .. } => Some(event),
            _ => None,
        })
        .collect();
    let compactions: Vec<Value> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Compaction { .. }))
        .map(|e| serde_json::to_value(e).unwrap())
        .collect();
    assert_eq!(compactions.len(), 3);
    assert_eq!(
        compactions[2],
        json!({"type": "compaction", "id": "c1", "status": "completed", "summary": "We chose SQLite."})
    );
    let notice = events
        .iter()
        .find(|e| matches!(e, AgentEvent::Notice { .. }))
        .expect("the notice is an event");
    assert_eq!(
        serde_json::to_value(notice).unwrap(),
        json!({"type": "notice", "severity": "warning", "title": "Model fallback", "description": "Using a smaller model."})
    );
    let turn = turn_of(&seen, op).unwrap();
    assert_eq!(turn.reply.text, "Before. After.");
    assert_eq!(turn.reply.compactions.len(), 1);
    let lines: String = seen
        .iter()
        .filter_map(|a| match a {
            Action::Record { lines, .. } => Some(lines.clone()),
            _ => None,
        })
        .collect();
    let kinds: Vec<Value> = lines
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap())
        .collect();
    let compaction: Vec<&Value> = kinds.iter().filter(|k| k["kind"] == "compaction").collect();
    assert_eq!(compaction.len(), 2, "first seen, and at its end: {lines}");
    assert_eq!(compaction[0]["status"], "in_progress");
    assert!(compaction[0].get("summary").is_none());
    assert_eq!(compaction[1]["summary"], "We chose SQLite.");
    assert_eq!(compaction[1]["turn"], 1);
    assert!(
        !lines.contains("Model fallback"),
        "a notice is never recorded"
    );
    let order: Vec<&str> = kinds.iter().map(|k| k["kind"].as_str().unwrap()).collect();
    assert_eq!(
        order,
        [
            "request",
            "text",
            "compaction",
            "compaction",
            "text",
            "turnEnd"
        ],
        "its place in the conversation"
    );
    // Between turns: recorded too, and heard by the host.
    say(
        &mut e,
        update(
            json!({"sessionUpdate": "compaction_update", "compactionId": "c2", "status": "completed",
            "summary": [{"type": "text", "text": "Idle summary."}]}),
        ),
        30,
    );
    let seen = drain(&mut e);
    assert!(seen.iter().any(|a| matches!(a, Action::Update(_))));
    let lines: String = seen
        .iter()
        .filter_map(|a| match a {
            Action::Record { lines, .. } => Some(lines.clone()),
            _ => None,
        })
        .collect();
    let entry: Value = serde_json::from_str(lines.trim()).unwrap();
    assert_eq!(entry["kind"], "compaction");
    assert_eq!(entry["summary"], "Idle summary.");
    assert!(entry.get("turn").is_none());
}
