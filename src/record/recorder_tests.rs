//! The recorder: what a turn's events become in the record (text
//! coalesced, tool calls, plans, usage, replays, turn ends, interrupted
//! turns, a record gone on after its writer died).

use serde_json::{json, Value};

use super::tests::{kinds, opened, read_values, seqs, text, thought, tool, two_turns, values};
use super::*;
use crate::agent_output::{AgentEvent, ToolStatus, Usage};
use crate::error_kind::AgentErrorKind;

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
    let summary = summarize(record.as_bytes(), false).unwrap().unwrap();
    assert_eq!((summary.turns, summary.status), (3, Status::Interrupted));
    assert_eq!(
        summarize(record.as_bytes(), true).unwrap().unwrap().status,
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
    let summary = summarize(record.as_bytes(), false).unwrap().unwrap();
    assert_eq!((summary.turns, summary.status), (4, Status::Interrupted));
    // Nothing left unfinished: nothing to write.
    let (_, nothing) = Recorder::continuing(two_turns().as_bytes(), 1).unwrap();
    assert!(nothing.is_empty());
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
