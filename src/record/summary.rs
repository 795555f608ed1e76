//! A session at a glance, from its record: what a store's `list()` shows.

use serde::Serialize;
use serde_json::Value;

use super::entry::Relation;
use super::read::{read_record, ReadOptions, RecordRead};
use crate::agent_output::Usage;
use crate::error::Result;

/// The most characters of the first prompt a title keeps.
pub const TITLE_CHARS: usize = 80;

/// Where a session stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Not closed, and no turn left unfinished by a writer that is gone.
    Open,
    Closed,
    /// Its last turn never ended and nothing writes it any more.
    Interrupted,
}

/// The session another one came from.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LinkedFrom {
    pub session_id: String,
    pub agent_type: String,
    pub relation: Relation,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub session_id: String,
    pub agent_type: String,
    /// `acp` or `cli`.
    pub protocol: String,
    pub cd: String,
    /// The first prompt, on one line, shortened.
    pub title: String,
    pub created_at: u64,
    pub updated_at: u64,
    pub turns: u32,
    /// Every turn's usage, summed.
    pub usage: Usage,
    pub status: Status,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linked_from: Option<LinkedFrom>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub team_id: Option<String>,
}

/// The summary of the record `record`; `writing` says whether a writer
/// still holds it (a turn it has not ended yet is then running, not
/// interrupted).
pub fn summarize(record: &[u8], writing: bool) -> Result<SessionSummary> {
    Ok(summarize_read(
        &read_record(record, ReadOptions::default())?,
        writing,
    ))
}

/// [`summarize`] of what was read already.
pub fn summarize_read(read: &RecordRead<'_>, writing: bool) -> SessionSummary {
    let header = read.header.as_ref();
    let mut summary = SessionSummary {
        session_id: header.map(|h| h.session_id.clone()).unwrap_or_default(),
        agent_type: header.map(|h| h.agent_type.clone()).unwrap_or_default(),
        protocol: String::new(),
        cd: String::new(),
        title: String::new(),
        created_at: header
            .map(|h| h.created_at)
            .or_else(|| read.lines.first().map(|l| l.at))
            .unwrap_or_default(),
        updated_at: read.lines.last().map_or(0, |l| l.at),
        turns: 0,
        usage: Usage::default(),
        status: Status::Open,
        linked_from: None,
        team_id: None,
    };
    let (mut closed, mut unfinished) = (false, false);
    // Only the kinds a summary reads are parsed.
    let parsed = |text: &[u8]| -> Value {
        std::str::from_utf8(text)
            .ok()
            .and_then(|t| serde_json::from_str(t).ok())
            .unwrap_or(Value::Null)
    };
    let text_of =
        |value: &Value, key: &str| value.get(key).and_then(Value::as_str).map(str::to_owned);
    for line in &read.lines {
        match &*line.kind {
            "opened" => {
                closed = false;
                let opened = parsed(line.text);
                summary.agent_type = text_of(&opened, "agentType").unwrap_or_default();
                summary.protocol = text_of(&opened, "protocol").unwrap_or_default();
                summary.cd = text_of(&opened, "cd").unwrap_or_default();
                if let Some(team) = text_of(&opened, "teamId") {
                    summary.team_id = Some(team);
                }
            }
            "team" => {
                // A team's own record: its task is its title.
                let team = parsed(line.text);
                summary.cd = text_of(&team, "cd").unwrap_or_default();
                summary.title = text_of(&team, "teamTask")
                    .map(|t| title_of(&t))
                    .unwrap_or_default();
                summary.team_id = Some(summary.session_id.clone());
            }
            "member" | "message" => closed = false,
            "request" => {
                summary.turns += 1;
                unfinished = true;
                if summary.title.is_empty() {
                    if let Some(text) = text_of(&parsed(line.text), "text") {
                        summary.title = title_of(&text);
                    }
                }
            }
            "turnEnd" => {
                unfinished = false;
                if let Some(usage) = parsed(line.text).get("usage") {
                    summary.usage.add(&usage_of(usage));
                }
            }
            "interrupted" => unfinished = false,
            "closed" => (closed, unfinished) = (true, false),
            "resumed" | "loaded" | "restarted" => closed = false,
            "link" if summary.linked_from.is_none() => {
                let link = parsed(line.text);
                let relation = link
                    .get("relation")
                    .and_then(Value::as_str)
                    .and_then(Relation::parse);
                if let (Some(relation), Some(session_id)) = (relation, text_of(&link, "sessionId"))
                {
                    if relation.is_from() {
                        summary.linked_from = Some(LinkedFrom {
                            session_id,
                            agent_type: text_of(&link, "agentType").unwrap_or_default(),
                            relation,
                        });
                    }
                }
            }
            _ => {}
        }
    }
    summary.status = match (closed, unfinished && !writing) {
        (true, _) => Status::Closed,
        (false, true) => Status::Interrupted,
        (false, false) => Status::Open,
    };
    summary
}

/// A usage as an entry holds it (`Usage`'s fields, camelCase).
pub fn usage_of(value: &Value) -> Usage {
    let count = |key: &str| value.get(key).and_then(Value::as_u64);
    Usage {
        input_tokens: count("inputTokens"),
        cached_input_tokens: count("cachedInputTokens"),
        output_tokens: count("outputTokens"),
        total_tokens: count("totalTokens"),
        duration_ms: count("durationMs"),
        cost_usd: value.get("costUsd").and_then(Value::as_f64),
        reasoning_output_tokens: count("reasoningOutputTokens"),
        cache_write_input_tokens: count("cacheWriteInputTokens"),
        models: value
            .get("models")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice)
            .iter()
            .filter_map(|m| {
                Some(crate::agent_output::ModelUsage {
                    model: m.get("model")?.as_str()?.to_owned(),
                    usage: usage_of(m.get("usage")?),
                })
            })
            .collect(),
        context_tokens: count("contextTokens"),
        context_window: count("contextWindow"),
    }
}

/// `text` on one line (every run of white space one space), at most
/// [`TITLE_CHARS`] characters, `…` ending a cut one.
pub fn title_of(text: &str) -> String {
    let mut title = String::new();
    let mut chars = 0;
    for word in text.split_whitespace() {
        if chars > TITLE_CHARS {
            break;
        }
        if !title.is_empty() {
            title.push(' ');
            chars += 1;
        }
        title.push_str(word);
        chars += word.chars().count();
    }
    if chars > TITLE_CHARS {
        let cut = title
            .char_indices()
            .nth(TITLE_CHARS - 1)
            .map_or(title.len(), |(i, _)| i);
        title.truncate(cut);
        title.push('…');
    }
    title
}
