//! A conversation read as a page of entries, each named by the agent
//! session (the part) it belongs to: what `history()`, `watch()` and
//! `readConversation` give. A failed attempt's text is never an entry of
//! the page: what such an attempt wrote before a tool call (its `text`
//! entries) is left out — its `attemptEnd` holds it.

use std::borrow::Cow;

use serde_json::Value;

use super::entry::Header;
use super::read::{read_record, read_record_by_seq, ReadOptions};
use crate::error::Result;

/// An agent session, as a page names its entries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PartName {
    pub session_id: String,
    pub agent_type: String,
}

/// What [`conversation_page`] read: the entries' lines in order, the part
/// of each (an index of `parts`), the cursor and the lines skipped.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Page<'a> {
    pub lines: Vec<&'a [u8]>,
    pub part_of: Vec<Option<usize>>,
    pub parts: Vec<PartName>,
    pub cursor: u64,
    pub skipped: u64,
    /// Every line began as the recorder begins an entry (the caller may
    /// parse them at once, and check each object's `seq`).
    pub as_recorded: bool,
}

/// A line of the record: its `seq`, text, `kind` and `turn`.
type Kept<'a> = (u64, &'a [u8], Cow<'a, str>, Option<u32>);

impl Page<'_> {
    /// The page's lines as the text of one JSON array, each entry named by
    /// its part: `"sessionId"` and `"agentType"` put first in its object, so
    /// that the entry's own fields (a `part`'s own `sessionId`), written
    /// after, win when it is parsed.
    pub fn named_json_array(&self) -> Vec<u8> {
        let names: Vec<Vec<u8>> = self
            .parts
            .iter()
            .map(|p| {
                let quoted = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
                format!(
                    "\"sessionId\":{},\"agentType\":{},",
                    quoted(&p.session_id),
                    quoted(&p.agent_type)
                )
                .into_bytes()
            })
            .collect();
        let size = self.lines.iter().map(|l| l.len() + 1).sum::<usize>()
            + self
                .part_of
                .iter()
                .flatten()
                .map(|&p| names.get(p).map_or(0, Vec::len))
                .sum::<usize>()
            + 2;
        let mut array = Vec::with_capacity(size);
        array.push(b'[');
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                array.push(b',');
            }
            let name = self
                .part_of
                .get(i)
                .copied()
                .flatten()
                .and_then(|p| names.get(p));
            match (name, line.strip_prefix(b"{")) {
                // `{"seq":…` — never an empty object: an entry has `seq`.
                (Some(name), Some(rest)) if rest.first() != Some(&b'}') => {
                    array.push(b'{');
                    array.extend_from_slice(name);
                    array.extend_from_slice(rest);
                }
                _ => array.extend_from_slice(line),
            }
        }
        array.push(b']');
        array
    }
}

/// A line's `seq`, `kind` and `turn`, from the prefix the recorder writes
/// (`{"seq":N,"at":N,"kind":"word","turn":N`).
pub fn entry_prefix(line: &[u8]) -> Option<(u64, &str, Option<u32>)> {
    let digits = |t: &[u8]| t.iter().take_while(|b| b.is_ascii_digit()).count();
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let n = digits(rest);
    let seq = std::str::from_utf8(&rest[..n]).ok()?.parse().ok()?;
    let rest = rest[n..].strip_prefix(b",\"at\":")?;
    let rest = rest[digits(rest)..].strip_prefix(b",\"kind\":\"")?;
    let end = rest.iter().position(|&b| b == b'"')?;
    let kind = std::str::from_utf8(&rest[..end]).ok()?;
    let rest = &rest[end + 1..];
    let turn = rest.strip_prefix(b",\"turn\":").and_then(|t| {
        let n = digits(t);
        std::str::from_utf8(&t[..n]).ok()?.parse().ok()
    });
    Some((seq, kind, turn))
}

/// Whether an entry line of kind `kind` names a part, for a page: a
/// `part`, an `opened`, and a `turnEnd`, `resumed` or `loaded` that says
/// the agent's session id (a page names every entry of a part with the
/// part's last known id).
pub fn names_part(kind: &str, text: &[u8]) -> bool {
    match kind {
        "part" | "opened" => true,
        "turnEnd" | "resumed" | "loaded" => {
            memchr::memmem::find(text, b"\"agentSessionId\"").is_some()
        }
        _ => false,
    }
}

/// The page of `record` after `options.after` (at most `options.limit`
/// entries), its entries named by their parts. `checked`: every line is
/// checked whole (else a record every line of which begins as the
/// recorder writes one is taken at its word: see
/// [`read_record_by_seq`]).
pub fn conversation_page(record: &[u8], options: ReadOptions, checked: bool) -> Result<Page<'_>> {
    let whole = ReadOptions::default();
    let fast = if checked {
        None
    } else {
        read_record_by_seq(record, whole)
    };
    let (header, all, skipped, as_recorded): (Option<Header>, Vec<Kept<'_>>, u64, bool) = match fast
    {
        Some(read) => {
            let header = read_record(first_line(record), whole)
                .ok()
                .and_then(|r| r.header);
            let lines = read
                .lines
                .iter()
                .filter_map(|&(seq, text)| {
                    let (_, kind, turn) = entry_prefix(text)?;
                    Some((seq, text, Cow::Borrowed(kind), turn))
                })
                .collect();
            (header, lines, read.skipped, true)
        }
        None => {
            let read = read_record(record, whole)?;
            let lines = read
                .lines
                .iter()
                .map(|l| {
                    (
                        l.seq,
                        l.text,
                        l.kind.clone(),
                        l.turn.and_then(|t| u32::try_from(t).ok()),
                    )
                })
                .collect();
            (read.header, lines, read.skipped, false)
        }
    };
    let mut page = Page {
        cursor: options.after,
        skipped,
        as_recorded,
        ..Page::default()
    };
    // Text lines of the running attempt, and those of attempts that failed.
    let mut attempt_texts: Vec<u64> = Vec::new();
    // The last line of the part naming its agent session, not read yet.
    let mut named_end: Option<&[u8]> = None;
    // In increasing order: looked up by a binary search.
    let mut failed: Vec<u64> = Vec::new();
    let mut part_at: Vec<(u64, usize)> = Vec::new();
    let parsed = |text: &[u8]| serde_json::from_slice::<Value>(text).unwrap_or(Value::Null);
    let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
    for (seq, text, kind, _) in &all {
        if matches!(&**kind, "part" | "opened") {
            name_last(&mut page.parts, named_end.take());
        }
        match &**kind {
            "part" => {
                let p = parsed(text);
                page.parts.push(PartName {
                    session_id: str_of(&p, "sessionId").unwrap_or_default(),
                    agent_type: str_of(&p, "agentType").unwrap_or_default(),
                });
                part_at.push((*seq, page.parts.len() - 1));
            }
            "opened" if page.parts.is_empty() => {
                let p = parsed(text);
                let id = str_of(&p, "agentSessionId")
                    .or_else(|| header.as_ref().and_then(|h| h.session_id.clone()))
                    .unwrap_or_default();
                page.parts.push(PartName {
                    session_id: id,
                    agent_type: str_of(&p, "agentType").unwrap_or_default(),
                });
                part_at.push((*seq, 0));
            }
            "turnEnd" | "resumed" | "loaded" => {
                // Only the part's last such line names it: read at the
                // part's end (a long conversation has one a turn).
                if names_part(kind, text) {
                    named_end = Some(text);
                }
                attempt_texts.clear();
            }
            "request" | "interrupted" => attempt_texts.clear(),
            "text" => attempt_texts.push(*seq),
            "attemptEnd" => failed.append(&mut attempt_texts),
            _ => {}
        }
    }
    name_last(&mut page.parts, named_end.take());
    let limit = options.limit.unwrap_or(usize::MAX);
    let mut part = None;
    let mut next_part = 0;
    for (seq, text, _, _) in &all {
        while next_part < part_at.len() && part_at[next_part].0 <= *seq {
            part = Some(part_at[next_part].1);
            next_part += 1;
        }
        if *seq <= options.after {
            continue;
        }
        if page.lines.len() >= limit {
            break;
        }
        if failed.binary_search(seq).is_ok() {
            page.cursor = *seq;
            continue;
        }
        page.lines.push(text);
        page.part_of.push(part);
        page.cursor = *seq;
    }
    Ok(page)
}

/// The last part named by the session its `end` line (a `turnEnd`,
/// `resumed` or `loaded`) names.
fn name_last(parts: &mut [PartName], end: Option<&[u8]>) {
    let Some(id) = end.and_then(|e| super::fields::EndFields::of(e).agent_session_id) else {
        return;
    };
    if let Some(last) = parts.last_mut() {
        if last.session_id != id {
            last.session_id = id.into_owned();
        }
    }
}

/// The record's first line, `\n` included (where its header is).
fn first_line(record: &[u8]) -> &[u8] {
    match memchr::memchr(b'\n', record) {
        Some(end) => &record[..=end],
        None => &[],
    }
}
