//! The context builder (seed 004): a persisted conversation → an OpenAI-style
//! message array whose first message is a system prompt composed from the
//! embedded templates.

mod conversation;
mod options;
mod run_directive;
mod system_prompt;
mod templates;
mod window;

pub use conversation::{ConversationMessage, OpenAIChatMessage, OpenAIContent, Role, ToolCall};
pub use options::{
    AgentInfo, ContextBuildOptions, PromptOptions, RunContext, SessionMode, Settings,
    ToolPolicyConfig, Transition,
};
pub use run_directive::{parse_run_directive, parse_run_directive_with, RunDirective, StepStatus};
pub use system_prompt::{compose_system_prompt, PART_SEPARATOR};
pub use templates::{Templates, EMBEDDED as EMBEDDED_TEMPLATES};
pub use window::window_start;

use serde::Serialize;

/// `ContextBuildResult.metadata`: the seed's five fields, plus `trimmedCount`
/// only when `settings.maxMessages` was given.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Metadata {
    pub input_count: usize,
    pub output_count: usize,
    pub filtered_count: usize,
    pub system_prompt_included: bool,
    /// In UTF-16 code units, as JS `.length` counts.
    pub system_prompt_length: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trimmed_count: Option<usize>,
}

/// `{ messages, metadata }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ContextBuildResult<'a> {
    pub messages: Vec<OpenAIChatMessage<'a>>,
    pub metadata: Metadata,
}

/// Which conversation messages go out, as indices into the input.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    pub indices: Vec<usize>,
    /// Messages left out by `includeInContext === false`.
    pub filtered: usize,
    /// Messages left out by `maxMessages` (`None` when it was not given).
    pub trimmed: Option<usize>,
}

/// The builder's fast path: `codes` holds each message's role (0 user,
/// 1 assistant, 2 system, 3 tool) plus 4 when `includeInContext === false`;
/// `max_messages` is negative when not given. Returns `[filteredCount,
/// trimmedCount or 2^32 - 1, ...indices of the messages that go out]`.
pub fn select_coded_messages(codes: &[u8], max_messages: f64) -> Vec<u32> {
    let flags: Vec<(Role, bool)> = codes
        .iter()
        .map(|c| {
            let role = match c & 3 {
                0 => Role::User,
                1 => Role::Assistant,
                2 => Role::System,
                _ => Role::Tool,
            };
            (role, c & 4 == 0)
        })
        .collect();
    let max = (max_messages >= 0.0).then_some(max_messages as usize);
    let selection = select_messages(&flags, max);
    // Counts and indices are below the array's length, itself below 2^32.
    let mut out = Vec::with_capacity(selection.indices.len() + 2);
    out.push(selection.filtered as u32);
    out.push(selection.trimmed.map_or(u32::MAX, |t| t as u32));
    out.extend(selection.indices.iter().map(|&i| i as u32));
    out
}

/// Seed 004's rules on `(role, includeInContext)` of each message: system
/// messages are skipped (not counted), excluded ones skipped and counted, then
/// `maxMessages` keeps the newest without orphaning a tool result.
pub fn select_messages(messages: &[(Role, bool)], max_messages: Option<usize>) -> Selection {
    let mut filtered = 0;
    let mut indices = Vec::with_capacity(messages.len());
    for (i, (role, include)) in messages.iter().enumerate() {
        if *role == Role::System {
            continue;
        }
        if !include {
            filtered += 1;
            continue;
        }
        indices.push(i);
    }
    let trimmed = max_messages.map(|max| {
        let roles: Vec<Role> = indices.iter().map(|&i| messages[i].0).collect();
        let start = window_start(&roles, max);
        indices.drain(..start);
        start
    });
    Selection {
        indices,
        filtered,
        trimmed,
    }
}

/// `buildLlmMessagesFromConversation`.
pub fn build_llm_messages<'a>(
    options: &'a ContextBuildOptions<'a>,
    templates: &Templates<'_>,
) -> ContextBuildResult<'a> {
    let mut messages = Vec::with_capacity(options.messages.len() + 1);
    let mut system_prompt_length = 0;
    if options.settings.include_system_prompt {
        let system = compose_system_prompt(&options.prompt, templates);
        system_prompt_length = system.encode_utf16().count();
        messages.push(OpenAIChatMessage {
            role: "system",
            content: OpenAIContent::Text(system),
            name: None,
            tool_calls: None,
            tool_call_id: None,
        });
    }
    let flags: Vec<(Role, bool)> = options
        .messages
        .iter()
        .map(|m| (m.role, m.include_in_context))
        .collect();
    let selection = select_messages(&flags, options.settings.max_messages);
    messages.extend(
        selection
            .indices
            .iter()
            .map(|&i| options.messages[i].to_openai()),
    );
    ContextBuildResult {
        metadata: Metadata {
            input_count: options.messages.len(),
            output_count: messages.len(),
            filtered_count: selection.filtered,
            system_prompt_included: options.settings.include_system_prompt,
            system_prompt_length,
            trimmed_count: selection.trimmed,
        },
        messages,
    }
}
