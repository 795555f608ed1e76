//! The tools as an MCP client lists them: one per agent of the registry,
//! named by `AgentSpec::mcp_tool`. `gemini` is seed 003's definition; the
//! others have the same parameters, described for their agent (no default
//! model: the CLI's own), plus `max_result_chars` and `protocol` (`cli` or
//! `acp`). `gemini` keeps seed 003's schema exactly (no other parameter is
//! accepted there): its result is bounded by the default, and it runs over
//! the CLI only (docs/mcp.md).

use serde::Serialize;
use serde_json::{json, Value};

use super::params::{
    DEFAULT_MAX_RESULT_CHARS, MAX_RESULT_CHARS, MAX_RESULT_CHARS_LIMIT, MIN_RESULT_CHARS, PROTOCOL,
};
use crate::agents::{AgentSpec, AGENTS};
use crate::tools::gemini_tool::{input_schema, tool_definition, TOOL_NAME};

const DESCRIPTION: &str = include_str!("tool-description.md");

/// One tool: the agent it runs, the command to find, and its `tools/list`
/// entry (`name`, `description`, `inputSchema`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTool {
    pub agent_type: &'static str,
    /// The executable's usual name, which the server looks for.
    pub command: String,
    pub name: String,
    pub description: String,
    pub input_schema: Value,
}

/// Every agent's tool, in the registry's order.
pub fn agent_tools() -> Vec<AgentTool> {
    AGENTS.iter().map(|spec| tool_of(spec)).collect()
}

/// The tool named `name` (`"claude"`), if any agent has it.
pub fn agent_tool(name: &str) -> Option<AgentTool> {
    AGENTS
        .iter()
        .find(|spec| spec.mcp_tool == name)
        .map(|spec| tool_of(spec))
}

fn tool_of(spec: &AgentSpec) -> AgentTool {
    let (description, mut schema) = if spec.mcp_tool == TOOL_NAME {
        let def = tool_definition();
        (def.description.to_owned(), def.input_schema)
    } else {
        let text = DESCRIPTION
            .trim_end()
            .replace("{name}", spec.name)
            .replace("{command}", spec.command());
        (text, schema_for(spec))
    };
    let bounded_by_caller = spec.mcp_tool != TOOL_NAME;
    if let Some(properties) = schema["properties"]
        .as_object_mut()
        .filter(|_| bounded_by_caller)
    {
        properties.insert(
            MAX_RESULT_CHARS.to_owned(),
            json!({
                "type": "integer",
                "minimum": MIN_RESULT_CHARS,
                "maximum": MAX_RESULT_CHARS_LIMIT,
                "default": DEFAULT_MAX_RESULT_CHARS,
                "description": "The longest `result` returned, in characters. A longer reply is cut in the middle (head and tail kept, with a `[... truncated N bytes ...]` marker) and written whole to the file named by `result_file`."
            }),
        );
        properties.insert(
            PROTOCOL.to_owned(),
            json!({
                "type": "string",
                "enum": spec.protocols(),
                "default": spec.protocols()[0],
                "description": if spec.cli.is_some() {
                    format!("How {} is driven: cli (its command line and JSON output) or acp (the Agent Client Protocol).", spec.name)
                } else {
                    format!("How {} is driven: acp (the Agent Client Protocol), the only way the library drives it.", spec.name)
                },
            }),
        );
    }
    AgentTool {
        agent_type: spec.agent_type,
        command: spec.command().to_owned(),
        name: spec.mcp_tool.to_owned(),
        description,
        input_schema: schema,
    }
}

/// The tool of an agent given by its definition (`agents::definition`):
/// named by its id (letters, digits, `_` and `-`; anything else becomes
/// `_`), the same parameters as the other agents' without `protocol` (it
/// runs over ACP).
pub fn definition_tool(agent: &Value) -> crate::error::Result<AgentTool> {
    let (def, _) = crate::agents::definition::read_agent(agent)?;
    let def = match def {
        crate::agents::definition::Agent::Defined(def) => def,
        crate::agents::definition::Agent::Known(spec) => return Ok(tool_of(spec)),
    };
    let spec = def.spec();
    let mut tool = tool_of(spec);
    if let Some(properties) = tool.input_schema["properties"].as_object_mut() {
        properties.remove(PROTOCOL);
    }
    tool.name = tool_name(&def.id);
    tool.command = def.command.clone();
    tool.description = DESCRIPTION
        .trim_end()
        .replace("{name}", &def.name)
        .replace("{command}", &def.command);
    Ok(tool)
}

/// `id` as an MCP tool name.
pub fn tool_name(id: &str) -> String {
    id.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// Seed 003's schema, its descriptions written for `spec`'s agent.
fn schema_for(spec: &AgentSpec) -> Value {
    let mut schema = input_schema();
    let name = spec.name;
    let described = |text: String| Value::String(text);
    let p = &mut schema["properties"];
    p["PROMPT"]["description"] = described(format!(
        "The task or question, with all the background {name} needs (it is sent on stdin, any length)."
    ));
    p["cd"]["description"] = described(format!(
        "The working directory {name} runs in (must exist). Sessions belong to it: resume with the same cd."
    ));
    p["sandbox"]["description"] = described(format!(
        "read-only: {name} may only read and plan. workspace-write or danger-full-access: it may change files."
    ));
    p["yolo"]["description"] = described(format!(
        "Skip every approval {name} would ask for. false: edits are approved, other tools are not. Ignored with sandbox=read-only."
    ));
    p["model"] = json!({
        "type": "string",
        "description": format!("The model (default: {name}'s own default)."),
    });
    p["return_all_messages"]["description"] = described(format!(
        "Add `all_messages`: every event parsed from {name}'s output (for debugging)."
    ));
    p["return_metrics"]["description"] = described(
        "Add `metrics`: duration, attempts, retries, exit code, token counts, tool calls."
            .to_owned(),
    );
    p["timeout"]["description"] = described(format!(
        "Idle timeout in seconds: {name} is stopped when it prints nothing for this long."
    ));
    schema
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::gemini_tool::PARAMETER_NAMES;

    #[test]
    fn one_tool_per_agent_with_the_seeds_parameters() {
        let tools = agent_tools();
        assert_eq!(tools.len(), AGENTS.len());
        for (tool, spec) in tools.iter().zip(AGENTS) {
            assert_eq!(
                (tool.name.as_str(), tool.agent_type),
                (spec.mcp_tool, spec.agent_type)
            );
            let names: Vec<&String> = tool.input_schema["properties"]
                .as_object()
                .unwrap()
                .keys()
                .collect();
            let mut expected: Vec<&str> = PARAMETER_NAMES.to_vec();
            if tool.name != "gemini" {
                expected.push(MAX_RESULT_CHARS);
                expected.push(PROTOCOL);
                assert_eq!(
                    tool.input_schema["properties"][PROTOCOL]["enum"],
                    json!(spec.protocols())
                );
                assert_eq!(
                    tool.input_schema["properties"][PROTOCOL]["default"],
                    json!(spec.protocols()[0])
                );
                assert_eq!(
                    tool.input_schema["properties"][MAX_RESULT_CHARS]["default"],
                    20_000
                );
            }
            assert_eq!(names, expected, "{}", tool.name);
            assert_eq!(tool.input_schema["required"], json!(["PROMPT", "cd"]));
            assert_eq!(tool.input_schema["additionalProperties"], false);
            if tool.name != "gemini" {
                let text = serde_json::to_string(tool).unwrap();
                assert!(!text.contains("Gemini"), "{text}");
                assert!(tool.description.contains(spec.name));
                assert!(tool.input_schema["properties"]["model"]
                    .get("default")
                    .is_none());
            }
        }
        let stub =
            definition_tool(&json!({"id": "my.agent", "name": "My Agent", "command": "my-agent"}))
                .unwrap();
        assert_eq!(
            (stub.name.as_str(), stub.command.as_str(), stub.agent_type),
            ("my_agent", "my-agent", "my.agent")
        );
        assert!(stub.description.contains("My Agent"));
        assert!(stub.input_schema["properties"].get(PROTOCOL).is_none());
        assert!(stub.input_schema["properties"]
            .get(MAX_RESULT_CHARS)
            .is_some());
        assert!(definition_tool(&json!({"id": "x"}))
            .unwrap_err()
            .message()
            .contains("agentType.command"));
        let gemini = agent_tool("gemini").unwrap();
        assert_eq!(gemini.description, tool_definition().description);
        assert_eq!(gemini.input_schema, input_schema());
        assert_eq!(
            gemini.input_schema["properties"]["model"]["default"],
            "gemini-3-pro-preview"
        );
        assert_eq!(agent_tool("claude").unwrap().command, "claude");
        assert!(agent_tool("nobody").is_none());
    }
}
