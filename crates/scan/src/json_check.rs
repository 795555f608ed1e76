//! A line of JSON checked whole, as `JSON.parse` reads it (RFC 8259 in
//! UTF-8, a lone surrogate escape allowed), at the speed of the string scan,
//! and found in one pass with its end: the session record's reader hands
//! `JSON.parse` only lines this accepts, and reads the few top-level fields
//! it needs from where this found them.

use crate::unit::Unit;

/// The deepest nesting checked; a deeper line is refused.
pub const MAX_DEPTH: usize = 512;

/// Whether `line` is one JSON object (white space around it allowed, no
/// `\n`), and in `found[i]` where the value of its top-level key `keys[i]`
/// is (the last one, as `JSON.parse` keeps it): its first and its end
/// index. A top-level key written with an escape refuses the line (a key
/// would read differently here than there).
#[inline(never)]
pub fn check_object(line: &[u8], keys: &[&[u8]], found: &mut [Option<(usize, usize)>]) -> bool {
    let (end, ok) = check_line(line, 0, keys, found);
    ok && end == line.len()
}

/// The line of `text` that starts at `start`: where it ends (its `\n`, or
/// the end of `text`), and whether it is one JSON object as
/// [`check_object`] takes it; `found` as there, indices into `text`.
#[inline(never)]
pub fn check_line(
    text: &[u8],
    start: usize,
    keys: &[&[u8]],
    found: &mut [Option<(usize, usize)>],
) -> (usize, bool) {
    match check(text, start, keys, found) {
        // After the object: blanks, then the line's end.
        Some(i) => {
            let i = ws(text, i);
            match text.get(i) {
                None | Some(b'\n') => (i, true),
                Some(_) => (line_end(text, i), false),
            }
        }
        // Nothing checked crosses a `\n`: the line ends at the next one.
        None => (line_end(text, start), false),
    }
}

/// The index of the first `\n` at or after `i` (the end of `text` when none).
#[inline(never)]
pub fn line_end(text: &[u8], mut i: usize) -> usize {
    use crate::unit::lane_is;
    while let Some(bytes) = text.get(i..i + 8) {
        if lane_is::<u8>(u8::word(bytes), b'\n') {
            break;
        }
        i += 8;
    }
    text[i.min(text.len())..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(text.len(), |at| i + at)
}

#[derive(Clone, Copy)]
enum Next {
    Value,
    Key,
    AfterValue,
}

/// The containers open: one bit each, set for an object.
struct Stack {
    bits: [u64; MAX_DEPTH / 64],
    depth: usize,
}

impl Stack {
    fn push(&mut self, object: bool) -> Option<()> {
        if self.depth == MAX_DEPTH {
            return None;
        }
        let (word, bit) = (self.depth / 64, self.depth % 64);
        if object {
            self.bits[word] |= 1 << bit;
        } else {
            self.bits[word] &= !(1 << bit);
        }
        self.depth += 1;
        Some(())
    }

    fn top_is_object(&self) -> bool {
        let at = self.depth - 1;
        self.bits[at / 64] & (1 << (at % 64)) != 0
    }
}

/// Where the object at `start` ends, when it is one.
fn check(
    line: &[u8],
    start: usize,
    keys: &[&[u8]],
    found: &mut [Option<(usize, usize)>],
) -> Option<usize> {
    let mut stack = Stack {
        bits: [0; MAX_DEPTH / 64],
        depth: 0,
    };
    let mut i = ws(line, start);
    if *line.get(i)? != b'{' {
        return None;
    }
    let mut next = Next::Value;
    // The top-level key whose value is being read, and where it started.
    let mut field: Option<(usize, usize)> = None;
    loop {
        match next {
            Next::Value => {
                i = ws(line, i);
                if stack.depth == 1 {
                    if let Some((k, _)) = field {
                        field = Some((k, i));
                    }
                }
                match *line.get(i)? {
                    b'{' => {
                        stack.push(true)?;
                        i = ws(line, i + 1);
                        if *line.get(i)? == b'}' {
                            stack.depth -= 1;
                            i += 1;
                            next = Next::AfterValue;
                        } else {
                            next = Next::Key;
                        }
                    }
                    b'[' => {
                        stack.push(false)?;
                        i = ws(line, i + 1);
                        if *line.get(i)? == b']' {
                            stack.depth -= 1;
                            i += 1;
                            next = Next::AfterValue;
                        }
                    }
                    b'"' => {
                        i = string_end(line, i + 1)?.0;
                        next = Next::AfterValue;
                    }
                    b't' => {
                        i = literal(line, i, b"true")?;
                        next = Next::AfterValue;
                    }
                    b'f' => {
                        i = literal(line, i, b"false")?;
                        next = Next::AfterValue;
                    }
                    b'n' => {
                        i = literal(line, i, b"null")?;
                        next = Next::AfterValue;
                    }
                    b'-' | b'0'..=b'9' => {
                        i = number_end(line, i)?;
                        next = Next::AfterValue;
                    }
                    _ => return None,
                }
            }
            Next::Key => {
                i = ws(line, i);
                if *line.get(i)? != b'"' {
                    return None;
                }
                let (end, escaped) = string_end(line, i + 1)?;
                if stack.depth == 1 {
                    if escaped {
                        return None;
                    }
                    let key = &line[i + 1..end - 1];
                    field = keys
                        .iter()
                        .position(|k| k.len() == key.len() && k.first() == key.first() && *k == key)
                        .map(|k| (k, 0));
                }
                i = ws(line, end);
                if *line.get(i)? != b':' {
                    return None;
                }
                i += 1;
                next = Next::Value;
            }
            Next::AfterValue => {
                if stack.depth == 0 {
                    return Some(i);
                }
                if stack.depth == 1 {
                    if let Some((k, start)) = field.take() {
                        found[k] = Some((start, i));
                    }
                }
                i = ws(line, i);
                let object = stack.top_is_object();
                match (*line.get(i)?, object) {
                    (b',', true) => next = Next::Key,
                    (b',', false) => next = Next::Value,
                    (b'}', true) | (b']', false) => stack.depth -= 1,
                    _ => return None,
                }
                i += 1;
            }
        }
    }
}

/// The first index at or after `i` that is not JSON white space (a `\n`
/// ends the line: it is not taken).
fn ws(line: &[u8], mut i: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\r') = line.get(i) {
        i += 1;
    }
    i
}

fn literal(line: &[u8], i: usize, word: &[u8]) -> Option<usize> {
    (line.get(i..i + word.len())? == word).then_some(i + word.len())
}

fn digits(line: &[u8], mut i: usize) -> usize {
    while let Some(b'0'..=b'9') = line.get(i) {
        i += 1;
    }
    i
}

/// The end of the number at `line[i]`: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
fn number_end(line: &[u8], mut i: usize) -> Option<usize> {
    if line.get(i) == Some(&b'-') {
        i += 1;
    }
    match *line.get(i)? {
        b'0' => i += 1,
        b'1'..=b'9' => i = digits(line, i + 1),
        _ => return None,
    }
    if line.get(i) == Some(&b'.') {
        let end = digits(line, i + 1);
        if end == i + 1 {
            return None;
        }
        i = end;
    }
    if let Some(b'e' | b'E') = line.get(i) {
        i += 1;
        if let Some(b'+' | b'-') = line.get(i) {
            i += 1;
        }
        let end = digits(line, i);
        if end == i {
            return None;
        }
        i = end;
    }
    Some(i)
}

/// The end (after the closing quote) of the string whose first byte is
/// `line[start]`, and whether it has an escape; `None` for a control
/// character, a bad escape, bytes that are not UTF-8 or no closing quote.
fn string_end(line: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut i = start;
    let mut escaped = false;
    loop {
        // A word at a time up to the first `"`, `\`, control or non-ASCII byte.
        while let Some(bytes) = line.get(i..i + 8) {
            let x = u8::word(bytes);
            let found = crate::json_string::specials::<u8>(x) | (x & u8::HIGHS);
            if found != 0 {
                i += found.trailing_zeros() as usize / 8;
                break;
            }
            i += 8;
        }
        match *line.get(i)? {
            b'"' => return Some((i + 1, escaped)),
            b'\\' => {
                escaped = true;
                match *line.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => i += 2,
                    b'u' => {
                        let hex = line.get(i + 2..i + 6)?;
                        if !hex.iter().all(u8::is_ascii_hexdigit) {
                            return None;
                        }
                        i += 6;
                    }
                    _ => return None,
                }
            }
            0..=0x1f => return None,
            0x80.. => {
                // The run of non-ASCII bytes: whole characters, or not UTF-8.
                let run = line[i..]
                    .iter()
                    .position(|&b| b < 0x80)
                    .map_or(line.len(), |n| i + n);
                core::str::from_utf8(&line[i..run]).ok()?;
                i = run;
            }
            _ => i += 1,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(line: &str) -> bool {
        check_object(line.as_bytes(), &[], &mut [])
    }

    #[test]
    fn takes_what_json_parse_takes() {
        for line in [
            "{}",
            " { } ",
            "{\"a\":1}",
            "{\"a\":[1,2,{\"b\":[]}],\"c\":{}}",
            "{\"s\":\"x\\\"y\\\\z\\/\\b\\f\\n\\r\\t\\u00e9\\ud800\"}",
            "{\"n\":[0,-0,1.5,-2e10,3E+2,4e-3,123456789012345678901234567890]}",
            "{\"t\":true,\"f\":false,\"z\":null}",
            "{\"u\":\"héllo 中文 😀 and a long ascii run after it\"}",
            "{ \"a\" : [ 1 , 2 ] , \"b\" : { \"c\" : \"d\" } }",
            "{\"a\":\"\"}",
        ] {
            assert!(ok(line), "{line}");
        }
    }

    #[test]
    fn refuses_what_json_parse_refuses() {
        for line in [
            "",
            "[]",
            "1",
            "\"x\"",
            "{",
            "{\"a\"}",
            "{\"a\":}",
            "{\"a\":1,}",
            "{\"a\":1}}",
            "{\"a\":1} x",
            "{\"a\":[1,]}",
            "{\"a\":[1 2]}",
            "{a:1}",
            "{'a':1}",
            "{\"a\":01}",
            "{\"a\":1.}",
            "{\"a\":.5}",
            "{\"a\":1e}",
            "{\"a\":+1}",
            "{\"a\":-}",
            "{\"a\":tru}",
            "{\"a\":NaN}",
            "{\"a\":\"\\x\"}",
            "{\"a\":\"\\u12g4\"}",
            "{\"a\":\"tab\there\"}",
            "{\"a\":\"no end}",
            "{\"a\":[}",
            "{\"a\":{]}",
        ] {
            assert!(!ok(line), "{line}");
        }
        assert!(!check_object(b"{\"a\":\"\xff\"}", &[], &mut []));
        assert!(!check_object(b"{\"a\":\"\xc3\"}", &[], &mut []));
        assert!(!check_object(b"{\"a\":\"\xed\xa0\x80\"}", &[], &mut []));
        let deep = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH),
            "]".repeat(MAX_DEPTH)
        );
        assert!(!ok(&deep));
        let fine = format!(
            "{{\"a\":{}{}}}",
            "[".repeat(MAX_DEPTH - 2),
            "]".repeat(MAX_DEPTH - 2)
        );
        assert!(ok(&fine));
    }

    #[test]
    fn finds_the_top_level_fields_last_one_kept() {
        let line =
            br#"{"seq":12,"at":99,"kind":"text","turn":3,"nested":{"seq":7},"text":"x","seq":13}"#;
        let keys: [&[u8]; 4] = [b"seq", b"at", b"kind", b"turn"];
        let mut found = [None; 4];
        assert!(check_object(line, &keys, &mut found));
        let got: Vec<&[u8]> = found
            .iter()
            .map(|f| &line[f.unwrap().0..f.unwrap().1])
            .collect();
        assert_eq!(got, [&b"13"[..], b"99", b"\"text\"", b"3"]);
        let mut found = [None; 4];
        assert!(check_object(
            br#"{ "seq" : [1, {"a": 2}] , "kind" : {} }"#,
            &keys,
            &mut found
        ));
        assert_eq!(found[0], Some((10, 23)));
        assert_eq!(found[1], None);
        assert_eq!(found[2], Some((35, 37)));
        // An escaped top-level key refuses the line; a nested one does not.
        assert!(!check_object(br#"{"s\u0065q":1}"#, &keys, &mut [None; 4]));
        assert!(check_object(
            br#"{"a":{"s\u0065q":1}}"#,
            &keys,
            &mut [None; 4]
        ));
    }

    #[test]
    fn lines_are_found_with_their_end() {
        let text =
            b"{\"a\":1}\n{\"b\":\n2}\n  {} \r\ngarbage {\"c\":3}\n{\"s\":\"x\ny\"}\n{\"d\":4}";
        let mut at = 0;
        let mut lines = Vec::new();
        while at <= text.len() {
            let (end, ok) = check_line(text, at, &[], &mut []);
            lines.push((std::str::from_utf8(&text[at..end]).unwrap(), ok));
            at = end + 1;
        }
        assert_eq!(
            lines,
            [
                ("{\"a\":1}", true),
                ("{\"b\":", false),
                ("2}", false),
                ("  {} \r", true),
                ("garbage {\"c\":3}", false),
                ("{\"s\":\"x", false),
                ("y\"}", false),
                ("{\"d\":4}", true),
            ]
        );
        assert_eq!(line_end(b"0123456789abcdef\n", 3), 16);
        assert_eq!(line_end(b"0123456789abcdef", 3), 16);
        assert_eq!(line_end(b"", 0), 0);
    }

    #[test]
    fn any_bytes_never_panic() {
        let mut seed = 7u64;
        for _ in 0..20_000 {
            let mut bytes = Vec::new();
            for _ in 0..(seed % 40) {
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let pick = b"{}[]\":,\\u0123456789-+.eEtrufalsn \x80\xc3\xa9\x1f\n";
                bytes.push(pick[(seed >> 33) as usize % pick.len()]);
            }
            let _ = check_object(&bytes, &[b"a"], &mut [None]);
            let mut at = 0;
            while at <= bytes.len() {
                let (end, _) = check_line(&bytes, at, &[b"a"], &mut [None]);
                assert!(end >= at && end <= bytes.len());
                assert!(end == bytes.len() || bytes[end] == b'\n');
                at = end + 1;
            }
        }
    }
}
