//! Agents offered as tools, each running as `runAgent` does: Gemini CLI as a
//! tool (`gemini_tool`) and one MCP tool per agent (`agent_tool`).

pub mod agent_tool;
pub mod gemini_tool;
