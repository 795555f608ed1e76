//! What travels through the channel besides the agent's own bytes: the
//! preamble the bootstrap reads from stdin (records, one a line, values in
//! `printf %b` escapes), and the frames an operation answers with on stdout
//! (`tag length`, a newline, that many bytes).

use crate::error::{AgentContextError, Result};

/// The preamble's first line: the bootstrap refuses any other.
pub const VERSION_LINE: &str = "agent-context 1";

/// `bytes` as one line `printf %b` turns back into them: a backslash
/// doubled, control bytes (newline, NUL, …) as `\0ooo`; every other byte
/// as it is — unless they are not UTF-8 (an image): then every byte
/// outside printable ASCII is escaped.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = Vec::with_capacity(bytes.len() + 8);
    for &b in bytes {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            0..=0x1f | 0x7f => out.extend_from_slice(format!("\\0{b:03o}").as_bytes()),
            _ => out.push(b),
        }
    }
    match String::from_utf8(out) {
        Ok(text) => text,
        // Bytes that are not UTF-8 (an image): every byte of 0x80 and
        // above as an escape too.
        Err(_) => {
            let mut text = String::with_capacity(bytes.len() * 4);
            for &b in bytes {
                match b {
                    b'\\' => text.push_str("\\\\"),
                    0x20..=0x7e => text.push(b as char),
                    _ => text.push_str(&format!("\\0{b:03o}")),
                }
            }
            text
        }
    }
}

/// Whether a POSIX sh can set a variable of this name.
pub fn is_variable_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
}

/// The records for the bootstrap, built in order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Preamble {
    lines: Vec<String>,
}

impl Preamble {
    fn record(&mut self, tag: char, value: &str) {
        self.lines
            .push(format!("{tag} {}", escape(value.as_bytes())));
    }

    fn pair(&mut self, tag: char, first: &str, second: &str) {
        self.lines.push(format!(
            "{tag} {}\t{}",
            escape(first.as_bytes()),
            escape(second.as_bytes())
        ));
    }

    /// `name=value` in the agent's environment (`default`: only when the
    /// other side has no such variable). The name was checked.
    pub fn env(&mut self, name: &str, value: &str, default: bool) {
        self.pair(if default { 'D' } else { 'E' }, name, value);
    }

    pub fn folder(&mut self, path: &str) {
        self.record('M', path);
    }

    pub fn file(&mut self, path: &str, content: &str) {
        self.file_bytes(path, content.as_bytes());
    }

    pub fn file_bytes(&mut self, path: &str, content: &[u8]) {
        self.record('F', path);
        self.lines.push(escape(content));
    }

    pub fn link(&mut self, target: &str, path: &str) {
        self.pair('L', target, path);
    }

    pub fn remove(&mut self, path: &str) {
        self.record('R', path);
    }

    pub fn cd(&mut self, path: &str) {
        self.record('C', path);
    }

    pub fn command(&mut self, command: &str) {
        self.record('X', command);
    }

    pub fn arg(&mut self, arg: &str) {
        self.record('A', arg);
    }

    /// How the bootstrap names this side in its messages.
    pub fn name(&mut self, name: &str) {
        self.record('N', name);
    }

    /// A file to hand back (reap).
    pub fn output(&mut self, path: &str) {
        self.record('O', path);
    }

    /// The path an operation is about (resolve, get, put, list).
    pub fn path(&mut self, path: &str) {
        self.record('P', path);
    }

    /// The whole preamble: the version line, the records, the end.
    pub fn finish(&self) -> String {
        let mut text =
            String::with_capacity(64 + self.lines.iter().map(|l| l.len() + 1).sum::<usize>());
        text.push_str(VERSION_LINE);
        text.push('\n');
        for line in &self.lines {
            text.push_str(line);
            text.push('\n');
        }
        text.push_str(".\n");
        text
    }
}

/// One frame of an operation's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Frame {
    pub tag: String,
    pub body: Vec<u8>,
}

impl Frame {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// An operation's answer read whole: its frames up to `end`. An answer
/// that stops before `end` (the channel was cut, the other side failed)
/// is `Err` saying where.
pub fn read_frames(bytes: &[u8]) -> Result<Vec<Frame>> {
    let mut frames = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        let Some(newline) = bytes[at..].iter().position(|&b| b == b'\n') else {
            break;
        };
        let head = String::from_utf8_lossy(&bytes[at..at + newline]).into_owned();
        let (tag, len) = head
            .rsplit_once(' ')
            .and_then(|(tag, len)| len.parse::<usize>().ok().map(|n| (tag.to_owned(), n)))
            .ok_or_else(|| {
                AgentContextError::invalid(format!("the other side answered {head:?}"))
            })?;
        let start = at + newline + 1;
        let Some(body) = bytes.get(start..start + len) else {
            break;
        };
        at = start + len;
        if tag == "end" {
            return Ok(frames);
        }
        frames.push(Frame {
            tag,
            body: body.to_vec(),
        });
    }
    Err(AgentContextError::invalid(
        "the other side's answer stopped before its end",
    ))
}
