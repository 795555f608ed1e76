//! `knownAgents`: the registry (`crate::agents`) as JS sees it.

use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::from_serializable;
use crate::agents::{AgentInfo, AGENTS};

/// The registry, as `knownAgents()` (declared in types.d.ts).
#[wasm_bindgen(js_name = knownAgents, skip_typescript)]
pub fn known_agents() -> Result<JsValue, JsValue> {
    let infos: Vec<AgentInfo> = AGENTS.iter().map(|a| a.info()).collect();
    js_result(from_serializable(&infos))
}
