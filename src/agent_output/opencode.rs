//! opencode `run --format json`: `step_start`, `text`, `reasoning`,
//! `tool_use` (printed once the tool finished), `step_finish` (tokens, cost,
//! reason) and `error` lines, each with the `sessionID`. There is no final
//! line: the run is over at a `step_finish` whose reason is not
//! `tool-calls` (`stop`, normally); output that ends before one is
//! `incomplete`.

use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, number_field, output_text, str_field};
use super::reply::{ToolStatus, Usage};

/// Reads one event whose `type` is `kind`; `step_start` and `reasoning`
/// carry nothing the reply keeps, any other type becomes an `unknown` event.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    if let Some(id) = str_field(event, "sessionID") {
        out.session(id);
    }
    let part = event.get("part").unwrap_or(&Value::Null);
    match kind {
        "text" => {
            if let Some(text) = str_field(part, "text") {
                out.message(text);
            }
        }
        "tool_use" => tool(part, out),
        "step_finish" => step_finish(part, out),
        "error" => error(event, out),
        "step_start" | "reasoning" => {}
        _ => out.unknown(kind, event),
    }
}

fn tool(part: &Value, out: &mut ReplyBuilder) {
    let id = str_field(part, "callID")
        .or_else(|| str_field(part, "id"))
        .unwrap_or_default();
    let state = part.get("state").unwrap_or(&Value::Null);
    let finished = match str_field(state, "status") {
        Some("completed") => Some((
            ToolStatus::Success,
            state.get("output").and_then(output_text),
        )),
        Some("error") => Some((ToolStatus::Error, state.get("error").and_then(output_text))),
        _ => None,
    };
    let (status, output) = match &finished {
        Some((status, output)) => (Some(*status), output.as_deref()),
        None => (None, None),
    };
    out.tool(
        id,
        str_field(part, "tool"),
        state.get("input"),
        status.map(|s| (s, output)),
    );
    if status == Some(ToolStatus::Error) {
        let message = output.map_or_else(|| format!("tool call {id} failed"), str::to_owned);
        out.note("tool_use", &message, Some("tool_failed"));
    }
}

fn step_finish(part: &Value, out: &mut ReplyBuilder) {
    if let Some(tokens) = part.get("tokens") {
        let mut usage = step_usage(tokens);
        usage.cost_usd = number_field(part, "cost");
        out.add_usage(&usage);
    }
    match str_field(part, "reason") {
        Some("tool-calls") => {}
        Some("stop") | None => out.succeed(),
        Some(other) => {
            out.note(
                "step_finish",
                &format!("opencode's last step ended with reason {other}"),
                Some(other),
            );
            out.succeed();
        }
    }
}

/// `input` leaves out the cached tokens (`cache.read`, `cache.write`);
/// here they are part of `inputTokens`.
fn step_usage(tokens: &Value) -> Usage {
    let cache = tokens.get("cache").unwrap_or(&Value::Null);
    let uncached = count_field(tokens, "input");
    let read = count_field(cache, "read");
    let written = count_field(cache, "write");
    let input = match (uncached, read, written) {
        (None, None, None) => None,
        _ => Some(uncached.unwrap_or(0) + read.unwrap_or(0) + written.unwrap_or(0)),
    };
    let output =
        count_field(tokens, "output").map(|o| o + count_field(tokens, "reasoning").unwrap_or(0));
    Usage {
        input_tokens: input,
        cached_input_tokens: read,
        output_tokens: output,
        total_tokens: input.zip(output).map(|(i, o)| i + o),
        duration_ms: None,
        cost_usd: None,
        ..Default::default()
    }
}

fn error(event: &Value, out: &mut ReplyBuilder) {
    let error = event.get("error").unwrap_or(&Value::Null);
    let data = error.get("data").unwrap_or(&Value::Null);
    let name = str_field(error, "name");
    let message = str_field(data, "message")
        .or_else(|| str_field(error, "message"))
        .filter(|m| !m.is_empty())
        .map(str::to_owned)
        .unwrap_or_else(|| format!("opencode reported {}", name.unwrap_or("an error")));
    let code = count_field(data, "statusCode")
        .map(|s| format!("http_{s}"))
        .or_else(|| name.map(str::to_owned));
    out.fail("error", &message, code.as_deref());
}
