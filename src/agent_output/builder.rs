//! [`ReplyBuilder`]: the reply as it grows, fed by the format readers, and
//! the events each change makes.

use std::collections::HashMap;

use serde_json::Value;

use super::ansi::{has_escape, strip_ansi, unfinished_escape_start};
use super::reply::{AgentEvent, AgentReply, ReplyError, ReplyStatus, ToolStatus, ToolUse, Usage};

/// Accumulates the reply as the format readers report what each line says.
#[derive(Debug)]
pub struct ReplyBuilder {
    text: String,
    /// Inside a run of deltas (Gemini), which the next delta continues.
    in_message: bool,
    /// The start of an escape sequence the last delta ended inside of,
    /// held for the next delta of the same message to finish.
    held_escape: String,
    session_id: Option<String>,
    succeeded: bool,
    errors: Vec<ReplyError>,
    tool_uses: Vec<ToolUse>,
    tool_index: HashMap<String, usize>,
    usage: Option<Usage>,
    non_json_lines: Vec<String>,
    /// `None` when nobody reads events (the whole-text function).
    events: Option<Vec<AgentEvent>>,
}

impl ReplyBuilder {
    pub fn new(record_events: bool) -> Self {
        ReplyBuilder {
            text: String::new(),
            in_message: false,
            held_escape: String::new(),
            session_id: None,
            succeeded: false,
            errors: Vec::new(),
            tool_uses: Vec::new(),
            tool_index: HashMap::new(),
            usage: None,
            non_json_lines: Vec::new(),
            events: record_events.then(Vec::new),
        }
    }

    fn emit(&mut self, event: impl FnOnce() -> AgentEvent) {
        if let Some(events) = &mut self.events {
            events.push(event());
        }
    }

    /// The events recorded since the last call.
    pub fn take_events(&mut self) -> Vec<AgentEvent> {
        self.events.as_mut().map(std::mem::take).unwrap_or_default()
    }

    /// Appends `piece` (ANSI stripped); false when nothing was left to add.
    fn append(&mut self, piece: &str, separate: bool) -> bool {
        let piece = strip_ansi(piece);
        if piece.is_empty() {
            return false;
        }
        let start = self.text.len();
        if separate && !self.text.is_empty() {
            self.text.push_str("\n\n");
        }
        self.text.push_str(&piece);
        if self.events.is_some() {
            let added = self.text[start..].to_owned();
            self.emit(|| AgentEvent::Text { text: added });
        }
        true
    }

    /// A delta: continues the current message, or starts a new one. An
    /// escape sequence split between two deltas is stripped whole.
    pub fn delta(&mut self, piece: &str) {
        let joined;
        let piece = if self.held_escape.is_empty() {
            piece
        } else {
            joined = std::mem::take(&mut self.held_escape) + piece;
            &joined
        };
        let ready = match has_escape(piece)
            .then(|| unfinished_escape_start(piece))
            .flatten()
        {
            Some(start) => {
                self.held_escape = piece[start..].to_owned();
                &piece[..start]
            }
            None => piece,
        };
        let separate = !self.in_message;
        if self.append(ready, separate) || !self.held_escape.is_empty() {
            self.in_message = true;
        }
    }

    /// A whole message (a text block, an agent message).
    pub fn message(&mut self, text: &str) {
        self.end_message();
        self.append(text, true);
    }

    /// Raw text appended as it is (plain-text output).
    pub fn raw(&mut self, text: &str) {
        self.append(text, false);
    }

    /// Ends the current run of deltas (a tool call came in between); an
    /// escape sequence it left unfinished is dropped.
    pub fn end_message(&mut self) {
        self.in_message = false;
        self.held_escape.clear();
    }

    /// Whether any text has been collected.
    pub fn has_text(&self) -> bool {
        !self.text.is_empty()
    }

    /// The first session id seen wins.
    pub fn session(&mut self, id: &str) {
        if self.session_id.is_none() && !id.is_empty() {
            self.session_id = Some(id.to_owned());
            let id = id.to_owned();
            self.emit(|| AgentEvent::Session { session_id: id });
        }
    }

    /// A tool call was requested (or updated): merged into the entry with the
    /// same id. `None` leaves a field as it was.
    pub fn tool_started(&mut self, id: &str, name: Option<&str>, input: Option<&Value>) {
        self.tool(id, name, input, None);
    }

    /// A tool call finished with `status` and its output.
    pub fn tool_finished(&mut self, id: &str, status: ToolStatus, output: Option<&str>) {
        self.tool(id, None, None, Some((status, output)));
    }

    /// Merges what a line says about tool call `id` into its entry (created
    /// on first sight) and reports the entry once.
    pub fn tool(
        &mut self,
        id: &str,
        name: Option<&str>,
        input: Option<&Value>,
        finished: Option<(ToolStatus, Option<&str>)>,
    ) {
        self.end_message();
        let index = self.tool_entry(id);
        let tool = &mut self.tool_uses[index];
        if let Some(name) = name {
            tool.name = name.to_owned();
        }
        if let Some(input) = input {
            tool.input = input.clone();
        }
        if let Some((status, output)) = finished {
            tool.status = status;
            if let Some(output) = output {
                tool.output = Some(strip_ansi(output).into_owned());
            }
        }
        if self.events.is_some() {
            let tool_use = self.tool_uses[index].clone();
            self.emit(|| AgentEvent::ToolUse { tool_use });
        }
    }

    fn tool_entry(&mut self, id: &str) -> usize {
        if let Some(&index) = self.tool_index.get(id) {
            return index;
        }
        self.tool_uses.push(ToolUse {
            id: id.to_owned(),
            name: String::new(),
            input: Value::Null,
            status: ToolStatus::Pending,
            output: None,
        });
        let index = self.tool_uses.len() - 1;
        self.tool_index.insert(id.to_owned(), index);
        index
    }

    /// A non-fatal error: the run went on.
    pub fn note(&mut self, source: &str, message: &str, code: Option<&str>) {
        self.push_error(ReplyError {
            message: strip_ansi(message).into_owned(),
            fatal: false,
            source: source.to_owned(),
            code: code.map(str::to_owned),
        });
    }

    /// A fatal error: the run failed. When the last error recorded has the
    /// same message (a CLI often prints the error, then the failure), that one
    /// becomes fatal instead of a second copy being added.
    pub fn fail(&mut self, source: &str, message: &str, code: Option<&str>) {
        let message = strip_ansi(message).into_owned();
        match self.errors.last_mut() {
            Some(last) if last.message == message => {
                last.fatal = true;
                if last.code.is_none() {
                    last.code = code.map(str::to_owned);
                }
                let error = last.clone();
                self.emit(|| AgentEvent::Error { error });
            }
            _ => self.push_error(ReplyError {
                message,
                fatal: true,
                source: source.to_owned(),
                code: code.map(str::to_owned),
            }),
        }
        self.emit_status();
    }

    /// A failure reported without a message: the last note explains it and
    /// becomes fatal; with none, `fallback` is the message.
    pub fn fail_with_last_note(&mut self, source: &str, fallback: &str) {
        match self.errors.last() {
            Some(last) if !last.fatal => {
                let message = last.message.clone();
                self.fail(source, &message, None);
            }
            _ => self.fail(source, fallback, None),
        }
    }

    fn push_error(&mut self, error: ReplyError) {
        self.errors.push(error);
        if self.events.is_some() {
            let error = self.errors[self.errors.len() - 1].clone();
            self.emit(|| AgentEvent::Error { error });
        }
    }

    /// A final event reported success.
    pub fn succeed(&mut self) {
        self.succeeded = true;
        self.emit_status();
    }

    fn emit_status(&mut self) {
        let status = self.status();
        self.emit(|| AgentEvent::Status { status });
    }

    /// Replaces the usage (a final event's totals).
    pub fn set_usage(&mut self, usage: Usage) {
        self.usage = Some(usage);
        self.emit_usage();
    }

    /// Adds to the usage (one turn's counts).
    pub fn add_usage(&mut self, usage: &Usage) {
        self.usage.get_or_insert_with(Usage::default).add(usage);
        self.emit_usage();
    }

    fn emit_usage(&mut self) {
        if let (Some(usage), true) = (&self.usage, self.events.is_some()) {
            let usage = usage.clone();
            self.emit(|| AgentEvent::Usage { usage });
        }
    }

    /// A line that is not a JSON object; blank ones are skipped.
    pub fn non_json(&mut self, line: &str) {
        let line = strip_ansi(line);
        let line = line.trim_end_matches(['\r', '\n']);
        if line.trim().is_empty() {
            return;
        }
        self.non_json_lines.push(line.to_owned());
        let line = line.to_owned();
        self.emit(|| AgentEvent::NonJson { line });
    }

    fn status(&self) -> ReplyStatus {
        if self.errors.iter().any(|e| e.fatal) {
            ReplyStatus::Error
        } else if self.succeeded {
            ReplyStatus::Success
        } else {
            ReplyStatus::Incomplete
        }
    }

    pub fn finish(self) -> AgentReply {
        let status = self.status();
        AgentReply {
            text: self.text,
            session_id: self.session_id,
            status,
            errors: self.errors,
            tool_uses: self.tool_uses,
            usage: self.usage,
            non_json_lines: self.non_json_lines,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_join_and_messages_are_separated_by_a_blank_line() {
        let mut b = ReplyBuilder::new(true);
        b.delta("Hel");
        b.delta("lo");
        b.tool_started("t1", Some("read_file"), None);
        b.delta("Done");
        b.message("Second");
        let events = b.take_events();
        let texts: String = events
            .iter()
            .filter_map(|e| match e {
                AgentEvent::Text { text } => Some(text.as_str()),
                _ => None,
            })
            .collect();
        let reply = b.finish();
        assert_eq!(reply.text, "Hello\n\nDone\n\nSecond");
        assert_eq!(texts, reply.text);
        assert_eq!(reply.status, ReplyStatus::Incomplete);
    }

    #[test]
    fn an_escape_split_between_deltas_is_stripped_whole() {
        let mut b = ReplyBuilder::new(false);
        b.delta("red\u{1b}[3");
        b.delta("1m and ");
        b.delta("\u{1b}");
        b.delta("[0mplain");
        b.delta("\u{1b}]0;ti");
        b.end_message();
        b.delta("next");
        assert_eq!(b.finish().text, "red and plain\n\nnext");
    }

    #[test]
    fn a_failure_repeating_the_last_error_upgrades_it() {
        let mut b = ReplyBuilder::new(false);
        b.note("error", "Reconnecting... 1/5", None);
        b.fail("error", "boom", None);
        b.fail("turn.failed", "boom", Some("x"));
        let reply = b.finish();
        assert_eq!(reply.errors.len(), 2);
        assert!(!reply.errors[0].fatal);
        assert!(reply.errors[1].fatal);
        assert_eq!(reply.errors[1].source, "error");
        assert_eq!(reply.errors[1].code.as_deref(), Some("x"));
        assert_eq!(reply.status, ReplyStatus::Error);
    }

    #[test]
    fn a_fatal_error_outweighs_a_success() {
        let mut b = ReplyBuilder::new(false);
        b.succeed();
        assert_eq!(b.status(), ReplyStatus::Success);
        b.fail_with_last_note("result", "failed");
        let reply = b.finish();
        assert_eq!(reply.status, ReplyStatus::Error);
        assert_eq!(reply.errors[0].message, "failed");
    }
}
