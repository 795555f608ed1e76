//! The run's MCP servers on an agent's command line, as its file in
//! `src/agents/` says ([`CliMcp`]): a flag holding JSON (Claude Code,
//! Copilot, Qwen Code), configuration overrides (Codex) or the JSON
//! configuration carried by an environment variable (opencode), or the
//! settings in the run's home (Gemini CLI, `crate::launch::run_home`). A transport
//! the CLI cannot take is `INVALID_INPUT` naming the agent, the transport
//! and the server.

use serde_json::{json, Map, Value};

use super::McpServer;
use crate::agents::{AgentSpec, CliMcp, McpShape};
use crate::error::{AgentContextError, Result};

/// The arguments that hand `servers` to `agent`'s CLI (none for the agents
/// that take them from the environment or a file); every server's
/// transport is checked for every agent.
///
/// `approve`: the run lets the agent act without asking (`yolo`, or the
/// `danger-full-access` sandbox): where the CLI asks before every MCP tool
/// call whatever its other flags say (Codex), the servers' tools are then
/// approved in their own configuration.
pub fn cli_args(agent: &AgentSpec, servers: &[McpServer], approve: bool) -> Result<Vec<String>> {
    if servers.is_empty() {
        return Ok(Vec::new());
    }
    check_transports(agent, servers)?;
    Ok(match cli_mcp(agent)? {
        CliMcp::JsonFlag {
            flag, shape, then, ..
        } => {
            let config = json!({ "mcpServers": shaped(shape, servers) });
            let mut args = vec![format!("{flag}={config}")];
            args.extend(then.iter().map(|a| (*a).to_owned()));
            args
        }
        CliMcp::CodexOverrides => servers
            .iter()
            .flat_map(|s| ["-c".to_owned(), codex_override(s, approve)])
            .collect(),
        CliMcp::EnvJson { .. } | CliMcp::HomeSettings { .. } | CliMcp::Unsupported(_) => Vec::new(),
    })
}

/// The settings that hand `servers` to `agent`'s CLI in the run's home
/// (`{ key: { name: server } }`), for the agents that take them there;
/// `approve` as for [`cli_args`] (the servers are then trusted: their tool
/// calls are not asked about).
pub fn cli_settings(
    agent: &AgentSpec,
    servers: &[McpServer],
    approve: bool,
) -> Result<Option<Value>> {
    if servers.is_empty() {
        return Ok(None);
    }
    check_transports(agent, servers)?;
    let CliMcp::HomeSettings { key, shape } = cli_mcp(agent)? else {
        return Ok(None);
    };
    let mut shaped = shaped(shape, servers);
    if approve {
        if let Value::Object(map) = &mut shaped {
            for server in map.values_mut() {
                server["trust"] = json!(true);
            }
        }
    }
    Ok(Some(json!({ key: shaped })))
}

/// The variables that hand `servers` to `agent`'s CLI, set in the child's
/// environment (replacing the caller's value of the same name, which they
/// include where they merge it); `env` is the child's environment.
pub fn cli_env(
    agent: &AgentSpec,
    servers: &[McpServer],
    env: &[(String, String)],
) -> Result<Vec<(String, String)>> {
    if servers.is_empty() {
        return Ok(Vec::new());
    }
    check_transports(agent, servers)?;
    let caller = |name: &str| env.iter().rev().find(|(k, _)| k == name).map(|(_, v)| v);
    match cli_mcp(agent)? {
        CliMcp::JsonFlag { env: vars, .. } => Ok(vars
            .iter()
            .filter(|(k, _)| caller(k).is_none())
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()),
        CliMcp::CodexOverrides | CliMcp::HomeSettings { .. } | CliMcp::Unsupported(_) => {
            Ok(Vec::new())
        }
        CliMcp::EnvJson {
            env: var,
            key,
            shape,
        } => {
            let mut config = match caller(var) {
                None => Map::new(),
                Some(text) => match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(map)) => map,
                    _ => {
                        return Err(AgentContextError::invalid(format!(
                            "options.env.{var} must hold a JSON object for options.mcpServers to join it ({} reads its configuration from it)",
                            agent.name
                        )))
                    }
                },
            };
            let mut servers_in = match config.remove(key) {
                Some(Value::Object(map)) => map,
                _ => Map::new(),
            };
            if let Value::Object(ours) = shaped(shape, servers) {
                servers_in.extend(ours);
            }
            config.insert(key.to_owned(), Value::Object(servers_in));
            Ok(vec![(var.to_owned(), Value::Object(config).to_string())])
        }
    }
}

/// Whether the CLI takes a server over `transport`.
fn takes(mcp: CliMcp, transport: &str) -> bool {
    match mcp {
        // Codex's configuration has no SSE transport.
        CliMcp::CodexOverrides => transport != "sse",
        _ => true,
    }
}

/// How `agent`'s CLI takes MCP servers (`INVALID_INPUT` for an agent
/// whose command line the library does not drive).
fn cli_mcp(agent: &AgentSpec) -> Result<CliMcp> {
    Ok(agent.cli("options.mcpServers over the command line")?.mcp)
}

fn check_transports(agent: &AgentSpec, servers: &[McpServer]) -> Result<()> {
    let mcp = cli_mcp(agent)?;
    if let CliMcp::Unsupported(why) = mcp {
        return Err(AgentContextError::invalid(format!(
            "options.mcpServers cannot be handed to {} over its command line: {why}; run it with protocol 'acp'",
            agent.name
        )));
    }
    for (i, server) in servers.iter().enumerate() {
        if !takes(mcp, server.transport) {
            return Err(AgentContextError::invalid(format!(
                "options.mcpServers[{i}]: {} does not take MCP servers over {} on its command line (server \"{}\"); give it a stdio or http server",
                agent.name, server.transport, server.name
            )));
        }
        if mcp == CliMcp::CodexOverrides
            && !server
                .name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(AgentContextError::invalid(format!(
                "options.mcpServers[{i}].name must hold only letters, digits, '_' and '-' for {}, got \"{}\"",
                agent.name, server.name
            )));
        }
    }
    Ok(())
}

/// `servers` as the object `{ name: server }` in `shape`.
fn shaped(shape: McpShape, servers: &[McpServer]) -> Value {
    Value::Object(
        servers
            .iter()
            .map(|s| (s.name.clone(), one(shape, s)))
            .collect(),
    )
}

/// How long Qwen Code waits for a remote MCP server (HTTP, SSE) to connect
/// and list its tools: its own default for a stdio server (a remote one's
/// is 5 s).
const QWEN_REMOTE_DISCOVERY_MS: u64 = 30_000;

fn one(shape: McpShape, s: &McpServer) -> Value {
    let pairs = s.pairs_object();
    let stdio = s.transport == "stdio";
    match shape {
        McpShape::Claude if stdio => {
            json!({"type": "stdio", "command": s.command, "args": s.args, "env": pairs})
        }
        McpShape::Claude => json!({"type": s.transport, "url": s.url, "headers": pairs}),
        McpShape::Copilot if stdio => {
            json!({"type": "local", "command": s.command, "args": s.args, "env": pairs, "tools": ["*"]})
        }
        McpShape::Copilot => {
            json!({"type": s.transport, "url": s.url, "headers": pairs, "tools": ["*"]})
        }
        // `alwaysLoadTools`: declared to the model at once, not behind its
        // ToolSearch tool. A remote server gets as long to connect as a
        // stdio one (`discoveryTimeoutMs`): Qwen Code's 5 s otherwise drops
        // it on a loaded machine, the turn going on without its tools.
        McpShape::Qwen if stdio => {
            json!({"command": s.command, "args": s.args, "env": pairs, "alwaysLoadTools": true})
        }
        McpShape::Qwen if s.transport == "http" => {
            json!({"httpUrl": s.url, "headers": pairs, "alwaysLoadTools": true, "discoveryTimeoutMs": QWEN_REMOTE_DISCOVERY_MS})
        }
        McpShape::Qwen => {
            json!({"url": s.url, "headers": pairs, "alwaysLoadTools": true, "discoveryTimeoutMs": QWEN_REMOTE_DISCOVERY_MS})
        }
        McpShape::Gemini if stdio => json!({"command": s.command, "args": s.args, "env": pairs}),
        McpShape::Gemini if s.transport == "http" => json!({"httpUrl": s.url, "headers": pairs}),
        McpShape::Gemini => json!({"url": s.url, "headers": pairs}),
        McpShape::Opencode if stdio => {
            let mut command = vec![s.command.clone()];
            command.extend(s.args.iter().cloned());
            json!({"type": "local", "command": command, "environment": pairs, "enabled": true})
        }
        McpShape::Opencode => {
            json!({"type": "remote", "url": s.url, "headers": pairs, "enabled": true})
        }
    }
}

/// `mcp_servers.<name>={…}`: the server as a TOML inline table.
fn codex_override(s: &McpServer, approve: bool) -> String {
    let text = crate::formats::toml_text::toml_string;
    let table = |pairs: &[(String, String)]| {
        let items: Vec<String> = pairs
            .iter()
            .map(|(k, v)| format!("{}={}", text(k), text(v)))
            .collect();
        format!("{{{}}}", items.join(","))
    };
    let body = if s.transport == "stdio" {
        let args: Vec<String> = s.args.iter().map(|a| text(a)).collect();
        format!(
            "command={},args=[{}],env={}",
            text(&s.command),
            args.join(","),
            table(&s.pairs)
        )
    } else {
        format!("url={},http_headers={}", text(&s.url), table(&s.pairs))
    };
    // Codex 0.169 asks before every MCP tool call, and `exec` refuses what
    // needs asking ("approval policy is never").
    let approval = if approve {
        ",default_tools_approval_mode=\"approve\""
    } else {
        ""
    };
    format!("mcp_servers.{}={{{body}{approval}}}", s.name)
}

#[cfg(test)]
#[path = "cli_tests.rs"]
mod tests;
