//! Splits a byte stream into lines, holding only the unfinished last line.

/// Collects bytes until a `\n` completes a line. Splitting on the byte `\n`
/// is safe for UTF-8, whose multi-byte sequences never contain it, so a chunk
/// may end anywhere, even inside a character.
#[derive(Debug, Default)]
pub struct LineBuffer {
    /// The bytes of the line not yet ended by `\n`.
    pending: Vec<u8>,
}

impl LineBuffer {
    /// Calls `on_line` with each line `chunk` completes, without its `\n`.
    pub fn push(&mut self, chunk: &[u8], mut on_line: impl FnMut(&[u8])) {
        let mut rest = chunk;
        while let Some(end) = memchr::memchr(b'\n', rest) {
            if self.pending.is_empty() {
                on_line(&rest[..end]);
            } else {
                self.pending.extend_from_slice(&rest[..end]);
                on_line(&self.pending);
                self.pending.clear();
            }
            rest = &rest[end + 1..];
        }
        self.pending.extend_from_slice(rest);
        if self.pending.is_empty() {
            // Give back the memory of a long line once it is done.
            self.pending.shrink_to(4096);
        }
    }

    /// Like [`push`](Self::push) for text that is already UTF-8 (a JS
    /// string): each line that lies wholly inside `chunk` is passed as
    /// `Ok(&str)` without being checked again; a line completing bytes held
    /// from an earlier chunk comes as `Err(bytes)`.
    pub fn push_str(&mut self, chunk: &str, mut on_line: impl FnMut(Result<&str, &[u8]>)) {
        let mut rest = chunk;
        while let Some(end) = memchr::memchr(b'\n', rest.as_bytes()) {
            if self.pending.is_empty() {
                on_line(Ok(&rest[..end]));
            } else {
                self.pending.extend_from_slice(&rest.as_bytes()[..end]);
                on_line(Err(&self.pending));
                self.pending.clear();
            }
            rest = &rest[end + 1..];
        }
        self.pending.extend_from_slice(rest.as_bytes());
        if self.pending.is_empty() {
            self.pending.shrink_to(4096);
        }
    }

    /// The last line, when the stream did not end with `\n`.
    pub fn take_unterminated(&mut self) -> Option<Vec<u8>> {
        if self.pending.is_empty() {
            None
        } else {
            Some(std::mem::take(&mut self.pending))
        }
    }

    /// Bytes held for the unfinished line.
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }
}

#[cfg(test)]
mod tests {
    use super::LineBuffer;

    fn lines(chunks: &[&[u8]]) -> (Vec<Vec<u8>>, Option<Vec<u8>>) {
        let mut buffer = LineBuffer::default();
        let mut out = Vec::new();
        for chunk in chunks {
            buffer.push(chunk, |line| out.push(line.to_vec()));
        }
        (out, buffer.take_unterminated())
    }

    #[test]
    fn joins_lines_split_across_chunks() {
        let (out, rest) = lines(&[b"ab", b"c\nd", b"e\n\nf"]);
        assert_eq!(out, vec![b"abc".to_vec(), b"de".to_vec(), b"".to_vec()]);
        assert_eq!(rest, Some(b"f".to_vec()));
    }

    #[test]
    fn keeps_only_the_unfinished_line() {
        let mut buffer = LineBuffer::default();
        let mut count = 0;
        for _ in 0..1000 {
            buffer.push(b"{\"type\":\"x\"}\n{\"ty", |_| count += 1);
            buffer.push(b"pe\":\"y\"}\n", |_| count += 1);
        }
        assert_eq!(count, 2000);
        assert_eq!(buffer.pending_len(), 0);
        buffer.push(
            "half a character: \u{20ac}".as_bytes().split_at(20).0,
            |_| {},
        );
        assert_eq!(buffer.pending_len(), 20);
    }
}
