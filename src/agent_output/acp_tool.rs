//! What the ACP reader takes from a tool call: its fields, its input and
//! output as text.

use std::borrow::Cow;

use serde_json::Value;

use super::acp_value::checked_value;
use super::json::{output_text, str_field};

/// What [`AcpReader::tool`] reads of a tool call.
pub(super) struct ToolFields<'a> {
    pub(super) id: Option<&'a str>,
    pub(super) status: Option<&'a str>,
    pub(super) kind: Option<&'a str>,
    pub(super) title: Option<&'a str>,
    pub(super) meta: Option<&'a Value>,
    pub(super) content: Option<&'a Value>,
    pub(super) raw_output: Option<&'a Value>,
}

impl<'a> ToolFields<'a> {
    /// The fields of a tool call read by the general reader.
    pub(super) fn of(tool: &'a Value) -> Self {
        ToolFields {
            id: str_field(tool, "toolCallId"),
            status: str_field(tool, "status"),
            kind: str_field(tool, "kind"),
            title: str_field(tool, "title"),
            meta: tool.get("_meta"),
            content: tool.get("content"),
            raw_output: tool.get("rawOutput"),
        }
    }
}

/// A field's raw text (checked by the scanner) as `str_field` reads it: the
/// string it is, borrowed when it has no escapes, `Some(None)` when it is
/// no string or not there; `None` when it is not UTF-8.
pub(super) fn raw_str(raw: Option<&[u8]>) -> Option<Option<Cow<'_, str>>> {
    match raw {
        Some([b'"', inner @ .., b'"']) if !inner.contains(&b'\\') => std::str::from_utf8(inner)
            .ok()
            .map(|s| Some(Cow::Borrowed(s))),
        Some(raw @ [b'"', ..]) => match json_value(raw)? {
            Value::String(s) => Some(Some(Cow::Owned(s))),
            _ => Some(None),
        },
        _ => Some(None),
    }
}

/// A finished tool's output: its `content` blocks' text (a diff as its
/// path and new text), else `rawOutput` (a string, or the `output` /
/// `content` / `stdout` string of an object, else its JSON). This is the
/// first part; [`raw_output`] the second.
pub(super) fn content_output(content: Option<&Value>) -> Option<String> {
    let blocks = content.and_then(Value::as_array);
    let texts: Vec<String> = blocks
        .into_iter()
        .flatten()
        .filter_map(|block| match str_field(block, "type") {
            Some("content") => block
                .get("content")
                .and_then(|c| str_field(c, "text"))
                .map(str::to_owned),
            Some("diff") => Some(format!(
                "{}\n{}",
                str_field(block, "path").unwrap_or_default(),
                str_field(block, "newText").unwrap_or_default()
            )),
            _ => None,
        })
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The text of a tool's `rawOutput`: an MCP tool's result
/// (`{ result: { content: [{ type: "text", text }] } }`, Codex's adapter)
/// is the text of its blocks.
pub(super) fn raw_output(raw_output: &Value) -> Option<String> {
    match raw_output {
        Value::String(s) if s.is_empty() => None,
        Value::Object(o) => ["output", "content", "stdout"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str).map(str::to_owned))
            .or_else(|| mcp_result_text(o.get("result")?))
            .or_else(|| output_text(&Value::Object(o.clone()))),
        other => output_text(other),
    }
}

/// The text blocks of an MCP `CallToolResult`, one a line.
fn mcp_result_text(result: &Value) -> Option<String> {
    let texts: Vec<&str> = result
        .get("content")?
        .as_array()?
        .iter()
        .filter(|b| str_field(b, "type") == Some("text"))
        .filter_map(|b| str_field(b, "text"))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n"))
}

/// The raw text of a JSON value the scanner checked, as a `Value`: read
/// directly ([`checked_value`]) where that reads it as serde_json would,
/// else by serde_json (`from_str`, the reader the general path links
/// already). `None` when it is not UTF-8.
pub(super) fn json_value(raw: &[u8]) -> Option<Value> {
    checked_value(raw).or_else(|| serde_json::from_str(std::str::from_utf8(raw).ok()?).ok())
}
