//! Numbers the ACP reader takes from an agent's lines: usage (ACP's, and
//! Gemini's `_meta.quota`), a cost, an HTTP status in an error's words.

use serde_json::Value;

use super::json::{count_field, number_field, str_field};
use super::reply::{ModelUsage, Usage};
use crate::agents::AcpQuirks;

/// ACP's usage object (`inputTokens`, `outputTokens`, `cachedReadTokens`,
/// `cachedWriteTokens`, `thoughtTokens`, `totalTokens`). opencode leaves the
/// cached tokens out of `inputTokens` ([`AcpQuirks::input_excludes_cached`]);
/// here they are part of it.
pub(super) fn acp_usage(usage: &Value, quirks: AcpQuirks) -> Usage {
    let read = count_field(usage, "cachedReadTokens");
    let written = count_field(usage, "cachedWriteTokens");
    let input = count_field(usage, "inputTokens").map(|i| {
        if quirks.input_excludes_cached {
            i + read.unwrap_or(0) + written.unwrap_or(0)
        } else {
            i
        }
    });
    Usage {
        input_tokens: input,
        cached_input_tokens: read,
        output_tokens: count_field(usage, "outputTokens"),
        total_tokens: count_field(usage, "totalTokens"),
        reasoning_output_tokens: count_field(usage, "thoughtTokens").filter(|&n| n > 0),
        cache_write_input_tokens: written.filter(|&n| n > 0),
        ..Usage::default()
    }
}

/// Gemini's `_meta.quota`: `token_count { input_tokens, output_tokens }`
/// and the same per model in `model_usage`.
pub(super) fn gemini_quota(quota: &Value) -> Usage {
    let counts = |v: &Value| {
        let input = count_field(v, "input_tokens");
        let output = count_field(v, "output_tokens");
        Usage {
            input_tokens: input,
            output_tokens: output,
            total_tokens: input.zip(output).map(|(i, o)| i + o),
            ..Usage::default()
        }
    };
    let mut usage = quota.get("token_count").map(counts).unwrap_or_default();
    usage.models = quota
        .get("model_usage")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|m| {
            Some(ModelUsage {
                model: str_field(m, "model")?.to_owned(),
                usage: m.get("token_count").map(counts).unwrap_or_default(),
            })
        })
        .collect();
    usage
}

/// A cost in US dollars (`{ amount, currency: 'USD' }`).
pub(super) fn usd(cost: &Value) -> Option<f64> {
    (str_field(cost, "currency") == Some("USD"))
        .then(|| number_field(cost, "amount"))
        .flatten()
}

/// An HTTP status in an error message: after "API Error: " (Claude), or
/// the message's (or its detail's) first word (Qwen's "400 Mock …").
pub(super) fn http_status_in(message: &str) -> Option<u64> {
    const API_ERROR: &str = "API Error: ";
    if let Some(at) = find(message, API_ERROR) {
        return leading_status(&message[at + API_ERROR.len()..]);
    }
    let mut rest = message;
    loop {
        if let Some(status) = leading_status(rest) {
            return Some(status);
        }
        rest = &rest[find(rest, ": ")? + 2..];
    }
}

/// Where `needle` first occurs in `text` (a plain loop: error messages are
/// short, and the standard two-way searcher is kilobytes of code).
pub(super) fn find(text: &str, needle: &str) -> Option<usize> {
    if needle.is_empty() {
        return Some(0);
    }
    text.as_bytes()
        .windows(needle.len())
        .position(|window| window == needle.as_bytes())
}

/// `text` starting with a 4xx/5xx status and a space.
pub(super) fn leading_status(text: &str) -> Option<u64> {
    let digits = text.get(..3)?;
    let rest = &text[3..];
    if !digits.bytes().all(|b| b.is_ascii_digit()) || !(rest.is_empty() || rest.starts_with(' ')) {
        return None;
    }
    digits.parse().ok().filter(|s| (400..600).contains(s))
}
