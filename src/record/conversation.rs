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
/// given (turns count from 1). Each reply is from the agent type of the
/// part that gave it (`agent` where the record names none). A turn that
/// failed with no reply at all is left out (its request is asked again
/// where it is carried); an empty reply is. A failed attempt's text is
/// never a reply (its tool calls are: they changed things), and the turn
/// still open (a failover's) is not carried: its request is the message
/// that goes with the conversation, once.
pub fn conversation(record: &[u8], agent: &str, up_to: Option<u64>) -> Result<Vec<Message>> {
    let read = read_record(record, ReadOptions::default())?;
    let mut out = Vec::new();
    // The running turn's request and reply; the reply's length when its
    // running attempt began (a failed attempt's text is cut back to it).
    let mut request: Option<String> = None;
    let mut reply = String::new();
    let mut attempt_from = 0;
    let mut speaker = agent.to_owned();
    let flush = |request: &mut Option<String>,
                 reply: &mut String,
                 speaker: &str,
                 out: &mut Vec<Message>| {
        if let Some(text) = request.take() {
            out.push(Message {
                from: USER.to_owned(),
                content: text,
            });
        }
        let text = reply.trim();
        if !text.is_empty() {
            out.push(Message {
                from: speaker.to_owned(),
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
            "part" | "opened" if !text("agentType").is_empty() => {
                speaker = text("agentType").to_owned();
            }
            "request" => {
                flush(&mut request, &mut reply, &speaker, &mut out);
                request = Some(text("text").to_owned());
                attempt_from = 0;
            }
            "text" if request.is_some() => reply.push_str(text("text")),
            "toolCall" if request.is_some() && text("status") != "pending" => {
                if !reply.is_empty() && !reply.ends_with('\n') {
                    reply.push('\n');
                }
                reply.push_str(&tool_line(&entry));
                reply.push('\n');
            }
            "attemptEnd" if request.is_some() => {
                // Its text is not a reply: what it wrote before a tool call goes.
                let kept = strip_text_after(&reply, attempt_from);
                reply = kept;
                attempt_from = reply.len();
            }
            "turnEnd" => {
                if entry.get("error").is_some() && reply.trim().is_empty() {
                    request = None;
                }
                flush(&mut request, &mut reply, &speaker, &mut out);
                attempt_from = 0;
            }
            "interrupted" => {
                flush(&mut request, &mut reply, &speaker, &mut out);
                attempt_from = 0;
            }
            _ => {}
        }
    }
    // A turn still open is not carried (its request goes as the message).
    Ok(out)
}

/// `reply` with the text written after `from` taken out, its tool lines kept.
fn strip_text_after(reply: &str, from: usize) -> String {
    let (kept, failed) = reply.split_at(from.min(reply.len()));
    let mut out = kept.to_owned();
    for line in failed.lines().filter(|l| l.starts_with("[tool ")) {
        out.push_str(line);
        out.push('\n');
    }
    out
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
