//! What the conversation's machine follows of its record, line by line as
//! the record grows: the cursor, the turns and the turn left open.

use crate::record::{ConversationState, OpenTurn, PartRead};

#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct Tracked {
    pub cursor: u64,
    pub turns: u32,
    pub open_turn: Option<OpenTurn>,
    /// The live part as the record names it (a restored conversation's).
    pub parts: Vec<PartRead>,
}

impl Tracked {
    /// Where a record read whole stands (`open`: with the turn it left
    /// open, if any).
    pub fn of(state: &ConversationState, open: bool) -> Tracked {
        Tracked {
            cursor: state.cursor,
            turns: state.turns,
            open_turn: state.open_turn.filter(|_| open),
            parts: state.parts.clone(),
        }
    }

    /// Follows what `lines` say: the cursor, the turns, the turn left open.
    pub fn follow(&mut self, lines: &[u8]) {
        for line in lines.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
            let Some((seq, kind, turn)) = crate::record::entry_prefix(line) else {
                continue;
            };
            if seq <= self.cursor {
                continue;
            }
            self.cursor = seq;
            match kind {
                "request" => {
                    let turn = turn.unwrap_or(self.turns + 1);
                    self.turns = self.turns.max(turn);
                    self.open_turn = Some(OpenTurn { turn, attempts: 0 });
                }
                "attemptEnd" => {
                    if let Some(open) = self.open_turn.as_mut() {
                        open.attempts += 1;
                    }
                }
                "turnEnd" | "interrupted" | "closed" => self.open_turn = None,
                _ => {}
            }
        }
    }
}
