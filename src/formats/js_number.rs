//! JavaScript numbers: read as a count or a cursor, and written as
//! JavaScript writes them.

/// The largest integer a JS number holds exactly (`Number.MAX_SAFE_INTEGER`).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// A JS number as a count or a limit: a whole number `>= 0` (beyond
/// `usize::MAX`, `usize::MAX`), else `None`.
pub fn count_from_number(n: f64) -> Option<usize> {
    // `as` saturates at `usize::MAX`.
    (n >= 0.0 && n.fract() == 0.0).then_some(n as usize)
}

/// A JS number as a cursor: a whole number `>= 0` up to
/// `Number.MAX_SAFE_INTEGER`, else `None`.
pub fn cursor_from_number(n: f64) -> Option<u64> {
    ((0.0..=MAX_SAFE_INTEGER as f64).contains(&n) && n.fract() == 0.0).then_some(n as u64)
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
    fn counts_and_cursors_are_whole_numbers_from_zero() {
        assert_eq!(count_from_number(0.0), Some(0));
        assert_eq!(count_from_number(5.0), Some(5));
        assert_eq!(count_from_number(f64::MAX), Some(usize::MAX));
        assert_eq!(
            cursor_from_number(MAX_SAFE_INTEGER as f64),
            Some(MAX_SAFE_INTEGER)
        );
        assert_eq!(cursor_from_number(2f64.powi(53)), None);
        for bad in [f64::NAN, f64::INFINITY, -1.0, 1.5] {
            assert_eq!(count_from_number(bad), None, "{bad}");
            assert_eq!(cursor_from_number(bad), None, "{bad}");
        }
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
}
