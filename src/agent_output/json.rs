//! Reading fields of the CLIs' JSON events, forgivingly: a field that is
//! missing or of another type reads as absent, never as an error.

use serde_json::Value;

/// `value[key]` when it is a string.
pub fn str_field<'a>(value: &'a Value, key: &str) -> Option<&'a str> {
    value.get(key)?.as_str()
}

/// `value[key]` when it is a whole number `>= 0` (a float is rounded down).
pub fn count_field(value: &Value, key: &str) -> Option<u64> {
    let field = value.get(key)?;
    field.as_u64().or_else(|| {
        let n = field.as_f64()?;
        (n.is_finite() && n >= 0.0).then_some(n as u64)
    })
}

/// `value[key]` when it is a finite number.
pub fn number_field(value: &Value, key: &str) -> Option<f64> {
    value.get(key)?.as_f64().filter(|n| n.is_finite())
}

/// `value[key] === true`.
pub fn is_true(value: &Value, key: &str) -> bool {
    value.get(key).and_then(Value::as_bool) == Some(true)
}

/// Tool output as text: a string as it is; an array of content blocks as
/// their `text` parts joined by newlines; anything else as JSON.
pub fn output_text(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        Value::Array(items) if items.iter().all(|i| str_field(i, "text").is_some()) => Some(
            items
                .iter()
                .filter_map(|i| str_field(i, "text"))
                .collect::<Vec<_>>()
                .join("\n"),
        ),
        other => Some(other.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_fields_forgivingly() {
        let v = json!({"s": "x", "n": 3, "f": 2.9, "neg": -1, "b": true, "o": {}});
        assert_eq!(str_field(&v, "s"), Some("x"));
        assert_eq!(str_field(&v, "n"), None);
        assert_eq!(count_field(&v, "n"), Some(3));
        assert_eq!(count_field(&v, "f"), Some(2));
        assert_eq!(count_field(&v, "neg"), None);
        assert_eq!(count_field(&v, "s"), None);
        assert_eq!(number_field(&v, "f"), Some(2.9));
        assert!(is_true(&v, "b"));
        assert!(!is_true(&v, "s"));
    }

    #[test]
    fn tool_output_becomes_text() {
        assert_eq!(output_text(&json!("out")).as_deref(), Some("out"));
        assert_eq!(
            output_text(&json!([{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]))
                .as_deref(),
            Some("a\nb")
        );
        assert_eq!(output_text(&json!({"k": 1})).as_deref(), Some("{\"k\":1}"));
        assert_eq!(output_text(&Value::Null), None);
    }
}
