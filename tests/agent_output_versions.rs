#![cfg(not(target_arch = "wasm32"))]
//! Every recorded release of each CLI (SPEC §13): the fixtures of
//! `tests/fixtures/cli/<cli>/<version>/` (recorded by
//! `npm run record -- <package>@<version>`) and the pinned release's
//! `tests/fixtures/cli/<cli>-<scenario>.jsonl`, each parsed to the reply the
//! mock's scenario makes (`tests/cli/mocks/`): the text, the session id, the
//! status, the tool calls, the usage, and no event type left unknown.

use std::path::PathBuf;

use agent_context::agent_output::{
    parse_agent_output, AgentEvent, AgentOutputParser, AgentReply, ReplyStatus, ToolStatus,
};
use serde_json::Value;

// What the mocks send (tests/cli/mocks/common.cjs and each API's mock).
/// `PLAIN_PIECES` joined.
const PLAIN_ANSWER: &str = "Mock reply: use React for the dashboard.";
/// `answerAfterTool` once the tool read `NOTES_TEXT`.
const TOOL_ANSWER: &str = "The notes say the launch code is 4217.";
/// The text the tool scenario sends before its tool call (Anthropic and
/// OpenAI mocks; the Gemini mock sends the call alone).
const BEFORE_TOOL: &str = "Let me read the notes.";
const NOTES_TEXT: &str = "The launch code is 4217.\n";
/// The Anthropic mock's `error` answer (HTTP 400).
const CLAUDE_REJECTION: &str = "Mock rejects this request: prompt is not allowed.";
/// The Gemini mock's `error` answer (HTTP 400).
const GEMINI_REJECTION: &str = "Mock rejects this request: API key not valid.";
/// Per model call: Anthropic `USAGE` (no cache), OpenAI `USAGE` (20 cached),
/// Gemini `USAGE`; the tool scenario makes two calls.
const INPUT_TOKENS: u64 = 120;
const OUTPUT_TOKENS: u64 = 9;
const OPENAI_CACHED: u64 = 20;

fn fixtures_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cli")
}

fn package(cli: &str) -> &'static str {
    match cli {
        "claude" => "@anthropic-ai/claude-code",
        "codex" => "@openai/codex",
        _ => "@google/gemini-cli",
    }
}

fn agent_type(cli: &str) -> &'static str {
    match cli {
        "claude" => "claude-code",
        "codex" => "openai-codex",
        _ => "google-gemini",
    }
}

fn scenarios(cli: &str) -> [&'static str; 4] {
    match cli {
        "gemini" => ["plain", "tool", "error", "empty"],
        _ => ["plain", "tool", "error", "flaky"],
    }
}

/// The pinned release (`versions.json`), recorded at the top level.
fn pinned_version(cli: &str) -> String {
    let versions: Value = serde_json::from_slice(
        &std::fs::read(fixtures_dir().join("versions.json")).expect("versions.json"),
    )
    .unwrap();
    versions[package(cli)].as_str().unwrap().to_owned()
}

fn fixture(cli: &str, version: &str, scenario: &str) -> Vec<u8> {
    let dir = fixtures_dir().join(cli).join(version);
    let path = if dir.is_dir() {
        dir.join(format!("{scenario}.jsonl"))
    } else {
        assert_eq!(
            version,
            pinned_version(cli),
            "no fixtures for {cli} {version}"
        );
        fixtures_dir().join(format!("{cli}-{scenario}.jsonl"))
    };
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Parsed whole and streamed in chunks of a few sizes: the same reply.
fn parse(cli: &str, bytes: &[u8]) -> AgentReply {
    let whole = parse_agent_output(agent_type(cli), bytes);
    for size in [1, 7, 64, 4096] {
        let mut parser = AgentOutputParser::new(agent_type(cli));
        let mut unknown = 0;
        for chunk in bytes.chunks(size) {
            unknown += parser
                .push(chunk)
                .iter()
                .filter(|e| matches!(e, AgentEvent::Unknown { .. }))
                .count();
        }
        assert_eq!(parser.finish(), whole, "chunks of {size} bytes");
        assert_eq!(unknown, 0, "unknown events in chunks of {size} bytes");
    }
    whole
}

/// The session id as the CLI printed it in its first event, found without
/// the parser: `system/init` (Claude), `thread.started` (Codex), `init`
/// (Gemini).
fn printed_session_id(cli: &str, bytes: &[u8]) -> Option<String> {
    String::from_utf8_lossy(bytes).lines().find_map(|line| {
        let event: Value = serde_json::from_str(line).ok()?;
        let (kind, key) = match cli {
            "claude" => ("system", "session_id"),
            "codex" => ("thread.started", "thread_id"),
            _ => ("init", "session_id"),
        };
        (event["type"] == kind && (cli != "claude" || event["subtype"] == "init"))
            .then(|| event[key].as_str().map(str::to_owned))
            .flatten()
    })
}

/// Codex releases before the flat `thread.started`/`item.*` events.
fn older_codex(cli: &str, version: &str) -> bool {
    let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
    cli == "codex"
        && parts.next() == Some(Some(0))
        && parts.next().flatten().is_some_and(|m| m < 44)
}

fn check_version(cli: &str, version: &str) {
    for scenario in scenarios(cli) {
        let bytes = fixture(cli, version, scenario);
        let reply = parse(cli, &bytes);
        let what = format!("{cli} {version} {scenario}");
        check_scenario(cli, version, scenario, &bytes, &reply, &what);
        assert!(
            reply.unknown_events.is_empty(),
            "{what}: {:?}",
            reply.unknown_events
        );
    }
}

fn check_scenario(
    cli: &str,
    version: &str,
    scenario: &str,
    bytes: &[u8],
    reply: &AgentReply,
    what: &str,
) {
    // The session id: the one printed, which every release but Codex's
    // older schema prints.
    let printed = printed_session_id(cli, bytes);
    if older_codex(cli, version) {
        assert_eq!(printed, None, "{what}");
    } else {
        assert!(
            printed.as_deref().is_some_and(|id| !id.is_empty()),
            "{what}"
        );
    }
    assert_eq!(reply.session_id, printed, "{what}: session id");

    let fatal: Vec<&str> = reply
        .errors
        .iter()
        .filter(|e| e.fatal)
        .map(|e| e.message.as_str())
        .collect();
    let notes: Vec<&str> = reply
        .errors
        .iter()
        .filter(|e| !e.fatal)
        .map(|e| e.message.as_str())
        .collect();
    match scenario {
        "plain" | "flaky" => {
            assert_eq!(reply.text, PLAIN_ANSWER, "{what}");
            assert_eq!(reply.status, ReplyStatus::Success, "{what}");
            assert!(reply.tool_uses.is_empty(), "{what}");
            assert!(fatal.is_empty(), "{what}: {fatal:?}");
            check_usage(cli, version, bytes, reply, 1, what);
        }
        "tool" => {
            let expected_text = match cli {
                "gemini" => TOOL_ANSWER.to_owned(),
                _ => format!("{BEFORE_TOOL}\n\n{TOOL_ANSWER}"),
            };
            assert_eq!(reply.text, expected_text, "{what}");
            assert_eq!(reply.status, ReplyStatus::Success, "{what}");
            assert!(fatal.is_empty(), "{what}: {fatal:?}");
            assert_eq!(reply.tool_uses.len(), 1, "{what}");
            let tool = &reply.tool_uses[0];
            assert_eq!(tool.status, ToolStatus::Success, "{what}");
            let output = tool.output.as_deref().unwrap_or_default();
            match cli {
                "claude" => {
                    assert_eq!(
                        (tool.id.as_str(), tool.name.as_str()),
                        ("toolu_mock_1", "Read")
                    );
                    let path = tool.input["file_path"].as_str().unwrap_or_default();
                    assert!(path.ends_with("/work/notes.txt"), "{what}: {path}");
                    assert!(output.contains(NOTES_TEXT.trim_end()), "{what}: {output}");
                }
                "codex" => {
                    assert_eq!(tool.name, "command_execution", "{what}");
                    let command = tool.input["command"].as_str().unwrap_or_default();
                    assert!(command.contains("cat notes.txt"), "{what}: {command}");
                    assert_eq!(output, NOTES_TEXT, "{what}");
                }
                _ => {
                    assert_eq!(tool.name, "read_file", "{what}");
                    assert_eq!(tool.input, serde_json::json!({"file_path": "notes.txt"}));
                }
            }
            check_usage(cli, version, bytes, reply, 2, what);
        }
        "error" => {
            assert_eq!(reply.text, "", "{what}");
            assert_eq!(reply.status, ReplyStatus::Error, "{what}");
            assert_eq!(fatal.len(), 1, "{what}: {:?}", reply.errors);
            match cli {
                "claude" => {
                    assert_eq!(
                        fatal[0],
                        format!("API Error: 400 {CLAUDE_REJECTION}"),
                        "{what}"
                    );
                    assert_eq!(
                        reply.terminal_reason.as_deref(),
                        Some("api_error"),
                        "{what}"
                    );
                    assert_eq!(reply.api_error_status, Some(400), "{what}");
                }
                // Codex answers an HTTP 500 with its own message, whatever
                // the body said.
                "codex" => assert!(fatal[0].contains("high demand"), "{what}: {fatal:?}"),
                _ => assert!(fatal[0].contains(GEMINI_REJECTION), "{what}: {fatal:?}"),
            }
        }
        // Gemini: a stream that finishes with no text.
        "empty" => {
            assert_eq!(reply.text, "", "{what}");
            assert_eq!(reply.status, ReplyStatus::Error, "{what}");
            assert_eq!(fatal.len(), 1, "{what}: {:?}", reply.errors);
        }
        _ => unreachable!(),
    }
    // The flaky run's first call failed (529 Anthropic, 503 OpenAI) and was
    // retried: a note says so.
    if scenario == "flaky" {
        let retried = match cli {
            "claude" => notes.iter().any(|n| n.contains("HTTP 529")),
            _ if older_codex(cli, version) || version == "0.44.0" => {
                notes.iter().any(|n| n.contains("503"))
            }
            _ => notes.iter().any(|n| n.starts_with("Reconnecting")),
        };
        assert!(retried, "{what}: {notes:?}");
    }
    if cli == "claude" && scenario != "error" {
        assert_eq!(
            reply.terminal_reason.as_deref(),
            Some("completed"),
            "{what}"
        );
        assert_eq!(reply.api_error_status, None, "{what}");
    }
}

/// `calls` model calls' worth of the mock's usage.
fn check_usage(cli: &str, version: &str, bytes: &[u8], reply: &AgentReply, calls: u64, what: &str) {
    let usage = reply
        .usage
        .as_ref()
        .unwrap_or_else(|| panic!("{what}: no usage"));
    let (input, output) = (INPUT_TOKENS * calls, OUTPUT_TOKENS * calls);
    let cached = match cli {
        "codex" => OPENAI_CACHED * calls,
        _ => 0,
    };
    assert_eq!(
        (
            usage.input_tokens,
            usage.cached_input_tokens,
            usage.output_tokens,
            usage.total_tokens
        ),
        (
            Some(input),
            Some(cached),
            Some(output),
            Some(input + output)
        ),
        "{what}"
    );
    match cli {
        // Printed since some release after 0.44.0.
        "codex" => {
            let printed = String::from_utf8_lossy(bytes).contains("\"reasoning_output_tokens\"");
            assert_eq!(
                usage.reasoning_output_tokens,
                printed.then_some(0),
                "{what}"
            );
            assert_eq!(
                usage.cache_write_input_tokens.is_some(),
                printed && !older_codex(cli, version),
                "{what}"
            );
        }
        "claude" => {
            assert_eq!(usage.cache_write_input_tokens, Some(0), "{what}");
            assert!(usage.cost_usd.is_some_and(|c| c > 0.0), "{what}");
        }
        _ => {
            // Gemini: one model did it all.
            assert_eq!(usage.models.len(), 1, "{what}");
            assert_eq!(usage.models[0].usage.total_tokens, Some(input + output));
        }
    }
}

/// The versions recorded: what the tests below name, and what is on disk.
const RECORDED: &[(&str, &str)] = &[
    ("claude", "2.1.332"),
    ("claude", "2.1.331"),
    ("claude", "2.1.330"),
    ("claude", "2.1.287"),
    ("claude", "2.1.221"),
    ("codex", "0.171.0"),
    ("codex", "0.169.0"),
    ("codex", "0.160.0"),
    ("codex", "0.147.0"),
    ("codex", "0.44.0"),
    ("codex", "0.42.0"),
    ("gemini", "0.61.0"),
    ("gemini", "0.55.1"),
    ("gemini", "0.45.2"),
];

#[test]
fn every_recorded_version_is_tested_here() {
    for cli in ["claude", "codex", "gemini"] {
        let mut on_disk: Vec<String> = std::fs::read_dir(fixtures_dir().join(cli))
            .map(|dir| {
                dir.map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        on_disk.push(pinned_version(cli));
        on_disk.sort();
        on_disk.dedup();
        let mut named: Vec<String> = RECORDED
            .iter()
            .filter(|(c, _)| *c == cli)
            .map(|(_, v)| v.to_string())
            .collect();
        named.sort();
        assert_eq!(on_disk, named, "{cli}");
        assert!(named.len() >= 3, "{cli}: at least three releases");
    }
}

#[test]
fn codex_older_schema_is_told_apart() {
    assert!(older_codex("codex", "0.42.0"));
    assert!(!older_codex("codex", "0.147.0"));
    assert!(!older_codex("codex", "0.169.0"));
    assert!(!older_codex("claude", "0.42.0"));
}

macro_rules! version_tests {
    ($($name:ident: $cli:literal $version:literal;)*) => {
        $(
            #[test]
            fn $name() {
                assert!(RECORDED.contains(&($cli, $version)));
                check_version($cli, $version);
            }
        )*
    };
}

version_tests! {
    claude_code_2_1_332: "claude" "2.1.332";
    claude_code_2_1_331: "claude" "2.1.331";
    claude_code_2_1_330: "claude" "2.1.330";
    claude_code_2_1_287: "claude" "2.1.287";
    claude_code_2_1_221: "claude" "2.1.221";
    codex_0_171_0: "codex" "0.171.0";
    codex_0_169_0: "codex" "0.169.0";
    codex_0_160_0: "codex" "0.160.0";
    codex_0_147_0: "codex" "0.147.0";
    codex_0_44_0: "codex" "0.44.0";
    codex_0_42_0_older_schema: "codex" "0.42.0";
    gemini_cli_0_61_0: "gemini" "0.61.0";
    gemini_cli_0_55_1: "gemini" "0.55.1";
    gemini_cli_0_45_2: "gemini" "0.45.2";
}
