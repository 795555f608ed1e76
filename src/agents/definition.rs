//! Any ACP agent: an agent given by the caller instead of an agent type —
//! an `AgentDefinition` (`{ id, name?, command, args?, env?, protocol:
//! 'acp' }`) or an entry of the ACP agent registry (`{ id, name, version,
//! description, distribution: { npx | uvx | binary } }`). Both are read
//! into the same [`AgentDefinition`]: the command to start, its arguments
//! and environment. The agent then runs over ACP with no knowledge of its
//! own — no quirks, the plain-text prompt layout — unless its `id` is a
//! built-in agent type, in which case it is that agent, started as the
//! definition says.
//!
//! A registry entry's `npx` distribution becomes `npx -y <package> args…`
//! (`npx -y --package <package> <cmd> args…` with a `cmd`), `uvx` becomes
//! `uvx <package> args…` (`uvx --from <package> <cmd> args…`); on Windows
//! the platform layer finds `npx.cmd` and runs the script it names. A
//! `binary` distribution is an archive to download and unpack, which the
//! library does not do: an entry with only that is `INVALID_INPUT`, and the
//! host passes a definition with the unpacked command instead.
//!
//! ```
//! use agent_context::agents::definition::{read_agent, Agent};
//! use serde_json::json;
//!
//! let entry = json!({"id": "gemini", "name": "Gemini CLI", "version": "0.37.0",
//!     "description": "Google's CLI", "distribution": {"npx": {"package": "@google/gemini-cli@0.37.1", "args": ["--acp"]}}});
//! let (agent, warnings) = read_agent(&entry).unwrap();
//! let Agent::Defined(def) = agent else { panic!() };
//! assert_eq!(def.command, "npx");
//! assert_eq!(def.args, ["-y", "@google/gemini-cli@0.37.1", "--acp"]);
//! assert!(warnings.is_empty());
//! ```

use std::sync::Mutex;

use serde::Serialize;
use serde_json::{Map, Value};

use super::spec::*;
use super::{find, known_list, AgentSpec};
use crate::error::{AgentContextError, Result};
use crate::formats::input_keys::unknown_key_warnings;
use crate::formats::json_read::type_name;

/// The field every message names: the agent is given where an agent type
/// string is.
const FIELD: &str = "agentType";

/// The keys of an `AgentDefinition`.
pub const DEFINITION_KEYS: &[&str] = &["id", "name", "command", "args", "env", "protocol"];

/// The keys of an ACP registry entry (the registry's `agent.json`).
pub const ENTRY_KEYS: &[&str] = &[
    "id",
    "name",
    "version",
    "description",
    "repository",
    "website",
    "authors",
    "license",
    "license_url",
    "icon",
    "distribution",
];

const DISTRIBUTION_KEYS: &[&str] = &["npx", "uvx", "binary"];
const PACKAGE_KEYS: &[&str] = &["package", "cmd", "args", "env"];

/// An agent started as the caller says.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentDefinition {
    pub id: String,
    /// For messages (`"Gemini CLI was not found: …"`); the id when not given.
    pub name: String,
    pub command: String,
    pub args: Vec<String>,
    /// Set in the agent's environment, over the caller's.
    #[serde(skip)]
    pub env: Vec<(String, String)>,
    /// What installs the command, named when it is not found (`Node.js
    /// (npx)`, or the command itself).
    #[serde(skip)]
    pub install: String,
}

/// An agent as a caller names it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agent {
    /// A built-in agent type (`'claude-code'`).
    Known(&'static AgentSpec),
    /// A definition or a registry entry.
    Defined(AgentDefinition),
}

/// Reads an agent given as an agent type string, an `AgentDefinition` or an
/// ACP registry entry, with the warnings for keys it does not know.
/// `purpose` ends the message for an unknown agent type (`to run over ACP`).
pub fn read_agent_for(value: &Value, purpose: &str) -> Result<(Agent, Vec<String>)> {
    match value {
        Value::String(agent_type) => Ok((Agent::Known(super::require(agent_type, purpose)?), Vec::new())),
        Value::Object(map) if map.contains_key("distribution") => read_entry(map),
        Value::Object(map) => read_definition(map),
        other => Err(AgentContextError::invalid(format!(
            "{FIELD} must be {} {purpose}, an agent definition ({{ id, name, command, args?, env?, protocol: 'acp' }}) or an ACP registry entry, got {}",
            known_list(),
            type_name(other)
        ))),
    }
}

/// [`read_agent_for`] for running.
pub fn read_agent(value: &Value) -> Result<(Agent, Vec<String>)> {
    read_agent_for(value, "to run over ACP")
}

/// [`read_agent`] for an agent served elsewhere (`options.transport`): an
/// agent type, or a definition naming it (`{ id, name? }`: its `id` a
/// built-in agent type makes it that agent). What says how to start it
/// here (a definition's `command`, `args` and `env`, a registry entry's
/// distribution) is refused, naming the field.
pub fn read_served_agent(value: &Value) -> Result<(Agent, Vec<String>)> {
    let map = match value {
        Value::Object(map) => map,
        _ => return read_agent(value),
    };
    if map.contains_key("distribution") {
        return Err(AgentContextError::invalid(format!(
            "{FIELD}.distribution cannot be used with options.transport: an ACP registry entry says how to start an agent here; name the served agent by its agent type or {{ id, name }}"
        )));
    }
    if let Some(key) = ["command", "args", "env"]
        .into_iter()
        .find(|k| map.get(*k).is_some_and(|v| !v.is_null()))
    {
        return Err(AgentContextError::invalid(format!(
            "{FIELD}.{key} cannot be used with options.transport: nothing is started here"
        )));
    }
    let warnings = warnings("the agent definition", map, DEFINITION_KEYS);
    let id = required(map, "id", FIELD)?;
    let name = optional(map, "name", FIELD)?.unwrap_or_else(|| id.clone());
    check_protocol(map)?;
    let def = AgentDefinition {
        install: id.clone(),
        id,
        name,
        command: String::new(),
        args: Vec::new(),
        env: Vec::new(),
    };
    Ok((Agent::Defined(def), warnings))
}

/// The id the results name for `value` (an agent type, or a definition's
/// `id`), whether or not the rest of it can be read.
pub fn agent_label(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        Value::Object(map) => map
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned(),
        _ => String::new(),
    }
}

fn read_definition(map: &Map<String, Value>) -> Result<(Agent, Vec<String>)> {
    let warnings = warnings("the agent definition", map, DEFINITION_KEYS);
    let id = required(map, "id", FIELD)?;
    let name = optional(map, "name", FIELD)?.unwrap_or_else(|| id.clone());
    let command = required(map, "command", FIELD)?;
    check_protocol(map)?;
    let args = strings(map, "args", FIELD)?;
    let env = env(map, "env", FIELD)?;
    let install = command.clone();
    let def = AgentDefinition {
        id,
        name,
        command,
        args,
        env,
        install,
    };
    Ok((Agent::Defined(def), warnings))
}

/// A definition's `protocol`: ACP, or not given.
fn check_protocol(map: &Map<String, Value>) -> Result<()> {
    match map.get("protocol") {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(p)) if p == "acp" => Ok(()),
        Some(other) => Err(AgentContextError::invalid(format!(
            "{FIELD}.protocol must be 'acp' (an agent definition speaks the Agent Client Protocol), got {}",
            shown(other)
        ))),
    }
}

fn read_entry(map: &Map<String, Value>) -> Result<(Agent, Vec<String>)> {
    let mut warnings = warnings("the ACP registry entry", map, ENTRY_KEYS);
    let id = required(map, "id", FIELD)?;
    let name = required(map, "name", FIELD)?;
    let path = format!("{FIELD}.distribution");
    let dist = match map.get("distribution") {
        Some(Value::Object(d)) => d,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{path} must be an object, got {}",
                type_name(other)
            )))
        }
        None => unreachable_distribution(&path)?,
    };
    warnings.extend(warnings_for(&path, dist, DISTRIBUTION_KEYS));
    let (runner, install, from) = if dist.contains_key("npx") {
        ("npx", "Node.js (npx)", ("-y", "--package"))
    } else if dist.contains_key("uvx") {
        ("uvx", "uv (uvx)", ("", "--from"))
    } else if dist.contains_key("binary") {
        return Err(AgentContextError::invalid(format!(
            "{path}.binary is an archive to download and unpack, which this library does not do; unpack it and pass an agent definition {{ id, name, command, args }} naming the unpacked command"
        )));
    } else {
        return Err(AgentContextError::invalid(format!(
            "{path} must have an npx or uvx distribution (or a binary one, unpacked by the host and passed as an agent definition)"
        )));
    };
    let pkg_path = format!("{path}.{runner}");
    let pkg = match dist.get(runner) {
        Some(Value::Object(p)) => p,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{pkg_path} must be an object, got {}",
                type_name(other)
            )))
        }
        None => unreachable_distribution(&pkg_path)?,
    };
    warnings.extend(warnings_for(&pkg_path, pkg, PACKAGE_KEYS));
    let package = required(pkg, "package", &pkg_path)?;
    let cmd = optional(pkg, "cmd", &pkg_path)?;
    let mut args: Vec<String> = Vec::new();
    if !from.0.is_empty() {
        args.push(from.0.to_owned());
    }
    match cmd {
        Some(cmd) => args.extend([from.1.to_owned(), package, cmd]),
        None => args.push(package),
    }
    args.extend(strings(pkg, "args", &pkg_path)?);
    let def = AgentDefinition {
        id,
        name,
        command: runner.to_owned(),
        args,
        env: env(pkg, "env", &pkg_path)?,
        install: install.to_owned(),
    };
    Ok((Agent::Defined(def), warnings))
}

fn unreachable_distribution<T>(path: &str) -> Result<T> {
    Err(AgentContextError::invalid(format!(
        "{path} must be an object, got undefined"
    )))
}

fn warnings(what: &str, map: &Map<String, Value>, known: &[&str]) -> Vec<String> {
    let keys: Vec<&String> = map.keys().collect();
    unknown_key_warnings(what, &keys, known)
}

fn warnings_for(path: &str, map: &Map<String, Value>, known: &[&str]) -> Vec<String> {
    warnings(path, map, known)
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{s}\""),
        other => type_name(other).to_owned(),
    }
}

fn required(map: &Map<String, Value>, key: &str, path: &str) -> Result<String> {
    match map.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        Some(Value::String(_)) => Err(AgentContextError::invalid(format!(
            "{path}.{key} must be a non-empty string, got \"\""
        ))),
        Some(other) => Err(AgentContextError::invalid(format!(
            "{path}.{key} must be a non-empty string, got {}",
            type_name(other)
        ))),
        None => Err(AgentContextError::invalid(format!(
            "{path}.{key} must be a non-empty string, got undefined"
        ))),
    }
}

fn optional(map: &Map<String, Value>, key: &str, path: &str) -> Result<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => required(map, key, path).map(Some),
    }
}

fn strings(map: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, item)| match item {
                Value::String(s) => Ok(s.clone()),
                other => Err(AgentContextError::invalid(format!(
                    "{path}.{key}[{i}] must be a string, got {}",
                    type_name(other)
                ))),
            })
            .collect(),
        Some(other) => Err(AgentContextError::invalid(format!(
            "{path}.{key} must be an array of strings, got {}",
            type_name(other)
        ))),
    }
}

fn env(map: &Map<String, Value>, key: &str, path: &str) -> Result<Vec<(String, String)>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                other => Err(AgentContextError::invalid(format!(
                    "{path}.{key}.{k} must be a string, got {}",
                    type_name(other)
                ))),
            })
            .collect(),
        Some(other) => Err(AgentContextError::invalid(format!(
            "{path}.{key} must be an object of strings, got {}",
            type_name(other)
        ))),
    }
}

impl AgentDefinition {
    /// The table the engine reads for this agent: the built-in agent's when
    /// `id` is a built-in agent type, else one with no knowledge of the
    /// agent (plain-text layout, no quirks over ACP, no output signs).
    ///
    /// The engine holds agents as `&'static AgentSpec`; a definition's is
    /// made once per distinct id, name and install and kept for the life of
    /// the process (a host names a handful of agents, never one per call).
    pub fn spec(&self) -> &'static AgentSpec {
        if let Some(known) = find(&self.id) {
            return known;
        }
        static MADE: Mutex<Vec<&'static AgentSpec>> = Mutex::new(Vec::new());
        let mut made = MADE.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(spec) = made
            .iter()
            .copied()
            .find(|s| s.agent_type == self.id && s.name == self.name && s.package() == self.install)
        {
            return spec;
        }
        let keep = |s: &str| -> &'static str { Box::leak(s.to_owned().into_boxed_str()) };
        let (id, name, install) = (keep(&self.id), keep(&self.name), keep(&self.install));
        let spec: &'static AgentSpec = Box::leak(Box::new(generic_spec(id, name, install)));
        made.push(spec);
        spec
    }
}

/// What the library knows of an agent it knows nothing about.
const fn generic_spec(id: &'static str, name: &'static str, install: &'static str) -> AgentSpec {
    AgentSpec {
        agent_type: id,
        name,
        layout: &crate::prompt::layout::PLAIN_TEXT,
        assembler_class: None,
        cli: None,
        acp: Some(AcpLaunch {
            command: install,
            package: install,
            ..AcpLaunch::DEFAULT
        }),
        mcp_tool: "",
        endpoint: EndpointSpec {
            families: &[],
            route: EndpointRoute::Env(EnvRoute {
                base_url: "",
                api_key: "",
                model: None,
                headers: HeaderRoute::None,
                fixed: &[],
                settings: None,
            }),
            model: EndpointModel::Option,
        },
        signs: &super::signs::NO_SIGNS,
        own_retries: OwnRetries::Unbounded(
            "an agent given by its definition has no setting the library knows",
        ),
        home: None,
        min_node: None,
        env_flags: &[],
        start_env: &[],
    }
}

/// A built-in agent as a definition (`knownAgents()[i].definition`): how it
/// is started over ACP.
pub fn definition_of(spec: &AgentSpec) -> Option<Value> {
    let launch = spec.acp.as_ref()?;
    Some(serde_json::json!({
        "id": spec.agent_type,
        "name": spec.name,
        "command": launch.command,
        "args": launch.args,
        "protocol": "acp",
    }))
}

#[cfg(test)]
#[path = "definition_tests.rs"]
mod tests;
