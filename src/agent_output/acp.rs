//! ACP transcripts (SPEC §12): the JSON-RPC 2.0 lines an agent prints on
//! stdout when a client drives it over the Agent Client Protocol, read into
//! the same reply as the CLIs' own formats.
//!
//! The parser sees only the agent's side: its responses (to `initialize`,
//! `session/new|load|resume`, `session/prompt`), its `session/update`
//! notifications and its requests to the client (permissions, `fs`). Where
//! each agent puts what (usage, tool names, errors) differs, so a few
//! readings follow the agent's [`AcpQuirks`], read from its registry entry;
//! docs/acp-output.md lists them.

use agent_context_scan::acp_update::{self, Kind, Update};
use agent_context_scan::unit::eq_ascii;

use serde_json::Value;

use super::acp_fields::{
    ascii, ascii_len, content_text, is_notice, new_session, starts_with_str, tool_name_meta,
};
use super::acp_tool::{content_output, json_value, raw_output, raw_str, ToolFields};
use super::acp_usage::{acp_usage, find, gemini_quota, http_status_in, leading_status, usd};
use super::builder::ReplyBuilder;
use super::json::{count_field, str_field};
use super::reply::{ToolStatus, Usage};
use crate::agents::{self, AcpQuirks, AcpToolName};

/// The `session/update` kinds of ACP (v1 and its unstable additions) this
/// reader knows; any other is reported as unknown.
const KNOWN_UPDATES: &[&str] = &[
    "agent_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "plan",
    "usage_update",
    // Nothing the reply holds: the echoed or replayed prompt, the agent's
    // commands, modes, options and title.
    "user_message_chunk",
    "available_commands_update",
    "current_mode_update",
    "config_option_update",
    "session_info_update",
    // The agent's own context compaction and its live notices (sent only
    // to a client that advertises `session.compaction` / `session.notices`).
    "compaction_update",
    "compaction_summary_chunk",
    "notice",
];

/// Where the transcript stands, as far as the agent's side shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Phase {
    /// No `initialize` response seen (the transcript may start later).
    Open,
    /// `initialize` answered; the next response sets the session up. Updates
    /// before it are the history `session/load` replays, not the reply.
    SettingUp,
    /// The session is set up: updates are the reply.
    Turn,
}

/// Reads one ACP line after another; holds what spans lines (the usage so
/// far, the message being streamed).
#[derive(Debug)]
pub struct AcpReader {
    /// How the agent's updates differ from the plain protocol.
    quirks: AcpQuirks,
    phase: Phase,
    usage: Option<Usage>,
    /// The `messageId` of the last message chunk (opencode sends one): a
    /// new id starts a new message.
    message_id: Option<String>,
    /// Codex's adapter said the turn broke (`session_info_update` with
    /// `_meta.codex.threadStatus.type: systemError`): the text it sends
    /// until the turn ends is the error's, not the reply's.
    system_error: bool,
    /// Whether common lines are read straight from their bytes (off only to
    /// check that both readers agree).
    fast: bool,
    /// The agent's name, for messages.
    name: &'static str,
    /// What the agent had said ([`ReplyBuilder::said`]) when the last turn
    /// ended: a turn of an agent with silent failures that adds nothing
    /// failed.
    said_before: usize,
}

impl AcpReader {
    pub fn new(agent_type: &str) -> Self {
        AcpReader {
            quirks: agents::find(agent_type)
                .and_then(|a| a.acp.as_ref())
                .map_or(AcpQuirks::NONE, |l| l.quirks),
            phase: Phase::Open,
            usage: None,
            message_id: None,
            system_error: false,
            fast: true,
            name: agents::find(agent_type).map_or("the agent", |a| a.name),
            said_before: 0,
        }
    }

    /// A reader that reads every line with the general (serde_json) reader.
    pub fn general_only(agent_type: &str) -> Self {
        AcpReader {
            fast: false,
            ..Self::new(agent_type)
        }
    }

    /// One JSON object the agent printed.
    pub fn read(&mut self, message: &Value, out: &mut ReplyBuilder) {
        if let Some(method) = str_field(message, "method") {
            let params = message.get("params").unwrap_or(&Value::Null);
            return self.method(method, params, message, out);
        }
        let is_response = message.get("id").is_some()
            && (message.get("result").is_some() || message.get("error").is_some());
        if !is_response {
            return out.unknown("", message);
        }
        match message.get("error") {
            Some(error) if !error.is_null() => self.error_response(error, out),
            _ => self.result(message.get("result").unwrap_or(&Value::Null), out),
        }
    }

    /// A notification, or a request to the client.
    fn method(&mut self, method: &str, params: &Value, message: &Value, out: &mut ReplyBuilder) {
        match method {
            "session/update" => {
                let update = params.get("update").unwrap_or(&Value::Null);
                let kind = str_field(update, "sessionUpdate").unwrap_or("");
                // An update of a kind not known here says nothing, not even
                // its session.
                if !KNOWN_UPDATES.contains(&kind) {
                    return out.unknown(kind, message);
                }
                if let Some(id) = str_field(params, "sessionId") {
                    out.session(id);
                }
                self.update(kind, update, out);
            }
            // The tool call asking for permission, as the agent describes it;
            // the answer is the client's, not in this output.
            // It is the call's first sight where no `tool_call` came before
            // (Gemini CLI asks before an MCP tool so).
            "session/request_permission" => {
                if let Some(tool) = params.get("toolCall") {
                    let input = tool.get("rawInput").cloned();
                    let first = str_field(tool, "toolCallId").is_some_and(|id| !out.knows_tool(id));
                    self.tool(&ToolFields::of(tool), input, first, out);
                }
            }
            // The client's file access: the tool calls around it tell the story.
            "fs/read_text_file" | "fs/write_text_file" => {}
            _ => out.unknown(method, message),
        }
    }

    /// An update of one of the [`KNOWN_UPDATES`].
    fn update(&mut self, kind: &str, update: &Value, out: &mut ReplyBuilder) {
        let history = self.phase == Phase::SettingUp;
        match kind {
            "agent_message_chunk" => {
                self.chunk_usage(update.get("_meta"), out);
                if history {
                    return;
                }
                if self.notice_or_error(update, out) {
                    return;
                }
                let id = str_field(update, "messageId");
                if id.is_some() && id != self.message_id.as_deref() {
                    out.end_message();
                    self.message_id = id.map(str::to_owned);
                }
                if let Some(text) = content_text(update) {
                    if !self.error_as_text(text, out) {
                        out.delta(text);
                    }
                }
            }
            "agent_thought_chunk" if !history => {
                if let Some(text) = content_text(update) {
                    out.thought(text);
                }
            }
            "tool_call" | "tool_call_update" if !history => {
                let input = update.get("rawInput").cloned();
                self.tool(&ToolFields::of(update), input, kind == "tool_call", out)
            }
            "plan" if !history => {
                if let Some(entries) = update.get("entries") {
                    out.plan(entries);
                }
            }
            "usage_update" => self.usage_update(
                count_field(update, "used"),
                count_field(update, "size"),
                update.get("cost").and_then(usd),
                out,
            ),
            "compaction_update" | "compaction_summary_chunk" if !history => out.compaction(update),
            "notice" if !history => out.notice(update),
            "session_info_update" if !history && self.quirks.system_error_info => {
                self.codex_session_info(update.get("_meta"), out)
            }
            // Nothing the reply holds: the echoed or replayed prompt, the
            // agent's commands, modes, options and title; or history.
            _ => {}
        }
    }

    /// A message chunk that is not the reply: Claude Code's notices
    /// (`_meta.claudeCode.kind: informational`, such as its auto-mode
    /// billing warning, the CLI protocol's `system/informational` line),
    /// kept as a note; or the text Codex's adapter sends after a system
    /// error (its words for the failure, such as "We're currently
    /// experiencing high demand"), the turn's fatal error. True when the
    /// chunk was one of those.
    fn notice_or_error(&mut self, update: &Value, out: &mut ReplyBuilder) -> bool {
        if is_notice(self.quirks, update.get("_meta")) {
            if let Some(text) = content_text(update).filter(|t| !t.trim().is_empty()) {
                out.note("agent_message_chunk", text.trim(), Some("informational"));
            }
            return true;
        }
        if self.system_error {
            if let Some(text) = content_text(update).filter(|t| !t.trim().is_empty()) {
                out.fail("agent_message_chunk", text.trim(), Some("systemError"));
            }
            return true;
        }
        if let Some(text) = content_text(update)
            .filter(|t| self.quirks.notice_texts.iter().any(|p| t.starts_with(p)))
        {
            out.note("agent_message_chunk", text.trim(), Some("notice"));
            return true;
        }
        false
    }

    /// Codex's adapter (`@agentclientprotocol/codex-acp`) reports a failed
    /// model call in `session_info_update`'s `_meta.codex`: `error`
    /// (`message`, `additionalDetails`, `codexErrorInfo`, `willRetry`) for
    /// each failure, a note, then `threadStatus.type: systemError` when it
    /// gives up; the turn still ends `end_turn`.
    fn codex_session_info(&mut self, meta: Option<&Value>, out: &mut ReplyBuilder) {
        let Some(codex) = meta.and_then(|m| m.get("codex")) else {
            return;
        };
        if let Some(error) = codex.get("error").filter(|e| e.is_object()) {
            let message = str_field(error, "message").unwrap_or("Codex reported an error");
            let message = match str_field(error, "additionalDetails") {
                Some(more) if !more.is_empty() && find(message, more).is_none() => {
                    format!("{message}: {more}")
                }
                _ => message.to_owned(),
            };
            let info = error.get("codexErrorInfo");
            let code = match info {
                Some(Value::String(s)) => Some(s.clone()),
                Some(Value::Object(o)) => o.keys().next().cloned(),
                _ => None,
            };
            if let Some(status) = info
                .and_then(Value::as_object)
                .and_then(|o| o.values().find_map(|v| count_field(v, "httpStatusCode")))
                .filter(|s| (400..600).contains(s))
            {
                out.api_error_status(status);
            }
            out.note("session_info_update", &message, code.as_deref());
        }
        let status = codex.get("threadStatus").and_then(|t| str_field(t, "type"));
        if status == Some("systemError") {
            self.system_error = true;
        }
    }

    /// Qwen's usage of each model call, in the `_meta` of an (empty)
    /// message chunk: added.
    fn chunk_usage(&mut self, meta: Option<&Value>, out: &mut ReplyBuilder) {
        if let Some(usage) = meta.and_then(|m| m.get("usage")) {
            let mut turn = acp_usage(usage, self.quirks);
            turn.duration_ms = meta.and_then(|m| count_field(m, "durationMs"));
            self.add_usage(&turn, out);
        }
    }

    /// `usage_update`: how full the context window is, and the session's
    /// cost so far (the latest stands).
    fn usage_update(
        &mut self,
        used: Option<u64>,
        size: Option<u64>,
        cost: Option<f64>,
        out: &mut ReplyBuilder,
    ) {
        let current = self.usage.get_or_insert_with(Usage::default);
        current.add(&Usage {
            context_tokens: used,
            context_window: size,
            ..Usage::default()
        });
        if cost.is_some() {
            current.cost_usd = cost;
        }
        out.set_usage(current.clone());
    }

    /// A `session/update` line of the commonest kinds read straight from
    /// its bytes (`acp_update`, no JSON tree built); false, nothing done,
    /// for any line the general reader must see.
    pub fn read_fast(&mut self, line: &[u8], out: &mut ReplyBuilder, text: &mut Vec<u16>) -> bool {
        self.fast
            && acp_update::scan(line, text).is_some_and(|update| self.apply(&update, out, text))
    }

    /// [`read_fast`](Self::read_fast) for a client that reads the other
    /// lines itself (the session engine): an update of a kind the reply
    /// does not hold (commands, modes, options, session info) is left to
    /// it, so that it sees the session's state change.
    pub fn read_fast_reply(
        &mut self,
        line: &[u8],
        out: &mut ReplyBuilder,
        text: &mut Vec<u16>,
    ) -> bool {
        self.read_fast_where(line, out, text, false)
    }

    /// [`read_fast`](Self::read_fast) for an update of the session's own
    /// state (commands, modes, options, session info) only, for a client
    /// that reads that state itself (the session engine).
    pub fn read_fast_quiet(
        &mut self,
        line: &[u8],
        out: &mut ReplyBuilder,
        text: &mut Vec<u16>,
    ) -> bool {
        self.read_fast_where(line, out, text, true)
    }

    /// An update read fast when it is (`quiet`) or is not one of the
    /// session's own state.
    fn read_fast_where(
        &mut self,
        line: &[u8],
        out: &mut ReplyBuilder,
        text: &mut Vec<u16>,
        quiet: bool,
    ) -> bool {
        self.fast
            && acp_update::scan(line, text).is_some_and(|update| {
                (update.kind == Kind::Quiet) == quiet && self.apply(&update, out, text)
            })
    }

    /// What [`update`](Self::update) does with the same line.
    fn apply(&mut self, update: &Update<'_, u8>, out: &mut ReplyBuilder, text: &[u16]) -> bool {
        if matches!(update.kind, Kind::ToolCall | Kind::ToolCallUpdate) {
            return self.apply_tool(update, out);
        }
        // A message chunk's `_meta` (Qwen's usage), read alone.
        let meta = match update
            .raw
            .meta
            .filter(|_| update.kind == Kind::MessageChunk)
        {
            Some(raw) => match json_value(raw) {
                Some(meta) => Some(meta),
                None => return false,
            },
            None => None,
        };
        // Claude's notices, and Codex's session info and the text after a
        // system error: the general reader's (rare lines).
        if is_notice(self.quirks, meta.as_ref())
            || (self.quirks.system_error_info
                && (self.system_error || (update.kind == Kind::Quiet && update.raw.meta.is_some())))
        {
            return false;
        }
        let has_text = update.text;
        if update.kind == Kind::MessageChunk
            && has_text
            && (self
                .quirks
                .error_text_prefix
                .is_some_and(|p| starts_with_str(text, p))
                || self
                    .quirks
                    .notice_texts
                    .iter()
                    .any(|p| starts_with_str(text, p)))
        {
            // Maybe an error as text (Copilot's "Error: "), or a notice
            // (pi's adapter): the general reader's.
            return false;
        }
        let Some(session) = new_session(update, out) else {
            return false;
        };
        if update.message_id.is_some_and(|id| ascii_len(id).is_none()) {
            return false;
        }
        // Read by serde_json's own number reader, as the general reader does
        // (as a `Value`: an `f64` target would link float formatting).
        let cost = match update.cost_usd {
            None => None,
            Some(amount) => match ascii(amount)
                .and_then(|a| serde_json::from_str::<Value>(&a).ok())
                .and_then(|n| n.as_f64())
                .filter(|n| n.is_finite())
            {
                Some(amount) => Some(amount),
                None => return false,
            },
        };
        if let Some(id) = session {
            out.session(&id);
        }
        self.chunk_usage(meta.as_ref(), out);
        let history = self.phase == Phase::SettingUp;
        match update.kind {
            Kind::Quiet => {}
            // Read by `apply_tool`.
            Kind::ToolCall | Kind::ToolCallUpdate => return false,
            Kind::Usage => self.usage_update(update.used, update.size, cost, out),
            Kind::ThoughtChunk if !history && has_text => {
                out.thought(&String::from_utf16_lossy(text));
            }
            Kind::ThoughtChunk => {}
            Kind::MessageChunk if history => {}
            Kind::MessageChunk => {
                if let Some(id) = update.message_id {
                    let same = self
                        .message_id
                        .as_deref()
                        .is_some_and(|seen| eq_ascii(id, seen.as_bytes()));
                    if !same {
                        out.end_message();
                        self.message_id = ascii(id);
                    }
                }
                if has_text {
                    if out.takes_units() {
                        out.delta_units(text);
                    } else {
                        out.delta(&String::from_utf16_lossy(text));
                    }
                }
            }
        }
        true
    }

    /// A tool call: the fields [`tool`](Self::tool) reads, each from the
    /// raw text the scanner checked, then read by `tool` itself. Fields only
    /// a finished tool's output needs are read for it only, `_meta` only
    /// where it is read. False, nothing done, when a field is not UTF-8
    /// (the general reader decides).
    fn apply_tool(&mut self, update: &Update<'_, u8>, out: &mut ReplyBuilder) -> bool {
        let Some(session) = new_session(update, out) else {
            return false;
        };
        let raw = &update.raw;
        let started = update.kind == Kind::ToolCall;
        // A tool call: the fields `tool` reads, strings borrowed from the
        // line where they have no escapes.
        let (Some(id), Some(status), Some(kind), Some(title)) = (
            raw_str(raw.tool_call_id),
            raw_str(raw.status),
            raw_str(raw.kind),
            raw_str(raw.title),
        ) else {
            return false;
        };
        let meta = match raw.meta {
            Some(meta)
                if matches!(
                    self.quirks.tool_name,
                    AcpToolName::ClaudeCodeMeta | AcpToolName::MetaToolName
                ) =>
            {
                match tool_name_meta(self.quirks.tool_name, meta) {
                    Some(meta) => Some(meta),
                    None => return false,
                }
            }
            _ => None,
        };
        let finished = matches!(status.as_deref(), Some("completed" | "failed"));
        // The content is the output once finished, or the input on the
        // first sight where the agent says it so.
        let wanted = finished || (started && self.quirks.input_in_first_content);
        let read = |raw: Option<&[u8]>| raw.filter(|_| wanted).map(json_value);
        let content = match read(raw.content) {
            Some(None) => return false,
            other => other.flatten(),
        };
        // `rawOutput` is read only when `content` has no text.
        let raw_output = match read(
            raw.raw_output
                .filter(|_| finished && content_output(content.as_ref()).is_none()),
        ) {
            Some(None) => return false,
            other => other.flatten(),
        };
        let input = match raw.raw_input.map(json_value) {
            Some(None) => return false,
            other => other.flatten(),
        };
        if let Some(id) = session {
            out.session(&id);
        }
        if self.phase != Phase::SettingUp {
            let fields = ToolFields {
                id: id.as_deref(),
                status: status.as_deref(),
                kind: kind.as_deref(),
                title: title.as_deref(),
                meta: meta.as_ref(),
                content: content.as_ref(),
                raw_output: raw_output.as_ref(),
            };
            self.tool(&fields, input, started, out);
        }
        true
    }

    /// Some agents report a failed model call as the turn's text (Copilot's
    /// "Error: 400 …") and end it `end_turn`: that is an error, not the
    /// reply.
    fn error_as_text(&self, text: &str, out: &mut ReplyBuilder) -> bool {
        let Some(rest) = self
            .quirks
            .error_text_prefix
            .and_then(|p| text.strip_prefix(p))
        else {
            return false;
        };
        // After its own retries of a 5xx: "Error: Failed to get response
        // from the AI model; retried 5 times (…) Last error: 500 …".
        let status = leading_status(rest).or_else(|| {
            let at = rest.find("Last error: ")?;
            leading_status(&rest[at + "Last error: ".len()..])
        });
        match status {
            Some(status) => {
                out.api_error_status(status);
                // The status as the error's code, as the CLI parsers keep
                // it: the run's classifier reads it when the turn also
                // fails as a JSON-RPC error that names none (Droid).
                out.fail("agent_message_chunk", rest, Some(&format!("http_{status}")));
                true
            }
            // No status, in words that say what failed (nothing answered).
            None if self
                .quirks
                .error_text_words
                .iter()
                .any(|w| rest.contains(w)) =>
            {
                out.fail("agent_message_chunk", rest.trim(), None);
                true
            }
            None => false,
        }
    }

    /// A `tool_call` (`started`) or `tool_call_update`, or the tool call of a
    /// permission request: its fields, and its `rawInput`.
    fn tool(
        &mut self,
        tool: &ToolFields<'_>,
        input: Option<Value>,
        started: bool,
        out: &mut ReplyBuilder,
    ) {
        let id = tool.id.unwrap_or_default();
        let name = self.tool_name(tool, input.as_ref(), started);
        let input = input.or_else(|| {
            let first = started && self.quirks.input_in_first_content;
            first
                .then(|| content_output(tool.content))
                .flatten()
                .and_then(|text| serde_json::from_str::<Value>(&text).ok())
                .filter(Value::is_object)
        });
        let input = input.filter(|v| !v.is_null() && v.as_object().map_or(true, |o| !o.is_empty()));
        let status = match tool.status {
            Some("completed") => Some(ToolStatus::Success),
            Some("failed") => Some(ToolStatus::Error),
            _ => None,
        };
        let output = status.and_then(|_| {
            content_output(tool.content).or_else(|| tool.raw_output.and_then(raw_output))
        });
        // A sub-agent's call (Claude's adapter names the call that runs it).
        let parent = match self.quirks.tool_name {
            AcpToolName::ClaudeCodeMeta => tool
                .meta
                .and_then(|m| m.get("claudeCode"))
                .and_then(|c| str_field(c, "parentToolUseId")),
            _ => None,
        };
        out.tool_of(
            id,
            name,
            input,
            status.map(|s| (s, output.as_deref())),
            parent,
        );
    }

    /// The tool's own name where the agent gives it, else the ACP `kind`
    /// (`read`, `edit`, `execute`, …; the title for `other`) or the title,
    /// on the first sight.
    fn tool_name<'a>(
        &self,
        tool: &ToolFields<'a>,
        input: Option<&Value>,
        started: bool,
    ) -> Option<&'a str> {
        let meta = tool.meta;
        let named = match self.quirks.tool_name {
            AcpToolName::ClaudeCodeMeta => meta
                .and_then(|m| m.get("claudeCode"))
                .and_then(|c| str_field(c, "toolName")),
            AcpToolName::MetaToolName => meta.and_then(|m| str_field(m, "toolName")),
            AcpToolName::IdPrefix(sep) if started => {
                tool.id.and_then(|id| Some(&id[..find(id, sep)?]))
            }
            AcpToolName::McpTitle(prefix) if started => {
                let mcp = input.is_some_and(|i| {
                    str_field(i, "server").is_some() && str_field(i, "tool").is_some()
                });
                tool.title.filter(|t| mcp && t.starts_with(prefix))
            }
            _ => None,
        };
        // `other` is ACP's kind for whatever fits no other (an MCP server's
        // tool): the title names it better.
        let kind = tool.kind.filter(|k| *k != "other" || tool.title.is_none());
        named.or_else(|| started.then(|| kind.or(tool.title)).flatten())
    }

    /// A successful response: the session (`sessionId`), the turn's end
    /// (`stopReason`), or the `initialize` answer.
    fn result(&mut self, result: &Value, out: &mut ReplyBuilder) {
        if result.get("protocolVersion").is_some() && result.get("stopReason").is_none() {
            self.phase = Phase::SettingUp;
            return;
        }
        if self.phase == Phase::SettingUp {
            self.phase = Phase::Turn;
        }
        if let Some(id) = str_field(result, "sessionId") {
            out.session(id);
        }
        let Some(reason) = str_field(result, "stopReason") else {
            return;
        };
        self.turn_usage(result, out);
        out.terminal_reason(reason);
        let system_error = std::mem::take(&mut self.system_error);
        let said_nothing = out.said() == std::mem::replace(&mut self.said_before, out.said());
        if reason == "end_turn"
            && self.quirks.silent_failures
            && said_nothing
            && !out.has_fatal_error()
        {
            out.fail(
                "stopReason",
                &format!(
                    "the turn ended without a word, a thought or a tool call: over ACP {} says nothing of a failed model call (its session's log names the cause)",
                    self.name
                ),
                Some("silent_turn"),
            );
        } else if reason == "end_turn" && system_error && !out.has_fatal_error() {
            out.fail_with_last_note(
                "session_info_update",
                "Codex ended the turn on a system error (threadStatus systemError)",
            );
        } else if reason == "end_turn" {
            out.succeed();
        } else {
            let message = match reason {
                "cancelled" => "the turn was cancelled",
                "max_tokens" => "the turn ended at the model's token limit",
                "max_turn_requests" => "the turn ended at the agent's limit of model requests",
                "refusal" => "the agent refused to go on",
                _ => "the turn ended early",
            };
            out.fail("stopReason", &format!("{message} ({reason})"), Some(reason));
        }
    }

    /// The usage in the prompt's response: `usage` (ACP), or Gemini's
    /// `_meta.quota`.
    fn turn_usage(&mut self, result: &Value, out: &mut ReplyBuilder) {
        let quota = result.get("_meta").and_then(|m| m.get("quota"));
        let turn = if let Some(usage) = result.get("usage").filter(|u| u.is_object()) {
            acp_usage(usage, self.quirks)
        } else if let Some(quota) = quota {
            gemini_quota(quota)
        } else {
            return;
        };
        // The response's totals replace the counts; the levels and the cost
        // from `usage_update` stay.
        let mut usage = turn;
        if let Some(seen) = &self.usage {
            usage.context_tokens = seen.context_tokens;
            usage.context_window = seen.context_window;
            usage.cost_usd = usage.cost_usd.or(seen.cost_usd);
            usage.duration_ms = usage.duration_ms.or(seen.duration_ms);
        }
        self.usage = Some(usage.clone());
        out.set_usage(usage);
    }

    fn add_usage(&mut self, turn: &Usage, out: &mut ReplyBuilder) {
        let usage = self.usage.get_or_insert_with(Usage::default);
        usage.add(turn);
        out.set_usage(usage.clone());
    }

    /// A JSON-RPC error response. Only the agent's side is here, so which
    /// request failed is unknown; the requests a runner sends (set-up and
    /// prompt) all end the run when they fail, so it is fatal.
    fn error_response(&mut self, error: &Value, out: &mut ReplyBuilder) {
        if self.phase == Phase::SettingUp {
            self.phase = Phase::Turn;
        }
        let rpc_code = error.get("code").and_then(Value::as_i64);
        let data = error.get("data").unwrap_or(&Value::Null);
        let base = str_field(error, "message").unwrap_or("the agent answered with an error");
        // Gemini passes the API's JSON error body on as the message.
        let inner = base
            .starts_with('{')
            .then(|| serde_json::from_str::<Value>(base).ok())
            .flatten();
        let base = inner
            .as_ref()
            .and_then(|v| v.get("error"))
            .and_then(|e| str_field(e, "message"))
            .unwrap_or(base);
        // `data` as an object with words, or the words themselves (Droid:
        // `"data": "400 <the API's message>"`).
        let detail = str_field(data, "message")
            .or_else(|| str_field(data, "details"))
            .or_else(|| data.as_str().filter(|d| !d.is_empty()));
        let message = match detail {
            Some(detail) if find(base, detail).is_none() => format!("{base}: {detail}"),
            _ => base.to_owned(),
        };
        let status = rpc_code
            .filter(|c| (400..600).contains(c))
            .map(|c| c as u64)
            .or_else(|| http_status_in(&message));
        if let Some(status) = status {
            out.api_error_status(status);
        }
        let code = str_field(data, "codex_error_info")
            .or_else(|| str_field(data, "errorName"))
            .map(str::to_owned)
            .or_else(|| rpc_code.map(|c| c.to_string()));
        out.fail("error", &message, code.as_deref());
    }
}

#[cfg(test)]
#[path = "acp_tests.rs"]
mod tests;
