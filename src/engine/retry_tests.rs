//! A session's retry of a failed turn, per agent, so that the agent's model
//! sees the user's message once: where the agent's session keeps a failed
//! prompt (Claude Code and Codex, over ACP and over their CLIs) the retry
//! asks it to answer that message; where it does not (Gemini CLI), where a
//! process per turn starts a new session, and in a run (`runAgent`), the
//! prompt goes again. Scripted on a fake clock: what the agent is sent.

use serde_json::{json, Value};

use super::tests::{drain, engine, open, say, turn_of, written, LIMITS};
use super::turn::CONTINUE_TEXT;
use super::*;
use crate::attempt::AgentErrorKind;

const RETRY: TurnLimits = TurnLimits {
    max_retries: 1,
    ..LIMITS
};

const PROMPT: &str = "Which database should the service use?";

/// Claude's adapter: the API's HTTP 500, after its own retries.
fn claude_500() -> Value {
    json!({"code": -32603, "message": "Internal error", "data": {"details":
        "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}"}})
}

/// Gemini CLI over ACP: the API's HTTP 500, after its own retries.
fn gemini_500() -> Value {
    json!({"code": -32603, "message": "Internal error",
        "data": {"details": "[API Error: got status: 500 Internal Server Error]"}})
}

/// The `session/prompt` among what was written.
fn prompt_request(actions: &[Action]) -> Value {
    written(actions)
        .into_iter()
        .find(|m| m["method"] == "session/prompt")
        .unwrap_or_else(|| panic!("no session/prompt in {actions:?}"))
}

/// Over ACP: `e`'s open session is sent `PROMPT`, which fails with `error`;
/// after the backoff the turn is tried again and answered. Returns the
/// prompts of both `session/prompt` requests.
fn acp_retried(mut e: Engine, error: Value) -> (Value, Value) {
    let op = e.prompt(json!([{"type": "text", "text": PROMPT}]), RETRY, 10);
    let first = prompt_request(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": first["id"], "error": error}),
        20,
    );
    assert!(turn_of(&drain(&mut e), op).is_none(), "waiting to retry");
    let at = e.poll_timeout().expect("the backoff");
    e.timeout(at);
    let again = prompt_request(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": again["id"], "result": {"stopReason": "end_turn"}}),
        at + 10,
    );
    let result = turn_of(&drain(&mut e), op).expect("the turn ended");
    assert!(result.success, "{result:?}");
    assert_eq!(result.attempts, 2);
    (
        first["params"]["prompt"].clone(),
        again["params"]["prompt"].clone(),
    )
}

fn one_text(text: &str) -> Value {
    json!([{"type": "text", "text": text}])
}

#[test]
fn claude_over_acp_keeps_the_failed_prompt_so_the_retry_asks_for_its_answer() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let (first, again) = acp_retried(e, claude_500());
    assert_eq!(first, one_text(PROMPT));
    assert_eq!(again, one_text(CONTINUE_TEXT));
}

#[test]
fn codex_over_acp_keeps_the_failed_prompt_so_the_retry_asks_for_its_answer() {
    let mut e = engine("openai-codex", json!({}));
    open(&mut e, json!({}), 0);
    let (_, again) = acp_retried(e, claude_500());
    assert_eq!(again, one_text(CONTINUE_TEXT));
}

#[test]
fn gemini_over_acp_forgets_the_failed_prompt_so_the_retry_sends_it_with_its_instructions() {
    // Gemini takes its instructions at the head of the first prompt: a
    // retry that sends that prompt again carries them again.
    let mut e = engine("google-gemini", json!({"systemPrompt": "Be brief."}));
    open(&mut e, json!({}), 0);
    let (first, again) = acp_retried(e, gemini_500());
    assert_eq!(first, one_text(&format!("Be brief.\n\n{PROMPT}")));
    assert_eq!(again, first);
}

#[test]
fn a_run_over_acp_sends_the_prompt_again_whatever_the_agent() {
    let mut e = engine("claude-code", json!({}));
    e.for_run();
    open(&mut e, json!({}), 0);
    let (first, again) = acp_retried(e, claude_500());
    assert_eq!(again, first);
    assert_eq!(again, one_text(PROMPT));
}

/// The same over the CLI: an engine over `agent`'s command line.
fn cli_engine(agent: &str) -> Engine {
    Engine::cli(cli::CliSessionConfig::read(agent, &json!({"cd": "/w"}), "").unwrap())
}

fn spawned_args(actions: &[Action]) -> Option<Vec<String>> {
    actions.iter().find_map(|a| match a {
        Action::Spawn { args, .. } => Some(args.clone()),
        _ => None,
    })
}

/// The text of a `user` line written to Claude Code's one process.
fn user_text(actions: &[Action]) -> String {
    let lines = written(actions);
    assert_eq!(lines.len(), 1, "{actions:?}");
    lines[0]["message"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned()
}

fn claude_lines(e: &mut Engine, lines: &[Value], now: u64) {
    for line in lines {
        say(e, line.clone(), now);
    }
}

#[test]
fn claude_over_its_cli_keeps_the_failed_prompt_in_its_process() {
    let mut e = cli_engine("claude-code");
    e.open(0);
    assert!(spawned_args(&drain(&mut e)).is_some());
    e.spawned(10);
    drain(&mut e);
    let op = e.prompt(one_text(PROMPT), RETRY, 100);
    assert_eq!(user_text(&drain(&mut e)), PROMPT);
    // Claude Code's words for the API's 500, and the turn's result.
    let error = "API Error: 500 Mock internal error, please retry.";
    claude_lines(
        &mut e,
        &[
            json!({"type": "system", "subtype": "init", "session_id": "s1"}),
            json!({"type": "assistant", "session_id": "s1", "error": "server_error",
                "is_api_error_message": true, "api_error_status": 500, "api_error_type": "api_error",
                "message": {"role": "assistant", "model": "<synthetic>", "content": [{"type": "text", "text": error}]}}),
            json!({"type": "result", "subtype": "success", "is_error": true, "result": error,
                "session_id": "s1", "stop_reason": "stop_sequence"}),
        ],
        200,
    );
    let at = backoff(&mut e);
    let seen = drain(&mut e);
    assert_eq!(spawned_args(&seen), None, "the same process");
    assert_eq!(user_text(&seen), CONTINUE_TEXT);
    claude_lines(
        &mut e,
        &[
            json!({"type": "assistant", "session_id": "s1",
                "message": {"role": "assistant", "content": [{"type": "text", "text": "Postgres."}]}}),
            json!({"type": "result", "subtype": "success", "is_error": false, "result": "Postgres.",
                "session_id": "s1", "stop_reason": "end_turn"}),
        ],
        at + 10,
    );
    let turn = turn_of(&drain(&mut e), op).expect("the turn ended");
    assert!(turn.success, "{turn:?}");
    assert_eq!((turn.attempts, turn.reply.text.as_str()), (2, "Postgres."));
}

/// A process per turn: its prompt (stdin) once it runs.
fn stdin_of(e: &mut Engine, now: u64) -> (Vec<String>, String) {
    let args = spawned_args(&drain(e)).expect("a process for the attempt");
    e.spawned(now);
    let seen = drain(e);
    let text = seen
        .iter()
        .find_map(|a| match a {
            Action::Write(text) => Some(text.clone()),
            _ => None,
        })
        .expect("its prompt on stdin");
    (args, text)
}

/// Codex's failed turn: the API's 500 (its words), exit code 1.
fn codex_fails(e: &mut Engine, thread: &str, now: u64) {
    let lines = format!(
        "{}\n{}\n",
        json!({"type": "thread.started", "thread_id": thread}),
        json!({"type": "turn.failed", "error": {"message": "unexpected status 500 Internal Server Error: Mock internal error, please retry."}})
    );
    e.stdout(lines.as_bytes(), now);
    e.exited(Some(1), None, now + 1);
}

fn codex_answers(e: &mut Engine, thread: &str, now: u64) {
    let lines = format!(
        "{}\n{}\n{}\n",
        json!({"type": "thread.started", "thread_id": thread}),
        json!({"type": "item.completed", "item": {"id": "i", "type": "agent_message", "text": "Postgres."}}),
        json!({"type": "turn.completed"})
    );
    e.stdout(lines.as_bytes(), now);
    e.exited(Some(0), None, now + 1);
}

/// Waits out the backoff of a turn waiting to retry.
fn backoff(e: &mut Engine) -> u64 {
    let seen = drain(e);
    assert!(
        seen.iter().all(|a| matches!(a, Action::Event { .. })),
        "waiting to retry: {seen:?}"
    );
    let at = e.poll_timeout().expect("the backoff");
    e.timeout(at);
    at
}

#[test]
fn codex_over_its_cli_continues_a_resumed_session_and_resends_to_a_new_one() {
    let mut e = cli_engine("openai-codex");
    e.open(0);
    drain(&mut e);
    // The first turn fails before its session answered anything: the retry
    // starts a new session, which must be told the prompt.
    let first = e.prompt(one_text("one"), RETRY, 100);
    let (args, text) = stdin_of(&mut e, 110);
    assert!(!args.contains(&"resume".to_owned()), "{args:?}");
    assert_eq!(text, "one");
    codex_fails(&mut e, "t0", 200);
    let at = backoff(&mut e);
    let (args, text) = stdin_of(&mut e, at);
    assert!(!args.contains(&"resume".to_owned()), "{args:?}");
    assert_eq!(text, "one");
    codex_answers(&mut e, "t1", at + 10);
    let turn = turn_of(&drain(&mut e), first).expect("the first turn ended");
    assert!(turn.success, "{turn:?}");
    // The second turn fails in the resumed session, which keeps its prompt:
    // the retry resumes it and asks for the answer.
    let second = e.prompt(one_text("two"), RETRY, 5_000);
    let (args, text) = stdin_of(&mut e, 5_010);
    assert!(args.windows(2).any(|w| w == ["resume", "t1"]), "{args:?}");
    assert_eq!(text, "two");
    codex_fails(&mut e, "t1", 5_100);
    let at = backoff(&mut e);
    let (args, text) = stdin_of(&mut e, at);
    assert!(args.windows(2).any(|w| w == ["resume", "t1"]), "{args:?}");
    assert_eq!(text, CONTINUE_TEXT);
    codex_answers(&mut e, "t1", at + 10);
    let turn = turn_of(&drain(&mut e), second).expect("the second turn ended");
    assert!(turn.success, "{turn:?}");
    assert_eq!(turn.attempts, 2);
}

#[test]
fn gemini_over_its_cli_forgets_the_failed_prompt_of_a_resumed_session() {
    let mut e = cli_engine("google-gemini");
    e.open(0);
    drain(&mut e);
    let first = e.prompt(one_text("one"), LIMITS, 100);
    stdin_of(&mut e, 110);
    let answer = format!(
        "{}\n{}\n{}\n",
        json!({"type": "init", "session_id": "g1", "model": "m"}),
        json!({"type": "message", "role": "assistant", "content": "Postgres.", "delta": true}),
        json!({"type": "result", "status": "success", "stats": {"total_tokens": 1}})
    );
    e.stdout(answer.as_bytes(), 200);
    e.exited(Some(0), None, 201);
    assert!(turn_of(&drain(&mut e), first).unwrap().success);
    let second = e.prompt(one_text("two"), RETRY, 1_000);
    let (args, text) = stdin_of(&mut e, 1_010);
    assert!(args.iter().any(|a| a.contains("g1")), "{args:?}");
    assert_eq!(text, "two");
    let failed = format!(
        "{}\n{}\n",
        json!({"type": "init", "session_id": "g1", "model": "m"}),
        json!({"type": "result", "status": "error", "error": {"type": "unknown",
            "message": "[API Error: {\"error\":{\"code\":500,\"message\":\"boom\",\"status\":\"INTERNAL\"}}]"}})
    );
    e.stdout(failed.as_bytes(), 1_100);
    e.exited(Some(244), None, 1_101);
    let at = backoff(&mut e);
    let (args, text) = stdin_of(&mut e, at);
    assert!(args.iter().any(|a| a.contains("g1")), "{args:?}");
    assert_eq!(text, "two");
    e.stdout(answer.as_bytes(), at + 10);
    e.exited(Some(0), None, at + 11);
    let turn = turn_of(&drain(&mut e), second).expect("the second turn ended");
    assert!(turn.success, "{turn:?}");
    assert_eq!(turn.attempts, 2);
}

#[test]
fn a_kept_prompt_is_never_replaced_when_the_turn_is_not_retried() {
    // maxRetries 0: the failure is the turn's, and the next turn is sent as
    // it is.
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(one_text(PROMPT), LIMITS, 10);
    let first = prompt_request(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": first["id"], "error": claude_500()}),
        20,
    );
    let result = turn_of(&drain(&mut e), op).expect("the turn ended");
    assert_eq!(result.kind(), Some(AgentErrorKind::UpstreamError));
    e.prompt(one_text("next"), LIMITS, 30);
    let next = prompt_request(&drain(&mut e));
    assert_eq!(next["params"]["prompt"], one_text("next"));
}
