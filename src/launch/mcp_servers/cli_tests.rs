use serde_json::{json, Value};

use super::*;
use crate::agents;
use crate::launch::mcp_servers::read_mcp_servers;

fn servers(v: Value) -> Vec<McpServer> {
    read_mcp_servers(&v).unwrap()
}

fn notes() -> Vec<McpServer> {
    servers(
        json!([{"name": "notes", "command": "node", "args": ["/s/notes.cjs", "a b"], "env": {"REC": "/r.jsonl"}}]),
    )
}

fn web(transport: &str) -> Vec<McpServer> {
    servers(
        json!([{"name": "web", "type": transport, "url": "http://127.0.0.1:9/mcp", "headers": {"X-Token": "t"}}]),
    )
}

fn agent(agent_type: &str) -> &'static AgentSpec {
    agents::find(agent_type).unwrap()
}

fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
    list.iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect()
}

/// The JSON after `flag=` in `args[0]`.
fn flag_json(args: &[String], flag: &str) -> Value {
    let text = args[0].strip_prefix(&format!("{flag}=")).unwrap();
    serde_json::from_str(text).unwrap()
}

#[test]
fn claude_code_takes_a_json_flag_only_its_servers_and_no_tool_search() {
    let claude = agent("claude-code");
    let args = cli_args(claude, &notes(), false).unwrap();
    assert_eq!(args[1], "--strict-mcp-config");
    assert_eq!(
        flag_json(&args, "--mcp-config"),
        json!({"mcpServers": {"notes": {"type": "stdio", "command": "node", "args": ["/s/notes.cjs", "a b"], "env": {"REC": "/r.jsonl"}}}})
    );
    let http = cli_args(claude, &web("sse"), false).unwrap();
    assert_eq!(
        flag_json(&http, "--mcp-config")["mcpServers"]["web"],
        json!({"type": "sse", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Token": "t"}})
    );
    let env = cli_env(claude, &notes(), &[]).unwrap();
    assert_eq!(env, pairs(&[("ENABLE_TOOL_SEARCH", "false")]));
    // The caller's own value wins; no servers, nothing at all.
    let theirs = pairs(&[("ENABLE_TOOL_SEARCH", "true")]);
    assert_eq!(cli_env(claude, &notes(), &theirs).unwrap(), []);
    assert_eq!(cli_args(claude, &[], false).unwrap(), Vec::<String>::new());
    assert_eq!(cli_env(claude, &[], &[]).unwrap(), []);
}

#[test]
fn copilot_and_qwen_take_their_own_json_shapes() {
    let copilot = cli_args(agent("github-copilot"), &notes(), false).unwrap();
    assert_eq!(copilot.len(), 1);
    assert_eq!(
        flag_json(&copilot, "--additional-mcp-config")["mcpServers"]["notes"],
        json!({"type": "local", "command": "node", "args": ["/s/notes.cjs", "a b"], "env": {"REC": "/r.jsonl"}, "tools": ["*"]})
    );
    let qwen = agent("qwen-code");
    assert_eq!(
        flag_json(&cli_args(qwen, &notes(), false).unwrap(), "--mcp-config")["mcpServers"]["notes"],
        json!({"command": "node", "args": ["/s/notes.cjs", "a b"], "env": {"REC": "/r.jsonl"}, "alwaysLoadTools": true})
    );
    assert_eq!(
        flag_json(
            &cli_args(qwen, &web("http"), false).unwrap(),
            "--mcp-config"
        )["mcpServers"]["web"],
        json!({"httpUrl": "http://127.0.0.1:9/mcp", "headers": {"X-Token": "t"}, "alwaysLoadTools": true, "discoveryTimeoutMs": 30_000})
    );
    assert_eq!(
        flag_json(&cli_args(qwen, &web("sse"), false).unwrap(), "--mcp-config")["mcpServers"]
            ["web"],
        json!({"url": "http://127.0.0.1:9/mcp", "headers": {"X-Token": "t"}, "alwaysLoadTools": true, "discoveryTimeoutMs": 30_000})
    );
}

#[test]
fn codex_takes_one_override_per_server_and_no_sse() {
    let codex = agent("openai-codex");
    assert_eq!(
        cli_args(codex, &notes(), false).unwrap(),
        [
            "-c",
            r#"mcp_servers.notes={command="node",args=["/s/notes.cjs","a b"],env={"REC"="/r.jsonl"}}"#
        ]
    );
    assert_eq!(
        cli_args(codex, &web("http"), true).unwrap()[1],
        r#"mcp_servers.web={url="http://127.0.0.1:9/mcp",http_headers={"X-Token"="t"},default_tools_approval_mode="approve"}"#
    );
    let sse = cli_args(codex, &web("sse"), false).unwrap_err();
    assert_eq!(sse.code(), crate::error::ErrorCode::InvalidInput);
    assert!(
        sse.message()
            .contains("options.mcpServers[0]: Codex does not take MCP servers over sse"),
        "{}",
        sse.message()
    );
    let dotted = servers(json!([{"name": "a.b", "command": "x"}]));
    assert!(cli_args(codex, &dotted, false)
        .unwrap_err()
        .message()
        .starts_with("options.mcpServers[0].name must hold only letters"));
}

#[test]
fn opencode_gets_them_in_its_configuration_variable_merged_with_the_callers() {
    let opencode = agent("opencode");
    assert_eq!(
        cli_args(opencode, &notes(), false).unwrap(),
        Vec::<String>::new()
    );
    let theirs =
        json!({"model": "mock/m", "mcp": {"old": {"type": "local", "command": ["o"]}}}).to_string();
    let out = cli_env(
        opencode,
        &notes(),
        &pairs(&[("OPENCODE_CONFIG_CONTENT", &theirs)]),
    )
    .unwrap();
    assert_eq!(out.len(), 1);
    assert_eq!(out[0].0, "OPENCODE_CONFIG_CONTENT");
    let config: Value = serde_json::from_str(&out[0].1).unwrap();
    assert_eq!(config["model"], "mock/m");
    assert_eq!(config["mcp"]["old"]["command"], json!(["o"]));
    assert_eq!(
        config["mcp"]["notes"],
        json!({"type": "local", "command": ["node", "/s/notes.cjs", "a b"], "environment": {"REC": "/r.jsonl"}, "enabled": true})
    );
    let remote = cli_env(opencode, &web("http"), &[]).unwrap();
    let config: Value = serde_json::from_str(&remote[0].1).unwrap();
    assert_eq!(
        config,
        json!({"mcp": {"web": {"type": "remote", "url": "http://127.0.0.1:9/mcp", "headers": {"X-Token": "t"}, "enabled": true}}})
    );
    let bad = cli_env(
        opencode,
        &notes(),
        &pairs(&[("OPENCODE_CONFIG_CONTENT", "[1]")]),
    )
    .unwrap_err();
    assert!(bad
        .message()
        .starts_with("options.env.OPENCODE_CONFIG_CONTENT must hold a JSON object"));
}

#[test]
fn gemini_cli_takes_them_in_its_run_homes_settings() {
    let gemini = agent("google-gemini");
    // Nothing on the command line or in the environment.
    assert_eq!(
        cli_args(gemini, &notes(), true).unwrap(),
        Vec::<String>::new()
    );
    assert_eq!(cli_env(gemini, &web("http"), &[]).unwrap(), Vec::new());
    let stdio = cli_settings(gemini, &notes(), true).unwrap().unwrap();
    let server = stdio["mcpServers"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert_eq!(server["trust"], json!(true), "{stdio}");
    assert!(server.get("command").is_some(), "{stdio}");
    let http = cli_settings(gemini, &web("http"), false).unwrap().unwrap();
    let server = http["mcpServers"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert!(
        server.get("httpUrl").is_some() && server.get("trust").is_none(),
        "{http}"
    );
    let sse = cli_settings(gemini, &web("sse"), false).unwrap().unwrap();
    let server = sse["mcpServers"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    assert!(
        server.get("url").is_some() && server.get("httpUrl").is_none(),
        "{sse}"
    );
    assert_eq!(cli_settings(gemini, &[], true).unwrap(), None);
    // The other agents take them elsewhere.
    assert_eq!(
        cli_settings(agent("claude-code"), &notes(), true).unwrap(),
        None
    );
}

#[test]
fn the_flags_sit_after_the_approval_flags_and_count_in_the_command_line() {
    use crate::launch::invocation::{build_cli_invocation, InvocationOptions};
    use crate::prompt::output::AssemblerOutput;
    let output = AssemblerOutput {
        prompt: "Hi".into(),
        system_flag: None,
    };
    let options = InvocationOptions {
        session_id: Some("s1".into()),
        mcp_servers: notes(),
        ..Default::default()
    };
    let codex = build_cli_invocation("openai-codex", &output, &options).unwrap();
    assert_eq!(
        &codex.args[3..5],
        [
            "-c",
            r#"mcp_servers.notes={command="node",args=["/s/notes.cjs","a b"],env={"REC"="/r.jsonl"}}"#
        ]
    );
    assert_eq!(&codex.args[5..], ["resume", "s1", "-"]);
    let long = servers(json!([{"name": "big", "command": "x", "args": ["y".repeat(200_000)]}]));
    let over = build_cli_invocation(
        "claude-code",
        &output,
        &InvocationOptions {
            mcp_servers: long,
            ..Default::default()
        },
    )
    .unwrap_err();
    assert!(
        over.message().starts_with("the command line does not fit"),
        "{}",
        over.message()
    );
}
