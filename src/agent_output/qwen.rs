//! Qwen Code `-o stream-json`: Claude Code's lines (`system`, `assistant`,
//! `user`, `result`), read by [`super::claude`], except where Qwen differs:
//!
//! - `result.usage` is cumulative over the whole session (a resumed run
//!   counts the earlier runs again) and includes a memory-extraction call
//!   not shown on stdout; the reply's usage is this run's: the sum of the
//!   usage on each `assistant` line (one per model call, a sub-agent's
//!   included);
//! - its `input_tokens` already counts the cached ones
//!   (`cache_read_input_tokens` is their part), unlike Claude's;
//! - an API failure comes as an ordinary assistant text `[API Error: …]`
//!   (no `is_api_error_message`), then a `result` with `is_error` whose
//!   message is in `error.message` (no `result` text); before 0.24 a
//!   `result` of subtype `success` whose `result` is that text, exit 0;
//! - a run cut short by `--max-session-turns` exits 53 with no `result`
//!   line: the reply stays `incomplete`.

use serde_json::Value;

use super::builder::ReplyBuilder;
use super::claude;
use super::json::{count_field, is_true, str_field};
use super::reply::Usage;

/// Reads one event whose `type` is `kind`.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "assistant" => assistant(event, out),
        "result" => result(event, out),
        // Partial-message events: the whole `assistant` line follows.
        "stream_event" => {}
        _ => claude::read(event, kind, out),
    }
}

fn is_api_error(text: &str) -> bool {
    text.starts_with("[API Error") && text.trim_end().ends_with(']')
}

fn assistant(event: &Value, out: &mut ReplyBuilder) {
    let message = event.get("message");
    let from_subagent = event
        .get("parent_tool_use_id")
        .is_some_and(|p| !p.is_null());
    if from_subagent {
        // Not the reply, but a model call this run paid for.
        if let Some(usage) = message.and_then(|m| m.get("usage")) {
            out.add_usage(&qwen_usage(usage));
        }
        return;
    }
    let blocks = message
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice);
    let api_error = blocks
        .iter()
        .filter_map(|b| str_field(b, "text"))
        .find(|t| is_api_error(t));
    if let Some(text) = api_error {
        // The `result` that follows says whether it was fatal.
        out.note("assistant", text, Some("api_error"));
        return;
    }
    if let Some(usage) = message.and_then(|m| m.get("usage")) {
        out.add_usage(&qwen_usage(usage));
    }
    claude::read(event, "assistant", out);
}

fn result(event: &Value, out: &mut ReplyBuilder) {
    // Before 0.24 (0.12.0, 0.15.10, 0.21.10 recorded) an API failure ends in
    // a `result` of subtype `success`, `is_error: false` and the
    // `[API Error: …]` text as its `result`, exit code 0: a failure all the same.
    let api_error_result = str_field(event, "result").is_some_and(is_api_error);
    let failed = is_true(event, "is_error")
        || str_field(event, "subtype").is_some_and(|s| s.starts_with("error"))
        || api_error_result;
    // Claude's reader, minus the cumulative usage.
    let mut without_usage = event.clone();
    if let Some(map) = without_usage.as_object_mut() {
        map.remove("usage");
        if api_error_result {
            map.insert("is_error".into(), Value::Bool(true));
        }
    }
    if failed && str_field(event, "result").is_none() {
        // Qwen's message is in `error.message`: Claude's reader finds it
        // there as `result`.
        if let (Some(message), Some(map)) = (
            event.get("error").and_then(|e| str_field(e, "message")),
            without_usage.as_object_mut(),
        ) {
            map.insert("result".into(), Value::String(message.to_owned()));
        }
    }
    claude::read(&without_usage, "result", out);
    if let Some(ms) = count_field(event, "duration_ms") {
        out.add_usage(&Usage {
            duration_ms: Some(ms),
            ..Usage::default()
        });
    }
}

/// One call's usage; `input_tokens` already holds the cached ones.
fn qwen_usage(usage: &Value) -> Usage {
    let input = count_field(usage, "input_tokens");
    let output = count_field(usage, "output_tokens");
    Usage {
        input_tokens: input,
        cached_input_tokens: count_field(usage, "cache_read_input_tokens"),
        output_tokens: output,
        total_tokens: count_field(usage, "total_tokens")
            .or_else(|| input.zip(output).map(|(i, o)| i + o)),
        duration_ms: None,
        cost_usd: None,
        ..Default::default()
    }
}
