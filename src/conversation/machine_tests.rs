//! The conversation machine driven as a host drives it: parts opened,
//! turns sent, a failover, a close while a turn runs, a reopened
//! conversation that moved.

use serde_json::json;

use super::*;
use crate::conversation::fallback::Fallback;

fn setup(fallback: &[&str]) -> Setup {
    Setup {
        id: "c-1".into(),
        created_at: 1,
        agent: json!("claude-code"),
        options: json!({ "cd": "/w" }),
        fallback: fallback
            .iter()
            .map(|a| Fallback {
                agent: json!(a),
                options: json!({}),
            })
            .collect(),
        ..Setup::default()
    }
}

fn actions(c: &mut Conversation) -> Vec<Action> {
    std::iter::from_fn(|| c.poll()).collect()
}

/// The part the last `OpenPart` of `list` opens.
fn opens(list: &[Action]) -> Option<(u64, String)> {
    list.iter().rev().find_map(|a| match a {
        Action::OpenPart { part, agent, .. } => Some((*part, agent_type_of(agent).to_owned())),
        _ => None,
    })
}

/// A conversation whose first part is open on its own agent, as `session`.
fn opened(fallback: &[&str], session: &str) -> Conversation {
    let mut c = Conversation::new(setup(fallback));
    c.handle(Event::Start, 1).unwrap();
    let (part, agent) = opens(&actions(&mut c)).expect("the first part opens");
    assert_eq!(agent, "claude-code");
    c.handle(
        Event::Opened {
            part,
            session_id: Some(session.into()),
        },
        2,
    )
    .unwrap();
    for a in actions(&mut c) {
        if let Action::Write { lines } = a {
            c.lines(lines.as_bytes());
        }
    }
    part_line(&mut c, 1, session, "claude-code", "opened");
    c
}

/// What the engine's recorder writes when a part opens (its `part` entry).
fn part_line(c: &mut Conversation, seq: u64, session: &str, agent: &str, reason: &str) {
    let line = format!(
        "{{\"seq\":{seq},\"at\":{seq},\"kind\":\"part\",\"sessionId\":\"{session}\",\"agentType\":\"{agent}\",\"protocol\":\"acp\",\"reason\":\"{reason}\",\"fromTurn\":1,\"cd\":\"/w\"}}\n"
    );
    c.lines(line.as_bytes());
}

fn sent(list: &[Action]) -> Option<(u64, bool)> {
    list.iter().find_map(|a| match a {
        Action::Send {
            part, hands_off, ..
        } => Some((*part, *hands_off)),
        _ => None,
    })
}

/// Turn 1 fails over quota: the next part opens on Codex (`s-codex`).
/// Its part; the actions after it are left to read.
fn fail_over_to_codex(c: &mut Conversation) -> u64 {
    c.handle(turn_done(1, false, Some("quota_exceeded")), 4)
        .unwrap();
    let (next, agent) = opens(&actions(c)).expect("the next agent opens");
    assert_eq!(agent, "openai-codex");
    let opened = Event::Opened {
        part: next,
        session_id: Some("s-codex".into()),
    };
    c.handle(opened, 5).unwrap();
    next
}

/// The app's turn `ask`.
fn prompt(c: &mut Conversation, ask: u64) {
    c.handle(
        Event::Prompt {
            ask,
            continues: false,
        },
        3,
    )
    .unwrap();
}

fn turn_done(ask: u64, success: bool, kind: Option<&str>) -> Event {
    Event::TurnDone {
        ask,
        success,
        kind: kind.map(str::to_owned),
        message: None,
        session_id: None,
    }
}

#[test]
fn a_turn_over_quota_goes_on_with_the_next_agent_in_the_same_conversation() {
    let mut c = opened(&["openai-codex"], "s-claude");
    prompt(&mut c, 1);
    let (part, hands_off) = sent(&actions(&mut c)).expect("the turn is sent");
    assert!(
        hands_off,
        "a fallback is left: the engine leaves the turn open"
    );
    c.handle(turn_done(1, false, Some("quota_exceeded")), 4)
        .unwrap();
    let list = actions(&mut c);
    assert!(list.contains(&Action::ClosePart { part, ends: false }));
    let (next, agent) = opens(&list).expect("the next agent opens");
    assert_eq!(agent, "openai-codex");
    c.handle(
        Event::Opened {
            part: next,
            session_id: Some("s-codex".into()),
        },
        5,
    )
    .unwrap();
    let list = actions(&mut c);
    let (again, hands_off) = sent(&list).expect("the same turn runs on Codex");
    assert_eq!((again, hands_off), (next, false));
    c.handle(turn_done(1, true, None), 6).unwrap();
    let done = actions(&mut c).into_iter().find_map(|a| match a {
        Action::Done {
            ask, handed_off_to, ..
        } => Some((ask, handed_off_to)),
        _ => None,
    });
    let (ask, to) = done.expect("the turn is done");
    assert_eq!(ask, 1);
    let to = to.expect("handed off");
    assert_eq!(
        (to.agent_type.as_str(), to.fallback_index),
        ("openai-codex", 1)
    );
    assert_eq!(
        c.live_agent().map(|(_, t)| t.to_owned()),
        Some("openai-codex".into())
    );
}

#[test]
fn bad_input_and_a_spent_fallback_end_the_turn_where_it_is() {
    let mut c = opened(&[], "s-claude");
    prompt(&mut c, 1);
    let (_, hands_off) = sent(&actions(&mut c)).unwrap();
    assert!(!hands_off, "no fallback: the engine ends the turn");
    c.handle(turn_done(1, false, Some("quota_exceeded")), 4)
        .unwrap();
    let list = actions(&mut c);
    assert!(opens(&list).is_none());
    assert!(list.iter().any(|a| matches!(
        a,
        Action::Done {
            ask: 1,
            handed_off_to: None,
            ..
        }
    )));

    let mut c = opened(&["openai-codex"], "s-claude");
    prompt(&mut c, 1);
    actions(&mut c);
    c.handle(turn_done(1, false, Some("invalid_params")), 4)
        .unwrap();
    let list = actions(&mut c);
    assert!(opens(&list).is_none(), "bad input is never handed off");
    assert!(list
        .iter()
        .any(|a| matches!(a, Action::Done { ask: 1, .. })));
}

#[test]
fn a_turn_running_when_it_closes_ends_and_nothing_else_is_taken() {
    let mut c = opened(&["openai-codex"], "s-claude");
    prompt(&mut c, 1);
    let (part, _) = sent(&actions(&mut c)).unwrap();
    c.handle(Event::Close, 4).unwrap();
    assert!(actions(&mut c).contains(&Action::ClosePart { part, ends: true }));
    // The agent stopped the turn: it ends, never moved to the fallback.
    c.handle(turn_done(1, false, Some("aborted")), 5).unwrap();
    let list = actions(&mut c);
    assert!(opens(&list).is_none());
    assert!(list.iter().any(|a| matches!(
        a,
        Action::Done {
            ask: 1,
            handed_off_to: None,
            ..
        }
    )));
    // Anything else after the close is refused, once the turn is done.
    assert!(c.handle(turn_done(1, true, None), 6).is_err());
    assert!(c
        .handle(
            Event::Prompt {
                ask: 2,
                continues: false
            },
            6
        )
        .is_err());
    assert!(c.handle(Event::Close, 7).is_ok());
}

#[test]
fn a_reopened_conversation_refuses_an_agent_session_that_is_no_longer_its_live_end() {
    let mut c = opened(&["openai-codex"], "s-claude");
    prompt(&mut c, 1);
    actions(&mut c);
    fail_over_to_codex(&mut c);
    for a in actions(&mut c) {
        if let Action::Write { lines } = a {
            c.lines(lines.as_bytes());
        }
    }
    part_line(&mut c, 3, "s-codex", "openai-codex", "failover");
    let record = c.record().to_vec();
    assert!(
        record.starts_with(b"{\"format\""),
        "the record begins with its header"
    );
    let err = Conversation::restore(
        setup(&["openai-codex"]),
        record.clone(),
        Some("s-claude"),
        9,
    )
    .unwrap_err();
    assert_eq!(
        err.code(),
        crate::error::ErrorCode::SessionMoved,
        "{} {}",
        err.message(),
        String::from_utf8_lossy(&record)
    );
    assert!(err.message().contains("s-codex"), "{}", err.message());
    let live = Conversation::restore(setup(&["openai-codex"]), record, Some("s-codex"), 9).unwrap();
    assert_eq!(live.id(), "c-1");
}

#[test]
fn turns_asked_at_once_run_one_at_a_time_in_order() {
    let mut c = opened(&["openai-codex"], "s-claude");
    prompt(&mut c, 1);
    prompt(&mut c, 2);
    let list = actions(&mut c);
    let sends: Vec<u64> = list
        .iter()
        .filter_map(|a| match a {
            Action::Send { ask, .. } => Some(*ask),
            _ => None,
        })
        .collect();
    assert_eq!(sends, [1], "the second waits for the first");
    c.handle(turn_done(1, true, None), 4).unwrap();
    let list = actions(&mut c);
    let done = list
        .iter()
        .position(|a| matches!(a, Action::Done { ask: 1, .. }));
    let sent = list
        .iter()
        .position(|a| matches!(a, Action::Send { ask: 2, .. }));
    assert!(done.is_some() && sent.is_some() && done < sent, "{list:?}");
    c.handle(turn_done(2, true, None), 5).unwrap();
    assert!(actions(&mut c)
        .iter()
        .any(|a| matches!(a, Action::Done { ask: 2, .. })));
}

#[test]
fn a_turn_waiting_behind_a_failover_runs_on_the_next_agent_and_one_never_run_ends_at_close() {
    let mut c = opened(&["openai-codex"], "s-claude");
    prompt(&mut c, 1);
    prompt(&mut c, 2);
    actions(&mut c);
    let next = fail_over_to_codex(&mut c);
    let list = actions(&mut c);
    assert_eq!(
        sent(&list),
        Some((next, false)),
        "the failed-over turn first"
    );
    assert!(!list
        .iter()
        .any(|a| matches!(a, Action::Send { ask: 2, .. })));
    c.handle(turn_done(1, true, None), 6).unwrap();
    let list = actions(&mut c);
    assert!(list
        .iter()
        .any(|a| matches!(a, Action::Send { ask: 2, part, .. } if *part == next)));
    // A third, asked while the second runs, never runs: the conversation closes.
    prompt(&mut c, 3);
    c.handle(Event::Close, 7).unwrap();
    let list = actions(&mut c);
    assert!(list
        .iter()
        .any(|a| matches!(a, Action::Done { ask: 3, .. })));
    c.handle(turn_done(2, false, Some("aborted")), 8).unwrap();
    assert!(actions(&mut c)
        .iter()
        .any(|a| matches!(a, Action::Done { ask: 2, .. })));
}
