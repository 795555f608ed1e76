//! Reading a record back: a pure function of its bytes. What is read is
//! what was appended whole, in order: a torn last line is dropped, and a
//! line that is not an entry of this format, or whose `seq` is not above
//! the last one's, is skipped — never an error. Only a record of a newer
//! major version than this library's is refused.

use std::borrow::Cow;

use agent_context_scan::json_check::{check_line, check_object, line_end};
use serde_json::Value;

use super::entry::{Header, FORMAT, MAJOR};
use crate::error::{AgentContextError, Result};
use crate::formats::host_value::{self as host, HostValue};

/// Which entries to read: those after the cursor `after` (0: from the
/// first), at most `limit` of them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ReadOptions {
    pub after: u64,
    pub limit: Option<usize>,
}

impl ReadOptions {
    /// `{ after?, limit? }` as the caller gave it (left out: every entry):
    /// whole numbers `>= 0` up to 2^53.
    pub fn read<V: HostValue>(options: &V) -> Result<ReadOptions> {
        if !host::given(options, "options")? {
            return Ok(ReadOptions::default());
        }
        let whole = |key: &str| -> Result<Option<u64>> {
            let value = host::field(options, "options.", key)?;
            if host::is_absent(&value) {
                return Ok(None);
            }
            let n = host::whole(&value, crate::formats::js_number::cursor_from_number);
            n.map(Some)
                .ok_or_else(|| host::not_whole(&format!("options.{key}"), &value))
        };
        Ok(ReadOptions {
            after: whole("after")?.unwrap_or(0),
            limit: whole("limit")?.map(|n| usize::try_from(n).unwrap_or(usize::MAX)),
        })
    }
}

/// `summarizeSessionRecord`'s `{ writing? }`: whether a writer holds the record.
pub fn writing_option<V: HostValue>(options: &V) -> Result<bool> {
    if !host::given(options, "options")? {
        return Ok(false);
    }
    let path = || "options.writing".to_owned();
    Ok(host::optional_bool(host::field(options, "options.", "writing")?, &path)?.unwrap_or(false))
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
    /// Whole lines after the cursor that are not entries (garbage, a line
    /// torn and ended later, a `seq` written twice): skipped, counted.
    pub skipped: u64,
}

/// The entries of `record` (its bytes) that `options` asks for. `record`
/// may be any part of a record that starts at a line: the header is
/// optional.
pub fn read_record(record: &[u8], options: ReadOptions) -> Result<RecordRead<'_>> {
    read(record, options)
}

/// [`read_record`] of text already known to be UTF-8.
pub fn read_record_str(record: &str, options: ReadOptions) -> Result<RecordRead<'_>> {
    read(record.as_bytes(), options)
}

fn read(record: &[u8], options: ReadOptions) -> Result<RecordRead<'_>> {
    let mut out = RecordRead {
        header: None,
        lines: Vec::new(),
        cursor: options.after,
        skipped: 0,
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
    let mut start = 0;
    while start <= whole.len() && out.lines.len() < limit {
        let rest = &whole[start..];
        if std::mem::take(&mut first) {
            let end = line_end(whole, start);
            if let Some(header) = header_of(&whole[start..end])? {
                out.header = Some(header);
                start = end + 1;
                continue;
            }
        }
        // An entry at or below the floor is never read, whatever it holds.
        if let Some(seq) = seq_prefix(rest) {
            if seq <= floor {
                // Written twice (above the cursor asked for): counted.
                out.skipped += u64::from(seq > options.after);
                start = line_end(whole, start) + 1;
                continue;
            }
        }
        let mut found = [None; 4];
        let (end, ok) = check_line(whole, start, &KEYS, &mut found);
        let line = if ok {
            entry_of(whole, start..end, &found)
        } else {
            None
        };
        let blank = start == end;
        start = end + 1;
        let Some(line) = line else {
            out.skipped += u64::from(!blank);
            continue;
        };
        if line.seq <= floor {
            out.skipped += 1;
            continue;
        }
        floor = line.seq;
        out.cursor = line.seq;
        out.lines.push(line);
    }
    Ok(out)
}

/// What [`read_record_by_seq`] read: each line's `seq` (from its prefix)
/// and text, and the cursor.
#[derive(Clone, Debug, PartialEq)]
pub struct LinesBySeq<'a> {
    pub lines: Vec<(u64, &'a [u8])>,
    pub cursor: u64,
    /// Lines after the cursor asked for whose `seq` is not above the last
    /// one read (written twice): skipped, counted, as [`RecordRead::skipped`].
    pub skipped: u64,
}

/// `lines` (each a JSON object) as the text of one JSON array, for a
/// reader that parses them at once.
pub fn json_array<'a>(lines: impl ExactSizeIterator<Item = &'a [u8]> + Clone) -> Vec<u8> {
    let size = lines.clone().map(|l| l.len() + 1).sum::<usize>() + 2;
    let mut array = Vec::with_capacity(size);
    array.push(b'[');
    for (i, line) in lines.enumerate() {
        if i > 0 {
            array.push(b',');
        }
        array.extend_from_slice(line);
    }
    array.push(b']');
    array
}

/// [`read_record`] of a record every line of which the recorder wrote,
/// taken at its word: each line is placed by its `seq` and must begin as
/// the recorder begins an entry (`{"seq":N,"at":N,"kind":"word"`, a turn
/// or not); nothing after that is checked. `None` when the record is not
/// UTF-8, its first line is a header this reader refuses or a line begins
/// otherwise (a blank or torn line, garbage, a line written by hand): then
/// only [`read_record`] says what is in it. The caller parses the lines it
/// is given and checks they are as many entries, each with its line's
/// `seq` (else it reads with [`read_record`]).
pub fn read_record_by_seq(record: &[u8], options: ReadOptions) -> Option<LinesBySeq<'_>> {
    let mut out = LinesBySeq {
        lines: Vec::new(),
        cursor: options.after,
        skipped: 0,
    };
    let Some(end) = memchr::memrchr(b'\n', record) else {
        return Some(out);
    };
    let whole = &record[..end];
    std::str::from_utf8(whole).ok()?;
    let limit = options.limit.unwrap_or(usize::MAX);
    let mut reader = BySeq::after(options.after);
    let mut start = 0;
    while start <= whole.len() && out.lines.len() < limit {
        let end = line_end(whole, start);
        let line = &whole[start..end];
        start = end + 1;
        if let BySeqLine::Entry(seq) = reader.line(line)? {
            out.cursor = seq;
            out.lines.push((seq, line));
        }
    }
    out.skipped = reader.skipped;
    Some(out)
}

/// [`read_record_by_seq`]'s reading, one whole line (without its `\n`)
/// after another from the record's first: for a reader that reads a
/// record as it grows.
#[derive(Clone, Debug, Default)]
pub struct BySeq {
    after: u64,
    /// The last entry's `seq`, or `after`.
    floor: u64,
    started: bool,
    /// As [`LinesBySeq::skipped`].
    pub skipped: u64,
}

/// What [`BySeq::line`] read a line as.
#[derive(Clone, Debug, PartialEq)]
pub enum BySeqLine {
    /// The record's first line, its header.
    Header(Header),
    /// An entry written twice (its `seq` not above the last one's), or one
    /// at or below `after`.
    Skipped,
    /// An entry above the last one: its `seq`.
    Entry(u64),
}

impl BySeq {
    /// A reader of the entries after `after`.
    pub fn after(after: u64) -> BySeq {
        BySeq {
            after,
            floor: after,
            ..BySeq::default()
        }
    }

    /// The next line: `None` when it is not as the recorder writes one (or
    /// a first line that is no header this reader takes).
    pub fn line(&mut self, line: &[u8]) -> Option<BySeqLine> {
        if !std::mem::replace(&mut self.started, true) && !line.starts_with(b"{\"seq\":") {
            return header_of(line).ok()?.map(BySeqLine::Header);
        }
        let seq = seq_prefix(line).filter(|&seq| seq > 0)?;
        if seq <= self.floor {
            self.skipped += u64::from(seq > self.after);
            return Some(BySeqLine::Skipped);
        }
        begins_as_recorded(line)?;
        self.floor = seq;
        Some(BySeqLine::Entry(seq))
    }
}

/// [`read_record`] of the whole of a record the recorder wrote, taken at its
/// word as [`read_record_by_seq`] takes it, each line's `at`, `kind` and
/// `turn` from its prefix; a line must also end as an object does (`}`), so
/// that a line torn and ended later sends the read to [`read_record`].
/// `None` when any line is not as the recorder writes one.
pub fn read_record_as_recorded(record: &[u8]) -> Option<RecordRead<'_>> {
    let by_seq = read_record_by_seq(record, ReadOptions::default())?;
    let header = match memchr::memchr(b'\n', record) {
        Some(end) if !record.starts_with(b"{\"seq\":") => header_of(&record[..end]).ok()?,
        _ => None,
    };
    let mut lines = Vec::with_capacity(by_seq.lines.len());
    for (seq, text) in by_seq.lines {
        if text.last() != Some(&b'}') {
            return None;
        }
        let (at, kind, turn) = prefix_fields(text)?;
        lines.push(Line {
            seq,
            at,
            turn,
            kind: Cow::Borrowed(kind),
            text,
        });
    }
    Some(RecordRead {
        header,
        lines,
        cursor: by_seq.cursor,
        skipped: 0,
    })
}

/// `at`, `kind` and `turn` of a line that begins as the recorder writes one.
fn prefix_fields(line: &[u8]) -> Option<(u64, &str, Option<u64>)> {
    let digits = |text: &[u8]| text.iter().take_while(|b| b.is_ascii_digit()).count();
    let number = |text: &[u8]| std::str::from_utf8(text).ok()?.parse::<u64>().ok();
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let rest = rest[digits(rest)..].strip_prefix(b",\"at\":")?;
    let n = digits(rest);
    let at = number(&rest[..n])?;
    let rest = rest[n..].strip_prefix(b",\"kind\":\"")?;
    let word = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let kind = std::str::from_utf8(&rest[..word]).ok()?;
    let turn = rest[word..]
        .strip_prefix(b"\",\"turn\":")
        .and_then(|t| number(&t[..digits(t)]));
    Some((at, kind, turn))
}

/// `Some` when `line` begins as the recorder writes an entry:
/// `{"seq":N,"at":N,"kind":"word"`, then `,"turn":N` or not, then `,` or
/// `}` (a `seq` above 0, a whole-number `at`, a string `kind`, a turn that
/// is a whole number: what the full reader asks of an entry).
fn begins_as_recorded(line: &[u8]) -> Option<()> {
    let digits = |text: &[u8]| text.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let rest = rest[digits(rest)..].strip_prefix(b",\"at\":")?;
    let n = digits(rest);
    let rest = rest.get(n.max(1)..).filter(|_| n > 0)?;
    let rest = rest.strip_prefix(b",\"kind\":\"")?;
    let word = rest.iter().take_while(|b| b.is_ascii_alphabetic()).count();
    let mut rest = rest[word..].strip_prefix(b"\"").filter(|_| word > 0)?;
    if let Some(turn) = rest.strip_prefix(b",\"turn\":") {
        let n = digits(turn);
        rest = turn.get(n..).filter(|_| n > 0)?;
    }
    matches!(rest.first(), Some(b',' | b'}')).then_some(())
}

/// The `seq` of a line the encoder wrote (`{"seq":N,`), read without
/// parsing the rest.
fn seq_prefix(text: &[u8]) -> Option<u64> {
    let digits = text.strip_prefix(b"{\"seq\":")?;
    let mut end = 0;
    while end < digits.len() && digits[end].is_ascii_digit() {
        end += 1;
    }
    if digits.get(end) != Some(&b',') {
        return None;
    }
    whole_number(&digits[..end])
}

/// The top-level fields of an entry the reader reads.
const KEYS: [&[u8]; 4] = [b"seq", b"at", b"kind", b"turn"];

/// The line `line` of `text` as an entry, its top-level fields `found`
/// (checked whole already): a whole-number `seq` above 0, a whole-number
/// `at` and a string `kind`. Checked without building it: `JSON.parse`
/// builds it.
fn entry_of<'a>(
    text: &'a [u8],
    line: std::ops::Range<usize>,
    found: &[Option<(usize, usize)>; 4],
) -> Option<Line<'a>> {
    let raw = |i: usize| found[i].map(|(start, end)| &text[start..end]);
    let seq = whole_number(raw(0)?)?;
    if seq == 0 {
        return None;
    }
    let turn = match raw(3) {
        None => None,
        Some(b"null") => None,
        Some(turn) => Some(whole_number(turn)?),
    };
    Some(Line {
        seq,
        at: whole_number(raw(1)?)?,
        turn,
        kind: string_of(raw(2)?)?,
        text: &text[line],
    })
}

/// A JSON number that is a whole number `>= 0` written without a fraction
/// or an exponent, within `u64`.
fn whole_number(raw: &[u8]) -> Option<u64> {
    if raw.is_empty() {
        return None;
    }
    let mut n = 0u64;
    for &digit in raw {
        if !digit.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_add(u64::from(digit - b'0'))?;
    }
    Some(n)
}

/// A JSON string's text (`raw` with its quotes, checked already).
fn string_of(raw: &[u8]) -> Option<Cow<'_, str>> {
    let inner = raw.strip_prefix(b"\"")?.strip_suffix(b"\"")?;
    if !inner.contains(&b'\\') {
        return std::str::from_utf8(inner).ok().map(Cow::Borrowed);
    }
    let value: Value = serde_json::from_str(std::str::from_utf8(raw).ok()?).ok()?;
    value.as_str().map(|s| Cow::Owned(s.to_owned()))
}

/// The header, when `text` is one: a JSON object whose `format` is this
/// format's. A newer major version is refused.
fn header_of(text: &[u8]) -> Result<Option<Header>> {
    let mut format = [None];
    if !check_object(text, &[b"format"], &mut format) {
        return Ok(None);
    }
    let quoted = format[0].map(|(start, end)| &text[start..end]);
    if quoted.and_then(string_of).as_deref() != Some(FORMAT) {
        return Ok(None);
    }
    let Some(probe) = std::str::from_utf8(text)
        .ok()
        .and_then(|t| serde_json::from_str::<Value>(t).ok())
    else {
        return Ok(None);
    };
    if probe.get("format").and_then(Value::as_str) != Some(FORMAT) {
        return Ok(None);
    }
    let text_of = |key: &str| probe.get(key).and_then(Value::as_str).map(str::to_owned);
    let version = text_of("version").unwrap_or_default();
    let major = version
        .split('.')
        .next()
        .and_then(|m| m.parse::<u64>().ok());
    match major {
        Some(major) if major <= MAJOR => {}
        _ => {
            return Err(AgentContextError::invalid(format!(
                "the session record is version {version:?}; this library reads versions up to {MAJOR}.x"
            )))
        }
    }
    let v1 = major.is_some_and(|m| m < 2);
    Ok(Some(Header {
        format: FORMAT.to_owned(),
        version,
        conversation_id: if v1 { None } else { text_of("conversationId") },
        session_id: if v1 {
            Some(text_of("sessionId").unwrap_or_default())
        } else {
            None
        },
        agent_type: if v1 {
            Some(text_of("agentType").unwrap_or_default())
        } else {
            None
        },
        created_at: probe
            .get("createdAt")
            .and_then(Value::as_u64)
            .unwrap_or_default(),
        continues: if v1 { None } else { text_of("continues") },
    }))
}
