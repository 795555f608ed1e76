//! The parse result (`AgentReply`) and the events the incremental parser
//! hands out.

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    /// A sub-agent's call: the id of the tool call that runs that
    /// sub-agent (Claude Code's `Task`/`Agent` call), where the agent says
    /// so (Claude's ACP adapter: `_meta.claudeCode.parentToolUseId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub parent_id: Option<String>,
}

/// Token counts and cost, when the CLI reports them. `inputTokens` counts
/// every prompt token, cached ones included; `cachedInputTokens` is the
/// cached part.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
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
    /// The part of `outputTokens` spent reasoning (Codex's
    /// `reasoning_output_tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reasoning_output_tokens: Option<u64>,
    /// The part of `inputTokens` written to the prompt cache (Codex's
    /// `cache_write_input_tokens`, Claude's `cache_creation_input_tokens`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_write_input_tokens: Option<u64>,
    /// The same counts per model, in the order the CLI listed them (Gemini's
    /// `stats.models`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub models: Vec<ModelUsage>,
    /// Tokens in the agent's context window at its last report (ACP
    /// `usage_update.used`): a level, not a count of tokens spent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_tokens: Option<u64>,
    /// The size of that context window (ACP `usage_update.size`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub context_window: Option<u64>,
}

/// One model's share of the usage (its `models` empty).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelUsage {
    pub model: String,
    pub usage: Usage,
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
        sum(
            &mut self.reasoning_output_tokens,
            other.reasoning_output_tokens,
        );
        sum(
            &mut self.cache_write_input_tokens,
            other.cache_write_input_tokens,
        );
        // Levels, not counts: the latest report stands.
        if other.context_tokens.is_some() {
            self.context_tokens = other.context_tokens;
        }
        if other.context_window.is_some() {
            self.context_window = other.context_window;
        }
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
    /// Why the CLI says the run ended (Claude Code's `terminal_reason`:
    /// `"completed"`, `"api_error"`, …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub terminal_reason: Option<String>,
    /// The HTTP status of the API error the run ended on (Claude Code's
    /// `api_error_status`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_error_status: Option<u64>,
    /// JSON lines of a type this parser does not know, counted per type in
    /// the order first seen (each also came as an `Unknown` event).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unknown_events: Vec<EventTypeCount>,
    /// The agent's reasoning as it streamed it, apart from `text` (ACP
    /// `agent_thought_chunk`); empty when it showed none.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub thoughts: String,
    /// The agent's latest plan: its entries as sent (ACP `plan`:
    /// `{ content, priority, status }` each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plan: Option<Value>,
    /// With `outputSchema`: the value the reply holds. The parser sets the
    /// agent's own (Claude Code's `structured_output`); a run sets the
    /// value it validated, or none when the turn ends `invalid_output`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub structured: Option<Value>,
    /// The agent's own context compactions in this reply, each as it last
    /// stood (ACP `compaction_update` and `compaction_summary_chunk`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub compactions: Vec<super::Compaction>,
}

/// How many lines of one unknown event type were seen.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct EventTypeCount {
    /// The line's `type` (`""` for a JSON object without one).
    #[serde(rename = "type")]
    pub event_type: String,
    pub count: u64,
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
    /// A piece of the agent's reasoning (not part of the reply's text).
    Thought {
        text: String,
    },
    /// The agent's plan now: its entries as sent.
    Plan {
        entries: Value,
    },
    /// The agent compacted its context (or is compacting it): the
    /// compaction as it stands now (`id`, `status`, `summary`, `error`).
    Compaction {
        #[serde(flatten)]
        compaction: super::Compaction,
    },
    /// A live notice for the user (`severity`, `title`, `description`):
    /// not part of the reply or the record.
    Notice {
        #[serde(flatten)]
        notice: super::Notice,
    },
    /// A JSON line of a type this parser does not know: its `type` (or the
    /// `msg.type` of Codex's older schema; `""` when it has none) and the
    /// whole line as parsed.
    Unknown {
        event_type: String,
        raw: Value,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

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
