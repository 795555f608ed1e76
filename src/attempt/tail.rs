//! The envelope's `last_lines`: the last lines Gemini CLI printed, stdout
//! and stderr in the order their lines completed, ANSI escapes removed,
//! blank lines left out, each line cut to [`LINE_MAX_CHARS`]. Only the kept
//! lines and one bounded unfinished line per stream are held.

use std::collections::VecDeque;

use crate::agent_output::strip_ansi;

/// How many lines the envelope keeps.
pub const LAST_LINES: usize = 20;
/// A longer line keeps its head and says how much was cut.
pub const LINE_MAX_CHARS: usize = 1000;
/// Bytes of an unfinished line held (a character is at most 4 bytes).
const PENDING_MAX_BYTES: usize = LINE_MAX_CHARS * 4;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

#[derive(Clone, Debug, Default)]
struct Pending {
    head: Vec<u8>,
    /// Bytes of the line past `head`.
    dropped: usize,
}

impl Pending {
    fn add(&mut self, bytes: &[u8]) {
        let room = PENDING_MAX_BYTES.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        self.dropped += bytes.len() - take;
    }

    fn take(&mut self) -> Option<(Vec<u8>, usize)> {
        if self.head.is_empty() && self.dropped == 0 {
            return None;
        }
        let dropped = std::mem::take(&mut self.dropped);
        Some((std::mem::take(&mut self.head), dropped))
    }
}

/// A kept line: cleaned already, or raw when cleaning it cannot make it
/// blank (cleaned in `finish`, so only the last lines ever are: a long
/// stream's lines are not each decoded, stripped and counted).
#[derive(Clone, Debug)]
enum Kept {
    Line(String),
    Raw(Vec<u8>, usize),
}

#[derive(Clone, Debug, Default)]
pub struct OutputTail {
    lines: VecDeque<Kept>,
    stdout: Pending,
    stderr: Pending,
}

impl OutputTail {
    pub fn push(&mut self, stream: Stream, chunk: &[u8]) {
        let Some(first) = memchr::memchr(b'\n', chunk) else {
            self.pending(stream).add(chunk);
            return;
        };
        // The line that was pending ends here.
        self.pending(stream).add(&chunk[..first]);
        self.line_ends(stream);
        let last = memchr::memrchr(b'\n', chunk).unwrap_or(first);
        // The chunk's other complete lines: only the last LAST_LINES of them
        // that are not blank can be kept, so they are looked for from the
        // end, and the lines before them are never copied or cleaned (a
        // long stream's every byte goes through here).
        let mut found = Vec::new();
        if last > first {
            let body = &chunk[first + 1..last];
            let mut end = body.len();
            loop {
                let start = memchr::memrchr(b'\n', &body[..end]).map_or(0, |at| at + 1);
                let line = &body[start..end];
                let take = line.len().min(PENDING_MAX_BYTES);
                if let Some(kept) = kept(line[..take].to_vec(), line.len() - take) {
                    found.push(kept);
                    if found.len() == LAST_LINES {
                        break;
                    }
                }
                if start == 0 {
                    break;
                }
                end = start - 1;
            }
        }
        for kept in found.into_iter().rev() {
            self.push_kept(kept);
        }
        self.pending(stream).add(&chunk[last + 1..]);
    }

    /// The kept lines, unfinished ones (stdout's, then stderr's) included.
    pub fn finish(mut self) -> Vec<String> {
        self.line_ends(Stream::Stdout);
        self.line_ends(Stream::Stderr);
        self.lines
            .into_iter()
            .filter_map(|kept| match kept {
                Kept::Line(line) => Some(line),
                Kept::Raw(head, dropped) => clean_line(&head, dropped),
            })
            .collect()
    }

    fn pending(&mut self, stream: Stream) -> &mut Pending {
        match stream {
            Stream::Stdout => &mut self.stdout,
            Stream::Stderr => &mut self.stderr,
        }
    }

    /// The stream's pending line is complete: kept unless blank.
    fn line_ends(&mut self, stream: Stream) {
        if let Some(kept) = self
            .pending(stream)
            .take()
            .and_then(|(head, dropped)| kept(head, dropped))
        {
            self.push_kept(kept);
        }
    }

    fn push_kept(&mut self, kept: Kept) {
        if self.lines.len() == LAST_LINES {
            self.lines.pop_front();
        }
        self.lines.push_back(kept);
    }
}

/// A line (its first bytes, and how many more it had) as it is kept, or
/// `None` when it is blank once cleaned.
fn kept(head: Vec<u8>, dropped: usize) -> Option<Kept> {
    if surely_shown(&head) {
        Some(Kept::Raw(head, dropped))
    } else {
        clean_line(&head, dropped).map(Kept::Line)
    }
}

/// A line that cleaning leaves non-blank (it is cleaned only if it is still
/// kept at the end): one that starts with a visible ASCII character, which
/// no escape sequence can take away (most lines, never scanned further), or
/// one with no escape byte (ESC, or 9B of U+009B) for `strip_ansi` to
/// remove and a visible ASCII character.
fn surely_shown(head: &[u8]) -> bool {
    head.first().is_some_and(u8::is_ascii_graphic)
        || (memchr::memchr2(0x1b, 0x9b, head).is_none() && head.iter().any(u8::is_ascii_graphic))
}

/// The line as text, or `None` when it is blank.
fn clean_line(head: &[u8], dropped: usize) -> Option<String> {
    let text = String::from_utf8_lossy(head);
    let text = strip_ansi(&text);
    let text = text.trim_end();
    if text.trim_start().is_empty() {
        return None;
    }
    let chars = text.chars().count();
    if chars <= LINE_MAX_CHARS && dropped == 0 {
        return Some(text.to_owned());
    }
    let kept: String = text.chars().take(LINE_MAX_CHARS).collect();
    let cut = text.len() - kept.len() + dropped;
    Some(format!("{kept} … [{cut} more bytes]"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn raw_lines_cleaned_at_the_end_keep_the_same_last_twenty() {
        let mut tail = OutputTail::default();
        let mut out = String::new();
        for n in 0..30 {
            out.push_str(&format!("{{\"n\":{n}}}\n"));
        }
        // Blank once cleaned: they do not push real lines out.
        out.push_str("\x1b[2K\x1b[0m\n   \n\u{3000}\n\x1b[1mbold\x1b[0m \n");
        tail.push(Stream::Stdout, out.as_bytes());
        tail.push(Stream::Stderr, "only spaces and é\u{a0}\n".as_bytes());
        let lines = tail.finish();
        assert_eq!(lines.len(), LAST_LINES);
        assert_eq!(lines[0], "{\"n\":12}");
        assert_eq!(lines[17], "{\"n\":29}");
        assert_eq!(lines[18], "bold");
        assert_eq!(lines[19], "only spaces and é");
    }

    #[test]
    fn keeps_the_last_twenty_lines_of_both_streams_in_order() {
        let mut tail = OutputTail::default();
        tail.push(
            Stream::Stderr,
            b"Warning: one\n\x1b[31mred\x1b[0m\r\n\n   \n",
        );
        tail.push(Stream::Stdout, b"{\"type\":\"init\"}\n{\"type\":");
        tail.push(Stream::Stderr, b"half");
        tail.push(Stream::Stdout, b"\"result\"}\n");
        tail.push(Stream::Stderr, b" line\nlast without newline");
        assert_eq!(
            tail.finish(),
            [
                "Warning: one",
                "red",
                "{\"type\":\"init\"}",
                "{\"type\":\"result\"}",
                "half line",
                "last without newline"
            ]
        );

        let mut tail = OutputTail::default();
        for i in 0..50 {
            tail.push(Stream::Stdout, format!("line {i}\n").as_bytes());
        }
        let lines = tail.finish();
        assert_eq!(lines.len(), LAST_LINES);
        assert_eq!(lines[0], "line 30");
        assert_eq!(lines[19], "line 49");

        // The same lines in one chunk, blank ones among them.
        let mut tail = OutputTail::default();
        tail.push(Stream::Stderr, b"before\n");
        let out: String = (0..50).map(|i| format!("line {i}\n \n")).collect();
        tail.push(Stream::Stdout, out.as_bytes());
        let lines = tail.finish();
        assert_eq!(lines.len(), LAST_LINES);
        assert_eq!(lines[0], "line 30");
        assert_eq!(lines[19], "line 49");
    }

    #[test]
    fn long_lines_keep_their_head_and_say_what_was_cut() {
        let mut tail = OutputTail::default();
        let long = "é".repeat(3000);
        // In pieces, split inside a character.
        let bytes = long.as_bytes();
        tail.push(Stream::Stdout, &bytes[..1001]);
        tail.push(Stream::Stdout, &bytes[1001..]);
        tail.push(Stream::Stdout, b"\nshort\n");
        let lines = tail.finish();
        assert_eq!(lines.len(), 2);
        let expected = format!("{} … [{} more bytes]", "é".repeat(1000), 6000 - 2000);
        assert_eq!(lines[0], expected);
        assert_eq!(lines[1], "short");
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
mod properties {
    use super::*;
    use proptest::prelude::*;

    /// What the tail must hold, written plainly: every completed line
    /// cleaned in turn, the blank ones left out, the last twenty kept.
    #[derive(Default)]
    struct LineByLine {
        lines: VecDeque<String>,
        stdout: Pending,
        stderr: Pending,
    }

    impl LineByLine {
        fn pending(&mut self, stream: Stream) -> &mut Pending {
            match stream {
                Stream::Stdout => &mut self.stdout,
                Stream::Stderr => &mut self.stderr,
            }
        }

        fn line_ends(&mut self, stream: Stream) {
            if let Some((head, dropped)) = self.pending(stream).take() {
                if let Some(line) = clean_line(&head, dropped) {
                    if self.lines.len() == LAST_LINES {
                        self.lines.pop_front();
                    }
                    self.lines.push_back(line);
                }
            }
        }

        fn push(&mut self, stream: Stream, chunk: &[u8]) {
            let mut rest = chunk;
            while let Some(at) = rest.iter().position(|&b| b == b'\n') {
                self.pending(stream).add(&rest[..at]);
                self.line_ends(stream);
                rest = &rest[at + 1..];
            }
            self.pending(stream).add(rest);
        }

        fn finish(mut self) -> Vec<String> {
            self.line_ends(Stream::Stdout);
            self.line_ends(Stream::Stderr);
            self.lines.into()
        }
    }

    fn line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            4 => "[a-z {}\":,]{0,30}".prop_map(String::into_bytes),
            // Blank once cleaned: spaces, escapes, a lone CR.
            2 => prop::sample::select(vec!["", "   ", "\x1b[2K", "\r", "\x1b[1m \x1b[0m", "\u{3000}"])
                .prop_map(|s| s.as_bytes().to_vec()),
            1 => "\x1b\\[31m[a-z]{1,5}\x1b\\[0m\r?".prop_map(String::into_bytes),
            // Longer than what is held of a line.
            1 => (3990usize..4100).prop_map(|n| "é".repeat(n / 2).into_bytes()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn keeps_what_a_line_by_line_tail_keeps(
            lines in prop::collection::vec((line(), any::<bool>()), 0..200),
            cuts in prop::collection::vec((any::<prop::sample::Index>(), any::<bool>()), 0..6),
            turns in prop::collection::vec(any::<bool>(), 0..16),
            unfinished in any::<bool>(),
        ) {
            // Each stream's output, cut into chunks at random places, the
            // streams' chunks interleaved.
            let mut outputs = [Vec::new(), Vec::new()];
            for (line, stderr) in &lines {
                let out = &mut outputs[usize::from(*stderr)];
                out.extend_from_slice(line);
                out.push(b'\n');
            }
            if unfinished {
                outputs[0].extend_from_slice(b"unfinished");
            }
            let mut queues = [Vec::new(), Vec::new()];
            for (which, output) in outputs.iter().enumerate() {
                let mut at: Vec<usize> = cuts
                    .iter()
                    .filter(|(_, mine)| usize::from(*mine) == which)
                    .map(|(index, _)| index.index(output.len() + 1))
                    .collect();
                at.push(0);
                at.push(output.len());
                at.sort_unstable();
                queues[which] = at.windows(2).map(|pair| &output[pair[0]..pair[1]]).collect();
                queues[which].reverse();
            }
            // Each stream's chunks in their order, the streams taking turns
            // as `turns` says.
            let mut chunks = Vec::new();
            for stderr in turns.iter().copied().chain(std::iter::repeat(false).take(20)).chain(std::iter::repeat(true).take(20)) {
                let (which, stream) = if stderr { (1, Stream::Stderr) } else { (0, Stream::Stdout) };
                if let Some(chunk) = queues[which].pop() {
                    chunks.push((stream, chunk));
                }
            }
            prop_assert!(queues.iter().all(Vec::is_empty));
            let (mut fast, mut reference) = (OutputTail::default(), LineByLine::default());
            for (stream, chunk) in &chunks {
                fast.push(*stream, chunk);
                reference.push(*stream, chunk);
            }
            prop_assert_eq!(fast.finish(), reference.finish());
        }
    }
}
