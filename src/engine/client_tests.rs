//! The client's own features on the engine, scripted: what is advertised,
//! elicitations, client terminals, the trace context, `session/fork`.

use serde_json::{json, Value};

use super::tests::{drain, engine, open, say, turn_of, written, LIMITS};
use super::*;
use crate::acp::terminals::HostTerminal;

const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

fn initialize_params(e: &mut Engine) -> Value {
    e.open(0);
    drain(e);
    e.spawned(0);
    let init = written(&drain(e));
    assert_eq!(init[0]["method"], "initialize");
    init[0]["params"].clone()
}

fn request(id: u64, method: &str, params: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params})
}

/// Opens session `s1` and sends a prompt, unanswered: its request id.
fn prompting(e: &mut Engine) -> (u64, Value) {
    open(e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "go"}]), LIMITS, 10);
    let sent = written(&drain(e));
    (op, sent[0]["id"].clone())
}

fn response_to(actions: &[Action], id: u64) -> Value {
    written(actions)
        .into_iter()
        .find(|m| m["id"] == id && m.get("method").is_none())
        .unwrap_or_else(|| panic!("no response to {id}: {actions:?}"))
}

fn form(session: &str) -> Value {
    json!({"sessionId": session, "mode": "form", "message": "Which database?",
        "requestedSchema": {"type": "object", "properties": {"db": {"type": "string"}}, "required": ["db"]}})
}

#[test]
fn only_fs_is_advertised_unless_the_app_enables_more() {
    let mut e = engine("claude-code", json!({}));
    let caps = initialize_params(&mut e)["clientCapabilities"].clone();
    // Always: the agent's compaction and notices as updates, boolean options.
    assert_eq!(
        caps,
        json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false,
            "session": {"compaction": {}, "notices": {}, "configOptions": {"boolean": {}}},
            "auth": {"terminal": false}})
    );
    let mut e = engine(
        "claude-code",
        json!({"terminals": true, "terminalAuth": true}),
    );
    e.answer_elicitations(true);
    let caps = initialize_params(&mut e)["clientCapabilities"].clone();
    assert_eq!(caps["terminal"], true);
    assert_eq!(caps["auth"], json!({"terminal": true}));
    assert_eq!(caps["elicitation"], json!({"form": {}, "url": {}}));
}

#[test]
fn an_elicitation_without_a_handler_is_declined_at_once() {
    let mut e = engine("claude-code", json!({}));
    prompting(&mut e);
    say(&mut e, request(90, "elicitation/create", form("s1")), 20);
    let seen = drain(&mut e);
    assert_eq!(
        response_to(&seen, 90)["result"],
        json!({"action": "decline"})
    );
    assert!(!seen.iter().any(|a| matches!(a, Action::Host { .. })));
    // A request that lacks what its mode needs is invalid params.
    say(
        &mut e,
        request(
            91,
            "elicitation/create",
            json!({"sessionId": "s1", "mode": "url", "message": "m"}),
        ),
        21,
    );
    assert_eq!(response_to(&drain(&mut e), 91)["error"]["code"], -32602);
}

#[test]
fn an_elicitation_is_asked_of_the_host_and_its_answer_sent() {
    let mut e = engine("claude-code", json!({}));
    e.answer_elicitations(true);
    prompting(&mut e);
    say(&mut e, request(90, "elicitation/create", form("s1")), 20);
    let seen = drain(&mut e);
    let call = seen
        .iter()
        .find_map(|a| match a {
            Action::Host {
                call,
                request: HostRequest::Elicitation(p),
            } => Some((*call, p.clone())),
            _ => None,
        })
        .expect("asked");
    assert_eq!(call.1["message"], "Which database?");
    assert!(written(&seen).is_empty(), "not answered before the host");
    e.host_answer(
        call.0,
        &json!({"action": "accept", "content": {"db": "pg"}}),
        30,
    )
    .unwrap();
    assert_eq!(
        response_to(&drain(&mut e), 90)["result"],
        json!({"action": "accept", "content": {"db": "pg"}})
    );
    // A bad answer: `cancel` for the agent, an error for the host.
    say(&mut e, request(92, "elicitation/create", form("s1")), 40);
    let call = drain(&mut e)
        .iter()
        .find_map(|a| match a {
            Action::Host { call, .. } => Some(*call),
            _ => None,
        })
        .unwrap();
    let err = e
        .host_answer(call, &json!({"action": "accept", "content": {}}), 41)
        .unwrap_err();
    assert_eq!(
        err.message(),
        "onElicitation's content lacks the required field db"
    );
    assert_eq!(
        response_to(&drain(&mut e), 92)["result"],
        json!({"action": "cancel"})
    );
}

#[test]
fn a_cancelled_turn_cancels_its_pending_elicitations() {
    let mut e = engine("claude-code", json!({}));
    e.answer_elicitations(true);
    let (op, prompt_id) = prompting(&mut e);
    say(&mut e, request(90, "elicitation/create", form("s1")), 20);
    drain(&mut e);
    e.cancel(30);
    let seen = drain(&mut e);
    let sent = written(&seen);
    assert!(sent.iter().any(|m| m["method"] == "session/cancel"));
    assert_eq!(
        response_to(&seen, 90)["result"],
        json!({"action": "cancel"})
    );
    // One asked after the cancel is answered `cancel` at once.
    say(&mut e, request(93, "elicitation/create", form("s1")), 31);
    assert_eq!(
        response_to(&drain(&mut e), 93)["result"],
        json!({"action": "cancel"})
    );
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": prompt_id, "result": {"stopReason": "cancelled"}}),
        32,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(crate::attempt::AgentErrorKind::Aborted));
}

#[test]
fn terminals_are_not_served_unless_enabled() {
    let mut e = engine("claude-code", json!({}));
    prompting(&mut e);
    say(
        &mut e,
        request(
            90,
            "terminal/create",
            json!({"sessionId": "s1", "command": "ls"}),
        ),
        20,
    );
    let seen = drain(&mut e);
    assert_eq!(response_to(&seen, 90)["error"]["code"], -32601);
    assert!(!seen.iter().any(|a| matches!(a, Action::Terminal(_))));
}

fn started(seen: &[Action]) -> crate::acp::terminals::Launch {
    seen.iter()
        .find_map(|a| match a {
            Action::Terminal(HostTerminal::Start(l)) => Some(l.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no start: {seen:?}"))
}

fn kills(seen: &[Action]) -> Vec<String> {
    seen.iter()
        .filter_map(|a| match a {
            Action::Terminal(HostTerminal::Kill(id)) => Some(id.clone()),
            _ => None,
        })
        .collect()
}

#[test]
fn a_terminal_runs_in_the_folder_its_output_read_its_exit_awaited_and_released() {
    let mut e = engine("claude-code", json!({"terminals": true}));
    prompting(&mut e);
    say(
        &mut e,
        request(
            90,
            "terminal/create",
            json!({"sessionId": "s1", "command": "echo", "args": ["hi"], "cwd": "/w/sub", "outputByteLimit": 100}),
        ),
        20,
    );
    let launch = started(&drain(&mut e));
    assert_eq!(
        (launch.file.as_str(), launch.cwd.as_str()),
        ("echo", "/w/sub")
    );
    assert!(e.terminal_cwd_allowed(&launch.id, "/w/sub"));
    assert!(!e.terminal_cwd_allowed(&launch.id, "/elsewhere"));
    e.terminal_started(&launch.id, 21);
    assert_eq!(
        response_to(&drain(&mut e), 90)["result"],
        json!({"terminalId": launch.id})
    );
    e.terminal_output(&launch.id, b"hi\n", 22);
    say(
        &mut e,
        request(
            91,
            "terminal/wait_for_exit",
            json!({"sessionId": "s1", "terminalId": launch.id}),
        ),
        23,
    );
    assert!(written(&drain(&mut e)).is_empty(), "waits for the exit");
    e.terminal_exited(&launch.id, Some(0), None, 24);
    assert_eq!(
        response_to(&drain(&mut e), 91)["result"],
        json!({"exitCode": 0, "signal": null})
    );
    say(
        &mut e,
        request(
            92,
            "terminal/output",
            json!({"sessionId": "s1", "terminalId": launch.id}),
        ),
        25,
    );
    assert_eq!(
        response_to(&drain(&mut e), 92)["result"],
        json!({"output": "hi\n", "truncated": false, "exitStatus": {"exitCode": 0, "signal": null}})
    );
    say(
        &mut e,
        request(
            93,
            "terminal/release",
            json!({"sessionId": "s1", "terminalId": launch.id}),
        ),
        26,
    );
    let seen = drain(&mut e);
    assert_eq!(response_to(&seen, 93)["result"], json!({}));
    assert!(kills(&seen).is_empty(), "it had ended");
    say(
        &mut e,
        request(
            94,
            "terminal/output",
            json!({"sessionId": "s1", "terminalId": launch.id}),
        ),
        27,
    );
    assert_eq!(response_to(&drain(&mut e), 94)["error"]["code"], -32602);
    // Outside the folder: refused, nothing started.
    say(
        &mut e,
        request(
            95,
            "terminal/create",
            json!({"sessionId": "s1", "command": "ls", "cwd": "/etc"}),
        ),
        28,
    );
    let seen = drain(&mut e);
    assert_eq!(response_to(&seen, 95)["error"]["code"], -32602);
    assert!(!seen.iter().any(|a| matches!(a, Action::Terminal(_))));
}

#[test]
fn a_running_terminal_is_killed_on_release_kill_cancel_and_close() {
    let mut e = engine("claude-code", json!({"terminals": true}));
    prompting(&mut e);
    let make = |e: &mut Engine, id: u64| {
        say(
            e,
            request(
                id,
                "terminal/create",
                json!({"sessionId": "s1", "command": "sleep", "args": ["60"]}),
            ),
            20,
        );
        let launch = started(&drain(e));
        e.terminal_started(&launch.id, 21);
        drain(e);
        launch.id
    };
    let a = make(&mut e, 90);
    say(
        &mut e,
        request(
            91,
            "terminal/kill",
            json!({"sessionId": "s1", "terminalId": a}),
        ),
        22,
    );
    assert_eq!(kills(&drain(&mut e)), std::slice::from_ref(&a));
    e.terminal_exited(&a, None, Some("SIGTERM"), 23);
    let b = make(&mut e, 92);
    say(
        &mut e,
        request(
            93,
            "terminal/release",
            json!({"sessionId": "s1", "terminalId": b}),
        ),
        24,
    );
    assert_eq!(kills(&drain(&mut e)), [b]);
    let c = make(&mut e, 94);
    e.cancel(25);
    assert_eq!(
        kills(&drain(&mut e)),
        std::slice::from_ref(&c),
        "cancel kills, the terminal stays to be read"
    );
    e.terminal_exited(&c, None, Some("SIGTERM"), 26);
    let d = make(&mut e, 95);
    e.close(27);
    let killed = kills(&drain(&mut e));
    assert_eq!(killed, [d], "close kills what still runs");
}

#[test]
fn the_trace_context_reaches_the_agent() {
    let mut e = engine("claude-code", json!({"traceparent": TP}));
    e.open(0);
    let seen = drain(&mut e);
    let Action::Spawn { env, .. } = &seen[0] else {
        panic!("{seen:?}")
    };
    assert!(
        env.contains(&("TRACEPARENT".to_owned(), TP.to_owned())),
        "{env:?}"
    );
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1}}),
        1,
    );
    let new = written(&drain(&mut e));
    assert_eq!(new[0]["params"]["_meta"]["traceparent"], TP);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": new[0]["id"], "result": {"sessionId": "s1"}}),
        2,
    );
    drain(&mut e);
    e.prompt(json!([{"type": "text", "text": "a"}]), LIMITS, 3);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["params"]["_meta"], json!({"traceparent": TP}));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        4,
    );
    drain(&mut e);
    // A turn's own.
    let own = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
    e.prompt_with_attachments(
        DEFAULT,
        json!([{"type": "text", "text": "b"}]),
        &Value::Null,
        LIMITS,
        Some(own.into()),
        5,
    );
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["params"]["_meta"]["traceparent"], own);
    let bad = SessionConfig::read("claude-code", &json!({"cd": "/w", "traceparent": "x"}), "")
        .unwrap_err();
    assert!(bad
        .message()
        .starts_with("options.traceparent must be a W3C traceparent"));
}

/// A process engine started with `caps`, and session `sa` open on it (its key).
fn process_with_session(caps: Value) -> (Engine, u64) {
    let cfg = SessionConfig::read("claude-code", &json!({"cd": "/w"}), "").unwrap();
    let mut e = Engine::process(cfg, false);
    let op = e.open(0);
    drain(&mut e);
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        1,
    );
    assert!(drain(&mut e)
        .iter()
        .any(|a| matches!(a, Action::Done { op: o, .. } if *o == op)));
    let a = e.add_session(&Value::Null).unwrap();
    e.open_session(a, 2);
    let new = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": new[0]["id"], "result": {"sessionId": "sa"}}),
        3,
    );
    drain(&mut e);
    (e, a)
}

#[test]
fn a_session_is_forked_where_the_agent_advertises_it() {
    let (mut e, a) = process_with_session(json!({"sessionCapabilities": {"fork": {}}}));
    let b = e.add_session(&json!({"cd": "/w/b"})).unwrap();
    let fork = e.fork_session(a, b, 4);
    let sent = written(&drain(&mut e));
    assert_eq!(sent.len(), 1, "no session/new for the fork: {sent:?}");
    assert_eq!(sent[0]["method"], "session/fork");
    assert_eq!(sent[0]["params"]["sessionId"], "sa");
    assert_eq!(sent[0]["params"]["cwd"], "/w/b");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"sessionId": "sb"}}),
        5,
    );
    let seen = drain(&mut e);
    let opened = seen.iter().find_map(|a| match a {
        Action::Done {
            op: o,
            outcome: Outcome::Opened(s),
        } if *o == fork => Some(s.clone()),
        _ => None,
    });
    assert_eq!(opened.expect("forked").session_id.as_deref(), Some("sb"));
    e.prompt_in(b, json!([{"type": "text", "text": "hi"}]), LIMITS, 6);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/prompt");
    assert_eq!(sent[0]["params"]["sessionId"], "sb");
}

#[test]
fn a_fork_is_refused_where_the_agent_does_not_advertise_it() {
    let (mut e, a) = process_with_session(json!({}));
    let b = e.add_session(&Value::Null).unwrap();
    let fork = e.fork_session(a, b, 4);
    let seen = drain(&mut e);
    assert!(written(&seen).is_empty());
    let failed = seen.iter().find_map(|a| match a {
        Action::Done {
            op: o,
            outcome: Outcome::Failed(f),
        } if *o == fork => Some(f.clone()),
        _ => None,
    });
    let failed = failed.expect("failed");
    assert_eq!(failed.kind, crate::attempt::AgentErrorKind::InvalidParams);
    assert!(
        failed.message.contains("does not fork sessions"),
        "{}",
        failed.message
    );
}
