//! Codex `exec --json`: `thread.started`, `turn.*`, `item.*` and `error`
//! lines; the older `{ id, msg: { type, … } }` lines are read by
//! `codex_legacy`, the `session.created` and `item_type` of the releases in
//! between here.

use serde_json::{json, Value};

use super::builder::ReplyBuilder;
use super::codex_legacy;
use super::codex_shared::{is_retry, turn_usage};
use super::json::str_field;
use super::reply::ToolStatus;

/// Reads one event whose `type` is `kind` (`""` when it has none); any other
/// type is reported as unknown.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "" => codex_legacy::read(event, out),
        "thread.started" => {
            if let Some(id) = str_field(event, "thread_id") {
                out.session(id);
            }
        }
        // The name of the event in the releases between the two schemas.
        "session.created" => {
            if let Some(id) = str_field(event, "session_id") {
                out.session(id);
            }
        }
        "turn.started" => {}
        "item.started" | "item.updated" | "item.completed" => {
            if let Some(item) = event.get("item") {
                read_item(event, item, kind, out);
            }
        }
        "turn.completed" => {
            if let Some(usage) = event.get("usage") {
                out.add_usage(&turn_usage(usage));
            }
            out.succeed();
        }
        "turn.failed" => {
            let message = event
                .get("error")
                .and_then(|e| str_field(e, "message"))
                .unwrap_or("Codex reported a failed turn without a message");
            out.fail("turn.failed", message, None);
        }
        "error" => {
            let message = str_field(event, "message")
                .filter(|m| !m.is_empty())
                .unwrap_or("Codex reported an error without a message");
            // Retries of a dropped stream are announced as errors
            // ("Reconnecting... 1/5", or "stream error: …; retrying 1/5 in
            // 200ms…" in 0.44); the turn goes on.
            if is_retry(message) {
                out.note("error", message, None);
            } else {
                out.fail("error", message, None);
            }
        }
        _ => out.unknown(kind, event),
    }
}

/// Reads the `item` of `event` (an `item.*` line).
fn read_item(event: &Value, item: &Value, kind: &str, out: &mut ReplyBuilder) {
    let completed = kind == "item.completed";
    // `item_type` and `assistant_message` in the releases between the schemas.
    let item_type = str_field(item, "type")
        .or_else(|| str_field(item, "item_type"))
        .unwrap_or_default();
    match item_type {
        "agent_message" | "assistant_message" if completed => {
            if let Some(text) = str_field(item, "text") {
                out.message(text);
            }
        }
        // A non-fatal error surfaced as an item.
        "error" if completed => {
            if let Some(message) = str_field(item, "message") {
                out.note(kind, message, None);
            }
        }
        "command_execution" => {
            let input = json!({ "command": item.get("command").cloned().unwrap_or(Value::Null) });
            let output = str_field(item, "aggregated_output");
            tool(out, item, kind, "command_execution", &input, output);
        }
        "file_change" => {
            let input = json!({ "changes": item.get("changes").cloned().unwrap_or(Value::Null) });
            tool(out, item, kind, "file_change", &input, None);
        }
        "mcp_tool_call" => {
            let server = str_field(item, "server").unwrap_or_default();
            let name = format!("{server}.{}", str_field(item, "tool").unwrap_or_default());
            let input = item.get("arguments").cloned().unwrap_or(Value::Null);
            let output = item
                .get("error")
                .and_then(|e| str_field(e, "message"))
                .map(str::to_owned)
                .or_else(|| {
                    item.get("result")
                        .filter(|r| !r.is_null())
                        .map(Value::to_string)
                });
            tool(out, item, kind, &name, &input, output.as_deref());
        }
        "web_search" => {
            let input = json!({ "query": item.get("query").cloned().unwrap_or(Value::Null) });
            tool(out, item, kind, "web_search", &input, None);
        }
        "collab_tool_call" => {
            let name = str_field(item, "tool").unwrap_or("collab_tool_call");
            let input = json!({ "prompt": item.get("prompt").cloned().unwrap_or(Value::Null) });
            tool(out, item, kind, name, &input, None);
        }
        // Kinds known to carry nothing the reply keeps: the model's
        // reasoning summary, its plan, and messages or errors still being
        // written (read once completed).
        "reasoning" | "todo_list" | "agent_message" | "assistant_message" | "error" => {}
        // A kind not modelled: counted as `<event>/<item type>`, never lost.
        other => out.unknown(&format!("{kind}/{other}"), event),
    }
}

/// Records a tool item: pending while `in_progress`; finished on
/// `completed`, `failed` or `declined`, or on `item.completed` for an item
/// that has no status (a web search).
fn tool(
    out: &mut ReplyBuilder,
    item: &Value,
    kind: &str,
    name: &str,
    input: &Value,
    output: Option<&str>,
) {
    let id = str_field(item, "id").unwrap_or_default();
    let finished = match str_field(item, "status") {
        Some("completed") => Some((ToolStatus::Success, output)),
        Some("failed" | "declined") => Some((ToolStatus::Error, output)),
        None if kind == "item.completed" => Some((ToolStatus::Success, output)),
        _ => None,
    };
    out.tool(id, Some(name), Some(input), finished);
}
