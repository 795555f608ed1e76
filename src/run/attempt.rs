//! One attempt's output as it streams: the agent's parser (its events
//! handed on live when asked), and the last lines of stdout and stderr.

use super::tail::{OutputTail, Stream};
use crate::agent_output::{AgentEvent, AgentOutputParser, AgentReply};

#[derive(Debug)]
pub struct RunAttempt {
    parser: AgentOutputParser,
    tail: OutputTail,
}

impl RunAttempt {
    pub fn new(agent_type: &str) -> RunAttempt {
        RunAttempt {
            parser: AgentOutputParser::new(agent_type),
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

    /// The reply and the last lines.
    pub fn finish(self) -> (AgentReply, Vec<String>) {
        (self.parser.finish(), self.tail.finish())
    }
}
