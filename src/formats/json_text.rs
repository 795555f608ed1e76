//! JSON text as `JSON.stringify` writes it: made readable by serde_json, and
//! written back the same way.

use std::borrow::Cow;
use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};
use serde_json::Value;

use super::js_number::js_number_text;

/// `value` as `JSON.stringify` writes it: no spaces, keys in their order,
/// strings escaped as JS escapes them, and numbers as JavaScript writes them
/// (`200000000000000000000`, `1e+21`, `0.000001`), where serde_json alone
/// would write `2e20`, `1e21`, `1e-6`.
pub fn to_js_json(value: &Value) -> String {
    let mut out = Vec::new();
    let mut writer = Serializer::with_formatter(&mut out, JsNumbers);
    // Writing a Value to memory cannot fail: its keys are strings.
    let _ = value.serialize(&mut writer);
    String::from_utf8(out).unwrap_or_default()
}

/// serde_json's compact output with JavaScript's number text.
struct JsNumbers;

impl Formatter for JsNumbers {
    fn write_f64<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f64) -> io::Result<()> {
        writer.write_all(js_number_text(value).as_bytes())
    }

    fn write_f32<W: ?Sized + io::Write>(&mut self, writer: &mut W, value: f32) -> io::Result<()> {
        self.write_f64(writer, f64::from(value))
    }

    fn write_number_str<W: ?Sized + io::Write>(
        &mut self,
        writer: &mut W,
        value: &str,
    ) -> io::Result<()> {
        CompactFormatter.write_number_str(writer, value)
    }
}

/// `json` with every escaped lone surrogate (`\uD800`–`\uDFFF` not part of
/// an escaped pair) replaced by `\uFFFD`, as `String.prototype.toWellFormed`
/// would have replaced the character. `JSON.stringify` escapes exactly the
/// lone surrogates of a string (ES2019), and serde_json, whose strings are
/// UTF-8, refuses them; a JS string written as UTF-8 gets U+FFFD in their
/// place too, so this keeps both routes alike.
pub fn replace_lone_surrogate_escapes(json: &str) -> Cow<'_, str> {
    let bytes = json.as_bytes();
    let mut out: Option<String> = None;
    let mut copied = 0;
    let mut i = 0;
    while let Some(at) = memchr::memchr(b'\\', &bytes[i..]) {
        let start = i + at;
        match bytes.get(start + 1) {
            Some(b'u') => {
                let Some(unit) = hex_unit(bytes, start + 2) else {
                    i = start + 2;
                    continue;
                };
                let pair_follows = (0xd800..=0xdbff).contains(&unit)
                    && bytes.get(start + 6) == Some(&b'\\')
                    && bytes.get(start + 7) == Some(&b'u')
                    && hex_unit(bytes, start + 8)
                        .is_some_and(|low| (0xdc00..=0xdfff).contains(&low));
                if pair_follows {
                    i = start + 12;
                } else if (0xd800..=0xdfff).contains(&unit) {
                    let text = out.get_or_insert_with(|| String::with_capacity(json.len()));
                    text.push_str(&json[copied..start]);
                    text.push_str("\\ufffd");
                    copied = start + 6;
                    i = start + 6;
                } else {
                    i = start + 6;
                }
            }
            // Any other escape is two bytes long (`\\` among them).
            Some(_) => i = start + 2,
            None => break,
        }
    }
    match out {
        None => Cow::Borrowed(json),
        Some(mut text) => {
            text.push_str(&json[copied..]);
            Cow::Owned(text)
        }
    }
}

/// The four hex digits at `bytes[at..]` as a number.
fn hex_unit(bytes: &[u8], at: usize) -> Option<u32> {
    let digits = bytes.get(at..at + 4)?;
    digits
        .iter()
        .try_fold(0, |n, &d| Some(n * 16 + char::from(d).to_digit(16)?))
}

#[cfg(test)]
mod tests {
    use super::replace_lone_surrogate_escapes as fix;

    #[test]
    fn lone_surrogates_become_replacement_characters() {
        assert_eq!(fix(r#"{"a":"x\ud800y"}"#), r#"{"a":"x\ufffdy"}"#);
        assert_eq!(
            fix(r#"["\udfff","\uDC00\uD800"]"#),
            r#"["\ufffd","\ufffd\ufffd"]"#
        );
        // Keys too, which JSON.stringify's replacer never sees.
        assert_eq!(fix(r#"{"\ud800":1}"#), r#"{"\ufffd":1}"#);
        // A high surrogate at the very end.
        assert_eq!(fix(r#""\udbff""#), r#""\ufffd""#);
    }

    #[test]
    fn everything_else_is_left_alone() {
        for json in [
            r#"{"a":"plain é 🎉"}"#,
            r#""\ud83c\udf89""#,
            r#""\\ud800""#,
            r#""\\\\ud800""#,
            r#""\u0041\n\"\\""#,
            r#""\u12""#,
            "\"\\",
        ] {
            let fixed = fix(json);
            assert!(matches!(fixed, std::borrow::Cow::Borrowed(_)), "{json}");
        }
        // After an escaped backslash, `ud800` is text; a real escape follows.
        assert_eq!(fix(r#""\\ud800\ud800""#), r#""\\ud800\ufffd""#);
        // What serde_json then reads.
        let value: serde_json::Value = serde_json::from_str(&fix(r#"{"k":"a\ud800b"}"#)).unwrap();
        assert_eq!(value["k"], "a\u{fffd}b");
    }
}
