//! ACP adapters that are no longer maintained, known by the name they give
//! in `initialize`'s `agentInfo`: a run through one says so once, naming
//! the package that replaced it (`docs/agents.md`, "Zed's frozen
//! adapters").

use serde_json::Value;

/// `agentInfo.name`, the package that replaced it, and what goes wrong
/// through it.
const SUPERSEDED: &[(&str, &str, &str)] = &[
    (
        "@zed-industries/claude-agent-acp",
        "@agentclientprotocol/claude-agent-acp",
        "its saved session can lack the last reply when its process ends soon after a turn, and it replaces the model asked for with its default",
    ),
    (
        "codex-acp",
        "@agentclientprotocol/codex-acp",
        "its Codex is no longer updated",
    ),
];

/// The warning for an adapter that is no longer maintained, from
/// `initialize`'s `agentInfo`; `None` for any other agent.
pub fn superseded_warning(agent_info: &Value) -> Option<String> {
    let name = agent_info.get("name")?.as_str()?;
    let (_, maintained, why) = SUPERSEDED.iter().find(|(n, _, _)| *n == name)?;
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
