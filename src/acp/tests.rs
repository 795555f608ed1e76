//! The ACP runner end to end on scripted answers (the live tests in
//! tests/acp/ run the real agents).

use serde_json::{json, Value};

use super::*;
use crate::gemini_tool::AttemptEnd;

fn run(agent: &str, options: Value) -> AcpRunner {
    AcpRunner::new(
        agent,
        &json!({"prompt": "Hi", "systemFlag": "Rules."}),
        &options,
        "",
    )
}

fn result(run: &AcpRunner) -> Value {
    serde_json::to_value(run.result(5).unwrap()).unwrap()
}

fn kind(run: &AcpRunner) -> Value {
    result(run)["error"]["kind"].clone()
}

fn exited() -> AttemptEnd {
    AttemptEnd {
        exit_code: Some(0),
        ..Default::default()
    }
}

/// One attempt: initialize with `caps`, open, prompt; `then` answers.
fn attempt(r: &mut AcpRunner, caps: Value, then: impl FnOnce(&mut AcpRunner)) -> Option<u64> {
    r.start_attempt();
    if let Some((_, _)) = r.session_request(&caps) {
        r.session_opened(&json!({"sessionId": "s-new"}));
        r.prompt_params();
        then(r);
    }
    r.end_attempt(&exited(), 5)
}

#[test]
fn launch_per_agent_and_model() {
    let cases = [
        (
            "claude-code",
            "claude-agent-acp",
            vec![],
            Some(("ANTHROPIC_MODEL", "m1")),
        ),
        (
            "openai-codex",
            "codex-acp",
            vec!["-c", "model=\"m1\""],
            None,
        ),
        ("google-gemini", "gemini", vec!["--acp", "-m", "m1"], None),
        ("qwen-code", "qwen", vec!["--acp", "--model", "m1"], None),
        (
            "github-copilot",
            "copilot",
            vec!["--acp", "--model", "m1"],
            None,
        ),
    ];
    for (agent, command, args, env) in cases {
        let r = run(agent, json!({"cd": "/w", "model": "m1", "protocol": "acp"}));
        let plan = r.plan().unwrap();
        assert_eq!(
            (plan.command, plan.args.to_vec()),
            (
                command,
                args.iter().map(|a| a.to_string()).collect::<Vec<_>>()
            ),
            "{agent}"
        );
        let env: Vec<(String, String)> = env
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(plan.env, env.as_slice());
        assert_eq!(plan.cancel_grace_ms, 5000);
        assert_eq!(
            plan.exits_on_eof,
            !matches!(agent, "claude-code" | "openai-codex")
        );
    }
    let r = run("opencode", json!({"cd": "/w"}));
    let plan = r.plan().unwrap();
    assert_eq!(plan.args, ["acp"]);
    assert_eq!(plan.default_env[0].0, "OPENCODE_PERMISSION");
    assert!(plan.default_env[0]
        .1
        .contains("\"external_directory\":\"ask\""));
    assert!(run("qwen-code", json!({"cd": "/w"}))
        .plan()
        .unwrap()
        .default_env
        .is_empty());
    let r = run("opencode", json!({"cd": "/w", "model": "x"}));
    assert!(result(&r)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("options.model cannot be set for opencode"));
    let r = AcpRunner::new(
        "codex",
        &json!({"prompt": "Hi"}),
        &json!({"cd": "/w"}),
        "my-codex-acp",
    );
    assert_eq!(kind(&r), "invalid_params");
    let r = AcpRunner::new(
        "openai-codex",
        &json!({"prompt": "Hi"}),
        &json!({"cd": "/w"}),
        "my-codex-acp",
    );
    assert_eq!(r.plan().unwrap().command, "my-codex-acp");
    let r = run("google-gemini", json!({"cd": "/w", "protocol": "x"}));
    assert_eq!(
        result(&r)["error"]["message"],
        "invalid parameters: options.protocol must be 'cli' or 'acp', got \"x\""
    );
    for bad in [
        json!({"cd": "/w", "protocol": 7}),
        json!({"cd": "/w", "extraArgs": ["x"]}),
        json!({"cd": "/w", "timeout": -1}),
        json!({}),
    ] {
        let r = run("google-gemini", bad.clone());
        assert!(r.plan().is_none(), "{bad}");
        assert_eq!(kind(&r), "invalid_params");
    }
}

#[test]
fn system_prompt_meta_for_claude_inline_elsewhere() {
    let mut r = run("claude-code", json!({"cd": "/w"}));
    r.start_attempt();
    let (method, params) = r.session_request(&json!({})).unwrap();
    assert_eq!(method, "session/new");
    assert_eq!(
        params,
        json!({"cwd": "/w", "mcpServers": [], "_meta": {"systemPrompt": {"append": "Rules."}}})
    );
    r.session_opened(&json!({"sessionId": "a"}));
    assert_eq!(
        r.prompt_params(),
        json!({"sessionId": "a", "prompt": [{"type": "text", "text": "Hi"}]})
    );
    let mut r = run("qwen-code", json!({"cd": "/w"}));
    r.start_attempt();
    let (_, params) = r.session_request(&json!({})).unwrap();
    assert_eq!(params, json!({"cwd": "/w", "mcpServers": []}));
    r.session_opened(&json!({"sessionId": "q"}));
    assert_eq!(r.prompt_params()["prompt"][0]["text"], "Rules.\n\nHi");
    assert_eq!(r.cancel_params(), json!({"sessionId": "q"}));
    let init = r.initialize_params();
    assert_eq!(init["protocolVersion"], 1);
    assert_eq!(
        init["clientCapabilities"],
        json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false})
    );
}

#[test]
fn success_and_stop_reasons() {
    let mut r = run("google-gemini", json!({"cd": "/w"}));
    assert_eq!(
        attempt(&mut r, json!({}), |r| r
            .prompt_ended(&json!({"stopReason": "end_turn"}))),
        None
    );
    let v = result(&r);
    assert_eq!(
        (
            v["success"].clone(),
            v["sessionId"].clone(),
            v["reply"]["status"].clone()
        ),
        (json!(true), json!("s-new"), json!("success"))
    );
    for (stop, want) in [
        ("cancelled", "incomplete"),
        ("max_tokens", "incomplete"),
        ("max_turn_requests", "incomplete"),
        ("refusal", "request_rejected"),
    ] {
        let mut r = run("google-gemini", json!({"cd": "/w", "maxRetries": 0}));
        attempt(&mut r, json!({}), |r| {
            r.prompt_ended(&json!({"stopReason": stop}))
        });
        assert_eq!(kind(&r), want, "{stop}");
    }
    // Codex ends the turn cancelled when a permission was rejected.
    let mut r = run("openai-codex", json!({"cd": "/w", "sandbox": "read-only"}));
    attempt(&mut r, json!({}), |r| {
        let ask = json!({"toolCall": {"kind": "edit"}, "options": [{"optionId": "n", "kind": "reject_once"}]});
        assert_eq!(
            r.permission(&ask, None).unwrap()["outcome"]["optionId"],
            "n"
        );
        r.prompt_ended(&json!({"stopReason": "cancelled"}));
    });
    assert!(result(&r)["error"]["message"]
        .as_str()
        .unwrap()
        .contains("1 permission request(s) were rejected"));
}

#[test]
fn sessions_resumed_or_not_found() {
    // Asked, advertised: resume with the id; the result keeps it.
    let mut r = run("claude-code", json!({"cd": "/w", "sessionId": "old"}));
    r.start_attempt();
    let caps =
        json!({"agentCapabilities": {"loadSession": true, "sessionCapabilities": {"resume": {}}}});
    let (method, params) = r.session_request(&caps).unwrap();
    assert_eq!(
        (method, params["sessionId"].clone()),
        ("session/resume", json!("old"))
    );
    r.session_opened(&json!({}));
    r.prompt_params();
    r.prompt_ended(&json!({"stopReason": "end_turn"}));
    r.end_attempt(&exited(), 5);
    let v = result(&r);
    assert_eq!(
        (
            v["success"].clone(),
            v["sessionId"].clone(),
            v["requestedSessionId"].clone()
        ),
        (json!(true), json!("old"), json!("old"))
    );
    // Not advertised, or Gemini: session_not_found, no request sent.
    for agent in ["google-gemini", "opencode"] {
        let mut r = run(agent, json!({"cd": "/w", "sessionId": "old"}));
        r.start_attempt();
        let caps = if agent == "google-gemini" {
            json!({"agentCapabilities": {"loadSession": true}})
        } else {
            json!({"agentCapabilities": {}})
        };
        assert!(r.session_request(&caps).is_none());
        assert!(r.attempt_settled());
        assert_eq!(r.end_attempt(&exited(), 5), None);
        assert_eq!(kind(&r), "session_not_found", "{agent}");
        assert_eq!(result(&r)["attempts"], 1);
    }
    // The load fails: session_not_found with the agent's words.
    let mut r = run("qwen-code", json!({"cd": "/w", "sessionId": "old"}));
    r.start_attempt();
    assert_eq!(
        r.session_request(&json!({"agentCapabilities": {"loadSession": true}}))
            .unwrap()
            .0,
        "session/load"
    );
    r.request_failed(Stage::Session, &json!({"code": -32603, "message": "Internal error", "data": {"details": "Session not found: old"}}));
    r.end_attempt(&exited(), 5);
    let v = result(&r);
    assert_eq!(v["error"]["kind"], "session_not_found");
    assert!(v["error"]["message"]
        .as_str()
        .unwrap()
        .ends_with("Internal error: Session not found: old"));
    // Another id came back.
    let mut r = run("qwen-code", json!({"cd": "/w", "sessionId": "old"}));
    r.start_attempt();
    r.session_request(&json!({"agentCapabilities": {"loadSession": true}}));
    r.session_opened(&json!({"sessionId": "other"}));
    r.prompt_params();
    r.prompt_ended(&json!({"stopReason": "end_turn"}));
    r.end_attempt(&exited(), 5);
    assert_eq!(kind(&r), "session_not_found");
}

#[test]
fn errors_classified_and_retried() {
    // Claude's adapter: the API's 500 in the error's data; retried once.
    let mut r = run("claude-code", json!({"cd": "/w", "maxDuration": 60}));
    let err = json!({"code": -32603, "message": "Internal error", "data": {"details": "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}"}});
    let wait = attempt(&mut r, json!({}), |r| r.request_failed(Stage::Prompt, &err));
    assert!(wait.is_some());
    assert_eq!(
        r.last_attempt_kind(),
        Some(crate::run::AgentErrorKind::UpstreamError)
    );
    assert_eq!(
        attempt(&mut r, json!({}), |r| r.request_failed(Stage::Prompt, &err)),
        None
    );
    let v = result(&r);
    assert_eq!(
        (
            v["error"]["kind"].clone(),
            v["attempts"].clone(),
            v["reply"]["status"].clone()
        ),
        (json!("upstream_error"), json!(2), json!("error"))
    );
    // A 401 is not retried.
    let mut r = run("claude-code", json!({"cd": "/w"}));
    let err = json!({"code": -32603, "message": "API Error: 401 {\"error\":{\"type\":\"authentication_error\"}}"});
    assert_eq!(
        attempt(&mut r, json!({}), |r| r.request_failed(Stage::Prompt, &err)),
        None
    );
    assert_eq!(kind(&r), "auth_error");
    // The process died before answering: incomplete, with its stderr.
    let mut r = run("google-gemini", json!({"cd": "/w", "maxRetries": 0}));
    r.start_attempt();
    r.push_stderr(b"crashed\n");
    r.end_attempt(
        &AttemptEnd {
            exit_code: Some(3),
            ..Default::default()
        },
        5,
    );
    let v = result(&r);
    assert_eq!(v["error"]["exitCode"], 3);
    assert_eq!(v["error"]["lastLines"], json!(["crashed"]));
    // Stopped by the runner: the CLI runner's kinds.
    for (stopped, want) in [
        ("idle_timeout", "idle_timeout"),
        ("timeout", "timeout"),
        ("aborted", "aborted"),
    ] {
        let mut r = run(
            "google-gemini",
            json!({"cd": "/w", "timeout": 7, "maxRetries": 0}),
        );
        r.start_attempt();
        r.end_attempt(
            &AttemptEnd::new(None, Some("SIGKILL".into()), None, Some(stopped)).unwrap(),
            5,
        );
        assert_eq!(kind(&r), want);
    }
    let mut r = run("google-gemini", json!({"cd": "/w"}));
    r.start_attempt();
    r.end_attempt(
        &AttemptEnd::new(None, None, Some("ENOENT".into()), None).unwrap(),
        5,
    );
    assert_eq!(kind(&r), "command_not_found");
    let mut r = run("claude-code", json!({"cd": "/w"}));
    r.cannot_launch(false, "searched PATH");
    let message = result(&r)["error"]["message"].as_str().unwrap().to_owned();
    assert!(
        message.contains("@zed-industries/claude-agent-acp"),
        "{message}"
    );
    let mut r = run("claude-code", json!({"cd": "/w"}));
    r.abort();
    assert_eq!(kind(&r), "aborted");
}

#[test]
fn fs_confined_and_requests_answered() {
    let r = run("qwen-code", json!({"cd": "/w/p"}));
    assert_eq!(
        r.fs_path(&json!({"path": "/w/p/a.txt"}), false),
        Ok("/w/p/a.txt".to_owned())
    );
    assert_eq!(
        r.fs_path(&json!({"path": "/w/p/new/b.txt"}), true),
        Ok("/w/p/new/b.txt".to_owned())
    );
    let outside = r
        .fs_path(&json!({"path": "/w/p/../secret"}), true)
        .unwrap_err();
    assert_eq!(outside["code"], INVALID_PARAMS);
    assert!(outside["message"]
        .as_str()
        .unwrap()
        .contains("outside the working directory /w/p"));
    assert_eq!(
        r.fs_path(&json!({}), false).unwrap_err()["code"],
        INVALID_PARAMS
    );
    assert_eq!(
        r.missing_file("/w/p/x").unwrap_err()["code"],
        RESOURCE_NOT_FOUND
    );
    assert_eq!(
        r.unknown_request("craft/drainMidTurnQueue")["code"],
        METHOD_NOT_FOUND
    );
    let ro = run("qwen-code", json!({"cd": "/w/p", "sandbox": "read-only"}));
    assert!(ro.fs_path(&json!({"path": "/w/p/a"}), false).is_ok());
    assert!(
        ro.fs_path(&json!({"path": "/w/p/a"}), true).unwrap_err()["message"]
            .as_str()
            .unwrap()
            .contains("read-only")
    );
    let gemini = run("google-gemini", json!({"cd": "/w/p"}));
    assert_eq!(gemini.missing_file("/w/p/x"), Ok(json!({"content": ""})));
    let mut r = run("qwen-code", json!({"cd": "/w/p"}));
    let ask = json!({"toolCall": {"kind": "execute"}, "options": [{"optionId": "y", "kind": "allow_once"}]});
    assert_eq!(
        r.permission(&ask, Some("allow")).unwrap()["outcome"]["optionId"],
        "y"
    );
    assert!(r.permission(&ask, Some("yes")).is_err());
}

#[test]
fn qwen_is_set_to_the_mode_that_asks() {
    let opened = json!({"sessionId": "q", "modes": {"currentModeId": "auto", "availableModes": [{"id": "default"}, {"id": "auto"}]}});
    let mut r = run("qwen-code", json!({"cd": "/w"}));
    r.start_attempt();
    r.session_request(&json!({}));
    r.session_opened(&opened);
    assert_eq!(
        r.mode_params(&opened),
        Some(json!({"sessionId": "q", "modeId": "default"}))
    );
    let already = json!({"sessionId": "q", "modes": {"currentModeId": "default", "availableModes": [{"id": "default"}]}});
    assert_eq!(r.mode_params(&already), None);
    assert_eq!(r.mode_params(&json!({"sessionId": "q"})), None);
    let mut c = run("claude-code", json!({"cd": "/w"}));
    c.start_attempt();
    c.session_request(&json!({}));
    c.session_opened(&opened);
    assert_eq!(c.mode_params(&opened), None);
}

#[test]
fn the_reply_is_the_parsers_from_the_prompt_on() {
    let update = |text: &str| {
        format!("{{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{{\"sessionId\":\"s-new\",\"update\":{{\"sessionUpdate\":\"agent_message_chunk\",\"content\":{{\"type\":\"text\",\"text\":\"{text}\"}}}}}}}}\n")
    };
    let mut r = run("claude-code", json!({"cd": "/w", "sessionId": "s-new"}));
    r.start_attempt();
    // A loaded session's history, replayed before the prompt: not this run's reply.
    r.push_stdout(update("old answer").as_bytes());
    r.session_request(&json!({"agentCapabilities": {"loadSession": true}}));
    r.session_opened(&json!({}));
    r.prompt_params();
    let events = r.push_stdout(format!("{}{}", update("Hello "), update("there")).as_bytes());
    assert!(!events.is_empty());
    r.push_stdout(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"stopReason\":\"end_turn\"}}\n");
    r.prompt_ended(&json!({"stopReason": "end_turn"}));
    r.end_attempt(&exited(), 5);
    let v = result(&r);
    assert_eq!(
        (v["success"].clone(), v["reply"]["text"].clone()),
        (json!(true), json!("Hello there"))
    );
    // Copilot says a failed model call as the turn's text, then ends the turn normally.
    let mut r = run("github-copilot", json!({"cd": "/w", "maxRetries": 0}));
    attempt(&mut r, json!({}), |r| {
        r.push_stdout(update("Error: Failed to get response from the AI model; retried 5 times Last error: 500 Mock server error").as_bytes());
        r.push_stdout(b"{\"jsonrpc\":\"2.0\",\"id\":2,\"result\":{\"stopReason\":\"end_turn\"}}\n");
        r.prompt_ended(&json!({"stopReason": "end_turn"}));
    });
    let v = result(&r);
    assert_eq!(v["success"], false, "{v}");
    assert_eq!(v["error"]["kind"], "upstream_error", "{v}");
}

#[test]
fn the_session_is_closed_when_the_agent_can() {
    let mut r = run("claude-code", json!({"cd": "/w"}));
    r.start_attempt();
    r.session_request(&json!({"agentCapabilities": {"sessionCapabilities": {"close": {}}}}));
    r.session_opened(&json!({"sessionId": "c"}));
    r.prompt_params();
    assert_eq!(r.close_params(), None, "not before the turn ended");
    r.prompt_ended(&json!({"stopReason": "end_turn"}));
    assert_eq!(r.close_params(), Some(json!({"sessionId": "c"})));
    let mut r = run("google-gemini", json!({"cd": "/w"}));
    r.start_attempt();
    r.session_request(&json!({"agentCapabilities": {}}));
    r.session_opened(&json!({"sessionId": "g"}));
    r.prompt_params();
    r.prompt_ended(&json!({"stopReason": "end_turn"}));
    assert_eq!(r.close_params(), None);
}
