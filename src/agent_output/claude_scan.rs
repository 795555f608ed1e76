//! The most common line of a Claude Code stream, an `assistant` message
//! whose blocks are text, read into typed, borrowed structs instead of a
//! `serde_json::Value`: no map, no key or value allocated per field, fields
//! the reply does not use skipped. (Building a `Value` per line was most of
//! runAgent's time on a long Claude stream.)
//!
//! Anything else — another line type, a sub-agent's line, an API error
//! message, a tool call, a field of an unexpected type, invalid JSON —
//! returns `false` before the reply is touched, and the general reader
//! (`claude.rs`, over a `Value`) decides. So the reply is the same either
//! way; a test below checks it on every Claude fixture.

use std::borrow::Cow;

use serde::de::IgnoredAny;
use serde::Deserialize;

use super::builder::ReplyBuilder;

/// Claude Code writes `type` first: a line that does not start so is not
/// tried here, so no line is parsed twice but those this declines.
const PREFIX: &str = "{\"type\":\"assistant\"";

#[derive(Deserialize)]
struct Line<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    /// Present and not null: a sub-agent's line (the general reader's case).
    #[serde(default)]
    parent_tool_use_id: Option<IgnoredAny>,
    #[serde(default)]
    is_api_error_message: Option<IgnoredAny>,
    #[serde(default)]
    error: Option<IgnoredAny>,
    #[serde(borrow)]
    message: Message<'a>,
}

#[derive(Deserialize)]
struct Message<'a> {
    #[serde(borrow)]
    content: Vec<Block<'a>>,
}

#[derive(Deserialize)]
struct Block<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    text: Option<Cow<'a, str>>,
}

/// Reads `line` (its bytes as the CLI printed them) if it is a plain
/// assistant text line; `false` (nothing done) for anything the general
/// reader must see. The parser checks the UTF-8 of the strings it reads (an
/// invalid one declines), so the line is not checked as a whole first.
pub fn read_assistant_text_bytes(line: &[u8], out: &mut ReplyBuilder) -> bool {
    let line = line.trim_ascii();
    if !line.starts_with(PREFIX.as_bytes()) {
        return false;
    }
    let Ok(parsed) = serde_json::from_slice::<Line>(line) else {
        return false;
    };
    let plain = parsed.kind == "assistant"
        && parsed.parent_tool_use_id.is_none()
        && parsed.is_api_error_message.is_none()
        && parsed.error.is_none()
        && parsed
            .message
            .content
            .iter()
            .all(|b| b.kind != "tool_use" && (b.kind != "text" || b.text.is_some()));
    if !plain {
        return false;
    }
    for block in &parsed.message.content {
        if let (true, Some(text)) = (block.kind == "text", &block.text) {
            out.message(text);
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent_output::{AgentOutputParser, AgentReply};

    fn read_assistant_text_line(line: &str, out: &mut ReplyBuilder) -> bool {
        read_assistant_text_bytes(line.as_bytes(), out)
    }

    /// The reply read with the fast path and with the general reader alone.
    fn both(output: &str) -> (AgentReply, AgentReply) {
        let mut fast = AgentOutputParser::new("claude-code");
        fast.push(output.as_bytes());
        let mut general = ReplyBuilder::new(false, crate::agent_output::TextForm::Utf8);
        for line in output.lines() {
            let event: serde_json::Value = match serde_json::from_str(line.trim()) {
                Ok(v) => v,
                Err(_) => {
                    general.non_json(line);
                    continue;
                }
            };
            let kind = event
                .get("type")
                .and_then(|t| t.as_str())
                .unwrap_or("")
                .to_owned();
            super::super::claude::read(&event, &kind, &mut general);
        }
        (fast.finish(), general.finish().0)
    }

    #[test]
    fn the_same_reply_as_the_general_reader_on_every_fixture() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/cli");
        let mut seen = 0;
        let mut files = Vec::new();
        let mut dirs = vec![std::path::PathBuf::from(dir)];
        while let Some(d) = dirs.pop() {
            for entry in std::fs::read_dir(d).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    dirs.push(path);
                } else {
                    files.push(path);
                }
            }
        }
        for path in files {
            let name = path.to_string_lossy().into_owned();
            if !name.contains("claude") || !name.ends_with(".jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            let (fast, general) = both(&text);
            assert_eq!(fast, general, "{name}");
            seen += 1;
        }
        assert!(seen >= 10, "{seen} Claude fixtures");
    }

    #[test]
    fn declines_what_it_does_not_read() {
        let mut out = ReplyBuilder::new(false, crate::agent_output::TextForm::Utf8);
        for line in [
            r#"{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Read","input":{}}]}}"#,
            r#"{"type":"assistant","parent_tool_use_id":"t1","message":{"content":[{"type":"text","text":"sub"}]}}"#,
            r#"{"type":"assistant","is_api_error_message":true,"message":{"content":[{"type":"text","text":"API Error"}]}}"#,
            r#"{"type":"assistant","error":"rate_limit","message":{"content":[{"type":"text","text":"x"}]}}"#,
            r#"{"type":"assistant","message":{"content":"a string"}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":7}]}}"#,
            r#"{"type":"assistant","message":{"content":[{"type":"text","text":"cut"#,
            r#"{"type":"result","subtype":"success"}"#,
            r#"{"message":{"content":[]},"type":"assistant"}"#,
        ] {
            assert!(!read_assistant_text_line(line, &mut out), "{line}");
        }
        assert_eq!(out.finish().0.text, "");
        let mut out = ReplyBuilder::new(false, crate::agent_output::TextForm::Utf8);
        let line = r#"{"type":"assistant","message":{"id":"m","content":[{"type":"thinking","thinking":"hm"},{"type":"text","text":"Hi \u00e9\n"}],"usage":{"input_tokens":3}},"parent_tool_use_id":null,"session_id":"s"}"#;
        assert!(read_assistant_text_line(line, &mut out));
        assert_eq!(out.finish().0.text, "Hi é\n");
        // Invalid UTF-8 in a text: declined, for the general reader's U+FFFD.
        let mut out = ReplyBuilder::new(false, crate::agent_output::TextForm::Utf8);
        let bad = b"{\"type\":\"assistant\",\"message\":{\"content\":[{\"type\":\"text\",\"text\":\"a\xff\"}]}}";
        assert!(!read_assistant_text_bytes(bad, &mut out));
        let mut parser = AgentOutputParser::new("claude-code");
        parser.push(bad);
        parser.push(b"\n");
        assert_eq!(parser.finish().text, "a\u{fffd}");
    }
}
