//! The MCP tools (SPEC §10): one per agent, named by the registry
//! (`AgentSpec::mcp_tool`), each with seed 003's parameters and envelope
//! plus `max_result_chars`. `gemini` is the Gemini tool itself
//! ([`crate::tools::gemini_tool`]); every tool runs as `runAgent` does, on the
//! session engine ([`crate::engine`]). Every
//! decision is here — the tools' definitions, reading a call's parameters,
//! the envelope of a run, where a long `result` is cut and when the whole
//! reply goes to a `result_file`; the MCP server (`js/api/mcp-server.cjs`)
//! finds the executables, runs, writes the file and answers.
//!
//! ```
//! use agent_context::tools::agent_tool::{agent_tools, bound_envelope};
//! use serde_json::json;
//!
//! let names: Vec<String> = agent_tools().into_iter().map(|t| t.name).collect();
//! assert_eq!(names, ["claude", "codex", "gemini", "qwen", "copilot", "opencode", "cline", "droid", "pi", "kimi"]);
//! let envelope = json!({"success": true, "tool": "codex", "SESSION_ID": "t1", "result": "x".repeat(500), "duration": "0m1s"});
//! let bounded = bound_envelope(envelope, 200, "/tmp/r.txt");
//! assert_eq!(bounded.envelope["result_file"], "/tmp/r.txt");
//! assert_eq!(bounded.full_result.unwrap().len(), 500);
//! ```

mod cut;
mod definition;
mod envelope;
mod params;

pub use cut::{bound_envelope, cut_chars, without_result_file, Bounded};
pub use definition::{agent_tool, agent_tools, definition_tool, tool_name, AgentTool};
pub use envelope::{invalid_envelope, metrics_line, run_envelope};
pub use params::{
    CallPlan, ToolCall, DEFAULT_MAX_RESULT_CHARS, MAX_RESULT_CHARS, MAX_RESULT_CHARS_LIMIT,
    MIN_RESULT_CHARS,
};
