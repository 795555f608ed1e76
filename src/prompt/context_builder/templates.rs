//! The four markdown templates of the system prompt, embedded from
//! `templates/`, and per-call overrides.

use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;

pub const BASE_RULES_CHAT: &str = "base-rules-chat.md";
pub const BASE_RULES_RUN: &str = "base-rules-run.md";
pub const TOOL_POLICY: &str = "tool-policy.md";
pub const RUN_DIRECTIVE_PROTOCOL: &str = "run-directive-protocol.md";

/// Every template, by file name, as embedded in the library.
pub const EMBEDDED: [(&str, &str); 4] = [
    (
        BASE_RULES_CHAT,
        include_str!("../../../templates/base-rules-chat.md"),
    ),
    (
        BASE_RULES_RUN,
        include_str!("../../../templates/base-rules-run.md"),
    ),
    (
        TOOL_POLICY,
        include_str!("../../../templates/tool-policy.md"),
    ),
    (
        RUN_DIRECTIVE_PROTOCOL,
        include_str!("../../../templates/run-directive-protocol.md"),
    ),
];

/// The templates one composition uses: the embedded ones, or overrides.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Templates<'a> {
    texts: [&'a str; 4],
}

impl Default for Templates<'_> {
    fn default() -> Self {
        Templates {
            texts: EMBEDDED.map(|(_, text)| text),
        }
    }
}

impl<'a> Templates<'a> {
    /// The embedded templates with the ones in `overrides` (an object keyed by
    /// file name, e.g. `{ "tool-policy.md": "…" }`) put in their place.
    pub fn with_overrides(overrides: Option<&'a Value>, path: &str) -> Result<Templates<'a>> {
        let mut templates = Templates::default();
        let Some(overrides) = overrides.filter(|v| !v.is_null()) else {
            return Ok(templates);
        };
        let map = overrides.as_object().ok_or_else(|| {
            AgentContextError::invalid(format!(
                "{path} must be an object, got {}",
                type_name(overrides)
            ))
        })?;
        for (name, text) in map {
            let slot = EMBEDDED
                .iter()
                .position(|(n, _)| n == name)
                .ok_or_else(|| {
                    AgentContextError::invalid(format!(
                        "{path}[{name:?}] is not a template; the templates are {}",
                        EMBEDDED.map(|(n, _)| n).join(", ")
                    ))
                })?;
            templates.texts[slot] = text.as_str().ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "{path}[{name:?}] must be a string, got {}",
                    type_name(text)
                ))
            })?;
        }
        Ok(templates)
    }

    /// The template `name` (one of the four constants), without trailing
    /// whitespace so it joins cleanly.
    pub fn get(&self, name: &str) -> &'a str {
        let slot = EMBEDDED.iter().position(|(n, _)| *n == name).unwrap_or(0);
        self.texts[slot].trim_end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn overrides_replace_by_name_and_reject_unknown_names() {
        let o = json!({"tool-policy.md": "Mine.\n"});
        let t = Templates::with_overrides(Some(&o), "templates").unwrap();
        assert_eq!(t.get(TOOL_POLICY), "Mine.");
        assert_eq!(t.get(BASE_RULES_CHAT), EMBEDDED[0].1.trim_end());
        let bad = json!({"nope.md": "x"});
        let err = Templates::with_overrides(Some(&bad), "templates").unwrap_err();
        assert!(
            err.message()
                .starts_with("templates[\"nope.md\"] is not a template"),
            "{err}"
        );
        let bad = json!({"tool-policy.md": 1});
        let err = Templates::with_overrides(Some(&bad), "templates").unwrap_err();
        assert_eq!(
            err.message(),
            "templates[\"tool-policy.md\"] must be a string, got a number"
        );
    }

    #[test]
    fn embedded_templates_are_real_text() {
        for (name, text) in EMBEDDED {
            assert!(
                text.len() > 400,
                "{name} is too short to be real instructions"
            );
            assert!(text.starts_with("##"), "{name} starts with a heading");
        }
    }
}
