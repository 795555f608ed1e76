//! Every agent has its endpoint asked before each attempt when it is on
//! this machine, over either protocol: nothing listening fails the attempt
//! `network_error` at once (a run tries once more, as the kind says),
//! anything else sends the prompt. A turn that starts the process asks
//! before the start. Scripted on a fake clock.

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
        "nothing listens on 127.0.0.1:4011 (connection refused), where options.endpoint.baseUrl points, so Cline could not reach its model; the prompt was not sent"
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
fn only_an_endpoint_on_this_machine_is_asked() {
    // Another machine's endpoint: the agent finds out itself.
    let mut e = cline("https://models.example.com/v1");
    prompt(&mut e, 10);
    let seen = drain(&mut e);
    assert!(probe_of(&seen).is_none());
    assert_eq!(prompts(&seen).len(), 1);
    // No endpoint: the agent's own configuration, not asked.
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    prompt(&mut e, 10);
    let seen = drain(&mut e);
    assert!(probe_of(&seen).is_none());
    assert_eq!(prompts(&seen).len(), 1);
    // Every agent with one on this machine is asked, whatever it does with
    // a refused connection.
    for agent in crate::agents::AGENTS.iter().filter(|a| a.acp.is_some()) {
        let mut e = engine(
            agent.agent_type,
            json!({"runFolder": "/tmp/run-1", "endpoint": {"baseUrl": "http://[::1]:4013/v1", "apiKey": "k", "model": "m"}}),
        );
        open(&mut e, json!({}), 0);
        let op = prompt(&mut e, 10);
        let seen = drain(&mut e);
        assert_eq!(
            probe_of(&seen),
            Some((op, "::1".to_owned(), 4013)),
            "{}",
            agent.agent_type
        );
        assert!(prompts(&seen).is_empty(), "{}", agent.agent_type);
    }
}

#[test]
fn a_run_asks_before_its_process_is_started_and_a_dead_endpoint_starts_none() {
    let mut e = engine(
        "google-gemini",
        json!({"runFolder": "/tmp/run-1", "endpoint": {"baseUrl": "http://127.0.0.1:4016", "apiKey": "k", "model": "m"}}),
    );
    e.for_run();
    let op = prompt(&mut e, 10);
    let seen = drain(&mut e);
    assert_eq!(probe_of(&seen).map(|p| p.0), Some(op));
    assert!(
        !seen.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "{seen:?}"
    );
    e.probed(op, "ECONNREFUSED", 11);
    assert!(turn_of(&drain(&mut e), op).is_none(), "tried again");
    let at = e.poll_timeout().expect("the backoff");
    e.timeout(at);
    let seen = drain(&mut e);
    assert_eq!(probe_of(&seen).map(|p| p.0), Some(op));
    assert!(
        !seen.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "{seen:?}"
    );
    e.probed(op, "ECONNREFUSED", at + 1);
    let seen = drain(&mut e);
    assert!(
        !seen.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "{seen:?}"
    );
    let result = turn_of(&seen, op).expect("the turn ended");
    let error = result.error.expect("failed");
    assert_eq!(error.kind, AgentErrorKind::NetworkError);
    assert!(
        error
            .message
            .contains("Gemini CLI could not reach its model"),
        "{}",
        error.message
    );
    assert_eq!(result.attempts, 2);
}

#[test]
fn a_run_whose_endpoint_listens_starts_its_process_and_sends_the_prompt_without_asking_again() {
    let mut e = engine(
        "google-gemini",
        json!({"runFolder": "/tmp/run-1", "endpoint": {"baseUrl": "http://127.0.0.1:4017", "apiKey": "k", "model": "m"}}),
    );
    e.for_run();
    let op = prompt(&mut e, 10);
    assert!(probe_of(&drain(&mut e)).is_some());
    e.probed(op, "connected", 11);
    let seen = drain(&mut e);
    assert!(
        seen.iter().any(|a| matches!(a, Action::Spawn { .. })),
        "{seen:?}"
    );
    e.spawned(12);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1}}),
        13,
    );
    let open = written(&drain(&mut e));
    assert_eq!(open[0]["method"], "session/new");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": open[0]["id"], "result": {"sessionId": "s1"}}),
        14,
    );
    let seen = drain(&mut e);
    assert!(
        probe_of(&seen).is_none(),
        "asked once for the attempt: {seen:?}"
    );
    let sent = prompts(&seen);
    assert_eq!(sent.len(), 1, "{seen:?}");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        20,
    );
    assert!(turn_of(&drain(&mut e), op).expect("answered").success);
}

#[test]
fn each_prompt_of_a_session_asks_again() {
    let mut e = cline("http://127.0.0.1:4018");
    for n in 0..2u64 {
        let op = prompt(&mut e, 10 + n * 100);
        assert_eq!(
            probe_of(&drain(&mut e)).map(|p| p.0),
            Some(op),
            "prompt {n}"
        );
        e.probed(op, "connected", 11 + n * 100);
        let sent = prompts(&drain(&mut e));
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
            20 + n * 100,
        );
        assert!(turn_of(&drain(&mut e), op).expect("answered").success);
    }
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

/// A session over `agent`'s command line with its endpoint at `base_url`.
fn over_cli(agent: &str, base_url: &str) -> Engine {
    let options = json!({"cd": "/w", "runFolder": "/tmp/run-1", "endpoint": {"baseUrl": base_url, "apiKey": "k", "model": "m"}});
    Engine::cli(CliSessionConfig::read(agent, &options, "").unwrap())
}

fn spawns(actions: &[Action]) -> usize {
    actions
        .iter()
        .filter(|a| matches!(a, Action::Spawn { .. }))
        .count()
}

#[test]
fn over_the_cli_a_process_per_turn_is_started_only_once_its_endpoint_answered() {
    let mut e = over_cli("openai-codex", "http://127.0.0.1:4019/v1");
    let op = e.open(0);
    assert!(drain(&mut e)
        .iter()
        .any(|a| matches!(a, Action::Done { op: o, .. } if *o == op)));
    let op = prompt_once(&mut e, 10);
    let seen = drain(&mut e);
    assert_eq!(probe_of(&seen), Some((op, "127.0.0.1".to_owned(), 4019)));
    assert_eq!(spawns(&seen), 0, "{seen:?}");
    e.probed(op, "ECONNREFUSED", 11);
    let seen = drain(&mut e);
    assert_eq!(spawns(&seen), 0, "{seen:?}");
    let result = turn_of(&seen, op).expect("ended: maxRetries 0");
    let error = result.error.expect("failed");
    assert_eq!(error.kind, AgentErrorKind::NetworkError);
    assert!(
        error
            .message
            .starts_with("nothing listens on 127.0.0.1:4019"),
        "{}",
        error.message
    );
    // The next turn asks again; a connection starts its process.
    let op = prompt_once(&mut e, 20);
    assert_eq!(probe_of(&drain(&mut e)).map(|p| p.0), Some(op));
    e.probed(op, "connected", 21);
    assert_eq!(spawns(&drain(&mut e)), 1);
}

#[test]
fn over_the_cli_the_one_process_of_a_session_gets_no_prompt_while_its_endpoint_is_dead() {
    let mut e = over_cli("claude-code", "http://localhost:4020");
    e.open(0);
    assert_eq!(spawns(&drain(&mut e)), 1, "the session's one process");
    e.spawned(1);
    drain(&mut e);
    let op = prompt_once(&mut e, 10);
    let seen = drain(&mut e);
    assert_eq!(probe_of(&seen).map(|p| p.0), Some(op));
    assert!(
        !seen.iter().any(|a| matches!(a, Action::Write(_))),
        "{seen:?}"
    );
    e.probed(op, "ECONNREFUSED", 11);
    let seen = drain(&mut e);
    assert!(
        !seen
            .iter()
            .any(|a| matches!(a, Action::Write(_) | Action::Kill)),
        "{seen:?}"
    );
    let error = turn_of(&seen, op).expect("ended").error.expect("failed");
    assert_eq!(error.kind, AgentErrorKind::NetworkError);
    // Asked again, listening: the prompt is written to the process.
    let op = prompt_once(&mut e, 20);
    assert!(probe_of(&drain(&mut e)).is_some());
    e.probed(op, "connected", 21);
    assert!(drain(&mut e).iter().any(|a| matches!(a, Action::Write(_))));
}

/// A prompt with no retry.
fn prompt_once(e: &mut Engine, now: u64) -> u64 {
    e.prompt(json!([{"type": "text", "text": "Hello"}]), LIMITS, now)
}

#[test]
fn a_refused_attempt_over_the_cli_still_names_the_session_it_was_to_resume() {
    let options = json!({"cd": "/w", "runFolder": "/tmp/run-1", "sessionId": "7f9f6c1e-0000-4000-8000-000000000001",
        "endpoint": {"baseUrl": "http://127.0.0.1:4021/v1", "apiKey": "k", "model": "m"}});
    let mut e = Engine::cli(CliSessionConfig::read("openai-codex", &options, "").unwrap());
    e.open(0);
    drain(&mut e);
    let op = prompt_once(&mut e, 10);
    drain(&mut e);
    e.probed(op, "ECONNREFUSED", 11);
    let result = turn_of(&drain(&mut e), op).expect("ended");
    assert_eq!(
        result.requested_session_id.as_deref(),
        Some("7f9f6c1e-0000-4000-8000-000000000001")
    );
}
