//! GeminiContextAssembler (seed 000): natural-language headings, no brackets,
//! context lines `- {from}: {content}` (the recipient is left out), no
//! `systemFlag`.

use super::{InstructionPlacement, Layout};

pub const GEMINI: Layout = Layout {
    agent_type: "google-gemini",
    instructions: InstructionPlacement::Inline {
        header: "Instructions:\n",
    },
    team_header: "Team Task:\n",
    context_header: "Conversation so far:\n",
    line_prefix: "- ",
    line_shows_recipient: false,
    message_header: "Your task:\n",
};
