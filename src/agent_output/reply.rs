//! The parse result (`AgentReply`), the events the incremental parser hands
//! out, and [`ReplyBuilder`], which the three CLI formats feed.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;

use super::ansi::strip_ansi;

/// How the run ended, as the CLI's own output says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReplyStatus {
    /// A final event reported success and no fatal error was seen.
    Success,
    /// A fatal error was reported (Gemini `result` with `status: "error"`,
    /// Claude `result` with `is_error: true`, Codex `turn.failed`, …),
    /// whatever the process exit code.
    Error,
    /// The output stopped before any final event: the CLI was killed, crashed
    /// or is still running.
    Incomplete,
}

/// An error the CLI reported. `fatal: false` is a note: the run went on
/// (a retry, a warning, a tool denied).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReplyError {
    pub message: String,
    pub fatal: bool,
    /// The `type` of the line it came from (`"result"`, `"error"`,
    /// `"turn.failed"`, `"system"`, …).
    pub source: String,
    /// The CLI's own classification, when it gives one (`"invalid_request_error"`,
    /// `"warning"`, `"overloaded"`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub code: Option<String>,
}

/// Where a tool call stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ToolStatus {
    /// Requested or running; no result seen yet.
    Pending,
    Success,
    /// Failed, denied or declined.
    Error,
}

/// One tool call the agent made, with its result once seen.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUse {
    /// The CLI's id of the call (`tool_id`, `tool_use.id`, the Codex item id).
    pub id: String,
    /// The tool (`read_file`, `Read`, `command_execution`, `server.tool`, …).
    pub name: String,
    /// The arguments, as the CLI printed them (JSON).
    pub input: Value,
    pub status: ToolStatus,
    /// What the tool returned (or its error message), ANSI stripped.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// Token counts and cost, when the CLI reports them. `inputTokens` counts
/// every prompt token, cached ones included; `cachedInputTokens` is the
/// cached part.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub duration_ms: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cost_usd: Option<f64>,
}

impl Usage {
    /// Adds `other` to `self`, field by field (Codex reports each turn).
    pub fn add(&mut self, other: &Usage) {
        fn sum(a: &mut Option<u64>, b: Option<u64>) {
            if let Some(b) = b {
                *a = Some(a.unwrap_or(0).saturating_add(b));
            }
        }
        sum(&mut self.input_tokens, other.input_tokens);
        sum(&mut self.cached_input_tokens, other.cached_input_tokens);
        sum(&mut self.output_tokens, other.output_tokens);
        sum(&mut self.total_tokens, other.total_tokens);
        sum(&mut self.duration_ms, other.duration_ms);
        if let Some(b) = other.cost_usd {
            self.cost_usd = Some(self.cost_usd.unwrap_or(0.0) + b);
        }
    }
}

/// What `parseAgentOutput` and `AgentOutputParser.finish()` return.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentReply {
    /// The assistant's text: its pieces in order, a blank line between two
    /// separate messages (Gemini deltas are one message until a tool call).
    pub text: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    pub status: ReplyStatus,
    pub errors: Vec<ReplyError>,
    pub tool_uses: Vec<ToolUse>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    /// Lines that are not a JSON object (warnings, notices), ANSI stripped,
    /// blank ones left out.
    pub non_json_lines: Vec<String>,
}

/// What a chunk completed, in order. Concatenating every `Text` gives the
/// reply's `text`.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum AgentEvent {
    /// The session id became known.
    Session {
        session_id: String,
    },
    /// Text appended to the reply (with the blank line that starts a new message).
    Text {
        text: String,
    },
    /// A tool call started or finished: its state now.
    ToolUse {
        tool_use: ToolUse,
    },
    Error {
        error: ReplyError,
    },
    /// The usage so far.
    Usage {
        usage: Usage,
    },
    /// A final event was seen; the status now.
    Status {
        status: ReplyStatus,
    },
    NonJson {
        line: String,
    },
}

/// Accumulates the reply as the format readers report what each line says.
#[derive(Debug)]
pub struct ReplyBuilder {
    text: String,
    /// Inside a run of deltas (Gemini), which the next delta continues.
    in_message: bool,
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
        let mut added = String::new();
        if separate && !self.text.is_empty() {
            added.push_str("\n\n");
        }
        added.push_str(&piece);
        self.text.push_str(&added);
        self.emit(|| AgentEvent::Text { text: added });
        true
    }

    /// A delta: continues the current message, or starts a new one.
    pub fn delta(&mut self, piece: &str) {
        let separate = !self.in_message;
        if self.append(piece, separate) {
            self.in_message = true;
        }
    }

    /// A whole message (a text block, an agent message).
    pub fn message(&mut self, text: &str) {
        self.append(text, true);
        self.in_message = false;
    }

    /// Raw text appended as it is (plain-text output).
    pub fn raw(&mut self, text: &str) {
        self.append(text, false);
    }

    /// Ends the current run of deltas (a tool call came in between).
    pub fn end_message(&mut self) {
        self.in_message = false;
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

    #[test]
    fn usage_adds_up_per_field() {
        let mut u = Usage {
            input_tokens: Some(1),
            ..Usage::default()
        };
        u.add(&Usage {
            input_tokens: Some(2),
            output_tokens: Some(3),
            cost_usd: Some(0.5),
            ..Usage::default()
        });
        assert_eq!(u.input_tokens, Some(3));
        assert_eq!(u.output_tokens, Some(3));
        assert_eq!(u.cached_input_tokens, None);
        assert_eq!(u.cost_usd, Some(0.5));
    }
}
