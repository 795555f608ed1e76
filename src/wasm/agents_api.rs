//! `knownAgents`: the registry (`crate::agents`) as JS sees it.

use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::from_serializable;
use crate::agents::{AgentInfo, AGENTS};

/// The agents this library runs, parses and builds command lines for, in
/// the registry's order: `{ agentType, name, command, package, systemPrompt,
/// protocols, assemblerClass?, mcpTool, definition }` each (`protocols`:
/// `['cli', 'acp']`, or `['acp']` for an agent driven over ACP only).
///
/// ```js
/// const { knownAgents } = require('agent-context');
/// knownAgents().map((a) => a.agentType); // ['claude-code', 'openai-codex', 'google-gemini']
/// ```
#[wasm_bindgen(js_name = knownAgents, unchecked_return_type = "KnownAgent[]")]
pub fn known_agents() -> Result<JsValue, JsValue> {
    let infos: Vec<AgentInfo> = AGENTS.iter().map(|a| a.info()).collect();
    js_result(from_serializable(&infos))
}
