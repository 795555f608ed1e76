//! The platform decisions for a host that spawns agents itself (the Node
//! entry's `resolveAgentCommand` and process layer use them): command-line
//! limits, Windows quoting and shims, where to look for an executable and
//! how to launch it, how to kill the tree. Each takes one plain object,
//! read as JSON, and returns one.
//!
//! Node only: compiled into the second module (feature `gemini-tool`,
//! `agent_context_node_bg.wasm`), which the Node entry loads on first
//! use, so the main module (Node and web) does not carry them.

use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use super::js_platform::current_platform;
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::error::{AgentContextError, Result};
use crate::platform::cmd_shim::parse_cmd_shim;
use crate::platform::kill::kill_plan;
use crate::platform::limits::{self, CommandLine};
use crate::platform::resolve::{self, Candidate, Interpreter, Launch, SearchRequest};
use crate::platform::windows_quote;
use crate::platform::Platform;

fn object(value: &JsValue, what: &str) -> Result<Map<String, Value>> {
    match to_json(value, what)? {
        Value::Object(map) => Ok(map),
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

fn platform(map: &Map<String, Value>, what: &str) -> Result<Platform> {
    match string(map, "platform", what)? {
        Some(name) => Platform::parse(&name)
            .map_err(|e| AgentContextError::invalid(format!("{what}.{}", e.message()))),
        None => Ok(current_platform()),
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

/// A core result (or error) as the JS value (or `AgentContextError`).
fn to_js(result: Result<Value>) -> std::result::Result<JsValue, JsValue> {
    js_result(result.and_then(|v| from_serializable(&v)))
}

/// Checks a command line against the platform's limit:
/// `{ platform?, program, args, env?, throughCmd? }` →
/// `{ fits, limit, used, max, unit, what, message }` (`message` only when
/// it does not fit). Linux: 131 072 bytes per argument and 2 MiB for argv +
/// environment; macOS: 1 MiB for both; Windows: 32 767 UTF-16 units for the
/// quoted line (8 191 through cmd.exe).
///
/// ```js
/// checkCommandLine({ platform: 'win32', program: 'node.exe', args: ['x'.repeat(40000)] }).fits; // false
/// ```
#[wasm_bindgen(js_name = checkCommandLine, skip_typescript)]
pub fn check_command_line(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    to_js(check_command_line_value(&request))
}

fn check_command_line_value(request: &JsValue) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let platform = platform(&map, what)?;
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

/// The Windows command line Node builds from `program` and `args`
/// (libuv's quoting).
///
/// ```js
/// windowsCommandLine('node.exe', ['a b', 'say "hi"']); // 'node.exe "a b" "say \\"hi\\""'
/// ```
#[wasm_bindgen(js_name = windowsCommandLine, skip_typescript)]
pub fn windows_command_line(program: String, args: Vec<String>) -> String {
    windows_quote::command_line(&program, &args)
}

/// Reads an npm/pnpm/yarn `.cmd` shim: `{ program: { kind: 'path', path }
/// | { kind: 'interpreter', local, name }, args, env }`. Throws
/// `INVALID_INPUT` for a batch file that is not such a shim.
#[wasm_bindgen(js_name = parseCmdShim, skip_typescript)]
pub fn parse_cmd_shim_js(path: String, text: String) -> std::result::Result<JsValue, JsValue> {
    to_js(parse_cmd_shim(&path, &text).map(|shim| {
        let mut out = serde_json::to_value(&shim).unwrap_or(Value::Null);
        out["env"] = env_object(&shim.env);
        out
    }))
}

/// Where to look for an agent's executable, in order:
/// `{ agentType?, command?, platform?, env, loginShellOutput? }` →
/// `{ command, candidates: [{ path, source }], loginShell: { file, args } | null }`.
/// `loginShell` is set (macOS, Linux) until its output is passed back.
#[wasm_bindgen(js_name = planCommandSearch, skip_typescript)]
pub fn plan_command_search(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    to_js(plan_command_search_value(&request))
}

fn plan_command_search_value(request: &JsValue) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let platform = platform(&map, what)?;
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

/// How to launch a found file: `{ platform?, path, head? }` (`head`: the
/// file's first bytes as text — the whole text of a `.cmd`) →
/// `{ kind: 'direct', file } | { kind: 'interpreter', local, name, args, env, directIfOnPath }`.
#[wasm_bindgen(js_name = planLaunch, skip_typescript)]
pub fn plan_launch(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    to_js(plan_launch_value(&request))
}

fn plan_launch_value(request: &JsValue) -> Result<Value> {
    let what = "request";
    let map = object(request, what)?;
    let platform = platform(&map, what)?;
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

/// The resolved command from a launch and its interpreter:
/// `{ found: { path, source }, launch, interpreter?: { kind: 'local' } |
/// { kind: 'found', path, source } | { kind: 'missing', electronExecPath? } }`
/// → `{ path, source, file, args, env, via }`.
#[wasm_bindgen(js_name = finishLaunch, skip_typescript)]
pub fn finish_launch(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    to_js(finish_launch_value(&request))
}

fn finish_launch_value(request: &JsValue) -> Result<Value> {
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

/// `command_not_found`'s message: `searched` (`[{ path, source }]`) listed.
#[wasm_bindgen(js_name = commandNotFoundMessage, skip_typescript)]
pub fn command_not_found_message(
    command: String,
    searched: JsValue,
) -> std::result::Result<String, JsValue> {
    let list = js_result(to_json(&searched, "searched"))?;
    let items = list.as_array().cloned().unwrap_or_default();
    let pairs = items.iter().map(|c| {
        (
            c["path"].as_str().unwrap_or_default(),
            c["source"].as_str().unwrap_or_default(),
        )
    });
    Ok(resolve::not_found_message(&command, pairs))
}

/// How to spawn so the whole tree can be stopped, and how to stop it:
/// `planKill(platform?, pid?)` → `{ detached, windowsHide, steps }`.
#[wasm_bindgen(js_name = planKill, skip_typescript)]
pub fn plan_kill(
    platform_name: Option<String>,
    pid: Option<u32>,
) -> std::result::Result<JsValue, JsValue> {
    let platform = match platform_name {
        Some(name) => js_result(Platform::parse(&name))?,
        None => current_platform(),
    };
    js_result(from_serializable(&kill_plan(platform, pid.unwrap_or(0))))
}
