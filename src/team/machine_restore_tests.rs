//! The team machine restored: members' sessions reopened (their
//! instructions given again where the session needs them), lost or
//! replaced sessions, the team's JSON and record read back.

use serde_json::{json, Value};

use super::machine_tests::*;
use super::{Action, Event, TeamConfig, TeamMachine};

#[test]
fn a_restored_claude_member_gets_its_instructions_again_as_the_system_prompt_over_both_protocols() {
    for protocol in ["acp", "cli"] {
        let config = json!({"protocol": protocol});
        let mut m = team_with(
            config.clone(),
            json!([{"id": "carol", "agentType": "claude-code", "systemInstruction": CAROL}]),
        );
        post(&mut m, "kailai", Some("carol"), "Write the parser");
        ask(&mut m, "carol", "");
        opened(&mut m, "carol", "s1");
        turn_done(&mut m, "carol", "Done", None, "s1");
        m.take_actions();
        let stored = m.state().to_json();
        assert_eq!(stored["version"], 3);

        let mut back = TeamMachine::restore(
            &stored,
            None,
            TeamConfig::read(&config).unwrap(),
            &[],
            false,
        )
        .unwrap();
        assert_eq!(back.state(), m.state());
        post(&mut back, "kailai", Some("carol"), "Now the tests");
        let next = ask(&mut back, "carol", "");
        assert_eq!(
            actions(&mut back),
            [format!(
                "open carol {protocol} session=s1 system={CAROL} endpoint=none"
            )]
        );
        opened(&mut back, "carol", "s1");
        assert_eq!(
            actions(&mut back),
            [format!(
                "prompt #{next} carol system=- | [CONTEXT]/- kailai -> carol: Now the tests"
            )]
        );
        turn_done(&mut back, "carol", "Tests too", None, "s1");
        let bytes = CAROL.len() + "[CONTEXT]\n- kailai -> carol: Now the tests".len();
        assert_eq!(
            actions(&mut back),
            [format!("done #{next} delta {bytes}B 1 messages")]
        );
    }
}

#[test]
fn a_restored_member_whose_layout_opens_the_prompt_is_resumed_without_a_system_prompt() {
    let mut back = restored_after_a_turn("max", "m1");
    post(&mut back, "kailai", Some("max"), "Again");
    let next = ask(&mut back, "max", "");
    assert_eq!(
        actions(&mut back),
        ["open max acp session=m1 system=- endpoint=none"]
    );
    opened(&mut back, "max", "m1");
    // Its first prompt, which the resumed session holds, opened with them.
    assert_eq!(
        actions(&mut back),
        [format!(
            "prompt #{next} max system=- | [CONTEXT]/- kailai -> max: Again"
        )]
    );
}

#[test]
fn a_reopened_session_that_does_not_take_the_system_prompt_gets_the_instructions_in_the_next_prompt(
) {
    let mut back = restored_after_a_turn("carol", "s1");
    back.runs_mut("carol").unwrap().reopen_takes_system = false;
    post(&mut back, "kailai", Some("carol"), "Now the tests");
    let next = ask(&mut back, "carol", "");
    assert_eq!(
        actions(&mut back),
        ["open carol acp session=s1 system=- endpoint=none"]
    );
    opened(&mut back, "carol", "s1");
    assert_eq!(
        actions(&mut back),
        [format!(
            "prompt #{next} carol system={CAROL} | [CONTEXT]/- kailai -> carol: Now the tests"
        )]
    );
    turn_done(&mut back, "carol", "ok", None, "s1");
    back.take_actions();
    // Said once: the session holds them from then on.
    let later = ask(&mut back, "carol", "More");
    assert_eq!(
        actions(&mut back),
        [format!("prompt #{later} carol system=- | [MESSAGE]/More")]
    );
}

#[test]
fn a_session_the_agent_lost_is_replaced_with_the_whole_view() {
    // On resuming: a new session, the full prompt.
    let mut back = restored_after_a_turn("carol", "s1");
    let one = ask(&mut back, "carol", "Where were we?");
    back.take_actions();
    back.handle(Event::OpenFailed {
        member: "carol".into(),
        kind: Some("session_not_found".into()),
    })
    .unwrap();
    assert_eq!(
        actions(&mut back),
        [format!(
            "open carol acp session=- system={CAROL} endpoint=none"
        )]
    );
    opened(&mut back, "carol", "s2");
    let sent = actions(&mut back);
    assert!(sent[0].starts_with(&format!("prompt #{one} carol system=- | [TEAM_TASK]/Ship//[CONTEXT]/- kailai -> carol: Write the parser/- carol: Done")), "{sent:?}");
    turn_done(&mut back, "carol", "Here", None, "s2");
    assert!(actions(&mut back)[0].starts_with(&format!("done #{one} full")));
    assert_eq!(seat(&back, "carol")["sessionId"], "s2");

    // In a turn: closed, a new one, the turn sent again in full — once.
    let two = ask(&mut back, "carol", "Next");
    back.take_actions();
    turn_done(&mut back, "carol", "", Some("session_not_found"), "s2");
    assert_eq!(
        actions(&mut back),
        [
            "close carol".to_owned(),
            format!("open carol acp session=- system={CAROL} endpoint=none")
        ]
    );
    opened(&mut back, "carol", "s3");
    back.take_actions();
    turn_done(&mut back, "carol", "", Some("session_not_found"), "s3");
    let last = actions(&mut back);
    assert_eq!(last[0], "close carol");
    assert!(
        last[1].starts_with(&format!("done #{two} full")),
        "{last:?}"
    );
    assert_eq!(
        (
            seat(&back, "carol")["mark"].clone(),
            seat(&back, "carol").get("sessionId").cloned()
        ),
        (Value::Null, None)
    );
}

#[test]
fn a_resumed_session_with_another_id_holds_nothing() {
    let mut back = restored_after_a_turn("carol", "s1");
    let one = ask(&mut back, "carol", "");
    back.take_actions();
    opened(&mut back, "carol", "other");
    let sent = actions(&mut back);
    // Full, and without the instructions the reopening carried.
    assert!(
        sent[0].starts_with(&format!("prompt #{one} carol system=- | [TEAM_TASK]")),
        "{sent:?}"
    );
}

#[test]
fn a_restore_needs_the_members_own_session_options_again() {
    let m = team_with(
        json!({}),
        json!([{"id": "max", "agentType": "openai-codex", "endpoint": {"baseUrl": "http://127.0.0.1:2/v1"}, "model": "gpt-x"}]),
    );
    let stored = m.state().to_json();
    let restore = |given: Value| {
        TeamMachine::restore(
            &stored,
            None,
            TeamConfig::default(),
            given.as_array().unwrap(),
            false,
        )
    };
    assert_eq!(
        restore(json!([])).unwrap_err().message(),
        "json.members[0] (\"max\") ran with its own endpoint, model, which the JSON does not hold: give them again in options.members ({ id: \"max\", endpoint, model }), or null to leave one out"
    );
    let back = restore(
        json!([{"id": "max", "endpoint": {"baseUrl": "http://127.0.0.1:9/v1"}, "model": null}]),
    )
    .unwrap();
    assert_eq!(back.state().members[0].record.session_options, ["endpoint"]);
    assert_eq!(
        restore(json!([{"id": "nobody"}])).unwrap_err().message(),
        "options.members[0].id is \"nobody\", which is no member of the team (members: max)"
    );
    let identity =
        restore(json!([{"id": "max", "endpoint": null, "model": null, "systemInstruction": "x"}]))
            .unwrap_err();
    assert!(identity
        .message()
        .starts_with("options.members[0].systemInstruction: the JSON holds who member \"max\" is"));
}

#[test]
fn version_1_is_read_and_bad_json_names_the_field() {
    let v1 = json!({
        "version": 1, "teamTask": "Ship", "cd": "/work",
        "members": [{"id": "carol", "agentType": "claude-code", "systemInstruction": CAROL, "sessionId": "s1", "mark": 1}],
        "transcript": [{"from": "kailai", "to": "carol", "content": "Write the parser"}],
    });
    let mut m = TeamMachine::restore(
        &v1,
        Some("/elsewhere".into()),
        TeamConfig::default(),
        &[],
        false,
    )
    .unwrap();
    assert_eq!(m.state().cd, "/elsewhere");
    ask(&mut m, "carol", "Go");
    assert_eq!(
        actions(&mut m),
        [format!(
            "open carol acp session=s1 system={CAROL} endpoint=none"
        )]
    );
    let bad = |patch: Value, expected: &str| {
        let mut json = v1.clone();
        for (k, v) in patch.as_object().unwrap() {
            json[k] = v.clone();
        }
        let err = TeamMachine::restore(&json, None, TeamConfig::default(), &[], false).unwrap_err();
        assert_eq!(err.message(), expected);
    };
    bad(
        json!({"version": 4}),
        "json.version must be 3 (or 1 or 2, still read), got 4",
    );
    bad(
        json!({"members": [{"id": "carol", "agentType": "claude-code", "mark": 2}]}),
        "json.members[0].mark must be a whole number up to the transcript's length (1), got 2",
    );
    bad(
        json!({"transcript": [{"from": "kailai", "content": 3}]}),
        "json.transcript[0].content must be a string, got a number",
    );
    bad(
        json!({"members": [{"id": "carol", "agentType": "claude-code", "sessionOptions": ["apiKey"]}]}),
        "json.members[0].sessionOptions may name endpoint, env, model, command, fallback, got \"apiKey\"",
    );
}

#[test]
fn instructions_of_blanks_are_no_system_prompt_on_a_reopened_session() {
    let v1 = json!({
        "version": 1, "teamTask": null, "cd": "/work",
        "members": [{"id": "carol", "agentType": "claude-code", "systemInstruction": "  \n", "sessionId": "s1", "mark": 0}],
        "transcript": [],
    });
    let mut m = TeamMachine::restore(&v1, None, TeamConfig::default(), &[], false).unwrap();
    ask(&mut m, "carol", "Go");
    assert_eq!(
        actions(&mut m),
        ["open carol acp session=s1 system=- endpoint=none"]
    );
}

#[test]
fn a_team_recorded_reads_back_as_its_json_and_goes_on() {
    let mut m = team();
    m.record("team-1", None, &["sk-secret-123456".to_owned()], 5)
        .unwrap();
    post(
        &mut m,
        "kailai",
        Some("carol"),
        "Write the parser with sk-secret-123456",
    );
    ask(&mut m, "carol", "");
    opened(&mut m, "carol", "s-1");
    turn_done(&mut m, "carol", "Done", None, "s-1");
    let mut text = String::new();
    for a in m.take_actions() {
        if let Action::Record { header, lines } = a {
            text += &header.unwrap_or_default();
            text += &lines;
        }
    }
    assert!(text.starts_with("{\"format\":\"agent-context/session-record\",\"version\":\"2.0\",\"conversationId\":\"team-1\""), "{text}");
    assert!(!text.contains("sk-secret-123456"));
    let data = crate::team::team_json(text.as_bytes()).unwrap();
    let mut expected = m.state().to_json();
    expected["transcript"][0]["content"] = json!("Write the parser with [redacted]");
    assert_eq!(data, expected);
    let summary = crate::record::summarize(text.as_bytes(), true)
        .unwrap()
        .unwrap();
    assert_eq!(
        (summary.team_id.as_deref(), summary.title.as_str()),
        (Some("team-1"), "Ship")
    );
    // It goes on: only what changes is written, numbered after what is there.
    let mut back = TeamMachine::restore(&data, None, TeamConfig::default(), &[], false).unwrap();
    back.record("team-1", Some(text.as_bytes()), &[], 9)
        .unwrap();
    assert_eq!(actions(&mut back), Vec::<String>::new());
    post(&mut back, "kailai", None, "Standup");
    back.handle_at(Event::Close, 10).unwrap();
    let out = actions(&mut back);
    assert_eq!(out, vec!["record message", "record closed"]);
}
