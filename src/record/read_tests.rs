//! The record's reader: entries read back as written, pages with the
//! cursor, torn and garbled lines, versions, the header.

use super::tests::{entry, read_values, seqs, two_turns};
use super::*;

#[test]
fn reads_every_entry_and_the_header() {
    let record = two_turns();
    let (entries, cursor) = read_values(record.as_bytes(), ReadOptions::default());
    assert_eq!(seqs(&entries), (1..=10).collect::<Vec<_>>());
    assert_eq!(cursor, 10);
    let read = read_record(record.as_bytes(), ReadOptions::default()).unwrap();
    assert_eq!(read.header, Some(Header::v1("s-1", "claude-code", 1_000)));
    let kinds: Vec<_> = read.lines.iter().map(|l| l.kind.to_string()).collect();
    assert_eq!(
        kinds,
        [
            "opened", "request", "text", "toolCall", "toolCall", "text", "turnEnd", "request",
            "text", "turnEnd"
        ][..kinds.len()]
    );
    assert_eq!(kinds.len(), 10);
    assert_eq!(
        read_record_str(&record, ReadOptions::default()).unwrap(),
        read
    );
}

#[test]
fn after_and_limit_page_through_with_the_cursor() {
    let record = two_turns();
    let bytes = record.as_bytes();
    let (page, cursor) = read_values(
        bytes,
        ReadOptions {
            after: 0,
            limit: Some(4),
        },
    );
    assert_eq!((seqs(&page), cursor), (vec![1, 2, 3, 4], 4));
    let (page, cursor) = read_values(
        bytes,
        ReadOptions {
            after: cursor,
            limit: Some(4),
        },
    );
    assert_eq!((seqs(&page), cursor), (vec![5, 6, 7, 8], 8));
    let (page, cursor) = read_values(
        bytes,
        ReadOptions {
            after: cursor,
            limit: Some(4),
        },
    );
    assert_eq!((seqs(&page), cursor), (vec![9, 10], 10));
    // Nothing new: the cursor stays.
    let (page, cursor) = read_values(
        bytes,
        ReadOptions {
            after: 10,
            limit: None,
        },
    );
    assert_eq!((page.len(), cursor), (0, 10));
    let (page, cursor) = read_values(
        bytes,
        ReadOptions {
            after: 50,
            limit: None,
        },
    );
    assert_eq!((page.len(), cursor), (0, 50));
    let (page, _) = read_values(
        bytes,
        ReadOptions {
            after: 0,
            limit: Some(0),
        },
    );
    assert!(page.is_empty());
}

#[test]
fn a_torn_last_line_is_dropped_never_an_error() {
    let record = two_turns();
    let whole = read_values(record.as_bytes(), ReadOptions::default()).0;
    // Cut anywhere: what is read is every entry whose line ended before the cut.
    for cut in 0..record.len() {
        let part = &record.as_bytes()[..cut];
        let (entries, _) = read_values(part, ReadOptions::default());
        let complete = part
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            .saturating_sub(1);
        assert_eq!(entries, whole[..complete.min(whole.len())], "cut at {cut}");
    }
    // A last line that is whole JSON but has no `\n` was not written whole.
    let (entries, _) = read_values(record.trim_end().as_bytes(), ReadOptions::default());
    assert_eq!(entries.len(), whole.len() - 1);
}

#[test]
fn garbage_anywhere_changes_nothing_read() {
    let record = two_turns();
    let lines: Vec<&str> = record.lines().collect();
    let whole = read_values(record.as_bytes(), ReadOptions::default()).0;
    let garbage = [
        "",
        "not json at all",
        "{\"seq\":3,\"at\":5,\"kind\":\"text\",\"text\":\"a repeated seq\"}",
        "{\"seq\":\"10\",\"at\":5,\"kind\":\"text\"}",
        "{\"seq\":10,\"at\":-1,\"kind\":\"text\"}",
        "{\"seq\":10,\"at\":5,\"kind\":7}",
        "{\"seq\":10,\"at\":5,\"kind\":\"text\",\"text\":\"torn",
        "{\"seq\":10,\"at\":5,\"kind\":\"text\"} trailing",
        "{\"seq\":0,\"at\":5,\"kind\":\"text\"}",
        "[1,2,3]",
        "{\"at\":5,\"kind\":\"text\"}",
        "\u{0}\u{1}binary",
        "{\"seq\":10.5,\"at\":5,\"kind\":\"text\"}",
    ];
    for junk in garbage {
        // After the header, in the middle and at the end (a repeated
        // entry only after the one it repeats).
        for at in [1, 5, lines.len()] {
            if junk.contains("a repeated seq") && at == 1 {
                continue;
            }
            let mut spoiled: Vec<&str> = lines.clone();
            spoiled.insert(at, junk);
            let spoiled = spoiled.join("\n") + "\n";
            let (entries, cursor) = read_values(spoiled.as_bytes(), ReadOptions::default());
            assert_eq!(entries, whole, "{junk:?} at line {at}");
            assert_eq!(cursor, 10);
        }
    }
    // Bytes that are not UTF-8 inside a line make it garbage too.
    let mut bytes = record.clone().into_bytes();
    bytes.extend_from_slice(b"{\"seq\":10,\"at\":5,\"kind\":\"text\",\"text\":\"\xff\"}\n");
    assert_eq!(read_values(&bytes, ReadOptions::default()).0, whole);
}

#[test]
fn seq_gaps_are_read_as_they_are() {
    let mut record = Header::v1("s", "codex", 1).line();
    for seq in [1, 2, 5, 9] {
        record += &entry(seq, None, Entry::Restarted).line();
    }
    let (entries, cursor) = read_values(record.as_bytes(), ReadOptions::default());
    assert_eq!((seqs(&entries), cursor), (vec![1, 2, 5, 9], 9));
    let (entries, cursor) = read_values(
        record.as_bytes(),
        ReadOptions {
            after: 3,
            limit: Some(1),
        },
    );
    assert_eq!((seqs(&entries), cursor), (vec![5], 5));
}

#[test]
fn kinds_of_a_newer_minor_version_are_kept_and_a_newer_major_is_refused() {
    let mut record = Header::v1("s", "codex", 1)
        .line()
        .replace("\"1.1\"", "\"1.7\"");
    record += "{\"seq\":1,\"at\":2,\"kind\":\"hologram\",\"turn\":1,\"depth\":3}\n";
    let read = read_record(record.as_bytes(), ReadOptions::default()).unwrap();
    assert_eq!(read.lines.len(), 1);
    assert_eq!(read.lines[0].kind, "hologram");
    assert_eq!(
        read.lines[0].text,
        b"{\"seq\":1,\"at\":2,\"kind\":\"hologram\",\"turn\":1,\"depth\":3}"
    );
    assert_eq!(read.header.unwrap().version, "1.7");
    let newer = record.replace("\"1.7\"", "\"3.0\"");
    let err = read_record(newer.as_bytes(), ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidInput);
    assert!(err.message().contains("\"3.0\""), "{}", err.message());
    // Without a header (a part of a record, or a store's own rows), entries read.
    let rows = entry(1, None, Entry::Closed).line();
    assert_eq!(
        read_record(rows.as_bytes(), ReadOptions::default())
            .unwrap()
            .lines
            .len(),
        1
    );
}

#[cfg(not(target_arch = "wasm32"))]
mod line_check {
    use proptest::prelude::*;

    /// What the reader's line check takes is what a JSON parser takes as an
    /// object (lone surrogate escapes, which JSON.parse takes, left out).
    fn agrees(line: &str) {
        let ours = agent_context_scan::json_check::check_object(line.as_bytes(), &[], &mut []);
        let serde = matches!(
            serde_json::from_str::<serde_json::Value>(line),
            Ok(serde_json::Value::Object(_))
        );
        assert_eq!(ours, serde, "{line:?}");
    }

    proptest! {
        #[test]
        fn the_line_check_agrees_with_a_json_parser(pieces in proptest::collection::vec(
            prop_oneof![
                Just("{"), Just("}"), Just("["), Just("]"), Just(":"), Just(","), Just("\""),
                Just("\"a\""), Just("\"seq\""), Just("1"), Just("-0.5e3"), Just("01"), Just("1."),
                Just("true"), Just("nul"), Just(" "), Just("\\n"), Just("\\u00e9"), Just("\\x"),
                Just("é"), Just("\t"), Just("\u{1}"), Just("{\"k\":\"v\"}"), Just("[1,2]"),
            ],
            0..24,
        )) {
            agrees(&pieces.concat());
            agrees(&format!("{{\"a\":{}}}", pieces.concat()));
            agrees(&format!("{{\"a\":\"{}\"}}", pieces.concat()));
        }
    }
}

#[test]
fn only_this_formats_header_is_one() {
    let other = "{\"format\":\"another/format\",\"version\":\"9.0\"}\n{\"seq\":1,\"at\":1,\"kind\":\"closed\"}\n";
    let read = read_record(other.as_bytes(), ReadOptions::default()).unwrap();
    assert_eq!((read.header, read.lines.len()), (None, 1));
    // A header written with an escape is still the header.
    let escaped = "{\"format\":\"agent-context\\/session-record\",\"version\":\"3.0\"}\n";
    assert!(read_record(escaped.as_bytes(), ReadOptions::default()).is_err());
}

#[test]
fn read_by_seq_places_the_recorders_lines_as_the_full_reader_does() {
    let record = two_turns();
    let pages = [
        ReadOptions::default(),
        ReadOptions {
            after: 2,
            limit: Some(3),
        },
        ReadOptions {
            after: 99,
            limit: None,
        },
    ];
    for options in pages {
        let full = read_record(record.as_bytes(), options).unwrap();
        let by_seq = read_record_by_seq(record.as_bytes(), options).unwrap();
        let full_lines: Vec<(u64, &[u8])> = full.lines.iter().map(|l| (l.seq, l.text)).collect();
        assert_eq!(by_seq.lines, full_lines, "{options:?}");
        assert_eq!(by_seq.cursor, full.cursor, "{options:?}");
    }
    // A torn last line is left out, as the full reader does.
    let torn = format!("{record}{{\"seq\":99,\"at\":1,\"ki");
    let by_seq = read_record_by_seq(torn.as_bytes(), ReadOptions::default()).unwrap();
    assert_eq!(
        by_seq.cursor,
        read_record(record.as_bytes(), ReadOptions::default())
            .unwrap()
            .cursor
    );
    // What only the full reader can place: garbage, a blank line, bytes
    // that are not UTF-8, an entry numbered 0.
    for bad in [
        format!("{record}garbage\n"),
        format!("{record}\n"),
        format!("{record}{{\"seq\":0,\"at\":1,\"kind\":\"closed\"}}\n"),
    ] {
        assert_eq!(
            read_record_by_seq(bad.as_bytes(), ReadOptions::default()),
            None,
            "{bad:?}"
        );
    }
    let mut not_utf8 = record.clone().into_bytes();
    not_utf8.extend_from_slice(b"{\"seq\":50,\"at\":1,\"kind\":\"text\",\"text\":\"\xff\"}\n");
    assert_eq!(read_record_by_seq(&not_utf8, ReadOptions::default()), None);
}

#[test]
fn a_recorders_record_taken_at_its_word_reads_as_the_full_reader_reads_it() {
    let fixture = |f: &str| {
        std::fs::read_to_string(format!(
            "{}/tests/fixtures/acp/claude/0.101.0/{f}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap()
    };
    let turns = [fixture("plain.jsonl"), fixture("tool.jsonl")];
    for record in [
        two_turns(),
        super::acp_session_record("claude-code", &turns, "Read the notes"),
    ] {
        let full = read_record(record.as_bytes(), ReadOptions::default()).unwrap();
        let fast = read_record_as_recorded(record.as_bytes()).expect("as the recorder wrote it");
        assert_eq!(fast, full);
        // The state a conversation reopens from is the same either way (it
        // sums no usage).
        let whole = super::ConversationState::from_read(&full);
        assert!(whole.usage.input_tokens.is_some());
        let reopened = super::ConversationState::of(record.as_bytes()).unwrap();
        assert_eq!(
            reopened,
            super::ConversationState {
                usage: Default::default(),
                ..whole
            }
        );
    }
    // A line torn and ended later (a killed writer, then a newline), a torn
    // last line, garbage: only the full reader says what is in them.
    let record = two_turns();
    let torn_then_ended =
        format!("{record}{{\"seq\":40,\"at\":1,\"kind\":\"request\",\"turn\":3,\"text\":\"ha\n");
    assert_eq!(read_record_as_recorded(torn_then_ended.as_bytes()), None);
    let state = super::ConversationState::of(torn_then_ended.as_bytes()).unwrap();
    let whole = super::ConversationState::from_read(
        &read_record(torn_then_ended.as_bytes(), ReadOptions::default()).unwrap(),
    );
    assert_eq!(
        state,
        super::ConversationState {
            usage: Default::default(),
            ..whole
        }
    );
    assert_eq!(state.skipped, 1);
    assert_eq!(
        read_record_as_recorded(format!("{record}garbage\n").as_bytes()),
        None
    );
}

#[test]
fn only_lines_that_begin_as_the_recorder_writes_are_read_by_seq() {
    let base = entry(1, None, Entry::Closed).line();
    // The cursor read by seq (none: only the full reader reads it).
    let by_seq = |extra: &str| {
        let record = format!("{base}{extra}\n");
        read_record_by_seq(record.as_bytes(), ReadOptions::default()).map(|r| r.cursor)
    };
    for good in [
        r#"{"seq":2,"at":5,"kind":"text","turn":1,"text":"x"}"#,
        r#"{"seq":2,"at":5,"kind":"closed"}"#,
    ] {
        assert_eq!(by_seq(good), Some(2), "{good}");
    }
    for bad in [
        r#"{"seq":2,"at":5}"#,
        r#"{"seq":2,"kind":"text","at":5}"#,
        r#"{"seq":2,"at":5.5,"kind":"text"}"#,
        r#"{"seq":2,"at":5,"kind":1}"#,
        r#"{"seq":2,"at":5,"kind":"te\u0078t"}"#,
        r#"{"seq":2,"at":5,"kind":"text","turn":null}"#,
        r#"{"seq":2,"at":5,"kind":"text","turn":-1}"#,
        r#"{"seq":2,"at":5,"kind":"text"]"#,
    ] {
        assert_eq!(by_seq(bad), None, "{bad}");
    }
}

#[test]
fn lines_join_into_one_json_array() {
    let lines: [&[u8]; 2] = [br#"{"seq":1}"#, br#"{"seq":2}"#];
    let array = crate::record::json_array(lines.iter().copied());
    assert_eq!(array, br#"[{"seq":1},{"seq":2}]"#);
    assert_eq!(
        crate::record::json_array(std::iter::empty::<&[u8]>()),
        b"[]"
    );
}
