//! GitHub Copilot CLI `--output-format json`: one event a line, with dotted
//! types (`assistant.message`, `tool.execution_start`,
//! `tool.execution_complete`, `session.error`, …) and a last `result` line,
//! the only one that names the session (`sessionId`) and the exit code.
//! Token usage is not on stdout: it is in the `--usage-output-file`, merged
//! by [`super::usage_file`]. Deltas (`assistant.message_delta`) are left
//! out: the whole `assistant.message` follows each run of them.

use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, is_true, output_text, str_field};
use super::reply::{ToolStatus, Usage};

/// The types Copilot 1.0 prints that carry nothing the reply keeps (deltas,
/// turn and call bookkeeping, session notices): known, so not counted as
/// unknown (SPEC §13).
const IGNORED: &[&str] = &[
    "assistant.idle",
    "assistant.message_delta",
    "assistant.message_start",
    "assistant.tool_call_delta",
    "assistant.turn_end",
    "assistant.turn_retry",
    "assistant.turn_start",
    "model.call_failure",
    "model.call_final_result",
    "model.call_finished",
    "model.call_start",
    "session.background_tasks_changed",
    "session.info",
    "session.mcp_servers_loaded",
    "session.skills_loaded",
    "session.tools_updated",
    "user.message",
];

/// Reads one event whose `type` is `kind`; a type it does not know becomes
/// an `unknown` event.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    let data = event.get("data").unwrap_or(&Value::Null);
    // A sub-agent's events carry the id of the tool call that started it.
    if data.get("parentToolCallId").is_some_and(|p| !p.is_null()) {
        return;
    }
    match kind {
        "assistant.message" => message(data, out),
        "tool.execution_start" => {
            if let Some(id) = str_field(data, "toolCallId") {
                out.tool_started(id, str_field(data, "toolName"), data.get("arguments"));
            }
        }
        "tool.execution_complete" => tool_complete(data, out),
        "session.error" => {
            let message = str_field(data, "message")
                .filter(|m| !m.is_empty())
                .unwrap_or("GitHub Copilot CLI reported an error without a message");
            let code = count_field(data, "statusCode")
                .or_else(|| capi_status(message))
                .map(|s| format!("http_{s}"))
                .or_else(|| str_field(data, "errorType").map(str::to_owned));
            out.fail(kind, message, code.as_deref());
        }
        "session.warning" => {
            if let Some(message) = str_field(data, "message") {
                out.note(kind, message, str_field(data, "warningType"));
            }
        }
        "session.info" if str_field(data, "infoType") == Some("model_retry") => {
            if let Some(message) = str_field(data, "message") {
                out.note(kind, message, Some("model_retry"));
            }
        }
        "result" => result(event, out),
        _ if IGNORED.contains(&kind) => {}
        _ => out.unknown(kind, event),
    }
}

/// The HTTP status of a failure after retries in 1.0.67, which has no
/// `statusCode`: "… Last error: CAPIError: 500 …".
fn capi_status(message: &str) -> Option<u64> {
    // Searched and read by hand: `str::find` and `str::parse` would link a
    // substring searcher and an integer parser (~2.6 KB) into the .wasm for
    // this alone.
    const MARK: &[u8] = b"CAPIError: ";
    let bytes = message.as_bytes();
    let at = bytes.windows(MARK.len()).position(|w| w == MARK)? + MARK.len();
    bytes.get(at..at + 3)?.iter().try_fold(0, |n, &b| {
        b.is_ascii_digit().then(|| n * 10 + u64::from(b - b'0'))
    })
}

fn message(data: &Value, out: &mut ReplyBuilder) {
    if let Some(text) = str_field(data, "content").filter(|t| !t.is_empty()) {
        out.message(text);
    }
    // Releases before the usage file (1.0.67) count each message's output
    // tokens here; the usage file, when merged, replaces the count.
    if let Some(tokens) = count_field(data, "outputTokens") {
        out.add_usage(&Usage {
            output_tokens: Some(tokens),
            ..Usage::default()
        });
    }
    for request in data
        .get("toolRequests")
        .and_then(Value::as_array)
        .map_or(&[][..], Vec::as_slice)
    {
        if let Some(id) = str_field(request, "toolCallId") {
            out.tool_started(id, str_field(request, "name"), request.get("arguments"));
        }
    }
}

fn tool_complete(data: &Value, out: &mut ReplyBuilder) {
    let Some(id) = str_field(data, "toolCallId") else {
        return;
    };
    let succeeded = is_true(data, "success");
    let output = if succeeded {
        data.get("result")
            .and_then(|r| r.get("content"))
            .and_then(output_text)
    } else {
        data.get("error")
            .and_then(|e| str_field(e, "message").map(str::to_owned))
            .or_else(|| data.get("error").and_then(output_text))
            .or_else(|| {
                data.get("result")
                    .and_then(|r| r.get("content"))
                    .and_then(output_text)
            })
    };
    let status = if succeeded {
        ToolStatus::Success
    } else {
        ToolStatus::Error
    };
    out.tool_finished(id, status, output.as_deref());
    if !succeeded {
        // A denied or failed tool does not fail the run (it exits 0): a note.
        let message = output.unwrap_or_else(|| format!("tool call {id} failed"));
        let code = data
            .get("error")
            .and_then(|e| str_field(e, "code"))
            .unwrap_or("tool_failed");
        out.note("tool.execution_complete", &message, Some(code));
    }
}

/// The last line: the session id, and the exit code.
fn result(event: &Value, out: &mut ReplyBuilder) {
    if let Some(id) = str_field(event, "sessionId") {
        out.session(id);
    }
    match count_field(event, "exitCode") {
        Some(0) | None => out.succeed(),
        // The failure was reported already (`session.error`).
        Some(_) if out.has_fatal_error() => {}
        Some(code) => out.fail_with_last_note(
            "result",
            &format!("GitHub Copilot CLI exited with code {code}"),
        ),
    }
}
