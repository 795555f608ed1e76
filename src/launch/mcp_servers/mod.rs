//! The MCP servers a run or a session hands to the agent (`mcpServers`):
//! read once, every problem naming its field, then written in the shape
//! each protocol takes — ACP's `McpServer` objects for `session/new|load|
//! resume` ([`McpServer::acp`]), or each CLI's own per-run mechanism
//! ([`cli`]), never the user's configuration files.
//!
//! ```
//! use agent_context::launch::mcp_servers::read_mcp_servers;
//! use serde_json::json;
//!
//! let servers = read_mcp_servers(&json!([
//!     {"name": "notes", "command": "node", "args": ["notes.js"], "env": {"LEVEL": "1"}},
//!     {"name": "web", "type": "http", "url": "http://127.0.0.1:9/mcp"}
//! ])).unwrap();
//! assert_eq!(servers[0].transport, "stdio");
//! assert_eq!(servers[0].acp(), json!({"name": "notes", "command": "node", "args": ["notes.js"], "env": [{"name": "LEVEL", "value": "1"}]}));
//! assert_eq!(servers[1].acp(), json!({"type": "http", "name": "web", "url": "http://127.0.0.1:9/mcp", "headers": []}));
//! ```

pub mod cli;

use serde_json::{json, Map, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};

/// One MCP server given for a run or a session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct McpServer {
    pub name: String,
    /// `stdio`, `http` or `sse`.
    pub transport: &'static str,
    /// The command and its arguments (stdio).
    pub command: String,
    pub args: Vec<String>,
    /// The server's environment (stdio), or the request headers (http, sse),
    /// in the caller's order.
    pub pairs: Vec<(String, String)>,
    /// The server's address (http, sse).
    pub url: String,
}

impl McpServer {
    /// ACP's `McpServer` object (`env` and `headers` as `[{ name, value }]`).
    pub fn acp(&self) -> Value {
        let pairs: Vec<Value> = self
            .pairs
            .iter()
            .map(|(k, v)| json!({"name": k, "value": v}))
            .collect();
        if self.transport == "stdio" {
            json!({"name": self.name, "command": self.command, "args": self.args, "env": pairs})
        } else {
            json!({"type": self.transport, "name": self.name, "url": self.url, "headers": pairs})
        }
    }

    /// `env` or `headers` as a JSON object.
    pub fn pairs_object(&self) -> Value {
        Value::Object(
            self.pairs
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())))
                .collect(),
        )
    }
}

/// `mcpServers`: stdio `{ name, command, args?, env? }`, http and sse
/// `{ name, type, url, headers? }`; `null` or absent is none.
pub fn read_mcp_servers(value: &Value) -> Result<Vec<McpServer>> {
    let list = match value {
        Value::Null => return Ok(Vec::new()),
        Value::Array(list) => list,
        other => {
            return Err(AgentContextError::invalid(format!(
                "options.mcpServers must be an array, got {}",
                type_name(other)
            )))
        }
    };
    let mut out: Vec<McpServer> = Vec::new();
    for (i, item) in list.iter().enumerate() {
        let field = format!("options.mcpServers[{i}]");
        let o = Obj::new(item, &field)?;
        let name = o.req_str("name")?.to_owned();
        if name.is_empty() {
            return Err(AgentContextError::invalid(format!(
                "{field}.name must not be empty"
            )));
        }
        if out.iter().any(|s| s.name == name) {
            return Err(AgentContextError::invalid(format!(
                "{field}.name \"{name}\" is given twice"
            )));
        }
        let transport = match o.opt_str("type")? {
            None | Some("stdio") => "stdio",
            Some("http") => "http",
            Some("sse") => "sse",
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "{field}.type must be 'stdio', 'http' or 'sse', got \"{other}\""
                )))
            }
        };
        let server = if transport == "stdio" {
            McpServer {
                name,
                transport,
                command: o.req_str("command")?.to_owned(),
                args: string_list(item.get("args"), &format!("{field}.args"))?,
                pairs: pairs(item.get("env"), &format!("{field}.env"))?,
                url: String::new(),
            }
        } else {
            McpServer {
                name,
                transport,
                command: String::new(),
                args: Vec::new(),
                pairs: pairs(item.get("headers"), &format!("{field}.headers"))?,
                url: o.req_str("url")?.to_owned(),
            }
        };
        out.push(server);
    }
    Ok(out)
}

fn string_list(value: Option<&Value>, field: &str) -> Result<Vec<String>> {
    match value {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| match v {
                Value::String(s) => Ok(s.clone()),
                other => Err(AgentContextError::invalid(format!(
                    "{field}[{i}] must be a string, got {}",
                    type_name(other)
                ))),
            })
            .collect(),
        Some(other) => Err(AgentContextError::invalid(format!(
            "{field} must be an array of strings, got {}",
            type_name(other)
        ))),
    }
}

/// An object of strings, as pairs in its order.
fn pairs(value: Option<&Value>, field: &str) -> Result<Vec<(String, String)>> {
    let map: &Map<String, Value> = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{field} must be an object of strings, got {}",
                type_name(other)
            )))
        }
    };
    map.iter()
        .map(|(k, v)| match v {
            Value::String(s) => Ok((k.clone(), s.clone())),
            other => Err(AgentContextError::invalid(format!(
                "{field}.{k} must be a string, got {}",
                type_name(other)
            ))),
        })
        .collect()
}
