//! Structured output (`outputSchema` on a run or a turn): the schema read
//! and checked ([`schema`]), a value validated against it ([`validate`]),
//! and what a reply comes to ([`judge`]). How the schema reaches the agent
//! is the agent's own way where its CLI has one
//! ([`crate::agents::OutputSchemaArg`]: Claude Code's `--json-schema`,
//! Codex's `--output-schema`), else it is stated in the prompt; either way
//! the reply is validated here, and a reply that does not match gets at
//! most `maxRetries` corrective turns before the turn ends
//! `invalid_output`.
//!
//! ```
//! use agent_context::structured::{judge::{next, Next}, OutputSchema};
//! use serde_json::json;
//!
//! let schema = OutputSchema::read(
//!     &json!({"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}),
//!     "options.outputSchema",
//! ).unwrap();
//! assert_eq!(next(&schema.schema, None, "{\"ok\": true}", 0, 2), Next::Accept(json!({"ok": true})));
//! assert!(matches!(next(&schema.schema, None, "yes", 0, 2), Next::Correct(_)));
//! ```

pub mod judge;
pub mod schema;
pub mod validate;

use serde_json::Value;

use crate::agents::{AgentSpec, OutputSchemaArg};
use crate::error::Result;

pub use schema::Schema;

/// The file of the run's folder Codex reads the schema from.
pub const SCHEMA_FILE: &str = "output-schema.json";

/// A CLI's arguments for the schema, and the file (path, content) they name.
pub type CliPart = (Vec<String>, Option<(String, String)>);

/// An `outputSchema` read, and how it reaches the agent.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputSchema {
    pub schema: Schema,
}

// Read from JSON: no NaN can be in it.
impl Eq for OutputSchema {}

impl OutputSchema {
    /// Reads `value`; a problem names `field` and the keyword.
    pub fn read(value: &Value, field: &str) -> Result<OutputSchema> {
        Ok(OutputSchema {
            schema: Schema::read(value, field)?,
        })
    }

    /// The agent's own way, on a run over its command line; `None`: the
    /// schema goes in the prompt (every agent over ACP: the adapters take
    /// no schema for a turn).
    pub fn own_way(agent: &AgentSpec, over_cli: bool) -> Option<OutputSchemaArg> {
        over_cli
            .then(|| agent.cli.as_ref().and_then(|c| c.extras.output_schema))
            .flatten()
    }

    /// [`OutputSchema::own_way`] of the agent `agent` names (a definition,
    /// not a string, has no way of its own) over `protocol` (`'cli'`, `'acp'`).
    pub fn own_way_of(agent: Option<&str>, protocol: &str) -> Option<OutputSchemaArg> {
        let spec = crate::agents::find(agent?)?;
        OutputSchema::own_way(spec, protocol == "cli")
    }

    /// A finished turn (JSON) judged after `corrections` corrective turns,
    /// at most `max`: `{ turn, correct }` — the turn judged, and the prompt
    /// of the corrective turn that follows (`null` when none does).
    pub fn judged(&self, mut turn: Value, corrections: u32, max: u32) -> Value {
        let correct = judge::judge_turn(&self.schema, &mut turn, corrections, max);
        serde_json::json!({"turn": turn, "correct": correct})
    }

    /// The prompt the agent gets: `prompt` as it is when the agent holds
    /// its answer to the schema itself, else with the schema stated.
    pub fn prompt(&self, prompt: &str, own: Option<OutputSchemaArg>) -> String {
        match own {
            Some(_) => prompt.to_owned(),
            None => judge::with_schema(prompt, &self.schema),
        }
    }

    /// The command line's part for the CLI's own way: its arguments, and
    /// the file to write first (path, content) at `file` ([`SCHEMA_FILE`]
    /// in the run's folder).
    pub fn cli_args(&self, own: OutputSchemaArg, file: Option<&str>) -> Result<CliPart> {
        let json = self.schema.source.to_string();
        Ok(match own {
            OutputSchemaArg::Inline(flag) => (vec![flag.to_owned(), json], None),
            OutputSchemaArg::File(flag) => {
                let path = file.filter(|f| !f.is_empty()).ok_or_else(|| {
                    crate::error::AgentContextError::invalid(
                        "options.outputSchema needs the run's own folder to write the schema to",
                    )
                })?;
                (
                    vec![flag.to_owned(), path.to_owned()],
                    Some((path.to_owned(), json)),
                )
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents;
    use serde_json::json;

    #[test]
    fn an_agent_named_over_its_cli_has_its_own_way() {
        let claude = agents::find("claude-code").unwrap();
        let own = OutputSchema::own_way_of(Some("claude-code"), "cli");
        assert_eq!(own, OutputSchema::own_way(claude, true));
        assert!(own.is_some());
        assert_eq!(OutputSchema::own_way_of(Some("claude-code"), "acp"), None);
        assert_eq!(OutputSchema::own_way_of(Some("nobody"), "cli"), None);
        assert_eq!(OutputSchema::own_way_of(None, "cli"), None);
    }

    #[test]
    fn claude_and_codex_have_their_own_way_over_the_cli_only() {
        let claude = agents::find("claude-code").unwrap();
        let codex = agents::find("openai-codex").unwrap();
        let gemini = agents::find("google-gemini").unwrap();
        assert_eq!(
            OutputSchema::own_way(claude, true),
            Some(OutputSchemaArg::Inline("--json-schema"))
        );
        assert_eq!(
            OutputSchema::own_way(codex, true),
            Some(OutputSchemaArg::File("--output-schema"))
        );
        assert_eq!(OutputSchema::own_way(gemini, true), None);
        assert_eq!(OutputSchema::own_way(claude, false), None);
    }

    #[test]
    fn the_prompt_and_the_arguments() {
        let s = OutputSchema::read(&json!({"type": "string"}), "options.outputSchema").unwrap();
        assert_eq!(
            s.prompt("Name it.", None),
            "Name it.\n\nAnswer with one JSON value that matches this JSON Schema, and nothing else (no prose, no code fence):\n{\"type\":\"string\"}"
        );
        assert_eq!(
            s.prompt("Name it.", Some(OutputSchemaArg::Inline("--json-schema"))),
            "Name it."
        );
        let (args, file) = s
            .cli_args(OutputSchemaArg::Inline("--json-schema"), None)
            .unwrap();
        assert_eq!(args, ["--json-schema", "{\"type\":\"string\"}"]);
        assert_eq!(file, None);
        let (args, file) = s
            .cli_args(
                OutputSchemaArg::File("--output-schema"),
                Some("/tmp/run/output-schema.json"),
            )
            .unwrap();
        assert_eq!(args, ["--output-schema", "/tmp/run/output-schema.json"]);
        assert_eq!(
            file,
            Some((
                "/tmp/run/output-schema.json".to_owned(),
                "{\"type\":\"string\"}".to_owned()
            ))
        );
        assert!(s
            .cli_args(OutputSchemaArg::File("--output-schema"), None)
            .is_err());
    }
}
