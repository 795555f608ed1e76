//! `maxRetries` also bounds the agent's own retries of a failed API call
//! (SPEC §21), through what its file in `src/agents/` says
//! ([`OwnRetries`]): an environment variable of the child, a settings
//! file the run writes in a folder it creates and removes, or a key of the
//! settings in the run's home (`crate::launch::run_home`). The caller's
//! environment wins: a variable it already sets is left as it is. The same
//! settings file may turn on a file where the agent tells of each retry
//! ([`RetryLog`]), next to it in the run's folder, which the host reads
//! as it grows ([`OwnRetryConfig::log`]); so may a variable naming the
//! agent's log file (`OwnRetries::LogFile`), for an agent that has no
//! setting but logs each failed call.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::agents::{AgentSpec, OwnRetries, RetryLog};
use crate::launch::endpoint::merge_json;
use crate::launch::invocation::InvocationFile;

/// What the run adds for the agent's own retries.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct OwnRetryConfig {
    /// Variables added to the child's environment.
    pub env: Vec<(String, String)>,
    /// The settings file to write before spawning (and remove after).
    pub file: Option<InvocationFile>,
    /// Keys of the settings in the run's home.
    pub home_settings: Option<Value>,
    /// The file the agent writes a record to for each of its retries: the
    /// host reads it as it grows and hands it to the run.
    pub log: Option<LogWatch>,
}

/// How the host reads a file the agent writes while it runs: every
/// `every_ms` from where it left off, until the process has ended (a last
/// read then); once it has read past `keep_bytes` it empties the file,
/// which the agent appends to, so a long session does not fill the disk.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LogWatch {
    pub path: String,
    pub every_ms: u64,
    pub keep_bytes: u64,
}

/// A retry is recorded within ~1 s (Qwen's telemetry batches its records
/// each second; Droid logs each failed call as it happens) and the agent
/// waits 1.5 s or more before the next: a quarter of a second adds little.
const LOG_EVERY_MS: u64 = 250;
/// Qwen's telemetry writes ~12 KB of metrics every 10 s and a few KB per
/// API call; Droid's log ~2 KB a second.
const LOG_KEEP_BYTES: u64 = 1 << 20;

/// The configuration that bounds `agent`'s own retries to `max_retries`:
/// nothing when it has no setting, when the caller's `env` already sets the
/// variable, or (for a settings file) when the host names no `settings_path`.
pub fn own_retry_config(
    agent: &AgentSpec,
    max_retries: u32,
    settings_path: Option<&str>,
    env: &[(String, String)],
) -> OwnRetryConfig {
    // The caller's own value; the run's own settings file (the endpoint's
    // settings may name it first: both go to that one file) is not one.
    let taken = |name: &str| {
        env.iter()
            .any(|(k, v)| k == name && Some(v.as_str()) != settings_path)
    };
    match agent.own_retries {
        OwnRetries::Env { name, plus } if !taken(name) => OwnRetryConfig {
            env: vec![(name.to_owned(), (max_retries + plus).to_string())],
            ..OwnRetryConfig::default()
        },
        OwnRetries::SettingsFile {
            env: name,
            key,
            plus,
            log,
        } if !taken(name) => {
            let Some(path) = settings_path else {
                return OwnRetryConfig::default();
            };
            let mut value = nested(key, Value::from(max_retries + plus));
            let log = log.map(|log| retry_log(&mut value, &log, path));
            OwnRetryConfig {
                env: vec![(name.to_owned(), path.to_owned())],
                file: Some(InvocationFile {
                    path: path.to_owned(),
                    content: format!("{value}\n"),
                }),
                home_settings: None,
                log,
            }
        }
        OwnRetries::LogFile { env: name, file } if !taken(name) => {
            let Some(path) = settings_path else {
                return OwnRetryConfig::default();
            };
            let path = format!("{}{file}", folder_of(path));
            OwnRetryConfig {
                env: vec![(name.to_owned(), path.clone())],
                log: Some(LogWatch {
                    path,
                    every_ms: LOG_EVERY_MS,
                    keep_bytes: LOG_KEEP_BYTES,
                }),
                ..OwnRetryConfig::default()
            }
        }
        OwnRetries::HomeSettings { key, plus } => OwnRetryConfig {
            home_settings: Some(nested(key, Value::from(max_retries + plus))),
            ..OwnRetryConfig::default()
        },
        _ => OwnRetryConfig::default(),
    }
}

/// Adds `log`'s keys to `settings`; returns how to read the file, beside
/// the settings file at `settings_path`.
fn retry_log(settings: &mut Value, log: &RetryLog, settings_path: &str) -> LogWatch {
    let path = format!("{}{}", folder_of(settings_path), log.file);
    for (key, on) in log.keys {
        merge_json(settings, nested(key, Value::Bool(*on)));
    }
    merge_json(settings, nested(log.path, Value::from(path.as_str())));
    LogWatch {
        path,
        every_ms: LOG_EVERY_MS,
        keep_bytes: LOG_KEEP_BYTES,
    }
}

/// The folder of `path`, with its separator (`/run/a.json` → `/run/`).
fn folder_of(path: &str) -> &str {
    match path.rfind(['/', '\\']) {
        Some(at) => &path[..=at],
        None => "",
    }
}

/// `value` at `key` (`["a", "b"]` → `{"a":{"b":value}}`).
fn nested(key: &[&str], value: Value) -> Value {
    key.iter().rev().fold(value, |inner, part| {
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
        // Its telemetry, beside the settings, tells of its outer retries.
        let log = qwen.log.as_ref().unwrap();
        assert_eq!(log.path, "/run/telemetry.json");
        assert!(log.every_ms > 0 && log.keep_bytes > 0);
        let qwen = qwen.file.unwrap();
        assert_eq!(qwen.path, "/run/settings.json");
        assert_eq!(
            serde_json::from_str::<Value>(&qwen.content).unwrap(),
            serde_json::json!({
                "model": {"generationConfig": {"maxRetries": 0}},
                "telemetry": {"enabled": true, "logPrompts": false, "outfile": "/run/telemetry.json"}
            })
        );
        assert!(qwen.content.ends_with('\n'));
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

    #[test]
    fn droids_log_goes_to_the_runs_folder_and_is_watched() {
        let droid = config("factory-droid", 1, &[]);
        assert_eq!(
            droid.env,
            [("FACTORY_LOG_FILE".to_owned(), "/run/droid.log".to_owned())]
        );
        assert_eq!(droid.log.unwrap().path, "/run/droid.log");
        assert_eq!(droid.file, None);
        // A log file of the caller's own: its retries are not counted.
        assert_eq!(
            config(
                "factory-droid",
                1,
                &[("FACTORY_LOG_FILE", "/var/log/d.log")]
            ),
            OwnRetryConfig::default()
        );
    }

    #[test]
    fn the_endpoints_settings_file_is_the_runs_own_not_the_callers() {
        // Over the CLI the endpoint's variables come first and name the
        // same settings file: its keys and the bound go to one file.
        let qwen = config(
            "qwen-code",
            1,
            &[("QWEN_CODE_SYSTEM_SETTINGS_PATH", "/run/settings.json")],
        );
        assert!(qwen.file.is_some() && qwen.log.is_some(), "{qwen:?}");
    }

    #[test]
    fn the_retry_log_sits_beside_the_settings_file_whatever_the_separator() {
        let qwen = agents::find("qwen-code").unwrap();
        let windows = own_retry_config(qwen, 2, Some(r"C:\Temp\run-1\settings.json"), &[]);
        assert_eq!(windows.log.unwrap().path, r"C:\Temp\run-1\telemetry.json");
        let content: Value = serde_json::from_str(&windows.file.unwrap().content).unwrap();
        assert_eq!(
            content["telemetry"]["outfile"],
            r"C:\Temp\run-1\telemetry.json"
        );
        assert_eq!(content["model"]["generationConfig"]["maxRetries"], 2);
        // Agents without one have none.
        let claude = agents::find("claude-code").unwrap();
        assert_eq!(
            own_retry_config(claude, 1, Some("/run/settings.json"), &[]).log,
            None
        );
    }
}
