//! Kimi Code `--output-format stream-json`: one message a line, told apart
//! by `role`: `assistant` (`content` text and/or `tool_calls`, OpenAI's
//! shape), `tool` (`tool_call_id`, `content`), `meta` (`type`:
//! `system.version` first, `turn.step.retrying` before each retry, and
//! `session.resume_hint`, with the `session_id`, last). There is no usage
//! and no final status: the resume hint ends a run that went well; a failed
//! one prints its error on stderr alone and exits 1.

use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, output_text, str_field};
use super::reply::ToolStatus;

/// Reads one line; `kind` is its `type` (a `meta` line's), the role
/// decides. A message line has no `type`: one that has one is of a kind
/// this reader does not know.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match str_field(event, "role") {
        Some("meta") => meta(event, kind, out),
        _ if !kind.is_empty() || event.get("type").is_some() => out.unknown(kind, event),
        Some("assistant") => assistant(event, out),
        Some("tool") => {
            let id = str_field(event, "tool_call_id").unwrap_or_default();
            let output = event.get("content").and_then(output_text);
            out.tool_finished(id, ToolStatus::Success, output.as_deref());
        }
        _ => out.unknown(kind, event),
    }
}

fn assistant(event: &Value, out: &mut ReplyBuilder) {
    if let Some(text) = event
        .get("content")
        .and_then(output_text)
        .filter(|t| !t.is_empty())
    {
        out.message(&text);
    }
    for call in event
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        let function = call.get("function").unwrap_or(&Value::Null);
        // The arguments as the model sent them: a JSON text.
        let input = str_field(function, "arguments")
            .and_then(|a| serde_json::from_str::<Value>(a).ok())
            .or_else(|| function.get("arguments").cloned());
        out.end_message();
        out.tool_owned(
            str_field(call, "id").unwrap_or_default(),
            str_field(function, "name"),
            input,
            None,
        );
    }
}

fn meta(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "session.resume_hint" => {
            if let Some(id) = str_field(event, "session_id") {
                out.session(id);
            }
            out.succeed();
        }
        "turn.step.retrying" => {
            let message = str_field(event, "error_message").unwrap_or("a model call failed");
            let code = count_field(event, "status_code").map(|s| format!("http_{s}"));
            out.note("turn.step.retrying", message, code.as_deref());
        }
        "system.version" => {}
        _ => out.unknown(kind, event),
    }
}

#[cfg(test)]
mod tests {
    use super::super::{parse_agent_output, ReplyStatus, ToolStatus};

    #[test]
    fn a_tool_call_then_the_answer() {
        let out = br#"{"role":"meta","type":"system.version","version":"2.1.0"}
{"role":"assistant","tool_calls":[{"type":"function","id":"c1","function":{"name":"Read","arguments":"{\"path\":\"/w/notes.txt\"}"}}]}
{"role":"tool","tool_call_id":"c1","content":"The launch code is 4217."}
{"role":"assistant","content":"The code is 4217."}
{"role":"meta","type":"session.resume_hint","session_id":"session_1","command":"kimi -r session_1","content":"To resume this session: kimi -r session_1"}
"#;
        let reply = parse_agent_output("kimi-code", out);
        assert_eq!(reply.status, ReplyStatus::Success);
        assert_eq!(reply.text, "The code is 4217.");
        assert_eq!(reply.session_id.as_deref(), Some("session_1"));
        assert_eq!(reply.tool_uses.len(), 1);
        assert_eq!(reply.tool_uses[0].name, "Read");
        assert_eq!(reply.tool_uses[0].status, ToolStatus::Success);
        assert_eq!(
            reply.tool_uses[0].input,
            serde_json::json!({"path": "/w/notes.txt"})
        );
        assert!(reply.unknown_events.is_empty());
    }

    #[test]
    fn a_run_without_its_resume_hint_is_incomplete_and_retries_are_notes() {
        let out = br#"{"role":"meta","type":"system.version","version":"2.1.0"}
{"role":"meta","type":"turn.step.retrying","failed_attempt":1,"next_attempt":2,"max_attempts":2,"delay_ms":606.2,"error_name":"APIStatusError","error_message":"500 Mock server error.","status_code":500}
"#;
        let reply = parse_agent_output("kimi-code", out);
        assert_eq!(reply.status, ReplyStatus::Incomplete);
        assert_eq!(reply.errors.len(), 1);
        assert!(!reply.errors[0].fatal);
        assert_eq!(reply.errors[0].code.as_deref(), Some("http_500"));
    }
}
