//! The JSON text of a value the ACP scanner has already checked (a tool's
//! `rawInput`, a content list, …) read into a `serde_json::Value` directly:
//! no syntax left to check, so one pass that only builds. Whatever it does
//! not read the way serde_json would for certain (a `\u` escape, a number
//! other than a plain whole one) makes it give up (`None`), and serde_json
//! reads the value instead.

use agent_context_scan::json_string::string_end;
use serde_json::{Map, Value};

/// `raw` (checked JSON, as `acp_update` hands it out) as a `Value`; `None`
/// where serde_json must read it.
pub fn checked_value(raw: &[u8]) -> Option<Value> {
    let mut i = 0;
    let value = value(raw, &mut i)?;
    (skip_ws(raw, i) == raw.len()).then_some(value)
}

fn value(raw: &[u8], i: &mut usize) -> Option<Value> {
    match *raw.get(*i)? {
        b'"' => string(raw, i).map(Value::String),
        b'{' => {
            let mut map = Map::new();
            *i = skip_ws(raw, *i + 1);
            if raw.get(*i) == Some(&b'}') {
                *i += 1;
                return Some(Value::Object(map));
            }
            loop {
                let key = string(raw, i)?;
                *i = skip_ws(raw, *i);
                if raw.get(*i) != Some(&b':') {
                    return None;
                }
                *i = skip_ws(raw, *i + 1);
                // A repeated key: the last value, in the first one's place,
                // as serde_json's map does.
                map.insert(key, value(raw, i)?);
                *i = skip_ws(raw, *i);
                match raw.get(*i)? {
                    b',' => *i = skip_ws(raw, *i + 1),
                    b'}' => {
                        *i += 1;
                        return Some(Value::Object(map));
                    }
                    _ => return None,
                }
            }
        }
        b'[' => {
            let mut items = Vec::new();
            *i = skip_ws(raw, *i + 1);
            if raw.get(*i) == Some(&b']') {
                *i += 1;
                return Some(Value::Array(items));
            }
            loop {
                items.push(value(raw, i)?);
                *i = skip_ws(raw, *i);
                match raw.get(*i)? {
                    b',' => *i = skip_ws(raw, *i + 1),
                    b']' => {
                        *i += 1;
                        return Some(Value::Array(items));
                    }
                    _ => return None,
                }
            }
        }
        b't' => word(raw, i, b"true", Value::Bool(true)),
        b'f' => word(raw, i, b"false", Value::Bool(false)),
        b'n' => word(raw, i, b"null", Value::Null),
        _ => {
            // Plain whole numbers (what tool inputs hold); anything else is
            // serde_json's to read.
            let digits = raw[*i..].iter().take_while(|b| b.is_ascii_digit()).count();
            let end = *i + digits;
            if digits == 0 || digits > 18 || (digits > 1 && raw[*i] == b'0') {
                return None;
            }
            if matches!(raw.get(end), Some(b'.' | b'e' | b'E')) {
                return None;
            }
            let n = raw[*i..end]
                .iter()
                .fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
            *i = end;
            Some(Value::from(n))
        }
    }
}

fn word(raw: &[u8], i: &mut usize, word: &[u8], value: Value) -> Option<Value> {
    raw[*i..].starts_with(word).then(|| {
        *i += word.len();
        value
    })
}

/// The string at `raw[*i]` (its quote) with its escapes undone (`\u`:
/// `None`); `*i` moves past it.
fn string(raw: &[u8], i: &mut usize) -> Option<String> {
    if raw.get(*i) != Some(&b'"') {
        return None;
    }
    let start = *i + 1;
    let (end, escaped) = string_end(raw, start)?;
    *i = end;
    let body = std::str::from_utf8(&raw[start..end - 1]).ok()?;
    if !escaped {
        return Some(body.to_owned());
    }
    let mut text = String::with_capacity(body.len());
    let mut rest = body;
    while let Some(at) = rest.find('\\') {
        text.push_str(&rest[..at]);
        let c = match rest.as_bytes().get(at + 1)? {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            &c @ (b'"' | b'\\' | b'/') => char::from(c),
            _ => return None,
        };
        text.push(c);
        rest = &rest[at + 2..];
    }
    text.push_str(rest);
    Some(text)
}

fn skip_ws(raw: &[u8], mut i: usize) -> usize {
    while matches!(raw.get(i), Some(b' ' | b'\t' | b'\r' | b'\n')) {
        i += 1;
    }
    i
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn json() -> impl Strategy<Value = Value> {
        // Mostly what is read directly; some of what is not.
        let leaf = prop_oneof![
            2 => Just(Value::Null),
            2 => any::<bool>().prop_map(Value::Bool),
            4 => (0u64..1 << 40).prop_map(Value::from),
            1 => any::<u64>().prop_map(Value::from),
            1 => any::<i64>().prop_map(Value::from),
            1 => any::<f64>().prop_map(Value::from),
            8 => "[a-z\"\\\\/\n\t\r\u{8}\u{c}é日🎉]{0,12}".prop_map(Value::String),
            1 => "[a\u{1}]{0,3}".prop_map(Value::String),
        ];
        leaf.prop_recursive(4, 40, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
                prop::collection::vec(("[a-c\\\\]{0,3}", inner), 0..6)
                    .prop_map(|entries| Value::Object(entries.into_iter().collect())),
            ]
        })
    }

    /// Whitespace and escapes serde_json does not write.
    fn restyle(text: &str, spaced: bool) -> String {
        let text = text.replace('/', "\\/");
        if spaced {
            text.replace(',', " ,\n")
                .replace(':', "\t: ")
                .replace('[', "[ ")
        } else {
            text
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]

        #[test]
        fn reads_what_serde_json_reads(value in json(), spaced in any::<bool>(), dup in any::<bool>()) {
            let mut text = restyle(&serde_json::to_string(&value).unwrap(), spaced);
            if dup && text.starts_with("{\"") {
                // Keys the object may repeat ("a", "b").
                text = format!("{{\"a\":1,\"b\":[2],{}", &text[1..]);
            }
            let expected: Value = serde_json::from_str(&text).unwrap();
            if let Some(read) = checked_value(text.as_bytes()) {
                prop_assert_eq!(read, expected);
            }
        }
    }

    #[test]
    fn leaves_unusual_numbers_and_u_escapes_to_serde_json() {
        for raw in [
            "-1",
            "1.5",
            "1e3",
            "-0",
            "1234567890123456789",
            r#""\u0041""#,
        ] {
            assert_eq!(checked_value(raw.as_bytes()), None, "{raw}");
        }
        assert_eq!(
            checked_value(br#"{"a" : [1, true,null,"x\ny"] , "b":{}}"#),
            Some(serde_json::json!({"a": [1, true, null, "x\ny"], "b": {}}))
        );
    }
}
