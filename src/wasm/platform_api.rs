//! The platform decisions for a host that spawns agents itself (the Node
//! entry's `resolveAgentCommand` and process layer use them): command-line
//! limits, Windows quoting and shims, where to look for an executable and
//! how to launch it, how to kill the tree (`crate::launch::platform::requests`).
//!
//! Node only: compiled into the second module (feature `node`,
//! `agent_context_node_bg.wasm`), which the Node entry loads on first
//! use, so the main module (Node and web) does not carry them.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::js_platform::current_platform;
use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::error::Result;
use crate::launch::platform::kill::kill_plan;
use crate::launch::platform::{requests, windows_quote, Platform};

/// A request read, answered by `answer`, written back.
fn answer(
    request: &JsValue,
    answer: impl FnOnce(&Value) -> Result<Value>,
) -> std::result::Result<JsValue, JsValue> {
    js_result(
        to_json(request, "request")
            .and_then(|r| answer(&r))
            .and_then(|v| from_serializable(&v)),
    )
}

/// Checks a command line against the platform's limit.
#[wasm_bindgen(js_name = checkCommandLine, skip_typescript)]
pub fn check_command_line(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    answer(&request, |r| {
        requests::check_command_line(r, current_platform())
    })
}

/// The Windows command line Node builds from `program` and `args`
/// (libuv's quoting).
#[wasm_bindgen(js_name = windowsCommandLine, skip_typescript)]
pub fn windows_command_line(program: String, args: Vec<String>) -> String {
    windows_quote::command_line(&program, &args)
}

/// Reads an npm/pnpm/yarn `.cmd` shim: `{ program: { kind: 'path', path }
/// | { kind: 'interpreter', local, name }, args, env }`. Throws
/// `INVALID_INPUT` for a batch file that is not such a shim.
#[wasm_bindgen(js_name = parseCmdShim, skip_typescript)]
pub fn parse_cmd_shim_js(path: String, text: String) -> std::result::Result<JsValue, JsValue> {
    js_result(requests::cmd_shim(&path, &text).and_then(|v| from_serializable(&v)))
}

/// Where to look for an agent's executable, in order.
#[wasm_bindgen(js_name = planCommandSearch, skip_typescript)]
pub fn plan_command_search(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    answer(&request, |r| {
        requests::plan_command_search(r, current_platform())
    })
}

/// How to launch a found file: `{ platform?, path, head? }` (`head`: the
/// file's first bytes as text — the whole text of a `.cmd`) →
/// `{ kind: 'direct', file } | { kind: 'interpreter', local, name, args, env, directIfOnPath }`.
#[wasm_bindgen(js_name = planLaunch, skip_typescript)]
pub fn plan_launch(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    answer(&request, |r| requests::plan_launch(r, current_platform()))
}

/// The resolved command from a launch and its interpreter.
#[wasm_bindgen(js_name = finishLaunch, skip_typescript)]
pub fn finish_launch(request: JsValue) -> std::result::Result<JsValue, JsValue> {
    answer(&request, requests::finish_launch)
}

/// `command_not_found`'s message: `searched` (`[{ path, source }]`) listed.
#[wasm_bindgen(js_name = commandNotFoundMessage, skip_typescript)]
pub fn command_not_found_message(
    command: String,
    searched: JsValue,
) -> std::result::Result<String, JsValue> {
    let list = js_result(to_json(&searched, "searched"))?;
    Ok(requests::not_found_message(&command, &list))
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
