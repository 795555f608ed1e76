//! A Gemini CLI `message` line (`-o stream-json`) read from its UTF-8 bytes
//! or from the UTF-16 units of a JS string.
//!
//! Only the plainest lines are taken: an object of string, `true`, `false`
//! and `null` values whose keys have no escapes, no `\u` escape, no control
//! character, nothing after the object. Anything else is `None`, for a full
//! JSON parser to decide; a line taken here reads the same as it would there
//! (agent-context's property tests and fuzz target check it).

use crate::json_string::{string_end, DecodeUnit};
use crate::unit::{eq_ascii, Unit};

/// The fields of a `message` line that matter: `role` (it has no escapes),
/// whether it has `content` (decoded into the caller's buffer), and `delta`.
pub struct Message<'a, U> {
    pub role: Option<&'a [U]>,
    pub content: bool,
    pub delta: bool,
}

impl<U: Unit> Message<'_, U> {
    /// Whether the role is `assistant` (the reply, not the echoed prompt).
    pub fn from_assistant(&self) -> bool {
        self.role.is_some_and(|role| eq_ascii(role, b"assistant"))
    }
}

enum Scalar<'a, U> {
    /// A string's raw units (between the quotes) and whether it has escapes.
    Str(&'a [U], bool),
    Bool(bool),
    Null,
}

/// A line of UTF-8 bytes as a plain `message` object, its content decoded
/// into `content` as UTF-16; or `None`.
#[inline(never)]
pub fn scan<'a>(line: &'a [u8], content: &mut Vec<u16>) -> Option<Message<'a, u8>> {
    scan_units(line, content)
}

/// [`scan`] for a line of UTF-16 units (a JS string's).
#[inline(never)]
pub fn scan_utf16<'a>(line: &'a [u16], content: &mut Vec<u16>) -> Option<Message<'a, u16>> {
    scan_units(line, content)
}

fn scan_units<'a, U: DecodeUnit>(line: &'a [U], text: &mut Vec<u16>) -> Option<Message<'a, U>> {
    let mut i = skip_ws(line, 0);
    expect(line, i, b'{')?;
    i = skip_ws(line, i + 1);
    let (mut kind, mut role, mut content, mut delta) = (None, None, false, false);
    loop {
        expect(line, i, b'"')?;
        let (key_end, key_escaped) = string_end(line, i + 1)?;
        if key_escaped {
            return None;
        }
        let key = &line[i + 1..key_end - 1];
        i = skip_ws(line, key_end);
        expect(line, i, b':')?;
        let at = skip_ws(line, i + 1);
        // The last of a repeated key wins, as in serde_json.
        let wanted = [&b"type"[..], b"role", b"content", b"delta"]
            .iter()
            .position(|name| eq_ascii(key, name));
        let end = if wanted == Some(2) && line.get(at).is_some_and(|u| u.value() == 0x22) {
            // The content, decoded while its end is found.
            content = true;
            U::decode_string(line, at + 1, text)?
        } else {
            let (value, end) = scalar(line, at)?;
            match (wanted, value) {
                (Some(0), Scalar::Str(s, false)) => kind = Some(s),
                (Some(1), Scalar::Str(s, false)) => role = Some(s),
                (Some(3), Scalar::Bool(b)) => delta = b,
                (Some(3), Scalar::Null) => {}
                (Some(_), _) => return None,
                (None, _) => {}
            }
            end
        };
        i = skip_ws(line, end);
        match line.get(i).map(|u| u.value()) {
            Some(0x2c) => i = skip_ws(line, i + 1),
            Some(0x7d) => break,
            _ => return None,
        }
    }
    if skip_ws(line, i + 1) != line.len() || !kind.is_some_and(|k| eq_ascii(k, b"message")) {
        return None;
    }
    Some(Message {
        role,
        content,
        delta,
    })
}

fn expect<U: Unit>(line: &[U], at: usize, ascii: u8) -> Option<()> {
    (line.get(at)?.value() == u32::from(ascii)).then_some(())
}

fn skip_ws<U: Unit>(line: &[U], mut i: usize) -> usize {
    while let Some(0x20 | 0x09 | 0x0d | 0x0a) = line.get(i).map(|u| u.value()) {
        i += 1;
    }
    i
}

/// A string, `true`, `false` or `null` at `i`, and where it ends.
fn scalar<U: Unit>(line: &[U], i: usize) -> Option<(Scalar<'_, U>, usize)> {
    let rest = &line[i.min(line.len())..];
    if rest.first()?.value() == 0x22 {
        let (end, escaped) = string_end(line, i + 1)?;
        return Some((Scalar::Str(&line[i + 1..end - 1], escaped), end));
    }
    for (word, value) in [
        (&b"true"[..], Scalar::Bool(true)),
        (b"false", Scalar::Bool(false)),
        (b"null", Scalar::Null),
    ] {
        if rest.len() >= word.len() && eq_ascii(&rest[..word.len()], word) {
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
        let taken = |line: &str| {
            let units: Vec<u16> = line.encode_utf16().collect();
            let taken = scan(line.as_bytes(), &mut Vec::new()).is_some();
            assert_eq!(
                scan_utf16(&units, &mut Vec::new()).is_some(),
                taken,
                "{line}"
            );
            taken
        };
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
        let mut text = Vec::new();
        let line = br#"{"type":"message","content":"a","content":"bc","delta":true,"delta":false}"#;
        let m = scan(line, &mut text).unwrap();
        assert!(m.content);
        assert_eq!(text, [u16::from(b'b'), u16::from(b'c')]);
        assert!(!m.from_assistant());
        assert!(!m.delta);
    }
}
