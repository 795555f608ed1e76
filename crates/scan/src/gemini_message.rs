//! A Gemini CLI `message` line (`-o stream-json`) read from its bytes.
//!
//! Only the plainest lines are taken: an object of string, `true`, `false`
//! and `null` values whose keys have no escapes, no `\u` escape, no control
//! character, nothing after the object. Anything else is `None`, for a full
//! JSON parser to decide; a line taken here reads the same as it would there
//! (agent-context's property tests and fuzz target check it).

use crate::json_string::string_end;

/// The fields of a `message` line that matter: `role` (it has no escapes),
/// `content` as the raw bytes between its quotes (decode them with
/// [`crate::json_string::decode_utf16`]), and `delta`.
pub struct Message<'a> {
    pub role: Option<&'a [u8]>,
    pub content: Option<&'a [u8]>,
    pub delta: bool,
}

enum Scalar<'a> {
    /// A string's raw bytes (between the quotes) and whether it has escapes.
    Str(&'a [u8], bool),
    Bool(bool),
    Null,
}

/// The line as a plain `message` object, or `None`.
#[inline(never)]
pub fn scan(line: &[u8]) -> Option<Message<'_>> {
    let mut i = skip_ws(line, 0);
    expect(line, i, b'{')?;
    i = skip_ws(line, i + 1);
    let (mut kind, mut role, mut content, mut delta) = (None, None, None, false);
    loop {
        expect(line, i, b'"')?;
        let (key_end, key_escaped) = string_end(line, i + 1)?;
        if key_escaped {
            return None;
        }
        let key = &line[i + 1..key_end - 1];
        i = skip_ws(line, key_end);
        expect(line, i, b':')?;
        let (value, end) = scalar(line, skip_ws(line, i + 1))?;
        // The last of a repeated key wins, as in serde_json.
        match (key, value) {
            (b"type", Scalar::Str(s, false)) => kind = Some(s),
            (b"role", Scalar::Str(s, false)) => role = Some(s),
            (b"content", Scalar::Str(s, _)) => content = Some(s),
            (b"delta", Scalar::Bool(b)) => delta = b,
            (b"delta", Scalar::Null) => {}
            (b"type" | b"role" | b"content" | b"delta", _) => return None,
            _ => {}
        }
        i = skip_ws(line, end);
        match line.get(i) {
            Some(b',') => i = skip_ws(line, i + 1),
            Some(b'}') => break,
            _ => return None,
        }
    }
    if skip_ws(line, i + 1) != line.len() || kind != Some(b"message") {
        return None;
    }
    Some(Message {
        role,
        content,
        delta,
    })
}

fn expect(line: &[u8], at: usize, byte: u8) -> Option<()> {
    (line.get(at) == Some(&byte)).then_some(())
}

fn skip_ws(line: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\r' | b'\n') = line.get(i) {
        i += 1;
    }
    i
}

/// A string, `true`, `false` or `null` at `i`, and where it ends.
fn scalar(line: &[u8], i: usize) -> Option<(Scalar<'_>, usize)> {
    let rest = &line[i.min(line.len())..];
    if rest.first() == Some(&b'"') {
        let (end, escaped) = string_end(line, i + 1)?;
        return Some((Scalar::Str(&line[i + 1..end - 1], escaped), end));
    }
    for (word, value) in [
        (&b"true"[..], Scalar::Bool(true)),
        (b"false", Scalar::Bool(false)),
        (b"null", Scalar::Null),
    ] {
        if rest.starts_with(word) {
            return Some((value, i + word.len()));
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn takes_only_plain_message_lines() {
        let taken = |line: &str| scan(line.as_bytes()).is_some();
        assert!(taken(
            r#"{"type":"message","timestamp":"t","role":"assistant","content":"hi","delta":true}"#
        ));
        assert!(taken(" { \"type\" : \"message\" , \"delta\" : null } \r"));
        assert!(!taken(r#"{"type":"tool_use","tool_id":"x"}"#));
        assert!(!taken(r#"{"type":"message","n":1}"#));
        assert!(!taken(r#"{"type":"message","x":{}}"#));
        assert!(!taken(r#"{"type":"message","content":"\u0041"}"#));
        assert!(!taken(r#"{"type":"message","content":5}"#));
        assert!(!taken(r#"{"type":"message","delta":"yes"}"#));
        assert!(!taken(r#"{"typ\u0065":"message"}"#));
        assert!(!taken(r#"{"type":"message",}"#));
        assert!(!taken(r#"{"type":"message"} x"#));
        assert!(!taken("{\"type\":\"message\",\"content\":\"a\tb\"}"));
        assert!(!taken(r#"{"type":"message""#));
        assert!(!taken("{}"));
        assert!(!taken(""));
    }

    #[test]
    fn the_last_of_a_repeated_key_wins() {
        let m =
            scan(br#"{"type":"message","content":"a","content":"b","delta":true,"delta":false}"#)
                .unwrap();
        assert_eq!(m.content, Some(&b"b"[..]));
        assert!(!m.delta);
    }
}
