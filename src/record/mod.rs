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
pub mod read;
mod recorder;
mod sha256;
pub mod summary;
mod written;

pub use conversation::{carry, conversation, Carried, Compacted, Message};
pub use entry::{
    AttachmentMeta, CompactionEntry, Entry, Header, Link, Opened, Permission, PermissionOption,
    RecordEntry, Relation, ToolCall, TurnEnd, TurnEndError, FORMAT, MAJOR, VERSION,
};
pub use read::{
    json_array, read_record, read_record_by_seq, read_record_str, writing_option, Line, LinesBySeq,
    ReadOptions, RecordRead,
};
pub use recorder::{Recorder, TurnOutcome, MIN_SECRET_BYTES, REDACTED};
pub use sha256::{sha256_hex, Sha256};
pub use summary::{summarize, summarize_read, title_of, SessionSummary, Status};
pub use written::{acp_session_record, link_lines};

#[cfg(test)]
mod read_tests;
#[cfg(test)]
mod recorder_tests;
#[cfg(test)]
mod tests;
