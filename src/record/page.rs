//! A conversation read as a page of entries, each named by the agent
//! session (the part) it belongs to: what `history()`, `watch()` and
//! `readConversation` give. A failed attempt's text is never an entry of
//! the page: what such an attempt wrote before a tool call (its `text`
//! entries) is left out — its `attemptEnd` holds it.

use std::borrow::Cow;

use serde_json::Value;

use super::entry::Header;
use super::read::{read_record, read_record_by_seq, BySeq, BySeqLine, ReadOptions};
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
                    let (_, kind, _) = entry_prefix(text)?;
                    Some((seq, text, Cow::Borrowed(kind)))
                })
                .collect();
            (header, lines, read.skipped, true)
        }
        None => {
            let read = read_record(record, whole)?;
            let lines = read
                .lines
                .iter()
                .map(|l| (l.seq, l.text, l.kind.clone()))
                .collect();
            (read.header, lines, read.skipped, false)
        }
    };
    let mut scan = Scan::default();
    for (seq, text, kind) in &all {
        scan.line(*seq, text, kind, header.as_ref());
    }
    let from = all.partition_point(|(seq, _, _)| *seq <= options.after);
    let lines = all[from..].iter().map(|(seq, text, _)| (*seq, *text));
    Ok(scan.page(lines, options, skipped, as_recorded))
}

/// A line of the record: its `seq`, text and `kind`.
type Kept<'a> = (u64, &'a [u8], Cow<'a, str>);

/// What a page needs to know of the lines read before it, told each line in
/// the record's order: the parts and where each begins, and the text lines
/// of the attempts that failed.
#[derive(Clone, Debug, Default)]
struct Scan {
    parts: Vec<PartName>,
    /// `(seq, part)`: the line at `seq` began the part at `part` of
    /// `parts`; in increasing order.
    part_at: Vec<(u64, usize)>,
    /// Text lines of attempts that failed, in increasing order (looked up by
    /// a binary search).
    failed: Vec<u64>,
    /// Text lines of the running attempt.
    attempt_texts: Vec<u64>,
    /// The last line of the last part naming its agent session, not read
    /// yet: only a part's last such line names it, read when the part ends
    /// or a page is made (a long conversation has one a turn).
    named_end: Option<Vec<u8>>,
}

impl Scan {
    fn line(&mut self, seq: u64, text: &[u8], kind: &str, header: Option<&Header>) {
        if matches!(kind, "part" | "opened") {
            name_last(&mut self.parts, self.named_end.take().as_deref());
        }
        let parsed = |text: &[u8]| serde_json::from_slice::<Value>(text).unwrap_or(Value::Null);
        let str_of = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_owned);
        match kind {
            "part" => {
                let p = parsed(text);
                self.parts.push(PartName {
                    session_id: str_of(&p, "sessionId").unwrap_or_default(),
                    agent_type: str_of(&p, "agentType").unwrap_or_default(),
                });
                self.part_at.push((seq, self.parts.len() - 1));
            }
            "opened" if self.parts.is_empty() => {
                let p = parsed(text);
                let id = str_of(&p, "agentSessionId")
                    .or_else(|| header.and_then(|h| h.session_id.clone()))
                    .unwrap_or_default();
                self.parts.push(PartName {
                    session_id: id,
                    agent_type: str_of(&p, "agentType").unwrap_or_default(),
                });
                self.part_at.push((seq, 0));
            }
            "turnEnd" | "resumed" | "loaded" => {
                if names_part(kind, text) {
                    self.named_end = Some(text.to_vec());
                }
                self.attempt_texts.clear();
            }
            "request" | "interrupted" => self.attempt_texts.clear(),
            "text" => self.attempt_texts.push(seq),
            "attemptEnd" => self.failed.append(&mut self.attempt_texts),
            _ => {}
        }
    }

    /// The page of `lines` (each `(seq, text)`, after `options.after`, in
    /// order), each line named by its part as the lines read so far name
    /// it. A failed attempt's text lines are left out (the cursor passes
    /// them).
    fn page<'a>(
        &self,
        lines: impl Iterator<Item = (u64, &'a [u8])>,
        options: ReadOptions,
        skipped: u64,
        as_recorded: bool,
    ) -> Page<'a> {
        let mut page = Page {
            cursor: options.after,
            skipped,
            as_recorded,
            parts: self.parts.clone(),
            ..Page::default()
        };
        name_last(&mut page.parts, self.named_end.as_deref());
        let limit = options.limit.unwrap_or(usize::MAX);
        for (seq, text) in lines {
            if page.lines.len() >= limit {
                break;
            }
            page.cursor = seq;
            if self.failed.binary_search(&seq).is_ok() {
                continue;
            }
            let began = self.part_at.partition_point(|&(at, _)| at <= seq);
            page.lines.push(text);
            page.part_of
                .push(began.checked_sub(1).map(|i| self.part_at[i].1));
        }
        page
    }
}

/// The pages of a record that only grows (a conversation's own, as it
/// runs), read as it grows: each line is read once, so that a page after a
/// cursor costs the lines after it, not the whole record (`history()` and
/// `watch()` read one at every turn). A record with a line the recorder did
/// not write as it writes one is read whole each time, as
/// [`conversation_page`] reads it.
#[derive(Clone, Debug, Default)]
pub struct PageIndex {
    /// The bytes read: the record up to the end of its last whole line.
    read: usize,
    /// A line not as the recorder writes one was read.
    whole: bool,
    reader: BySeq,
    header: Option<Header>,
    /// Each entry read: its `seq` and where its line is in the record.
    lines: Vec<(u64, std::ops::Range<usize>)>,
    scan: Scan,
}

impl PageIndex {
    /// The page of `record` (the bytes it read before, and maybe more)
    /// after `options.after`: [`conversation_page`]'s, unchecked.
    pub fn page<'a>(&mut self, record: &'a [u8], options: ReadOptions) -> Result<Page<'a>> {
        if record.len() < self.read {
            *self = PageIndex::default();
        }
        if !self.whole {
            self.read_more(record);
        }
        if self.whole {
            return conversation_page(record, options, false);
        }
        let from = self.lines.partition_point(|(seq, _)| *seq <= options.after);
        let lines = self.lines[from..]
            .iter()
            .map(|(seq, at)| (*seq, &record[at.clone()]));
        Ok(self.scan.page(lines, options, self.reader.skipped, true))
    }

    fn read_more(&mut self, record: &[u8]) {
        let Some(end) = memchr::memrchr(b'\n', &record[self.read..]).map(|e| self.read + e) else {
            return;
        };
        if std::str::from_utf8(&record[self.read..end]).is_err() {
            self.whole = true;
            return;
        }
        let mut start = self.read;
        while start <= end {
            let stop = memchr::memchr(b'\n', &record[start..=end]).map_or(end, |e| start + e);
            let line = &record[start..stop];
            match self.reader.line(line) {
                None => {
                    self.whole = true;
                    return;
                }
                Some(BySeqLine::Header(header)) => self.header = Some(header),
                Some(BySeqLine::Skipped) => {}
                Some(BySeqLine::Entry(seq)) => {
                    if let Some((_, kind, _)) = entry_prefix(line) {
                        self.scan.line(seq, line, kind, self.header.as_ref());
                        self.lines.push((seq, start..stop));
                    }
                }
            }
            start = stop + 1;
        }
        self.read = end + 1;
    }
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

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    /// A record of six turns (the even ones failed over to another agent
    /// after an attempt that wrote text), each ending with the agent
    /// session it ran in, then a line no recorder writes and the closing
    /// entry; and the last entry's `seq`.
    pub fn sample_record() -> (String, u64) {
        let turn = |t: u64, seq: u64, failed: bool| -> String {
            let mut s = format!(
                "{{\"seq\":{seq},\"at\":1,\"kind\":\"request\",\"turn\":{t},\"text\":\"q{t}\"}}\n"
            );
            let line = |n: u64, rest: &str| format!("{{\"seq\":{},\"at\":1,{rest}}}\n", seq + n);
            let text = |n: u64, text: &str| {
                line(
                    n,
                    &format!("\"kind\":\"text\",\"turn\":{t},\"text\":\"{text}\""),
                )
            };
            s += &text(1, "a");
            if failed {
                // Three lines of a failed attempt: its texts are no entries of a page.
                s += &text(2, "b");
                s += &text(3, "c");
                s += &line(4, &format!("\"kind\":\"attemptEnd\",\"turn\":{t},\"attempt\":1,\"error\":{{\"kind\":\"x\",\"message\":\"m\"}}"));
                s += &line(5, &format!("\"kind\":\"part\",\"agentType\":\"b\",\"protocol\":\"cli\",\"reason\":\"failover\",\"fromTurn\":{t}"));
            } else {
                s += &text(2, "b");
                s += &line(3, "\"kind\":\"usage\",\"usage\":{}");
                s += &line(4, "\"kind\":\"mode\",\"mode\":\"m\"");
                s += &line(5, "\"kind\":\"usage\",\"usage\":{}");
            }
            s += &text(6, "d");
            s += &line(7, &format!("\"kind\":\"turnEnd\",\"turn\":{t},\"durationMs\":1,\"agentSessionId\":\"s{t}\""));
            s
        };
        let mut record = String::from("{\"format\":\"agent-context/session-record\",\"version\":\"2.0\",\"conversationId\":\"c\",\"createdAt\":1}\n{\"seq\":1,\"at\":1,\"kind\":\"part\",\"agentType\":\"a\",\"protocol\":\"cli\",\"reason\":\"opened\",\"fromTurn\":1}\n");
        let mut seq = 2;
        for t in 1..=6 {
            record += &turn(t, seq, t % 2 == 0);
            seq += 8;
        }
        record += "not an entry\n";
        record += &format!("{{\"seq\":{seq},\"at\":1,\"kind\":\"closed\"}}\n");
        (record, seq)
    }

    /// Every page a `PageIndex` reads of `record` as it grows a byte at a
    /// time (torn lines included) is the page the whole record reads.
    fn pages_as_it_grows(record: &str) {
        let strip = |p: Page<'_>| {
            (
                p.lines.iter().map(|l| l.to_vec()).collect::<Vec<_>>(),
                p.part_of,
                p.parts,
                p.cursor,
                p.skipped,
                p.as_recorded,
            )
        };
        let bytes = record.as_bytes();
        let mut index = PageIndex::default();
        let mut compared = 0;
        for end in 0..=bytes.len() {
            let grown = &bytes[..end];
            let last =
                crate::record::read_record(grown, ReadOptions::default()).map_or(0, |r| r.cursor);
            for after in [0, last / 2, last.saturating_sub(3), last] {
                for limit in [None, Some(1), Some(4)] {
                    let options = ReadOptions { after, limit };
                    let kept = strip(index.page(grown, options).unwrap());
                    let whole = strip(conversation_page(grown, options, false).unwrap());
                    assert_eq!(kept, whole, "{end} bytes, after {after}, limit {limit:?}");
                    compared += 1;
                }
            }
        }
        assert!(compared > bytes.len());
    }

    #[test]
    fn a_page_index_reads_what_the_whole_record_reads_at_every_length() {
        let (record, _) = sample_record();
        // Up to the line no recorder writes, then read whole.
        pages_as_it_grows(&record);
        // An entry written twice (skipped, counted) after the second turn.
        let second = record.find("{\"seq\":18,").unwrap();
        let twice = "{\"seq\":12,\"at\":1,\"kind\":\"text\",\"turn\":2,\"text\":\"again\"}\n";
        pages_as_it_grows(&format!(
            "{}{twice}{}",
            &record[..second],
            &record[second..]
        ));
        // A first part opened without a part line (a 1.x record): named by
        // the header.
        let header = Header::v1("h", "a", 1).line();
        let opened = "{\"seq\":1,\"at\":1,\"kind\":\"opened\",\"agentType\":\"a\"}\n";
        let rest = &record[record.find("{\"seq\":2,").unwrap()..];
        pages_as_it_grows(&format!("{header}{opened}{rest}"));
        // No header at all.
        pages_as_it_grows(&format!("{opened}{rest}"));
    }

    #[test]
    fn a_page_index_reads_the_lines_after_the_cursor_only() {
        let (record, _) = sample_record();
        let cut = record.find("not an entry").unwrap();
        let mut index = PageIndex::default();
        let page = index
            .page(&record.as_bytes()[..cut], ReadOptions::default())
            .unwrap();
        assert!(page.as_recorded && !page.lines.is_empty());
        // The record grew; its earlier bytes are not read again: changed
        // under the index, they still read as they were.
        let mut grown = record.as_bytes()[..cut].to_vec();
        grown[..20].copy_from_slice(b"XXXXXXXXXXXXXXXXXXXX");
        let again = index.page(&grown, ReadOptions::default()).unwrap();
        assert_eq!(again.lines.len(), page.lines.len());
    }
}
