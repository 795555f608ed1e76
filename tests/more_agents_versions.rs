#![cfg(not(target_arch = "wasm32"))]
//! Every recorded release of Qwen Code, GitHub Copilot CLI and opencode
//! (SPEC §13): the fixtures of `tests/fixtures/cli/<agent-type>/<version>/`
//! (recorded by `npm run record -- <package>@<version>`), each parsed whole
//! and in chunks to the reply the OpenAI Chat Completions mock's scenario
//! makes (`tests/cli/mocks/openai-chat.cjs`): the text, the session id (as
//! the CLI printed it), the status, the tool call, the usage, and no event
//! type left unknown. `more_agents_fixtures.rs` tests the pinned releases'
//! traps in more detail.

use std::path::PathBuf;

use agent_context::agent_output::{
    merge_output_file, parse_agent_output, AgentEvent, AgentOutputParser, AgentReply, ReplyStatus,
    ToolStatus, Usage,
};
use agent_context::launch::invocation::OutputKind;
use serde_json::Value;

const PLAIN_ANSWER: &str = "Mock reply: use React for the dashboard.";
const TOOL_ANSWER: &str = "The notes say the launch code is 4217.";
const NOTES_TEXT: &str = "The launch code is 4217.";
const ERROR_400: &str = "Mock rejects this request: bad parameter.";
const ERROR_500: &str = "Mock server error: the model is unavailable.";

/// The versions recorded: what the tests below name, and what is on disk.
const RECORDED: &[(&str, &str)] = &[
    ("qwen-code", "0.24.4"),
    ("qwen-code", "0.21.10"),
    ("qwen-code", "0.15.10"),
    ("qwen-code", "0.12.0"),
    ("github-copilot", "1.0.102"),
    ("github-copilot", "1.0.89"),
    ("github-copilot", "1.0.67"),
    ("opencode", "1.18.33"),
    ("opencode", "1.17.18"),
    ("opencode", "1.14.41"),
    ("opencode", "1.3.2"),
];

fn dir(agent: &str, version: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/cli")
        .join(agent)
        .join(version)
}

/// The scenarios recorded for `agent` at `version` (the `.jsonl` files).
fn scenarios(agent: &str, version: &str) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir(agent, version))
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_suffix(".jsonl").map(str::to_owned)
        })
        .collect();
    names.sort();
    names
}

fn fixture(agent: &str, version: &str, scenario: &str) -> Vec<u8> {
    let path = dir(agent, version).join(format!("{scenario}.jsonl"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// Parsed whole and in chunks of a few sizes: the same reply, the text
/// events adding up to the text, no unknown event.
fn parse(agent: &str, bytes: &[u8], what: &str) -> AgentReply {
    let whole = parse_agent_output(agent, bytes);
    for size in [1, 7, 64, 4096] {
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

/// The session id as printed, found without the parser: Qwen's first
/// `session_id`, Copilot's last line's `sessionId`, opencode's first
/// `sessionID`.
fn printed_session(agent: &str, bytes: &[u8]) -> Option<String> {
    let all = lines(bytes);
    let found = match agent {
        "github-copilot" => all
            .iter()
            .rev()
            .find(|l| l["type"] == "result")
            .map(|l| &l["sessionId"]),
        "qwen-code" => all.iter().map(|l| &l["session_id"]).find(|v| v.is_string()),
        _ => all.iter().map(|l| &l["sessionID"]).find(|v| v.is_string()),
    };
    found.and_then(Value::as_str).map(str::to_owned)
}

fn fatal(reply: &AgentReply) -> Vec<&str> {
    reply
        .errors
        .iter()
        .filter(|e| e.fatal)
        .map(|e| e.message.as_str())
        .collect()
}

/// The reply with Copilot's usage file merged, when the release wrote one.
fn with_usage_file(
    agent: &str,
    version: &str,
    scenario: &str,
    mut reply: AgentReply,
) -> AgentReply {
    let file = dir(agent, version).join(format!("{scenario}.usage.json"));
    if agent == "github-copilot" && file.exists() {
        let content = std::fs::read_to_string(&file).unwrap();
        merge_output_file(agent, &mut reply, OutputKind::Usage, &content).unwrap();
    }
    reply
}

/// The mock's usage for `calls` main calls (120 prompt tokens of which 20
/// cached, 9 completion tokens each), as each agent reports it.
fn check_usage(agent: &str, version: &str, scenario: &str, reply: &AgentReply, calls: u64) {
    let what = format!("{agent} {version} {scenario}");
    let usage = reply.usage.clone().map(|u| Usage {
        duration_ms: None,
        ..u
    });
    let mock = Usage {
        input_tokens: Some(120 * calls),
        cached_input_tokens: Some(20 * calls),
        output_tokens: Some(9 * calls),
        total_tokens: Some(129 * calls),
        ..Usage::default()
    };
    let usage_file = dir(agent, version)
        .join(format!("{scenario}.usage.json"))
        .exists();
    let expected = match agent {
        // No usage file before 1.0.89: each message's output tokens only.
        "github-copilot" if !usage_file => Usage {
            output_tokens: Some(9 * calls),
            ..Usage::default()
        },
        "opencode" => Usage {
            cost_usd: Some(0.0),
            ..mock
        },
        _ => mock,
    };
    assert_eq!(usage, Some(expected), "{what}");
}

fn check_version(agent: &str, version: &str) {
    let names = scenarios(agent, version);
    let mut expected: Vec<&str> = vec![
        "error400",
        "error500",
        "plain",
        "resume",
        "resume-first",
        "tool",
    ];
    match agent {
        "qwen-code" => expected.push("max-turns"),
        "github-copilot" => expected.push("denied"),
        _ => {}
    }
    // A run the recorder killed at its time limit (run.json says
    // `timedOut`) left no fixture: opencode 1.3.2 and 1.17.18 retried an
    // HTTP 500 with no output for longer than the recorder waits.
    let timed_out = timed_out(agent, version);
    expected.retain(|s| !timed_out.iter().any(|t| t == s));
    expected.sort();
    assert_eq!(names, expected, "{agent} {version}: scenarios recorded");
    for scenario in &names {
        check_scenario(agent, version, scenario);
    }
}

/// The scenarios run.json (where the recorder wrote one) lists as killed at
/// the recorder's time limit.
fn timed_out(agent: &str, version: &str) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(dir(agent, version).join("run.json")) else {
        return Vec::new();
    };
    let meta: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(meta["version"], version, "{agent} {version}: run.json");
    meta["runs"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(_, run)| run["timedOut"] == true)
        .map(|(name, _)| name.clone())
        .collect()
}

fn check_scenario(agent: &str, version: &str, scenario: &str) {
    let what = format!("{agent} {version} {scenario}");
    let bytes = fixture(agent, version, scenario);
    let reply = with_usage_file(agent, version, scenario, parse(agent, &bytes, &what));
    let printed = printed_session(agent, &bytes);
    assert!(printed.is_some(), "{what}: a session id is printed");
    assert_eq!(reply.session_id, printed, "{what}: session id");
    match scenario {
        "plain" | "resume-first" | "resume" => {
            assert_eq!(reply.status, ReplyStatus::Success, "{what}");
            assert_eq!(reply.text, PLAIN_ANSWER, "{what}");
            assert!(reply.tool_uses.is_empty(), "{what}");
            assert!(reply.errors.is_empty(), "{what}: {:?}", reply.errors);
            if scenario == "resume" {
                let first = fixture(agent, version, "resume-first");
                assert_eq!(
                    reply.session_id,
                    printed_session(agent, &first),
                    "{what}: the session resumed"
                );
                // This run's usage, not the session's (Qwen's `result.usage`
                // and Copilot's usage file count the first run again).
                if agent != "github-copilot" {
                    check_usage(agent, version, scenario, &reply, 1);
                }
            } else {
                check_usage(agent, version, scenario, &reply, 1);
            }
        }
        "tool" => {
            assert_eq!(reply.status, ReplyStatus::Success, "{what}");
            assert_eq!(reply.text, TOOL_ANSWER, "{what}");
            assert!(fatal(&reply).is_empty(), "{what}: {:?}", reply.errors);
            assert_eq!(reply.tool_uses.len(), 1, "{what}");
            let tool = &reply.tool_uses[0];
            let (name, path_key) = match agent {
                // Qwen's read_file took `absolute_path` in 0.12.0.
                "qwen-code" if version == "0.12.0" => ("read_file", "absolute_path"),
                "qwen-code" => ("read_file", "file_path"),
                "github-copilot" => ("view", "path"),
                _ => ("read", "filePath"),
            };
            assert_eq!(tool.name, name, "{what}");
            let path = tool.input[path_key].as_str().unwrap_or_default();
            assert!(path.ends_with("/notes.txt"), "{what}: {}", tool.input);
            assert_eq!(tool.status, ToolStatus::Success, "{what}");
            let output = tool.output.as_deref().unwrap_or_default();
            assert!(output.contains(NOTES_TEXT), "{what}: {output}");
            check_usage(agent, version, scenario, &reply, 2);
        }
        "error400" | "error500" => {
            let message = if scenario == "error400" {
                ERROR_400
            } else {
                ERROR_500
            };
            assert_eq!(reply.status, ReplyStatus::Error, "{what}");
            assert_eq!(reply.text, "", "{what}");
            let fatal = fatal(&reply);
            assert_eq!(fatal.len(), 1, "{what}: {:?}", reply.errors);
            assert!(fatal[0].contains(message), "{what}: {fatal:?}");
            // Copilot and opencode name the HTTP status in every release
            // (Copilot 1.0.67 only in the message after its retries).
            if agent != "qwen-code" {
                let code = reply.errors.iter().find(|e| e.fatal).unwrap().code.clone();
                let status = &scenario["error".len()..];
                assert_eq!(code, Some(format!("http_{status}")), "{what}");
            }
        }
        // Qwen cut short by --max-session-turns=1: exit 53, no result line.
        "max-turns" => {
            assert!(
                lines(&bytes).iter().all(|l| l["type"] != "result"),
                "{what}"
            );
            assert_eq!(reply.status, ReplyStatus::Incomplete, "{what}");
            assert_eq!(reply.tool_uses.len(), 1, "{what}");
            assert!(fatal(&reply).is_empty(), "{what}");
        }
        // Copilot with its shell tool denied: the run goes on, exit 0.
        "denied" => {
            assert_eq!(reply.status, ReplyStatus::Success, "{what}");
            assert_eq!(reply.tool_uses.len(), 1, "{what}");
            let tool = &reply.tool_uses[0];
            assert_eq!(tool.input["command"], "cat notes.txt", "{what}");
            assert_eq!(tool.status, ToolStatus::Error, "{what}");
            assert!(fatal(&reply).is_empty(), "{what}");
            let notes: Vec<_> = reply.errors.iter().filter(|e| !e.fatal).collect();
            assert_eq!(notes.len(), 1, "{what}");
            assert_eq!(notes[0].code.as_deref(), Some("denied"), "{what}");
        }
        other => panic!("{what}: a scenario this test does not know: {other}"),
    }
}

#[test]
fn every_recorded_version_is_tested_here() {
    for agent in ["qwen-code", "github-copilot", "opencode"] {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/cli")
            .join(agent);
        let mut on_disk: Vec<String> = std::fs::read_dir(root)
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

macro_rules! version_tests {
    ($($name:ident: $agent:literal $version:literal;)*) => {
        $(
            #[test]
            fn $name() {
                assert!(RECORDED.contains(&($agent, $version)));
                check_version($agent, $version);
            }
        )*
    };
}

version_tests! {
    qwen_code_0_24_4: "qwen-code" "0.24.4";
    qwen_code_0_21_10: "qwen-code" "0.21.10";
    qwen_code_0_15_10: "qwen-code" "0.15.10";
    qwen_code_0_12_0: "qwen-code" "0.12.0";
    github_copilot_1_0_102: "github-copilot" "1.0.102";
    github_copilot_1_0_89: "github-copilot" "1.0.89";
    github_copilot_1_0_67: "github-copilot" "1.0.67";
    opencode_1_18_33: "opencode" "1.18.33";
    opencode_1_17_18: "opencode" "1.17.18";
    opencode_1_14_41: "opencode" "1.14.41";
    opencode_1_3_2: "opencode" "1.3.2";
}

#[test]
fn copilot_status_from_the_message_only_when_it_is_three_digits() {
    let line = |message: &str| {
        format!(
            "{{\"type\":\"session.error\",\"data\":{{\"errorType\":\"query\",\"message\":\"{message}\"}}}}\n"
        )
    };
    let code = |message: &str| {
        let reply = parse_agent_output("github-copilot", line(message).as_bytes());
        reply.errors[0].code.clone()
    };
    assert_eq!(
        code("retried 5 times Last error: CAPIError: 503 Busy"),
        Some("http_503".to_owned())
    );
    assert_eq!(
        code("Last error: CAPIError: 5x3 Busy"),
        Some("query".to_owned())
    );
    assert_eq!(code("Last error: CAPIError: 50"), Some("query".to_owned()));
    assert_eq!(code("no status here"), Some("query".to_owned()));
}
