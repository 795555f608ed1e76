//! A prompt assembled for an agent type: each registered agent's layout
//! (its file has it), else plain text with a warning, through the one
//! budget engine ([`crate::prompt::budget`]).

use crate::error::Result;
use crate::prompt::budget::{self, AssembleOptions, Assembled};
use crate::prompt::input::{ContextSource, PromptFields};
use crate::prompt::layout::{Layout, PLAIN_TEXT};

use super::AGENTS;

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
    super::find(agent_type).map(|agent| agent.layout)
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

// Ids are written with at most two digits
// (`crate::prompt::size_plan::fast_path::layout_info`).
const _: () = assert!(BUILT_IN.len() < 99);

/// A layout's id for the JS fast path: its place in [`BUILT_IN`], or
/// `BUILT_IN.len()` for plain text.
pub fn layout_id(layout: &Layout) -> usize {
    BUILT_IN
        .iter()
        // By name: the same constant may sit at another address.
        .position(|l| l.agent_type == layout.agent_type)
        .unwrap_or(BUILT_IN.len())
}

/// The layout of id `id` ([`layout_id`]); plain text for any other.
pub fn layout_by_id(id: u32) -> &'static Layout {
    BUILT_IN.get(id as usize).copied().unwrap_or(&PLAIN_TEXT)
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{CLAUDE, CODEX, GEMINI};

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

    #[test]
    fn every_layout_has_an_id_of_its_own() {
        for (i, layout) in BUILT_IN.iter().enumerate() {
            assert_eq!(layout_id(layout), i, "{}", layout.agent_type);
            assert_eq!(layout_by_id(i as u32).agent_type, layout.agent_type);
        }
        assert_eq!(layout_id(&PLAIN_TEXT), BUILT_IN.len());
        assert_eq!(layout_by_id(BUILT_IN.len() as u32), &PLAIN_TEXT);
    }
}
