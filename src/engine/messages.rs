//! The pieces of JSON-RPC messages the engine reads and writes that need
//! no state: a line as a JSON object, the response to a permission from the
//! host's answer, a file's lines as `fs/read_text_file` asks for them.

use serde_json::{json, Value};

use crate::acp::permission::{self, Decision, Policy};

/// The host's permission answer as the response, `None` for the policy's.
pub(super) fn permission_choice(
    params: &Value,
    answer: &Value,
) -> crate::error::Result<Option<Value>> {
    use crate::error::AgentContextError;
    let options = params
        .get("options")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    let offered = || {
        options
            .iter()
            .filter_map(|o| o.get("optionId").and_then(Value::as_str))
            .map(|id| format!("'{id}'"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    if let Some(id) = answer.get("optionId").and_then(Value::as_str) {
        let known = options
            .iter()
            .any(|o| o.get("optionId").and_then(Value::as_str) == Some(id));
        if !known {
            return Err(AgentContextError::invalid(format!(
                "onPermission answered optionId \"{id}\", which the agent did not offer (offered: {})",
                offered()
            )));
        }
        return Ok(Some(
            json!({"outcome": {"outcome": "selected", "optionId": id}}),
        ));
    }
    if answer.get("cancelled").and_then(Value::as_bool) == Some(true) {
        return Ok(Some(json!({"outcome": {"outcome": "cancelled"}})));
    }
    match answer.get("decision").and_then(Value::as_str) {
        None => Ok(None),
        Some(text) => {
            let decision = Decision::parse(text).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "onPermission must answer an optionId the agent offered ({}) or 'allow', 'allow_always' or 'reject', got \"{text}\"",
                    offered()
                ))
            })?;
            let policy = Policy::All;
            let (_, response) = permission::answer(params, policy, "", Some(decision));
            Ok(Some(response))
        }
    }
}

/// The lines `line` (1-based) to `line + limit` of `content`.
pub(super) fn slice_lines(content: &str, line: Option<u64>, limit: Option<u64>) -> String {
    if line.is_none() && limit.is_none() {
        return content.to_owned();
    }
    let from = line.unwrap_or(1).saturating_sub(1) as usize;
    let lines: Vec<&str> = content.split('\n').collect();
    let to = match limit {
        Some(l) => from.saturating_add(l as usize).min(lines.len()),
        None => lines.len(),
    };
    if from >= lines.len() {
        return String::new();
    }
    lines[from..to].join("\n")
}

pub(super) fn parse_object(line: &[u8]) -> Option<Value> {
    let start = line.iter().position(|b| !b.is_ascii_whitespace())?;
    if line[start] != b'{' {
        return None;
    }
    serde_json::from_slice::<Value>(line)
        .ok()
        .filter(Value::is_object)
}

/// The value of the first `"sessionId"` key in a JSON line, read from its
/// bytes (a key: inside a string its quotes would be escaped).
pub(super) fn session_id_in(line: &[u8]) -> Option<&str> {
    const KEY: &[u8] = b"\"sessionId\"";
    let at = line.windows(KEY.len()).position(|w| w == KEY)? + KEY.len();
    let rest = &line[at..];
    let skip = |b: &[u8]| {
        b.iter()
            .position(|c| !c.is_ascii_whitespace())
            .unwrap_or(b.len())
    };
    let rest = &rest[skip(rest)..];
    let rest = rest.strip_prefix(b":")?;
    let rest = &rest[skip(rest)..];
    let rest = rest.strip_prefix(b"\"")?;
    let end = rest.iter().position(|&c| c == b'"' || c == b'\\')?;
    if rest[end] != b'"' {
        return None;
    }
    std::str::from_utf8(&rest[..end]).ok()
}
