//! pi `--mode json -p`: its session's events, one a line. The first line is
//! the session (`{"type":"session","id":…}`); each message ends with
//! `message_end` (the assistant's `content` blocks `text`, `thinking`,
//! `toolCall`, its `usage` and `stopReason`); a tool's result is
//! `tool_execution_end`; the run's end is `agent_end`. The many
//! `message_update` lines (each repeating the message so far) carry nothing
//! `message_end` does not.
//!
//! A failed model call is the last assistant message's `stopReason:
//! "error"` with `errorMessage` (`500 <the API's message>`), and the run
//! still exits 0. pi may then retry: after `agent_end` it prints
//! `auto_retry_start` and runs the turn again, and `auto_retry_end` with
//! `success: false` and `finalError` once it gives up. So a failed turn is
//! fatal only if no retry follows it.

use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, number_field, output_text, str_field};
use super::reply::{ToolStatus, Usage};

/// Reads one event whose `type` is `kind`; a type not listed here becomes an
/// `unknown` event.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "session" => {
            if let Some(id) = str_field(event, "id") {
                out.session(id);
            }
        }
        "message_end" => message_end(event.get("message").unwrap_or(&Value::Null), out),
        "tool_execution_end" => tool_end(event, out),
        "agent_end" => agent_end(event, out),
        "auto_retry_start" => {
            // The failed turn is tried again: not the run's failure.
            out.retrying();
        }
        "auto_retry_end" => {
            if event.get("success").and_then(Value::as_bool) == Some(false) {
                let message = str_field(event, "finalError").unwrap_or("pi gave up retrying");
                out.fail("auto_retry_end", message, status_code(message).as_deref());
            }
        }
        // What `message_end`, `tool_execution_end` and `agent_end` say whole;
        // the prompt queue; compaction.
        "agent_start"
        | "turn_start"
        | "turn_end"
        | "message_start"
        | "message_update"
        | "tool_execution_start"
        | "tool_execution_update"
        | "queue_update"
        | "compaction_start"
        | "compaction_end" => {}
        _ => out.unknown(kind, event),
    }
}

/// `http_NNN` for a message that starts with an HTTP status (`500 Mock
/// server error…`: the model SDKs' wording).
fn status_code(message: &str) -> Option<String> {
    let digits = message.get(..3)?;
    let status: u16 = digits.parse().ok()?;
    let rest = &message[3..];
    ((400..600).contains(&status) && (rest.is_empty() || rest.starts_with(' ')))
        .then(|| format!("http_{status}"))
}

fn message_end(message: &Value, out: &mut ReplyBuilder) {
    if str_field(message, "role") != Some("assistant") {
        return;
    }
    for block in message
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        match str_field(block, "type") {
            Some("text") => {
                if let Some(text) = str_field(block, "text").filter(|t| !t.is_empty()) {
                    out.message(text);
                }
            }
            Some("thinking") => {
                if let Some(text) = str_field(block, "thinking") {
                    out.thought(text);
                }
            }
            Some("toolCall") => {
                out.end_message();
                out.tool_started(
                    str_field(block, "id").unwrap_or_default(),
                    str_field(block, "name"),
                    block.get("arguments"),
                );
            }
            _ => {}
        }
    }
    if let Some(usage) = message.get("usage") {
        out.add_usage(&message_usage(usage));
    }
    match str_field(message, "stopReason") {
        Some("error") | Some("aborted") => {
            let reason = str_field(message, "stopReason").unwrap_or("error");
            let text = str_field(message, "errorMessage")
                .filter(|m| !m.is_empty())
                .map(str::to_owned)
                .unwrap_or_else(|| format!("pi's model call ended with stopReason {reason}"));
            let code = status_code(&text).unwrap_or_else(|| reason.to_owned());
            out.fail_unless_retried("message_end", &text, Some(&code));
        }
        Some("length") => out.note(
            "message_end",
            "pi's last message ended at the model's token limit",
            Some("length"),
        ),
        _ => {}
    }
}

/// `input` leaves out the cached tokens (`cacheRead`, `cacheWrite`); here
/// they are part of `inputTokens`.
fn message_usage(usage: &Value) -> Usage {
    let uncached = count_field(usage, "input");
    let read = count_field(usage, "cacheRead");
    let written = count_field(usage, "cacheWrite");
    let input = match (uncached, read, written) {
        (None, None, None) => None,
        _ => Some(uncached.unwrap_or(0) + read.unwrap_or(0) + written.unwrap_or(0)),
    };
    let output = count_field(usage, "output");
    let cost = usage
        .get("cost")
        .and_then(|c| number_field(c, "total"))
        .filter(|c| *c > 0.0);
    Usage {
        input_tokens: input,
        cached_input_tokens: read.filter(|r| *r > 0),
        output_tokens: output,
        total_tokens: input.zip(output).map(|(i, o)| i + o),
        cost_usd: cost,
        cache_write_input_tokens: written.filter(|w| *w > 0),
        ..Default::default()
    }
}

fn tool_end(event: &Value, out: &mut ReplyBuilder) {
    let id = str_field(event, "toolCallId").unwrap_or_default();
    let result = event.get("result").unwrap_or(&Value::Null);
    let output = result
        .get("content")
        .and_then(output_text)
        .or_else(|| output_text(result));
    let failed = event.get("isError").and_then(Value::as_bool) == Some(true);
    let status = if failed {
        ToolStatus::Error
    } else {
        ToolStatus::Success
    };
    out.tool(
        id,
        str_field(event, "toolName"),
        None,
        Some((status, output.as_deref())),
    );
    if failed {
        let message = output.unwrap_or_else(|| format!("tool call {id} failed"));
        out.note("tool_execution_end", &message, Some("tool_failed"));
    }
}

/// The run's end: a success unless its last assistant message failed
/// (already noted by `message_end`, fatal unless a retry follows).
fn agent_end(event: &Value, out: &mut ReplyBuilder) {
    let last = event
        .get("messages")
        .and_then(Value::as_array)
        .and_then(|m| {
            m.iter()
                .rev()
                .find(|m| str_field(m, "role") == Some("assistant"))
        });
    let failed = last
        .and_then(|m| str_field(m, "stopReason"))
        .is_some_and(|r| r == "error" || r == "aborted");
    if !failed {
        out.succeed();
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_agent_output, ReplyStatus};

    #[test]
    fn a_status_opens_the_code() {
        assert_eq!(super::status_code("500 Mock").as_deref(), Some("http_500"));
        assert_eq!(super::status_code("429").as_deref(), Some("http_429"));
        assert_eq!(super::status_code("5000 tokens"), None);
        assert_eq!(super::status_code("200 fine"), None);
        assert_eq!(super::status_code("Connection error."), None);
        assert_eq!(super::status_code("é"), None);
    }

    #[test]
    fn a_failed_turn_retried_to_success_is_a_success() {
        let out = br#"{"type":"session","version":3,"id":"s1","cwd":"/w"}
{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"500 boom"}}
{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"error","errorMessage":"500 boom"}]}
{"type":"auto_retry_start","attempt":1,"maxAttempts":1,"delayMs":2000,"errorMessage":"500 boom"}
{"type":"message_end","message":{"role":"assistant","content":[{"type":"text","text":"Hi"}],"stopReason":"stop","usage":{"input":100,"output":9,"cacheRead":20,"cacheWrite":0,"cost":{"total":0}}}}
{"type":"agent_end","messages":[{"role":"assistant","content":[{"type":"text","text":"Hi"}],"stopReason":"stop"}]}
{"type":"auto_retry_end","success":true,"attempt":1}
"#;
        let reply = parse_agent_output("pi", out);
        assert_eq!(reply.status, ReplyStatus::Success);
        assert_eq!(reply.text, "Hi");
        assert_eq!(reply.session_id.as_deref(), Some("s1"));
        assert_eq!(reply.errors.len(), 1);
        assert!(!reply.errors[0].fatal);
        let usage = reply.usage.unwrap();
        assert_eq!(usage.input_tokens, Some(120));
        assert_eq!(usage.cached_input_tokens, Some(20));
        assert_eq!(usage.output_tokens, Some(9));
    }

    #[test]
    fn a_failed_turn_not_retried_fails_the_run() {
        let out = br#"{"type":"session","version":3,"id":"s1","cwd":"/w"}
{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"400 Mock rejects this request"}}
{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"error","errorMessage":"400 Mock rejects this request"}]}
"#;
        let reply = parse_agent_output("pi", out);
        assert_eq!(reply.status, ReplyStatus::Error);
        assert_eq!(reply.errors[0].code.as_deref(), Some("http_400"));
        assert!(reply.errors[0].fatal);
        // Given up after its retries: the final error is the failure.
        let out = br#"{"type":"message_end","message":{"role":"assistant","content":[],"stopReason":"error","errorMessage":"Connection error."}}
{"type":"agent_end","messages":[{"role":"assistant","content":[],"stopReason":"error","errorMessage":"Connection error."}]}
{"type":"auto_retry_end","success":false,"attempt":3,"finalError":"Connection error."}
"#;
        let reply = parse_agent_output("pi", out);
        assert_eq!(reply.status, ReplyStatus::Error);
        assert_eq!(reply.errors.len(), 1);
        assert_eq!(reply.errors[0].message, "Connection error.");
    }
}
