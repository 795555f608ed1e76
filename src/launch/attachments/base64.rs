//! Just enough base64 (RFC 4648, standard alphabet, padded) to check an
//! image's data: whether it is base64, how many bytes it holds, and its
//! first bytes (the image type's signature), and its bytes a piece at a
//! time (the session record's digest). The host encodes; nothing here
//! copies the whole.

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

/// Hands `text`'s bytes to `each`, a few KiB at a time, without holding
/// them all; `text` is checked apart ([`decoded_len`]).
pub fn decode_pieces(text: &str, mut each: impl FnMut(&[u8])) {
    let mut out = [0u8; 3 * 1024];
    let mut filled = 0;
    for chunk in text.as_bytes().chunks(4) {
        let mut bits = 0u32;
        let mut got = 0;
        for (i, &c) in chunk.iter().enumerate() {
            let Some(v) = value(c) else { break };
            bits |= u32::from(v) << (18 - 6 * i);
            got = i;
        }
        let bytes = bits.to_be_bytes();
        out[filled..filled + got].copy_from_slice(&bytes[1..1 + got]);
        filled += got;
        if filled + 3 > out.len() {
            each(&out[..filled]);
            filled = 0;
        }
    }
    if filled > 0 {
        each(&out[..filled]);
    }
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

    #[test]
    fn pieces_make_the_whole() {
        let whole = |text: &str| {
            let mut all = Vec::new();
            decode_pieces(text, |piece| all.extend_from_slice(piece));
            all
        };
        assert_eq!(whole("aGVsbG8="), b"hello");
        assert_eq!(whole("aGVsbA=="), b"hell");
        assert_eq!(whole("aGVsbG8h"), b"hello!");
        // Longer than one piece: 3 KiB + 3 bytes.
        let bytes: Vec<u8> = (0..3 * 1024 + 3).map(|i| (i * 7 % 251) as u8).collect();
        let text = encode(&bytes);
        assert_eq!(whole(&text), bytes);
    }

    fn encode(bytes: &[u8]) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, &b)| acc | (u32::from(b) << (16 - 8 * i)));
            for i in 0..4 {
                if i <= chunk.len() {
                    out.push(ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char);
                } else {
                    out.push('=');
                }
            }
        }
        out
    }
}
