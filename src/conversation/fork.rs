//! A fork's record: a new conversation that opens with its parent's lines
//! up to the end of the turn it forked at, copied (so it outlives the
//! parent's `delete`), then a `forked` entry naming where it came from.

use crate::error::{AgentContextError, Result};
use crate::record::{entry_prefix, Entry, Forked, Header, RecordEntry};

/// The record of conversation `id` (made at `created_at`), forked from
/// `parent` (its record's bytes; its id `parent_id`, its live agent session
/// `parent_session`) after turn `at_turn`.
pub fn fork_record(
    parent: &[u8],
    at_turn: u32,
    id: &str,
    created_at: u64,
    parent_id: &str,
    parent_session: Option<&str>,
) -> Result<String> {
    let mut out = Header::new(id, created_at).line();
    let mut last = 0;
    let mut ended = false;
    let lines = parent.split(|&b| b == b'\n').filter(|l| !l.is_empty());
    for line in lines {
        let Some((seq, kind, turn)) = entry_prefix(line) else {
            continue; // the header, or a line that is no entry
        };
        if seq <= last {
            continue;
        }
        if turn.is_some_and(|t| t > at_turn) || (ended && turn.is_none()) {
            break;
        }
        let Ok(text) = std::str::from_utf8(line) else {
            continue;
        };
        out.push_str(text);
        out.push('\n');
        last = seq;
        ended = kind == "turnEnd" && turn == Some(at_turn);
    }
    if !ended && at_turn > 0 {
        return Err(AgentContextError::invalid(format!(
            "fork: turn {at_turn} of conversation \"{parent_id}\" has not ended"
        )));
    }
    let forked = RecordEntry {
        seq: last + 1,
        at: created_at,
        turn: None,
        body: Entry::Forked(Forked {
            conversation_id: parent_id.to_owned(),
            session_id: parent_session.map(str::to_owned),
            at_turn,
        }),
    };
    forked.encode_into(&mut out);
    Ok(out)
}
