//! JSON strings read from their raw bytes: where one ends, and its text
//! decoded from JSON escapes and UTF-8 into UTF-16 code units in one pass.

use crate::unit::{lane_below, lane_is, zero_lane, Unit};

/// Whether a lane of `x` is `"`, `\` or a control character (< 0x20).
fn special<U: Unit>(x: u64) -> bool {
    lane_is::<U>(x, b'"') || lane_is::<U>(x, b'\\') || lane_below::<U>(x, 0x20)
}

/// The end (after the closing quote) of the string whose first unit is at
/// `start`, and whether it has escapes. `None` for a `\u` escape, an unknown
/// escape, a control character or a missing closing quote.
pub fn string_end<U: Unit>(line: &[U], start: usize) -> Option<(usize, bool)> {
    let mut i = start;
    let mut escaped = false;
    loop {
        while line.len() >= i + U::LANES && !special::<U>(U::word(&line[i..])) {
            i += U::LANES;
        }
        match line.get(i)?.value() {
            0x22 => return Some((i + 1, escaped)),
            0x5c => {
                match line.get(i + 1)?.value() {
                    0x22 | 0x5c | 0x2f | 0x62 | 0x66 | 0x6e | 0x72 | 0x74 => {}
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

/// The character a JSON escape (the unit after `\`, checked by
/// [`string_end`]) stands for.
fn unescape(c: u32) -> u16 {
    match c {
        0x62 => 0x08,
        0x66 => 0x0c,
        0x6e => 0x0a,
        0x72 => 0x0d,
        0x74 => 0x09,
        // `"`, `\` and `/` stand for themselves.
        other => other as u16,
    }
}

/// A string's raw UTF-16 units (checked by [`string_end`]) unescaped into
/// `out`; `None` for a lone surrogate (a JS string may hold one; as UTF-8 it
/// becomes U+FFFD, which the general path writes) or `U+009B`.
#[inline(never)]
pub fn copy_utf16(raw: &[u16], out: &mut Vec<u16>) -> Option<()> {
    out.clear();
    out.reserve(raw.len());
    let mut i = 0;
    while i < raw.len() {
        if raw.len() >= i + 4 {
            let x = u16::word(&raw[i..]);
            // No `\`, no U+009B, no surrogate (0xD800..=0xDFFF) among four.
            if !lane_is::<u16>(x, b'\\')
                && !zero_lane::<u16>(x ^ (u16::ONES * 0x9b))
                && !zero_lane::<u16>((x & (u16::ONES * 0xf800)) ^ (u16::ONES * 0xd800))
            {
                out.extend_from_slice(&raw[i..i + 4]);
                i += 4;
                continue;
            }
        }
        let unit = raw[i];
        match unit {
            0x5c => {
                out.push(unescape(u32::from(raw[i + 1])));
                i += 2;
            }
            0x9b => return None,
            0xd800..=0xdbff => {
                let low = *raw.get(i + 1)?;
                if !(0xdc00..=0xdfff).contains(&low) {
                    return None;
                }
                out.extend_from_slice(&[unit, low]);
                i += 2;
            }
            0xdc00..=0xdfff => return None,
            _ => {
                out.push(unit);
                i += 1;
            }
        }
    }
    Some(())
}

/// A string's raw bytes (checked by [`string_end`]) as UTF-16 code units in
/// `out`; `None` for invalid UTF-8 or `U+009B` (which starts a terminal
/// escape sequence: agent-context strips those on its general path).
#[inline(never)]
pub fn decode_utf16(raw: &[u8], out: &mut Vec<u16>) -> Option<()> {
    out.clear();
    // Never more units than bytes.
    out.resize(raw.len(), 0);
    let n = raw.len();
    let (mut i, mut o) = (0, 0);
    while i < n {
        let b = raw[i];
        if b < 0x80 {
            if b == b'\\' {
                out[o] = unescape(u32::from(raw[i + 1]));
                i += 2;
                o += 1;
                continue;
            }
            out[o] = u16::from(b);
            i += 1;
            o += 1;
            // After an ASCII byte, more are likely: eight at a time while
            // there are no escapes or other bytes among them.
            while let Some(word) = raw.get(i..i + 8) {
                let x = u8::word(word);
                if x & u8::HIGHS != 0 || lane_is::<u8>(x, b'\\') {
                    break;
                }
                for (unit, &byte) in out[o..o + 8].iter_mut().zip(word) {
                    *unit = u16::from(byte);
                }
                i += 8;
                o += 8;
            }
            continue;
        }
        let (code, len) = utf8_char(raw, i)?;
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

/// The character of the multi-byte UTF-8 sequence at `s[i..]`, and its
/// length; `None` where `str::from_utf8` would fail (a stray continuation
/// byte, overlong forms, surrogates, past U+10FFFF, a cut sequence) and for
/// U+009B. Validity is checked on the decoded value, which is the same as
/// the standard's byte ranges.
fn utf8_char(s: &[u8], i: usize) -> Option<(u32, usize)> {
    let b = u32::from(s[i]);
    // A continuation byte's six bits, or `None`.
    let cont = |at: usize| {
        s.get(i + at)
            .filter(|&&c| c & 0xc0 == 0x80)
            .map(|&c| u32::from(c & 0x3f))
    };
    if b < 0xe0 {
        // 0x80..=0xC1 are stray or overlong; U+009B starts an escape sequence.
        let code = ((b & 0x1f) << 6) | cont(1)?;
        return (b >= 0xc2 && code != 0x9b).then_some((code, 2));
    }
    if b < 0xf0 {
        let code = ((b & 0x0f) << 12) | (cont(1)? << 6) | cont(2)?;
        return (code >= 0x800 && !(0xd800..=0xdfff).contains(&code)).then_some((code, 3));
    }
    let code = ((b & 0x07) << 18) | (cont(1)? << 12) | (cont(2)? << 6) | cont(3)?;
    (b <= 0xf4 && (0x1_0000..=0x10_ffff).contains(&code)).then_some((code, 4))
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
