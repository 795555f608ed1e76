//! CodexContextAssembler: everything inline, `[SYSTEM]` first, then
//! `[TEAM_TASK]`, `[CONTEXT]` and `[MESSAGE]`; context lines
//! `- {from} -> {to}: {content}`.

use super::{InstructionPlacement, Layout};

pub const CODEX: Layout = Layout {
    agent_type: "openai-codex",
    instructions: InstructionPlacement::Inline {
        header: "[SYSTEM]\n",
    },
    team_header: "[TEAM_TASK]\n",
    context_header: "[CONTEXT]\n",
    line_prefix: "- ",
    line_shows_recipient: true,
    message_header: "[MESSAGE]\n",
};
