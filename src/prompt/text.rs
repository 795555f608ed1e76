//! Text helpers that behave exactly as the JavaScript the seeds were written in.

/// Whitespace as ECMAScript's `String.prototype.trim` sees it: WhiteSpace
/// (TAB, VT, FF, SP, NBSP, ZWNBSP U+FEFF and every `Zs` character) plus
/// LineTerminator (LF, CR, U+2028, U+2029). Unlike Rust's `char::is_whitespace`
/// it includes U+FEFF and excludes U+0085 (NEL).
pub fn is_js_whitespace(c: char) -> bool {
    matches!(
        c,
        '\u{0009}'
            | '\u{000A}'
            | '\u{000B}'
            | '\u{000C}'
            | '\u{000D}'
            | '\u{0020}'
            | '\u{00A0}'
            | '\u{1680}'
            | '\u{2000}'
            ..='\u{200A}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{202F}'
                | '\u{205F}'
                | '\u{3000}'
                | '\u{FEFF}'
    )
}

/// `s.trim()` as JavaScript computes it.
pub fn js_trim(s: &str) -> &str {
    s.trim_matches(is_js_whitespace)
}

/// The largest char boundary of `s` that is `<= index`.
pub fn floor_char_boundary(s: &str, index: usize) -> usize {
    if index >= s.len() {
        return s.len();
    }
    let mut i = index;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// The smallest char boundary of `s` that is `>= index`.
pub fn ceil_char_boundary(s: &str, index: usize) -> usize {
    if index >= s.len() {
        return s.len();
    }
    let mut i = index;
    while !s.is_char_boundary(i) {
        i += 1;
    }
    i
}

/// Number of decimal digits of `n` (1 for 0).
pub fn decimal_digits(mut n: u64) -> u64 {
    let mut digits = 1;
    while n >= 10 {
        n /= 10;
        digits += 1;
    }
    digits
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trims_like_javascript() {
        assert_eq!(js_trim("\u{FEFF} a b \u{3000}\n"), "a b");
        // NEL is not whitespace in JS, so it survives.
        assert_eq!(js_trim("\u{0085}x\u{0085}"), "\u{0085}x\u{0085}");
        assert_eq!(
            js_trim(" \t\r\n\u{000B}\u{000C}\u{00A0}\u{2028}\u{2029}"),
            ""
        );
        assert_eq!(js_trim("\u{200B}x"), "\u{200B}x"); // ZWSP is not Zs
    }

    #[test]
    fn boundaries_never_split_characters() {
        let s = "a€b"; // € is 3 bytes at 1..4
        assert_eq!(floor_char_boundary(s, 2), 1);
        assert_eq!(ceil_char_boundary(s, 2), 4);
        assert_eq!(floor_char_boundary(s, 99), s.len());
        assert_eq!(ceil_char_boundary(s, 4), 4);
    }

    #[test]
    fn counts_digits() {
        assert_eq!(decimal_digits(0), 1);
        assert_eq!(decimal_digits(9), 1);
        assert_eq!(decimal_digits(10), 2);
        assert_eq!(decimal_digits(786_432), 6);
    }
}
