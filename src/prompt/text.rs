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

/// A number exactly as JavaScript's `String(n)` (and `JSON.stringify`, for
/// finite numbers) writes it: ECMAScript's Number::toString. The shortest
/// digits that read back as `value` come from serde_json's float writer
/// (the same shortest-round-trip digits JS picks); only where the decimal
/// point and the exponent go differs, and that follows the ECMAScript rules
/// here: `200000000000000000000`, `1e+21`, `0.000001`, `1e-7`, `-1.5`.
pub fn js_number_text(value: f64) -> String {
    if value.is_nan() {
        return "NaN".into();
    }
    if value.is_infinite() {
        return if value > 0.0 { "Infinity" } else { "-Infinity" }.into();
    }
    if value == 0.0 {
        return "0".into(); // -0 too
    }
    if value.fract() == 0.0 && value.abs() < 9_007_199_254_740_992.0 {
        return (value as i64).to_string();
    }
    let written = serde_json::to_string(&value.abs()).unwrap_or_default();
    let (digits, n) = shortest_digits(&written);
    let k = digits.len() as i64;
    let mut out = String::with_capacity(k as usize + 8);
    if value < 0.0 {
        out.push('-');
    }
    if k <= n && n <= 21 {
        out.push_str(&digits);
        out.extend(std::iter::repeat('0').take((n - k) as usize));
    } else if 0 < n && n <= 21 {
        out.push_str(&digits[..n as usize]);
        out.push('.');
        out.push_str(&digits[n as usize..]);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat('0').take((-n) as usize));
        out.push_str(&digits);
    } else {
        out.push_str(&digits[..1]);
        if k > 1 {
            out.push('.');
            out.push_str(&digits[1..]);
        }
        out.push('e');
        out.push(if n - 1 < 0 { '-' } else { '+' });
        out.push_str(&(n - 1).abs().to_string());
    }
    out
}

/// The significant digits `d1…dk` (no leading or trailing zeros) and the
/// exponent `n` with value = 0.d1…dk × 10^n, of a positive number as a
/// float writer wrote it (`123.45`, `1e21`, `1.5e-7`, `0.001`, `5.0`).
fn shortest_digits(written: &str) -> (String, i64) {
    let (mantissa, exponent) = match written.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i64>().unwrap_or(0)),
        None => (written, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = int.chars().chain(frac.chars()).collect();
    let leading = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_start_matches('0').trim_end_matches('0');
    let n = int.len() as i64 - leading as i64 + exponent;
    (digits.to_owned(), n)
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
    fn writes_numbers_as_javascript_does() {
        let cases: [(f64, &str); 22] = [
            (0.0, "0"),
            (-0.0, "0"),
            (1.5, "1.5"),
            (-1.5, "-1.5"),
            (2e20, "200000000000000000000"),
            (1e21, "1e+21"),
            (1.2345e21, "1.2345e+21"),
            (123456789012345680000.0, "123456789012345680000"),
            (9_007_199_254_740_993.0, "9007199254740992"),
            (1e-6, "0.000001"),
            (1.5e-6, "0.0000015"),
            (1e-7, "1e-7"),
            (1.25e-7, "1.25e-7"),
            (0.1, "0.1"),
            (100.5, "100.5"),
            (5e-324, "5e-324"),
            (f64::MAX, "1.7976931348623157e+308"),
            (f64::MIN_POSITIVE, "2.2250738585072014e-308"),
            (0.000123, "0.000123"),
            (1e300, "1e+300"),
            (f64::NAN, "NaN"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (value, js) in cases {
            assert_eq!(js_number_text(value), js, "{value:e}");
        }
    }

    #[test]
    fn counts_digits() {
        assert_eq!(decimal_digits(0), 1);
        assert_eq!(decimal_digits(9), 1);
        assert_eq!(decimal_digits(10), 2);
        assert_eq!(decimal_digits(786_432), 6);
    }
}
