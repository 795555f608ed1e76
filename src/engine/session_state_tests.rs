//! The session's own state on scripted events: updates during a turn, who
//! hears them, the mode that asks, models, a large prompt.

use super::tests::*;
use super::*;
use serde_json::{json, Value};

#[test]
fn session_state_updates_during_a_turn_reach_the_snapshot() {
    let mut e = engine("opencode", json!({}));
    open(&mut e, json!({}), 0);
    let op = e.prompt(json!([{"type": "text", "text": "hi"}]), LIMITS, 10);
    let sent = written(&drain(&mut e));
    let lines = [
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"customize-opencode","description":"Use ONLY when the user is editing or creating opencode's own configuration."}]}}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"current_mode_update","currentModeId":"plan"}}}"#,
        r#"{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1","update":{"sessionUpdate":"usage_update","used":0,"size":200000,"cost":{"amount":0,"currency":"USD"}}}}"#,
    ];
    for line in lines {
        e.stdout(format!("{line}\n").as_bytes(), 20);
    }
    say(&mut e, chunk("s1", "hello"), 21);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
        22,
    );
    let actions = drain(&mut e);
    assert!(turn_of(&actions, op).unwrap().success);
    assert_eq!(e.snapshot().commands[0]["name"], "customize-opencode");
    assert_eq!(e.snapshot().mode.as_deref(), Some("plan"));
    let updates = actions
        .iter()
        .filter(|a| matches!(a, Action::Update(_)))
        .count();
    assert_eq!(updates, 2, "{actions:?}");
}

#[test]
fn state_updates_in_a_turn_are_heard_only_by_a_host_that_listens() {
    let updates = [
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "first"}]}),
        json!({"sessionUpdate": "config_option_update", "configOptions": [{"id": "model", "currentValue": "m2"}]}),
        json!({"sessionUpdate": "session_info_update", "title": "A title"}),
        // A later list replaces the earlier; a key with an escape is read by the general reader.
        json!({"sessionUpdate": "available_commands_update", "availableCommands": [{"name": "second", "n": -1.5, "x": [true, null, {}]}]}),
        json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"}),
    ];
    for hears in [true, false] {
        let mut e = engine("opencode", json!({}));
        e.hear_updates(hears);
        open(&mut e, json!({}), 0);
        let op = e.prompt(json!([{"type": "text", "text": "hi"}]), LIMITS, 10);
        let sent = written(&drain(&mut e));
        for update in &updates {
            say(
                &mut e,
                json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": update}}),
                20,
            );
        }
        e.stdout(b"{\"jsonrpc\":\"2.0\",\"method\":\"session/update\",\"params\":{\"sessionId\":\"s1\",\"update\":{\"sessionUpdate\":\"current_mode_update\",\"current\\u004DodeId\":\"other\"}}}\n", 21);
        say(&mut e, chunk("s1", "hello"), 21);
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
            22,
        );
        let actions = drain(&mut e);
        let turn = turn_of(&actions, op).unwrap();
        assert!(turn.success);
        assert_eq!(turn.reply.text, "hello");
        let heard: Vec<&Value> = actions
            .iter()
            .filter_map(|a| match a {
                Action::Update(u) => Some(u),
                _ => None,
            })
            .collect();
        if hears {
            assert_eq!(heard.len(), updates.len() + 1, "{actions:?}");
            for (got, sent) in heard.iter().zip(&updates) {
                assert_eq!(*got, sent);
            }
            assert_eq!(heard[5]["currentModeId"], "other");
        } else {
            assert!(heard.is_empty(), "{actions:?}");
        }
        // The list was read from its bytes, kept as text until the session is read.
        assert!(e.sessions[0].commands_text.is_some());
        let snapshot = e.snapshot().clone();
        assert!(e.sessions[0].commands_text.is_none());
        assert_eq!(snapshot.commands, updates[3]["availableCommands"]);
        assert_eq!(snapshot.config_options, updates[1]["configOptions"]);
        assert_eq!(snapshot.mode.as_deref(), Some("other"));
    }
}

#[test]
fn the_maintained_adapters_are_switched_to_the_mode_that_asks() {
    for (agent, fixture, current, wanted) in [
        ("claude-code", "claude/0.101.0", "auto", "default"),
        ("openai-codex", "codex/2.6.0", "agent", "read-only"),
    ] {
        let path = format!(
            "{}/tests/fixtures/acp/{fixture}/plain.jsonl",
            env!("CARGO_MANIFEST_DIR")
        );
        let recorded = std::fs::read_to_string(path).unwrap();
        let answer: Value = recorded
            .lines()
            .map(|l| serde_json::from_str::<Value>(l).unwrap())
            .find(|m| m["id"] == 2)
            .unwrap();
        assert_eq!(answer["result"]["modes"]["currentModeId"], current);
        let mut e = engine(agent, json!({}));
        let op = e.open(0);
        drain(&mut e);
        e.spawned(0);
        let init = written(&drain(&mut e));
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": init[0]["id"], "result": {"protocolVersion": 1}}),
            0,
        );
        let new = written(&drain(&mut e));
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": new[0]["id"], "result": answer["result"]}),
            1,
        );
        let actions = drain(&mut e);
        let sent = written(&actions);
        assert_eq!(sent[0]["method"], "session/set_mode", "{agent}");
        assert_eq!(sent[0]["params"]["modeId"], wanted, "{agent}");
        assert!(!actions.iter().any(|a| matches!(
            a,
            Action::Done {
                outcome: Outcome::Opened(_),
                ..
            }
        )));
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {}}),
            2,
        );
        assert!(drain(&mut e)
            .iter()
            .any(|a| matches!(a, Action::Done { op: o, outcome: Outcome::Opened(_) } if *o == op)));
        assert_eq!(e.snapshot().mode.as_deref(), Some(wanted));
    }
}

#[test]
fn set_model_takes_the_model_option_or_set_model_for_an_id_only_the_list_has() {
    let mut e = engine("openai-codex", json!({}));
    open(&mut e, json!({}), 0);
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {
        "sessionUpdate": "config_option_update", "configOptions": [{"id": "model", "category": "model", "type": "select",
        "currentValue": "m1", "options": [{"value": "m1", "name": "M1"}, {"value": "m2", "name": "M2"}]}]}}}),
        1,
    );
    drain(&mut e);
    e.set_model("m2", 2);
    let sent = written(&drain(&mut e));
    assert_eq!(
        (
            sent[0]["method"].as_str(),
            sent[0]["params"]["configId"].as_str()
        ),
        (Some("session/set_config_option"), Some("model"))
    );
    // `m1` is in the session's model list (see `open`) and in the option: the option.
    e.set_model("m1", 3);
    assert_eq!(
        written(&drain(&mut e))[0]["method"],
        "session/set_config_option"
    );
    // An id only the model list has: session/set_model.
    say(
        &mut e,
        json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s1", "update": {
        "sessionUpdate": "config_option_update", "configOptions": [{"id": "model", "category": "model", "type": "select",
        "currentValue": "m2", "options": [{"value": "m2", "name": "M2"}]}]}}}),
        4,
    );
    drain(&mut e);
    e.set_model("m1", 5);
    let sent = written(&drain(&mut e));
    assert_eq!(
        (
            sent[0]["method"].as_str(),
            sent[0]["params"]["modelId"].as_str()
        ),
        (Some("session/set_model"), Some("m1"))
    );
}

#[test]
fn a_large_prompt_into_a_session_is_warned_about_and_sent_as_it_is() {
    let mut e = engine("claude-code", json!({}));
    open(&mut e, json!({}), 0);
    let big = "x".repeat(super::turns::LARGE_PROMPT_BYTES + 1);
    e.prompt(json!([{"type": "text", "text": big}]), LIMITS, 10);
    let actions = drain(&mut e);
    let warned = actions.iter().find_map(|a| match a {
        Action::Warn(m) => Some(m.clone()),
        _ => None,
    });
    let warned = warned.expect("warned");
    assert!(
        warned.contains("1.0 MB") && warned.contains("maxBytes"),
        "{warned}"
    );
    assert_eq!(
        written(&actions)[0]["params"]["prompt"][0]["text"]
            .as_str()
            .unwrap()
            .len(),
        big.len()
    );
    e.prompt(json!([{"type": "text", "text": "small"}]), LIMITS, 20);
    assert!(!drain(&mut e).iter().any(|a| matches!(a, Action::Warn(_))));
}

#[test]
fn a_config_value_from_the_host_is_a_string_or_a_boolean() {
    let mut e = engine("openai-codex", json!({}));
    open(&mut e, json!({}), 0);
    let err = e
        .set_config_value_in(DEFAULT, "model", json!(3), 1)
        .unwrap_err();
    assert_eq!(
        err.message(),
        "setConfigOption's value must be a string or a boolean"
    );
    assert!(drain(&mut e).is_empty());
    e.set_config_value_in(DEFAULT, "model", json!("m2"), 2)
        .unwrap();
    let sent = written(&drain(&mut e));
    assert_eq!(sent[0]["method"], "session/set_config_option");
}

#[test]
fn polled_turns_go_with_their_done_or_are_a_run_s_last() {
    for run in [false, true] {
        let mut e = engine("opencode", json!({}));
        open(&mut e, json!({}), 0);
        e.prompt(json!([{"type": "text", "text": "hi"}]), LIMITS, 10);
        let sent = written(&drain(&mut e));
        say(&mut e, chunk("s1", "hello"), 11);
        say(
            &mut e,
            json!({"jsonrpc": "2.0", "id": sent[0]["id"], "result": {"stopReason": "end_turn"}}),
            12,
        );
        let polled = e.poll_all(run);
        assert!(e.poll().is_none());
        let done = polled.actions.iter().position(|a| a["kind"] == "done");
        let turn = match run {
            true => {
                assert!(polled.turns.is_empty());
                polled.last.unwrap()
            }
            false => {
                assert!(polled.last.is_none());
                let (at, turn) = polled.turns.into_iter().next().unwrap();
                assert_eq!(Some(at), done);
                turn
            }
        };
        assert_eq!(turn.reply.text, "hello");
    }
}
