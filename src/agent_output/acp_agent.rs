//! The agents whose ACP output the reader reads differently (usage, tool
//! names, errors), by agent type.

/// The agents whose ACP output differs in a way the reply cares about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Agent {
    Claude,
    Codex,
    Gemini,
    Qwen,
    Copilot,
    Opencode,
    Other,
}

impl Agent {
    pub(super) fn of(agent_type: &str) -> Agent {
        match agent_type {
            "claude-code" => Agent::Claude,
            "openai-codex" => Agent::Codex,
            "google-gemini" => Agent::Gemini,
            "qwen-code" => Agent::Qwen,
            "github-copilot" => Agent::Copilot,
            "opencode" => Agent::Opencode,
            _ => Agent::Other,
        }
    }
}
