//! JSON strings read from their raw bytes: where one ends, and its text
//! decoded from JSON escapes and UTF-8 into UTF-16 code units in one pass.

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Whether any byte of `x` is zero.
pub(crate) fn zero_byte(x: u64) -> bool {
    x.wrapping_sub(ONES) & !x & HIGHS != 0
}

/// Whether any byte of `x` is `"`, `\` or a control character (< 0x20).
fn special_byte(x: u64) -> bool {
    zero_byte(x ^ (ONES * u64::from(b'"')))
        || zero_byte(x ^ (ONES * u64::from(b'\\')))
        || x.wrapping_sub(ONES * 0x20) & !x & HIGHS != 0
}

/// The end (after the closing quote) of the string whose first byte is at
/// `start`, and whether it has escapes. `None` for a `\u` escape, an unknown
/// escape, a control character or a missing closing quote.
#[inline(never)]
pub fn string_end(line: &[u8], start: usize) -> Option<(usize, bool)> {
    let mut i = start;
    let mut escaped = false;
    loop {
        while let Some(word) = line.get(i..i + 8) {
            if special_byte(u64::from_le_bytes(word.try_into().ok()?)) {
                break;
            }
            i += 8;
        }
        match *line.get(i)? {
            b'"' => return Some((i + 1, escaped)),
            b'\\' => {
                match line.get(i + 1)? {
                    b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                    _ => return None,
                }
                escaped = true;
                i += 2;
            }
            0..=0x1f => return None,
            _ => i += 1,
        }
    }
}

/// A string's raw bytes (checked by [`string_end`]) as UTF-16 code units in
/// `out`; `None` for invalid UTF-8 or `U+009B` (which starts a terminal
/// escape sequence: agent-context strips those on its general path).
#[inline(never)]
pub fn decode_utf16(raw: &[u8], out: &mut Vec<u16>) -> Option<()> {
    out.clear();
    // Never more units than bytes.
    out.resize(raw.len(), 0);
    let (mut i, mut o) = (0, 0);
    while i < raw.len() {
        if let Some(word) = raw.get(i..i + 8) {
            let x = u64::from_le_bytes(word.try_into().ok()?);
            if x & HIGHS == 0 && !zero_byte(x ^ (ONES * u64::from(b'\\'))) {
                for (unit, &byte) in out[o..o + 8].iter_mut().zip(word) {
                    *unit = u16::from(byte);
                }
                i += 8;
                o += 8;
                continue;
            }
        }
        let b = raw[i];
        if b == b'\\' {
            out[o] = u16::from(match raw[i + 1] {
                b'b' => 0x08,
                b'f' => 0x0c,
                b'n' => b'\n',
                b'r' => b'\r',
                b't' => b'\t',
                other => other,
            });
            i += 2;
            o += 1;
            continue;
        }
        if b < 0x80 {
            out[o] = u16::from(b);
            i += 1;
            o += 1;
            continue;
        }
        let (code, len) = utf8_char(&raw[i..])?;
        if code == 0x9b {
            return None;
        }
        i += len;
        if code < 0x1_0000 {
            out[o] = code as u16;
            o += 1;
        } else {
            let c = code - 0x1_0000;
            out[o] = 0xd800 | (c >> 10) as u16;
            out[o + 1] = 0xdc00 | (c & 0x3ff) as u16;
            o += 2;
        }
    }
    out.truncate(o);
    Some(())
}

/// The character a multi-byte UTF-8 sequence at the start of `s` encodes,
/// and its length; `None` where `str::from_utf8` would fail (overlong
/// forms, surrogates, past U+10FFFF, a cut sequence).
fn utf8_char(s: &[u8]) -> Option<(u32, usize)> {
    let cont = |at: usize, low: u8, high: u8| {
        s.get(at)
            .filter(|&&b| (low..=high).contains(&b))
            .map(|&b| u32::from(b & 0x3f))
    };
    let b = s[0];
    match b {
        0xc2..=0xdf => Some(((u32::from(b & 0x1f) << 6) | cont(1, 0x80, 0xbf)?, 2)),
        0xe0..=0xef => {
            let (low, high) = match b {
                0xe0 => (0xa0, 0xbf),
                0xed => (0x80, 0x9f),
                _ => (0x80, 0xbf),
            };
            let code =
                (u32::from(b & 0x0f) << 12) | (cont(1, low, high)? << 6) | cont(2, 0x80, 0xbf)?;
            Some((code, 3))
        }
        0xf0..=0xf4 => {
            let (low, high) = match b {
                0xf0 => (0x90, 0xbf),
                0xf4 => (0x80, 0x8f),
                _ => (0x80, 0xbf),
            };
            let code = (u32::from(b & 0x07) << 18)
                | (cont(1, low, high)? << 12)
                | (cont(2, 0x80, 0xbf)? << 6)
                | cont(3, 0x80, 0xbf)?;
            Some((code, 4))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn decodes_escapes_and_every_utf8_length() {
        let mut out = Vec::new();
        let raw = r#"a\"b\\c\/d\n\t\r\b\f café 日 🎉 plain ascii run"#.as_bytes();
        decode_utf16(raw, &mut out).unwrap();
        assert_eq!(
            out,
            units("a\"b\\c/d\n\t\r\u{8}\u{c} café 日 🎉 plain ascii run")
        );
    }

    #[test]
    fn rejects_what_from_utf8_rejects() {
        let mut out = Vec::new();
        for bad in [
            &b"\xc0\x80"[..],
            b"\xc1\xbf",
            b"\xe0\x80\x80",
            b"\xed\xa0\x80",
            b"\xf0\x80\x80\x80",
            b"\xf4\x90\x80\x80",
            b"\xf5\x80\x80\x80",
            b"\x80",
            b"ab\xe6\x97",
        ] {
            assert!(std::str::from_utf8(bad).is_err());
            assert!(decode_utf16(bad, &mut out).is_none(), "{bad:?}");
        }
        // U+009B starts an escape sequence: the general path strips it.
        assert!(decode_utf16("x\u{9b}31m".as_bytes(), &mut out).is_none());
        for good in [
            "\u{80}",
            "\u{7ff}",
            "\u{800}",
            "\u{d7ff}",
            "\u{e000}",
            "\u{ffff}",
            "\u{10000}",
            "\u{10ffff}",
        ] {
            decode_utf16(good.as_bytes(), &mut out).unwrap();
            assert_eq!(out, units(good));
        }
    }
}
