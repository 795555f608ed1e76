//! PlainTextAssembler (seed 001): the fallback for any other agent. No
//! headings, context lines `{from}: {content}`, no `systemFlag`;
//! `getAgentType()` is `'unknown'`.

use super::{InstructionPlacement, Layout};

pub const PLAIN_TEXT: Layout = Layout {
    agent_type: "unknown",
    instructions: InstructionPlacement::Inline { header: "" },
    team_header: "",
    context_header: "",
    line_prefix: "",
    line_shows_recipient: false,
    message_header: "",
};
