//! A record as a conversation to carry to another session: each turn's
//! request as the user's message, and its reply — the text, with each tool
//! call summed up as a line of text — as the agent's. What a rebuilt,
//! handed-off or forked session's first turn assembles for its agent,
//! within its budget, as any conversation is.
//!
//! Each reply is from the agent type of the part that gave it. A failed
//! attempt's text is never a reply (its tool calls are: they changed
//! things), and a turn still open (a failover's) is not carried: its
//! request is the message that goes with the conversation, once.
//!
//! The carry rule ([`carry`]): after the agent compacted its own context
//! (a `compaction` entry that ended `completed` with a summary of text),
//! what it holds is that summary and the turns after it, so that is what is
//! carried — not the turns the summary replaced. The turn the compaction
//! happened in is carried after the summary, unless it said nothing else
//! (a compact command's own turn). With no such compaction (none, one
//! without a summary or with only an opaque one, one that failed or was
//! cancelled) every turn is carried. [`Carried`] says which.

use serde::Serialize;
use serde_json::Value;

use super::read::{read_record, ReadOptions};
use crate::error::Result;

/// The most characters of a tool call's input or output a summary keeps.
pub const TOOL_TEXT_CHARS: usize = 400;

/// Who the user's messages are from.
pub const USER: &str = "user";

/// The summary of the latest usable compaction opens the carried
/// conversation as a message of the agent's, with these words before it.
pub const SUMMARY_LEAD: &str =
    "Summary of the earlier conversation (the agent compacted its context):";

/// What a carried conversation holds: every turn, or a compaction's
/// summary and the turns after it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Carried {
    pub messages: Vec<Message>,
    /// The compaction whose summary stands for the turns before it; `None`:
    /// every turn is carried.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compacted: Option<Compacted>,
}

/// A compaction a carried conversation starts from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compacted {
    pub compaction_id: String,
    /// The turns its summary stands for (not carried).
    pub replaced_turns: u64,
}

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
/// where it is carried); an empty reply is.
pub fn conversation(record: &[u8], agent: &str, up_to: Option<u64>) -> Result<Vec<Message>> {
    Ok(carry(record, agent, up_to)?.messages)
}

/// A compaction as the record's entries tell it, merged by its id.
struct Seen {
    /// Its first entry's index among the lines, and its turn.
    at: usize,
    turn: Option<u64>,
    id: String,
    status: String,
    summary: Option<String>,
}

/// The latest compaction (up to turn `up_to`) that ended `completed` with a
/// summary of text, its summary trimmed.
fn usable_compaction(lines: &[super::read::Line<'_>], up_to: Option<u64>) -> Option<Seen> {
    let mut seen: Vec<Seen> = Vec::new();
    for (at, line) in lines.iter().enumerate() {
        if up_to.is_some_and(|last| line.turn.is_some_and(|t| t > last)) {
            break;
        }
        if line.kind != "compaction" {
            continue;
        }
        let Ok(entry) = serde_json::from_slice::<super::entry::CompactionEntry>(line.text) else {
            continue;
        };
        match seen.iter_mut().find(|c| c.id == entry.compaction_id) {
            Some(c) => {
                c.status = entry.status;
                c.summary = entry.summary;
            }
            None => seen.push(Seen {
                at,
                turn: line.turn,
                id: entry.compaction_id,
                status: entry.status,
                summary: entry.summary,
            }),
        }
    }
    seen.into_iter().rev().find_map(|c| {
        let summary = c
            .summary
            .as_deref()
            .map(str::trim)
            .filter(|s| !s.is_empty())?;
        (c.status == "completed").then(|| Seen {
            summary: Some(summary.to_owned()),
            ..c
        })
    })
}

/// The conversation `record` holds, as it is carried to another session
/// (see the module's doc): up to turn `up_to` when given; the agent's
/// messages from the agent type of their part (`agent` where none is named).
pub fn carry(record: &[u8], agent: &str, up_to: Option<u64>) -> Result<Carried> {
    let read = read_record(record, ReadOptions::default())?;
    let compaction = usable_compaction(&read.lines, up_to);
    let mut out = Vec::new();
    let mut compacted = None;
    // Lines before `from` are the summary's; the turn the compaction
    // happened in is carried whole.
    let mut from = 0;
    if let Some(Seen {
        at,
        turn,
        id,
        summary,
        ..
    }) = compaction
    {
        let summary = summary.unwrap_or_default();
        from = match turn {
            Some(t) => read.lines[..at]
                .iter()
                .position(|l| l.kind == "request" && l.turn == Some(t))
                .unwrap_or(at),
            None => at,
        };
        let replaced = read.lines[..from]
            .iter()
            .filter(|l| l.kind == "request")
            .count() as u64;
        out.push(Message {
            from: agent.to_owned(),
            content: format!("{SUMMARY_LEAD}\n\n{summary}"),
        });
        compacted = Some(Compacted {
            compaction_id: id,
            replaced_turns: replaced,
        });
    }
    // Who answers: the agent type of the part the lines belong to.
    let mut speaker = read.lines[..from]
        .iter()
        .rev()
        .find(|l| l.kind == "part" || l.kind == "opened")
        .and_then(|l| serde_json::from_slice::<Value>(l.text).ok())
        .and_then(|p| {
            p.get("agentType")
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .unwrap_or_else(|| agent.to_owned());
    // The running turn's request and reply; the reply's length when its
    // running attempt began (a failed attempt's text is cut back to it).
    let mut request: Option<String> = None;
    let mut reply = String::new();
    let mut attempt_from = 0;
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
    for line in &read.lines[from..] {
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
                reply = strip_text_after(&reply, attempt_from);
                attempt_from = reply.len();
            }
            "interrupted" => {
                flush(&mut request, &mut reply, &speaker, &mut out);
                attempt_from = 0;
            }
            "turnEnd" => {
                let failed = entry.get("error").is_some();
                // A turn that failed with no reply, or the compaction's own
                // turn that said nothing (a compact command), is not carried.
                let compact_command =
                    compacted.is_some() && compaction_turn(&read.lines[from..], line.turn);
                if (failed || compact_command) && reply.trim().is_empty() {
                    request = None;
                }
                flush(&mut request, &mut reply, &speaker, &mut out);
                attempt_from = 0;
            }
            _ => {}
        }
    }
    // A turn still open is not carried (its request goes as the message).
    Ok(Carried {
        messages: out,
        compacted,
    })
}

/// Whether turn `turn` holds a compaction entry among `lines`.
fn compaction_turn(lines: &[super::read::Line<'_>], turn: Option<u64>) -> bool {
    turn.is_some()
        && lines
            .iter()
            .any(|l| l.kind == "compaction" && l.turn == turn)
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
