//! ACP adapters that are no longer maintained, known by the name they give
//! in `initialize`'s `agentInfo`: a run through one says so once, naming
//! the package that replaced it (`docs/agents.md`, "Zed's frozen
//! adapters").

use serde_json::Value;

/// `agentInfo.name`, the package that replaced it, what goes wrong
/// through it, and how long its process is given to save its session
/// before it is killed at the end (0: killed at once, as any agent that
/// ignores the end of its stdin).
const SUPERSEDED: &[(&str, &str, &str, u64)] = &[
    (
        "@zed-industries/claude-agent-acp",
        "@agentclientprotocol/claude-agent-acp",
        "it replaces the model asked for with its default",
        // It writes the turn's reply to its session file after it answered
        // the prompt: killed at once, a resumed session lacked it in 4 of
        // 10 tries; given until its file held the reply (~50 ms), in none
        // (docs/agents.md).
        SAVE_WAIT_MS,
    ),
    (
        "codex-acp",
        "@agentclientprotocol/codex-acp",
        "its Codex is no longer updated",
        0,
    ),
];

/// What Zed's frozen Claude adapter is given to save its session: twenty
/// times what it took on a loaded machine.
pub const SAVE_WAIT_MS: u64 = 1_000;

/// How long the process of the agent that sent `agent_info` is given,
/// once its stdin ended, before it is killed (0: killed at once).
pub fn save_wait_ms(agent_info: &Value) -> u64 {
    let name = agent_info.get("name").and_then(Value::as_str);
    SUPERSEDED
        .iter()
        .find(|(n, ..)| Some(*n) == name)
        .map_or(0, |(.., wait)| *wait)
}

/// The warning for an adapter that is no longer maintained, from
/// `initialize`'s `agentInfo`; `None` for any other agent.
pub fn superseded_warning(agent_info: &Value) -> Option<String> {
    let name = agent_info.get("name")?.as_str()?;
    let (_, maintained, why, _) = SUPERSEDED.iter().find(|(n, ..)| *n == name)?;
    let version = agent_info
        .get("version")
        .and_then(Value::as_str)
        .map(|v| format!(" {v}"))
        .unwrap_or_default();
    Some(format!(
        "{name}{version} is no longer maintained ({why}): install {maintained} and pass its executable as options.command"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn zeds_frozen_adapters_are_named_with_their_successor() {
        let zed = superseded_warning(&json!({"name": "@zed-industries/claude-agent-acp", "title": "Claude Agent", "version": "0.23.1"})).unwrap();
        assert!(
            zed.starts_with("@zed-industries/claude-agent-acp 0.23.1 is no longer maintained"),
            "{zed}"
        );
        assert!(
            zed.contains("install @agentclientprotocol/claude-agent-acp"),
            "{zed}"
        );
        assert_eq!(
            save_wait_ms(&json!({"name": "@zed-industries/claude-agent-acp"})),
            SAVE_WAIT_MS
        );
        assert_eq!(save_wait_ms(&json!({"name": "codex-acp"})), 0);
        assert_eq!(
            save_wait_ms(&json!({"name": "@agentclientprotocol/claude-agent-acp"})),
            0
        );
        let codex = superseded_warning(&json!({"name": "codex-acp", "version": "0.16.0"})).unwrap();
        assert!(codex.contains("@agentclientprotocol/codex-acp"), "{codex}");
        for maintained in [
            json!({"name": "@agentclientprotocol/claude-agent-acp", "version": "0.101.0"}),
            json!({"name": "@agentclientprotocol/codex-acp", "version": "2.6.0"}),
            json!({"name": "gemini-cli"}),
            json!(null),
        ] {
            assert_eq!(superseded_warning(&maintained), None, "{maintained}");
        }
    }
}
