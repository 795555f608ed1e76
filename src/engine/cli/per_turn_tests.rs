//! Over a CLI that starts a process per turn (Codex, on scripted events
//! and a fake clock): the session resumed by each process, cancel, retry,
//! the model, bad input, MCP servers, a failed spawn.

use super::tests::*;
use super::*;
use crate::attempt::AgentErrorKind;
use crate::engine::{Action, Engine, Outcome, TurnLimits};
use serde_json::{json, Value};

pub(super) fn codex_answer(e: &mut Engine, thread: &str, reply: &str, now: u64) {
    let lines = format!(
        "{}\n{}\n{}\n",
        json!({"type": "thread.started", "thread_id": thread}),
        json!({"type": "item.completed", "item": {"id": "i", "type": "agent_message", "text": reply}}),
        json!({"type": "turn.completed"})
    );
    e.stdout(lines.as_bytes(), now);
}

#[test]
fn codex_a_process_per_turn_resuming_the_session() {
    let mut e = engine("openai-codex", json!({"systemPrompt": "Be brief."}));
    assert!(!e.persistent());
    let open = e.open(0);
    match &drain(&mut e)[..] {
        [Action::Done {
            op,
            outcome: Outcome::Opened(_),
        }] if *op == open => {}
        other => panic!("opened at once, nothing started: {other:?}"),
    }
    let first = e.prompt(text("one"), LIMITS, 100);
    let args = spawn_args(&drain(&mut e)).unwrap();
    assert!(!args.contains(&"resume".to_owned()), "{args:?}");
    e.spawned(110);
    // The instructions open the first prompt (Codex takes no system prompt flag).
    assert_eq!(
        drain(&mut e),
        [Action::Write("Be brief.\n\none".into()), Action::CloseStdin]
    );
    codex_answer(&mut e, "t1", "first", 200);
    let seen = drain(&mut e);
    assert!(
        seen.iter().all(|a| matches!(a, Action::Event { .. })),
        "{seen:?}"
    );
    e.exited(Some(0), None, 210);
    let turn = turn_of(&drain(&mut e), first);
    assert!(turn.success, "{turn:?}");
    assert_eq!(
        (turn.session_id.as_deref(), turn.reply.text.as_str()),
        (Some("t1"), "first")
    );
    assert_eq!(turn.stop_reason.as_deref(), Some("end_turn"));
    let second = e.prompt(text("two"), LIMITS, 300);
    let args = spawn_args(&drain(&mut e)).unwrap();
    assert_eq!(args[args.len() - 3..], ["resume", "t1", "-"], "{args:?}");
    e.spawned(310);
    assert_eq!(
        drain(&mut e),
        [Action::Write("two".into()), Action::CloseStdin]
    );
    codex_answer(&mut e, "t1", "second", 400);
    e.exited(Some(0), None, 410);
    let turn = turn_of(&drain(&mut e), second);
    assert!(turn.success);
    assert_eq!(turn.requested_session_id.as_deref(), Some("t1"));
    // Another thread answering a resume is session_not_found.
    let third = e.prompt(text("three"), LIMITS, 500);
    drain(&mut e);
    e.spawned(510);
    drain(&mut e);
    codex_answer(&mut e, "t9", "new", 600);
    e.exited(Some(0), None, 610);
    let turn = turn_of(&drain(&mut e), third);
    assert_eq!(
        turn.kind(),
        Some(AgentErrorKind::SessionNotFound),
        "{turn:?}"
    );
    // Closed with nothing running: at once.
    let close = e.close(700);
    assert_eq!(
        drain(&mut e),
        [
            Action::Done {
                op: close,
                outcome: Outcome::Ok(Value::Null)
            },
            Action::Closed
        ]
    );
}

#[test]
fn per_turn_cancel_kills_the_tree() {
    let mut e = engine("google-gemini", json!({}));
    let op = e.prompt(text("one"), LIMITS, 100);
    drain(&mut e);
    e.spawned(110);
    drain(&mut e);
    e.cancel(200);
    assert_eq!(drain(&mut e), [Action::Kill]);
    e.exited(None, Some("SIGKILL"), 220);
    let turn = turn_of(&drain(&mut e), op);
    assert_eq!(turn.kind(), Some(AgentErrorKind::Aborted));
    assert_eq!(turn.stop_reason.as_deref(), Some("cancelled"));
}

#[test]
fn per_turn_retry_waits_then_starts_a_new_process() {
    let mut e = engine("openai-codex", json!({}));
    let limits = TurnLimits {
        max_retries: 1,
        ..LIMITS
    };
    let op = e.prompt(text("one"), limits, 100);
    drain(&mut e);
    e.spawned(110);
    drain(&mut e);
    e.stderr(b"ERROR: unexpected status 500 Internal Server Error\n", 150);
    e.exited(Some(1), None, 200);
    assert!(drain(&mut e).is_empty(), "waiting to retry");
    assert_eq!(e.poll_timeout(), Some(700));
    e.timeout(700);
    assert!(spawn_args(&drain(&mut e)).is_some());
    e.spawned(710);
    drain(&mut e);
    codex_answer(&mut e, "t1", "ok", 800);
    e.exited(Some(0), None, 810);
    let turn = turn_of(&drain(&mut e), op);
    assert!(turn.success, "{turn:?}");
    assert_eq!(turn.attempts, 2);
}

#[test]
fn per_turn_set_model_is_the_next_process_flag() {
    let mut e = engine("google-gemini", json!({"model": "g1"}));
    let op = e.set_model("g2", 10);
    assert_eq!(
        drain(&mut e),
        [Action::Done {
            op,
            outcome: Outcome::Ok(Value::Null)
        }]
    );
    e.prompt(text("one"), LIMITS, 100);
    let args = spawn_args(&drain(&mut e)).unwrap();
    assert!(
        args.contains(&"--model=g2".to_owned()) || args.windows(2).any(|w| w == ["-m", "g2"]),
        "{args:?}"
    );
}

#[test]
fn bad_input_and_a_missing_command_fail_every_operation() {
    let mut e = engine("claude-code", json!({}));
    let op = e.prompt(
        json!([{"type": "image", "data": "AA", "mimeType": "image/png"}]),
        LIMITS,
        1,
    );
    let turn = turn_of(&drain(&mut e), op);
    assert_eq!(turn.kind(), Some(AgentErrorKind::InvalidParams));
    assert!(turn.error.unwrap().message.contains("image"));
    e.cannot_launch(false, "searched PATH", 2);
    let open = e.open(3);
    match &drain(&mut e)[..] {
        [Action::Done {
            op,
            outcome: Outcome::Failed(f),
        }] if *op == open => {
            assert_eq!(f.kind, AgentErrorKind::CommandNotFound)
        }
        other => panic!("{other:?}"),
    }
    let err = |o: Value| {
        CliSessionConfig::read("claude-code", &o, "")
            .unwrap_err()
            .message()
            .to_owned()
    };
    assert!(err(json!({"cd": "/w", "protocol": "acp"})).contains("options.protocol"));
    // Gemini CLI reads MCP servers from the settings of the run's home,
    // which needs the run's folder (the host always names one).
    let gemini = CliSessionConfig::read(
        "google-gemini",
        &json!({"cd": "/w", "mcpServers": [{"name": "a", "command": "x"}]}),
        "",
    )
    .unwrap_err();
    assert!(
        gemini
            .message()
            .contains("options.mcpServers needs a folder for Gemini CLI's home"),
        "{}",
        gemini.message()
    );
    let gemini = CliSessionConfig::read(
        "google-gemini",
        &json!({"cd": "/w", "runFolder": "/r", "mcpServers": [{"name": "a", "command": "x"}]}),
        "",
    )
    .unwrap();
    assert_eq!(
        gemini.options.home.unwrap().settings["mcpServers"]["a"]["command"],
        "x"
    );
    assert!(
        err(json!({"cd": "/w", "mcpServers": [{"name": "a", "type": "ftp", "url": "u"}]}))
            .contains("options.mcpServers[0].type")
    );
    assert!(err(json!({"cd": "/w", "sessionId": "-x"})).contains("session"));
}

#[test]
fn mcp_servers_reach_every_process_on_its_command_line_and_in_its_environment() {
    let servers = json!([{"name": "notes", "command": "node", "args": ["n.js"]}]);
    let mut e = engine("claude-code", json!({"mcpServers": servers}));
    e.launch(resolved("claude", vec![("PATH".into(), "/bin".into())]), 0);
    e.open(0);
    let actions = drain(&mut e);
    let (args, env) = actions
        .iter()
        .find_map(|a| match a {
            Action::Spawn { args, env, .. } => Some((args.clone(), env.clone())),
            _ => None,
        })
        .unwrap();
    assert!(
        args.iter()
            .any(|a| a.starts_with("--mcp-config={\"mcpServers\":{\"notes\":"))
            && args.contains(&"--strict-mcp-config".to_owned()),
        "{args:?}"
    );
    // maxRetries (1 by default) bounds Claude Code's own retries too.
    assert_eq!(
        env,
        [
            ("CLAUDE_CODE_MAX_RETRIES".to_owned(), "1".to_owned()),
            ("ENABLE_TOOL_SEARCH".to_owned(), "false".to_owned())
        ]
    );
    // opencode: its configuration variable, the caller's merged in.
    let mut e = engine("opencode", json!({"mcpServers": servers}));
    e.launch(
        resolved(
            "opencode",
            vec![(
                "OPENCODE_CONFIG_CONTENT".into(),
                r#"{"model":"m/x"}"#.into(),
            )],
        ),
        0,
    );
    e.open(0);
    drain(&mut e);
    e.prompt(text("one"), LIMITS, 1);
    let env = drain(&mut e)
        .into_iter()
        .find_map(|a| match a {
            Action::Spawn { env, .. } => Some(env),
            _ => None,
        })
        .unwrap();
    let config: Value = serde_json::from_str(&env[0].1).unwrap();
    assert_eq!(
        (
            env[0].0.as_str(),
            &config["model"],
            &config["mcp"]["notes"]["command"]
        ),
        (
            "OPENCODE_CONFIG_CONTENT",
            &json!("m/x"),
            &json!(["node", "n.js"])
        )
    );
}

#[test]
fn claude_spawn_failure_fails_the_open() {
    let mut e = engine("claude-code", json!({"systemPrompt": "Be brief."}));
    let open = e.open(0);
    let args = spawn_args(&drain(&mut e)).unwrap();
    assert!(
        args.contains(&"--append-system-prompt=Be brief.".to_owned()),
        "{args:?}"
    );
    e.spawn_failed("EACCES", 5);
    match &drain(&mut e)[..] {
        [Action::Done {
            op,
            outcome: Outcome::Failed(f),
        }] if *op == open => {
            assert_eq!(f.kind, AgentErrorKind::SpawnFailed)
        }
        other => panic!("{other:?}"),
    }
}

/// The environment of the first process `e` starts, and `name`'s value in it.
fn spawned_var(e: &mut Engine, name: &str) -> Option<String> {
    let env = drain(e)
        .into_iter()
        .find_map(|a| match a {
            Action::Spawn { env, .. } => Some(env),
            _ => None,
        })
        .expect("a process started");
    env.into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
}

#[test]
fn a_variable_the_agent_reads_two_ways_reaches_every_process_agreed() {
    let sandbox = |value: &str| {
        let mut e = engine("claude-code", json!({}));
        e.launch(
            resolved("claude", vec![("IS_SANDBOX".into(), value.into())]),
            0,
        );
        // A session's one process, started when it opens.
        e.open(0);
        spawned_var(&mut e, "IS_SANDBOX")
    };
    // Claude Code as root takes only `1`: `yes` becomes it, `0` unset.
    assert_eq!(sandbox("yes").as_deref(), Some("1"));
    assert_eq!(sandbox("0").as_deref(), Some(""));
    // Already agreed: the caller's own value is what the process gets.
    assert_eq!(sandbox("1"), None);
}

#[test]
fn the_agents_start_variables_reach_its_process_unless_the_caller_names_them() {
    let relaunch = |caller: Vec<(String, String)>| {
        let mut e = engine("qwen-code", json!({}));
        e.launch(resolved("qwen", caller), 0);
        e.open(0);
        // A process per turn: started by the prompt.
        e.prompt(text("one"), LIMITS, 100);
        spawned_var(&mut e, "QWEN_CODE_NO_RELAUNCH")
    };
    // Qwen Code starts once: no second Node process for a bigger heap.
    assert_eq!(relaunch(vec![]).as_deref(), Some("true"));
    // The caller's own value (its environment) is what the process gets.
    let own = vec![("QWEN_CODE_NO_RELAUNCH".to_owned(), String::new())];
    assert_eq!(relaunch(own), None);
}
