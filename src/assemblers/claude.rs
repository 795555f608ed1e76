//! ClaudeContextAssembler: the instruction body goes to `systemFlag` (for
//! `--append-system-prompt`), the rest inline with `[TEAM_TASK]`, `[CONTEXT]`
//! and `[MESSAGE]`; context lines `- {from} -> {to}: {content}`.

use super::{InstructionPlacement, Layout};

pub const CLAUDE: Layout = Layout {
    agent_type: "claude-code",
    instructions: InstructionPlacement::SystemFlag,
    team_header: "[TEAM_TASK]\n",
    context_header: "[CONTEXT]\n",
    line_prefix: "- ",
    line_shows_recipient: true,
    message_header: "[MESSAGE]\n",
};
