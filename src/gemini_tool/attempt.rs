//! One run of Gemini CLI: its output read as it streams (the reply through
//! the `stream-json` parser, the last lines, the events when asked for),
//! and, once the process has ended, what it came to.

use crate::agent_output::{AgentEvent, AgentOutputParser, AgentReply, Usage};

use super::classify::{classify, AttemptEnd, Evidence, Verdict};
use super::params::Limits;
use crate::run::{OutputTail, Stream};

#[derive(Debug)]
pub struct Attempt {
    parser: AgentOutputParser,
    tail: OutputTail,
    events: Option<Vec<AgentEvent>>,
}

/// A finished attempt.
#[derive(Clone, Debug, PartialEq)]
pub struct AttemptReport {
    pub verdict: Verdict,
    pub exit_code: Option<i32>,
    pub last_lines: Vec<String>,
    /// The parsed events, when `return_all_messages` asked for them.
    pub events: Option<Vec<AgentEvent>>,
    pub usage: Option<Usage>,
    pub tool_calls: usize,
}

/// What the classification needs besides the output.
pub struct AttemptContext<'a> {
    pub command: &'a str,
    pub session_id: Option<&'a str>,
    pub limits: Limits,
}

impl Attempt {
    /// `keep_events`: hold every parsed event for the envelope.
    pub fn new(keep_events: bool) -> Self {
        Attempt {
            parser: AgentOutputParser::new("google-gemini"),
            tail: OutputTail::default(),
            events: keep_events.then(Vec::new),
        }
    }

    pub fn push_stdout(&mut self, chunk: &[u8]) {
        self.tail.push(Stream::Stdout, chunk);
        let events = self.parser.push(chunk);
        if let Some(kept) = &mut self.events {
            kept.extend(events);
        }
    }

    pub fn push_stderr(&mut self, chunk: &[u8]) {
        self.tail.push(Stream::Stderr, chunk);
    }

    pub fn finish(self, end: &AttemptEnd, context: &AttemptContext) -> AttemptReport {
        let reply: AgentReply = self.parser.finish();
        let last_lines = self.tail.finish();
        let verdict = classify(&Evidence {
            end,
            reply: &reply,
            last_lines: &last_lines,
            command: context.command,
            session_id: context.session_id,
            limits: context.limits,
            platform: None,
        });
        AttemptReport {
            verdict,
            exit_code: end.exit_code,
            last_lines,
            events: self.events,
            usage: reply.usage,
            tool_calls: reply.tool_uses.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gemini_tool::ErrorKind;

    fn context() -> AttemptContext<'static> {
        AttemptContext {
            command: "gemini",
            session_id: None,
            limits: Limits::default(),
        }
    }

    #[test]
    fn reads_the_stream_in_chunks_and_keeps_events_when_asked() {
        let out = std::fs::read(format!(
            "{}/tests/fixtures/cli/gemini-tool.jsonl",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap();
        let mut attempt = Attempt::new(true);
        for chunk in out.chunks(7) {
            attempt.push_stdout(chunk);
        }
        attempt.push_stderr(b"Warning: Basic terminal detected\n");
        let end = AttemptEnd {
            exit_code: Some(0),
            ..Default::default()
        };
        let report = attempt.finish(&end, &context());
        assert_eq!(
            report.verdict,
            Verdict::Success {
                session_id: Some("44cd5ef2-aaba-488a-9b21-1c2d8b960aed".into()),
                text: "The notes say the launch code is 4217.".into()
            }
        );
        assert_eq!(report.tool_calls, 1);
        assert_eq!(report.usage.unwrap().total_tokens, Some(258));
        let events = report.events.unwrap();
        assert!(matches!(events[0], AgentEvent::Session { .. }));
        assert!(events.iter().any(
            |e| matches!(e, AgentEvent::ToolUse { tool_use } if tool_use.name == "read_file")
        ));
        assert_eq!(report.last_lines.len(), 7);
        assert_eq!(report.last_lines[6], "Warning: Basic terminal detected");

        let mut quiet = Attempt::new(false);
        quiet.push_stdout(&out);
        assert_eq!(quiet.finish(&end, &context()).events, None);
    }

    #[test]
    fn a_failure_carries_its_exit_code_and_lines() {
        let mut attempt = Attempt::new(false);
        attempt
            .push_stderr(b"Error resuming session: No previous sessions found for this project.\n");
        let end = AttemptEnd {
            exit_code: Some(42),
            ..Default::default()
        };
        let report = attempt.finish(
            &end,
            &AttemptContext {
                session_id: Some("abc"),
                ..context()
            },
        );
        match report.verdict {
            Verdict::Failure(f) => assert_eq!(f.kind, ErrorKind::SessionNotFound),
            other => panic!("{other:?}"),
        }
        assert_eq!(report.exit_code, Some(42));
        assert_eq!(report.last_lines.len(), 1);
    }
}
