//! The most common line of a Gemini CLI stream, a `message`, read straight
//! from its bytes (`agent_context_scan::gemini_message`), its content decoded
//! from JSON and UTF-8 into UTF-16 code units in one pass: for a reply kept
//! in UTF-16 form (the JS binding), the text never exists as UTF-8 at all.
//!
//! Anything but a plain message line (another line type, a number, a nested
//! value, a `\u` escape, invalid JSON or UTF-8, `U+009B`) returns `false`
//! before the reply is touched, and the general readers (`gemini.rs`,
//! serde_json) decide. So the result is the same either way; a property test
//! and the fuzz target check it.

use agent_context_scan::gemini_message::{scan, scan_utf16, Message};
use agent_context_scan::unit::Unit;

use super::builder::ReplyBuilder;

/// Reads `line` (UTF-8 bytes) if it is a plain `message` line; false
/// (nothing done) for anything the general readers must see. `scratch`
/// holds the decoded content between calls, so its allocation is reused.
pub fn read_message_line(line: &[u8], out: &mut ReplyBuilder, scratch: &mut Vec<u16>) -> bool {
    out.takes_units() && scan(line, scratch).is_some_and(|message| apply(&message, out, scratch))
}

/// [`read_message_line`] for a line of UTF-16 units (a JS string's).
pub fn read_message_line_utf16(
    line: &[u16],
    out: &mut ReplyBuilder,
    scratch: &mut Vec<u16>,
) -> bool {
    out.takes_units()
        && scan_utf16(line, scratch).is_some_and(|message| apply(&message, out, scratch))
}

/// What a plain message line, its content decoded in `content`, does to
/// the reply.
fn apply<U: Unit>(message: &Message<'_, U>, out: &mut ReplyBuilder, content: &[u16]) -> bool {
    // The user's own prompt echoed back, or no role or content: not part of
    // the reply.
    if message.from_assistant() && message.content {
        if message.delta {
            out.delta_units(content);
        } else {
            out.message_units(content);
        }
    }
    true
}
