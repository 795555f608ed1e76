//! A compaction in the record: written when first seen and at its end, and
//! what a conversation carries to the next agent after one.

use serde_json::{json, Value};

use super::*;
use crate::agent_output::AgentEvent;

/// A record of three turns; a compaction (`status`, `summary`) during turn
/// `at` (its first entry with `in_progress`, its end after the turn's text
/// when `reply` is true: the turn said something besides).
fn compacted_record(at: u64, status: &str, summary: Option<&str>, reply: bool) -> String {
    let mut lines = vec![
        json!({"seq": 1, "at": 1, "kind": "opened", "agentType": "claude-code", "protocol": "acp", "cd": "/w"}),
    ];
    let mut seq = 1;
    let mut push = |lines: &mut Vec<Value>, mut v: Value| {
        seq += 1;
        v["seq"] = json!(seq);
        v["at"] = json!(seq);
        lines.push(v);
    };
    for turn in 1..=3u64 {
        push(
            &mut lines,
            json!({"kind": "request", "turn": turn, "text": format!("Question {turn}")}),
        );
        if turn == at {
            push(
                &mut lines,
                json!({"kind": "compaction", "turn": turn, "compactionId": "k1", "status": "in_progress"}),
            );
            let mut end =
                json!({"kind": "compaction", "turn": turn, "compactionId": "k1", "status": status});
            if let Some(s) = summary {
                end["summary"] = json!(s);
            }
            push(&mut lines, end);
            if reply {
                push(
                    &mut lines,
                    json!({"kind": "text", "turn": turn, "text": format!("Answer {turn}")}),
                );
            }
        } else {
            push(
                &mut lines,
                json!({"kind": "text", "turn": turn, "text": format!("Answer {turn}")}),
            );
        }
        push(
            &mut lines,
            json!({"kind": "turnEnd", "turn": turn, "stopReason": "end_turn", "durationMs": 1}),
        );
    }
    lines.iter().map(|l| format!("{l}\n")).collect()
}

fn contents(carried: &crate::record::Carried) -> Vec<String> {
    carried.messages.iter().map(|m| m.content.clone()).collect()
}

#[test]
fn after_a_completed_compaction_its_summary_and_the_later_turns_are_carried() {
    // `/compact` as turn 2: its own turn said nothing, and is not carried.
    let record = compacted_record(2, "completed", Some("Q1 was answered: A1."), false);
    let carried = crate::record::carry(record.as_bytes(), "claude-code", None).unwrap();
    assert_eq!(
        contents(&carried),
        [
            format!(
                "{}\n\nQ1 was answered: A1.",
                crate::record::conversation::SUMMARY_LEAD
            ),
            "Question 3".to_owned(),
            "Answer 3".to_owned(),
        ]
    );
    assert_eq!(carried.messages[0].from, "claude-code");
    let compacted = carried.compacted.as_ref().unwrap();
    assert_eq!(
        (compacted.compaction_id.as_str(), compacted.replaced_turns),
        ("k1", 1)
    );
    assert_eq!(
        serde_json::to_value(&carried).unwrap()["compacted"],
        json!({"compactionId": "k1", "replacedTurns": 1})
    );
    // A compaction in a turn that went on: that turn is carried after the summary.
    let record = compacted_record(2, "completed", Some("Summary."), true);
    let carried = crate::record::carry(record.as_bytes(), "claude-code", None).unwrap();
    assert_eq!(
        contents(&carried)[1..],
        ["Question 2", "Answer 2", "Question 3", "Answer 3"]
    );
    assert_eq!(carried.compacted.unwrap().replaced_turns, 1);
    // Up to a turn before it: every turn up to there.
    let carried = crate::record::carry(record.as_bytes(), "claude-code", Some(1)).unwrap();
    assert_eq!(contents(&carried), ["Question 1", "Answer 1"]);
    assert!(carried.compacted.is_none());
}

#[test]
fn without_a_usable_summary_every_turn_is_carried() {
    for (status, summary) in [
        ("completed", None),
        ("completed", Some("  ")),
        ("failed", Some("Partial.")),
        ("cancelled", Some("Partial.")),
        ("in_progress", Some("Partial.")),
    ] {
        let record = compacted_record(2, status, summary, true);
        let carried = crate::record::carry(record.as_bytes(), "claude-code", None).unwrap();
        assert!(carried.compacted.is_none(), "{status} {summary:?}");
        assert_eq!(carried.messages.len(), 6, "{status} {summary:?}");
        assert_eq!(carried.messages[0].content, "Question 1");
        assert!(
            serde_json::to_value(&carried)
                .unwrap()
                .get("compacted")
                .is_none(),
            "carried whole"
        );
    }
}

#[test]
fn a_compaction_is_written_when_first_seen_and_at_its_end() {
    use crate::agent_output::Compaction;
    let mut r = Recorder::new();
    let mut out = r.request(1, "go", &[]);
    let c = |status: &str, summary: Option<&str>| AgentEvent::Compaction {
        compaction: Compaction {
            id: "k".into(),
            status: status.into(),
            summary: summary.map(str::to_owned),
            error: None,
        },
    };
    out += &r.event(2, &c("in_progress", None));
    out += &r.event(3, &c("in_progress", Some("We")));
    out += &r.event(4, &c("in_progress", Some("We chose")));
    out += &r.event(5, &c("completed", Some("We chose SQLite.")));
    out += &r.event(6, &c("completed", Some("again")));
    let entries: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let kinds: Vec<&str> = entries
        .iter()
        .map(|e| e["kind"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, ["request", "compaction", "compaction"]);
    assert_eq!(entries[1]["status"], "in_progress");
    assert!(entries[1].get("summary").is_none());
    assert_eq!(entries[2]["summary"], "We chose SQLite.");
    // A record that goes on knows what was written.
    let (mut again, _) = Recorder::continuing(out.as_bytes(), 9).unwrap();
    assert!(again.event(10, &c("completed", Some("x"))).is_empty());
    // A notice is never written.
    let notice = AgentEvent::Notice {
        notice: crate::agent_output::Notice {
            severity: "info".into(),
            title: "Hi".into(),
            description: None,
        },
    };
    assert!(r.event(7, &notice).is_empty());
}
