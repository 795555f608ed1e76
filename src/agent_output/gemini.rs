//! Gemini CLI `-o stream-json`: `init`, `message`, `tool_use`,
//! `tool_result`, `error` and `result` lines.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, is_true, str_field};
use super::reply::{ToolStatus, Usage};

/// The fields of a `message` line, borrowed from the line where its strings
/// have no escapes; every other field is skipped without being built.
#[derive(Deserialize)]
struct MessageLine<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(borrow, default)]
    role: Option<Cow<'a, str>>,
    #[serde(borrow, default)]
    content: Option<Cow<'a, str>>,
    #[serde(default)]
    delta: Option<bool>,
}

/// The fast path for the most common line, a `message`: reads it without
/// building a JSON value. Returns false (nothing done) for any other line,
/// or a `message` line of another shape, which the general path then reads.
pub fn read_message_line(line: &str, out: &mut ReplyBuilder) -> bool {
    let Ok(m) = serde_json::from_str::<MessageLine<'_>>(line.trim()) else {
        return false;
    };
    if m.kind != "message" {
        return false;
    }
    if m.role.as_deref() == Some("assistant") {
        if let Some(content) = m.content.as_deref() {
            if m.delta == Some(true) {
                out.delta(content);
            } else {
                out.message(content);
            }
        }
    }
    true
}

/// Reads one event whose `type` is `kind`; other types are ignored.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "init" => {
            if let Some(id) = str_field(event, "session_id") {
                out.session(id);
            }
        }
        // `role: "user"` echoes our own prompt: never part of the reply.
        "message" if str_field(event, "role") == Some("assistant") => {
            if let Some(content) = str_field(event, "content") {
                if is_true(event, "delta") {
                    out.delta(content);
                } else {
                    out.message(content);
                }
            }
        }
        "tool_use" => {
            let id = str_field(event, "tool_id").unwrap_or_default();
            out.tool_started(id, str_field(event, "tool_name"), event.get("parameters"));
        }
        "tool_result" => {
            let id = str_field(event, "tool_id").unwrap_or_default();
            let failed = str_field(event, "status") == Some("error");
            let output = str_field(event, "output")
                .filter(|o| !o.is_empty() || !failed)
                .or_else(|| event.get("error").and_then(|e| str_field(e, "message")));
            let status = if failed {
                ToolStatus::Error
            } else {
                ToolStatus::Success
            };
            out.tool_finished(id, status, output);
        }
        // Warnings and recoverable errors (loop detected, empty response, …).
        "error" => {
            if let Some(message) = str_field(event, "message") {
                out.note("error", message, str_field(event, "severity"));
            }
        }
        "result" => {
            if let Some(stats) = event.get("stats") {
                out.set_usage(usage(stats));
            }
            if str_field(event, "status") == Some("success") {
                out.succeed();
            } else {
                let error = event.get("error");
                match error.and_then(|e| str_field(e, "message")) {
                    Some(message) => {
                        out.fail("result", message, error.and_then(|e| str_field(e, "type")))
                    }
                    None => out.fail_with_last_note(
                        "result",
                        "Gemini CLI reported a failed run without a message",
                    ),
                }
            }
        }
        _ => {}
    }
}

/// `stats` of a `result` line.
fn usage(stats: &Value) -> Usage {
    Usage {
        input_tokens: count_field(stats, "input_tokens"),
        cached_input_tokens: count_field(stats, "cached"),
        output_tokens: count_field(stats, "output_tokens"),
        total_tokens: count_field(stats, "total_tokens"),
        duration_ms: count_field(stats, "duration_ms"),
        cost_usd: None,
    }
}
