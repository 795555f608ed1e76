//! The tool as another agent sees it: its name, what it is for (seed 003's
//! description and usage rules, `tool-description.md`) and a JSON Schema of
//! its parameters (`input-schema.json`) — what the MCP server lists, and
//! what a host can hand to its own agent. Both are embedded; a test checks
//! the schema against the parameters' names, defaults and limits.

use serde::Serialize;
use serde_json::Value;

use super::envelope::TOOL_NAME;

const DESCRIPTION: &str = include_str!("tool-description.md");
const INPUT_SCHEMA: &str = include_str!("input-schema.json");

/// `{ name, description, inputSchema }`, as an MCP `tools/list` entry.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolDefinition {
    pub name: &'static str,
    pub description: &'static str,
    #[serde(rename = "inputSchema")]
    pub input_schema: Value,
}

/// The definition, schema parsed.
///
/// ```
/// let def = agent_context::tools::gemini_tool::tool_definition();
/// assert_eq!(def.name, "gemini");
/// assert_eq!(def.input_schema["required"], serde_json::json!(["PROMPT", "cd"]));
/// ```
pub fn tool_definition() -> ToolDefinition {
    ToolDefinition {
        name: TOOL_NAME,
        description: DESCRIPTION.trim_end(),
        input_schema: input_schema(),
    }
}

/// The JSON Schema of the parameters (`null` only if the embedded file
/// were not JSON, which a test rules out).
pub fn input_schema() -> Value {
    serde_json::from_str(INPUT_SCHEMA).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::launch::invocation::Sandbox;
    use crate::tools::gemini_tool::{
        DEFAULT_MAX_DURATION_S, DEFAULT_MAX_RETRIES, DEFAULT_MODEL, DEFAULT_TIMEOUT_S,
        DEFAULT_YOLO, MAX_RETRIES_LIMIT, MAX_SECONDS, PARAMETER_NAMES,
    };
    use serde_json::json;

    #[test]
    fn the_schema_matches_the_parameters() {
        let schema: Value = serde_json::from_str(INPUT_SCHEMA).expect("input-schema.json is JSON");
        assert_eq!(input_schema(), schema);
        let names: Vec<&String> = schema["properties"].as_object().unwrap().keys().collect();
        assert_eq!(names, PARAMETER_NAMES);
        let p = |name: &str, key: &str| schema["properties"][name][key].clone();
        assert_eq!(p("sandbox", "default"), "workspace-write");
        assert_eq!(p("sandbox", "enum"), json!(Sandbox::NAMES));
        assert_eq!(p("yolo", "default"), DEFAULT_YOLO);
        assert_eq!(p("model", "default"), DEFAULT_MODEL);
        assert_eq!(p("timeout", "default"), DEFAULT_TIMEOUT_S);
        assert_eq!(p("max_duration", "default"), DEFAULT_MAX_DURATION_S);
        assert_eq!(p("max_retries", "default"), DEFAULT_MAX_RETRIES);
        for name in ["timeout", "max_duration"] {
            assert_eq!(
                (p(name, "minimum"), p(name, "maximum")),
                (json!(1), json!(MAX_SECONDS))
            );
        }
        assert_eq!(
            (p("max_retries", "minimum"), p("max_retries", "maximum")),
            (json!(0), json!(MAX_RETRIES_LIMIT))
        );
        for flag in ["return_all_messages", "return_metrics", "log_metrics"] {
            assert_eq!(p(flag, "default"), false);
        }
        for name in PARAMETER_NAMES {
            assert!(
                p(name, "description")
                    .as_str()
                    .is_some_and(|d| !d.is_empty()),
                "{name}"
            );
        }
        assert_eq!(schema["required"], json!(["PROMPT", "cd"]));
        assert_eq!(schema["additionalProperties"], false);
        let def = tool_definition();
        assert!(def
            .description
            .starts_with("Runs Gemini CLI as a flexible tool"));
        assert!(def.description.contains("keep the returned SESSION_ID"));
    }
}
