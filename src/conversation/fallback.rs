//! A conversation's `fallback`: the agents it goes on with when its own
//! fails. A turn (or the opening of its first session) that ends
//! `quota_exceeded`, `auth_error`, `command_not_found` or `upstream_error`
//! — the run's retries spent — goes on with the next agent of the list;
//! bad input (`invalid_params`) never does. Each entry runs with the
//! conversation's options less the agent's own (`command`, `model`,
//! `endpoint`, `protocol`), then the entry's own options.

use serde_json::{json, Map, Value};

use crate::error::{AgentContextError, Result};
use crate::error_kind::AgentErrorKind;
use crate::formats::json_read::type_name;

/// One agent of a `fallback`, and its session options.
#[derive(Clone, Debug, PartialEq)]
pub struct Fallback {
    /// An agent type or an agent definition.
    pub agent: Value,
    pub options: Value,
}

impl Fallback {
    /// The agent's type as a record names it: the type, or a definition's id.
    pub fn agent_type(&self) -> &str {
        agent_type_of(&self.agent)
    }
}

/// An agent (a type, or a definition or registry entry) as a record names it.
pub fn agent_type_of(agent: &Value) -> &str {
    match agent {
        Value::String(s) => s,
        Value::Object(o) => o
            .get("id")
            .or_else(|| o.get("name"))
            .and_then(Value::as_str)
            .unwrap_or("agent"),
        _ => "agent",
    }
}

/// Whether a turn that ended with error kind `kind` goes on with the next
/// agent.
pub fn hands_off(kind: &str) -> bool {
    AgentErrorKind::from_name(kind).is_some_and(AgentErrorKind::hands_off)
}

/// The options of the conversation that belong to its agent, not to the
/// app: another agent never takes them.
pub const AGENT_OWN: [&str; 6] = [
    "command",
    "model",
    "endpoint",
    "protocol",
    "sessionId",
    "extraArgs",
];

/// What never reaches an agent's session from the conversation's options.
const CONVERSATION_OWN: [&str; 3] = ["fallback", "rebuild", "store"];

/// The options a session of the conversation's own agent takes.
pub fn own_options(base: &Value) -> Value {
    without(base, &CONVERSATION_OWN)
}

/// The options an agent other than the conversation's own takes: the
/// conversation's less the agent's own, then `entry`'s.
pub fn options_for(base: &Value, entry: &Value) -> Value {
    let mut out = without(base, &AGENT_OWN);
    let out_map = out.as_object_mut().expect("without gives an object");
    for key in CONVERSATION_OWN {
        out_map.remove(key);
    }
    if let Value::Object(own) = entry {
        for (k, v) in own {
            out_map.insert(k.clone(), v.clone());
        }
    }
    out
}

fn without(base: &Value, keys: &[&str]) -> Value {
    let mut map = match base {
        Value::Object(o) => o.clone(),
        _ => Map::new(),
    };
    for key in keys {
        map.remove(*key);
    }
    Value::Object(map)
}

/// `own.fallback` (at `path.fallback`): agent types, agent definitions, or
/// `{ agent, options }`.
pub fn read(own: &Value, path: &str) -> Result<Vec<Fallback>> {
    let list = match own.get("fallback") {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{path}.fallback must be an array of agents (or {{ agent, options }}), got {}",
                type_name(other)
            )))
        }
    };
    let mut out = Vec::new();
    for (i, entry) in list.iter().enumerate() {
        let at = format!("{path}.fallback[{i}]");
        let (agent, options) = match entry {
            Value::String(s) if !s.is_empty() => (entry.clone(), json!({})),
            Value::Object(o) if o.contains_key("agent") => {
                let options = match o.get("options") {
                    None | Some(Value::Null) => json!({}),
                    Some(v @ Value::Object(_)) => v.clone(),
                    Some(other) => {
                        return Err(AgentContextError::invalid(format!(
                            "{at}.options must be an object, got {}",
                            type_name(other)
                        )))
                    }
                };
                match &o["agent"] {
                    a @ (Value::String(_) | Value::Object(_)) => (a.clone(), options),
                    other => {
                        return Err(AgentContextError::invalid(format!(
                            "{at}.agent must be an agent type or an AgentDefinition, got {}",
                            type_name(other)
                        )))
                    }
                }
            }
            Value::Object(_) => (entry.clone(), json!({})),
            other => {
                return Err(AgentContextError::invalid(format!(
                "{at} must be an agent type, an AgentDefinition or {{ agent, options }}, got {}",
                type_name(other)
            )))
            }
        };
        out.push(Fallback { agent, options });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_are_types_definitions_or_agent_and_options() {
        let own = json!({ "fallback": ["openai-codex", { "id": "x", "command": "x" }, { "agent": "qwen-code", "options": { "model": "m" } }] });
        let list = read(&own, "options").unwrap();
        assert_eq!(
            list.iter().map(Fallback::agent_type).collect::<Vec<_>>(),
            ["openai-codex", "x", "qwen-code"]
        );
        assert_eq!(list[2].options, json!({ "model": "m" }));
        let err = read(&json!({ "fallback": "openai-codex" }), "options").unwrap_err();
        assert!(err
            .message()
            .starts_with("options.fallback must be an array"));
        let err = read(&json!({ "fallback": [3] }), "options").unwrap_err();
        assert!(err
            .message()
            .starts_with("options.fallback[0] must be an agent type"));
    }

    #[test]
    fn another_agent_never_takes_the_first_ones_command_model_or_endpoint() {
        let base = json!({ "cd": "/w", "command": "/nonexistent/claude-agent-acp", "model": "opus",
            "endpoint": { "baseUrl": "http://127.0.0.1:1" }, "env": { "A": "1" }, "fallback": ["openai-codex"] });
        let out = options_for(&base, &json!({ "model": "gpt-5" }));
        assert_eq!(
            out,
            json!({ "cd": "/w", "env": { "A": "1" }, "model": "gpt-5" })
        );
        assert_eq!(
            own_options(&base)["command"],
            "/nonexistent/claude-agent-acp"
        );
        assert!(own_options(&base).get("fallback").is_none());
        assert!(hands_off("quota_exceeded") && !hands_off("invalid_params") && !hands_off("nope"));
    }
}
