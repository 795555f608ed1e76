//! A record kept as rows, one per line (a database's store): what each
//! line is, as the reader reads it, so that the store can key it, find a
//! page's lines with a query and hand them back to the reader. The store
//! keeps every line as it was given and reads nothing itself; what it may
//! leave out of a read is said here.
//!
//! A page of a conversation ([`conversation_page`](super::page::conversation_page))
//! after a cursor reads the same from the whole record as from these lines
//! of it, in order: the lines that are not entries (the header among them),
//! the lines that name a part ([`names_part`](super::page::names_part)), and the entries after the
//! cursor in whole turns — every line from the first after the cursor up to
//! the end of the turn of the last one the page may hold.

use serde::Serialize;

use super::page::names_part;
use super::read::{read_record, ReadOptions};

/// One line of a batch, as a store keys it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LineKey {
    /// The entry's `seq`, as decimal digits (a JS number cannot hold every
    /// `u64`); `None` for a line that is not an entry (the header, a line
    /// the reader skips) or whose `seq` is above `i64::MAX` (a database's
    /// signed key).
    pub seq: Option<String>,
    pub kind: Option<String>,
    pub turn: Option<u64>,
    /// The line must be in every read of the record a store hands the
    /// reader: it is no entry, or it names a part.
    pub always: bool,
    /// An entry whose `seq` is not above the last entry's: the reader of
    /// the whole record skips it (written twice, or out of order). A store
    /// that selects lines refuses it, as what it skips depends on every
    /// line before it.
    pub behind: bool,
}

/// The keys of the whole lines of `batch` (each ending with `\n`; a last
/// piece without one is not a line), appended after a record whose last
/// entry's `seq` is `last_seq` (0: none yet).
pub fn line_keys(batch: &[u8], mut last_seq: u64) -> Vec<LineKey> {
    let mut keys = Vec::new();
    let mut start = 0;
    while let Some(end) = memchr::memchr(b'\n', &batch[start..]).map(|at| start + at) {
        let line = &batch[start..=end];
        start = end + 1;
        let read = read_record(line, ReadOptions::default()).ok();
        let entry = read
            .as_ref()
            .filter(|r| r.header.is_none())
            .and_then(|r| r.lines.first())
            .filter(|l| i64::try_from(l.seq).is_ok());
        keys.push(match entry {
            Some(l) => {
                let behind = l.seq <= last_seq;
                last_seq = last_seq.max(l.seq);
                LineKey {
                    seq: Some(l.seq.to_string()),
                    kind: Some(l.kind.to_string()),
                    turn: l.turn,
                    always: names_part(&l.kind, l.text),
                    behind,
                }
            }
            None => LineKey {
                seq: None,
                kind: None,
                turn: None,
                always: true,
                behind: false,
            },
        });
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::page::conversation_page;

    fn key(seq: u64, kind: &str, turn: Option<u64>, always: bool) -> LineKey {
        LineKey {
            seq: Some(seq.to_string()),
            kind: Some(kind.to_owned()),
            turn,
            always,
            behind: false,
        }
    }

    fn none() -> LineKey {
        LineKey {
            seq: None,
            kind: None,
            turn: None,
            always: true,
            behind: false,
        }
    }

    #[test]
    fn each_line_is_keyed_as_the_reader_reads_it() {
        let batch = concat!(
            "{\"format\":\"agent-context/session-record\",\"version\":\"2.0\",\"conversationId\":\"c\",\"createdAt\":1}\n",
            "{\"seq\":1,\"at\":5,\"kind\":\"part\",\"agentType\":\"a\",\"protocol\":\"acp\",\"reason\":\"opened\",\"fromTurn\":1}\n",
            "{\"seq\":2,\"at\":5,\"kind\":\"request\",\"turn\":1,\"text\":\"hi\"}\n",
            "garbage\n",
            "{\"seq\":2,\"at\":5,\"kind\":\"text\",\"turn\":1,\"text\":\"twice\"}\n",
            "{\"at\":6,\"seq\":3,\"turn\":1,\"kind\":\"text\",\"text\":\"by hand\"}\n",
            "{\"seq\":4,\"at\":7,\"kind\":\"turnEnd\",\"turn\":1,\"durationMs\":1}\n",
            "{\"seq\":5,\"at\":7,\"kind\":\"turnEnd\",\"turn\":2,\"durationMs\":1,\"agentSessionId\":\"s\"}\n",
            "{\"seq\":99999999999999999999,\"at\":7,\"kind\":\"closed\"}\n",
            "{\"seq\":9223372036854775808,\"at\":7,\"kind\":\"closed\"}\n",
            "\n",
            "{\"seq\":6,\"at\":7,\"kind\":\"clo",
        );
        assert_eq!(
            line_keys(batch.as_bytes(), 0),
            vec![
                none(),
                key(1, "part", None, true),
                key(2, "request", Some(1), false),
                none(),
                LineKey {
                    behind: true,
                    ..key(2, "text", Some(1), false)
                },
                key(3, "text", Some(1), false),
                key(4, "turnEnd", Some(1), false),
                key(5, "turnEnd", Some(2), true),
                none(),
                none(),
                none(),
            ]
        );
        // After a record whose last entry is seq 2, seq 1 and 2 are behind it.
        let keys = line_keys(batch.as_bytes(), 2);
        assert!(keys[1].behind && keys[2].behind && keys[4].behind);
        assert_eq!(keys[5], key(3, "text", Some(1), false));
    }

    /// The lines a store reads for a page after `after`, as the Postgres
    /// store selects them: every line it must always read, and the entries
    /// after the cursor in whole turns (up to the turn of the `window`-th
    /// entry with a turn after the cursor, counting from 0; all of them
    /// without `window`). Also the `seq` of the first entry left out after
    /// the window (`None`: the window reached the end).
    fn selected(record: &str, after: u64, window: Option<usize>) -> (String, Option<u64>) {
        let keys = line_keys(record.as_bytes(), 0);
        let lines: Vec<&str> = record.split_inclusive('\n').collect();
        let seq = |k: &LineKey| k.seq.as_deref().map(|s| s.parse::<u64>().unwrap());
        let after_cursor: Vec<usize> = (0..lines.len())
            .filter(|&i| seq(&keys[i]).is_some_and(|s| s > after))
            .collect();
        let turned: Vec<usize> = after_cursor
            .iter()
            .copied()
            .filter(|&i| keys[i].turn.is_some())
            .collect();
        let stop = window.and_then(|w| turned.get(w)).and_then(|&i| {
            let last = keys[i].turn.unwrap();
            after_cursor
                .iter()
                .copied()
                .find(|&j| keys[j].turn.is_some_and(|t| t > last))
                .and_then(|j| seq(&keys[j]))
        });
        let text = (0..lines.len())
            .filter(|&i| {
                keys[i].always
                    || seq(&keys[i]).is_some_and(|s| s > after && stop.map_or(true, |e| s < e))
            })
            .map(|i| lines[i])
            .collect();
        (text, stop)
    }

    #[test]
    fn a_page_reads_the_same_from_the_lines_a_store_selects() {
        let (record, seq) = crate::record::page::tests::sample_record();
        let strip = |p: crate::record::page::Page<'_>| {
            (
                p.lines.iter().map(|l| l.to_vec()).collect::<Vec<_>>(),
                p.part_of,
                p.parts,
                p.cursor,
                p.skipped,
            )
        };
        for checked in [false, true] {
            for after in 0..=seq {
                for limit in [None, Some(1), Some(2), Some(3), Some(5), Some(8)] {
                    let options = ReadOptions { after, limit };
                    let whole =
                        strip(conversation_page(record.as_bytes(), options, checked).unwrap());
                    // The store's window starts at `limit` entries and doubles
                    // until the page is whole inside it, or it reaches the end.
                    let mut window = limit;
                    loop {
                        let (part, stop) = selected(&record, after, window);
                        let page =
                            strip(conversation_page(part.as_bytes(), options, checked).unwrap());
                        let inside = stop.map_or(true, |stop| {
                            limit.is_some_and(|l| page.0.len() == l) && page.3 < stop
                        });
                        if !inside {
                            window = window.map(|w| w * 2);
                            continue;
                        }
                        assert_eq!(
                            page, whole,
                            "after {after}, limit {limit:?}, checked {checked}"
                        );
                        break;
                    }
                }
            }
        }
    }
}
