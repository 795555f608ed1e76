//! The team machine's transitions, scripted: events in, the actions it
//! answers with, no process.

use serde_json::{json, Value};

use super::{Action, Cause, Event, TeamConfig, TeamMachine};
use crate::error::ErrorCode;

pub(super) const CAROL: &str = "You are Carol, the parser author.";

pub(super) fn add(m: &mut TeamMachine, members: Value) {
    for (i, member) in members.as_array().unwrap().iter().enumerate() {
        m.handle(Event::AddMember {
            member: member.clone(),
            path: format!("options.members[{i}]"),
        })
        .unwrap();
    }
}

pub(super) fn team_with(config: Value, members: Value) -> TeamMachine {
    let config = TeamConfig::read(&config).unwrap();
    let mut m = TeamMachine::new(Some("Ship".into()), "/work".into(), config, false);
    add(&mut m, members);
    m
}

/// Carol on Claude Code, Max on Codex.
pub(super) fn team() -> TeamMachine {
    team_with(
        json!({}),
        json!([
            {"id": "carol", "agentType": "claude-code", "systemInstruction": CAROL},
            {"id": "max", "agentType": "openai-codex", "systemInstruction": "You are Max."},
        ]),
    )
}

/// `team()` after one turn of `member` on session `session`, stored and
/// brought back.
pub(super) fn restored_after_a_turn(member: &str, session: &str) -> TeamMachine {
    let mut m = team();
    post(&mut m, "kailai", Some(member), "Write the parser");
    ask(&mut m, member, "");
    opened(&mut m, member, session);
    turn_done(&mut m, member, "Done", None, session);
    m.take_actions();
    TeamMachine::restore(
        &m.state().to_json(),
        None,
        TeamConfig::default(),
        &[],
        false,
    )
    .unwrap()
}

pub(super) fn post(m: &mut TeamMachine, from: &str, to: Option<&str>, content: &str) {
    let message = json!({"from": from, "to": to, "content": content});
    m.handle(Event::Post { message }).unwrap();
}

pub(super) fn ask(m: &mut TeamMachine, member: &str, message: &str) -> u64 {
    let event = Event::Ask {
        member: member.into(),
        message: Some(message.into()).filter(|s: &String| !s.is_empty()),
        reply_to: None,
    };
    m.handle(event).unwrap().as_u64().unwrap()
}

pub(super) fn opened(m: &mut TeamMachine, member: &str, session: &str) {
    let event = Event::Opened {
        member: member.into(),
        session_id: Some(session.into()),
        conversation_id: None,
        fallback: None,
    };
    m.handle(event).unwrap();
}

pub(super) fn turn_done(
    m: &mut TeamMachine,
    member: &str,
    text: &str,
    kind: Option<&str>,
    session: &str,
) {
    m.handle(Event::TurnDone {
        member: member.into(),
        success: kind.is_none(),
        text: Some(text.into()),
        kind: kind.map(str::to_owned),
        session_id: Some(session.into()),
        moved: None,
    })
    .unwrap();
}

/// The actions since the last call, one line each.
pub(super) fn actions(m: &mut TeamMachine) -> Vec<String> {
    m.take_actions()
        .iter()
        .map(|a| {
            let v = a.to_json();
            let s = |k: &str| v[k].as_str().map_or("-".to_owned(), str::to_owned);
            match a {
                Action::Open { next, .. } => format!(
                    "open {} {} session={} system={} endpoint={}{}",
                    s("member"),
                    s("protocol"),
                    s("sessionId"),
                    s("systemPrompt"),
                    s("endpoint"),
                    next.iter()
                        .map(|n| format!(
                            " next={}:{}",
                            n["fallback"],
                            n["agent"].as_str().unwrap_or("-")
                        ))
                        .collect::<String>()
                ),
                Action::Prompt {
                    request,
                    ask,
                    continues,
                    ..
                } => format!(
                    "prompt #{ask} {}{} system={} | {}",
                    s("member"),
                    if *continues { " (continues)" } else { "" },
                    request.system_flag.as_deref().unwrap_or("-"),
                    request.prompt.replace('\n', "/")
                ),
                Action::Close { .. } => format!("close {}", s("member")),
                Action::Done { ask, context } => format!(
                    "done #{ask} {} {}B {} messages",
                    context["kind"].as_str().unwrap(),
                    context["bytes"],
                    context["messages"]
                ),
                Action::Fail { ask, cause, .. } => match cause {
                    Cause::Error(e) => format!("fail #{ask} {}", e.message()),
                    other => format!("fail #{ask} {other:?}"),
                },
                Action::Log { level, text } => format!("log {level} {text}"),
                Action::Record { lines, .. } => format!(
                    "record {}",
                    lines
                        .lines()
                        .map(|l| serde_json::from_str::<Value>(l).unwrap()["kind"]
                            .as_str()
                            .unwrap()
                            .to_owned())
                        .collect::<Vec<_>>()
                        .join(",")
                ),
            }
        })
        .collect()
}

pub(super) fn seat(m: &TeamMachine, id: &str) -> Value {
    let state = m.state().to_json();
    state["members"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["id"] == id)
        .cloned()
        .unwrap()
}

#[test]
fn a_first_turn_opens_a_session_with_the_instructions_apart_then_sends_the_full_prompt() {
    let mut m = team();
    post(&mut m, "kailai", Some("carol"), "Write the parser");
    let one = ask(&mut m, "carol", "");
    assert_eq!(
        actions(&mut m),
        [format!(
            "open carol acp session=- system={CAROL} endpoint=none"
        )]
    );
    opened(&mut m, "carol", "s1");
    let full = "[TEAM_TASK]/Ship//[CONTEXT]/- kailai -> carol: Write the parser";
    assert_eq!(
        actions(&mut m),
        [format!("prompt #{one} carol system=- | {full}")]
    );
    turn_done(&mut m, "carol", "Parser written", None, "s1");
    let bytes = full.len() + CAROL.len();
    assert_eq!(
        actions(&mut m),
        [format!("done #{one} full {bytes}B 1 messages")]
    );
    assert_eq!(
        (
            seat(&m, "carol")["sessionId"].clone(),
            seat(&m, "carol")["mark"].clone()
        ),
        (json!("s1"), json!(1))
    );
    assert_eq!(
        m.state().transcript.last().unwrap().content,
        "Parser written"
    );

    // The next turn: only what is new, on the same session.
    post(&mut m, "pat", None, "Tests pass");
    let two = ask(&mut m, "carol", "Go on");
    assert_eq!(
        actions(&mut m),
        [format!(
            "prompt #{two} carol system=- | [CONTEXT]/- pat: Tests pass//[MESSAGE]/Go on"
        )]
    );
    turn_done(&mut m, "carol", " ", None, "s1");
    assert_eq!(
        actions(&mut m),
        [format!(
            "done #{two} delta {}B 1 messages",
            "[CONTEXT]\n- pat: Tests pass\n\n[MESSAGE]\nGo on".len()
        )]
    );
    assert_eq!(
        m.state().transcript.len(),
        3,
        "an empty reply joins nothing"
    );
    assert_eq!(seat(&m, "carol")["mark"], 3);
}

#[test]
fn a_members_turns_wait_for_each_other_and_members_run_side_by_side() {
    let mut m = team();
    post(&mut m, "kailai", None, "Standup at ten");
    let a = ask(&mut m, "carol", "");
    let b = ask(&mut m, "carol", "And then?");
    let c = ask(&mut m, "max", "");
    let opens = actions(&mut m);
    assert_eq!(opens.len(), 2, "{opens:?}");
    assert!(
        opens[1].starts_with("open max acp session=- system=- "),
        "{opens:?}"
    );
    opened(&mut m, "carol", "s1");
    opened(&mut m, "max", "m1");
    let prompts = actions(&mut m);
    assert!(
        prompts[0].starts_with(&format!("prompt #{a} carol")),
        "{prompts:?}"
    );
    assert!(
        prompts[1].starts_with(&format!("prompt #{c} max system=- | [SYSTEM]/You are Max.")),
        "{prompts:?}"
    );
    turn_done(&mut m, "carol", "one", None, "s1");
    let next = actions(&mut m);
    assert!(next[0].starts_with(&format!("done #{a} full ")), "{next:?}");
    assert_eq!(
        next[1],
        format!("prompt #{b} carol system=- | [MESSAGE]/And then?")
    );
}

#[test]
fn failures_fail_the_ask_and_the_next_ask_starts() {
    let mut m = team();
    post(&mut m, "kailai", None, "hello");
    let one = ask(&mut m, "carol", "");
    let two = ask(&mut m, "carol", "");
    m.take_actions();
    m.handle(Event::OpenFailed {
        member: "carol".into(),
        kind: Some("command_not_found".into()),
    })
    .unwrap();
    let after = actions(&mut m);
    assert_eq!(after[0], format!("fail #{one} Open"));
    assert!(
        after[1].starts_with("open carol acp session=- "),
        "the next ask opens again: {after:?}"
    );
    opened(&mut m, "carol", "s1");
    m.take_actions();
    m.handle(Event::PromptFailed {
        member: "carol".into(),
    })
    .unwrap();
    assert_eq!(actions(&mut m), [format!("fail #{two} Prompt")]);
    assert_eq!(
        seat(&m, "carol")["mark"],
        Value::Null,
        "nothing reached the session"
    );

    // A turn that failed still moves the mark (the prompt reached the session).
    let three = ask(&mut m, "carol", "");
    m.take_actions();
    turn_done(&mut m, "carol", "partial", Some("process_error"), "s1");
    assert!(actions(&mut m)[0].starts_with(&format!("done #{three} full")));
    assert_eq!(seat(&m, "carol")["mark"], 1);
    assert_eq!(m.state().transcript.len(), 1, "no reply joins");

    // Nothing to send: the core's error, no session opened.
    let four = ask(&mut m, "carol", "");
    assert_eq!(
        actions(&mut m),
        [format!("fail #{four} nothing to send to member \"carol\": no message since its last turn concerns it, and the turn has no message")]
    );
}

#[test]
fn closing_fails_what_waits_closes_what_opens_and_refuses_new_asks() {
    let mut m = team();
    post(&mut m, "kailai", None, "hello");
    ask(&mut m, "carol", "");
    opened(&mut m, "carol", "s1");
    let waiting = ask(&mut m, "carol", "later");
    let opening = ask(&mut m, "max", "");
    m.take_actions();
    m.handle(Event::Close).unwrap();
    assert_eq!(
        actions(&mut m),
        [
            "close carol".to_owned(),
            format!(
                "fail #{waiting} {}",
                "the team is closed (AgentTeam.fromJSON(team.toJSON(), options) continues it)"
            )
        ]
    );
    opened(&mut m, "max", "m1");
    let after = actions(&mut m);
    assert_eq!(after[0], "close max");
    assert!(after[1].starts_with(&format!("fail #{opening} the team is closed")));
    let err = m
        .handle(Event::Ask {
            member: "carol".into(),
            message: None,
            reply_to: None,
        })
        .unwrap_err();
    assert!(err.message().starts_with("the team is closed"));
}

#[test]
fn a_budget_cut_is_logged() {
    let mut m = team_with(
        json!({}),
        json!([{"id": "lin", "agentType": "google-gemini", "maxBytes": 120}]),
    );
    for i in 0..4 {
        post(
            &mut m,
            "kailai",
            None,
            &format!("note {i} {}", "x".repeat(40)),
        );
    }
    let one = ask(&mut m, "lin", "");
    m.take_actions();
    opened(&mut m, "lin", "l1");
    m.take_actions();
    turn_done(&mut m, "lin", "ok", None, "l1");
    let after = actions(&mut m);
    assert_eq!(after[0], "log warn [agent-context] lin's prompt left out the 3 oldest messages that concern it, to fit maxBytes 120");
    assert!(after[1].starts_with(&format!("done #{one} full")));
}

#[test]
fn members_are_checked_when_they_join() {
    let join = |config: Value, member: Value| {
        let mut m = team_with(config, json!([]));
        m.handle(Event::AddMember {
            member,
            path: "options.members[0]".into(),
        })
        .map(|_| m)
    };
    let message = |r: crate::error::Result<TeamMachine>| {
        let e = r.err().unwrap();
        assert_eq!(e.code(), ErrorCode::InvalidInput);
        e.message().to_owned()
    };
    let typo = message(join(
        json!({}),
        json!({"id": "carol", "agentType": "claud-code"}),
    ));
    assert!(
        typo.starts_with("options.members[0].agentType must be 'claude-code', 'openai-codex'"),
        "{typo}"
    );
    assert!(
        typo.ends_with("got \"claud-code\" (did you mean 'claude-code'?)"),
        "{typo}"
    );
    assert_eq!(
        message(join(
            json!({}),
            json!({"id": "", "agentType": "claude-code"})
        )),
        "options.members[0].id must be a non-empty string, got an empty string"
    );
    let cli = message(join(
        json!({}),
        json!({"id": "c", "agentType": "cline", "protocol": "cli"}),
    ));
    assert!(
        cli.contains("Cline is driven over the Agent Client Protocol only"),
        "{cli}"
    );
    let def = json!({"id": "ref", "name": "Ref", "command": "node", "protocol": "acp"});
    assert_eq!(
        message(join(
            json!({"protocol": "cli"}),
            json!({"id": "r", "definition": def})
        )),
        "options.protocol must be 'acp' for member \"r\", given by its definition"
    );
    let mut twice = team();
    let again = twice.handle(Event::AddMember {
        member: json!({"id": "max", "agentType": "opencode"}),
        path: "member".into(),
    });
    assert_eq!(
        again.unwrap_err().message(),
        "a member named \"max\" is already on the team"
    );
    let from = twice.handle(Event::Post {
        message: json!({"from": "max", "content": "x"}),
    });
    assert!(from
        .unwrap_err()
        .message()
        .contains("a member's messages are its replies"));
}

#[test]
fn the_teams_endpoint_goes_to_members_without_their_own_and_must_suit_them() {
    let anthropic = json!({"baseUrl": "http://127.0.0.1:1", "api": "anthropic-messages"});
    let codex = json!({"id": "max", "agentType": "openai-codex"});
    let refused = team_with(json!({"endpoint": anthropic}), json!([]))
        .handle(Event::AddMember {
            member: codex.clone(),
            path: "options.members[1]".into(),
        })
        .unwrap_err();
    assert!(
        refused.message().starts_with("member \"max\" (Codex): options.endpoint.api is 'anthropic-messages', but Codex calls OpenAI Responses endpoints only"),
        "{}",
        refused.message()
    );
    assert!(refused.message().ends_with(
        "give this one its own at options.members[1].endpoint, or endpoint: null for none)"
    ));

    // Without api, one family for every member that takes it.
    let mut mixed = team_with(
        json!({"endpoint": {"baseUrl": "http://127.0.0.1:1"}}),
        json!([{"id": "carol", "agentType": "claude-code"}]),
    );
    let two = mixed
        .handle(Event::AddMember {
            member: codex.clone(),
            path: "member".into(),
        })
        .unwrap_err();
    assert_eq!(
        two.message(),
        "options.endpoint has no api, and the members that take it call different API families (carol: 'anthropic-messages', max: 'openai-responses'): name its family in options.endpoint.api, or give members endpoints of their own"
    );

    // Its own wins; null keeps it without any; the names are stored, not the values.
    let mut own = team_with(
        json!({"endpoint": anthropic}),
        json!([
            {"id": "carol", "agentType": "claude-code", "env": {"A": "1"}},
            {"id": "max", "agentType": "openai-codex", "endpoint": {"baseUrl": "http://127.0.0.1:2/v1", "apiKey": "k"}, "model": "gpt-x"},
            {"id": "lin", "agentType": "google-gemini", "endpoint": null},
        ]),
    );
    for id in ["carol", "max", "lin"] {
        post(&mut own, "kailai", Some(id), "hi");
        ask(&mut own, id, "");
    }
    let opens: Vec<String> = actions(&mut own)
        .iter()
        .map(|a| a.rsplit(' ').next().unwrap().to_owned())
        .collect();
    assert_eq!(opens, ["endpoint=team", "endpoint=own", "endpoint=none"]);
    assert_eq!(
        seat(&own, "max")["sessionOptions"],
        json!(["endpoint", "model"])
    );
    assert_eq!(seat(&own, "carol")["sessionOptions"], json!(["env"]));
    assert!(
        !own.state().to_json().to_string().contains("\"k\""),
        "no key is stored"
    );

    // An endpoint of another family for its own agent names the member too.
    let bad = team_with(json!({}), json!([]))
        .handle(Event::AddMember {
            member: json!({"id": "lin", "agentType": "google-gemini", "endpoint": {"baseUrl": "http://127.0.0.1:3", "api": "openai-chat"}}),
            path: "options.members[2]".into(),
        })
        .unwrap_err();
    assert!(
        bad.message().starts_with(
            "member \"lin\" (Gemini CLI): options.members[2].endpoint.api is 'openai-chat'"
        ),
        "{}",
        bad.message()
    );
}

#[test]
fn a_turn_over_quota_goes_on_with_the_next_agent_of_the_fallback_from_a_full_prompt() {
    let mut m = team_with(
        json!({}),
        json!([{"id": "carol", "agentType": "claude-code", "systemInstruction": CAROL,
            "fallback": ["nope-agent", {"agent": "openai-codex", "options": {"model": "gpt-5"}}]}]),
    );
    post(&mut m, "kailai", Some("carol"), "Write the parser");
    ask(&mut m, "carol", "");
    // The session opens as a conversation given the entries of the fallback
    // that can take the member (one that cannot is left out, said once).
    let out = actions(&mut m);
    assert!(
        out[0].starts_with(
            "log warn [agent-context] member \"carol\".fallback[0] could not take the member"
        ),
        "{out:?}"
    );
    assert!(out[1].ends_with(" next=2:openai-codex"), "{out:?}");
    opened(&mut m, "carol", "s-1");
    m.take_actions();
    // The conversation went on with entry 2 (Codex): the turn goes on there, planned for it.
    m.handle(Event::TurnDone {
        member: "carol".into(),
        success: false,
        text: None,
        kind: Some("quota_exceeded".into()),
        session_id: Some("s-2".into()),
        moved: Some(2),
    })
    .unwrap();
    let carol = seat(&m, "carol");
    assert_eq!(
        (carol["agentType"].as_str(), carol["fallbackUsed"].as_u64()),
        (Some("openai-codex"), Some(2))
    );
    assert_eq!(carol["mark"], Value::Null);
    let out = actions(&mut m);
    assert_eq!(out, vec![format!("prompt #1 carol (continues) system=- | [SYSTEM]/{CAROL}//[TEAM_TASK]/Ship//[CONTEXT]/- kailai -> carol: Write the parser")]);
    turn_done(&mut m, "carol", "Done", None, "s-2");
    let done = m.take_actions();
    let Action::Done { context, .. } = &done[0] else {
        panic!("{done:?}")
    };
    assert_eq!(context["handedOffTo"], json!({"agentType": "openai-codex"}));
    assert_eq!(context["kind"], "full");
    // Its next turn is a delta on the new agent's session; no agent is left for another failure.
    ask(&mut m, "carol", "Next");
    assert!(actions(&mut m)[0].starts_with("prompt #2 carol"));
    turn_done(&mut m, "carol", "", Some("quota_exceeded"), "s-2");
    assert!(actions(&mut m)[0].starts_with("done #2 delta"));
}

#[test]
fn bad_input_is_never_handed_off() {
    let mut m = team_with(
        json!({}),
        json!([{"id": "carol", "agentType": "claude-code", "fallback": ["openai-codex"]}]),
    );
    post(&mut m, "kailai", Some("carol"), "Write the parser");
    ask(&mut m, "carol", "");
    opened(&mut m, "carol", "s-1");
    m.take_actions();
    turn_done(&mut m, "carol", "", Some("invalid_params"), "s-1");
    assert!(actions(&mut m)[0].starts_with("done #1 full"));
    assert_eq!(seat(&m, "carol")["agentType"], "claude-code");
    let bad = TeamMachine::new(None, "/w".into(), TeamConfig::default(), false);
    let mut bad = bad;
    let err = bad
        .handle(Event::AddMember {
            member: json!({"id": "x", "agentType": "openai-codex", "fallback": [3]}),
            path: "options.members[0]".into(),
        })
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);
    assert!(
        err.message()
            .contains("options.members[0].fallback[0] must be"),
        "{}",
        err.message()
    );
}
