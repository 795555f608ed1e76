//! The session record: everything a session said and did, as JSON lines an
//! app keeps (a file per session, or its own database) and reads back after
//! a restart. The format is this module's ([`entry`]: a header line, then
//! one entry per line, each with its `seq` — the cursor — and its time);
//! [`read`] reads it back, a pure function of the bytes; [`summary`] sums a
//! session up for a list; [`Recorder`] is what a session engine holds to
//! turn what happens into entries. Nothing here does I/O. The format and
//! the store interface are described in docs/session-record.md.

pub mod conversation;
pub mod entry;
mod fields;
pub mod listing;
pub mod page;
pub mod read;
mod recorder;
pub mod rows;
mod sha256;
pub mod start;
pub mod state;
pub mod summary;
mod written;

pub use conversation::{carry, conversation, Carried, Compacted, Message};
pub use entry::{
    AttachmentMeta, AttemptEnd, CompactionEntry, Entry, Forked, Header, Link, Opened, Part,
    PartReason, Permission, PermissionOption, RecordEntry, Relation, ToolCall, TurnEnd,
    TurnEndError, FORMAT, MAJOR, TEAM_AGENT_TYPE, VERSION,
};
pub use page::{conversation_page, entry_prefix, names_part, Page, PageIndex, PartName};
pub use read::{
    json_array, read_record, read_record_as_recorded, read_record_by_seq, read_record_str,
    writing_option, BySeq, BySeqLine, Line, LinesBySeq, ReadOptions, RecordRead,
};
pub use recorder::{OpenTurn, RecordSeed, Recorder, TurnOutcome, MIN_SECRET_BYTES, REDACTED};
pub use sha256::{sha256_hex, Sha256};
pub use start::{PartStart, RecordStart};
pub use state::{ConversationState, PartRead};
pub use summary::{
    summarize, summarize_read, summary_of, title_of, ForkedFrom, Kind, SessionRef, SessionSummary,
    Status,
};
pub use written::acp_session_record;

#[cfg(test)]
mod compaction_tests;
#[cfg(test)]
mod read_tests;
#[cfg(test)]
mod recorder_tests;
#[cfg(test)]
mod tests;
