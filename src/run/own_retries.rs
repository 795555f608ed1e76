//! `maxRetries` also bounds the agent's own retries of a failed API call
//! (SPEC §21), through what its file in `src/agents/` says
//! ([`OwnRetries`]): an environment variable of the child, a settings
//! file the run writes in a folder it creates and removes, or a key of the
//! settings in the run's home (`crate::run_home`). The caller's
//! environment wins: a variable it already sets is left as it is.

use serde_json::{Map, Value};

use crate::agents::{AgentSpec, OwnRetries};
use crate::invocation::InvocationFile;

/// What the run adds for the agent's own retries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnRetryConfig {
    /// Variables added to the child's environment.
    pub env: Vec<(String, String)>,
    /// The settings file to write before spawning (and remove after).
    pub file: Option<InvocationFile>,
    /// Keys of the settings in the run's home.
    pub home_settings: Option<Value>,
}

/// The configuration that bounds `agent`'s own retries to `max_retries`:
/// nothing when it has no setting, when the caller's `env` already sets the
/// variable, or (for a settings file) when the host names no `settings_path`.
pub fn own_retry_config(
    agent: &AgentSpec,
    max_retries: u32,
    settings_path: Option<&str>,
    env: &[(String, String)],
) -> OwnRetryConfig {
    let taken = |name: &str| env.iter().any(|(k, _)| k == name);
    match agent.own_retries {
        OwnRetries::Env { name, plus } if !taken(name) => OwnRetryConfig {
            env: vec![(name.to_owned(), (max_retries + plus).to_string())],
            ..OwnRetryConfig::default()
        },
        OwnRetries::SettingsFile {
            env: name,
            key,
            plus,
        } if !taken(name) => {
            let Some(path) = settings_path else {
                return OwnRetryConfig::default();
            };
            let value = nested(key, max_retries + plus);
            OwnRetryConfig {
                env: vec![(name.to_owned(), path.to_owned())],
                file: Some(InvocationFile {
                    path: path.to_owned(),
                    content: format!("{value}\n"),
                }),
                home_settings: None,
            }
        }
        OwnRetries::HomeSettings { key, plus } => OwnRetryConfig {
            home_settings: Some(nested(key, max_retries + plus)),
            ..OwnRetryConfig::default()
        },
        _ => OwnRetryConfig::default(),
    }
}

/// `count` at `key` (`["a", "b"]` → `{"a":{"b":count}}`).
fn nested(key: &[&str], count: u32) -> Value {
    key.iter().rev().fold(Value::from(count), |inner, part| {
        let mut map = Map::new();
        map.insert((*part).to_owned(), inner);
        Value::Object(map)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents;

    fn config(agent: &str, retries: u32, env: &[(&str, &str)]) -> OwnRetryConfig {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect();
        own_retry_config(
            agents::find(agent).unwrap(),
            retries,
            Some("/run/settings.json"),
            &env,
        )
    }

    #[test]
    fn each_agent_with_a_setting_gets_max_retries() {
        let claude = config("claude-code", 1, &[]);
        assert_eq!(
            claude.env,
            [("CLAUDE_CODE_MAX_RETRIES".to_owned(), "1".to_owned())]
        );
        assert_eq!(claude.file, None);
        let qwen = config("qwen-code", 0, &[("HOME", "/h")]);
        assert_eq!(
            qwen.env,
            [(
                "QWEN_CODE_SYSTEM_SETTINGS_PATH".to_owned(),
                "/run/settings.json".to_owned()
            )]
        );
        let qwen = qwen.file.unwrap();
        assert_eq!(qwen.path, "/run/settings.json");
        assert_eq!(
            qwen.content,
            "{\"model\":{\"generationConfig\":{\"maxRetries\":0}}}\n"
        );
        // Gemini CLI: general.maxAttempts counts the first attempt.
        let gemini = config("google-gemini", 0, &[]);
        assert_eq!(
            gemini.home_settings,
            Some(serde_json::json!({"general": {"maxAttempts": 1}}))
        );
        assert!(gemini.env.is_empty() && gemini.file.is_none());
        for agent in ["openai-codex", "github-copilot", "opencode"] {
            assert_eq!(config(agent, 1, &[]), OwnRetryConfig::default(), "{agent}");
        }
    }

    #[test]
    fn the_callers_own_variable_wins() {
        assert_eq!(
            config("claude-code", 1, &[("CLAUDE_CODE_MAX_RETRIES", "7")]),
            OwnRetryConfig::default()
        );
        assert_eq!(
            config(
                "qwen-code",
                1,
                &[("QWEN_CODE_SYSTEM_SETTINGS_PATH", "/etc/x.json")]
            ),
            OwnRetryConfig::default()
        );
        let qwen = agents::find("qwen-code").unwrap();
        assert_eq!(
            own_retry_config(qwen, 1, None, &[]),
            OwnRetryConfig::default()
        );
    }
}
