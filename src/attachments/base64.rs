//! Just enough base64 (RFC 4648, standard alphabet, padded) to check an
//! image's data: whether it is base64, how many bytes it holds, and its
//! first bytes (the image type's signature). The host encodes; nothing
//! here copies the whole.

fn value(c: u8) -> Option<u8> {
    match c {
        b'A'..=b'Z' => Some(c - b'A'),
        b'a'..=b'z' => Some(c - b'a' + 26),
        b'0'..=b'9' => Some(c - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

/// The number of bytes `text` decodes to, or `None` when it is not padded
/// base64 (empty included).
pub fn decoded_len(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    if bytes.is_empty() || bytes.len() % 4 != 0 {
        return None;
    }
    let pad = bytes.iter().rev().take_while(|&&c| c == b'=').count();
    if pad > 2 {
        return None;
    }
    let body = &bytes[..bytes.len() - pad];
    if !body.iter().all(|&c| value(c).is_some()) {
        return None;
    }
    Some(bytes.len() / 4 * 3 - pad)
}

/// The first `n` bytes `text` decodes to (fewer when it holds fewer);
/// `text` is checked apart ([`decoded_len`]).
pub fn decode_head(text: &str, n: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(n + 2);
    for chunk in text.as_bytes().chunks(4) {
        let v: Vec<u8> = chunk.iter().map_while(|&c| value(c)).collect();
        let bits = v
            .iter()
            .enumerate()
            .fold(0u32, |acc, (i, &x)| acc | (u32::from(x) << (18 - 6 * i)));
        let got = v.len().saturating_sub(1);
        out.extend(bits.to_be_bytes()[1..1 + got].iter());
        if out.len() >= n || v.len() < 4 {
            break;
        }
    }
    out.truncate(n);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lengths_and_heads() {
        assert_eq!(decoded_len("aGVsbG8="), Some(5));
        assert_eq!(decoded_len("aGVsbG8h"), Some(6));
        assert_eq!(decoded_len("aGVsbA=="), Some(4));
        assert_eq!(decoded_len(""), None);
        assert_eq!(decoded_len("aGVsbG8"), None);
        assert_eq!(decoded_len("aGV*bG8="), None);
        assert_eq!(decoded_len("a==="), None);
        assert_eq!(decode_head("aGVsbG8=", 12), b"hello");
        assert_eq!(decode_head("aGVsbG8gd29ybGQh", 7), b"hello w");
        assert_eq!(decode_head("iVBORw0KGgo=", 8), b"\x89PNG\r\n\x1a\n");
    }
}
