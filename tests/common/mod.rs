//! Shared by the native and the wasm tests: the worked examples of seed 000 §7
//! and seed 001 §6, and the SPEC §2 formats of Claude Code and Codex (`tests/golden/worked-examples.json`, also read by the JS
//! tests) and a builder for inputs.
#![allow(dead_code)]

use agent_context::{AssemblerInput, ContextMessage, PromptFields, DEFAULT_MAX_BYTES};

/// The worked examples as JSON, in the shape JS callers pass.
pub const WORKED_EXAMPLES_JSON: &str = include_str!("../golden/worked-examples.json");

/// The expected prompt stored in `tests/golden/{name}`.
pub fn golden(name: &str) -> &'static str {
    match name {
        "gemini-7.1-full.txt" => include_str!("../golden/gemini-7.1-full.txt"),
        "gemini-7.2-no-instructions.txt" => {
            include_str!("../golden/gemini-7.2-no-instructions.txt")
        }
        "gemini-7.3-message-only.txt" => include_str!("../golden/gemini-7.3-message-only.txt"),
        "plain-6.1-full.txt" => include_str!("../golden/plain-6.1-full.txt"),
        "plain-6.2-minimal.txt" => include_str!("../golden/plain-6.2-minimal.txt"),
        "plain-6.3-instructions-and-message.txt" => {
            include_str!("../golden/plain-6.3-instructions-and-message.txt")
        }
        "claude-full.prompt.txt" => include_str!("../golden/claude-full.prompt.txt"),
        "claude-full.systemFlag.txt" => include_str!("../golden/claude-full.systemFlag.txt"),
        "codex-full.txt" => include_str!("../golden/codex-full.txt"),
        "arrow-without-recipient.txt" => include_str!("../golden/arrow-without-recipient.txt"),
        other => panic!("no golden file {other}"),
    }
}

/// Seed 004's golden cases (`tests/golden/context/cases.json`).
pub const CONTEXT_CASES_JSON: &str = include_str!("../golden/context/cases.json");

/// The expected system prompt stored in `tests/golden/context/{name}`.
pub fn context_golden(name: &str) -> &'static str {
    match name {
        "chat-minimal.txt" => include_str!("../golden/context/chat-minimal.txt"),
        "chat-policy.txt" => include_str!("../golden/context/chat-policy.txt"),
        "agent-persona-policy.txt" => include_str!("../golden/context/agent-persona-policy.txt"),
        "agent-precompiled.txt" => include_str!("../golden/context/agent-precompiled.txt"),
        "agent-blank-precompiled.txt" => {
            include_str!("../golden/context/agent-blank-precompiled.txt")
        }
        "agent-ignores-run-context.txt" => {
            include_str!("../golden/context/agent-ignores-run-context.txt")
        }
        "run-full.txt" => include_str!("../golden/context/run-full.txt"),
        "run-bare-step.txt" => include_str!("../golden/context/run-bare-step.txt"),
        "run-no-context.txt" => include_str!("../golden/context/run-no-context.txt"),
        other => panic!("no context golden file {other}"),
    }
}

pub fn input(
    messages: &[(&str, Option<&str>, &str)],
    current: &str,
    team: Option<&str>,
    system: Option<&str>,
    file: Option<&str>,
) -> AssemblerInput {
    AssemblerInput {
        fields: PromptFields {
            current_message: current.into(),
            team_task: team.unwrap_or_default().into(),
            system_instruction: system.unwrap_or_default().into(),
            instruction_file_text: file.unwrap_or_default().into(),
            max_bytes: DEFAULT_MAX_BYTES,
        },
        context_messages: messages
            .iter()
            .map(|(f, t, c)| ContextMessage::new(f, *t, c))
            .collect(),
    }
}
