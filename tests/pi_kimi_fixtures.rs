#![cfg(not(target_arch = "wasm32"))]
//! pi and Kimi Code output recorded from the real agents against the OpenAI
//! Chat Completions mock: over their command lines (every recorded release,
//! `tests/fixtures/cli/pi/<version>/` and `tests/fixtures/cli/kimi-code/<version>/`,
//! by `tests/cli/record_openai_chat_agents.cjs` and `npm run record`) and over
//! ACP (`tests/fixtures/acp/pi/<pi-acp version>/`,
//! `tests/fixtures/acp/kimi-code/<version>/`, by `tests/acp/record_acp.cjs`).
//! The expected values come from what the mock sent
//! (`tests/cli/mocks/openai-chat.cjs`): its answers, its usage per call (120
//! prompt tokens of which 20 cached, 9 completion tokens), its errors; the
//! session ids from the lines that carry them. Each fixture is parsed whole
//! and in chunks of every size up to 64 bytes, to the same reply, with no
//! event type left unknown; Kimi Code's failed runs, which say why on stderr
//! alone, are classified from their recorded stderr.

use std::path::PathBuf;

use agent_context::agent_output::{
    parse_agent_output, parse_agent_output_in, AgentEvent, AgentOutputParser, AgentReply, Output,
    Protocol, ReplyStatus, TextForm, ToolStatus, Usage,
};
use agent_context::agents;
use agent_context::attempt::{classify, AgentErrorKind, AttemptEnd, Evidence};
use serde_json::Value;

const PLAIN_ANSWER: &str = "Mock reply: use React for the dashboard.";
const TOOL_ANSWER: &str = "The notes say the launch code is 4217.";
const NOTES_TEXT: &str = "The launch code is 4217.";
const ERROR_400: &str = "Mock rejects this request: bad parameter.";
const ERROR_500: &str = "Mock server error: the model is unavailable.";

/// The releases recorded over the CLI: what the tests below name, and what
/// is on disk.
const RECORDED: &[(&str, &str)] = &[
    ("pi", "0.73.1"),
    ("pi", "0.64.0"),
    ("pi", "0.52.12"),
    ("kimi-code", "2.1.0"),
    ("kimi-code", "2.0.2"),
    ("kimi-code", "0.43.1"),
];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

fn read(path: PathBuf) -> Vec<u8> {
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cli_fixture(agent: &str, version: &str, name: &str) -> Vec<u8> {
    read(root().join("cli").join(agent).join(version).join(name))
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// Parsed whole and in chunks of 1 to 64 bytes: the same reply, the text
/// events adding up to the text, no unknown event.
fn parse(agent: &str, bytes: &[u8], what: &str) -> AgentReply {
    let whole = parse_agent_output(agent, bytes);
    for size in 1..=64 {
        let mut parser = AgentOutputParser::new(agent);
        let mut text = String::new();
        for chunk in bytes.chunks(size) {
            for event in parser.push(chunk) {
                match event {
                    AgentEvent::Text { text: piece } => text.push_str(&piece),
                    AgentEvent::Unknown { event_type, .. } => {
                        panic!("{what}: unknown event {event_type}")
                    }
                    _ => {}
                }
            }
        }
        assert_eq!(parser.finish(), whole, "{what}: chunks of {size} bytes");
        assert_eq!(text, whole.text, "{what}: text events, chunks of {size}");
    }
    assert!(whole.unknown_events.is_empty(), "{what}");
    whole
}

fn fatal(reply: &AgentReply) -> Vec<&str> {
    reply
        .errors
        .iter()
        .filter(|e| e.fatal)
        .map(|e| e.message.as_str())
        .collect()
}

/// The mock's usage for `calls` calls, as pi reports it (its `input`
/// leaves out the 20 cached tokens, added back).
fn mock_usage(calls: u64) -> Usage {
    Usage {
        input_tokens: Some(120 * calls),
        cached_input_tokens: Some(20 * calls),
        output_tokens: Some(9 * calls),
        total_tokens: Some(129 * calls),
        ..Usage::default()
    }
}

/// The session id as printed, found without the parser: pi's first line's
/// `id`, Kimi Code's resume hint's `session_id`.
fn printed_session(agent: &str, bytes: &[u8]) -> Option<String> {
    let all = lines(bytes);
    let found = match agent {
        "pi" => all
            .iter()
            .find(|l| l["type"] == "session")
            .map(|l| &l["id"]),
        _ => all
            .iter()
            .find(|l| l["type"] == "session.resume_hint")
            .map(|l| &l["session_id"]),
    };
    found.and_then(Value::as_str).map(str::to_owned)
}

/// Kimi Code's failed run read as the run reads it: exit 1, its stderr's
/// last lines.
fn kimi_failure(version: &str, scenario: &str, reply: &AgentReply) -> (AgentErrorKind, String) {
    let stderr = String::from_utf8(cli_fixture(
        "kimi-code",
        version,
        &format!("{scenario}.stderr.txt"),
    ))
    .unwrap();
    let last_lines: Vec<String> = stderr.lines().map(str::to_owned).collect();
    let end = AttemptEnd {
        exit_code: Some(1),
        ..AttemptEnd::default()
    };
    let failure = classify(&Evidence {
        agent: agents::find("kimi-code").unwrap(),
        end: &end,
        reply,
        last_lines: &last_lines,
        command: "kimi",
        requested_session: None,
        idle_timeout_s: 300,
        max_duration_s: 1800,
        platform: None,
    })
    .unwrap_err();
    (failure.kind, failure.message)
}

fn check_cli(agent: &str, version: &str) {
    let dir = root().join("cli").join(agent).join(version);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".jsonl").map(str::to_owned)
        })
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "error400",
            "error500",
            "plain",
            "resume",
            "resume-first",
            "tool"
        ],
        "{agent} {version}: scenarios recorded"
    );
    for scenario in &names {
        let what = format!("{agent} {version} {scenario}");
        let bytes = cli_fixture(agent, version, &format!("{scenario}.jsonl"));
        let reply = parse(agent, &bytes, &what);
        let printed = printed_session(agent, &bytes);
        assert_eq!(reply.session_id, printed, "{what}: session id");
        match scenario.as_str() {
            "plain" | "resume-first" | "resume" => {
                assert_eq!(reply.status, ReplyStatus::Success, "{what}");
                assert_eq!(reply.text, PLAIN_ANSWER, "{what}");
                assert!(reply.tool_uses.is_empty(), "{what}");
                assert!(reply.errors.is_empty(), "{what}: {:?}", reply.errors);
                assert!(printed.is_some(), "{what}: a session id is printed");
                if scenario == "resume" {
                    let first = cli_fixture(agent, version, "resume-first.jsonl");
                    assert_eq!(
                        reply.session_id,
                        printed_session(agent, &first),
                        "{what}: the session resumed"
                    );
                }
                let usage = reply.usage.clone();
                match agent {
                    "pi" => assert_eq!(usage, Some(mock_usage(1)), "{what}"),
                    // Kimi Code prints no usage.
                    _ => assert_eq!(usage, None, "{what}"),
                }
            }
            "tool" => {
                assert_eq!(reply.status, ReplyStatus::Success, "{what}");
                assert_eq!(reply.text, TOOL_ANSWER, "{what}");
                assert!(fatal(&reply).is_empty(), "{what}: {:?}", reply.errors);
                assert_eq!(reply.tool_uses.len(), 1, "{what}");
                let tool = &reply.tool_uses[0];
                let name = if agent == "pi" { "read" } else { "Read" };
                assert_eq!(tool.name, name, "{what}");
                let path = tool.input["path"].as_str().unwrap_or_default();
                assert!(path.ends_with("/notes.txt"), "{what}: {}", tool.input);
                assert_eq!(tool.status, ToolStatus::Success, "{what}");
                let output = tool.output.as_deref().unwrap_or_default();
                assert!(output.contains(NOTES_TEXT), "{what}: {output}");
                if agent == "pi" {
                    assert_eq!(reply.usage, Some(mock_usage(2)), "{what}");
                }
            }
            "error400" | "error500" => {
                let (message, status) = if scenario == "error400" {
                    (ERROR_400, 400)
                } else {
                    (ERROR_500, 500)
                };
                assert_eq!(reply.text, "", "{what}");
                if agent == "pi" {
                    // It exits 0: the failure is its last message's.
                    assert_eq!(reply.status, ReplyStatus::Error, "{what}");
                    let fatal = fatal(&reply);
                    assert_eq!(fatal.len(), 1, "{what}: {:?}", reply.errors);
                    assert!(fatal[0].contains(message), "{what}: {fatal:?}");
                    let code = reply.errors.iter().find(|e| e.fatal).unwrap().code.clone();
                    assert_eq!(code, Some(format!("http_{status}")), "{what}");
                } else {
                    // Its stdout has its version line alone: the error is on
                    // stderr, and the run reads it there.
                    assert_eq!(reply.status, ReplyStatus::Incomplete, "{what}");
                    let (kind, said) = kimi_failure(version, scenario, &reply);
                    let expected = if status == 400 {
                        AgentErrorKind::RequestRejected
                    } else {
                        AgentErrorKind::UpstreamError
                    };
                    assert_eq!(kind, expected, "{what}: {said}");
                    assert!(said.contains(message), "{what}: {said}");
                    assert!(!said.contains("See log:"), "{what}: {said}");
                }
            }
            other => panic!("{what}: a scenario this test does not know: {other}"),
        }
    }
}

#[test]
fn every_recorded_release_is_tested_here() {
    for agent in ["pi", "kimi-code"] {
        let mut on_disk: Vec<String> = std::fs::read_dir(root().join("cli").join(agent))
            .unwrap()
            .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        on_disk.sort();
        let mut named: Vec<String> = RECORDED
            .iter()
            .filter(|(a, _)| *a == agent)
            .map(|(_, v)| v.to_string())
            .collect();
        named.sort();
        assert_eq!(on_disk, named, "{agent}");
        assert!(named.len() >= 3, "{agent}: at least three releases");
    }
}

macro_rules! cli_tests {
    ($($name:ident: $agent:literal $version:literal;)*) => {
        $(
            #[test]
            fn $name() {
                assert!(RECORDED.contains(&($agent, $version)));
                check_cli($agent, $version);
            }
        )*
    };
}

cli_tests! {
    pi_0_73_1: "pi" "0.73.1";
    pi_0_64_0: "pi" "0.64.0";
    pi_0_52_12: "pi" "0.52.12";
    kimi_code_2_1_0: "kimi-code" "2.1.0";
    kimi_code_2_0_2: "kimi-code" "2.0.2";
    kimi_code_0_43_1: "kimi-code" "0.43.1";
}

// --- over ACP -------------------------------------------------------------

fn acp(agent: &str, dir: &str, scenario: &str) -> AgentReply {
    let bytes = read(
        root()
            .join("acp")
            .join(dir)
            .join(format!("{scenario}.jsonl")),
    );
    let text = String::from_utf8(bytes).unwrap();
    let reply = parse_agent_output_in(agent, Protocol::Acp, Output::Text(&text), TextForm::Utf8).0;
    let general = agent_context::agent_output::parse_acp_output_general(
        agent,
        Output::Text(&text),
        TextForm::Utf8,
    )
    .0;
    assert_eq!(reply, general, "{agent} {scenario}: both readers agree");
    assert!(reply.unknown_events.is_empty(), "{agent} {scenario}");
    reply
}

#[test]
fn pi_acp_0_0_24_over_acp() {
    let plain = acp("pi", "pi/0.0.24", "plain");
    assert_eq!(plain.status, ReplyStatus::Success);
    assert_eq!(plain.text, PLAIN_ANSWER);
    assert!(plain.session_id.is_some());
    let tool = acp("pi", "pi/0.0.24", "tool");
    assert_eq!(tool.status, ReplyStatus::Success);
    assert_eq!(tool.text, TOOL_ANSWER);
    assert_eq!(tool.tool_uses.len(), 1);
    assert_eq!(tool.tool_uses[0].status, ToolStatus::Success);
    let shell = acp("pi", "pi/0.0.24", "shell");
    assert_eq!(shell.status, ReplyStatus::Success);
    assert_eq!(shell.tool_uses[0].input["command"], "cat notes.txt");
    // Its adapter drops the error: the turn ends `end_turn` without a word.
    let error = acp("pi", "pi/0.0.24", "error");
    assert_eq!(error.status, ReplyStatus::Error);
    assert_eq!(error.text, "");
    assert_eq!(
        error.errors.last().unwrap().code.as_deref(),
        Some("silent_turn")
    );
}

#[test]
fn kimi_code_2_1_0_over_acp() {
    let plain = acp("kimi-code", "kimi-code/2.1.0", "plain");
    assert_eq!(plain.status, ReplyStatus::Success);
    assert_eq!(plain.text, PLAIN_ANSWER);
    assert!(plain
        .session_id
        .as_deref()
        .is_some_and(|s| s.starts_with("session_")));
    // Its context's level after the turn, no token counts of the turn.
    let usage = plain.usage.clone().unwrap();
    assert_eq!(usage.context_tokens, Some(129));
    assert_eq!(usage.context_window, Some(262_144));
    assert_eq!(usage.input_tokens, None);
    let tool = acp("kimi-code", "kimi-code/2.1.0", "tool");
    assert_eq!(tool.status, ReplyStatus::Success);
    assert_eq!(tool.text, TOOL_ANSWER);
    assert_eq!(tool.tool_uses.len(), 1);
    let shell = acp("kimi-code", "kimi-code/2.1.0", "shell");
    assert_eq!(shell.status, ReplyStatus::Success);
    assert_eq!(shell.text, TOOL_ANSWER);
    // A failed model call: `end_turn`, nothing sent, no error.
    let error = acp("kimi-code", "kimi-code/2.1.0", "error");
    assert_eq!(error.status, ReplyStatus::Error);
    assert_eq!(error.text, "");
    assert!(error
        .errors
        .last()
        .unwrap()
        .message
        .contains("over ACP Kimi Code says nothing"));
}
