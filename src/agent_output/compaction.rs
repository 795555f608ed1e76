//! The agent's own context compaction (ACP `compaction_update` and
//! `compaction_summary_chunk`, sent only to a client that advertises
//! `session.compaction`) and its live notices (`notice`, sent only to a
//! client that advertises `session.notices`), as the reply model holds them.
//!
//! A compaction is an entity addressed by its `compactionId`: the first
//! update fixes its place, later ones patch it (`summary` and `error`:
//! left out keeps the value, `null` or `[]` clears it, a value replaces
//! it), and each summary chunk appends a content block. The summary is
//! kept as text: its text blocks joined; a summary of other blocks only
//! (an image, an encrypted resource) is opaque and reads as none.
//!
//! ```
//! use agent_context::agent_output::compaction::Compactions;
//! use serde_json::json;
//!
//! let mut c = Compactions::default();
//! c.update(&json!({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "in_progress"}));
//! c.update(&json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "k1",
//!     "content": {"type": "text", "text": "We chose SQLite."}}));
//! let done = c.update(&json!({"sessionUpdate": "compaction_update", "compactionId": "k1", "status": "completed"})).unwrap();
//! assert_eq!(done.summary.as_deref(), Some("We chose SQLite."));
//! assert!(done.is_terminal());
//! ```

use serde::Serialize;
use serde_json::Value;

/// One compaction as it stands.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Compaction {
    /// The agent's `compactionId`.
    pub id: String,
    /// `in_progress`, `completed`, `failed`, `cancelled` (or a value of a
    /// later protocol, kept as sent).
    pub status: String,
    /// The summary's text so far (its text blocks joined); none when the
    /// agent sent none, or only blocks that are not text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The agent's words for a failure.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Compaction {
    /// Whether the compaction is over (`completed`, `failed`, `cancelled`).
    pub fn is_terminal(&self) -> bool {
        is_terminal(&self.status)
    }
}

/// Whether `status` ends a compaction.
pub fn is_terminal(status: &str) -> bool {
    matches!(status, "completed" | "failed" | "cancelled")
}

/// A live notice for the user (ACP `notice`): never part of the history.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Notice {
    /// `info`, `warning`, `error` (or a value of a later protocol, as sent).
    pub severity: String,
    pub title: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl Notice {
    /// A `notice` update read; `None` when it has no title (the protocol
    /// requires one).
    pub fn read(update: &Value) -> Option<Notice> {
        let text = |key: &str| update.get(key).and_then(Value::as_str).map(str::to_owned);
        let title = text("title").filter(|t| !t.is_empty())?;
        Some(Notice {
            severity: text("severity").unwrap_or_else(|| "info".to_owned()),
            title,
            description: text("description").filter(|d| !d.is_empty()),
        })
    }
}

/// The compactions of one session or transcript, in the order first seen.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Compactions {
    list: Vec<Compaction>,
}

impl Compactions {
    /// Applies a `compaction_update` or `compaction_summary_chunk` update:
    /// the compaction as it stands after it, `None` for an update without a
    /// `compactionId` (or of another kind).
    pub fn update(&mut self, update: &Value) -> Option<&Compaction> {
        let kind = update.get("sessionUpdate").and_then(Value::as_str)?;
        let id = update.get("compactionId").and_then(Value::as_str)?;
        let at = match self.list.iter().position(|c| c.id == id) {
            Some(at) => at,
            None => {
                self.list.push(Compaction {
                    id: id.to_owned(),
                    status: "in_progress".to_owned(),
                    summary: None,
                    error: None,
                });
                self.list.len() - 1
            }
        };
        let c = &mut self.list[at];
        match kind {
            "compaction_update" => {
                if let Some(status) = update.get("status").and_then(Value::as_str) {
                    c.status = status.to_owned();
                }
                match update.get("summary") {
                    None => {}
                    Some(Value::Array(blocks)) => c.summary = text_of(blocks),
                    Some(_) => c.summary = None,
                }
                match update.get("error") {
                    None => {}
                    Some(Value::String(e)) if !e.is_empty() => c.error = Some(e.clone()),
                    Some(_) => c.error = None,
                }
            }
            "compaction_summary_chunk" => {
                if let Some(piece) = update.get("content").and_then(block_text) {
                    c.summary.get_or_insert_with(String::new).push_str(piece);
                }
            }
            _ => return None,
        }
        Some(&self.list[at])
    }

    /// Every compaction, in the order first seen.
    pub fn all(&self) -> &[Compaction] {
        &self.list
    }
}

/// The text of a text block.
fn block_text(block: &Value) -> Option<&str> {
    (block.get("type").and_then(Value::as_str) == Some("text"))
        .then(|| block.get("text").and_then(Value::as_str))
        .flatten()
}

/// The text blocks of a summary joined; none when it holds none.
fn text_of(blocks: &[Value]) -> Option<String> {
    let texts: Vec<&str> = blocks.iter().filter_map(block_text).collect();
    (!texts.is_empty()).then(|| texts.concat())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn update(id: &str, fields: Value) -> Value {
        let mut u = json!({"sessionUpdate": "compaction_update", "compactionId": id});
        for (k, v) in fields.as_object().unwrap() {
            u[k] = v.clone();
        }
        u
    }

    #[test]
    fn updates_patch_and_chunks_append() {
        let mut c = Compactions::default();
        let first = c
            .update(
                &json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "a",
                "content": {"type": "text", "text": "One. "}}),
            )
            .unwrap()
            .clone();
        assert_eq!(first.status, "in_progress", "a first chunk opens it");
        c.update(
            &json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "a",
            "content": {"type": "image", "data": "", "mimeType": "image/png"}}),
        );
        c.update(
            &json!({"sessionUpdate": "compaction_summary_chunk", "compactionId": "a",
            "content": {"type": "text", "text": "Two."}}),
        );
        let done = c
            .update(&update("a", json!({"status": "completed"})))
            .unwrap();
        assert_eq!(done.summary.as_deref(), Some("One. Two."), "left out: kept");
        let replaced = c
            .update(&update(
                "a",
                json!({"summary": [{"type": "text", "text": "All."}]}),
            ))
            .unwrap();
        assert_eq!(replaced.summary.as_deref(), Some("All."));
        assert_eq!(replaced.status, "completed", "status left out: kept");
        let cleared = c.update(&update("a", json!({"summary": []}))).unwrap();
        assert_eq!(cleared.summary, None);
        c.update(&update(
            "a",
            json!({"summary": [{"type": "text", "text": "x"}]}),
        ));
        assert_eq!(
            c.update(&update("a", json!({"summary": null})))
                .unwrap()
                .summary,
            None
        );
        let failed = c
            .update(&update(
                "b",
                json!({"status": "failed", "error": "too long"}),
            ))
            .unwrap();
        assert_eq!(failed.error.as_deref(), Some("too long"));
        assert!(failed.is_terminal());
        assert_eq!(c.all().len(), 2);
        assert!(c
            .update(&json!({"sessionUpdate": "compaction_update"}))
            .is_none());
    }

    #[test]
    fn an_opaque_summary_reads_as_none() {
        let mut c = Compactions::default();
        let done = c
            .update(&update(
                "k",
                json!({"status": "completed", "summary": [{"type": "resource", "resource": {"uri": "x:enc", "blob": "AAAA"}}]}),
            ))
            .unwrap();
        assert_eq!(done.summary, None);
    }

    #[test]
    fn a_notice_needs_a_title() {
        let n = Notice::read(&json!({"sessionUpdate": "notice", "severity": "warning", "title": "Model fallback", "description": null})).unwrap();
        assert_eq!(
            n,
            Notice {
                severity: "warning".into(),
                title: "Model fallback".into(),
                description: None
            }
        );
        assert!(
            Notice::read(&json!({"sessionUpdate": "notice", "severity": "info", "title": ""}))
                .is_none()
        );
        assert_eq!(
            serde_json::to_value(
                Notice::read(&json!({"severity": "error", "title": "T", "description": "D"}))
                    .unwrap()
            )
            .unwrap(),
            json!({"severity": "error", "title": "T", "description": "D"})
        );
    }
}
