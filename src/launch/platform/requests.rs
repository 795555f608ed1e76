//! The platform requests of a host that spawns agents itself (the Node
//! entry's `resolveAgentCommand` and process layer): each reads one plain
//! object (every problem naming its field), decides with the platform
//! modules, and answers one.

use serde_json::{Map, Value};

use super::cmd_shim::parse_cmd_shim;
use super::limits::{self, CommandLine};
use super::resolve::{self, Candidate, Interpreter, Launch, SearchRequest};
use super::Platform;
use crate::error::{AgentContextError, Result};

fn object(value: &Value, what: &str) -> Result<Map<String, Value>> {
    match value {
        Value::Object(map) => Ok(map.clone()),
        _ => Err(AgentContextError::invalid(format!(
            "{what} must be an object"
        ))),
    }
}

fn string(map: &Map<String, Value>, key: &str, what: &str) -> Result<Option<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(AgentContextError::invalid(format!(
            "{what}.{key} must be a string"
        ))),
    }
}

fn required(map: &Map<String, Value>, key: &str, what: &str) -> Result<String> {
    string(map, key, what)?
        .ok_or_else(|| AgentContextError::invalid(format!("{what}.{key} is required (a string)")))
}

fn strings(map: &Map<String, Value>, key: &str, what: &str) -> Result<Vec<String>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                v.as_str().map(str::to_owned).ok_or_else(|| {
                    AgentContextError::invalid(format!("{what}.{key}[{i}] must be a string"))
                })
            })
            .collect(),
        Some(_) => Err(AgentContextError::invalid(format!(
            "{what}.{key} must be an array of strings"
        ))),
    }
}

/// `{ KEY: 'value' }` (as `process.env`); entries that are not strings are
/// refused naming the key.
fn env(map: &Map<String, Value>, key: &str, what: &str) -> Result<Option<Vec<(String, String)>>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(vars)) => vars
            .iter()
            .map(|(k, v)| match v {
                Value::String(s) => Ok((k.clone(), s.clone())),
                _ => Err(AgentContextError::invalid(format!(
                    "{what}.{key}.{k} must be a string"
                ))),
            })
            .collect::<Result<Vec<_>>>()
            .map(Some),
        Some(_) => Err(AgentContextError::invalid(format!(
            "{what}.{key} must be an object of strings"
        ))),
    }
}

fn platform(map: &Map<String, Value>, what: &str, here: Platform) -> Result<Platform> {
    match string(map, "platform", what)? {
        Some(name) => Platform::parse(&name)
            .map_err(|e| AgentContextError::invalid(format!("{what}.{}", e.message()))),
        None => Ok(here),
    }
}

fn env_object(pairs: &[(String, String)]) -> Value {
    Value::Object(
        pairs
            .iter()
            .map(|(k, v)| (k.clone(), Value::String(v.clone())))
            .collect(),
    )
}

/// `checkCommandLine`: `{ platform?, program, args, env?, throughCmd? }` →
/// `{ fits, limit, used, max, unit, what, message? }`; `here`: the platform
/// when the request names none.
pub fn check_command_line(request: &Value, here: Platform) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let platform = platform(&map, what, here)?;
    let program = required(&map, "program", what)?;
    let args = strings(&map, "args", what)?;
    let env = env(&map, "env", what)?.unwrap_or_default();
    let through_cmd = map
        .get("throughCmd")
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let line = CommandLine {
        program: &program,
        args: &args,
        env: &env,
    };
    let result = if through_cmd && platform.is_windows() {
        limits::check_through_cmd(&line)
    } else {
        limits::check(platform, &line)
    };
    let (fits, m) = match result {
        Ok(m) => (true, m),
        Err(m) => (false, m),
    };
    let mut out = serde_json::json!({
        "fits": fits, "limit": m.limit.id(), "used": m.used, "max": m.max(),
        "unit": m.limit.unit(), "what": m.what,
    });
    if !fits {
        out["message"] = Value::String(m.message());
    }
    Ok(out)
}

/// `planCommandSearch`: `{ agentType?, command?, platform?, env,
/// loginShellOutput? }` → `{ command, candidates, loginShell }`.
pub fn plan_command_search(request: &Value, here: Platform) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let platform = platform(&map, what, here)?;
    let env = env(&map, "env", what)?.unwrap_or_default();
    let agent_type = string(&map, "agentType", what)?;
    let command = match (
        string(&map, "command", what)?.filter(|c| !c.is_empty()),
        &agent_type,
    ) {
        (Some(command), _) => command,
        (None, Some(agent)) => resolve::default_command(agent)?.to_owned(),
        (None, None) => {
            return Err(AgentContextError::invalid(
                "request.command or request.agentType is required",
            ))
        }
    };
    let login_output = string(&map, "loginShellOutput", what)?;
    let login_path = login_output
        .as_deref()
        .map(|o| resolve::parse_login_shell_output(o).unwrap_or_default());
    let extra = agent_type
        .as_deref()
        .map(|a| resolve::agent_dirs(a, platform, &env))
        .unwrap_or_default();
    let plan = resolve::search_plan(&SearchRequest {
        platform,
        command: &command,
        env: &env,
        login_shell_path: login_path.as_deref(),
        extra_dirs: &extra,
    })?;
    let mut out = serde_json::to_value(&plan).unwrap_or(Value::Null);
    out["command"] = Value::String(command);
    Ok(out)
}

/// `planLaunch`: `{ platform?, path, head? }` → the launch.
pub fn plan_launch(request: &Value, here: Platform) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let platform = platform(&map, what, here)?;
    let path = required(&map, "path", what)?;
    let head = string(&map, "head", what)?;
    let launch = resolve::launch_for(platform, &path, head.as_deref())?;
    let mut value = serde_json::to_value(&launch).unwrap_or(Value::Null);
    if let Launch::Interpreter { env, .. } = &launch {
        value["env"] = env_object(env);
    }
    Ok(value)
}

fn launch_from(value: &Value) -> Result<Launch> {
    let what = "request.launch";
    let map = value
        .as_object()
        .ok_or_else(|| AgentContextError::invalid(format!("{what} must be planLaunch's result")))?;
    match map.get("kind").and_then(Value::as_str) {
        Some("direct") => Ok(Launch::Direct {
            file: required(map, "file", what)?,
        }),
        Some("interpreter") => Ok(Launch::Interpreter {
            local: string(map, "local", what)?,
            name: required(map, "name", what)?,
            args: strings(map, "args", what)?,
            env: env(map, "env", what)?.unwrap_or_default(),
            direct_if_on_path: map
                .get("directIfOnPath")
                .and_then(Value::as_bool)
                .unwrap_or(false),
        }),
        _ => Err(AgentContextError::invalid(format!(
            "{what}.kind must be 'direct' or 'interpreter'"
        ))),
    }
}

/// A candidate's source as the core names it (`PATH`, `login shell PATH`,
/// `given`); any other is an install folder.
fn source_of(name: &str) -> &'static str {
    match name {
        resolve::PATH_SOURCE => resolve::PATH_SOURCE,
        resolve::LOGIN_SHELL_SOURCE => resolve::LOGIN_SHELL_SOURCE,
        "given" => "given",
        _ => "install folder",
    }
}

/// `finishLaunch`: `{ found, launch, interpreter? }` → `{ path, source,
/// file, args, env, via }`.
pub fn finish_launch(request: &Value) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let found = map
        .get("found")
        .and_then(Value::as_object)
        .ok_or_else(|| AgentContextError::invalid("request.found must be { path, source }"))?;
    let path = required(found, "path", "request.found")?;
    let source_name = required(found, "source", "request.found")?;
    let launch = launch_from(map.get("launch").unwrap_or(&Value::Null))?;
    let interpreter = match map.get("interpreter").and_then(Value::as_object) {
        None => None,
        Some(i) => Some(match i.get("kind").and_then(Value::as_str) {
            Some("local") => Interpreter::Local,
            Some("found") => Interpreter::Found {
                path: required(i, "path", "request.interpreter")?,
                source: source_of(&required(i, "source", "request.interpreter")?),
            },
            _ => Interpreter::Missing {
                electron_exec_path: string(i, "electronExecPath", "request.interpreter")?,
            },
        }),
    };
    let candidate = Candidate {
        path,
        source: source_of(&source_name),
    };
    let resolved = resolve::finish(&candidate, launch, interpreter)?;
    let mut out = serde_json::to_value(&resolved).unwrap_or(Value::Null);
    out["env"] = env_object(&resolved.env);
    out["source"] = Value::String(source_name);
    Ok(out)
}

/// `parseCmdShim`: an npm/pnpm/yarn `.cmd` shim read.
pub fn cmd_shim(path: &str, text: &str) -> Result<Value> {
    parse_cmd_shim(path, text).map(|shim| {
        let mut out = serde_json::to_value(&shim).unwrap_or(Value::Null);
        out["env"] = env_object(&shim.env);
        out
    })
}

/// `commandNotFoundMessage`: `searched` (`[{ path, source }]`) listed.
pub fn not_found_message(command: &str, searched: &Value) -> String {
    let items = searched.as_array().cloned().unwrap_or_default();
    let pairs = items.iter().map(|c| {
        (
            c["path"].as_str().unwrap_or_default(),
            c["source"].as_str().unwrap_or_default(),
        )
    });
    resolve::not_found_message(command, pairs)
}
