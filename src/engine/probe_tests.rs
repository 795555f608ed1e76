//! An agent that retries a refused connection without a word (Cline) has
//! its endpoint asked first when it is on this machine: nothing listening
//! fails the attempt `network_error` at once (a run tries once more, as
//! the kind says), anything else sends the prompt. Scripted on a fake
//! clock.

use serde_json::{json, Value};

use super::tests::{drain, engine, open, say, turn_of, written, LIMITS};
use super::*;
use crate::attempt::AgentErrorKind;

const RUN: TurnLimits = TurnLimits {
    max_retries: 1,
    ..LIMITS
};

fn cline(base_url: &str) -> Engine {
    let mut e = engine(
        "cline",
        json!({"runFolder": "/tmp/run-1", "endpoint": {"baseUrl": base_url, "apiKey": "k", "model": "m"}}),
    );
    e.for_run();
    open(&mut e, json!({}), 0);
    e
}

fn probe_of(actions: &[Action]) -> Option<(u64, String, u16)> {
    actions.iter().find_map(|a| match a {
        Action::Probe { op, host, port } => Some((*op, host.clone(), *port)),
        _ => None,
    })
}

fn prompts(actions: &[Action]) -> Vec<Value> {
    written(actions)
        .into_iter()
        .filter(|m| m["method"] == "session/prompt")
        .collect()
}

fn prompt(e: &mut Engine, now: u64) -> u64 {
    e.prompt(json!([{"type": "text", "text": "Hello"}]), RUN, now)
}

#[test]
fn nothing_listening_fails_each_attempt_at_once_and_nothing_is_sent() {
    let mut e = cline("http://127.0.0.1:4011/v1");
    let op = prompt(&mut e, 10);
    let seen = drain(&mut e);
    assert_eq!(probe_of(&seen), Some((op, "127.0.0.1".to_owned(), 4011)));
    assert!(prompts(&seen).is_empty(), "{seen:?}");
    e.probed(op, "ECONNREFUSED", 12);
    let seen = drain(&mut e);
    assert!(
        turn_of(&seen, op).is_none(),
        "a run tries network_error again"
    );
    let at = e.poll_timeout().expect("the backoff");
    e.timeout(at);
    let seen = drain(&mut e);
    assert_eq!(probe_of(&seen).map(|p| p.0), Some(op), "asked again");
    e.probed(op, "ECONNREFUSED", at + 2);
    let seen = drain(&mut e);
    let result = turn_of(&seen, op).expect("the turn ended");
    assert!(prompts(&seen).is_empty());
    let error = result.error.expect("failed");
    assert_eq!(error.kind, AgentErrorKind::NetworkError);
    assert!(error.retryable);
    assert_eq!(
        error.message,
        "nothing listens on 127.0.0.1:4011 (connection refused), where options.endpoint.baseUrl points (Cline would retry it without a word)"
    );
    assert_eq!(result.attempts, 2);
}

#[test]
fn a_connection_or_an_answer_that_says_nothing_sends_the_prompt() {
    for outcome in ["connected", "remote", "ETIMEDOUT", "EHOSTUNREACH"] {
        let mut e = cline("http://localhost:4012");
        let op = prompt(&mut e, 10);
        let (_, host, port) = probe_of(&drain(&mut e)).expect("asked");
        assert_eq!((host.as_str(), port), ("localhost", 4012));
        e.probed(op, outcome, 11);
        let sent = prompts(&drain(&mut e));
        assert_eq!(sent.len(), 1, "{outcome}");
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
            20,
        );
        let result = turn_of(&drain(&mut e), op).expect("answered");
        assert!(result.success, "{outcome}: {result:?}");
        assert_eq!(result.attempts, 1);
    }
}

#[test]
fn only_an_agent_that_retries_in_silence_and_an_endpoint_here_are_asked() {
    // Another machine's endpoint: the agent finds out itself.
    let mut e = cline("https://models.example.com/v1");
    prompt(&mut e, 10);
    let seen = drain(&mut e);
    assert!(probe_of(&seen).is_none());
    assert_eq!(prompts(&seen).len(), 1);
    // An agent that says when it cannot connect is never asked for.
    let mut e = engine(
        "claude-code",
        json!({"endpoint": {"baseUrl": "http://127.0.0.1:4013", "apiKey": "k"}}),
    );
    open(&mut e, json!({}), 0);
    prompt(&mut e, 10);
    let seen = drain(&mut e);
    assert!(probe_of(&seen).is_none());
    assert_eq!(prompts(&seen).len(), 1);
}

#[test]
fn a_turn_aborted_while_its_endpoint_is_asked_ends_at_once_and_the_late_answer_is_ignored() {
    let mut e = cline("http://127.0.0.1:4014");
    let op = prompt(&mut e, 10);
    assert!(probe_of(&drain(&mut e)).is_some());
    e.abort(op, 11);
    let result = turn_of(&drain(&mut e), op).expect("ended");
    assert_eq!(result.error.expect("failed").kind, AgentErrorKind::Aborted);
    assert_eq!(result.stop_reason.as_deref(), Some("cancelled"));
    e.probed(op, "connected", 12);
    assert!(prompts(&drain(&mut e)).is_empty());
}

#[test]
fn a_process_gone_while_its_endpoint_is_asked_is_started_again_before_the_prompt() {
    let mut e = cline("http://127.0.0.1:4015");
    let op = prompt(&mut e, 10);
    assert!(probe_of(&drain(&mut e)).is_some());
    e.exited(Some(1), None, 11);
    drain(&mut e);
    e.probed(op, "connected", 12);
    let seen = drain(&mut e);
    assert!(
        seen.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "{seen:?}"
    );
    assert!(prompts(&seen).is_empty(), "{seen:?}");
}
