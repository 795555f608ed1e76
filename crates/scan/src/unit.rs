//! Code units of the two encodings the scanners read: UTF-8 bytes and
//! UTF-16 units (a JS string's own form). The structural characters of JSON
//! are ASCII, the same value in both.

/// A code unit, with the constants to test several of them at once in a
/// `u64` ("SWAR": each unit a lane).
pub trait Unit: Copy + Eq + 'static {
    /// Units per `u64`.
    const LANES: usize;
    /// 1 in every lane.
    const ONES: u64;
    /// The top bit of every lane.
    const HIGHS: u64;
    fn value(self) -> u32;
    /// `LANES` units as one little-endian word; `units` has at least `LANES`.
    fn word(units: &[Self]) -> u64;
}

impl Unit for u8 {
    const LANES: usize = 8;
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    fn value(self) -> u32 {
        u32::from(self)
    }
    fn word(units: &[u8]) -> u64 {
        let mut bytes = [0; 8];
        bytes.copy_from_slice(&units[..8]);
        u64::from_le_bytes(bytes)
    }
}

impl Unit for u16 {
    const LANES: usize = 4;
    const ONES: u64 = 0x0001_0001_0001_0001;
    const HIGHS: u64 = 0x8000_8000_8000_8000;
    fn value(self) -> u32 {
        u32::from(self)
    }
    fn word(units: &[u16]) -> u64 {
        let units = &units[..4];
        u64::from(units[0])
            | (u64::from(units[1]) << 16)
            | (u64::from(units[2]) << 32)
            | (u64::from(units[3]) << 48)
    }
}

/// Whether a lane of `x` is zero.
pub fn zero_lane<U: Unit>(x: u64) -> bool {
    x.wrapping_sub(U::ONES) & !x & U::HIGHS != 0
}

/// Whether a lane of `x` equals the ASCII character `c`.
pub fn lane_is<U: Unit>(x: u64, c: u8) -> bool {
    zero_lane::<U>(x ^ (U::ONES * u64::from(c)))
}

/// Whether a lane of `x` is below `n` (`n` at most 0x80).
pub fn lane_below<U: Unit>(x: u64, n: u8) -> bool {
    x.wrapping_sub(U::ONES * u64::from(n)) & !x & U::HIGHS != 0
}

/// Whether `units` spell the ASCII text `ascii`.
pub fn eq_ascii<U: Unit>(units: &[U], ascii: &[u8]) -> bool {
    units.len() == ascii.len()
        && units
            .iter()
            .zip(ascii)
            .all(|(u, &a)| u.value() == u32::from(a))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_are_tested_exactly() {
        let u8_word = u8::word(b"ab\"cdefg");
        assert!(lane_is::<u8>(u8_word, b'"'));
        assert!(!lane_is::<u8>(u8_word, b'\\'));
        assert!(!lane_below::<u8>(u8_word, 0x20));
        assert!(lane_below::<u8>(u8::word(b"abc\tdefg"), 0x20));
        // Bytes of 0x80 and above never count as below 0x20.
        assert!(!lane_below::<u8>(
            u8::word(&[0x80, 0x9f, 0xff, 0xc2, 0x20, 0x7f, 0xa0, 0x90]),
            0x20
        ));

        let units: Vec<u16> = "a\u{0122}\u{9b22}b".encode_utf16().collect();
        let word = u16::word(&units);
        // 0x0122 and 0x9B22 hold a 0x22 byte but are not '"'.
        assert!(!lane_is::<u16>(word, b'"'));
        assert!(lane_is::<u16>(
            u16::word(&[0x61, 0x22, 0xffff, 0x8000]),
            b'"'
        ));
        assert!(!lane_below::<u16>(
            u16::word(&[0x8000, 0xd800, 0x0120, 0x0020]),
            0x20
        ));
        assert!(lane_below::<u16>(
            u16::word(&[0x8000, 0xd800, 0x0120, 0x001f]),
            0x20
        ));
        assert!(eq_ascii(&units[..1], b"a"));
        assert!(!eq_ascii(&units, b"abcd"));
    }
}
