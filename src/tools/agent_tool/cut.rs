//! A `result` longer than `max_result_chars` characters (Unicode scalar
//! values) is cut: its head and its tail kept around §3's marker
//! `\n[... truncated N bytes ...]\n` (N = UTF-8 bytes removed), the whole
//! cut text, marker included, within the limit. The whole reply is then
//! written to a file (the host writes it) named in the envelope as
//! `result_file`, right after `result`.

use serde_json::{Map, Value};

use crate::prompt::text::decimal_digits;
use crate::prompt::truncate::{marker_len, MARKER_CLOSE, MARKER_OPEN};

/// An envelope within its limit, and the whole `result` to write to
/// `result_file` when it was cut.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Bounded {
    pub envelope: Value,
    pub full_result: Option<String>,
}

/// `text` cut to at most `max_chars` characters, half of what is kept from
/// its head and half from its tail; `None` when it already fits. A limit
/// too small for the marker keeps no text at all, only the marker.
pub fn cut_chars(text: &str, max_chars: usize) -> Option<String> {
    let chars = text.chars().count();
    if chars <= max_chars {
        return None;
    }
    // The marker's width with the most digits N can have (the whole text).
    let overhead = (marker_len(0) - 1 + decimal_digits(text.len() as u64)) as usize;
    let keep = max_chars.saturating_sub(overhead);
    let head_chars = keep.div_ceil(2);
    let tail_chars = keep - head_chars;
    let head_end = text
        .char_indices()
        .nth(head_chars)
        .map_or(text.len(), |(at, _)| at);
    let tail_start = if tail_chars == 0 {
        text.len()
    } else {
        text.char_indices()
            .nth_back(tail_chars - 1)
            .map_or(head_end, |(at, _)| at)
    };
    let removed = tail_start - head_end;
    let mut out = String::with_capacity(head_end + (text.len() - tail_start) + overhead);
    out.push_str(&text[..head_end]);
    out.push_str(MARKER_OPEN);
    out.push_str(&removed.to_string());
    out.push_str(MARKER_CLOSE);
    out.push_str(&text[tail_start..]);
    Some(out)
}

/// `envelope` with its `result` cut to `max_chars` and `result_file`
/// after it when it was longer; unchanged (and no file) otherwise.
pub fn bound_envelope(envelope: Value, max_chars: usize, result_file: &str) -> Bounded {
    let Value::Object(map) = envelope else {
        return Bounded {
            envelope,
            full_result: None,
        };
    };
    let cut = map
        .get("result")
        .and_then(Value::as_str)
        .and_then(|text| cut_chars(text, max_chars));
    let Some(cut) = cut else {
        return Bounded {
            envelope: Value::Object(map),
            full_result: None,
        };
    };
    let mut out = Map::with_capacity(map.len() + 1);
    let mut full = None;
    for (key, value) in map {
        if key == "result" {
            full = value.as_str().map(str::to_owned);
            out.insert(key, Value::String(cut.clone()));
            out.insert(
                "result_file".to_owned(),
                Value::String(result_file.to_owned()),
            );
        } else {
            out.insert(key, value);
        }
    }
    Bounded {
        envelope: Value::Object(out),
        full_result: full,
    }
}

/// The file could not be written: `result_file` gives way to
/// `result_file_error`, saying why (the cut `result` stays).
pub fn without_result_file(envelope: Value, error: &str) -> Value {
    let Value::Object(map) = envelope else {
        return envelope;
    };
    let out = map
        .into_iter()
        .map(|(key, value)| {
            if key == "result_file" {
                (
                    "result_file_error".to_owned(),
                    Value::String(format!("the whole result could not be written: {error}")),
                )
            } else {
                (key, value)
            }
        })
        .collect();
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn short_texts_are_left_alone() {
        assert_eq!(cut_chars("", 10), None);
        assert_eq!(cut_chars("héllo", 5), None);
        let e = json!({"success": true, "result": "abc"});
        assert_eq!(bound_envelope(e.clone(), 3, "/f").envelope, e);
        // What the host is handed: the envelope, then `fullResult` (null
        // when nothing was cut).
        let written = serde_json::to_value(bound_envelope(e.clone(), 3, "/f")).unwrap();
        assert_eq!(written, json!({"envelope": e, "fullResult": null}));
    }

    #[test]
    fn a_cut_keeps_head_and_tail_within_the_limit() {
        let text = format!("{}{}", "a".repeat(30_000), "z".repeat(30_000));
        let cut = cut_chars(&text, 20_000).unwrap();
        assert!(cut.chars().count() <= 20_000);
        assert!(cut.chars().count() >= 19_990);
        assert!(cut.starts_with(&"a".repeat(9_000)));
        assert!(cut.ends_with(&"z".repeat(9_000)));
        let removed = 60_000 - (cut.len() - (marker_len(0) as usize - 1 + 5));
        assert!(cut.contains(&format!("\n[... truncated {removed} bytes ...]\n")));
    }

    #[test]
    fn cuts_fall_between_characters_and_count_characters() {
        // 3-byte characters: the limit counts characters, N counts bytes.
        let text = "中".repeat(1_000);
        let cut = cut_chars(&text, 100).unwrap();
        assert!(cut.chars().count() <= 100);
        let kept = cut.chars().filter(|&c| c == '中').count();
        assert!(cut.contains(&format!("truncated {} bytes", (1_000 - kept) * 3)));
        // Emoji (two UTF-16 units, one character) are never split.
        let cut = cut_chars(&"🙂".repeat(500), 77).unwrap();
        assert!(cut.chars().count() <= 77);
        // A limit below the marker keeps the marker alone.
        assert_eq!(
            cut_chars("abcdef", 3).unwrap(),
            "\n[... truncated 6 bytes ...]\n"
        );
    }

    #[test]
    fn result_file_follows_result_and_can_give_way_to_its_error() {
        let e = json!({"success": true, "tool": "claude", "SESSION_ID": "s", "result": "x".repeat(300), "duration": "0m1s"});
        let b = bound_envelope(e, 100, "/tmp/a b.txt");
        let keys: Vec<&String> = b.envelope.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "success",
                "tool",
                "SESSION_ID",
                "result",
                "result_file",
                "duration"
            ]
        );
        assert_eq!(b.full_result.as_deref(), Some("x".repeat(300).as_str()));
        let failed = without_result_file(b.envelope, "EACCES");
        assert_eq!(
            failed["result_file_error"],
            "the whole result could not be written: EACCES"
        );
        assert!(failed.get("result_file").is_none());
    }
}
