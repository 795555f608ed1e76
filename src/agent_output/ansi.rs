//! Removes ANSI/VT escape sequences (colours, cursor moves, titles) from text.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
/// The 8-bit form of `ESC [`.
const CSI_C1: char = '\u{9b}';
const BEL: char = '\u{07}';

/// Whether `text` holds anything that starts an escape sequence.
pub fn has_escape(text: &str) -> bool {
    // ESC is one byte; U+009B is C2 9B in UTF-8. A 9B byte is also the
    // continuation byte of many CJK characters (国 is E5 9B BD), so one
    // counts only after C2.
    let bytes = text.as_bytes();
    memchr::memchr2_iter(0x1b, 0x9b, bytes)
        .any(|at| bytes[at] == 0x1b || (at > 0 && bytes[at - 1] == 0xc2))
}

/// `text` without its escape sequences: CSI (`ESC [ … final`, also the 8-bit
/// `U+009B`), OSC (`ESC ] … BEL` or `… ESC \`), the string commands DCS,
/// SOS, PM and APC (up to `ESC \`), and the short `ESC x` and `ESC ( x`
/// forms. An unfinished sequence at the end is dropped; a lone `ESC` goes
/// too. Text without `ESC` or `U+009B` is returned as it is, uncopied.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !has_escape(text) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find([ESC, CSI_C1]) {
        out.push_str(&rest[..start]);
        match sequence_len(&rest[start..]) {
            Some(len) => rest = &rest[start + len..],
            None => return Cow::Owned(out),
        }
    }
    out.push_str(rest);
    Cow::Owned(out)
}

/// Where the escape sequence that `text` ends inside of begins: text after
/// it may still finish it. `None` when every sequence in `text` is complete.
pub fn unfinished_escape_start(text: &str) -> Option<usize> {
    let mut offset = 0;
    while let Some(start) = text[offset..].find([ESC, CSI_C1]) {
        let at = offset + start;
        match sequence_len(&text[at..]) {
            Some(len) => offset = at + len,
            None => return Some(at),
        }
    }
    None
}

/// The length in bytes of the escape sequence `text` starts with (it starts
/// with `ESC` or `U+009B`), or `None` when `text` ends before the sequence
/// does.
fn sequence_len(text: &str) -> Option<usize> {
    let mut chars = text.char_indices();
    let (_, first) = chars.next()?;
    if first == CSI_C1 {
        return csi_len(text, first.len_utf8());
    }
    let (at, second) = chars.next()?;
    let body = at + second.len_utf8();
    match second {
        '[' => csi_len(text, body),
        ']' => string_command_len(text, body, true),
        'P' | 'X' | '^' | '_' => string_command_len(text, body, false),
        ' '..='/' => {
            // `ESC ( B` and friends: intermediates, then one final.
            for (i, c) in text[body..].char_indices() {
                match c {
                    ' '..='/' => {}
                    '0'..='~' => return Some(body + i + 1),
                    _ => return Some(body + i),
                }
            }
            None
        }
        '0'..='~' => Some(body),
        // Not a sequence: only the ESC goes.
        _ => Some(at),
    }
}

/// A CSI after its introducer: parameters and intermediates (`0x20..=0x3F`),
/// then one final byte (`0x40..=0x7E`). Any other character ends the
/// sequence and is kept.
fn csi_len(text: &str, body: usize) -> Option<usize> {
    for (i, c) in text[body..].char_indices() {
        match c {
            ' '..='?' => {}
            '@'..='~' => return Some(body + i + 1),
            _ => return Some(body + i),
        }
    }
    None
}

/// OSC (which BEL may also end), DCS, SOS, PM, APC: up to and including the
/// string terminator `ESC \`.
fn string_command_len(text: &str, body: usize, bel_ends: bool) -> Option<usize> {
    let rest = &text[body..];
    let mut chars = rest.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == BEL && bel_ends {
            return Some(body + i + 1);
        }
        if c == ESC && chars.peek().map(|&(_, n)| n) == Some('\\') {
            return Some(body + i + 2);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::{has_escape, strip_ansi, unfinished_escape_start};
    use std::borrow::Cow;

    #[test]
    fn plain_text_is_not_copied() {
        assert!(matches!(
            strip_ansi("no escapes, ünïcode"),
            Cow::Borrowed(_)
        ));
        // 国 is E5 9B BD: a 9B byte that is not U+009B.
        assert!(!has_escape("中国的设计"));
        assert!(matches!(strip_ansi("中国的设计"), Cow::Borrowed(_)));
        assert!(has_escape("中国\u{9b}1m"));
        assert!(has_escape("\u{1b}"));
    }

    #[test]
    fn strips_colours_cursor_moves_and_titles() {
        assert_eq!(strip_ansi("\u{1b}[1;31mred\u{1b}[0m ok"), "red ok");
        assert_eq!(strip_ansi("a\u{1b}[2Kb\u{1b}[?25lc"), "abc");
        assert_eq!(strip_ansi("\u{1b}]0;title\u{7}text"), "text");
        assert_eq!(
            strip_ansi("\u{1b}]8;;https://x\u{1b}\\link\u{1b}]8;;\u{1b}\\"),
            "link"
        );
        assert_eq!(strip_ansi("\u{1b}(Bx\u{1b}=y\u{1b}7z"), "xyz");
        assert_eq!(strip_ansi("\u{9b}32mgreen"), "green");
        assert_eq!(strip_ansi("\u{1b}P1$r\u{1b}\\after"), "after");
        assert_eq!(strip_ansi("a\u{1b}\u{e9}b"), "a\u{e9}b");
    }

    #[test]
    fn unfinished_sequences_are_dropped() {
        assert_eq!(strip_ansi("text\u{1b}[31"), "text");
        assert_eq!(strip_ansi("text\u{1b}"), "text");
        assert_eq!(strip_ansi("text\u{1b}]0;never ends"), "text");
        assert_eq!(strip_ansi("text\u{1b}("), "text");
        // A character that cannot belong to a CSI ends it and is kept.
        assert_eq!(strip_ansi("\u{1b}[3\n\u{e9}"), "\n\u{e9}");
    }

    #[test]
    fn finds_where_an_unfinished_sequence_starts() {
        assert_eq!(unfinished_escape_start("plain"), None);
        assert_eq!(unfinished_escape_start("\u{1b}[31mred"), None);
        assert_eq!(unfinished_escape_start("red\u{1b}[3"), Some(3));
        assert_eq!(unfinished_escape_start("\u{1b}[0mok\u{1b}"), Some(6));
        assert_eq!(unfinished_escape_start("x\u{1b}]0;title"), Some(1));
        // Finishing it later strips it whole.
        assert_eq!(strip_ansi("red\u{1b}[3" /* + */), "red");
        assert_eq!(
            strip_ansi(&format!("{}{}", "red\u{1b}[3", "1mblue")),
            "redblue"
        );
    }
}
