//! A record as a conversation to carry to another session: each turn's
//! request as the user's message, and its reply — the text, with each tool
//! call summed up as a line of text — as the agent's. What a rebuilt,
//! handed-off or forked session's first turn assembles for its agent,
//! within its budget, as any conversation is.

use serde::Serialize;
use serde_json::Value;

use super::read::{read_record, ReadOptions};
use crate::error::Result;

/// The most characters of a tool call's input or output a summary keeps.
pub const TOOL_TEXT_CHARS: usize = 400;

/// Who the user's messages are from.
pub const USER: &str = "user";

/// One message of the conversation (the assembler's context message).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Message {
    pub from: String,
    pub content: String,
}

/// The conversation `record` holds, oldest first: up to turn `up_to` when
/// given (turns count from 1). The agent's messages are from `agent` (the
/// agent type that answered). A turn that failed with no reply at all is
/// left out (its request is asked again where it is carried); an empty
/// reply is.
pub fn conversation(record: &[u8], agent: &str, up_to: Option<u64>) -> Result<Vec<Message>> {
    let read = read_record(record, ReadOptions::default())?;
    let mut out = Vec::new();
    // The running turn's request and reply.
    let mut request: Option<String> = None;
    let mut reply = String::new();
    let flush = |request: &mut Option<String>, reply: &mut String, out: &mut Vec<Message>| {
        if let Some(text) = request.take() {
            out.push(Message {
                from: USER.to_owned(),
                content: text,
            });
        }
        let text = reply.trim();
        if !text.is_empty() {
            out.push(Message {
                from: agent.to_owned(),
                content: text.to_owned(),
            });
        }
        reply.clear();
    };
    for line in &read.lines {
        if up_to.is_some_and(|last| line.turn.is_some_and(|t| t > last)) {
            break;
        }
        let Ok(entry) = serde_json::from_slice::<Value>(line.text) else {
            continue;
        };
        let text = |key: &str| entry.get(key).and_then(Value::as_str).unwrap_or_default();
        match &*line.kind {
            "request" => {
                flush(&mut request, &mut reply, &mut out);
                request = Some(text("text").to_owned());
            }
            "text" => reply.push_str(text("text")),
            "toolCall" if text("status") != "pending" => {
                if !reply.is_empty() && !reply.ends_with('\n') {
                    reply.push('\n');
                }
                reply.push_str(&tool_line(&entry));
                reply.push('\n');
            }
            "turnEnd" => {
                if entry.get("error").is_some() && reply.trim().is_empty() {
                    request = None;
                }
                flush(&mut request, &mut reply, &mut out);
            }
            _ => {}
        }
    }
    flush(&mut request, &mut reply, &mut out);
    Ok(out)
}

/// `[tool Read (success): {"file_path":"notes.txt"} → The launch code…]`
fn tool_line(entry: &Value) -> String {
    let name = entry.get("name").and_then(Value::as_str).unwrap_or("tool");
    let status = entry.get("status").and_then(Value::as_str).unwrap_or("");
    let input = match entry.get("input") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    let output = entry.get("output").and_then(Value::as_str).unwrap_or("");
    let mut line = format!("[tool {name} ({status})");
    if !input.is_empty() {
        line.push_str(": ");
        line.push_str(&shortened(&input));
    }
    if !output.is_empty() {
        line.push_str(" → ");
        line.push_str(&shortened(output));
    }
    line.push(']');
    line
}

/// `text` on one line, at most [`TOOL_TEXT_CHARS`] characters.
fn shortened(text: &str) -> String {
    let one_line = text.split_whitespace().collect::<Vec<_>>().join(" ");
    match one_line.char_indices().nth(TOOL_TEXT_CHARS) {
        Some((at, _)) => format!("{}…", &one_line[..at]),
        None => one_line,
    }
}
