//! Variables of the caller's environment that an agent's parts read
//! differently ([`EnvFlag`], from the agent's table): the run gives the
//! agent the value every part reads as the caller's value means, so that a
//! value set for the whole machine (a container's `IS_SANDBOX=yes`) never
//! fails a run that asked nothing of it. And the variables the run sets for
//! the agent's start unless the caller set them ([`start_env`]).

use crate::agents::EnvFlag;

/// The variables to set for a run of an agent with `flags`, given the
/// child's environment `env`: `(name, on)` for a value the agent reads as
/// set that is not `on`, `(name, off)` for any other value that is not
/// `off`; nothing for a variable that is absent or already agreed.
pub fn agreed_env(flags: &[EnvFlag], env: &[(String, String)]) -> Vec<(String, String)> {
    flags
        .iter()
        .filter_map(|flag| {
            let (_, value) = env.iter().rev().find(|(name, _)| name == flag.name)?;
            if value == flag.on || value == flag.off {
                return None;
            }
            let word = value.trim().to_ascii_lowercase();
            let agreed = match flag.on_words.contains(&word.as_str()) {
                true => flag.on,
                false => flag.off,
            };
            Some((flag.name.to_owned(), agreed.to_owned()))
        })
        .collect()
}

/// The agent's start variables (`AgentSpec::start_env`) that the child's
/// environment `env` does not name: the caller's value, even an empty one,
/// is the caller's choice.
pub fn start_env(start: &[(&str, &str)], env: &[(String, String)]) -> Vec<(String, String)> {
    start
        .iter()
        .filter(|(name, _)| !env.iter().any(|(k, _)| k == name))
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SANDBOX: EnvFlag = EnvFlag {
        name: "IS_SANDBOX",
        on: "1",
        on_words: &["1", "true", "yes", "on"],
        off: "",
    };

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    fn agreed(value: &str) -> Vec<(String, String)> {
        agreed_env(&[SANDBOX], &env(&[("PATH", "/bin"), ("IS_SANDBOX", value)]))
    }

    #[test]
    fn a_value_meaning_set_becomes_the_one_every_part_reads_as_set() {
        for value in ["yes", "YES", "true", " on ", "True", " 1"] {
            assert_eq!(agreed(value), env(&[("IS_SANDBOX", "1")]), "{value:?}");
        }
    }

    #[test]
    fn any_other_value_becomes_the_one_every_part_reads_as_unset() {
        for value in ["0", "no", "false", "off", "2", "sandbox", " "] {
            assert_eq!(agreed(value), env(&[("IS_SANDBOX", "")]), "{value:?}");
        }
    }

    #[test]
    fn an_agreed_or_absent_value_is_left_alone() {
        assert!(agreed("1").is_empty());
        assert!(agreed("").is_empty());
        assert!(agreed_env(&[SANDBOX], &env(&[("PATH", "/bin")])).is_empty());
        // An agent with no such variable sets nothing.
        assert!(agreed_env(&[], &env(&[("IS_SANDBOX", "yes")])).is_empty());
        // Names are compared exactly (POSIX).
        assert!(agreed_env(&[SANDBOX], &env(&[("is_sandbox", "yes")])).is_empty());
    }

    #[test]
    fn claude_code_agrees_on_is_sandbox() {
        let claude = crate::agents::find("claude-code").unwrap();
        assert_eq!(
            agreed_env(claude.env_flags, &env(&[("IS_SANDBOX", "yes")])),
            env(&[("IS_SANDBOX", "1")])
        );
        // No other built-in agent is known to read a variable so.
        for agent in crate::agents::AGENTS {
            if agent.agent_type != "claude-code" {
                assert!(agent.env_flags.is_empty(), "{}", agent.agent_type);
            }
        }
    }

    #[test]
    fn start_variables_are_set_unless_the_caller_named_them() {
        let gemini = crate::agents::find("google-gemini").unwrap();
        assert_eq!(
            start_env(gemini.start_env, &env(&[("PATH", "/bin")])),
            env(&[("GEMINI_CLI_NO_RELAUNCH", "true")])
        );
        assert!(start_env(gemini.start_env, &env(&[("GEMINI_CLI_NO_RELAUNCH", "")])).is_empty());
        let qwen = crate::agents::find("qwen-code").unwrap();
        assert_eq!(
            start_env(qwen.start_env, &[]),
            env(&[("QWEN_CODE_NO_RELAUNCH", "true")])
        );
    }
}
