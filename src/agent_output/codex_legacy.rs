//! Codex `exec --json` before the flat `thread.started`/`item.*` events
//! (the releases up to 0.42): a summary of the configuration and the prompt
//! as two objects without a `type`, then one `{ "id", "msg": { "type", … } }`
//! line per protocol event. No final event is printed: the run has ended
//! well when the output ends after a message that followed every tool call,
//! with no fatal error.

use serde_json::{Map, Value};

use super::builder::ReplyBuilder;
use super::codex_shared::{is_retry, turn_usage};
use super::json::{is_true, output_text, str_field};
use super::reply::ToolStatus;

/// Reads a Codex line that has no `type`: an event of the older schema, or
/// its configuration summary; anything else is reported as unknown.
pub fn read(line: &Value, out: &mut ReplyBuilder) {
    match line.get("msg") {
        Some(msg) => match str_field(msg, "type") {
            Some(kind) => read_msg(line, msg, kind, out),
            None => out.unknown("", line),
        },
        None if is_summary(line) => {}
        None => out.unknown("", line),
    }
}

/// The first two lines: `{"model":…,"sandbox":…,…}` and `{"prompt":…}`.
fn is_summary(line: &Value) -> bool {
    line.get("prompt").is_some() || (line.get("model").is_some() && line.get("sandbox").is_some())
}

fn read_msg(line: &Value, msg: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "session_configured" => {
            if let Some(id) = str_field(msg, "session_id") {
                out.session(id);
            }
        }
        "task_started" => out.success_at_end(false),
        "agent_message" => {
            if let Some(text) = str_field(msg, "message") {
                out.message(text);
            }
            let settled = !out.has_pending_tool();
            out.success_at_end(settled);
        }
        "token_count" => {
            // `info.total_token_usage` is the run's total so far; the
            // earliest releases printed the counts of one response inline.
            match msg.get("info") {
                Some(info) => {
                    if let Some(total) = info.get("total_token_usage") {
                        out.set_usage(turn_usage(total));
                    }
                }
                None if msg.get("input_tokens").is_some() => out.add_usage(&turn_usage(msg)),
                None => {}
            }
        }
        "exec_command_begin" => {
            let command = match msg.get("command") {
                Some(Value::Array(parts)) => Value::String(
                    parts
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" "),
                ),
                other => other.cloned().unwrap_or(Value::Null),
            };
            tool_started(out, msg, "command_execution", field("command", command));
        }
        "exec_command_end" => {
            let failed = msg
                .get("exit_code")
                .and_then(Value::as_i64)
                .is_some_and(|code| code != 0);
            let output = str_field(msg, "aggregated_output")
                .map(str::to_owned)
                .or_else(|| joined_output(msg));
            tool_finished(out, msg, failed, output.as_deref());
        }
        "patch_apply_begin" => {
            let changes = msg
                .get("changes")
                .and_then(Value::as_object)
                .map(changes)
                .unwrap_or(Value::Null);
            tool_started(out, msg, "file_change", field("changes", changes));
        }
        "patch_apply_end" => {
            let failed = msg.get("success").and_then(Value::as_bool) == Some(false);
            let output = str_field(msg, "stderr").filter(|e| failed && !e.is_empty());
            tool_finished(out, msg, failed, output);
        }
        "mcp_tool_call_begin" => {
            let invocation = msg.get("invocation").unwrap_or(&Value::Null);
            let name = format!(
                "{}.{}",
                str_field(invocation, "server").unwrap_or_default(),
                str_field(invocation, "tool").unwrap_or_default()
            );
            let input = invocation.get("arguments").cloned().unwrap_or(Value::Null);
            tool_started(out, msg, &name, input);
        }
        "mcp_tool_call_end" => {
            // `result` is `{ "Ok": CallToolResult }` or `{ "Err": message }`.
            let result = msg.get("result").unwrap_or(&Value::Null);
            let ok = result.get("Ok").unwrap_or(&Value::Null);
            let output = match result.get("Err") {
                Some(error) => output_text(error),
                None => ok.get("content").and_then(output_text),
            };
            let failed = result.get("Err").is_some() || is_true(ok, "isError");
            tool_finished(out, msg, failed, output.as_deref());
        }
        "web_search_begin" | "web_search_end" => {
            let query = msg.get("query").cloned().unwrap_or(Value::Null);
            tool_started(out, msg, "web_search", field("query", query));
            if kind == "web_search_end" {
                tool_finished(out, msg, false, None);
            }
        }
        // A retry of a dropped stream: the run goes on.
        "stream_error" => {
            let message = str_field(msg, "message").unwrap_or("Codex stream error");
            out.note("stream_error", message, None);
        }
        "error" => {
            let message = str_field(msg, "message")
                .filter(|m| !m.is_empty())
                .unwrap_or("Codex reported an error without a message");
            if is_retry(message) {
                out.note("error", message, None);
            } else {
                out.fail("error", message, None);
            }
        }
        "turn_aborted" => {
            let reason = str_field(msg, "reason").unwrap_or("unknown");
            let message = String::from("Codex aborted the turn: ") + reason;
            out.fail("turn_aborted", &message, Some(reason));
        }
        "task_complete" => {
            if let (Some(text), false) = (str_field(msg, "last_agent_message"), out.has_text()) {
                out.message(text);
            }
            out.succeed();
        }
        // Progress that adds nothing to the reply: reasoning, the echoed
        // prompt, streamed command output (the end event has it all), the
        // plan, diffs, background notices.
        "agent_reasoning"
        | "agent_reasoning_raw_content"
        | "agent_reasoning_section_break"
        | "user_message"
        | "exec_command_output_delta"
        | "plan_update"
        | "turn_diff"
        | "background_event" => {}
        _ => out.unknown(kind, line),
    }
}

fn tool_started(out: &mut ReplyBuilder, msg: &Value, name: &str, input: Value) {
    let id = str_field(msg, "call_id").unwrap_or_default();
    out.tool_started(id, Some(name), Some(&input));
    out.success_at_end(false);
}

fn tool_finished(out: &mut ReplyBuilder, msg: &Value, failed: bool, output: Option<&str>) {
    let id = str_field(msg, "call_id").unwrap_or_default();
    let status = if failed {
        ToolStatus::Error
    } else {
        ToolStatus::Success
    };
    out.tool_finished(id, status, output);
}

/// `{ key: value }`.
fn field(key: &str, value: Value) -> Value {
    let mut object = Map::new();
    object.insert(key.to_owned(), value);
    Value::Object(object)
}

/// `stdout` then `stderr` of a command that printed no `aggregated_output`.
fn joined_output(msg: &Value) -> Option<String> {
    let parts: Vec<&str> = ["stdout", "stderr"]
        .into_iter()
        .filter_map(|k| str_field(msg, k))
        .filter(|s| !s.is_empty())
        .collect();
    (!parts.is_empty()).then(|| parts.join("\n"))
}

/// `{ path: { "add" | "delete" | "update": … } }` as the newer schema's
/// `[{ path, kind }]`.
fn changes(by_path: &Map<String, Value>) -> Value {
    Value::Array(
        by_path
            .iter()
            .map(|(path, change)| {
                let kind = change
                    .as_object()
                    .and_then(|c| c.keys().next())
                    .map_or("update", String::as_str);
                let mut change = Map::new();
                change.insert("path".into(), Value::String(path.clone()));
                change.insert("kind".into(), Value::String(kind.to_owned()));
                Value::Object(change)
            })
            .collect(),
    )
}
