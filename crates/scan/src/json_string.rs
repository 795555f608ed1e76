//! JSON strings read from their raw bytes or UTF-16 units: where one ends,
//! and its text decoded from JSON escapes (and UTF-8) into UTF-16 code units
//! in one pass.

use crate::unit::{zero_lane, Unit};
use crate::utf16::put_code_point;

/// A code unit whose JSON strings can be decoded into UTF-16: UTF-8 bytes
/// or UTF-16 units.
pub trait DecodeUnit: Unit {
    /// The JSON string starting at `line[start]` (after its quote) decoded
    /// into UTF-16 in `out`; where it ends.
    fn decode_string(line: &[Self], start: usize, out: &mut Vec<u16>) -> Option<usize>;
}

impl DecodeUnit for u8 {
    fn decode_string(line: &[u8], start: usize, out: &mut Vec<u16>) -> Option<usize> {
        decode_string_utf8(line, start, out)
    }
}

impl DecodeUnit for u16 {
    fn decode_string(line: &[u16], start: usize, out: &mut Vec<u16>) -> Option<usize> {
        decode_string_utf16(line, start, out)
    }
}

/// Whether a lane of `x` is `"`, `\` or a control character (< 0x20).
fn special<U: Unit>(x: u64) -> bool {
    specials::<U>(x) != 0
}

/// The top bit of each lane of `x` that is `"`, `\` or a control character
/// (< 0x20), without a branch; lanes above the first such one may be set
/// wrongly (a borrow), the lowest set one is always exact.
pub(crate) fn specials<U: Unit>(x: u64) -> u64 {
    let quote = x ^ (U::ONES * u64::from(b'"'));
    let backslash = x ^ (U::ONES * u64::from(b'\\'));
    (quote.wrapping_sub(U::ONES) & !quote
        | backslash.wrapping_sub(U::ONES) & !backslash
        | x.wrapping_sub(U::ONES * 0x20) & !x)
        & U::HIGHS
}

/// The end (after the closing quote) of the string whose first unit is at
/// `start`, and whether it has escapes. `None` for a `\u` escape, an unknown
/// escape, a control character or a missing closing quote.
pub fn string_end<U: Unit>(line: &[U], start: usize) -> Option<(usize, bool)> {
    let mut i = start;
    let mut escaped = false;
    loop {
        // A word at a time up to the first special unit.
        while let Some(units) = line.get(i..i + U::LANES) {
            let found = specials::<U>(U::word(units));
            if found != 0 {
                i += found.trailing_zeros() as usize / (64 / U::LANES);
                break;
            }
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

/// The character a JSON escape (the unit after `\`) stands for.
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

/// The escape at `line[i]` (a `\`): the character it stands for, or `None`
/// for `\u` and unknown escapes.
fn escape<U: Unit>(line: &[U], i: usize) -> Option<u16> {
    match line.get(i + 1)?.value() {
        c @ (0x22 | 0x5c | 0x2f | 0x62 | 0x66 | 0x6e | 0x72 | 0x74) => Some(unescape(c)),
        _ => None,
    }
}

/// Decodes the JSON string whose first byte (after the opening quote) is
/// `line[start]` from its escapes and UTF-8 into UTF-16 code units in `out`
/// (cleared first), and returns where it ends (after the closing quote).
/// `None` for what [`string_end`] refuses, for invalid UTF-8, and for
/// `U+009B` (which starts a terminal escape sequence: agent-context strips
/// those on its general path).
#[inline(never)]
pub fn decode_string_utf8(line: &[u8], start: usize, out: &mut Vec<u16>) -> Option<usize> {
    out.clear();
    // Never more units than bytes.
    out.resize(line.len().saturating_sub(start), 0);
    let (mut i, mut o) = (start, 0);
    loop {
        // Eight bytes at a time: all eight are widened to units, and `i`
        // and `o` move past the ASCII ones before the first byte that is
        // `"`, `\`, a control character or not ASCII (the lowest lane
        // `specials` finds is exact, and a lane's top bit is its own). Text
        // mixing ASCII with other characters (accents, CJK, emoji) keeps
        // its ASCII runs on this path; a run of eight clean bytes is not
        // needed. There is room: `o` is never ahead of `i - start`.
        while let Some(word) = line.get(i..i + 8) {
            let x = u8::word(word);
            let stop = (x & u8::HIGHS) | specials::<u8>(x);
            for (unit, &byte) in out[o..o + 8].iter_mut().zip(word) {
                *unit = u16::from(byte);
            }
            if stop != 0 {
                let clean = stop.trailing_zeros() as usize / 8;
                i += clean;
                o += clean;
                break;
            }
            i += 8;
            o += 8;
        }
        let b = *line.get(i)?;
        if b < 0x80 {
            match b {
                b'"' => {
                    out.truncate(o);
                    return Some(i + 1);
                }
                b'\\' => {
                    out[o] = escape(line, i)?;
                    i += 2;
                    o += 1;
                }
                0..=0x1f => return None,
                // The last few bytes of the line, fewer than eight.
                _ => {
                    out[o] = u16::from(b);
                    i += 1;
                    o += 1;
                }
            }
            continue;
        }
        let (code, len) = utf8_char(line, i)?;
        i += len;
        o += put_code_point(&mut out[o..], code);
    }
}

/// [`decode_string_utf8`] for a line of UTF-16 units (a JS string's): the
/// units are copied, escapes undone. `None` also for a lone surrogate (a JS
/// string may hold one; as UTF-8 it becomes U+FFFD, which the general path
/// writes).
#[inline(never)]
pub fn decode_string_utf16(line: &[u16], start: usize, out: &mut Vec<u16>) -> Option<usize> {
    out.clear();
    let mut i = start;
    loop {
        // Four at a time while none is special, U+009B or a surrogate.
        while line.len() >= i + 4 {
            let x = u16::word(&line[i..]);
            if special::<u16>(x)
                || zero_lane::<u16>(x ^ (u16::ONES * 0x9b))
                || zero_lane::<u16>((x & (u16::ONES * 0xf800)) ^ (u16::ONES * 0xd800))
            {
                break;
            }
            out.extend_from_slice(&line[i..i + 4]);
            i += 4;
        }
        let unit = *line.get(i)?;
        match unit {
            0x22 => return Some(i + 1),
            0x5c => {
                out.push(escape(line, i)?);
                i += 2;
            }
            0..=0x1f | 0x9b | 0xdc00..=0xdfff => return None,
            0xd800..=0xdbff => {
                let low = *line.get(i + 1)?;
                if !(0xdc00..=0xdfff).contains(&low) {
                    return None;
                }
                out.extend_from_slice(&[unit, low]);
                i += 2;
            }
            _ => {
                out.push(unit);
                i += 1;
            }
        }
    }
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

    /// The string's raw bytes, closed by a quote, decoded both ways: from
    /// UTF-8 bytes, and (when they are UTF-8) from UTF-16 units.
    fn decode_utf16(raw: &[u8], out: &mut Vec<u16>) -> Option<()> {
        let line = [raw, b"\" tail"].concat();
        let end = decode_string_utf8(&line, 0, out)?;
        assert_eq!(end, raw.len() + 1);
        if let Ok(text) = std::str::from_utf8(&line) {
            let mut from_units = Vec::new();
            let line16 = units(text);
            let end16 = decode_string_utf16(&line16, 0, &mut from_units);
            assert_eq!(end16.map(|_| from_units.as_slice()), Some(out.as_slice()));
        }
        Some(())
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

    /// What `decode_string_utf8` must give, decoded a character at a time:
    /// the units up to the closing quote and where it ends, or `None`.
    fn reference(line: &[u8]) -> Option<(Vec<u16>, usize)> {
        // Only the part before the closing quote needs to be UTF-8.
        let mut units = Vec::new();
        let mut i = 0;
        loop {
            match *line.get(i)? {
                b'"' => return Some((units, i + 1)),
                b'\\' => {
                    let c = match *line.get(i + 1)? {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        _ => return None,
                    };
                    units.push(c as u16);
                    i += 2;
                }
                0..=0x1f => return None,
                _ => {
                    let len = (1..=4).find(|&n| {
                        line.get(i..i + n)
                            .is_some_and(|s| std::str::from_utf8(s).is_ok())
                    })?;
                    let c = std::str::from_utf8(&line[i..i + len])
                        .ok()?
                        .chars()
                        .next()?;
                    if c == '\u{9b}' {
                        return None;
                    }
                    let mut buf = [0; 2];
                    units.extend_from_slice(c.encode_utf16(&mut buf));
                    i += len;
                }
            }
        }
    }

    #[test]
    fn decodes_as_a_character_at_a_time_would() {
        // Lines made of fragments (ASCII runs of every length, escapes,
        // quotes, control bytes, two- to four-byte characters, U+009B,
        // stray and cut sequences), so that every word boundary meets each.
        const FRAGMENTS: [&[u8]; 22] = [
            b"a",
            b"ab",
            b"abc",
            b"abcdefg",
            b"abcdefghijklmnop",
            b" ",
            b"\\n",
            b"\\\"",
            b"\\u0041",
            b"\\x",
            b"\"",
            b"\x01",
            b"\x7f",
            "\u{e9}".as_bytes(),
            "\u{65e5}".as_bytes(),
            "\u{1f389}".as_bytes(),
            "\u{9b}".as_bytes(),
            b"\x80",
            b"\xe6\x97",
            b"\xc3",
            b"~",
            b"\\/",
        ];
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        let mut out = Vec::new();
        for _ in 0..20_000 {
            let mut line = Vec::new();
            for _ in 0..next(24) {
                line.extend_from_slice(FRAGMENTS[next(FRAGMENTS.len())]);
            }
            // Mostly closed, sometimes not; something after the quote.
            if next(8) != 0 {
                line.extend_from_slice(b"\" rest");
            }
            let start = next(3).min(line.len());
            let want = reference(&line[start..]).map(|(units, end)| (units, end + start));
            let got = decode_string_utf8(&line, start, &mut out).map(|end| (out.clone(), end));
            assert_eq!(
                got,
                want,
                "{:?} from {start}",
                String::from_utf8_lossy(&line)
            );
        }
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
