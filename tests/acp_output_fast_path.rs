#![cfg(not(target_arch = "wasm32"))]
//! The ACP byte scanner (`acp_update`, which reads the common
//! `session/update` lines without building a JSON tree) gives the reply the
//! general serde_json reader gives: on the recorded transcripts with lines
//! edited anywhere (a byte replaced, inserted or removed), and on generated
//! update lines of every shape the scanner takes or refuses, as bytes, as
//! text and as UTF-16 units.

use std::path::PathBuf;

use agent_context::agent_output::{
    parse_acp_output_general, parse_agent_output_in, AgentReply, Output, Protocol, TextForm,
};
use proptest::prelude::*;

const AGENTS: [(&str, &str); 6] = [
    ("claude", "claude-code"),
    ("codex", "openai-codex"),
    ("gemini", "google-gemini"),
    ("qwen", "qwen-code"),
    ("copilot", "github-copilot"),
    ("opencode", "opencode"),
];

/// Every recorded transcript's lines (Qwen's 560 KB line left out, for speed).
fn transcripts() -> Vec<(&'static str, Vec<String>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp");
    let mut all = Vec::new();
    for (folder, agent) in AGENTS {
        for version in std::fs::read_dir(root.join(folder)).unwrap() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(version.unwrap().path())
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            for file in files {
                let text = std::fs::read_to_string(&file).unwrap();
                let lines = text
                    .lines()
                    .filter(|l| l.len() < 64 * 1024)
                    .map(str::to_owned)
                    .collect();
                all.push((agent, lines));
            }
        }
    }
    all
}

fn same_both_ways(agent: &str, output: &str) -> Result<(), TestCaseError> {
    let (general, _) = parse_acp_output_general(agent, Output::Text(output), TextForm::Utf8);
    let fast = |o: Output<'_>, form| parse_agent_output_in(agent, Protocol::Acp, o, form);
    prop_assert_eq!(
        &fast(Output::Bytes(output.as_bytes()), TextForm::Utf8).0,
        &general
    );
    prop_assert_eq!(&fast(Output::Text(output), TextForm::Utf8).0, &general);
    let units: Vec<u16> = output.encode_utf16().collect();
    let (reply, text) = fast(Output::Utf16(&units), TextForm::Utf16);
    prop_assert_eq!(String::from_utf16(&text).unwrap(), general.text.clone());
    prop_assert_eq!(
        AgentReply {
            text: general.text.clone(),
            ..reply
        },
        general
    );
    Ok(())
}

/// Pieces that matter to a JSON scanner.
const PIECES: &[&str] = &[
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "0",
    "1.5",
    "-",
    "e3",
    "\\u0041",
    "\\n",
    "é",
    "\t",
    "\u{1b}",
    "\u{9b}",
    "null",
    "true",
    "\"_meta\":{}",
    "\"cost\":{\"amount\":1,\"currency\":\"USD\"}",
];

fn kinds() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "agent_message_chunk",
        "agent_thought_chunk",
        "usage_update",
        "available_commands_update",
        "user_message_chunk",
        "session_info_update",
        "tool_call",
        "tool_call_update",
        "plan",
        "zz_new",
    ])
}

fn numbers() -> impl Strategy<Value = &'static str> {
    prop::sample::select(vec![
        "0",
        "129",
        "1.5",
        "-1",
        "1e3",
        "007",
        "123456789012345678",
        "\"7\"",
        "null",
    ])
}

/// Every recorded `session/update` line is read by the scanner (none falls
/// back to serde_json), so the benchmark measures the scanner.
#[test]
fn every_recorded_update_is_scanned() {
    let mut text = Vec::new();
    let mut count = 0;
    for (agent, lines) in transcripts() {
        for line in lines
            .iter()
            .filter(|l| l.contains(r#""method":"session/update""#))
        {
            let update = agent_context_scan::acp_update::scan(line.as_bytes(), &mut text);
            assert!(update.is_some(), "{agent}: {line}");
            count += 1;
        }
    }
    assert!(count > 100, "{count}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn edited_transcripts_read_the_same(
        which in any::<prop::sample::Index>(),
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<usize>(), 0u8..3, prop::sample::select(PIECES.to_vec())), 1..6),
    ) {
        let all = transcripts();
        let (agent, lines) = &all[which.index(all.len())];
        let mut lines = lines.clone();
        for (line, at, how, piece) in &edits {
            let count = lines.len();
            let line = &mut lines[line.index(count)];
            let mut at = at % (line.len() + 1);
            while !line.is_char_boundary(at) {
                at -= 1;
            }
            match how {
                0 => line.insert_str(at, piece),
                1 => {
                    let mut end = (at + piece.len()).min(line.len());
                    while !line.is_char_boundary(end) {
                        end += 1;
                    }
                    line.replace_range(at..end, piece);
                }
                _ => {
                    let mut end = (at + 1 + piece.len() % 4).min(line.len());
                    while !line.is_char_boundary(end) {
                        end += 1;
                    }
                    line.replace_range(at..end, "");
                }
            }
        }
        same_both_ways(agent, &(lines.join("\n") + "\n"))?;
    }

    #[test]
    fn generated_updates_read_the_same(
        agent in prop::sample::select(AGENTS.iter().map(|a| a.1).collect::<Vec<_>>()),
        updates in prop::collection::vec(
            (kinds(), "[a-zA-Z é🎉\"\\\\]{0,10}", numbers(), numbers(), any::<u8>(), any::<bool>()),
            1..8,
        ),
    ) {
        let mut out = String::from(r#"{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":1}}"#);
        out.push('\n');
        out.push_str(r#"{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s0"}}"#);
        out.push('\n');
        for (i, (kind, text, used, size, extra, spaced)) in updates.iter().enumerate() {
            let text = serde_json::to_string(text).unwrap();
            let content = match extra % 4 {
                0 => format!(r#","content":{{"type":"text","text":{text}}}"#),
                1 => format!(r#","content":{{"text":{text},"type":"image"}}"#),
                2 => format!(r#","messageId":"m{}","content":{{"text":{text}}}"#, extra % 3),
                _ => String::new(),
            };
            let more = match extra % 5 {
                0 => r#","availableCommands":[{"name":"x","input":{"hint":""}}],"n":-0.5"#.to_owned(),
                1 => r#","_meta":{"usage":{"inputTokens":3},"durationMs":5}"#.to_owned(),
                2 => r#","cost":{"amount":0.5,"currency":"USD"}"#.to_owned(),
                // Claude Code's notice; Codex's failure report.
                3 => r#","_meta":{"claudeCode":{"kind":"informational","level":"warning"}}"#.to_owned(),
                _ if extra % 2 == 0 => format!(
                    r#","_meta":{{"codex":{{"error":{{"message":{text},"codexErrorInfo":{{"x":{{"httpStatusCode":{used}}}}},"willRetry":true}},"threadStatus":{{"type":"systemError"}}}}}}"#
                ),
                _ => String::new(),
            };
            // A tool call's fields, as the six agents send them.
            let status = ["completed", "failed", "pending", "in_progress", "done"][usize::from(*extra) % 5];
            let tool = match extra % 7 {
                0 => format!(
                    r#","toolCallId":"read_file__t{i}","status":"{status}","title":{text},"kind":"read","rawInput":{{"path":{text},"n":[1,-2.5,null]}},"content":[{{"type":"content","content":{{"type":"text","text":{text}}}}}],"locations":[]"#
                ),
                1 => format!(
                    r#","_meta":{{"claudeCode":{{"toolName":{text}}},"toolName":"q"}},"toolCallId":"t","status":"{status}","rawOutput":{{"output":{text},"x":{{}}}},"rawInput":{{}}"#
                ),
                2 => format!(
                    r#","toolCallId":"t{extra}","status":"{status}","content":[{{"type":"diff","path":"a","newText":{text}}},{{"type":"other"}}],"rawOutput":{text}"#
                ),
                3 => format!(r#","toolCallId":{text},"status":"{status}","rawOutput":"","content":[]"#),
                4 => format!(r#","toolCallId":"t","kind":null,"title":7,"status":{used}"#),
                5 => format!(
                    r#","_meta":{{"claudeCode":[{text}],"toolName":1,"toolName":{text}}},"toolCallId":"t","status":"{status}","title":"T""#
                ),
                _ => String::new(),
            };
            let sizes = if tool.is_empty() { format!(r#","used":{used},"size":{size}"#) } else { String::new() };
            let line = format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s{i}","update":{{"sessionUpdate":"{kind}"{content}{sizes}{more}{tool}}}}}}}"#
            );
            out.push_str(&if *spaced { line.replace(',', " , ").replace(':', ": ") } else { line });
            out.push('\n');
        }
        out.push_str(r#"{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}"#);
        same_both_ways(agent, &out)?;
    }
}
