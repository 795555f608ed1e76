//! The MCP tools' binding (internal, Node-only second module): the tool
//! list (`__agentTools`) and one call (`__AgentToolCall`), which the MCP
//! server (`js/api/mcp-server.cjs`) drives around `runAgent` or
//! `runGeminiTool`. See `crate::tools::agent_tool`.

use wasm_bindgen::prelude::*;

use super::json_bridge::{from_serializable, to_json};
use super::run_result_api::RunResultJs;
use super::{js_result, ms};
use crate::tools::agent_tool::{
    agent_tools, bound_envelope, definition_tool, without_result_file, ToolCall,
};

/// Every agent's tool: `[{ agentType, command, name, description, inputSchema }]`.
#[wasm_bindgen(js_name = __agentTools, skip_typescript)]
pub fn agent_tools_js() -> Result<JsValue, JsValue> {
    js_result(from_serializable(&agent_tools()))
}

/// The tool of an agent given by its definition or ACP registry entry:
/// `{ agentType, command, name, description, inputSchema }`.
#[wasm_bindgen(js_name = __definitionTool, skip_typescript)]
pub fn definition_tool_js(agent: JsValue) -> Result<JsValue, JsValue> {
    let agent = js_result(to_json(&agent, "agentType"))?;
    js_result(from_serializable(&js_result(definition_tool(&agent))?))
}

/// One call of a tool (internal).
#[wasm_bindgen(js_name = __AgentToolCall, skip_typescript)]
pub struct AgentToolCallJs {
    inner: ToolCall,
}

#[wasm_bindgen(js_class = __AgentToolCall)]
impl AgentToolCallJs {
    /// Throws `AgentContextError` only for a tool no agent has; bad
    /// parameters make a call whose envelope is `invalid_params`.
    #[wasm_bindgen(constructor)]
    pub fn new(name: String, params: JsValue) -> Result<AgentToolCallJs, JsValue> {
        let params = to_json(&params, "params").unwrap_or(serde_json::Value::Null);
        Ok(AgentToolCallJs {
            inner: js_result(ToolCall::new(&name, &params))?,
        })
    }

    /// A call of the tool of an agent given by its definition.
    #[wasm_bindgen(js_name = forDefinition)]
    pub fn for_definition(agent: JsValue, params: JsValue) -> Result<AgentToolCallJs, JsValue> {
        let agent = js_result(to_json(&agent, "agentType"))?;
        let params = to_json(&params, "params").unwrap_or(serde_json::Value::Null);
        Ok(AgentToolCallJs {
            inner: js_result(ToolCall::for_definition(&agent, &params))?,
        })
    }

    #[wasm_bindgen(getter, js_name = agentType)]
    pub fn agent_type(&self) -> String {
        self.inner.agent.agent_type.to_owned()
    }

    /// `{ gemini: params }` (run `runGeminiTool(params)`), `{ prompt,
    /// options }` (run `runAgent`), or `undefined` (see `invalidEnvelope`).
    pub fn plan(&self) -> Result<JsValue, JsValue> {
        match self.inner.plan_json() {
            Some(plan) => js_result(from_serializable(&plan)),
            None => Ok(JsValue::UNDEFINED),
        }
    }

    /// Whether the run's events go into `all_messages`.
    #[wasm_bindgen(js_name = keepsEvents)]
    pub fn keeps_events(&self) -> bool {
        self.inner.return_all_messages
    }

    /// The `invalid_params` envelope of a call whose parameters failed.
    #[wasm_bindgen(js_name = invalidEnvelope)]
    pub fn invalid_envelope(&self, duration_ms: f64) -> Result<JsValue, JsValue> {
        js_result(from_serializable(&self.inner.invalid(ms(duration_ms))))
    }

    /// The finished run's envelope and its `log_metrics` line:
    /// `{ envelope, metricsLine? }` (not yet bounded).
    #[wasm_bindgen(js_name = runEnvelope)]
    pub fn run_envelope(
        &self,
        result: &RunResultJs,
        events: JsValue,
        duration_ms: f64,
    ) -> Result<JsValue, JsValue> {
        let turn = result.turn(ms(duration_ms));
        let events = match events.is_undefined() {
            true => None,
            false => Some(js_result(to_json(&events, "events"))?),
        };
        js_result(from_serializable(
            &self.inner.finished(&turn.as_run(), events),
        ))
    }

    /// `{ envelope, fullResult? }`: `envelope` with its `result` within
    /// `max_result_chars`; when cut, `result_file` names `resultFile` and
    /// `fullResult` is what to write there.
    pub fn bound(&self, envelope: JsValue, result_file: String) -> Result<JsValue, JsValue> {
        let envelope = js_result(to_json(&envelope, "envelope"))?;
        let bounded = bound_envelope(envelope, self.inner.max_result_chars, &result_file);
        js_result(from_serializable(&bounded))
    }

    /// `result_file` could not be written (`error`).
    #[wasm_bindgen(js_name = withoutResultFile)]
    pub fn without_result_file(
        &self,
        envelope: JsValue,
        error: String,
    ) -> Result<JsValue, JsValue> {
        let envelope = js_result(to_json(&envelope, "envelope"))?;
        js_result(from_serializable(&without_result_file(envelope, &error)))
    }
}
