//! The Gemini tool's pure exports (seed 003), in the main module on both
//! builds: `composeGeminiToolPrompt`, `formatEngineeringContext`,
//! `geminiToolDefinition`. Running the tool is Node only and lives in its
//! own module (`gemini_tool_run_api`).

use wasm_bindgen::prelude::*;

use super::js_result;
use super::json_bridge::{from_serializable, to_json};
use crate::tools::gemini_tool::{
    compose_tool_prompt, format_engineering_context, read_context, tool_definition, ToolPromptInput,
};

/// The Gemini tool's prompt template filled in.
#[wasm_bindgen(js_name = composeGeminiToolPrompt, skip_typescript)] // declared in types.d.ts
pub fn compose_gemini_tool_prompt(input: JsValue) -> Result<String, JsValue> {
    let value = js_result(to_json(&input, "input"))?;
    let input = js_result(ToolPromptInput::read(&value))?;
    Ok(compose_tool_prompt(&input))
}

/// The template's engineering-context paragraph alone, to put before a
/// prompt written by hand; `''` when there is nothing in it.
#[wasm_bindgen(js_name = formatEngineeringContext, skip_typescript)] // declared in types.d.ts
pub fn format_engineering_context_js(context: JsValue) -> Result<String, JsValue> {
    if context.is_undefined() || context.is_null() {
        return Ok(String::new());
    }
    let value = js_result(to_json(&context, "engineeringContext"))?;
    let context = js_result(read_context(Some(&value), "engineeringContext"))?;
    Ok(context.map_or_else(String::new, |c| format_engineering_context(&c)))
}

/// The tool as an agent sees it: `{ name: 'gemini', description,
/// inputSchema }` with the JSON Schema of the tool's parameters (what the
/// MCP server lists).
#[wasm_bindgen(js_name = geminiToolDefinition, skip_typescript)] // declared in types.d.ts
pub fn gemini_tool_definition() -> Result<JsValue, JsValue> {
    js_result(from_serializable(&tool_definition()))
}
