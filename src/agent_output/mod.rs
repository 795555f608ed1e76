//! Agent output parsing (SPEC §6): the JSON lines Claude Code, Codex and
//! Gemini CLI print, turned into the reply text, the session id, the status,
//! errors, tool calls and usage. Any other agent's output is plain text.
//!
//! [`AgentOutputParser`] takes the output in chunks split anywhere (inside a
//! line, inside a UTF-8 character) and hands out the events each chunk
//! completes; [`parse_agent_output`] is the same parser fed the whole text
//! at once, so both give the same [`AgentReply`].
//!
//! ```
//! use agent_context::agent_output::{parse_agent_output, ReplyStatus};
//!
//! let out = br#"{"type":"init","session_id":"s1","model":"m"}
//! {"type":"message","role":"user","content":"our prompt"}
//! {"type":"message","role":"assistant","content":"Hel","delta":true}
//! {"type":"message","role":"assistant","content":"lo","delta":true}
//! {"type":"result","status":"success"}
//! "#;
//! let reply = parse_agent_output("google-gemini", out);
//! assert_eq!(reply.text, "Hello");
//! assert_eq!(reply.session_id.as_deref(), Some("s1"));
//! assert_eq!(reply.status, ReplyStatus::Success);
//! ```

mod ansi;
mod builder;
mod claude;
mod codex;
mod gemini;
mod json;
mod lines;
mod reply;

pub use ansi::strip_ansi;
pub use reply::{AgentEvent, AgentReply, ReplyError, ReplyStatus, ToolStatus, ToolUse, Usage};

use std::borrow::Cow;

use serde_json::Value;

use crate::assemblers::{CLAUDE, CODEX, GEMINI};
use builder::ReplyBuilder;
use lines::LineBuffer;

/// What an agent CLI prints, by agent type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OutputFormat {
    /// Claude Code `-p --output-format stream-json --verbose`.
    ClaudeStreamJson,
    /// Codex `exec --json`.
    CodexJson,
    /// Gemini CLI `-o stream-json`.
    GeminiStreamJson,
    /// Any other agent: its text, ANSI escapes removed.
    PlainText,
}

impl OutputFormat {
    /// `'claude-code'`, `'openai-codex'` and `'google-gemini'` have their
    /// formats; every other agent type is plain text.
    pub fn for_agent(agent_type: &str) -> OutputFormat {
        if agent_type == CLAUDE.agent_type {
            OutputFormat::ClaudeStreamJson
        } else if agent_type == CODEX.agent_type {
            OutputFormat::CodexJson
        } else if agent_type == GEMINI.agent_type {
            OutputFormat::GeminiStreamJson
        } else {
            OutputFormat::PlainText
        }
    }
}

/// Parses output as it arrives. Memory holds the reply so far and the one
/// unfinished line, never the whole output.
#[derive(Debug)]
pub struct AgentOutputParser {
    format: OutputFormat,
    lines: LineBuffer,
    reply: ReplyBuilder,
}

impl AgentOutputParser {
    /// A parser for `agent_type`'s output that reports events.
    pub fn new(agent_type: &str) -> Self {
        Self::with_format(OutputFormat::for_agent(agent_type), true)
    }

    fn with_format(format: OutputFormat, record_events: bool) -> Self {
        AgentOutputParser {
            format,
            lines: LineBuffer::default(),
            reply: ReplyBuilder::new(record_events),
        }
    }

    pub fn format(&self) -> OutputFormat {
        self.format
    }

    /// Bytes held for the line not yet ended: all the output this parser
    /// keeps besides the reply.
    pub fn buffered_bytes(&self) -> usize {
        self.lines.pending_len()
    }

    /// Feeds `chunk`; returns the events of the lines it completed, in order.
    /// Bytes after the last `\n` wait for the next chunk (or `finish`).
    pub fn push(&mut self, chunk: &[u8]) -> Vec<AgentEvent> {
        let (format, reply) = (self.format, &mut self.reply);
        self.lines
            .push(chunk, |line| read_line(format, reply, &decode(line), true));
        self.reply.take_events()
    }

    /// Feeds text that is already UTF-8 (a JS string): as [`push`](Self::push),
    /// without checking the lines' UTF-8 again.
    pub fn push_str(&mut self, chunk: &str) -> Vec<AgentEvent> {
        let (format, reply) = (self.format, &mut self.reply);
        self.lines.push_str(chunk, |line| match line {
            Ok(text) => read_line(format, reply, text, true),
            Err(bytes) => read_line(format, reply, &decode(bytes), true),
        });
        self.reply.take_events()
    }

    /// Ends the output: a last line without `\n` is read as a line (a JSON
    /// line cut short by a killed CLI lands in `nonJsonLines`), then the reply
    /// is returned. Plain text, which has no final event, ends in `success`.
    pub fn finish(mut self) -> AgentReply {
        if let Some(last) = self.lines.take_unterminated() {
            read_line(self.format, &mut self.reply, &decode(&last), false);
        }
        if self.format == OutputFormat::PlainText {
            self.reply.succeed();
        }
        self.reply.finish()
    }
}

/// The whole output of `agent_type`'s CLI at once (`parseAgentOutput`).
pub fn parse_agent_output(agent_type: &str, output: &[u8]) -> AgentReply {
    let mut parser = AgentOutputParser::with_format(OutputFormat::for_agent(agent_type), false);
    parser.push(output);
    parser.finish()
}

/// [`parse_agent_output`] for text that is already UTF-8 (a JS string).
pub fn parse_agent_output_str(agent_type: &str, output: &str) -> AgentReply {
    let mut parser = AgentOutputParser::with_format(OutputFormat::for_agent(agent_type), false);
    parser.push_str(output);
    parser.finish()
}

/// A line's bytes as text; invalid UTF-8 reads as U+FFFD.
fn decode(line: &[u8]) -> Cow<'_, str> {
    match std::str::from_utf8(line) {
        Ok(text) => Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(line),
    }
}

/// One line, without its `\n`.
fn read_line(format: OutputFormat, reply: &mut ReplyBuilder, text: &str, terminated: bool) {
    let reader = match format {
        OutputFormat::PlainText => {
            if terminated {
                reply.raw(&format!("{text}\n"));
            } else {
                reply.raw(text);
            }
            return;
        }
        OutputFormat::ClaudeStreamJson => claude::read,
        OutputFormat::CodexJson => codex::read,
        OutputFormat::GeminiStreamJson => {
            if gemini::read_message_line(text, reply) {
                return;
            }
            gemini::read
        }
    };
    match json_object(text) {
        Some(event) => {
            if let Some(kind) = event.get("type").and_then(Value::as_str) {
                reader(&event, kind, reply);
            }
        }
        None => reply.non_json(text),
    }
}

/// The line as a JSON object, also when colour codes wrap it; `None` for
/// anything else (a warning, a truncated line, a JSON array or string).
fn json_object(line: &str) -> Option<Value> {
    let parse = |s: &str| {
        let s = s.trim();
        if !s.starts_with('{') {
            return None;
        }
        serde_json::from_str::<Value>(s)
            .ok()
            .filter(Value::is_object)
    };
    parse(line).or_else(|| match strip_ansi(line) {
        std::borrow::Cow::Owned(stripped) => parse(&stripped),
        std::borrow::Cow::Borrowed(_) => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agent_types_pick_formats() {
        assert_eq!(
            OutputFormat::for_agent("claude-code"),
            OutputFormat::ClaudeStreamJson
        );
        assert_eq!(
            OutputFormat::for_agent("openai-codex"),
            OutputFormat::CodexJson
        );
        assert_eq!(
            OutputFormat::for_agent("google-gemini"),
            OutputFormat::GeminiStreamJson
        );
        assert_eq!(OutputFormat::for_agent("aider"), OutputFormat::PlainText);
        assert_eq!(OutputFormat::for_agent(""), OutputFormat::PlainText);
    }

    #[test]
    fn plain_text_is_kept_with_its_line_breaks_minus_escapes() {
        let reply = parse_agent_output("aider", b"\x1b[32mdone\x1b[0m\r\nnext\nlast");
        assert_eq!(reply.text, "done\r\nnext\nlast");
        assert_eq!(reply.status, ReplyStatus::Success);
        assert!(reply.non_json_lines.is_empty());
    }

    #[test]
    fn json_lines_wrapped_in_colour_codes_still_parse() {
        let reply = parse_agent_output(
            "openai-codex",
            b"\x1b[0m{\"type\":\"thread.started\",\"thread_id\":\"t\"}\x1b[0m\n",
        );
        assert_eq!(reply.session_id.as_deref(), Some("t"));
        assert!(reply.non_json_lines.is_empty());
    }

    #[test]
    fn events_arrive_as_lines_complete() {
        let mut parser = AgentOutputParser::new("openai-codex");
        assert!(parser
            .push(b"{\"type\":\"thread.started\",\"thread_id\":\"01")
            .is_empty());
        assert_eq!(
            parser.push(b"a\"}\n{\"type\""),
            vec![AgentEvent::Session {
                session_id: "01a".into()
            }]
        );
        let reply = parser.finish();
        assert_eq!(reply.non_json_lines, vec!["{\"type\"".to_owned()]);
        assert_eq!(reply.status, ReplyStatus::Incomplete);
    }
}
