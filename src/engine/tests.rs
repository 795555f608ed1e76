//! The engine on scripted events and a fake clock: no process, no I/O.
//! Each test plays the agent's side line by line and checks the actions.

use serde_json::{json, Value};

use super::*;
use crate::attempt::AgentErrorKind;

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
    Engine::new(SessionConfig::read(agent, &o, "").unwrap(), false)
}

/// Every action queued now.
pub(super) fn drain(e: &mut Engine) -> Vec<Action> {
    std::iter::from_fn(|| e.poll()).collect()
}

/// The JSON-RPC messages among `actions` written to the agent.
pub(super) fn written(actions: &[Action]) -> Vec<Value> {
    actions
        .iter()
        .filter_map(|a| match a {
            Action::Write(line) => {
                assert!(line.ends_with('\n'));
                Some(serde_json::from_str(line.trim_end()).unwrap())
            }
            _ => None,
        })
        .collect()
}

pub(super) fn say(e: &mut Engine, message: Value, now: u64) {
    e.stdout(format!("{message}\n").as_bytes(), now);
}

pub(super) fn turn_of(actions: &[Action], op: u64) -> Option<TurnResult> {
    actions.iter().find_map(|a| match a {
        Action::Done {
            op: o,
            outcome: Outcome::Turn(t),
        } if *o == op => Some((**t).clone()),
        _ => None,
    })
}

pub(super) fn chunk(session: &str, text: &str) -> Value {
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": session,
        "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}}})
}

/// Starts `e` up to an open session `s1`; returns the actions seen.
pub(super) fn open(e: &mut Engine, caps: Value, now: u64) -> Vec<Action> {
    let op = e.open(now);
    let mut seen = drain(e);
    assert!(matches!(seen[0], Action::Spawn { .. }), "{seen:?}");
    e.spawned(now);
    let init = written(&drain(e));
    assert_eq!(init[0]["method"], "initialize");
    say(
        e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": caps,
            "authMethods": [{"id": "login", "name": "Log in"}]}}),
        now,
    );
    let open = written(&drain(e));
    assert_eq!(open[0]["params"]["cwd"], "/w");
    let id = open[0]["id"].clone();
    let result = match open[0]["method"].as_str().unwrap() {
        "session/new" => json!({"sessionId": "s1", "modes": {"currentModeId": "default",
            "availableModes": [{"id": "default", "name": "Default"}, {"id": "plan", "name": "Plan"}]},
            "models": {"currentModelId": "m1", "availableModels": [{"modelId": "m1", "name": "M1"}]}}),
        _ => json!({}),
    };
    say(
        e,
        json!({"jsonrpc": "2.0", "id": id, "result": result}),
        now,
    );
    seen.extend(drain(e));
    assert!(
        seen.iter()
            .any(|a| matches!(a, Action::Done { op: o, outcome: Outcome::Opened(_) } if *o == op)),
        "{seen:?}"
    );
    seen
}

/// Sends a prompt and answers it with `text` and `end_turn`.
pub(super) fn turn(e: &mut Engine, text: &str, now: u64) -> (Value, TurnResult) {
    let op = e.prompt(json!([{"type": "text", "text": text}]), LIMITS, now);
    let sent = written(&drain(e));
    assert_eq!(sent[0]["method"], "session/prompt");
    say(e, chunk("s1", &format!("re: {text}")), now + 10);
    say(
        e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        now + 20,
    );
    let result = turn_of(&drain(e), op).expect("the turn ended");
    (sent[0].clone(), result)
}

#[test]
fn many_turns_in_one_process_and_one_session() {
    let mut e = engine("claude-code", json!({"systemPrompt": "Be brief."}));
    open(&mut e, json!({}), 0);
    for n in 0..3 {
        let (sent, result) = turn(&mut e, &format!("turn {n}"), 100 + n * 100);
        assert_eq!(sent["params"]["sessionId"], "s1");
        assert!(result.success, "{result:?}");
        assert_eq!(result.reply.text, format!("re: turn {n}"));
        assert_eq!(result.session_id.as_deref(), Some("s1"));
        assert_eq!(result.stop_reason.as_deref(), Some("end_turn"));
    }
    // One spawn only.
    assert!(e.is_running());
}

#[test]
fn the_system_prompt_goes_to_session_new_for_claude() {
    let mut e = engine("claude-code", json!({"systemPrompt": "Be brief."}));
    e.open(0);
    drain(&mut e);
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1}}),
        1,
    );
    let open = written(&drain(&mut e));
    assert_eq!(open[0]["method"], "session/new");
    assert_eq!(
        open[0]["params"]["_meta"]["systemPrompt"]["append"],
        "Be brief."
    );
    assert_eq!(open[0]["params"]["mcpServers"], json!([]));
}

#[test]
fn prompts_sent_at_once_run_in_order() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    let a = e.prompt(json!([{"type": "text", "text": "A"}]), LIMITS, 10);
    let b = e.prompt(json!([{"type": "text", "text": "B"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    assert_eq!(sent.len(), 1, "B waits for A: {sent:?}");
    assert_eq!(sent[0]["params"]["prompt"][0]["text"], "A");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        20,
    );
    let actions = drain(&mut e);
    assert!(turn_of(&actions, a).unwrap().success);
    let sent = written(&actions);
    assert_eq!(sent[0]["params"]["prompt"][0]["text"], "B");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        30,
    );
    assert!(turn_of(&drain(&mut e), b).unwrap().success);
}

#[test]
fn cancel_ends_the_turn_aborted_then_the_next_turn_runs() {
    let mut e = engine("openai-codex", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "long"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    // A permission request is pending when the user cancels.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 77, "method": "session/request_permission", "params": {"sessionId": "s1",
        "toolCall": {"toolCallId": "t1", "kind": "execute"}, "options": [{"optionId": "ok", "kind": "allow_once"}]}}),
        20,
    );
    drain(&mut e);
    e.cancel(30);
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["method"], "session/cancel");
    assert_eq!(e.poll_timeout(), Some(30 + CANCEL_GRACE_MS));
    // A permission request after the cancel is answered `cancelled`.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 78, "method": "session/request_permission", "params": {"sessionId": "s1",
        "toolCall": {"toolCallId": "t2", "kind": "execute"}, "options": [{"optionId": "ok", "kind": "allow_once"}]}}),
        35,
    );
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["id"], 78);
    assert_eq!(out[0]["result"]["outcome"]["outcome"], "cancelled");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "cancelled"}}),
        40,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(AgentErrorKind::Aborted));
    assert_eq!(result.stop_reason.as_deref(), Some("cancelled"));
    let (_, next) = turn(&mut e, "again", 50);
    assert!(next.success);
    assert_eq!(e.poll_timeout(), None, "no timer left once idle");
}

#[test]
fn the_policy_answers_permissions_without_a_host_callback() {
    let mut e = engine("google-gemini", json!({"sandbox": "read-only"}));
    open(&mut e, json!({}), 0);
    e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 10);
    drain(&mut e);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 5, "method": "session/request_permission", "params": {"sessionId": "s1",
        "toolCall": {"toolCallId": "t1", "kind": "edit", "locations": [{"path": "/w/a"}]},
        "options": [{"optionId": "y", "kind": "allow_once"}, {"optionId": "n", "kind": "reject_once"}]}}),
        20,
    );
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["result"]["outcome"]["optionId"], "n");
}

#[test]
fn the_host_answers_permissions_by_option_id() {
    let cfg = SessionConfig::read("google-gemini", &json!({"cd": "/w"}), "").unwrap();
    let mut e = Engine::new(cfg, true);
    open(&mut e, json!({}), 0);
    e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 10);
    drain(&mut e);
    let params = json!({"sessionId": "s1", "toolCall": {"toolCallId": "t1", "kind": "edit"},
        "options": [{"optionId": "always", "kind": "allow_always"}, {"optionId": "n", "kind": "reject_once"}]});
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 5, "method": "session/request_permission", "params": params}),
        20,
    );
    let asked = drain(&mut e);
    let call = asked
        .iter()
        .find_map(|a| match a {
            Action::Host {
                call,
                request: HostRequest::Permission(p),
            } => {
                assert_eq!(p["options"][0]["optionId"], "always");
                Some(*call)
            }
            _ => None,
        })
        .expect("the host is asked");
    // An option the agent did not offer is an error, answered as a rejection.
    let bad = e.host_answer(call, &json!({"optionId": "nope"}), 25);
    assert!(bad.unwrap_err().message().contains("'always', 'n'"));
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["result"]["outcome"]["optionId"], "n");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 6, "method": "session/request_permission", "params": params}),
        30,
    );
    let call = drain(&mut e)
        .iter()
        .find_map(|a| match a {
            Action::Host { call, .. } => Some(*call),
            _ => None,
        })
        .unwrap();
    e.host_answer(call, &json!({"optionId": "always"}), 35)
        .unwrap();
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["id"], 6);
    assert_eq!(out[0]["result"]["outcome"]["optionId"], "always");
}

#[test]
fn idle_turns_are_cancelled_then_killed_after_the_grace() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let limits = TurnLimits {
        idle_ms: 1_000,
        ..LIMITS
    };
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), limits, 100);
    drain(&mut e);
    assert_eq!(e.poll_timeout(), Some(1_100));
    say(&mut e, chunk("s1", "partial"), 600); // output restarts the idle clock
    assert_eq!(e.poll_timeout(), Some(1_600));
    e.timeout(1_600);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/cancel");
    e.timeout(1_600 + CANCEL_GRACE_MS);
    let gave_up = drain(&mut e);
    // The prompt given up: `$/cancel_request` for it, then the kill.
    assert_eq!(written(&gave_up)[0]["method"], "$/cancel_request");
    assert_eq!(gave_up.last(), Some(&Action::Kill));
    e.exited(None, Some("SIGKILL"), 1_700 + CANCEL_GRACE_MS);
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(AgentErrorKind::IdleTimeout));
    assert_eq!(result.reply.text, "", "a failed attempt is no reply");
    assert_eq!(
        result.error.as_ref().and_then(|e| e.text.as_deref()),
        Some("partial")
    );
    assert!(!e.is_running());
}

#[test]
fn modes_and_models() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    assert_eq!(e.snapshot().mode.as_deref(), Some("default"));
    let bad = e.set_mode("nope", 1);
    let actions = drain(&mut e);
    assert!(
        matches!(&actions[0], Action::Done { op, outcome: Outcome::Failed(f) }
        if *op == bad && f.kind == AgentErrorKind::InvalidParams && f.message.contains("\"plan\""))
    );
    let op = e.set_mode("plan", 2);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/set_mode");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
        3,
    );
    assert!(drain(&mut e)
        .iter()
        .any(|a| matches!(a, Action::Done { op: o, outcome: Outcome::Ok(_) } if *o == op)));
    assert_eq!(e.snapshot().mode.as_deref(), Some("plan"));
    // No model config option: the older session/set_model.
    e.set_model("m1", 4);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/set_model");
    assert_eq!(sent[0]["params"]["modelId"], "m1");
    // Mode changes the agent reports are followed.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1",
        "update": {"sessionUpdate": "current_mode_update", "currentModeId": "default"}}}),
        5,
    );
    assert!(drain(&mut e).iter().any(|a| matches!(a, Action::Update(_))));
    assert_eq!(e.snapshot().mode.as_deref(), Some("default"));
}

#[test]
fn auth_required_is_auth_error_with_the_methods() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32000, "message": "Authentication required"}}),
        20,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    let error = result.error.unwrap();
    assert_eq!(error.kind, AgentErrorKind::AuthError);
    assert_eq!(error.auth_methods.unwrap()[0]["id"], "login");
}

#[test]
fn a_retryable_failure_is_tried_again_after_the_backoff() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    let limits = TurnLimits {
        max_retries: 1,
        ..LIMITS
    };
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), limits, 10);
    let sent = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32603, "message": "Internal error",
        "data": {"details": "[API Error: got status: 500 Internal Server Error]"}}}),
        20,
    );
    let waiting = drain(&mut e);
    assert!(turn_of(&waiting, op).is_none(), "{waiting:?}");
    let at = e.poll_timeout().unwrap();
    e.timeout(at);
    let again = written(&drain(&mut e));
    assert_eq!(again[0]["method"], "session/prompt");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": again[0]["id"], "result": {"stopReason": "end_turn"}}),
        at + 10,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert!(result.success);
    assert_eq!(result.attempts, 2);
}

#[test]
fn files_are_confined_to_cd_and_unknown_requests_are_method_not_found() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 10);
    drain(&mut e);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 9, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": "/etc/passwd"}}),
        11,
    );
    let out = written(&drain(&mut e));
    assert_eq!(out[0]["error"]["code"], -32602);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 10, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": "/w/a.txt", "line": 2, "limit": 1}}),
        12,
    );
    let call = match &drain(&mut e)[..] {
        [Action::Host {
            call,
            request: HostRequest::Read { path },
        }] => {
            assert_eq!(path, "/w/a.txt");
            *call
        }
        other => panic!("{other:?}"),
    };
    e.host_answer(call, &json!({"content": "one\ntwo\nthree"}), 13)
        .unwrap();
    assert_eq!(written(&drain(&mut e))[0]["result"]["content"], "two");
    // Gemini creates files by reading them first: a missing one is empty.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 11, "method": "fs/read_text_file", "params": {"sessionId": "s1", "path": "new.txt"}}),
        14,
    );
    let call = match &drain(&mut e)[..] {
        [Action::Host { call, .. }] => *call,
        other => panic!("{other:?}"),
    };
    e.host_answer(call, &json!({"error": "ENOENT"}), 15)
        .unwrap();
    assert_eq!(written(&drain(&mut e))[0]["result"]["content"], "");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": 12, "method": "craft/drainMidTurnQueue", "params": {}}),
        16,
    );
    assert_eq!(written(&drain(&mut e))[0]["error"]["code"], -32601);
}

#[test]
fn each_line_is_split_across_chunks_and_events_come_in_order() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    let text = format!("{}\n{}\n", chunk("s1", "Hel"), chunk("s1", "lo"));
    let (a, b) = text.as_bytes().split_at(17);
    e.stdout(a, 11);
    e.stdout(b, 12);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn", "usage": {"inputTokens": 3, "outputTokens": 2, "totalTokens": 5}}}),
        13,
    );
    let actions = drain(&mut e);
    let texts: Vec<String> = actions
        .iter()
        .filter_map(|a| match a {
            Action::Event {
                op: o,
                event: crate::agent_output::AgentEvent::Text { text },
                attempt: 1,
            } if *o == op => Some(text.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(texts.concat(), "Hello");
    let result = turn_of(&actions, op).unwrap();
    assert_eq!(result.reply.text, "Hello");
    assert_eq!(
        result.reply.usage.as_ref().and_then(|u| u.output_tokens),
        Some(2)
    );
}

#[test]
fn instructions_open_the_first_prompt_of_an_agent_without_a_system_prompt() {
    let mut e = engine("google-gemini", json!({"systemPrompt": "Be brief."}));
    open(&mut e, json!({}), 0);
    let (first, _) = turn(&mut e, "one", 10);
    assert_eq!(first["params"]["prompt"][0]["text"], "Be brief.\n\none");
    let (second, _) = turn(&mut e, "two", 20);
    assert_eq!(second["params"]["prompt"][0]["text"], "two");
}
