//! The record's format, reader, summary and recorder.

use serde_json::{json, Value};

use super::*;
use crate::agent_output::{AgentEvent, ToolStatus, ToolUse, Usage};
use crate::launch::attachments::read_attachments;

pub(super) fn entry(seq: u64, turn: Option<u32>, body: Entry) -> RecordEntry {
    RecordEntry {
        seq,
        at: 1_000 + seq,
        turn,
        body,
    }
}

pub(super) fn text(t: &str) -> AgentEvent {
    AgentEvent::Text { text: t.into() }
}

pub(super) fn thought(t: &str) -> AgentEvent {
    AgentEvent::Thought { text: t.into() }
}

pub(super) fn tool(id: &str, status: ToolStatus, input: Value, output: Option<&str>) -> AgentEvent {
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
pub(super) fn values(record: &str) -> Vec<Value> {
    record
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The entries `read_record` reads of `record`, as JSON.
pub(super) fn read_values(record: &[u8], options: ReadOptions) -> (Vec<Value>, u64) {
    let read = read_record(record, options).unwrap();
    let entries = read
        .lines
        .iter()
        .map(|l| serde_json::from_slice(l.text).unwrap())
        .collect();
    (entries, read.cursor)
}

pub(super) fn seqs(entries: &[Value]) -> Vec<u64> {
    entries.iter().map(|e| e["seq"].as_u64().unwrap()).collect()
}

pub(super) fn kinds(record: &str) -> Vec<String> {
    values(record)
        .iter()
        .map(|v| v["kind"].as_str().unwrap().to_owned())
        .collect()
}

pub(super) fn opened() -> Opened {
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
pub(super) fn two_turns() -> String {
    let mut r = Recorder::new();
    let mut out = Header::v1("s-1", "claude-code", 1_000).line();
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
    let header = Header::v1("s-1", "codex", 7).line();
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
        Entry::Compaction(CompactionEntry {
            compaction_id: "c1".into(),
            status: "completed".into(),
            summary: Some("We chose SQLite.".into()),
            error: None,
        }),
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
        "compactionId",
        "summary",
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
fn the_summary_of_a_session() {
    let mut record = two_turns();
    let summary = summarize(record.as_bytes(), false).unwrap().unwrap();
    assert_eq!(
        serde_json::to_value(&summary).unwrap(),
        json!({
            "conversationId": "s-1", "kind": "conversation", "version": "1.1",
            "sessionId": "s-1", "agentType": "claude-code", "protocol": "acp", "cd": "/home/u/app",
            "title": "Read the notes", "createdAt": 1000, "updatedAt": 1010, "turns": 2,
            "usage": {"inputTokens": 20, "outputTokens": 10}, "status": "open",
            "live": {"sessionId": "s-1", "agentType": "claude-code"},
            "parts": [{"sessionId": "s-1", "agentType": "claude-code", "protocol": "acp", "reason": "opened", "fromTurn": 1}],
            "skipped": 0
        })
    );
    let (mut r, _) = Recorder::continuing(record.as_bytes(), 1_011).unwrap();
    record += &r.link(1_011, Relation::RebuiltFrom, "old-1", "google-gemini");
    record += &r.closed(1_012);
    let summary = summarize(record.as_bytes(), true).unwrap().unwrap();
    assert_eq!(summary.status, Status::Closed);
    assert_eq!(
        summary.linked_from,
        Some(summary::LinkedFrom {
            session_id: "old-1".into(),
            agent_type: "google-gemini".into(),
            relation: Relation::RebuiltFrom,
        })
    );
    assert_eq!(
        summarize(b"", false).unwrap(),
        None,
        "no header: not a record"
    );
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
    // A turn still open (a failover's) is not carried: its request goes
    // with the conversation as the message, once.
    let cut = &record[..record.find("{\"seq\":9").unwrap()];
    let open = crate::record::conversation(cut.as_bytes(), "claude-code", None).unwrap();
    assert_eq!(open.len(), 2);
    assert_eq!(open.last().unwrap().from, "claude-code");
}
