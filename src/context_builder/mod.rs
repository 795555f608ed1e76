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
pub use run_directive::{parse_run_directive, RunDirective, StepStatus};
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
    let conversation: Vec<&ConversationMessage<'_>> = options
        .messages
        .iter()
        .filter(|m| m.role != Role::System)
        .collect();
    let kept: Vec<&ConversationMessage<'_>> = conversation
        .iter()
        .copied()
        .filter(|m| m.include_in_context)
        .collect();
    let filtered_count = conversation.len() - kept.len();
    let start = match options.settings.max_messages {
        Some(max) => window_start(&kept.iter().map(|m| m.role).collect::<Vec<_>>(), max),
        None => 0,
    };
    messages.extend(kept[start..].iter().map(|m| m.to_openai()));
    ContextBuildResult {
        metadata: Metadata {
            input_count: options.messages.len(),
            output_count: messages.len(),
            filtered_count,
            system_prompt_included: options.settings.include_system_prompt,
            system_prompt_length,
            trimmed_count: options.settings.max_messages.map(|_| start),
        },
        messages,
    }
}
