//! What single fields of an ACP update say, for the reader (`acp.rs`):
//! a notice rather than the answer, the part of `_meta` that names a tool,
//! a new session, a text's ASCII start, a chunk's text.

use agent_context_scan::acp_update::{self, Update};
use agent_context_scan::unit::Unit;
use serde_json::Value;

use super::acp_tool::json_value;
use super::builder::ReplyBuilder;
use super::json::str_field;
use crate::agents::{AcpQuirks, AcpToolName};

/// Whether a message chunk's `_meta` marks it as Claude Code's notice
/// (`claudeCode.kind: informational`) rather than the answer.
pub(super) fn is_notice(quirks: AcpQuirks, meta: Option<&Value>) -> bool {
    quirks.informational_notices
        && meta
            .and_then(|m| m.get("claudeCode"))
            .and_then(|c| str_field(c, "kind"))
            == Some("informational")
}

/// The part of a tool update's `_meta` that names the tool (Claude's
/// `claudeCode.toolName`, Qwen's `toolName`), the rest left out; all of it
/// when that part cannot be picked from the raw text alone. `None` when it
/// is not UTF-8.
pub(super) fn tool_name_meta(tool_name: AcpToolName, meta: &[u8]) -> Option<Value> {
    let picked = (|| {
        let mut object = serde_json::Map::new();
        if tool_name == AcpToolName::ClaudeCodeMeta {
            let Some(claude) = acp_update::field(meta, b"claudeCode")? else {
                return Some(Some(Value::Object(object)));
            };
            let mut inner = serde_json::Map::new();
            if let Some(name) = acp_update::field(claude, b"toolName")? {
                inner.insert("toolName".to_owned(), json_value(name)?);
            }
            if let Some(parent) = acp_update::field(claude, b"parentToolUseId")? {
                inner.insert("parentToolUseId".to_owned(), json_value(parent)?);
            }
            object.insert("claudeCode".to_owned(), Value::Object(inner));
        } else if let Some(name) = acp_update::field(meta, b"toolName")? {
            object.insert("toolName".to_owned(), json_value(name)?);
        }
        Some(Some(Value::Object(object)))
    })();
    match picked {
        Some(value) => value,
        None => json_value(meta),
    }
}

/// The update's session id when the reply has none yet (`Some(None)` when
/// it has one or the line names none); `None` when the id is not ASCII
/// (the general reader decides).
pub(super) fn new_session(update: &Update<'_, u8>, out: &ReplyBuilder) -> Option<Option<String>> {
    match update.session_id {
        Some(id) if !out.has_session() => ascii(id).map(Some),
        _ => Some(None),
    }
}

/// Whether UTF-16 `text` starts with `prefix`.
pub(super) fn starts_with_str(text: &[u16], prefix: &str) -> bool {
    let mut units = text.iter();
    prefix.encode_utf16().all(|u| units.next() == Some(&u))
}

/// ASCII units as a string; `None` for anything else.
pub(super) fn ascii<U: Unit>(units: &[U]) -> Option<String> {
    ascii_len(units)?;
    Some(units.iter().map(|u| char::from(u.value() as u8)).collect())
}

pub(super) fn ascii_len<U: Unit>(units: &[U]) -> Option<usize> {
    units
        .iter()
        .all(|u| u.value() < 0x80)
        .then_some(units.len())
}

/// The text of an update's `content` block (`{ type: 'text', text }`).
pub(super) fn content_text(update: &Value) -> Option<&str> {
    let content = update.get("content")?;
    match str_field(content, "type") {
        Some("text") | None => str_field(content, "text"),
        _ => None,
    }
}
