//! Gemini CLI `-o stream-json`: `init`, `message`, `tool_use`,
//! `tool_result`, `error` and `result` lines.

use std::borrow::Cow;

use std::fmt;

use serde::de::{Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

use super::builder::ReplyBuilder;
use super::json::{count_field, is_true, str_field};
use super::reply::{ModelUsage, ToolStatus, Usage};

/// A JSON value as the fast path sees it: a string (borrowed from the line
/// when it has no escapes), a boolean, or anything else. Its visitor accepts
/// every JSON type, so reading it never builds an "unexpected type" error,
/// whose message would link core's float formatting into the `.wasm`.
enum Scalar<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    Other,
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_i64<E>(self, _: i64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// The fields of a `message` line; every other field is skipped unbuilt.
#[derive(Default)]
struct MessageLine<'a> {
    kind: Option<Cow<'a, str>>,
    role: Option<Cow<'a, str>>,
    content: Option<Cow<'a, str>>,
    delta: bool,
    /// A field of the wanted names held something unexpected.
    odd: bool,
}

struct MessageLineVisitor;

impl<'de> Visitor<'de> for MessageLineVisitor {
    type Value = Option<MessageLine<'de>>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a JSON object")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut line = MessageLine::default();
        while let Some(key) = map.next_key::<Scalar<'de>>()? {
            let Scalar::Str(key) = key else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            let slot = match key.as_ref() {
                "type" => &mut line.kind,
                "role" => &mut line.role,
                "content" => &mut line.content,
                "delta" => {
                    match map.next_value::<Scalar<'de>>()? {
                        Scalar::Bool(b) => line.delta = b,
                        Scalar::Other => {}
                        Scalar::Str(_) => line.odd = true,
                    }
                    continue;
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                    continue;
                }
            };
            match map.next_value::<Scalar<'de>>()? {
                Scalar::Str(v) => *slot = Some(v),
                _ => line.odd = true,
            }
        }
        Ok(Some(line))
    }
    // Anything but an object is not a message line.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }
    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(None)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(None)
    }
}

/// The fast path for the most common line, a `message`: reads it without
/// building a JSON value. Returns false (nothing done) for any other line,
/// or a `message` line of another shape, which the general path then reads.
pub fn read_message_line(line: &str, out: &mut ReplyBuilder) -> bool {
    let mut reader = serde_json::Deserializer::from_str(line.trim());
    let Ok(Some(m)) = reader.deserialize_any(MessageLineVisitor) else {
        return false;
    };
    // Trailing bytes after the object, an odd field or another kind: the
    // general path decides.
    if reader.end().is_err() || m.odd || m.kind.as_deref() != Some("message") {
        return false;
    }
    if m.role.as_deref() == Some("assistant") {
        if let Some(content) = m.content.as_deref() {
            if m.delta {
                out.delta(content);
            } else {
                out.message(content);
            }
        }
    }
    true
}

/// Reads one event whose `type` is `kind`; any other type is reported as
/// unknown.
pub fn read(event: &Value, kind: &str, out: &mut ReplyBuilder) {
    match kind {
        "init" => {
            if let Some(id) = str_field(event, "session_id") {
                out.session(id);
            }
        }
        // `role: "user"` echoes our own prompt: never part of the reply.
        "message" if str_field(event, "role") != Some("assistant") => {}
        "message" => {
            if let Some(content) = str_field(event, "content") {
                if is_true(event, "delta") {
                    out.delta(content);
                } else {
                    out.message(content);
                }
            }
        }
        "tool_use" => {
            let id = str_field(event, "tool_id").unwrap_or_default();
            out.tool_started(id, str_field(event, "tool_name"), event.get("parameters"));
        }
        "tool_result" => {
            let id = str_field(event, "tool_id").unwrap_or_default();
            let failed = str_field(event, "status") == Some("error");
            let output = str_field(event, "output")
                .filter(|o| !o.is_empty() || !failed)
                .or_else(|| event.get("error").and_then(|e| str_field(e, "message")));
            let status = if failed {
                ToolStatus::Error
            } else {
                ToolStatus::Success
            };
            out.tool_finished(id, status, output);
        }
        // Warnings and recoverable errors (loop detected, empty response, …).
        "error" => {
            if let Some(message) = str_field(event, "message") {
                out.note("error", message, str_field(event, "severity"));
            }
        }
        "result" => {
            if let Some(stats) = event.get("stats") {
                out.set_usage(usage(stats));
            }
            if str_field(event, "status") == Some("success") {
                out.succeed();
            } else {
                let error = event.get("error");
                match error.and_then(|e| str_field(e, "message")) {
                    Some(message) => {
                        out.fail("result", message, error.and_then(|e| str_field(e, "type")))
                    }
                    None => out.fail_with_last_note(
                        "result",
                        "Gemini CLI reported a failed run without a message",
                    ),
                }
            }
        }
        _ => out.unknown(kind, event),
    }
}

/// `stats` of a `result` line, with its per-model counts (`stats.models`,
/// where the version prints them).
fn usage(stats: &Value) -> Usage {
    let models = stats
        .get("models")
        .and_then(Value::as_object)
        .map(|models| {
            models
                .iter()
                .map(|(model, counts)| ModelUsage {
                    model: model.clone(),
                    usage: token_counts(counts),
                })
                .collect()
        })
        .unwrap_or_default();
    Usage {
        duration_ms: count_field(stats, "duration_ms"),
        models,
        ..token_counts(stats)
    }
}

/// The token counts of `stats` or of one of its `models`.
fn token_counts(counts: &Value) -> Usage {
    Usage {
        input_tokens: count_field(counts, "input_tokens"),
        cached_input_tokens: count_field(counts, "cached"),
        output_tokens: count_field(counts, "output_tokens"),
        total_tokens: count_field(counts, "total_tokens"),
        ..Usage::default()
    }
}
