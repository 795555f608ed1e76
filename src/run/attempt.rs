//! One attempt's output as it streams: the agent's parser (its events
//! handed on live when asked), and the last lines of stdout and stderr.

use super::tail::{OutputTail, Stream};
use crate::agent_output::{AgentEvent, AgentOutputParser, AgentReply, TextForm};

#[derive(Debug)]
pub struct RunAttempt {
    parser: AgentOutputParser,
    tail: OutputTail,
}

impl RunAttempt {
    /// `events`: whether `push_stdout` returns the parser's events (each
    /// costs a copy of its text); `form`: how the reply's text is kept.
    pub fn new(agent_type: &str, events: bool, form: TextForm) -> RunAttempt {
        let parser = AgentOutputParser::with_options(agent_type, events, form);
        RunAttempt {
            parser,
            tail: OutputTail::default(),
        }
    }

    /// Reads a chunk of stdout; returns the events it completed.
    pub fn push_stdout(&mut self, chunk: &[u8]) -> Vec<AgentEvent> {
        self.tail.push(Stream::Stdout, chunk);
        self.parser.push(chunk)
    }

    pub fn push_stderr(&mut self, chunk: &[u8]) {
        self.tail.push(Stream::Stderr, chunk);
    }

    /// The reply, its text as UTF-16 units when kept so (the reply's
    /// `text` then empty), and the last lines.
    pub fn finish(self) -> (AgentReply, Vec<u16>, Vec<String>) {
        let (reply, units) = self.parser.finish_utf16();
        (reply, units, self.tail.finish())
    }
}
