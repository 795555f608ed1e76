//! One attempt's output as it streams: the agent's parser (its events
//! handed on live when asked), the last lines of stdout and stderr, and the
//! files the agent wrote for the reply (Copilot's usage file), merged in at
//! the end.

use super::tail::{OutputTail, Stream};
use crate::agent_output::{
    merge_output_file, AgentEvent, AgentOutputParser, AgentReply, ReplyError,
};
use crate::invocation::OutputKind;

#[derive(Debug)]
pub struct RunAttempt {
    agent_type: String,
    parser: AgentOutputParser,
    tail: OutputTail,
    /// The output files read back after the process ended.
    outputs: Vec<(OutputKind, String)>,
}

impl RunAttempt {
    pub fn new(agent_type: &str) -> RunAttempt {
        RunAttempt {
            agent_type: agent_type.to_owned(),
            parser: AgentOutputParser::new(agent_type),
            tail: OutputTail::default(),
            outputs: Vec::new(),
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

    /// The content of an output file of `kind` the agent wrote.
    pub fn push_output(&mut self, kind: OutputKind, content: String) {
        self.outputs.push((kind, content));
    }

    /// The reply (with the output files merged in) and the last lines. A
    /// file that cannot be read as what it should be is a non-fatal error
    /// of the reply (`code: "output_file"`), never dropped silently.
    pub fn finish(self) -> (AgentReply, Vec<String>) {
        let mut reply = self.parser.finish();
        for (kind, content) in self.outputs {
            if let Err(e) = merge_output_file(&self.agent_type, &mut reply, kind, &content) {
                reply.errors.push(ReplyError {
                    message: format!(
                        "the agent's {} file was not read: {}",
                        kind.name(),
                        e.message()
                    ),
                    fatal: false,
                    source: "output_file".to_owned(),
                    code: Some("output_file".to_owned()),
                });
            }
        }
        (reply, self.tail.finish())
    }
}
