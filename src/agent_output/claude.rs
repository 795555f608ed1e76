//! Claude Code `-p --output-format stream-json --verbose`: `system`,
//! `assistant`, `user` (tool results) and `result` lines.

use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, is_true, number_field, output_text, str_field};
use super::reply::{ToolStatus, Usage};

/// Reads one event whose `type` is `kind`; any other type is reported as
/// unknown.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    // A sub-agent's messages (a Task tool run) carry the id of the tool call
    // that started it: they are not the reply.
    let from_subagent = event
        .get("parent_tool_use_id")
        .is_some_and(|p| !p.is_null());
    match kind {
        "system" => system(event, out),
        "assistant" | "user" if from_subagent => {}
        "assistant" => assistant(event, out),
        "user" => tool_results(event, out),
        "result" => result(event, out),
        _ => out.unknown(kind, event),
    }
}

/// Each MCP server the init line lists as neither connected nor still
/// connecting (2.1.332 says `"status":"failed"` of a server that exited or
/// could not be reached): a note, since the run goes on without its tools
/// and says so nowhere else.
fn mcp_servers_down(event: &Value, out: &mut ReplyBuilder) {
    let Some(servers) = event.get("mcp_servers").and_then(Value::as_array) else {
        return;
    };
    for server in servers {
        let status = str_field(server, "status").unwrap_or("unknown");
        if matches!(status, "connected" | "pending") {
            continue;
        }
        let name = str_field(server, "name").unwrap_or("?");
        out.note(
            "system",
            &format!("MCP server \"{name}\" is not connected ({status}): the agent runs without its tools"),
            Some("mcp_server"),
        );
    }
}

fn system(event: &Value, out: &mut ReplyBuilder) {
    match str_field(event, "subtype") {
        Some("init") => {
            if let Some(id) = str_field(event, "session_id") {
                out.session(id);
            }
            mcp_servers_down(event, out);
        }
        Some("api_retry") => {
            let attempt = count_field(event, "attempt").unwrap_or(0);
            let max = count_field(event, "max_retries").unwrap_or(0);
            let why = str_field(event, "error").unwrap_or("error");
            let status = count_field(event, "error_status")
                .map(|s| format!(", HTTP {s}"))
                .unwrap_or_default();
            out.note(
                "system",
                &format!("API call retried (attempt {attempt} of {max}): {why}{status}"),
                str_field(event, "error"),
            );
        }
        Some("permission_denied") => {
            if let Some(message) = str_field(event, "message") {
                out.note("system", message, Some("permission_denied"));
            }
        }
        // A notice to the user (2.1.287: `level` `warning`, text in
        // `content`): a note, not the reply.
        Some("informational") => {
            if let Some(text) = str_field(event, "content").filter(|t| !t.is_empty()) {
                out.note("system", text, Some("informational"));
            }
        }
        // A subtype not modelled: counted as `system/<subtype>`, never lost.
        subtype => {
            let event_type = match subtype {
                Some(subtype) => format!("system/{subtype}"),
                None => "system".to_owned(),
            };
            out.unknown(&event_type, event);
        }
    }
}

fn content_blocks(event: &Value) -> &[Value] {
    event
        .get("message")
        .and_then(|m| m.get("content"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

fn assistant(event: &Value, out: &mut ReplyBuilder) {
    // An API failure comes as a synthetic assistant message: an error, not
    // the reply. The `result` that follows says whether it was fatal.
    if is_true(event, "is_api_error_message") || str_field(event, "error").is_some() {
        let code = str_field(event, "api_error_type").or_else(|| str_field(event, "error"));
        for block in content_blocks(event) {
            if let Some(text) = str_field(block, "text") {
                out.note("assistant", text, code);
            }
        }
        return;
    }
    for block in content_blocks(event) {
        match str_field(block, "type") {
            Some("text") => {
                if let Some(text) = str_field(block, "text") {
                    out.message(text);
                }
            }
            Some("tool_use") => {
                let id = str_field(block, "id").unwrap_or_default();
                out.tool_started(id, str_field(block, "name"), block.get("input"));
            }
            _ => {}
        }
    }
}

fn tool_results(event: &Value, out: &mut ReplyBuilder) {
    for block in content_blocks(event) {
        if str_field(block, "type") != Some("tool_result") {
            continue;
        }
        let id = str_field(block, "tool_use_id").unwrap_or_default();
        let status = if is_true(block, "is_error") {
            ToolStatus::Error
        } else {
            ToolStatus::Success
        };
        let output = block.get("content").and_then(output_text);
        out.tool_finished(id, status, output.as_deref());
    }
}

fn result(event: &Value, out: &mut ReplyBuilder) {
    if let Some(id) = str_field(event, "session_id") {
        out.session(id);
    }
    if let Some(usage) = event.get("usage") {
        out.set_usage(claude_usage(usage, event));
    }
    if let Some(reason) = str_field(event, "terminal_reason") {
        out.terminal_reason(reason);
    }
    // With `--json-schema`: the value the model answered with.
    if let Some(value) = event.get("structured_output").filter(|v| !v.is_null()) {
        out.structured(value);
    }
    if let Some(status) = count_field(event, "api_error_status") {
        out.api_error_status(status);
    }
    let subtype = str_field(event, "subtype").unwrap_or_default();
    let failed = is_true(event, "is_error") || subtype.starts_with("error");
    let result_text = str_field(event, "result").filter(|r| !r.trim().is_empty());
    if !failed {
        // The result repeats the last text block; it only stands in when the
        // stream had no text of its own.
        if let (Some(text), false) = (result_text, out.has_text()) {
            out.message(text);
        }
        out.succeed();
        return;
    }
    let listed = event
        .get("errors")
        .and_then(Value::as_array)
        .map(|errors| {
            errors
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; ")
        })
        .filter(|joined| !joined.is_empty());
    let message = result_text
        .map(str::to_owned)
        .or(listed)
        .unwrap_or_else(|| format!("Claude Code ended with {subtype}"));
    let code =
        str_field(event, "api_error_type").or(subtype.starts_with("error").then_some(subtype));
    out.fail("result", &message, code);
}

/// Claude counts cache writes and reads apart from `input_tokens`; here they
/// are part of `inputTokens`, and the reads are `cachedInputTokens`.
fn claude_usage(usage: &Value, result: &Value) -> Usage {
    let uncached = count_field(usage, "input_tokens");
    let written = count_field(usage, "cache_creation_input_tokens");
    let read = count_field(usage, "cache_read_input_tokens");
    let input = match (uncached, written, read) {
        (None, None, None) => None,
        _ => Some(uncached.unwrap_or(0) + written.unwrap_or(0) + read.unwrap_or(0)),
    };
    let output = count_field(usage, "output_tokens");
    Usage {
        input_tokens: input,
        cached_input_tokens: read,
        output_tokens: output,
        total_tokens: input.zip(output).map(|(i, o)| i + o),
        duration_ms: count_field(result, "duration_ms"),
        cost_usd: number_field(result, "total_cost_usd"),
        cache_write_input_tokens: written,
        ..Usage::default()
    }
}
