//! Substring search on bytes. The texts searched here are short (a line, a
//! message, the template), so a plain scan does; it keeps the standard
//! library's two-way searcher, which nothing else in the crate needs, out
//! of the `.wasm`.

/// The byte offset of the first `needle` in `haystack`.
pub fn find(haystack: &str, needle: &str) -> Option<usize> {
    let (h, n) = (haystack.as_bytes(), needle.as_bytes());
    if n.len() > h.len() {
        return None;
    }
    (0..=h.len() - n.len()).find(|&i| h[i..].starts_with(n))
}

pub fn contains(haystack: &str, needle: &str) -> bool {
    find(haystack, needle).is_some()
}

/// `text` split at each `separator` (which must not be empty).
pub fn split<'a>(text: &'a str, separator: &str) -> Vec<&'a str> {
    let mut parts = Vec::new();
    let mut rest = text;
    while let Some(at) = find(rest, separator).filter(|_| !separator.is_empty()) {
        parts.push(&rest[..at]);
        rest = &rest[at + separator.len()..];
    }
    parts.push(rest);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_and_splits() {
        assert_eq!(find("fetch failed sending", "failed"), Some(6));
        assert_eq!(find("ab", "abc"), None);
        assert_eq!(find("", ""), Some(0));
        assert_eq!(find("é{{x}}", "{{"), Some(2));
        assert!(contains("Error resuming session: x", "resuming session"));
        assert!(!contains("Error", "error"));
        assert_eq!(split("a\n\nb\n\n\nc", "\n\n"), ["a", "b", "\nc"]);
        assert_eq!(split("abc", "\n\n"), ["abc"]);
        assert_eq!(split("abc", ""), ["abc"]);
    }
}
