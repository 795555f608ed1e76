//! Removes ANSI/VT escape sequences (colours, cursor moves, titles) from text.

use std::borrow::Cow;

const ESC: char = '\u{1b}';
/// The 8-bit form of `ESC [`.
const CSI_C1: char = '\u{9b}';
const BEL: char = '\u{07}';

/// `text` without its escape sequences: CSI (`ESC [ … final`, also the 8-bit
/// `U+009B`), OSC (`ESC ] … BEL` or `… ESC \`), the string commands DCS,
/// SOS, PM and APC (up to `ESC \`), and the short `ESC x` and `ESC ( x`
/// forms. An unfinished sequence at the end is dropped; a lone `ESC` goes
/// too. Text without `ESC` or `U+009B` is returned as it is, uncopied.
pub fn strip_ansi(text: &str) -> Cow<'_, str> {
    if !text.contains([ESC, CSI_C1]) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ESC => match chars.peek().copied() {
                Some('[') => {
                    chars.next();
                    skip_csi(&mut chars);
                }
                Some(']') => {
                    chars.next();
                    skip_string_command(&mut chars, true);
                }
                Some('P' | 'X' | '^' | '_') => {
                    chars.next();
                    skip_string_command(&mut chars, false);
                }
                Some(' '..='/') => {
                    // `ESC ( B` and friends: intermediates, then one final.
                    while matches!(chars.peek(), Some(' '..='/')) {
                        chars.next();
                    }
                    if matches!(chars.peek(), Some('0'..='~')) {
                        chars.next();
                    }
                }
                Some('0'..='~') => {
                    chars.next();
                }
                _ => {}
            },
            CSI_C1 => skip_csi(&mut chars),
            other => out.push(other),
        }
    }
    Cow::Owned(out)
}

/// After `ESC [`: parameters and intermediates (`0x20..=0x3F`), then one
/// final byte (`0x40..=0x7E`). Anything else ends the sequence unconsumed.
fn skip_csi(chars: &mut std::iter::Peekable<std::str::Chars<'_>>) {
    while let Some(&c) = chars.peek() {
        match c {
            ' '..='?' => {
                chars.next();
            }
            '@'..='~' => {
                chars.next();
                return;
            }
            _ => return,
        }
    }
}

/// After `ESC ]` (OSC, which BEL may also end) or `ESC P`/`X`/`^`/`_`:
/// everything up to and including the string terminator `ESC \`.
fn skip_string_command(chars: &mut std::iter::Peekable<std::str::Chars<'_>>, bel_ends: bool) {
    while let Some(c) = chars.next() {
        if c == BEL && bel_ends {
            return;
        }
        if c == ESC && chars.peek() == Some(&'\\') {
            chars.next();
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::strip_ansi;
    use std::borrow::Cow;

    #[test]
    fn plain_text_is_not_copied() {
        assert!(matches!(
            strip_ansi("no escapes, ünïcode"),
            Cow::Borrowed(_)
        ));
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
    }

    #[test]
    fn unfinished_sequences_are_dropped() {
        assert_eq!(strip_ansi("text\u{1b}[31"), "text");
        assert_eq!(strip_ansi("text\u{1b}"), "text");
        assert_eq!(strip_ansi("text\u{1b}]0;never ends"), "text");
        // A character that cannot belong to a CSI ends it and is kept.
        assert_eq!(strip_ansi("\u{1b}[3\né"), "\né");
    }
}
