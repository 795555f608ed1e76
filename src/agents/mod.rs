//! The registry of agents (SPEC §9): one file per agent, each a table
//! ([`AgentSpec`]) naming its agent type, prompt layout, output format, CLI
//! invocation and ACP launch, and one list, [`AGENTS`], that registers them.
//! Every other list of agents (the assemblers, [`assembly`], the parsers, the command
//! lines, the JS classes, the command, the playground, the fuzz targets, the
//! TypeScript union) reads this one or is checked against it by a test.
//!
//! Adding an agent: a new file here with its `AGENT`, and one line in
//! [`AGENTS`].
//!
//! ```
//! use agent_context::agents;
//!
//! let claude = agents::find("claude-code").unwrap();
//! assert_eq!(claude.command(), "claude");
//! let err = agents::require("aider", "to build a command line").unwrap_err();
//! assert!(err.message().starts_with("agentType must be 'claude-code', 'openai-codex'"));
//! ```

mod acp_launch;
pub mod api_family;
pub mod assembly;
mod claude_code;
mod cline;
pub mod definition;
mod endpoint_spec;
mod factory_droid;
mod failed_prompt;
mod github_copilot;
mod google_gemini;
mod kimi_code;
mod openai_codex;
mod opencode;
mod pi;
mod qwen_code;
pub mod signs;
mod spec;
mod superseded;

pub use api_family::ApiFamily;
pub use claude_code::CLAUDE;
pub use github_copilot::COPILOT;
pub use google_gemini::{AGENT as GOOGLE_GEMINI, GEMINI};
pub use openai_codex::CODEX;
pub use opencode::OPENCODE;
pub use qwen_code::QWEN;
pub use spec::{
    AcpLaunch, AcpMcp, AcpModel, AcpQuirks, AcpToolName, AgentSpec, ApprovalArg, CliAttachments,
    CliExtras, CliImage, CliMcp, CliSpec, EndpointModel, EndpointRoute, EndpointSpec, EnvFlag,
    EnvRoute, FailedPrompt, FamilyUse, FileRoute, HeaderRoute, McpShape, ModelsFile, NodeVersion,
    OutputFormat, OutputSchemaArg, OwnRetries, ResumeExisting, RetryLog, RunHome, SessionArg,
    SettingsPlace, SettingsRoute, SystemPromptArg,
};
pub use superseded::{save_wait_ms, superseded_warning};

use serde::Serialize;

use crate::error::{AgentContextError, Result};

/// Every agent the library knows, in the order lists show them.
pub const AGENTS: &[&AgentSpec] = &[
    &claude_code::AGENT,
    &openai_codex::AGENT,
    &google_gemini::AGENT,
    &qwen_code::AGENT,
    &github_copilot::AGENT,
    &opencode::AGENT,
    &cline::AGENT,
    &factory_droid::AGENT,
    &pi::AGENT,
    &kimi_code::AGENT,
];

/// How `agent_type`'s CLI takes attachments (`None`: an agent type the
/// registry does not know, or one that takes none).
pub fn cli_attachments(agent_type: &str) -> Option<&'static CliAttachments> {
    find(agent_type).and_then(|a| a.cli.as_ref()?.attachments.as_ref())
}

/// True when, over ACP, `agent_type` loses images sent beside embedded
/// resources or file links, which must then go as text (Gemini CLI).
pub fn acp_context_as_text_with_images(agent_type: &str) -> bool {
    find(agent_type)
        .and_then(|a| a.acp.as_ref())
        .is_some_and(|l| l.context_as_text_with_images)
}

/// The agent registered as `agent_type`.
pub fn find(agent_type: &str) -> Option<&'static AgentSpec> {
    AGENTS.iter().copied().find(|a| a.agent_type == agent_type)
}

/// The agent registered as `agent_type`, or `INVALID_INPUT` naming the known
/// ones: `agentType must be 'a', 'b' or 'c' {purpose}, got "x"`.
pub fn require(agent_type: &str, purpose: &str) -> Result<&'static AgentSpec> {
    find(agent_type).ok_or_else(|| {
        AgentContextError::invalid(format!(
            "agentType must be {} {purpose}, got \"{agent_type}\"",
            known_list()
        ))
    })
}

/// What `knownAgents()` tells JS about one agent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInfo {
    pub agent_type: &'static str,
    pub name: &'static str,
    /// The executable's usual name.
    pub command: &'static str,
    /// The npm package that installs it.
    pub package: &'static str,
    /// `'flag'` when the CLI takes the instructions as a system prompt flag
    /// (`systemFlag`), `'inline'` when they open the prompt.
    pub system_prompt: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub assembler_class: Option<&'static str>,
    pub mcp_tool: &'static str,
    /// The protocols it is driven over, the default first: `['cli', 'acp']`,
    /// or `['acp']` for an agent whose command line the library does not
    /// drive.
    pub protocols: &'static [&'static str],
    /// How it is started over ACP, as an agent definition
    /// (`{ id, name, command, args, protocol: 'acp' }`) that runs it the same
    /// way when passed where an agent type is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub definition: Option<serde_json::Value>,
}

impl AgentSpec {
    pub fn info(&self) -> AgentInfo {
        AgentInfo {
            agent_type: self.agent_type,
            name: self.name,
            command: self.command(),
            package: self.package(),
            system_prompt: match self.cli.map(|cli| cli.system_prompt) {
                None | Some(SystemPromptArg::None) => "inline",
                Some(SystemPromptArg::Append { .. } | SystemPromptArg::AppendInline { .. }) => {
                    "flag"
                }
            },
            protocols: self.protocols(),
            assembler_class: self.assembler_class,
            mcp_tool: self.mcp_tool,
            definition: definition::definition_of(self),
        }
    }
}

/// `'a', 'b' or 'c'`: the known agent types for a message.
pub fn known_list() -> String {
    let quoted: Vec<String> = AGENTS
        .iter()
        .map(|a| format!("'{}'", a.agent_type))
        .collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn each_agent_is_registered_once_and_consistently() {
        let mut types = HashSet::new();
        let mut tools = HashSet::new();
        let mut classes = HashSet::new();
        let mut commands = HashSet::new();
        for agent in AGENTS {
            assert!(types.insert(agent.agent_type), "{}", agent.agent_type);
            assert!(tools.insert(agent.mcp_tool), "{}", agent.mcp_tool);
            assert!(commands.insert(agent.command()), "{}", agent.command());
            assert!(
                agent.cli.is_some() || agent.acp.is_some(),
                "{}",
                agent.agent_type
            );
            if let Some(class) = agent.assembler_class {
                assert!(classes.insert(class), "{class}");
            }
            assert_eq!(agent.layout.agent_type, agent.agent_type);
            assert_ne!(
                agent.cli.map(|cli| cli.output),
                Some(OutputFormat::PlainText),
                "{}",
                agent.agent_type
            );
            assert_eq!(find(agent.agent_type), Some(*agent));
        }
        assert!(!types.contains(crate::prompt::layout::PLAIN_TEXT.agent_type));
    }

    #[test]
    fn an_agent_without_a_cli_is_driven_over_acp_only() {
        let acp_only = AgentSpec {
            cli: None,
            ..opencode::AGENT
        };
        assert_eq!(acp_only.protocols(), ["acp"]);
        // Its command and package are what runs over ACP.
        assert_eq!(
            (acp_only.command(), acp_only.package()),
            ("opencode", "opencode-ai")
        );
        assert_eq!(acp_only.output(), OutputFormat::PlainText);
        let err = acp_only.cli("a command line").unwrap_err();
        assert_eq!(err.code(), crate::error::ErrorCode::InvalidInput);
        assert_eq!(
            err.message(),
            "agentType 'opencode': opencode is driven over the Agent Client Protocol only (the library does not drive its command line): a command line is not available; use protocol 'acp'"
        );
        let info = acp_only.info();
        assert_eq!(info.protocols, ["acp"]);
        assert_eq!(info.system_prompt, "inline");
        assert_eq!(info.command, "opencode");
        for agent in AGENTS {
            let expected: &[&str] = match (agent.cli.is_some(), agent.acp.is_some()) {
                (true, true) => &["cli", "acp"],
                (true, false) => &["cli"],
                _ => &["acp"],
            };
            assert_eq!(agent.protocols(), expected, "{}", agent.agent_type);
            assert_eq!(agent.info().protocols, expected);
        }
    }

    #[test]
    fn an_unknown_type_is_rejected_naming_the_known_ones() {
        let err = require("aider", "to parse its output").unwrap_err();
        assert_eq!(err.code(), crate::error::ErrorCode::InvalidInput);
        let names: Vec<String> = AGENTS
            .iter()
            .map(|a| format!("'{}'", a.agent_type))
            .collect();
        let (last, rest) = names.split_last().unwrap();
        assert_eq!(
            err.message(),
            format!(
                "agentType must be {} or {last} to parse its output, got \"aider\"",
                rest.join(", ")
            )
        );
        assert!(err
            .message()
            .starts_with("agentType must be 'claude-code', 'openai-codex'"));
        assert!(find("Claude-Code").is_none());
    }
}
