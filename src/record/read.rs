//! Reading a record back: a pure function of its bytes. What is read is
//! what was appended whole, in order: a torn last line is dropped, and a
//! line that is not an entry of this format, or whose `seq` is not above
//! the last one's, is skipped — never an error. Only a record of a newer
//! major version than this library's is refused.

use std::borrow::Cow;

use serde::Deserialize;

use super::entry::{Header, FORMAT, MAJOR};
use crate::error::{AgentContextError, Result};

/// Which entries to read: those after the cursor `after` (0: from the
/// first), at most `limit` of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    pub after: u64,
    pub limit: Option<usize>,
}

/// One entry's line, as read: its place, time, turn and kind, and its
/// whole text (without the `\n`), kept as written.
#[derive(Clone, Debug, PartialEq)]
pub struct Line<'a> {
    pub seq: u64,
    pub at: u64,
    pub turn: Option<u64>,
    pub kind: Cow<'a, str>,
    pub text: &'a [u8],
}

/// What [`read_record`] read: the header (when the record has one), the
/// entries' lines in order, and the cursor to read on from (the last
/// line's `seq`; `after` when none was read).
#[derive(Clone, Debug, PartialEq)]
pub struct RecordRead<'a> {
    pub header: Option<Header>,
    pub lines: Vec<Line<'a>>,
    pub cursor: u64,
}

/// An entry's fields every kind has; the rest of the line is checked as
/// JSON and skipped.
#[derive(Deserialize)]
struct Head<'a> {
    seq: u64,
    at: u64,
    #[serde(borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    turn: Option<u64>,
}

/// The header's fields, any of them missing.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct HeaderProbe {
    format: Option<String>,
    version: Option<String>,
    session_id: Option<String>,
    agent_type: Option<String>,
    created_at: Option<u64>,
}

/// The entries of `record` (its bytes) that `options` asks for. `record`
/// may be any part of a record that starts at a line: the header is
/// optional.
pub fn read_record(record: &[u8], options: ReadOptions) -> Result<RecordRead<'_>> {
    read(record, options, false)
}

/// [`read_record`] of text already known to be UTF-8.
pub fn read_record_str(record: &str, options: ReadOptions) -> Result<RecordRead<'_>> {
    read(record.as_bytes(), options, true)
}

fn read(record: &[u8], options: ReadOptions, utf8: bool) -> Result<RecordRead<'_>> {
    let mut out = RecordRead {
        header: None,
        lines: Vec::new(),
        cursor: options.after,
    };
    let limit = options.limit.unwrap_or(usize::MAX);
    // Every entry read is above this: the last entry's seq, or `after`.
    let mut floor = options.after;
    let mut first = true;
    // The last piece, without its `\n`, is torn (or empty): never read.
    let whole = match memchr::memrchr(b'\n', record) {
        Some(end) => &record[..end],
        None => return Ok(out),
    };
    for text in whole.split(|&b| b == b'\n') {
        if std::mem::take(&mut first) {
            if let Some(header) = header_of(text)? {
                out.header = Some(header);
                continue;
            }
        }
        if out.lines.len() >= limit {
            break;
        }
        // An entry at or below the floor is never read, whatever it holds.
        if let Some(seq) = seq_prefix(text) {
            if seq <= floor {
                continue;
            }
        }
        let Some(line) = entry_of(text, utf8) else {
            continue;
        };
        if line.seq <= floor {
            continue;
        }
        floor = line.seq;
        out.cursor = line.seq;
        out.lines.push(line);
    }
    Ok(out)
}

/// The `seq` of a line the encoder wrote (`{"seq":N,`), read without
/// parsing the rest.
fn seq_prefix(text: &[u8]) -> Option<u64> {
    let digits = text.strip_prefix(b"{\"seq\":")?;
    let end = digits.iter().position(|b| !b.is_ascii_digit())?;
    if end == 0 || end > 19 || digits[end] != b',' {
        return None;
    }
    std::str::from_utf8(&digits[..end]).ok()?.parse().ok()
}

/// `text` as an entry's line: a JSON object with a whole-number `seq`
/// above 0, a whole-number `at` and a string `kind`, all of it valid JSON
/// (and UTF-8).
fn entry_of(text: &[u8], utf8: bool) -> Option<Line<'_>> {
    if text.first() != Some(&b'{') {
        return None;
    }
    if !utf8 && std::str::from_utf8(text).is_err() {
        return None;
    }
    let head: Head = serde_json::from_slice(text).ok()?;
    if head.seq == 0 {
        return None;
    }
    Some(Line {
        seq: head.seq,
        at: head.at,
        turn: head.turn,
        kind: head.kind,
        text,
    })
}

/// The header, when `text` is one: a JSON object whose `format` is this
/// format's. A newer major version is refused.
fn header_of(text: &[u8]) -> Result<Option<Header>> {
    if memchr::memmem::find(text, FORMAT.as_bytes()).is_none() {
        return Ok(None);
    }
    let Ok(probe) = serde_json::from_slice::<HeaderProbe>(text) else {
        return Ok(None);
    };
    if probe.format.as_deref() != Some(FORMAT) {
        return Ok(None);
    }
    let version = probe.version.unwrap_or_default();
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok());
    match major {
        Some(major) if major <= MAJOR => {}
        _ => {
            return Err(AgentContextError::invalid(format!(
                "the session record is version {version:?}; this library reads version {MAJOR}.x"
            )))
        }
    }
    Ok(Some(Header {
        format: FORMAT.to_owned(),
        version,
        session_id: probe.session_id.unwrap_or_default(),
        agent_type: probe.agent_type.unwrap_or_default(),
        created_at: probe.created_at.unwrap_or_default(),
    }))
}
