//! An agent served elsewhere (`options.transport`) on scripted events and a
//! fake clock: connected to where a process would be started, its files
//! and terminals not offered unless asked, a lost connection a crash, and
//! the next prompt connecting again to reopen the session.

use serde_json::{json, Value};

use super::tests::{chunk, drain, say, turn_of, written, LIMITS};
use super::*;
use crate::attempt::AgentErrorKind;

const URL: &str = "ws://127.0.0.1:7700/acp";

fn served(agent: Value, options: Value) -> Engine {
    let mut o = json!({"cd": "/w", "transport": {"url": URL, "headers": {"Authorization": "Bearer t0k3n-0123456789"}}});
    for (k, v) in options.as_object().unwrap() {
        o[k] = v.clone();
    }
    Engine::make(&agent, &o, "", Purpose::Session, false).unwrap()
}

/// Connects, initializes with `caps` and opens session `s1`; returns
/// `initialize`'s params.
fn connect_and_open(e: &mut Engine, caps: Value, now: u64) -> Value {
    let op = e.open(now);
    let actions = drain(e);
    let Action::Connect(t) = &actions[0] else {
        panic!("connects, never spawns: {actions:?}");
    };
    assert_eq!(t.url, URL);
    e.spawned(now);
    let init = written(&drain(e));
    assert_eq!(init[0]["method"], "initialize");
    say(
        e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        now,
    );
    let open = written(&drain(e));
    let result = match open[0]["method"].as_str() {
        Some("session/new") => json!({"sessionId": "s1"}),
        _ => json!({}),
    };
    say(
        e,
        json!({"jsonrpc": "2.0", "id": open[0]["id"], "result": result}),
        now,
    );
    assert!(drain(e)
        .iter()
        .any(|a| matches!(a, Action::Done { op: o, outcome: Outcome::Opened(_) } if *o == op)));
    init[0]["params"].clone()
}

#[test]
fn a_served_agent_is_connected_to_with_its_headers_and_nothing_of_a_launch() {
    let mut e = served(json!("claude-code"), json!({"systemPrompt": "Be brief."}));
    let plan = e.plan();
    assert_eq!(plan.command, "", "nothing to resolve");
    assert!(plan.files.is_empty() && plan.home.is_none());
    let t = plan.transport.expect("the plan says where");
    assert_eq!((t.url.as_str(), t.local_cd), (URL, false));
    e.open(0);
    let actions = drain(&mut e);
    assert_eq!(actions.len(), 1);
    let json = actions[0].to_json();
    assert_eq!(json["kind"], "connect");
    assert_eq!(json["transport"], "websocket");
    assert_eq!(json["headers"]["Authorization"], "Bearer t0k3n-0123456789");
    // Claude's quirks hold over the connection: the system prompt in `_meta`.
    e.spawned(1);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}}}),
        2,
    );
    let new = written(&drain(&mut e));
    assert_eq!(new[0]["method"], "session/new");
    assert_eq!(new[0]["params"]["cwd"], "/w");
    assert_eq!(
        new[0]["params"]["_meta"]["systemPrompt"]["append"],
        "Be brief."
    );
}

#[test]
fn files_and_terminals_are_offered_to_a_served_agent_only_with_client_fs() {
    let mut e = served(json!({"id": "remote-agent", "name": "Remote"}), json!({}));
    let init = connect_and_open(&mut e, json!({}), 0);
    assert_eq!(
        init["clientCapabilities"]["fs"],
        json!({"readTextFile": false, "writeTextFile": false})
    );
    assert_eq!(init["clientCapabilities"]["terminal"], false);
    // Asked anyway: refused as a method this client does not serve.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 9, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": "/w/a.txt"}}),
        5,
    );
    let answer = written(&drain(&mut e));
    assert_eq!(answer[0]["id"], 9);
    assert_eq!(answer[0]["error"]["code"], -32601);

    let mut e = served(
        json!("claude-code"),
        json!({"clientFs": true, "terminals": true}),
    );
    assert!(e.plan().transport.unwrap().local_cd, "cd is this machine's");
    let init = connect_and_open(&mut e, json!({}), 0);
    assert_eq!(
        init["clientCapabilities"]["fs"],
        json!({"readTextFile": true, "writeTextFile": true})
    );
    assert_eq!(init["clientCapabilities"]["terminal"], true);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 9, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": "/w/a.txt"}}),
        5,
    );
    assert!(drain(&mut e)
        .iter()
        .any(|a| matches!(a, Action::Host { request: HostRequest::Read { path }, .. } if path == "/w/a.txt")));
}

#[test]
fn a_lost_connection_is_a_crash_and_the_next_prompt_connects_again_and_resumes() {
    let mut e = served(json!("claude-code"), json!({}));
    let caps = json!({"loadSession": true, "sessionCapabilities": {"resume": {}}});
    connect_and_open(&mut e, caps.clone(), 0);
    let op = e.prompt(json!([{"type": "text", "text": "one"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/prompt");
    say(&mut e, chunk("s1", "partial"), 20);
    e.disconnected(true, "", 30);
    let result = turn_of(&drain(&mut e), op).expect("the turn ended with the connection");
    assert_eq!(result.kind(), Some(AgentErrorKind::ProcessError));
    let message = result.error.as_ref().unwrap().message.clone();
    assert!(
        message.contains(&format!(
            "transport_lost: {URL}: the server closed the connection"
        )),
        "{message}"
    );
    assert!(drain(&mut e).is_empty(), "nothing reconnects until asked");

    // The next prompt connects again, and resumes the session, verified.
    let op = e.prompt(json!([{"type": "text", "text": "two"}]), LIMITS, 100);
    assert!(matches!(drain(&mut e)[..], [Action::Connect(_)]));
    e.spawned(101);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps}}),
        102,
    );
    let reopen = written(&drain(&mut e));
    assert_eq!(reopen[0]["method"], "session/resume");
    assert_eq!(reopen[0]["params"]["sessionId"], "s1");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": reopen[0]["id"], "result": {}}),
        103,
    );
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["params"]["sessionId"], "s1");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        104,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert!(result.success, "{result:?}");
}

#[test]
fn a_server_that_cannot_be_reached_fails_the_open_and_leaves_the_next_try_open() {
    let mut e = served(json!("claude-code"), json!({}));
    let op = e.open(0);
    drain(&mut e);
    e.spawned(1);
    assert_eq!(written(&drain(&mut e))[0]["method"], "initialize");
    e.disconnected(false, "ECONNREFUSED", 2);
    let failed = drain(&mut e)
        .into_iter()
        .find_map(|a| match a {
            Action::Done {
                op: o,
                outcome: Outcome::Failed(f),
            } if o == op => Some(f),
            _ => None,
        })
        .expect("the open failed");
    assert_eq!(failed.kind, AgentErrorKind::ProcessError);
    assert!(
        failed.message.contains(&format!(
            "transport_lost: {URL}: could not connect: ECONNREFUSED"
        )),
        "{}",
        failed.message
    );
    // Not broken for good: the next operation connects again.
    e.open(10);
    assert!(matches!(drain(&mut e)[..], [Action::Connect(_)]));
}

#[test]
fn what_starts_a_process_here_is_refused_with_a_transport() {
    let make = |agent: Value, options: Value, command: &str| {
        let mut o = json!({"cd": "/w", "transport": {"url": URL}});
        for (k, v) in options.as_object().unwrap() {
            o[k] = v.clone();
        }
        Engine::make(&agent, &o, command, Purpose::Session, false).map(|_| ())
    };
    let message = |r: crate::error::Result<()>| r.unwrap_err().message().to_owned();
    assert!(message(make(json!("claude-code"), json!({}), "/bin/x"))
        .starts_with("options.command cannot be used with options.transport"));
    assert!(
        message(make(json!("claude-code"), json!({"model": "m"}), ""))
            .starts_with("options.model cannot be used with options.transport")
    );
    assert!(
        message(make(json!("claude-code"), json!({"protocol": "cli"}), ""))
            .starts_with("options.protocol must be 'acp' with options.transport"),
        "a CLI is never run for a served agent"
    );
    assert!(
        message(make(json!({"id": "a", "command": "agent"}), json!({}), ""))
            .starts_with("agentType.command cannot be used with options.transport")
    );
    assert!(
        message(make(json!({"id": "a", "args": ["x"]}), json!({}), ""))
            .starts_with("agentType.args cannot be used with options.transport")
    );
    assert!(message(make(
        json!({"id": "a", "name": "A", "version": "1", "description": "d", "distribution": {"npx": {"package": "a"}}}),
        json!({}),
        ""
    ))
    .starts_with("agentType.distribution cannot be used with options.transport"));
    // A definition without a command is an agent served elsewhere.
    assert!(make(json!({"id": "remote", "name": "Remote"}), json!({}), "").is_ok());
    // Without a transport, a definition still needs its command.
    assert!(Engine::make(
        &json!({"id": "a"}),
        &json!({"cd": "/w"}),
        "",
        Purpose::Session,
        false
    )
    .is_err());
}

#[test]
fn a_run_with_a_transport_goes_over_acp() {
    let options = json!({"cd": "/w", "transport": {"url": "http://127.0.0.1:1/acp"}});
    assert_eq!(run_protocol(&json!("claude-code"), &options), "acp");
    assert_eq!(
        run_protocol(&json!("claude-code"), &json!({"cd": "/w"})),
        "cli"
    );
}
