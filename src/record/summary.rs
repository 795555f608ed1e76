//! A session at a glance, from its record: what a store's `list()` shows.

use serde::{Deserialize, Serialize};

use super::entry::{Link, Opened, Relation};
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

#[derive(Deserialize)]
struct TextOf {
    text: String,
}

#[derive(Deserialize)]
struct UsageOf {
    #[serde(default)]
    usage: Option<Usage>,
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
    for line in &read.lines {
        match &*line.kind {
            "opened" => {
                closed = false;
                if let Ok(opened) = serde_json::from_slice::<Opened>(line.text) {
                    summary.agent_type = opened.agent_type;
                    summary.protocol = opened.protocol;
                    summary.cd = opened.cd;
                    if opened.team_id.is_some() {
                        summary.team_id = opened.team_id;
                    }
                }
            }
            "request" => {
                summary.turns += 1;
                unfinished = true;
                if summary.title.is_empty() {
                    if let Ok(request) = serde_json::from_slice::<TextOf>(line.text) {
                        summary.title = title_of(&request.text);
                    }
                }
            }
            "turnEnd" => {
                unfinished = false;
                if let Ok(UsageOf { usage: Some(usage) }) = serde_json::from_slice(line.text) {
                    summary.usage.add(&usage);
                }
            }
            "interrupted" => unfinished = false,
            "closed" => (closed, unfinished) = (true, false),
            "resumed" | "loaded" | "restarted" => closed = false,
            "link" if summary.linked_from.is_none() => {
                if let Ok(link) = serde_json::from_slice::<Link>(line.text) {
                    if link.relation.is_from() {
                        summary.linked_from = Some(LinkedFrom {
                            session_id: link.session_id,
                            agent_type: link.agent_type,
                            relation: link.relation,
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
