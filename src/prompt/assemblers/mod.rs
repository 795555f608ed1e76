//! The assemblers: one layout per agent CLI (each agent's file in
//! [`crate::agents`] has it), all sharing one budget engine
//! ([`crate::prompt::budget`]). A layout only says how sections are headed and how a
//! context line reads; everything else (trimming, empty-section skipping,
//! joining with a blank line, the byte budget) is common.

pub use crate::agents::{CLAUDE, CODEX, GEMINI};
pub use crate::prompt::layout::{InstructionPlacement, Layout, PLAIN_TEXT};

use crate::agents::AGENTS;
use crate::error::Result;
use crate::prompt::budget::{self, AssembleOptions, Assembled};
use crate::prompt::input::{AssemblerInput, ContextSource, PromptFields};
use crate::prompt::output::AssemblerOutput;

/// The layouts built into the library: each registered agent's, in the
/// registry's order.
pub const BUILT_IN: [&Layout; AGENTS.len()] = {
    let mut layouts = [&PLAIN_TEXT; AGENTS.len()];
    let mut i = 0;
    while i < AGENTS.len() {
        layouts[i] = AGENTS[i].layout;
        i += 1;
    }
    layouts
};

/// The built-in layout for `agent_type`, if there is one.
pub fn built_in_layout(agent_type: &str) -> Option<&'static Layout> {
    crate::agents::find(agent_type).map(|agent| agent.layout)
}

/// The warning logged when an agent type has no assembler, exactly as seed 001 §8.
pub fn unknown_agent_warning(agent_type: &str) -> String {
    format!("[ContextManager] Unknown agentType \"{agent_type}\", using PlainTextAssembler")
}

/// The layout `assemble(agentType, …)` uses, and the warning to log when it
/// falls back to plain text.
pub fn resolve_layout(agent_type: &str) -> (&'static Layout, Option<String>) {
    match built_in_layout(agent_type) {
        Some(layout) => (layout, None),
        None => (&PLAIN_TEXT, Some(unknown_agent_warning(agent_type))),
    }
}

/// An assembly for an agent type, with the fallback warning if there was one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AgentAssembly {
    pub assembled: Assembled,
    /// `Some` when the agent type is unknown and plain text was used.
    pub warning: Option<String>,
}

/// `assemble(agentType, input)`: the built-in assembler for the agent type, or
/// plain text with a warning.
pub fn assemble_for_agent(
    agent_type: &str,
    fields: &PromptFields,
    context: &dyn ContextSource,
    options: AssembleOptions,
) -> Result<AgentAssembly> {
    let (layout, warning) = resolve_layout(agent_type);
    let assembled = budget::assemble(layout, fields, context, options)?;
    Ok(AgentAssembly { assembled, warning })
}

impl Layout {
    /// `assembler.assemble(input)` for a whole input held in Rust.
    pub fn assemble(&self, input: &AssemblerInput) -> Result<AssemblerOutput> {
        budget::assemble(
            self,
            &input.fields,
            &input.context_messages,
            AssembleOptions::default(),
        )
        .map(|a| a.output)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_built_ins_and_falls_back() {
        assert_eq!(resolve_layout("google-gemini"), (&GEMINI, None));
        assert_eq!(resolve_layout("claude-code"), (&CLAUDE, None));
        assert_eq!(resolve_layout("openai-codex"), (&CODEX, None));
        let (layout, warning) = resolve_layout("custom-agent");
        assert_eq!(layout, &PLAIN_TEXT);
        assert_eq!(
            warning.as_deref(),
            Some("[ContextManager] Unknown agentType \"custom-agent\", using PlainTextAssembler")
        );
    }
}
