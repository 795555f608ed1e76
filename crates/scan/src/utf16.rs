//! UTF-8 → UTF-16, the form a JavaScript string is made of.
//!
//! Long texts leave WebAssembly as UTF-16 code units because a JS engine
//! turns UTF-16 into a string at the speed of a copy, while decoding UTF-8
//! with multi-byte text runs at a fraction of that (README, Performance).

/// Appends `s` as UTF-16 code units to `out`; returns how many it appended
/// (which is also `s`'s length as a JS string).
#[inline(never)]
pub fn push_utf16(out: &mut Vec<u16>, s: &str) -> usize {
    let bytes = s.as_bytes();
    let start = out.len();
    // A UTF-8 string never has more UTF-16 units than bytes.
    out.resize(start + bytes.len(), 0);
    let dst = &mut out[start..];
    let (mut i, mut o) = (0, 0);
    while i < bytes.len() {
        // Eight ASCII bytes at a time.
        if let Some(word) = bytes.get(i..i + 8) {
            let word = u64::from_le_bytes(word.try_into().unwrap_or([0x80; 8]));
            if word & 0x8080_8080_8080_8080 == 0 {
                for (k, unit) in dst[o..o + 8].iter_mut().enumerate() {
                    *unit = u16::from(bytes[i + k]);
                }
                i += 8;
                o += 8;
                continue;
            }
        }
        let b = bytes[i];
        // `s` is valid UTF-8, so the lead byte gives the sequence length and
        // the continuation bytes are there.
        let (code, len) = if b < 0x80 {
            (u32::from(b), 1)
        } else if b < 0xE0 {
            ((u32::from(b & 0x1F) << 6) | cont(bytes, i + 1), 2)
        } else if b < 0xF0 {
            (
                (u32::from(b & 0x0F) << 12) | (cont(bytes, i + 1) << 6) | cont(bytes, i + 2),
                3,
            )
        } else {
            (
                (u32::from(b & 0x07) << 18)
                    | (cont(bytes, i + 1) << 12)
                    | (cont(bytes, i + 2) << 6)
                    | cont(bytes, i + 3),
                4,
            )
        };
        i += len;
        o += put_code_point(&mut dst[o..], code);
    }
    out.truncate(start + o);
    o
}

/// Writes the character `code` at the start of `dst` as one or two UTF-16
/// units (a surrogate pair); returns how many.
#[inline(always)]
pub(crate) fn put_code_point(dst: &mut [u16], code: u32) -> usize {
    if code < 0x1_0000 {
        dst[0] = code as u16;
        1
    } else {
        let c = code - 0x1_0000;
        dst[0] = 0xd800 | (c >> 10) as u16;
        dst[1] = 0xdc00 | (c & 0x3ff) as u16;
        2
    }
}

#[inline(always)]
fn cont(bytes: &[u8], at: usize) -> u32 {
    u32::from(bytes[at] & 0x3F)
}

/// The index of the first `\n` in `units`.
#[inline(never)]
pub fn find_newline(units: &[u16]) -> Option<usize> {
    use crate::unit::{lane_is, Unit};
    let mut i = 0;
    while units.len() >= i + 4 && !lane_is::<u16>(u16::word(&units[i..]), b'\n') {
        i += 4;
    }
    units[i..].iter().position(|&u| u == 0x0a).map(|at| i + at)
}

#[cfg(test)]
mod tests {
    use super::{find_newline, push_utf16};

    #[test]
    fn finds_the_first_newline() {
        let units: Vec<u16> = "ab\u{10a}cdefg\nh\n".encode_utf16().collect();
        assert_eq!(find_newline(&units), Some(8));
        assert_eq!(find_newline(&units[9..]), Some(1));
        assert_eq!(find_newline(&units[..8]), None);
        assert_eq!(find_newline(&[]), None);
        for n in 0..12 {
            let mut line = vec![0x41u16; n];
            line.push(0x0a);
            assert_eq!(find_newline(&line), Some(n));
        }
    }

    #[test]
    fn matches_the_standard_encoder() {
        for s in [
            "",
            "a",
            "plain ascii that is longer than eight bytes",
            "café naïve résumé Größe",
            "日本語 設計 データ",
            "🎉🚀 emoji 🎉",
            "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}",
            "12345678é12345678",
        ] {
            let mut out = vec![7];
            let n = push_utf16(&mut out, s);
            let expected: Vec<u16> = s.encode_utf16().collect();
            assert_eq!(n, expected.len(), "{s:?}");
            assert_eq!(&out[1..], &expected[..], "{s:?}");
            assert_eq!(out[0], 7);
        }
    }

    #[test]
    fn every_offset_of_a_mixed_text() {
        let text = "ab€d🎉efghijklmnop日本xyz0123456789";
        for start in 0..text.len() {
            if !text.is_char_boundary(start) {
                continue;
            }
            let s = &text[start..];
            let mut out = Vec::new();
            push_utf16(&mut out, s);
            assert_eq!(out, s.encode_utf16().collect::<Vec<_>>());
        }
    }
}
