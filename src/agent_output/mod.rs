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

mod acp;
mod acp_fields;
mod acp_tool;
mod acp_usage;
mod acp_value;
mod ansi;
mod builder;
mod claude;
// Typed reading of Claude's assistant lines: in the runners' Node-only
// module (runAgent's speed) and natively, not in the main `.wasm` (its size:
// +38 KB); the reply is the same either way.
#[cfg(any(not(target_arch = "wasm32"), feature = "node"))]
mod claude_scan;
mod codex;
mod codex_legacy;
mod codex_shared;
pub mod compaction;
mod copilot;
mod gemini;
mod gemini_scan;
mod host_input;
mod json;
mod kimi;
pub mod lines;
mod opencode;
mod pi;
mod qwen;
mod reply;
mod reply_text;
mod usage_file;

pub use ansi::strip_ansi;
pub use compaction::{Compaction, Notice};
pub use host_input::merged_file_usage;
pub use reply::{
    AgentEvent, AgentReply, EventTypeCount, ModelUsage, ReplyError, ReplyStatus, ToolStatus,
    ToolUse, Usage,
};
pub use reply_text::TextForm;
pub use usage_file::{merge_output_file, merged_usage, usage_from_json};

use std::borrow::Cow;

use serde_json::Value;

use agent_context_scan::utf16::find_newline;
use builder::ReplyBuilder;
use lines::LineBuffer;

pub use crate::agents::OutputFormat;

impl OutputFormat {
    /// The registered agent's format; every other agent type reads as plain
    /// text here (the JS API rejects it first, SPEC §9).
    pub fn for_agent(agent_type: &str) -> OutputFormat {
        crate::agents::find(agent_type).map_or(OutputFormat::PlainText, |agent| agent.output())
    }
}

/// What the agent's output is: its CLI's own format (`Cli`, §6), or the
/// JSON-RPC lines it prints when driven over the Agent Client Protocol
/// (`Acp`, §12).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Protocol {
    #[default]
    Cli,
    Acp,
}

impl Protocol {
    /// `'cli'` or `'acp'`; anything else is `None`.
    pub fn parse(name: &str) -> Option<Protocol> {
        match name {
            "cli" => Some(Protocol::Cli),
            "acp" => Some(Protocol::Acp),
            _ => None,
        }
    }

    /// The `protocol` option as given (`None`: left out, `'cli'`);
    /// anything but `'cli'` or `'acp'` is `INVALID_INPUT` naming `protocol`.
    pub fn from_option(value: Option<&str>) -> crate::error::Result<Protocol> {
        match value {
            None => Ok(Protocol::Cli),
            Some(name) => Protocol::parse(name).ok_or_else(|| {
                crate::error::AgentContextError::invalid(format!(
                    "protocol must be 'cli' or 'acp', got {name:?}"
                ))
            }),
        }
    }

    /// The `protocol` option as given for `agent_type`'s output: left out,
    /// the agent's default (`'acp'` for an agent that speaks ACP only);
    /// `'cli'` for such an agent is `INVALID_INPUT` naming it.
    pub fn for_agent(agent_type: &str, value: Option<&str>) -> crate::error::Result<Protocol> {
        let protocol = Protocol::from_option(value)?;
        match crate::agents::find(agent_type) {
            Some(agent) if agent.cli.is_none() && protocol == Protocol::Cli => match value {
                None => Ok(Protocol::Acp),
                Some(_) => agent
                    .cli("its command-line output (protocol 'cli')")
                    .map(|_| Protocol::Cli),
            },
            _ => Ok(protocol),
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
    /// The decoded content of the last message line read by `gemini_scan`.
    scratch: Vec<u16>,
    /// Set when the output is ACP JSON-RPC lines: they are read by it.
    acp: Option<Box<acp::AcpReader>>,
}

impl AgentOutputParser {
    /// A parser for `agent_type`'s output that reports events.
    pub fn new(agent_type: &str) -> Self {
        Self::with_format(OutputFormat::for_agent(agent_type), true, TextForm::Utf8)
    }

    /// A parser for `agent_type`'s output in `protocol` that reports events,
    /// its text kept in `form`.
    pub fn with_protocol(agent_type: &str, protocol: Protocol, form: TextForm) -> Self {
        Self::for_protocol(agent_type, protocol, true, form)
    }

    /// A parser for `agent_type`'s output in `protocol` that reports events
    /// or not, its text kept in `form`.
    pub fn for_protocol(
        agent_type: &str,
        protocol: Protocol,
        events: bool,
        form: TextForm,
    ) -> Self {
        let mut parser = Self::with_format(OutputFormat::for_agent(agent_type), events, form);
        if protocol == Protocol::Acp {
            parser.acp = Some(Box::new(acp::AcpReader::new(agent_type)));
        }
        parser
    }

    /// A parser for `agent_type`'s output that reports no events (`push`
    /// returns none): the reply alone, without a copy of each text for its
    /// event.
    pub fn without_events(agent_type: &str) -> Self {
        Self::with_options(agent_type, false, TextForm::Utf8)
    }

    /// A parser that reports events or not, its text kept in `form` (see
    /// [`with_utf16_text`](Self::with_utf16_text) and
    /// [`finish_utf16`](Self::finish_utf16)).
    pub fn with_options(agent_type: &str, events: bool, form: TextForm) -> Self {
        Self::with_format(OutputFormat::for_agent(agent_type), events, form)
    }

    /// A parser that reports events and keeps the reply's text as UTF-16
    /// code units, for a JavaScript caller: its `Text` events have an empty
    /// `text`, read with [`take_text_units`](Self::take_text_units), and
    /// [`finish_utf16`](Self::finish_utf16) gives the text as units.
    pub fn with_utf16_text(agent_type: &str) -> Self {
        Self::with_format(OutputFormat::for_agent(agent_type), true, TextForm::Utf16)
    }

    fn with_format(format: OutputFormat, record_events: bool, form: TextForm) -> Self {
        AgentOutputParser {
            format,
            lines: LineBuffer::default(),
            reply: ReplyBuilder::new(record_events, form),
            scratch: Vec::new(),
            acp: None,
        }
    }

    /// Whether the output is read as ACP JSON-RPC lines.
    pub fn is_acp(&self) -> bool {
        self.acp.is_some()
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
        let (lines, mut reader) = self.split();
        lines.push(chunk, |line| reader.bytes(line, true));
        self.reply.take_events()
    }

    /// Feeds text that is already UTF-8 (a JS string): as [`push`](Self::push),
    /// without checking the lines' UTF-8 again.
    pub fn push_str(&mut self, chunk: &str) -> Vec<AgentEvent> {
        let (lines, mut reader) = self.split();
        lines.push_str(chunk, |line| match line {
            Ok(text) => reader.text(text, true),
            Err(bytes) => reader.bytes(bytes, true),
        });
        self.reply.take_events()
    }

    /// Ends the output: a last line without `\n` is read as a line (a JSON
    /// line cut short by a killed CLI lands in `nonJsonLines`), then the reply
    /// is returned. Plain text, which has no final event, ends in `success`.
    pub fn finish(self) -> AgentReply {
        self.finish_utf16().0
    }

    /// [`finish`](Self::finish) for a parser made by
    /// [`with_utf16_text`](Self::with_utf16_text): the reply with an empty
    /// `text`, and the text as UTF-16 code units. (Any other parser gives its
    /// text in the reply and no units.)
    pub fn finish_utf16(mut self) -> (AgentReply, Vec<u16>) {
        if let Some(last) = self.lines.take_unterminated() {
            self.split().1.bytes(&last, false);
        }
        if self.format == OutputFormat::PlainText && self.acp.is_none() {
            self.reply.succeed();
        }
        self.reply.finish()
    }

    /// For a parser made by [`with_utf16_text`](Self::with_utf16_text),
    /// after a push: the length in code units of each `Text` event it
    /// returned, and those events' text as code units, in order.
    pub fn take_text_units(&mut self) -> (Vec<u32>, &[u16]) {
        self.reply.take_text_units()
    }
}

/// How a push's events cross in UTF-16 form: `order` holds one number per
/// event, the length in code units of a text event's text (the next of
/// `lengths`, as [`AgentOutputParser::take_text_units`] gives them), or 0
/// for the next of `others`, the other events in order.
pub fn text_event_order(events: &[AgentEvent], lengths: Vec<u32>) -> (Vec<u32>, Vec<&AgentEvent>) {
    let mut lengths = lengths.into_iter();
    let mut order = Vec::with_capacity(events.len());
    let mut others = Vec::new();
    for event in events {
        match event {
            AgentEvent::Text { .. } => order.push(lengths.next().unwrap_or(0)),
            _ => {
                order.push(0);
                others.push(event);
            }
        }
    }
    (order, others)
}

impl AgentOutputParser {
    /// ACP, for a client that splits and routes the lines itself (the
    /// session engine): one whole line read straight from its bytes when
    /// it is a common `session/update` of the reply; false, nothing read,
    /// for any other line (the session's own state updates included), which
    /// the client parses once and hands to
    /// [`acp_message`](Self::acp_message).
    pub fn acp_fast_line(&mut self, line: &[u8]) -> bool {
        match self.acp.as_deref_mut() {
            Some(acp) => acp.read_fast_reply(line, &mut self.reply, &mut self.scratch),
            None => false,
        }
    }

    /// ACP, for the same client: one whole line read straight from its
    /// bytes when it is a `session/update` of the session's own state
    /// (commands, modes, options, session info), which the client reads
    /// too; false, nothing read, otherwise.
    pub fn acp_fast_quiet_line(&mut self, line: &[u8]) -> bool {
        match self.acp.as_deref_mut() {
            Some(acp) => acp.read_fast_quiet(line, &mut self.reply, &mut self.scratch),
            None => false,
        }
    }

    /// ACP: one JSON-RPC message the client already parsed.
    pub fn acp_message(&mut self, message: &Value) {
        if let Some(acp) = self.acp.as_deref_mut() {
            acp.read(message, &mut self.reply);
        }
    }

    /// A line that is not JSON, kept aside as `nonJsonLines`.
    pub fn non_json_line(&mut self, line: &str) {
        self.reply.non_json(line);
    }

    /// The events of what was read since the last call, in order.
    pub fn take_events(&mut self) -> Vec<AgentEvent> {
        self.reply.take_events()
    }

    /// [`take_events`](Self::take_events) into `out` (empty), whose buffer
    /// the next events fill.
    pub fn swap_events(&mut self, out: &mut Vec<AgentEvent>) {
        self.reply.swap_events(out);
    }
}

impl AgentOutputParser {
    /// The line buffer, and a reader of the lines it completes.
    fn split(&mut self) -> (&mut LineBuffer, LineReader<'_>) {
        let reader = LineReader {
            format: self.format,
            reply: &mut self.reply,
            scratch: &mut self.scratch,
            acp: self.acp.as_deref_mut(),
        };
        (&mut self.lines, reader)
    }
}

/// Reads lines into the reply: Gemini `message` lines straight from their
/// bytes when the text is kept as UTF-16 (`gemini_scan`), anything else as
/// text.
struct LineReader<'a> {
    format: OutputFormat,
    reply: &'a mut ReplyBuilder,
    scratch: &'a mut Vec<u16>,
    acp: Option<&'a mut acp::AcpReader>,
}

impl LineReader<'_> {
    /// A line as the CLI printed it (UTF-8 not checked yet).
    fn bytes(&mut self, line: &[u8], terminated: bool) {
        if let Some(acp) = self.acp.as_deref_mut() {
            if !acp.read_fast(line, self.reply, self.scratch) {
                read_acp_line(acp, self.reply, &decode(line));
            }
            return;
        }
        if !self.scanned(line) {
            read_line(self.format, self.reply, &decode(line), terminated);
        }
    }

    /// A line of UTF-16 units (a JS string's; lone surrogates read as
    /// U+FFFD, as they do when the string is written as UTF-8).
    fn utf16(&mut self, line: &[u16], terminated: bool) {
        if let Some(acp) = self.acp.as_deref_mut() {
            // One scanner, of UTF-8: the units are made UTF-8 first.
            let text = String::from_utf16_lossy(line);
            if !acp.read_fast(text.as_bytes(), self.reply, self.scratch) {
                read_acp_line(acp, self.reply, &text);
            }
            return;
        }
        let scanned = self.format == OutputFormat::GeminiStreamJson
            && gemini_scan::read_message_line_utf16(line, self.reply, self.scratch);
        if !scanned {
            read_line(
                self.format,
                self.reply,
                &String::from_utf16_lossy(line),
                terminated,
            );
        }
    }

    /// A line known to be UTF-8.
    fn text(&mut self, line: &str, terminated: bool) {
        if let Some(acp) = self.acp.as_deref_mut() {
            if !acp.read_fast(line.as_bytes(), self.reply, self.scratch) {
                read_acp_line(acp, self.reply, line);
            }
            return;
        }
        if !self.scanned(line.as_bytes()) {
            read_line(self.format, self.reply, line, terminated);
        }
    }

    fn scanned(&mut self, line: &[u8]) -> bool {
        match self.format {
            OutputFormat::GeminiStreamJson => {
                gemini_scan::read_message_line(line, self.reply, self.scratch)
            }
            #[cfg(any(not(target_arch = "wasm32"), feature = "node"))]
            OutputFormat::ClaudeStreamJson => {
                claude_scan::read_assistant_text_bytes(line, self.reply)
            }
            _ => false,
        }
    }
}

/// The whole output of `agent_type`'s CLI at once (`parseAgentOutput`).
pub fn parse_agent_output(agent_type: &str, output: &[u8]) -> AgentReply {
    parse_agent_output_as(agent_type, Output::Bytes(output), TextForm::Utf8).0
}

/// [`parse_agent_output`] for text that is already UTF-8 (a JS string).
pub fn parse_agent_output_str(agent_type: &str, output: &str) -> AgentReply {
    parse_agent_output_as(agent_type, Output::Text(output), TextForm::Utf8).0
}

/// [`parse_agent_output`] with the text given back in `form`: in UTF-16
/// form the reply's `text` is empty and the second value holds the text as
/// code units (what a JS string is made of).
pub fn parse_agent_output_as(
    agent_type: &str,
    output: Output<'_>,
    form: TextForm,
) -> (AgentReply, Vec<u16>) {
    parse_agent_output_in(agent_type, Protocol::Cli, output, form)
}

/// [`parse_agent_output_as`] for output in `protocol` (ACP JSON-RPC lines,
/// or the CLI's own format).
pub fn parse_agent_output_in(
    agent_type: &str,
    protocol: Protocol,
    output: Output<'_>,
    form: TextForm,
) -> (AgentReply, Vec<u16>) {
    whole(agent_type, protocol, form, |p| feed(p, output))
}

fn feed(p: &mut AgentOutputParser, output: Output<'_>) {
    match output {
        Output::Bytes(bytes) => {
            p.push(bytes);
        }
        Output::Text(text) => {
            p.push_str(text);
        }
        Output::Utf16(mut rest) => {
            // Whole lines straight from the units, no line buffer; the last
            // one, unended, is read as `finish` reads it.
            let mut reader = p.split().1;
            while let Some(end) = find_newline(rest) {
                reader.utf16(&rest[..end], true);
                rest = &rest[end + 1..];
            }
            if !rest.is_empty() {
                reader.utf16(rest, false);
            }
        }
    }
}

/// [`parse_agent_output_in`] for ACP output with every line read by the
/// general (serde_json) reader, none by the byte scanner: for tests that
/// check both give the same reply.
#[doc(hidden)]
pub fn parse_acp_output_general(
    agent_type: &str,
    output: Output<'_>,
    form: TextForm,
) -> (AgentReply, Vec<u16>) {
    let mut parser = AgentOutputParser::for_protocol(agent_type, Protocol::Cli, false, form);
    parser.acp = Some(Box::new(acp::AcpReader::general_only(agent_type)));
    feed(&mut parser, output);
    parser.finish_utf16()
}

/// Output to parse: bytes as the CLI printed them, text already decoded, or
/// the UTF-16 units of a JS string (a lone surrogate reads as U+FFFD).
#[derive(Clone, Copy, Debug)]
pub enum Output<'a> {
    Bytes(&'a [u8]),
    Text(&'a str),
    Utf16(&'a [u16]),
}

/// The whole output given piece by piece by `feed` (which calls
/// [`AgentOutputParser::push`]): as [`parse_agent_output_in`] on the pieces
/// joined, without holding them all at once.
pub fn parse_agent_output_fed(
    agent_type: &str,
    protocol: Protocol,
    form: TextForm,
    feed: impl FnOnce(&mut AgentOutputParser),
) -> (AgentReply, Vec<u16>) {
    whole(agent_type, protocol, form, feed)
}

fn whole(
    agent_type: &str,
    protocol: Protocol,
    form: TextForm,
    feed: impl FnOnce(&mut AgentOutputParser),
) -> (AgentReply, Vec<u16>) {
    let mut parser = AgentOutputParser::for_protocol(agent_type, protocol, false, form);
    feed(&mut parser);
    parser.finish_utf16()
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
        OutputFormat::QwenStreamJson => qwen::read,
        OutputFormat::CopilotJson => copilot::read,
        OutputFormat::OpencodeJson => opencode::read,
        OutputFormat::PiJson => pi::read,
        OutputFormat::KimiStreamJson => kimi::read,
        OutputFormat::GeminiStreamJson => {
            if gemini::read_message_line(text, reply) {
                return;
            }
            gemini::read
        }
    };
    match json_object(text) {
        // A reader counts any type it does not know (no `type` reads as "").
        Some(event) => {
            let kind = event.get("type").and_then(Value::as_str).unwrap_or("");
            reader(&event, kind, reply);
        }
        None => reply.non_json(text),
    }
}

/// One ACP line: a JSON-RPC message, or a line that is not JSON (an agent
/// printing a stray warning on stdout).
fn read_acp_line(acp: &mut acp::AcpReader, reply: &mut ReplyBuilder, text: &str) {
    match json_object(text) {
        Some(message) => acp.read(&message, reply),
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
    fn text_events_cross_as_lengths_and_the_others_in_order() {
        let text = |t: &str| AgentEvent::Text { text: t.into() };
        let line = |l: &str| AgentEvent::NonJson { line: l.into() };
        let events = [text("ab"), line("x"), text("c"), line("y")];
        let (order, others) = text_event_order(&events, vec![2, 1]);
        assert_eq!(order, [2, 0, 1, 0]);
        assert_eq!(others, [&events[1], &events[3]]);
    }

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
