//! [`ReplyBuilder`]: the reply as it grows, fed by the format readers, and
//! the events each change makes.

use std::collections::HashMap;

use serde_json::Value;

use super::ansi::{has_escape, strip_ansi, unfinished_escape_start};
use super::reply::{
    AgentEvent, AgentReply, EventTypeCount, ReplyError, ReplyStatus, ToolStatus, ToolUse, Usage,
};
use super::reply_text::{Added, ReplyText, TextForm};

/// Accumulates the reply as the format readers report what each line says.
#[derive(Debug)]
pub struct ReplyBuilder {
    text: ReplyText,
    /// UTF-16 form: the length in code units of each text event not yet
    /// taken (their `text` stays empty; the units are in `text`).
    text_event_units: Vec<u32>,
    /// Inside a run of deltas (Gemini), which the next delta continues.
    in_message: bool,
    /// The start of an escape sequence the last delta ended inside of,
    /// held for the next delta of the same message to finish.
    held_escape: String,
    session_id: Option<String>,
    succeeded: bool,
    /// The output's schema prints no final event (Codex's older one): at the
    /// end it succeeds if this is still set and no fatal error was seen.
    success_at_end: bool,
    errors: Vec<ReplyError>,
    /// The error (an index of `errors`) of a failure the agent may still
    /// retry: fatal at the end unless it retries first.
    pending_failure: Option<usize>,
    tool_uses: Vec<ToolUse>,
    tool_index: HashMap<String, usize>,
    usage: Option<Usage>,
    non_json_lines: Vec<String>,
    terminal_reason: Option<String>,
    api_error_status: Option<u64>,
    unknown_events: Vec<EventTypeCount>,
    /// The agent's reasoning, kept apart from `text` (ACP `agent_thought_chunk`).
    thoughts: String,
    /// The latest plan the agent reported (ACP `plan` entries).
    plan: Option<Value>,
    structured: Option<Value>,
    compactions: super::compaction::Compactions,
    /// `None` when nobody reads events (the whole-text function).
    events: Option<Vec<AgentEvent>>,
}

impl ReplyBuilder {
    pub fn new(record_events: bool, form: TextForm) -> Self {
        ReplyBuilder {
            text: ReplyText::new(form),
            text_event_units: Vec::new(),
            in_message: false,
            held_escape: String::new(),
            session_id: None,
            succeeded: false,
            success_at_end: false,
            errors: Vec::new(),
            pending_failure: None,
            tool_uses: Vec::new(),
            tool_index: HashMap::new(),
            usage: None,
            non_json_lines: Vec::new(),
            terminal_reason: None,
            api_error_status: None,
            unknown_events: Vec::new(),
            thoughts: String::new(),
            plan: None,
            structured: None,
            compactions: Default::default(),
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

    /// The events recorded since the last call, swapped into `out` (empty),
    /// whose buffer the next events fill: no allocation per call.
    pub fn swap_events(&mut self, out: &mut Vec<AgentEvent>) {
        if let Some(events) = &mut self.events {
            std::mem::swap(events, out);
        }
    }

    /// UTF-16 form: the code-unit length of each text event since the last
    /// call, and those events' text (their units, in order).
    pub fn take_text_units(&mut self) -> (Vec<u32>, &[u16]) {
        (
            std::mem::take(&mut self.text_event_units),
            self.text.take_new_units(),
        )
    }

    /// Appends `piece` (ANSI stripped); false when nothing was left to add.
    fn append(&mut self, piece: &str, separate: bool) -> bool {
        let piece = strip_ansi(piece);
        if piece.is_empty() {
            return false;
        }
        let separator = if separate && !self.text.is_empty() {
            "\n\n"
        } else {
            ""
        };
        let added = self.text.push(separator, &piece);
        if self.events.is_some() {
            let text = match added {
                Added::Text(start) => self.text.since(start),
                Added::Units(units) => {
                    self.text_event_units.push(units as u32);
                    String::new()
                }
            };
            self.emit(|| AgentEvent::Text { text });
        }
        true
    }

    /// Whether text can come as UTF-16 code units ([`delta_units`](Self::delta_units),
    /// [`message_units`](Self::message_units)): the text is kept in UTF-16
    /// form and no escape sequence is held from the last delta.
    pub fn takes_units(&self) -> bool {
        self.text.form() == TextForm::Utf16 && self.held_escape.is_empty()
    }

    /// [`append`](Self::append) for text that is already UTF-16 and has no
    /// escape sequences.
    fn append_units(&mut self, units: &[u16], separate: bool) -> bool {
        if units.is_empty() {
            return false;
        }
        let separator = if separate && !self.text.is_empty() {
            "\n\n"
        } else {
            ""
        };
        let Some(added) = self.text.push_units(separator, units) else {
            return self.append(&String::from_utf16_lossy(units), separate);
        };
        if self.events.is_some() {
            self.text_event_units.push(added as u32);
            self.emit(|| AgentEvent::Text {
                text: String::new(),
            });
        }
        true
    }

    /// [`delta`](Self::delta) for text without escape sequences as UTF-16
    /// code units; only when [`takes_units`](Self::takes_units).
    pub fn delta_units(&mut self, units: &[u16]) {
        debug_assert!(self.takes_units());
        if self.append_units(units, !self.in_message) {
            self.in_message = true;
        }
    }

    /// [`message`](Self::message) for text without escape sequences as
    /// UTF-16 code units; only when [`takes_units`](Self::takes_units).
    pub fn message_units(&mut self, units: &[u16]) {
        self.end_message();
        self.append_units(units, true);
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

    /// Whether a fatal error has been recorded.
    pub fn has_fatal_error(&self) -> bool {
        self.errors.iter().any(|e| e.fatal)
    }

    /// Whether any text has been collected.
    pub fn has_text(&self) -> bool {
        !self.text.is_empty()
    }

    /// How much the agent has said so far (text, thoughts, tool calls): a
    /// measure that grows whenever it says anything.
    pub fn said(&self) -> usize {
        self.text.len() + self.thoughts.len() + self.tool_uses.len()
    }

    /// Whether a session id is known.
    pub fn has_session(&self) -> bool {
        self.session_id.is_some()
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
        self.tool_owned(id, name, input.cloned(), finished);
    }

    /// [`tool`](Self::tool) with an input the caller gives up (no copy).
    pub fn tool_owned(
        &mut self,
        id: &str,
        name: Option<&str>,
        input: Option<Value>,
        finished: Option<(ToolStatus, Option<&str>)>,
    ) {
        self.tool_of(id, name, input, finished, None);
    }

    /// [`tool_owned`](Self::tool_owned) for a call a sub-agent made:
    /// `parent` is the id of the tool call that runs it (Claude's `Task`).
    pub fn tool_of(
        &mut self,
        id: &str,
        name: Option<&str>,
        input: Option<Value>,
        finished: Option<(ToolStatus, Option<&str>)>,
        parent: Option<&str>,
    ) {
        self.end_message();
        let known = self.tool_uses.len();
        let index = self.tool_entry(id);
        // An update that changes nothing the reply keeps (ACP's
        // `in_progress` updates, a title) is not a new `toolUse` event.
        let mut changed = index == known;
        let tool = &mut self.tool_uses[index];
        if let Some(name) = name.filter(|name| *name != tool.name) {
            tool.name = name.to_owned();
            changed = true;
        }
        if let Some(input) = input.filter(|input| *input != tool.input) {
            tool.input = input;
            changed = true;
        }
        if let Some(parent) = parent.filter(|p| tool.parent_id.as_deref() != Some(p)) {
            tool.parent_id = Some(parent.to_owned());
            changed = true;
        }
        if let Some((status, output)) = finished {
            changed |= status != tool.status;
            tool.status = status;
            if let Some(output) = output
                .map(strip_ansi)
                .filter(|o| tool.output.as_deref() != Some(o))
            {
                tool.output = Some(output.into_owned());
                changed = true;
            }
        }
        if changed && self.events.is_some() {
            let tool_use = self.tool_uses[index].clone();
            self.emit(|| AgentEvent::ToolUse { tool_use });
        }
    }

    /// Whether a tool use with this id was seen.
    pub fn knows_tool(&self, id: &str) -> bool {
        self.tool_index.contains_key(id)
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
            parent_id: None,
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
        self.pending_failure = None;
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

    /// A failure the agent may still retry (pi ends a failed turn, then
    /// says whether it tries again): noted now, fatal at the end of the
    /// output unless [`retrying`](Self::retrying) or another failure comes
    /// first.
    pub fn fail_unless_retried(&mut self, source: &str, message: &str, code: Option<&str>) {
        self.note(source, message, code);
        self.pending_failure = Some(self.errors.len() - 1);
    }

    /// The agent tries again what [`fail_unless_retried`](Self::fail_unless_retried)
    /// said failed: that failure is a note.
    pub fn retrying(&mut self) {
        self.pending_failure = None;
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

    /// For a schema without a final event: whether the output, if it ended
    /// here, would have ended well (a message came after every tool call).
    pub fn success_at_end(&mut self, ok: bool) {
        self.success_at_end = ok;
    }

    /// Whether any tool call is still pending.
    pub fn has_pending_tool(&self) -> bool {
        self.tool_uses
            .iter()
            .any(|tool| tool.status == ToolStatus::Pending)
    }

    fn emit_status(&mut self) {
        let status = self.status();
        self.emit(|| AgentEvent::Status { status });
    }

    /// Replaces the usage (a final event's totals).
    /// A report of the same usage again is no new `usage` event.
    pub fn set_usage(&mut self, usage: Usage) {
        if self.usage.as_ref() != Some(&usage) {
            self.usage = Some(usage);
            self.emit_usage();
        }
    }

    /// Adds to the usage (one turn's counts).
    pub fn add_usage(&mut self, usage: &Usage) {
        let before = self.usage.clone();
        let now = self.usage.get_or_insert_with(Usage::default);
        now.add(usage);
        if before.as_ref() != Some(now) {
            self.emit_usage();
        }
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

    /// A JSON line of a type no reader knows: counted, and reported whole.
    pub fn unknown(&mut self, event_type: &str, raw: &Value) {
        match self
            .unknown_events
            .iter_mut()
            .find(|seen| seen.event_type == event_type)
        {
            Some(seen) => seen.count += 1,
            None => self.unknown_events.push(EventTypeCount {
                event_type: event_type.to_owned(),
                count: 1,
            }),
        }
        if self.events.is_some() {
            let (event_type, raw) = (event_type.to_owned(), raw.clone());
            self.emit(|| AgentEvent::Unknown { event_type, raw });
        }
    }

    /// A piece of the agent's reasoning (not part of the reply's text).
    pub fn thought(&mut self, piece: &str) {
        let piece = strip_ansi(piece);
        if piece.is_empty() {
            return;
        }
        self.thoughts.push_str(&piece);
        if self.events.is_some() {
            let text = piece.into_owned();
            self.emit(|| AgentEvent::Thought { text });
        }
    }

    /// The agent's plan now (it replaces any earlier one).
    pub fn plan(&mut self, entries: &Value) {
        self.plan = Some(entries.clone());
        if self.events.is_some() {
            let entries = entries.clone();
            self.emit(|| AgentEvent::Plan { entries });
        }
    }

    /// A `compaction_update` or `compaction_summary_chunk` update.
    pub fn compaction(&mut self, update: &Value) {
        let Some(now) = self.compactions.update(update) else {
            return;
        };
        if self.events.is_some() {
            let compaction = now.clone();
            self.emit(|| AgentEvent::Compaction { compaction });
        }
    }

    /// A live `notice` (an event only).
    pub fn notice(&mut self, update: &Value) {
        if self.events.is_some() {
            if let Some(notice) = super::compaction::Notice::read(update) {
                self.emit(|| AgentEvent::Notice { notice });
            }
        }
    }

    /// The structured value the agent answered with (`outputSchema`).
    pub fn structured(&mut self, value: &Value) {
        self.structured = Some(value.clone());
    }

    /// Why the CLI says the run ended; the last one said wins.
    pub fn terminal_reason(&mut self, reason: &str) {
        self.terminal_reason = Some(reason.to_owned());
    }

    /// The HTTP status of the API error the run ended on.
    pub fn api_error_status(&mut self, status: u64) {
        self.api_error_status = Some(status);
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

    /// The reply, and in UTF-16 form its text as code units (`text` is then
    /// empty).
    pub fn finish(mut self) -> (AgentReply, Vec<u16>) {
        if self.success_at_end {
            self.succeeded = true;
        }
        if let Some(error) = self.pending_failure.and_then(|i| self.errors.get_mut(i)) {
            error.fatal = true;
        }
        let status = self.status();
        let (text, units) = self.text.into_parts();
        let reply = AgentReply {
            text,
            session_id: self.session_id,
            status,
            errors: self.errors,
            tool_uses: self.tool_uses,
            usage: self.usage,
            non_json_lines: self.non_json_lines,
            terminal_reason: self.terminal_reason,
            api_error_status: self.api_error_status,
            unknown_events: self.unknown_events,
            thoughts: self.thoughts,
            plan: self.plan,
            structured: self.structured,
            compactions: self.compactions.all().to_vec(),
        };
        (reply, units)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deltas_join_and_messages_are_separated_by_a_blank_line() {
        let mut b = ReplyBuilder::new(true, TextForm::Utf8);
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
        let (reply, _) = b.finish();
        assert_eq!(reply.text, "Hello\n\nDone\n\nSecond");
        assert_eq!(texts, reply.text);
        assert_eq!(reply.status, ReplyStatus::Incomplete);
    }

    #[test]
    fn the_utf16_form_holds_the_same_text_as_code_units() {
        let feed = |b: &mut ReplyBuilder| {
            b.delta("Hé");
            b.delta("llo 🎉");
            b.tool_started("t1", Some("read_file"), None);
            b.delta("\u{1b}[1m国\u{1b}[0m");
            b.message("Second");
        };
        let mut utf8 = ReplyBuilder::new(true, TextForm::Utf8);
        feed(&mut utf8);
        let utf8_events = utf8.take_events();
        let (expected, none) = utf8.finish();
        assert!(none.is_empty());

        let mut utf16 = ReplyBuilder::new(true, TextForm::Utf16);
        feed(&mut utf16);
        let events = utf16.take_events();
        let (lengths, units) = utf16.take_text_units();
        let units = units.to_vec();
        // Each text event's units, cut from the units in order, are the
        // UTF-8 form's event text; other events are the same.
        let mut at = 0;
        let mut lengths = lengths.into_iter();
        assert_eq!(events.len(), utf8_events.len());
        for (event, expected_event) in events.iter().zip(&utf8_events) {
            match (event, expected_event) {
                (AgentEvent::Text { text }, AgentEvent::Text { text: want }) => {
                    assert!(text.is_empty());
                    let n = lengths.next().unwrap() as usize;
                    assert_eq!(String::from_utf16(&units[at..at + n]).unwrap(), *want);
                    at += n;
                }
                _ => assert_eq!(event, expected_event),
            }
        }
        assert_eq!(at, units.len());
        assert!(utf16.take_text_units().1.is_empty());
        let (reply, all_units) = utf16.finish();
        assert_eq!(reply.text, "");
        assert_eq!(String::from_utf16(&all_units).unwrap(), expected.text);
        assert_eq!(
            AgentReply {
                text: expected.text.clone(),
                ..reply
            },
            expected
        );
    }

    #[test]
    fn an_escape_split_between_deltas_is_stripped_whole() {
        let mut b = ReplyBuilder::new(false, TextForm::Utf8);
        b.delta("red\u{1b}[3");
        b.delta("1m and ");
        b.delta("\u{1b}");
        b.delta("[0mplain");
        b.delta("\u{1b}]0;ti");
        b.end_message();
        b.delta("next");
        assert_eq!(b.finish().0.text, "red and plain\n\nnext");
    }

    #[test]
    fn a_failure_repeating_the_last_error_upgrades_it() {
        let mut b = ReplyBuilder::new(false, TextForm::Utf8);
        b.note("error", "Reconnecting... 1/5", None);
        b.fail("error", "boom", None);
        b.fail("turn.failed", "boom", Some("x"));
        let (reply, _) = b.finish();
        assert_eq!(reply.errors.len(), 2);
        assert!(!reply.errors[0].fatal);
        assert!(reply.errors[1].fatal);
        assert_eq!(reply.errors[1].source, "error");
        assert_eq!(reply.errors[1].code.as_deref(), Some("x"));
        assert_eq!(reply.status, ReplyStatus::Error);
    }

    #[test]
    fn a_fatal_error_outweighs_a_success() {
        let mut b = ReplyBuilder::new(false, TextForm::Utf8);
        b.succeed();
        assert_eq!(b.status(), ReplyStatus::Success);
        b.fail_with_last_note("result", "failed");
        let (reply, _) = b.finish();
        assert_eq!(reply.status, ReplyStatus::Error);
        assert_eq!(reply.errors[0].message, "failed");
    }
}
