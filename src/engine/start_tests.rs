//! How each agent is started (command, arguments, model, MCP servers) and
//! how a turn's answer is judged, on scripted events.

use serde_json::{json, Value};

use super::tests::{drain, engine, open, say, turn_of, written, LIMITS};
use super::*;
use crate::attempt::AgentErrorKind;

#[test]
fn each_agent_is_started_as_its_file_says_with_the_model() {
    let cases = [
        (
            "claude-code",
            "claude-agent-acp",
            vec![],
            vec![("ANTHROPIC_MODEL", "m1")],
        ),
        (
            "openai-codex",
            "codex-acp",
            vec!["-c", "model=\"m1\""],
            vec![("CODEX_CONFIG", "{\"model\":\"m1\"}")],
        ),
        ("google-gemini", "gemini", vec!["--acp", "-m", "m1"], vec![]),
        ("qwen-code", "qwen", vec!["--acp", "--model", "m1"], vec![]),
        (
            "github-copilot",
            "copilot",
            vec!["--acp", "--model", "m1"],
            vec![],
        ),
    ];
    for (agent, command, args, env) in cases {
        let cfg = SessionConfig::read(
            agent,
            &json!({"cd": "/w", "model": "m1", "protocol": "acp"}),
            "",
        )
        .unwrap();
        assert_eq!(cfg.command, command, "{agent}");
        assert_eq!(cfg.args, args, "{agent}");
        let env: Vec<(String, String)> = env
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        assert_eq!(cfg.env, env, "{agent}");
    }
    let cfg = SessionConfig::read("opencode", &json!({"cd": "/w"}), "").unwrap();
    assert_eq!(cfg.args, ["acp", "--print-logs", "--log-level", "ERROR"]);
    assert_eq!(cfg.default_env[0].0, "OPENCODE_PERMISSION");
    let e = SessionConfig::read("opencode", &json!({"cd": "/w", "model": "x"}), "").unwrap_err();
    assert!(
        e.message()
            .contains("options.model cannot be set for opencode"),
        "{}",
        e.message()
    );
    assert_eq!(
        SessionConfig::read("openai-codex", &json!({"cd": "/w"}), "my-codex-acp")
            .unwrap()
            .command,
        "my-codex-acp"
    );
    assert!(SessionConfig::read("codex", &json!({"cd": "/w"}), "").is_err());
    let e = SessionConfig::read("google-gemini", &json!({"cd": "/w", "protocol": "x"}), "")
        .unwrap_err();
    assert_eq!(
        e.message(),
        "options.protocol must be 'cli' or 'acp', got \"x\""
    );
    for bad in [
        json!({"cd": "/w", "protocol": 7}),
        json!({"cd": "/w", "extraArgs": ["x"]}),
        json!({"cd": "/w", "timeout": -1}),
        json!({"cd": "/w", "systemPrompt": 3}),
        json!({"cd": "/w", "mcpServers": [{"name": "x"}]}),
        json!({"cd": "/w", "mcpServers": [{"name": "x", "command": "y"}, {"name": "x", "command": "z"}]}),
        json!({}),
    ] {
        assert!(
            SessionConfig::read("google-gemini", &bad, "").is_err(),
            "{bad}"
        );
    }
    // pi takes no MCP servers over ACP (its adapter would accept and drop them).
    let servers = json!({"cd": "/w", "mcpServers": [{"name": "x", "command": "y"}]});
    let e = SessionConfig::read("pi", &servers, "").unwrap_err();
    assert!(
        e.message().starts_with(
            "options.mcpServers cannot be given to pi over ACP: pi takes no MCP servers"
        ),
        "{}",
        e.message()
    );
    assert!(SessionConfig::read("pi", &json!({"cd": "/w"}), "").is_ok());
    assert!(SessionConfig::read("kimi-code", &servers, "").is_ok());
}

/// Ends a prompt of `e` with `response` (a result or an error).
fn answer_prompt(e: &mut Engine, limits: TurnLimits, response: Value) -> TurnResult {
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), limits, 10);
    let sent = written(&drain(e));
    let mut message = json!({"jsonrpc": "2.0", "id": sent[0]["id"]});
    for (k, v) in response.as_object().unwrap() {
        message[k] = v.clone();
    }
    say(e, message, 20);
    turn_of(&drain(e), op).expect("the turn ended")
}

#[test]
fn stop_reasons_and_errors_are_judged_as_over_the_cli() {
    for (stop, want) in [
        ("cancelled", AgentErrorKind::Incomplete),
        ("max_tokens", AgentErrorKind::Incomplete),
        ("max_turn_requests", AgentErrorKind::Incomplete),
        ("refusal", AgentErrorKind::RequestRejected),
    ] {
        let mut e = engine("google-gemini", json!({}));
        open(&mut e, json!({}), 0);
        let result = answer_prompt(&mut e, LIMITS, json!({"result": {"stopReason": stop}}));
        assert_eq!(result.kind(), Some(want), "{stop}");
        assert_eq!(result.stop_reason.as_deref(), Some(stop));
    }
    // Claude's adapter: the API's 500 in the error's data is upstream_error.
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let err = json!({"code": -32603, "message": "Internal error", "data": {"details": "API Error: 500 {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"boom\"}}"}});
    let result = answer_prompt(&mut e, LIMITS, json!({"error": err}));
    assert_eq!(result.kind(), Some(AgentErrorKind::UpstreamError));
    assert_eq!(result.reply.status, crate::agent_output::ReplyStatus::Error);
    // A 401 is auth_error.
    let err = json!({"code": -32603, "message": "API Error: 401 {\"error\":{\"type\":\"authentication_error\"}}"});
    assert_eq!(
        answer_prompt(&mut e, LIMITS, json!({"error": err})).kind(),
        Some(AgentErrorKind::AuthError)
    );
}

#[test]
fn codex_gets_the_model_as_an_argument_and_in_codex_config() {
    let spawn = |options: Value| {
        let mut e = engine("openai-codex", options);
        e.open(0);
        match drain(&mut e).remove(0) {
            Action::Spawn { args, env, .. } => (args, env),
            other => panic!("{other:?}"),
        }
    };
    let (args, env) = spawn(json!({"model": "gpt-5.5"}));
    assert_eq!(args, ["-c", "model=\"gpt-5.5\""]);
    assert_eq!(
        env,
        [(
            "CODEX_CONFIG".to_owned(),
            r#"{"model":"gpt-5.5"}"#.to_owned()
        )]
    );
    let (_, env) = spawn(json!({}));
    assert!(env.is_empty());
}

#[test]
fn mcp_servers_are_given_in_acps_shape_and_checked_against_the_capabilities() {
    let mut e = engine(
        "claude-code",
        json!({"mcpServers": [
            {"name": "probe", "command": "node", "args": ["probe.js"], "env": {"A": "1"}},
            {"name": "web", "type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {"X": "y"}}
        ]}),
    );
    e.open(0);
    drain(&mut e);
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1,
        "agentCapabilities": {"mcpCapabilities": {"http": true}}}}),
        1,
    );
    let open = written(&drain(&mut e));
    assert_eq!(
        open[0]["params"]["mcpServers"],
        json!([{"name": "probe", "command": "node", "args": ["probe.js"], "env": [{"name": "A", "value": "1"}]},
               {"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": [{"name": "X", "value": "y"}]}])
    );
    // Without the http capability: INVALID_INPUT naming the agent and transport.
    let mut e = engine(
        "google-gemini",
        json!({"mcpServers": [{"name": "web", "type": "sse", "url": "http://127.0.0.1:9"}]}),
    );
    let op = e.open(0);
    drain(&mut e);
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1}}),
        1,
    );
    drain(&mut e);
    e.exited(None, Some("SIGTERM"), 2);
    let failed = drain(&mut e).into_iter().find_map(|a| match a {
        Action::Done {
            op: o,
            outcome: Outcome::Failed(f),
        } if o == op => Some(f),
        _ => None,
    });
    let f = failed.unwrap();
    assert_eq!(f.kind, AgentErrorKind::InvalidParams);
    assert!(
        f.message
            .contains("Gemini CLI does not take MCP servers over sse"),
        "{}",
        f.message
    );
}

#[test]
fn qwen_and_copilot_get_mcp_servers_on_their_command_line_and_none_in_session_new() {
    let servers = json!([
        {"name": "notes", "command": "node", "args": ["notes.js"], "env": {"A": "1"}},
        {"name": "web", "type": "http", "url": "http://127.0.0.1:9/mcp"}
    ]);
    let cases = [
        (
            "qwen-code",
            "--mcp-config=",
            json!({"notes": {"command": "node", "args": ["notes.js"], "env": {"A": "1"}, "alwaysLoadTools": true},
                   "web": {"httpUrl": "http://127.0.0.1:9/mcp", "headers": {}, "alwaysLoadTools": true, "discoveryTimeoutMs": 30_000}}),
            vec![("QWEN_CODE_LEGACY_MCP_BLOCKING", "1")],
        ),
        (
            "github-copilot",
            "--additional-mcp-config=",
            json!({"notes": {"type": "local", "command": "node", "args": ["notes.js"], "env": {"A": "1"}, "tools": ["*"]},
                   "web": {"type": "http", "url": "http://127.0.0.1:9/mcp", "headers": {}, "tools": ["*"]}}),
            vec![],
        ),
    ];
    for (agent, flag, given, env) in cases {
        let mut e = engine(agent, json!({"mcpServers": servers}));
        assert_eq!(e.acp_cfg().args.len(), 2, "{agent}: {:?}", e.acp_cfg().args);
        assert_eq!(e.acp_cfg().args[0], "--acp");
        let config = e.acp_cfg().args[1].strip_prefix(flag).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(config).unwrap(),
            json!({ "mcpServers": given }),
            "{agent}"
        );
        for (k, v) in env {
            assert!(
                e.acp_cfg()
                    .default_env
                    .contains(&(k.to_owned(), v.to_owned())),
                "{agent}: {:?}",
                e.acp_cfg().default_env
            );
        }
        e.open(0);
        drain(&mut e);
        e.spawned(0);
        let init = written(&drain(&mut e));
        // Whatever it advertises: the servers are on its command line already.
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1}}),
            1,
        );
        let open = written(&drain(&mut e));
        assert_eq!(open[0]["method"], "session/new", "{agent}");
        assert_eq!(open[0]["params"]["mcpServers"], json!([]), "{agent}");
        // A session on the process cannot have servers of its own.
        assert_eq!(
            e.acp_cfg()
                .for_session(&json!({"mcpServers": servers}))
                .unwrap()
                .mcp_servers,
            e.acp_cfg().mcp_servers
        );
        let err = e
            .acp_cfg()
            .for_session(&json!({"mcpServers": [servers[0]]}))
            .unwrap_err();
        assert!(
            err.message()
                .starts_with("sessionOptions.mcpServers cannot differ from the process's"),
            "{}",
            err.message()
        );
    }
    // Without servers, nothing is added.
    let cfg = SessionConfig::read("qwen-code", &json!({"cd": "/w"}), "").unwrap();
    assert_eq!(cfg.args, ["--acp"]);
    assert!(cfg
        .default_env
        .iter()
        .all(|(k, _)| k != "QWEN_CODE_LEGACY_MCP_BLOCKING"));
    // Gemini CLI gets them in session/new, its folder trusted for the run.
    let cfg = SessionConfig::read(
        "google-gemini",
        &json!({"cd": "/w", "mcpServers": [servers[0]]}),
        "",
    )
    .unwrap();
    assert_eq!(cfg.args, ["--acp"]);
    assert!(cfg
        .default_env
        .contains(&("GEMINI_CLI_TRUST_WORKSPACE".to_owned(), "true".to_owned())));
    assert_eq!(
        cfg.mcp_for(&json!({})).unwrap().as_array().map(Vec::len),
        Some(1)
    );
}

#[test]
fn a_definition_is_started_as_it_says_and_knows_nothing_of_its_agent() {
    let def = json!({"id": "stub-acp", "name": "Stub", "command": "/opt/stub", "args": ["--acp", "a b"], "env": {"STUB_MODE": "on"}});
    let cfg = SessionConfig::read_agent(&def, &json!({"cd": "/w"}), "").unwrap();
    assert_eq!(cfg.command, "/opt/stub");
    assert_eq!(cfg.args, ["--acp", "a b"]);
    assert_eq!(cfg.env, [("STUB_MODE".to_owned(), "on".to_owned())]);
    assert!(cfg.default_env.is_empty(), "{:?}", cfg.default_env);
    assert_eq!((cfg.id.as_str(), cfg.name.as_str()), ("stub-acp", "Stub"));
    assert_eq!(cfg.agent.agent_type, "stub-acp");
    assert!(!cfg.launch.system_prompt_meta && cfg.launch.ask_mode.is_none());
    // options.command still overrides the definition's command.
    let cfg = SessionConfig::read_agent(&def, &json!({"cd": "/w"}), "/other").unwrap();
    assert_eq!(cfg.command, "/other");
    // No model flag is known for it; a definition speaks ACP only.
    let e = SessionConfig::read_agent(&def, &json!({"cd": "/w", "model": "m"}), "").unwrap_err();
    assert!(
        e.message().contains("options.model cannot be set for Stub"),
        "{}",
        e.message()
    );
    let e =
        SessionConfig::read_agent(&def, &json!({"cd": "/w", "protocol": "cli"}), "").unwrap_err();
    assert!(e
        .message()
        .starts_with("options.protocol must be 'acp' for an agent given by its definition"));
    let e = SessionConfig::read_agent(&json!({"id": "x"}), &json!({"cd": "/w"}), "").unwrap_err();
    assert_eq!(
        e.message(),
        "agentType.command must be a non-empty string, got undefined"
    );
    // Unknown keys come back as warnings.
    let cfg = SessionConfig::read_agent(
        &json!({"id": "x", "command": "x", "envs": {}}),
        &json!({"cd": "/w"}),
        "",
    )
    .unwrap();
    assert_eq!(cfg.warnings.len(), 1, "{:?}", cfg.warnings);
}

#[test]
fn a_registry_entry_runs_its_npx_package_and_a_built_in_id_keeps_its_agent() {
    let entry = json!({"id": "gemini", "name": "Gemini CLI", "version": "0.61.0", "description": "d",
        "distribution": {"npx": {"package": "@google/gemini-cli@0.61.0", "args": ["--acp"]}}});
    let cfg = SessionConfig::read_agent(&entry, &json!({"cd": "/w"}), "").unwrap();
    assert_eq!(cfg.command, "npx");
    assert_eq!(cfg.args, ["-y", "@google/gemini-cli@0.61.0", "--acp"]);
    assert_eq!(cfg.agent.agent_type, "gemini");
    assert!(crate::agents::find("gemini").is_none());
    // The same agent under its built-in type: the definition's launch, the agent's model flag.
    let def = json!({"id": "google-gemini", "command": "npx", "args": ["-y", "@google/gemini-cli@0.61.0", "--acp"]});
    let cfg = SessionConfig::read_agent(&def, &json!({"cd": "/w", "model": "m1"}), "").unwrap();
    assert_eq!(
        cfg.args,
        ["-y", "@google/gemini-cli@0.61.0", "--acp", "-m", "m1"]
    );
    assert_eq!(cfg.agent.name, "Gemini CLI");
    assert!(cfg.launch.missing_file_is_empty);
}

/// Retry lines on stderr over ACP (Gemini CLI's, as it prints them over the
/// CLI) past `maxRetries`: the turn is cancelled and ends `upstream_error`.
#[test]
fn own_retries_past_max_retries_end_the_turn() {
    let mut e = engine("google-gemini", json!({}));
    open(&mut e, json!({}), 0);
    let limits = super::turn::TurnLimits {
        max_retries: 1,
        ..LIMITS
    };
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), limits, 100);
    drain(&mut e);
    let line = |n: u32| {
        format!("Attempt {n} failed with status 500. Retrying with backoff... ApiError: {{\"error\":{{\"code\":500}}}}\n")
    };
    e.stderr(line(1).as_bytes(), 200);
    assert!(
        written(&drain(&mut e)).is_empty(),
        "one retry is within maxRetries 1"
    );
    e.stderr(line(2).as_bytes(), 5_200);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/cancel");
    e.timeout(5_200 + CANCEL_GRACE_MS);
    let gave_up = drain(&mut e);
    // The prompt given up: `$/cancel_request` for it, then the kill.
    assert_eq!(written(&gave_up)[0]["method"], "$/cancel_request");
    assert_eq!(gave_up.last(), Some(&Action::Kill));
    e.exited(None, Some("SIGKILL"), 5_300 + CANCEL_GRACE_MS);
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(AgentErrorKind::UpstreamError));
}

/// Codex's adapter says each retry in a session update (`Reconnecting...
/// 1/5`, with the status or wording of what failed): counted from stdout.
#[test]
fn codex_reconnects_over_acp_are_counted() {
    let mut e = engine("openai-codex", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 100);
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/prompt");
    let update = json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {
        "sessionUpdate": "session_info_update", "_meta": {"codex": {"error": {"message": "Reconnecting... 1/5",
        "additionalDetails": "unexpected status 503 Service Unavailable: busy", "willRetry": true}}}}}});
    say(&mut e, update, 200);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/cancel");
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "cancelled"}}),
        300,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(AgentErrorKind::UpstreamError));
    let message = &result.error.as_ref().unwrap().message;
    assert!(message.contains("HTTP 503"), "{message}");
}

/// opencode over ACP ends a 5xx it gave up retrying with a JSON-RPC error
/// naming no status, only the API's message: its wording says upstream.
#[test]
fn opencode_server_error_wording_is_upstream() {
    let mut e = engine("opencode", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), LIMITS, 100);
    let sent = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "error": {"code": -32603,
            "message": "Internal error: Mock server error: the model is unavailable.",
            "data": {"service": "session", "errorName": "APIError"}}}),
        200,
    );
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(
        result.kind(),
        Some(AgentErrorKind::UpstreamError),
        "{result:?}"
    );
}

#[test]
fn the_agents_driven_over_acp_only_are_started_with_their_endpoint_file() {
    let endpoint = json!({"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "k1", "model": "m1"});
    let options = json!({"cd": "/w", "endpoint": endpoint, "runFolder": "/r"});
    let cline = SessionConfig::read("cline", &options, "").unwrap();
    assert_eq!(
        (cline.command.as_str(), cline.args.clone()),
        ("cline", vec!["--acp".to_owned()])
    );
    // No hub daemon outliving the run, unless the caller says otherwise.
    assert!(cline
        .default_env
        .contains(&("CLINE_SESSION_BACKEND_MODE".to_owned(), "local".to_owned())));
    let env = |cfg: &SessionConfig, name: &str| {
        cfg.env
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        env(&cline, "CLINE_PROVIDER_SETTINGS_PATH").as_deref(),
        Some("/r/providers.json")
    );
    assert_eq!(
        env(&cline, "CLINE_PROVIDER").as_deref(),
        Some("openai-compatible")
    );
    assert_eq!(env(&cline, "CLINE_API_KEY").as_deref(), Some("k1"));
    assert_eq!(env(&cline, "CLINE_MODEL").as_deref(), Some("m1"));
    let files = cline.options.endpoint_files();
    assert_eq!(files.len(), 1);
    let written: Value = serde_json::from_str(&files[0].content).unwrap();
    let provider = &written["providers"]["openai-compatible"];
    assert_eq!(provider["settings"]["baseUrl"], "http://127.0.0.1:9/v1");
    assert_eq!(provider["settings"]["model"], "m1");
    assert!(provider["updatedAt"].is_string(), "Cline hangs without it");

    let droid = SessionConfig::read("factory-droid", &options, "").unwrap();
    assert_eq!(droid.command, "droid");
    assert_eq!(droid.args, ["exec", "--output-format", "acp"]);
    assert_eq!(
        env(&droid, "FACTORY_RUNTIME_SETTINGS_PATH").as_deref(),
        Some("/r/droid-settings.json")
    );
    let written: Value = serde_json::from_str(&droid.options.endpoint_files()[0].content).unwrap();
    assert_eq!(
        written["customModels"][0]["baseUrl"],
        "http://127.0.0.1:9/v1"
    );
    assert_eq!(written["customModels"][0]["apiKey"], "k1");
    assert_eq!(
        written["sessionDefaultSettings"]["model"],
        "custom:AgentContextEndpoint-0"
    );

    // Over the CLI: INVALID_INPUT naming the agent.
    let e = crate::engine::cli::CliSessionConfig::read("factory-droid", &json!({"cd": "/w"}), "")
        .unwrap_err();
    assert!(e.message().starts_with(
        "agentType 'factory-droid': Factory Droid is driven over the Agent Client Protocol only"
    ));
    // The model is the endpoint's: options.model alone cannot reach it.
    let e = SessionConfig::read("cline", &json!({"cd": "/w", "model": "x"}), "").unwrap_err();
    assert!(
        e.message()
            .contains("options.model cannot be set for Cline"),
        "{}",
        e.message()
    );
}

/// Qwen Code over ACP: the run's folder holds the settings file that bounds
/// its SDK's retries and turns on its telemetry, into a file beside it that
/// the host reads while the process runs; each record of a retry of its
/// outer loop counts, and past maxRetries the turn ends `upstream_error`.
#[test]
fn qwen_retries_told_in_its_telemetry_file_end_the_turn() {
    let cfg = SessionConfig::read(
        "qwen-code",
        &json!({"cd": "/w", "runFolder": "/tmp/run-1", "maxRetries": 1}),
        "",
    )
    .unwrap();
    assert_eq!(
        cfg.default_env,
        [
            ("QWEN_CODE_NO_RELAUNCH".to_owned(), "true".to_owned()),
            (
                "QWEN_CODE_SYSTEM_SETTINGS_PATH".to_owned(),
                "/tmp/run-1/settings.json".to_owned()
            )
        ]
    );
    let files = cfg.files();
    assert_eq!(files.len(), 1);
    let settings: Value = serde_json::from_str(&files[0].content).unwrap();
    assert_eq!(settings["model"]["generationConfig"]["maxRetries"], 1);
    assert_eq!(settings["telemetry"]["enabled"], true);
    assert_eq!(
        settings["telemetry"]["outfile"],
        "/tmp/run-1/telemetry.json"
    );
    // Without a run folder, nothing is written and nothing is read.
    let bare = SessionConfig::read("qwen-code", &json!({"cd": "/w"}), "").unwrap();
    assert!(bare.files().is_empty() && bare.retry_log.is_none());
    assert_eq!(
        bare.default_env,
        [("QWEN_CODE_NO_RELAUNCH".to_owned(), "true".to_owned())],
        "its start variable alone"
    );

    let mut e = Engine::new(cfg, false);
    e.open(0);
    match &drain(&mut e)[0] {
        Action::Spawn { retry_log, .. } => {
            assert_eq!(
                retry_log.as_ref().map(|w| w.path.as_str()),
                Some("/tmp/run-1/telemetry.json")
            );
        }
        other => panic!("{other:?}"),
    }
    e.spawned(0);
    let init = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1, "agentCapabilities": {}}}),
        0,
    );
    let new = written(&drain(&mut e));
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": new[0]["id"], "result": {"sessionId": "s1"}}),
        0,
    );
    drain(&mut e);
    let limits = super::turn::TurnLimits {
        max_retries: 1,
        ..LIMITS
    };
    let op = e.prompt(json!([{"type": "text", "text": "x"}]), limits, 100);
    drain(&mut e);
    let record = |n: u32| {
        format!("{{\n  \"_body\": \"API retry attempt {n} for gpt-mock (status 500).\",\n  \"_isReadonly\": true\n}}\n")
    };
    e.retry_log(record(1).as_bytes(), 1_500);
    assert!(
        written(&drain(&mut e)).is_empty(),
        "one retry is within maxRetries 1"
    );
    e.retry_log(record(2).as_bytes(), 4_500);
    assert_eq!(written(&drain(&mut e))[0]["method"], "session/cancel");
    e.timeout(4_500 + CANCEL_GRACE_MS);
    let gave_up = drain(&mut e);
    // The prompt given up: `$/cancel_request` for it, then the kill.
    assert_eq!(written(&gave_up)[0]["method"], "$/cancel_request");
    assert_eq!(gave_up.last(), Some(&Action::Kill));
    e.exited(None, Some("SIGKILL"), 4_600 + CANCEL_GRACE_MS);
    let result = turn_of(&drain(&mut e), op).unwrap();
    assert_eq!(result.kind(), Some(AgentErrorKind::UpstreamError));
}

#[test]
fn a_variable_the_agent_and_its_adapter_read_two_ways_is_agreed_at_launch() {
    let spawn_env = |value: &str| {
        let mut e = engine("claude-code", json!({}));
        e.launch(
            Resolved {
                platform: crate::launch::platform::Platform::Linux,
                found: "claude-agent-acp".into(),
                file: "claude-agent-acp".into(),
                prefix: Vec::new(),
                env: vec![
                    ("PATH".into(), "/bin".into()),
                    ("IS_SANDBOX".into(), value.into()),
                ],
            },
            0,
        );
        e.open(0);
        drain(&mut e)
            .into_iter()
            .find_map(|a| match a {
                Action::Spawn { env, .. } => Some(env),
                _ => None,
            })
            .unwrap()
    };
    let sandbox = |env: Vec<(String, String)>| {
        env.into_iter()
            .find(|(k, _)| k == "IS_SANDBOX")
            .map(|(_, v)| v)
    };
    // The adapter takes any value as a sandbox, Claude Code as root only
    // `1`: the run says what the caller's value means in the value both read.
    assert_eq!(sandbox(spawn_env("yes")).as_deref(), Some("1"));
    assert_eq!(sandbox(spawn_env("false")).as_deref(), Some(""));
    assert_eq!(sandbox(spawn_env("1")), None);
    // An agent whose parts agree gets the caller's value as it is.
    let mut e = engine("google-gemini", json!({}));
    e.launch(
        Resolved {
            platform: crate::launch::platform::Platform::Linux,
            found: "gemini".into(),
            file: "gemini".into(),
            prefix: Vec::new(),
            env: vec![("IS_SANDBOX".into(), "yes".into())],
        },
        0,
    );
    e.open(0);
    let env = drain(&mut e)
        .into_iter()
        .find_map(|a| match a {
            Action::Spawn { env, .. } => Some(env),
            _ => None,
        })
        .unwrap();
    assert!(env.iter().all(|(k, _)| k != "IS_SANDBOX"), "{env:?}");
}
