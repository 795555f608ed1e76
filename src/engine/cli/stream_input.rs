//! The lines a CLI with streaming input reads on stdin, and what the
//! session needs from the lines it prints: Claude Code's
//! `--input-format stream-json` (checked on a real run, `docs/sessions-cli.md`).
//! A turn is one `user` line; it ends at the `result` line. A
//! `control_request` (`interrupt`, `set_model`) is answered by a
//! `control_response` with its `request_id`.

use serde_json::{json, Value};

/// One user message: the turn's prompt.
pub fn user_line(text: &str) -> String {
    let line = json!({"type": "user", "message": {"role": "user",
        "content": [{"type": "text", "text": text}]}});
    format!("{line}\n")
}

/// A control request (`{"subtype": "interrupt"}`, `{"subtype":
/// "set_model", "model": …}`) under `request_id`.
pub fn control_line(request_id: &str, request: Value) -> String {
    let line = json!({"type": "control_request", "request_id": request_id, "request": request});
    format!("{line}\n")
}

/// What a printed line means to the session (the turn's reply parser
/// reads every line apart from this).
#[derive(Clone, Debug, PartialEq)]
pub enum LineKind {
    /// The turn's last line.
    Result,
    /// The answer to control request `request_id`: `Err(message)` when refused.
    ControlResponse {
        request_id: String,
        outcome: std::result::Result<(), String>,
    },
    Other,
}

/// Reads `line`: only the two kinds that matter are parsed whole.
pub fn line_kind(line: &[u8]) -> LineKind {
    let finder = |needle: &str| memchr::memmem::find(line, needle.as_bytes()).is_some();
    let result = finder("\"type\":\"result\"");
    let control = finder("\"type\":\"control_response\"");
    if !result && !control {
        return LineKind::Other;
    }
    let Ok(value) = serde_json::from_slice::<Value>(line) else {
        return LineKind::Other;
    };
    match value.get("type").and_then(Value::as_str) {
        Some("result") => LineKind::Result,
        Some("control_response") => {
            let response = value.get("response").unwrap_or(&Value::Null);
            let request_id = response
                .get("request_id")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let outcome = match response.get("subtype").and_then(Value::as_str) {
                Some("success") => Ok(()),
                _ => Err(response
                    .get("error")
                    .and_then(Value::as_str)
                    .unwrap_or("refused")
                    .to_owned()),
            };
            LineKind::ControlResponse {
                request_id,
                outcome,
            }
        }
        _ => LineKind::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_written_and_read() {
        assert_eq!(
            user_line("Hi \"you\""),
            "{\"type\":\"user\",\"message\":{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":\"Hi \\\"you\\\"\"}]}}\n"
        );
        let interrupt = control_line("r1", json!({"subtype": "interrupt"}));
        let back: Value = serde_json::from_str(interrupt.trim_end()).unwrap();
        assert_eq!(back["request"]["subtype"], "interrupt");
        assert_eq!(back["request_id"], "r1");
        assert_eq!(
            line_kind(br#"{"duration_ms":3,"type":"result","subtype":"success"}"#),
            LineKind::Result
        );
        assert_eq!(
            line_kind(br#"{"type":"control_response","response":{"subtype":"success","request_id":"m1","response":{}}}"#),
            LineKind::ControlResponse { request_id: "m1".into(), outcome: Ok(()) }
        );
        assert_eq!(
            line_kind(br#"{"type":"control_response","response":{"subtype":"error","request_id":"m2","error":"no such model"}}"#),
            LineKind::ControlResponse { request_id: "m2".into(), outcome: Err("no such model".into()) }
        );
        // A text that quotes a result line is not one.
        assert_eq!(
            line_kind(br#"{"type":"assistant","message":{"content":[{"type":"text","text":"\"type\":\"result\""}]}}"#),
            LineKind::Other
        );
        assert_eq!(line_kind(b"not json \"type\":\"result\""), LineKind::Other);
    }
}
