//! The record's format, reader, summary and recorder.

use serde_json::{json, Value};

use super::*;
use crate::agent_output::{AgentEvent, ToolStatus, ToolUse, Usage};
use crate::attachments::read_attachments;
use crate::error_kind::AgentErrorKind;

fn entry(seq: u64, turn: Option<u32>, body: Entry) -> RecordEntry {
    RecordEntry {
        seq,
        at: 1_000 + seq,
        turn,
        body,
    }
}

fn text(t: &str) -> AgentEvent {
    AgentEvent::Text { text: t.into() }
}

fn thought(t: &str) -> AgentEvent {
    AgentEvent::Thought { text: t.into() }
}

fn tool(id: &str, status: ToolStatus, input: Value, output: Option<&str>) -> AgentEvent {
    AgentEvent::ToolUse {
        tool_use: ToolUse {
            id: id.into(),
            name: "Read".into(),
            input,
            status,
            output: output.map(str::to_owned),
            parent_id: None,
        },
    }
}

/// Every line of `record` as JSON (the header's too).
fn values(record: &str) -> Vec<Value> {
    record
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The entries `read_record` reads of `record`, as JSON.
fn read_values(record: &[u8], options: ReadOptions) -> (Vec<Value>, u64) {
    let read = read_record(record, options).unwrap();
    let entries = read
        .lines
        .iter()
        .map(|l| serde_json::from_slice(l.text).unwrap())
        .collect();
    (entries, read.cursor)
}

fn seqs(entries: &[Value]) -> Vec<u64> {
    entries.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

fn kinds(record: &str) -> Vec<String> {
    values(record)
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect()
}

fn opened() -> Opened {
    Opened {
        agent_type: "claude-code".into(),
        protocol: "acp".into(),
        cd: "/home/u/app".into(),
        model: Some("sonnet".into()),
        mode: Some("default".into()),
        agent_session_id: Some("s-1".into()),
        ..Opened::default()
    }
}

/// A record of two turns, the first with a tool call.
fn two_turns() -> String {
    let mut r = Recorder::new();
    let mut out = Header::new("s-1", "claude-code", 1_000).line();
    out += &r.opened(1_000, opened());
    out += &r.request(1_001, "Read the notes", &[]);
    out += &r.event(1_002, &text("Let me "));
    out += &r.event(1_003, &text("look."));
    out += &r.event(
        1_004,
        &tool("t1", ToolStatus::Pending, json!({"path": "a"}), None),
    );
    out += &r.event(
        1_005,
        &tool(
            "t1",
            ToolStatus::Success,
            json!({"path": "a"}),
            Some("notes"),
        ),
    );
    out += &r.event(1_006, &text("\n\nThey say notes."));
    let usage = Usage {
        input_tokens: Some(10),
        output_tokens: Some(5),
        ..Usage::default()
    };
    out += &r.turn_end(
        1_007,
        &TurnOutcome {
            stop_reason: Some("end_turn".into()),
            usage: Some(usage.clone()),
            duration_ms: 6,
            ..TurnOutcome::default()
        },
    );
    out += &r.request(1_008, "Thanks", &[]);
    out += &r.event(1_009, &text("You're welcome."));
    out += &r.turn_end(
        1_010,
        &TurnOutcome {
            stop_reason: Some("end_turn".into()),
            usage: Some(usage),
            duration_ms: 2,
            ..TurnOutcome::default()
        },
    );
    out
}

#[test]
fn an_entry_is_one_line_seq_at_kind_turn_first() {
    let line = entry(
        3,
        Some(2),
        Entry::Text {
            text: "hi \"you\"\n".into(),
        },
    )
    .line();
    assert_eq!(
        line,
        "{\"seq\":3,\"at\":1003,\"kind\":\"text\",\"turn\":2,\"text\":\"hi \\\"you\\\"\\n\"}\n"
    );
    assert_eq!(
        entry(4, None, Entry::Closed).line(),
        "{\"seq\":4,\"at\":1004,\"kind\":\"closed\"}\n"
    );
    let header = Header::new("s-1", "codex", 7).line();
    assert_eq!(
        header,
        "{\"format\":\"agent-context/session-record\",\"version\":\"1.1\",\"sessionId\":\"s-1\",\"agentType\":\"codex\",\"createdAt\":7}\n"
    );
}

/// One entry of every kind, each as full as it gets.
fn every_kind() -> Vec<RecordEntry> {
    let usage = Usage {
        input_tokens: Some(3),
        cost_usd: Some(0.25),
        ..Usage::default()
    };
    let bodies = vec![
        Entry::Team {
            team_task: Some("Ship it".into()),
            cd: "/w".into(),
        },
        Entry::Member {
            member: json!({"id": "carol", "agentType": "codex", "systemInstruction": "Be brief",
                "instructionFileText": "Rules", "protocol": "acp", "maxBytes": 4096,
                "sessionOptions": ["env"], "sessionId": "s-2", "mark": 3, "fallbackUsed": 1}),
        },
        Entry::Message {
            from: "kailai".into(),
            to: Some("carol".into()),
            content: "Write the parser".into(),
        },
        Entry::Opened(Opened {
            team_id: Some("team".into()),
            member_id: Some("carol".into()),
            ..opened()
        }),
        Entry::Request {
            text: "Look".into(),
            attachments: vec![AttachmentMeta {
                kind: "image".into(),
                mime_type: Some("image/png".into()),
                size: Some(3),
                sha256: Some("ab".into()),
                name: Some("a.png".into()),
            }],
        },
        Entry::Text {
            text: "Hello".into(),
        },
        Entry::Thought { text: "Hmm".into() },
        Entry::ToolCall(ToolCall {
            id: "t".into(),
            name: "Read".into(),
            status: "success".into(),
            input: Some(json!({"path": "x"})),
            output: Some("x's text".into()),
        }),
        Entry::Plan {
            entries: json!([{"content": "do", "status": "pending"}]),
        },
        Entry::Usage {
            usage: usage.clone(),
        },
        Entry::Permission(Permission {
            tool_call_id: "t".into(),
            title: Some("Write x".into()),
            options: vec![PermissionOption {
                option_id: "y".into(),
                name: "Yes".into(),
                kind: "allow_once".into(),
            }],
            ..Permission::default()
        }),
        Entry::Permission(Permission {
            tool_call_id: "t".into(),
            outcome: Some("selected".into()),
            option_id: Some("y".into()),
            ..Permission::default()
        }),
        Entry::TurnEnd(TurnEnd {
            stop_reason: Some("end_turn".into()),
            error: Some(TurnEndError {
                kind: "upstream_error".into(),
                message: "HTTP 500".into(),
            }),
            usage: Some(usage),
            duration_ms: 9,
            agent_session_id: Some("s-2".into()),
        }),
        Entry::Mode {
            mode: "plan".into(),
        },
        Entry::Model {
            model: "opus".into(),
        },
        Entry::Crashed {
            exit_code: Some(1),
            signal: Some("SIGKILL".into()),
            last_lines: vec!["boom".into()],
        },
        Entry::Restarted,
        Entry::Resumed {
            agent_session_id: "s-1".into(),
        },
        Entry::Loaded {
            agent_session_id: "s-1".into(),
        },
        Entry::Link(Link {
            relation: Relation::RebuiltFrom,
            session_id: "old".into(),
            agent_type: "google-gemini".into(),
        }),
        Entry::Closed,
        Entry::Interrupted,
    ];
    bodies
        .into_iter()
        .enumerate()
        .map(|(i, body)| entry(i as u64 + 1, Some(1), body))
        .collect()
}

#[test]
fn every_kind_reads_back_as_written() {
    for e in every_kind() {
        let line = e.line();
        let back = RecordEntry::from_line(line.trim_end().as_bytes()).unwrap();
        assert_eq!(back, e, "{line}");
        let value: Value = serde_json::from_str(&line).unwrap();
        assert_eq!(value["kind"], e.body.kind());
    }
}

/// Every key an entry can have outside the values it carries as they came
/// (a tool's input, a plan's entries): none that could hold a key, an
/// environment or headers.
#[test]
fn no_field_could_hold_a_secret() {
    const ALLOWED: &[&str] = &[
        "seq",
        "at",
        "kind",
        "turn",
        "agentType",
        "protocol",
        "cd",
        "model",
        "mode",
        "agentSessionId",
        "teamId",
        "memberId",
        "text",
        "attachments",
        "mimeType",
        "size",
        "sha256",
        "name",
        "id",
        "status",
        "input",
        "output",
        "entries",
        "usage",
        "inputTokens",
        "costUsd",
        "toolCallId",
        "title",
        "options",
        "optionId",
        "outcome",
        "stopReason",
        "error",
        "message",
        "durationMs",
        "exitCode",
        "signal",
        "lastLines",
        "relation",
        "sessionId",
        "teamTask",
        "member",
        "systemInstruction",
        "instructionFileText",
        "maxBytes",
        "sessionOptions",
        "mark",
        "fallbackUsed",
        "from",
        "to",
        "content",
    ];
    fn keys(value: &Value, out: &mut Vec<String>) {
        match value {
            Value::Object(map) => {
                for (k, v) in map {
                    out.push(k.clone());
                    if k != "input" && k != "entries" {
                        keys(v, out);
                    }
                }
            }
            Value::Array(list) => list.iter().for_each(|v| keys(v, out)),
            _ => {}
        }
    }
    let mut all = Vec::new();
    for e in every_kind() {
        keys(&serde_json::from_str(&e.line()).unwrap(), &mut all);
    }
    for key in &all {
        assert!(ALLOWED.contains(&key.as_str()), "unexpected field {key}");
        let lower = key.to_lowercase();
        for word in [
            "key", "env", "header", "token", "secret", "auth", "password",
        ] {
            // `inputTokens` counts tokens; it is no credential.
            if key != "inputTokens" {
                assert!(!lower.contains(word), "{key} could hold a secret");
            }
        }
    }
}

#[test]
fn the_recorder_redacts_the_secrets_it_is_given() {
    let mut r = Recorder::new().with_secrets([
        "sk-ant-very-secret",
        "/home/u/.env-value",
        "short",
        "123456789",
    ]);
    let mut out = r.opened(1, opened());
    out += &r.request(2, "use sk-ant-very-secret please", &[]);
    out += &r.event(3, &text("echo \"sk-ant-very-secret\""));
    out += &r.crashed(
        4,
        Some(1),
        None,
        &[
            "key sk-ant-very-secret rejected".into(),
            "at /home/u/.env-value".into(),
            "short 123456789".into(),
        ],
    );
    assert!(!out.contains("sk-ant-very-secret"), "{out}");
    assert!(!out.contains("/home/u/.env-value"), "{out}");
    // Too short, or only digits: words and numbers, not looked for.
    assert!(out.contains("short 123456789"));
    assert_eq!(out.matches(REDACTED).count(), 4);
    for v in values(&out) {
        assert!(v["seq"].as_u64().is_some());
    }
}

#[test]
fn reads_every_entry_and_the_header() {
    let record = two_turns();
    let (entries, cursor) = read_values(record.as_bytes(), ReadOptions::default());
    assert_eq!(seqs(&entries), (1..=10).collect::<Vec<_>>());
    assert_eq!(cursor, 10);
    let read = read_record(record.as_bytes(), ReadOptions::default()).unwrap();
    assert_eq!(read.header, Some(Header::new("s-1", "claude-code", 1_000)));
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
    let mut record = Header::new("s", "codex", 1).line();
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
    let mut record = Header::new("s", "codex", 1)
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
    let newer = record.replace("\"1.7\"", "\"2.0\"");
    let err = read_record(newer.as_bytes(), ReadOptions::default()).unwrap_err();
    assert_eq!(err.code(), crate::ErrorCode::InvalidInput);
    assert!(err.message().contains("\"2.0\""), "{}", err.message());
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

#[test]
fn text_is_coalesced_into_one_entry_per_message() {
    let mut r = Recorder::new();
    r.request(10, "go", &[]);
    let mut out = String::new();
    // 1 000 pieces: nothing written while they stream.
    for i in 0..1_000 {
        let piece = r.event(11 + i, &text("x"));
        assert!(piece.is_empty());
    }
    out += &r.event(2_000, &tool("t", ToolStatus::Pending, json!({}), None));
    out += &r.event(2_001, &text("\n\nafter"));
    out += &r.event(2_002, &thought("think"));
    out += &r.event(2_003, &thought(" more"));
    out += &r.event(2_004, &text(" again"));
    out += &r.turn_end(2_005, &TurnOutcome::default());
    assert_eq!(
        kinds(&out),
        ["text", "toolCall", "text", "thought", "text", "turnEnd"]
    );
    let v = values(&out);
    assert_eq!(v[0]["text"].as_str().unwrap().len(), 1_000);
    // A held text's time is its first piece's.
    assert_eq!(v[0]["at"], 11);
    assert_eq!(v[2]["text"], "\n\nafter");
    assert_eq!(v[3]["text"], "think more");
    assert_eq!(v[4]["text"], " again");
    assert!(v.iter().all(|e| e["turn"] == 1));
    let seqs: Vec<u64> = v.iter().map(|e| e["seq"].as_u64().unwrap()).collect();
    assert_eq!(seqs, [2, 3, 4, 5, 6, 7]);
}

#[test]
fn a_tool_call_is_written_when_it_opens_and_when_it_ends() {
    let mut r = Recorder::new();
    r.request(1, "go", &[]);
    let mut out = String::new();
    out += &r.event(2, &tool("t", ToolStatus::Pending, json!({}), None));
    // Updates in between are not written; the input given later is, at the end.
    out += &r.event(
        3,
        &tool(
            "t",
            ToolStatus::Pending,
            json!({"path": "a"}),
            Some("partial"),
        ),
    );
    out += &r.event(4, &tool("u", ToolStatus::Pending, json!({"q": 1}), None));
    out += &r.event(
        5,
        &tool("t", ToolStatus::Success, json!({"path": "a"}), Some("done")),
    );
    out += &r.event(
        6,
        &tool("u", ToolStatus::Error, json!({"q": 1}), Some("denied")),
    );
    // A late update of an ended call is not written.
    out += &r.event(
        7,
        &tool(
            "t",
            ToolStatus::Success,
            json!({"path": "a"}),
            Some("done again"),
        ),
    );
    // One seen only when it ended: one entry with everything.
    out += &r.event(
        8,
        &tool("w", ToolStatus::Success, json!({"x": true}), Some("ok")),
    );
    let v = values(&out);
    let calls: Vec<(String, String, Option<Value>, Option<String>)> = v
        .iter()
        .map(|e| {
            (
                e["id"].as_str().unwrap().to_owned(),
                e["status"].as_str().unwrap().to_owned(),
                e.get("input").cloned(),
                e.get("output").and_then(Value::as_str).map(str::to_owned),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("t".into(), "pending".into(), Some(json!({})), None),
            ("u".into(), "pending".into(), Some(json!({"q": 1})), None),
            (
                "t".into(),
                "success".into(),
                Some(json!({"path": "a"})),
                Some("done".into())
            ),
            ("u".into(), "error".into(), None, Some("denied".into())),
            (
                "w".into(),
                "success".into(),
                Some(json!({"x": true})),
                Some("ok".into())
            ),
        ]
    );
}

#[test]
fn plans_are_written_when_they_change_and_usage_goes_to_the_turn_end() {
    let mut r = Recorder::new();
    r.request(1, "go", &[]);
    let a = json!([{"content": "a", "status": "pending"}]);
    let b = json!([{"content": "a", "status": "completed"}]);
    let mut out = String::new();
    out += &r.event(2, &AgentEvent::Plan { entries: a.clone() });
    out += &r.event(3, &AgentEvent::Plan { entries: b.clone() });
    out += &r.event(4, &text("working"));
    out += &r.event(5, &AgentEvent::Plan { entries: b.clone() });
    out += &r.event(6, &text(" still"));
    out += &r.event(7, &AgentEvent::Plan { entries: a.clone() });
    let usage = |n| AgentEvent::Usage {
        usage: Usage {
            context_tokens: Some(n),
            ..Usage::default()
        },
    };
    out += &r.event(8, &usage(100));
    out += &r.event(9, &usage(200));
    out += &r.turn_end(10, &TurnOutcome::default());
    assert_eq!(kinds(&out), ["plan", "text", "text", "plan", "turnEnd"]);
    let v = values(&out);
    assert_eq!(v[0]["entries"], b);
    assert_eq!(v[0]["at"], 3);
    assert_eq!(v[3]["entries"], a);
    assert_eq!(v[4]["usage"], json!({"contextTokens": 200}));
    // Outside a turn, usage is an entry of its own.
    let between = r.event(11, &usage(300));
    assert_eq!(kinds(&between), ["usage"]);
    assert!(values(&between)[0].get("turn").is_none());
}

#[test]
fn an_agents_replay_is_not_recorded() {
    let mut r = Recorder::new();
    let mut out = r.opened(1, opened());
    r.begin_replay();
    for (i, event) in [
        text("old reply"),
        thought("old thought"),
        tool("old", ToolStatus::Success, json!({}), Some("x")),
        AgentEvent::Plan { entries: json!([]) },
        AgentEvent::Usage {
            usage: Usage::default(),
        },
    ]
    .iter()
    .enumerate()
    {
        assert!(r.event(2 + i as u64, event).is_empty());
    }
    out += &r.loaded(10, "s-1");
    out += &r.request(11, "new", &[]);
    out += &r.event(12, &text("new reply"));
    out += &r.turn_end(13, &TurnOutcome::default());
    assert_eq!(
        kinds(&out),
        ["opened", "loaded", "request", "text", "turnEnd"]
    );
    assert_eq!(values(&out)[3]["text"], "new reply");
    // A load that failed ends the replay too.
    r.begin_replay();
    r.end_replay();
    assert!(!r
        .event(
            14,
            &AgentEvent::Usage {
                usage: Usage::default()
            }
        )
        .is_empty());
}

#[test]
fn the_turn_end_says_how_it_ended_and_a_new_session_id() {
    let mut r = Recorder::new();
    let mut out = r.request(1, "go", &[]);
    out += &r.event(
        2,
        &AgentEvent::Session {
            session_id: "cli-7".into(),
        },
    );
    out += &r.event(
        3,
        &AgentEvent::Error {
            error: crate::agent_output::ReplyError {
                message: "retrying".into(),
                fatal: false,
                source: "system".into(),
                code: None,
            },
        },
    );
    out += &r.turn_end(
        4,
        &TurnOutcome {
            stop_reason: None,
            error: Some((AgentErrorKind::QuotaExceeded, "HTTP 429".into())),
            usage: None,
            duration_ms: 3,
        },
    );
    out += &r.request(5, "again", &[]);
    out += &r.event(
        6,
        &AgentEvent::Session {
            session_id: "cli-7".into(),
        },
    );
    out += &r.turn_end(7, &TurnOutcome::default());
    let v = values(&out);
    assert_eq!(kinds(&out), ["request", "turnEnd", "request", "turnEnd"]);
    assert_eq!(
        v[1],
        json!({"seq": 2, "at": 4, "kind": "turnEnd", "turn": 1,
            "error": {"kind": "quota_exceeded", "message": "HTTP 429"}, "durationMs": 3, "agentSessionId": "cli-7"})
    );
    // The same id again is not news.
    assert!(v[3].get("agentSessionId").is_none());
    assert_eq!(v[3]["turn"], 2);
}

#[test]
fn a_turn_left_running_ends_interrupted() {
    let mut r = Recorder::new();
    let mut out = r.request(1, "one", &[]);
    out += &r.event(2, &text("partial"));
    out += &r.request(3, "two", &[]);
    out += &r.event(4, &text("half"));
    out += &r.closed(5);
    assert_eq!(
        kinds(&out),
        [
            "request",
            "text",
            "interrupted",
            "request",
            "text",
            "interrupted",
            "closed"
        ]
    );
    let v = values(&out);
    assert_eq!(v[2]["turn"], 1);
    assert_eq!(v[5]["turn"], 2);
    assert!(v[6].get("turn").is_none());
}

#[test]
fn a_record_goes_on_after_its_writer_died_mid_turn() {
    let mut record = two_turns();
    // The old writer goes on from what it wrote, starts a third turn and dies.
    let (mut r, nothing) = Recorder::continuing(record.as_bytes(), 1_999).unwrap();
    assert!(nothing.is_empty());
    assert_eq!((r.next_seq(), r.turns()), (11, 2));
    record += &r.request(2_000, "third", &[]);
    record += "{\"seq\":12,\"at\":2001,\"kind\":\"text\",\"turn\":3,\"text\":\"tor";
    let summary = summarize(record.as_bytes(), false).unwrap();
    assert_eq!((summary.turns, summary.status), (3, Status::Interrupted));
    assert_eq!(
        summarize(record.as_bytes(), true).unwrap().status,
        Status::Open
    );
    let (mut next, first) = Recorder::continuing(record.as_bytes(), 3_000).unwrap();
    assert_eq!(
        values(&first),
        [json!({"seq": 12, "at": 3000, "kind": "interrupted", "turn": 3})]
    );
    // The store puts the torn line on a line of its own before appending.
    record += "\n";
    record += &first;
    record += &next.resumed(3_001, "s-1");
    record += &next.request(3_002, "fourth", &[]);
    let v = read_values(
        record.as_bytes(),
        ReadOptions {
            after: 11,
            limit: None,
        },
    )
    .0;
    assert_eq!(seqs(&v), [12, 13, 14]);
    assert_eq!(v[2]["turn"], 4);
    let summary = summarize(record.as_bytes(), false).unwrap();
    assert_eq!((summary.turns, summary.status), (4, Status::Interrupted));
    // Nothing left unfinished: nothing to write.
    let (_, nothing) = Recorder::continuing(two_turns().as_bytes(), 1).unwrap();
    assert!(nothing.is_empty());
}

#[test]
fn the_summary_of_a_session() {
    let mut record = two_turns();
    let summary = summarize(record.as_bytes(), false).unwrap();
    assert_eq!(
        serde_json::to_value(&summary).unwrap(),
        json!({
            "sessionId": "s-1", "agentType": "claude-code", "protocol": "acp", "cd": "/home/u/app",
            "title": "Read the notes", "createdAt": 1000, "updatedAt": 1010, "turns": 2,
            "usage": {"inputTokens": 20, "outputTokens": 10}, "status": "open"
        })
    );
    let (mut r, _) = Recorder::continuing(record.as_bytes(), 1_011).unwrap();
    record += &r.link(1_011, Relation::RebuiltFrom, "old-1", "google-gemini");
    record += &r.closed(1_012);
    let summary = summarize(record.as_bytes(), true).unwrap();
    assert_eq!(summary.status, Status::Closed);
    assert_eq!(
        summary.linked_from,
        Some(summary::LinkedFrom {
            session_id: "old-1".into(),
            agent_type: "google-gemini".into(),
            relation: Relation::RebuiltFrom,
        })
    );
    assert_eq!(summarize(b"", false).unwrap().turns, 0);
}

#[test]
fn titles_are_the_first_prompt_on_one_line() {
    assert_eq!(title_of("  Fix\n\nthe   bug "), "Fix the bug");
    let long = "word ".repeat(40);
    let title = title_of(&long);
    assert_eq!(title.chars().count(), summary::TITLE_CHARS);
    assert!(title.ends_with('…'));
    assert_eq!(title_of(&"é".repeat(80)), "é".repeat(80));
    assert_eq!(title_of(&"é".repeat(81)).chars().count(), 80);
}

#[test]
fn attachments_are_named_never_kept() {
    // A 1×1 PNG.
    let png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";
    let list = read_attachments(
        &json!([
            {"type": "image", "data": png, "mimeType": "image/png"},
            {"type": "resource", "uri": "file:///w/notes.md?x=1", "text": "abc", "mimeType": "text/markdown"},
            {"type": "resource_link", "uri": "https://user:pw@example.com/spec"}
        ]),
        "attachments",
    )
    .unwrap();
    let mut r = Recorder::new();
    let out = r.request(1, "see", &list);
    assert!(
        !out.contains(png) && !out.contains("abc\"") && !out.contains("pw@"),
        "{out}"
    );
    let v = &values(&out)[0]["attachments"];
    assert_eq!(v[0]["kind"], "image");
    assert_eq!(v[0]["size"], 70);
    assert_eq!(v[0]["mimeType"], "image/png");
    assert_eq!(v[0]["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(
        v[1],
        json!({"kind": "resource", "mimeType": "text/markdown", "size": 3,
            "sha256": "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", "name": "notes.md"})
    );
    assert_eq!(v[2], json!({"kind": "resource_link", "name": "spec"}));
}

#[test]
fn permissions_asked_and_answered() {
    let mut r = Recorder::new();
    r.request(1, "go", &[]);
    let request = json!({"sessionId": "s", "toolCall": {"toolCallId": "t9", "title": "Write a.txt", "rawInput": {"content": "x"}},
        "options": [{"optionId": "y", "name": "Allow", "kind": "allow_once"}, {"optionId": "n", "name": "Reject", "kind": "reject_once"}]});
    let mut out = r.permission_asked(2, &request);
    out += &r.permission_answered(
        3,
        &request,
        &json!({"outcome": {"outcome": "selected", "optionId": "y"}}),
    );
    out += &r.permission_answered(4, &request, &json!({"outcome": {"outcome": "cancelled"}}));
    let v = values(&out);
    assert_eq!(
        v[0],
        json!({"seq": 2, "at": 2, "kind": "permission", "turn": 1, "toolCallId": "t9", "title": "Write a.txt",
            "options": [{"optionId": "y", "name": "Allow", "kind": "allow_once"}, {"optionId": "n", "name": "Reject", "kind": "reject_once"}]})
    );
    assert_eq!(v[1]["outcome"], "selected");
    assert_eq!(v[1]["optionId"], "y");
    assert_eq!(v[2]["outcome"], "cancelled");
    assert!(v[2].get("optionId").is_none());
}

/// The size bar: a long turn's record (its request aside) is at most 1.5×
/// its reply's text and thoughts plus its tools' input and output. The turn
/// is the real agents' recorded `session/update` lines, repeated to 20 000.
#[test]
fn a_turns_record_is_within_one_and_a_half_times_what_it_holds() {
    use crate::agent_output::{AgentOutputParser, Protocol, TextForm};
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/acp");
    let mut by_agent: Vec<(String, Vec<String>)> = Vec::new();
    for (dir, agent) in [
        ("claude", "claude-code"),
        ("codex", "openai-codex"),
        ("gemini", "google-gemini"),
        ("qwen", "qwen-code"),
        ("copilot", "github-copilot"),
        ("opencode", "opencode"),
    ] {
        let mut lines = Vec::new();
        let mut versions: Vec<_> = std::fs::read_dir(format!("{root}/{dir}"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        versions.sort();
        for version in versions {
            let mut files: Vec<_> = std::fs::read_dir(version)
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for file in files {
                for line in std::fs::read_to_string(file).unwrap().lines() {
                    if line.contains("\"method\":\"session/update\"") && line.len() <= 64 * 1024 {
                        lines.push(line.to_owned());
                    }
                }
            }
        }
        by_agent.push((agent.to_owned(), lines));
    }
    for (agent, lines) in by_agent {
        let mut parser =
            AgentOutputParser::for_protocol(&agent, Protocol::Acp, true, TextForm::Utf8);
        let mut r = Recorder::new();
        let request = r.request(0, "do the work", &[]);
        let mut record = String::new();
        for i in 0..20_000 {
            let mut line = lines[i % lines.len()].clone();
            line.push('\n');
            for event in parser.push(line.as_bytes()) {
                record += &r.event(i as u64, &event);
            }
        }
        let reply = parser.finish();
        record += &r.turn_end(
            20_000,
            &TurnOutcome {
                usage: reply.usage.clone(),
                ..TurnOutcome::default()
            },
        );
        let held = reply.text.len()
            + reply.thoughts.len()
            + reply
                .tool_uses
                .iter()
                .map(|t| t.input.to_string().len() + t.output.as_deref().map_or(0, str::len))
                .sum::<usize>();
        let ratio = record.len() as f64 / held as f64;
        eprintln!(
            "{agent}: {ratio:.3}× ({} bytes recorded / {held} held)",
            record.len()
        );
        if held >= 4096 {
            assert!(
                ratio <= 1.5,
                "{agent}: {} bytes recorded for {held} held ({ratio:.2}×; request {} bytes)",
                record.len(),
                request.len()
            );
        } else {
            // A small turn (Codex's repeated lines are a few messages): its
            // content and at most 120 bytes per entry.
            let entries = record.lines().count();
            assert!(record.len() <= held + 120 * entries, "{agent}: {record}");
        }
    }
}

#[test]
fn a_usage_reads_back_whole() {
    let usage = Usage {
        input_tokens: Some(1),
        cached_input_tokens: Some(2),
        output_tokens: Some(3),
        total_tokens: Some(4),
        duration_ms: Some(5),
        cost_usd: Some(0.125),
        reasoning_output_tokens: Some(6),
        cache_write_input_tokens: Some(7),
        models: vec![crate::agent_output::ModelUsage {
            model: "m".into(),
            usage: Usage {
                output_tokens: Some(8),
                ..Usage::default()
            },
        }],
        context_tokens: Some(9),
        context_window: Some(10),
    };
    let value = serde_json::to_value(&usage).unwrap();
    assert_eq!(summary::usage_of(&value), usage);
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
fn a_tool_call_opened_without_its_input_gets_it_when_it_ends() {
    let mut r = Recorder::new();
    r.request(1, "go", &[]);
    let mut out = r.event(2, &tool("t", ToolStatus::Pending, Value::Null, None));
    out += &r.event(
        3,
        &tool("t", ToolStatus::Success, json!({"path": "a"}), Some("x")),
    );
    let v = values(&out);
    assert!(v[0].get("input").is_none());
    assert_eq!(v[1]["input"], json!({"path": "a"}));
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
fn a_record_is_carried_as_a_conversation_with_tool_calls_summed_up() {
    let record = concat!(
        "{\"seq\":1,\"at\":1,\"kind\":\"opened\",\"agentType\":\"claude-code\",\"protocol\":\"acp\",\"cd\":\"/w\"}\n",
        "{\"seq\":2,\"at\":2,\"kind\":\"request\",\"turn\":1,\"text\":\"Read the notes\"}\n",
        "{\"seq\":3,\"at\":3,\"kind\":\"text\",\"turn\":1,\"text\":\"Let me look.\"}\n",
        "{\"seq\":4,\"at\":4,\"kind\":\"toolCall\",\"turn\":1,\"id\":\"t\",\"name\":\"Read\",\"status\":\"pending\",\"input\":{\"file_path\":\"notes.txt\"}}\n",
        "{\"seq\":5,\"at\":5,\"kind\":\"toolCall\",\"turn\":1,\"id\":\"t\",\"name\":\"Read\",\"status\":\"success\",\"output\":\"The code\\nis 4217.\"}\n",
        "{\"seq\":6,\"at\":6,\"kind\":\"text\",\"turn\":1,\"text\":\"\\n\\nIt is 4217.\"}\n",
        "{\"seq\":7,\"at\":7,\"kind\":\"turnEnd\",\"turn\":1,\"stopReason\":\"end_turn\",\"durationMs\":6}\n",
        "{\"seq\":8,\"at\":8,\"kind\":\"request\",\"turn\":2,\"text\":\"Thanks\"}\n",
        "{\"seq\":9,\"at\":9,\"kind\":\"turnEnd\",\"turn\":2,\"error\":{\"kind\":\"quota_exceeded\",\"message\":\"429\"},\"durationMs\":1}\n",
    );
    let all = crate::record::conversation(record.as_bytes(), "claude-code", None).unwrap();
    let pairs: Vec<(&str, &str)> = all
        .iter()
        .map(|m| (m.from.as_str(), m.content.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("user", "Read the notes"),
            (
                "claude-code",
                "Let me look.\n[tool Read (success) → The code is 4217.]\n\n\nIt is 4217."
            ),
        ],
        "the second turn failed with no reply: left out"
    );
    let first = crate::record::conversation(record.as_bytes(), "claude-code", Some(1)).unwrap();
    assert_eq!(first.len(), 2);
    // A turn that never ended (its host was killed) keeps its request.
    let cut = &record[..record.find("{\"seq\":9").unwrap()];
    let open = crate::record::conversation(cut.as_bytes(), "claude-code", None).unwrap();
    assert_eq!(open.last().unwrap().content, "Thanks");
}
