//! What a summary reads of entries' fields: a usage as an entry holds it,
//! and a prompt made a title.

use std::borrow::Cow;

use serde::Deserialize;
use serde_json::Value;

use crate::agent_output::Usage;

/// The most characters of the first prompt a title keeps.
pub const TITLE_CHARS: usize = 80;

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

/// What is read of a `turnEnd` line: its usage and the agent session it
/// names. Read as this struct, not as a whole value: the other fields are
/// skipped without being kept (a long conversation has one a turn).
#[derive(Debug, Default, Deserialize)]
pub struct EndFields<'a> {
    #[serde(default)]
    pub usage: Option<Usage>,
    #[serde(default, rename = "agentSessionId", borrow)]
    pub agent_session_id: Option<Cow<'a, str>>,
}

/// [`EndFields`] with the usage as written, for a line whose usage is not
/// as the recorder writes one (read field by field by [`usage_of`]).
#[derive(Default, Deserialize)]
struct LooseEndFields<'a> {
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default, rename = "agentSessionId", borrow)]
    agent_session_id: Option<Cow<'a, str>>,
}

impl<'a> EndFields<'a> {
    /// The fields of `line` (none when it is not an object).
    pub fn of(line: &'a [u8]) -> EndFields<'a> {
        serde_json::from_slice(line).unwrap_or_else(|_| {
            let loose: LooseEndFields<'a> = serde_json::from_slice(line).unwrap_or_default();
            EndFields {
                usage: loose.usage.as_ref().map(usage_of),
                agent_session_id: loose.agent_session_id,
            }
        })
    }
}
