//! How a prompt is laid out for one agent: section headings and the shape of
//! a context line. Each agent's layout lives in its file under `agents/`
//! (a layer above this one); the budget engine ([`crate::prompt::budget`])
//! fills a layout.

/// Where the instruction body (system instruction + instruction file) goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstructionPlacement {
    /// Into `systemFlag`, as the bare body (Claude Code's `--append-system-prompt`).
    SystemFlag,
    /// Into the prompt as the first section, after `header` (may be empty).
    Inline { header: &'static str },
}

/// How one agent CLI wants its prompt laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// What `getAgentType()` returns.
    pub agent_type: &'static str,
    pub instructions: InstructionPlacement,
    /// Heading of the team-task section, newline included ("" for none).
    pub team_header: &'static str,
    /// Heading of the context section, newline included ("" for none).
    pub context_header: &'static str,
    /// Written before each context line (`"- "` or `""`).
    pub line_prefix: &'static str,
    /// Whether a context line names its recipient: `{from} -> {to}: …`.
    pub line_shows_recipient: bool,
    /// Heading of the current-message section, newline included.
    pub message_header: &'static str,
}

/// PlainTextAssembler (seed 001): the fallback for any other agent. No
/// headings, context lines `{from}: {content}`, no `systemFlag`;
/// `getAgentType()` is `'unknown'`.
pub const PLAIN_TEXT: Layout = Layout {
    agent_type: "unknown",
    instructions: InstructionPlacement::Inline { header: "" },
    team_header: "",
    context_header: "",
    line_prefix: "",
    line_shows_recipient: false,
    message_header: "",
};
