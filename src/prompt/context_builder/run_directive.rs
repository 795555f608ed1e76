//! `parseRunDirective`: finds the machine-readable block that
//! `run-directive-protocol.md` asks the model to end a run-mode reply with:
//!
//! ````text
//! ```run-directive
//! {"step": "draft", "status": "complete", "transition": "approved", "artifacts": ["docs/a.md"], "summary": "…"}
//! ```
//! ````
//!
//! The last such block counts. A reply without one gives `None`; a block that
//! is not what the protocol asks for gives `RunDirective::Invalid` with the
//! reason, so the host can ask the model again instead of guessing.

use serde::Serialize;
use serde_json::Value;

use super::options::RunContext;
use crate::formats::json_read::type_name;

pub const FENCE_TAG: &str = "run-directive";

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Complete,
    Blocked,
    NeedsInput,
}

/// What the reply says about the step.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum RunDirective {
    Valid {
        valid: True,
        step: String,
        status: StepStatus,
        transition: Option<String>,
        artifacts: Vec<String>,
        summary: String,
    },
    Invalid {
        valid: False,
        error: String,
        /// The text inside the block, as the model wrote it.
        raw: String,
    },
}

/// Serialises as `true`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct True;
/// Serialises as `false`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct False;

impl Serialize for True {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(true)
    }
}
impl Serialize for False {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bool(false)
    }
}

/// The body of the last ```` ```run-directive ```` block: `Ok(body)`, or
/// `Err(body so far)` when the block is never closed.
fn last_block(reply: &str) -> Option<Result<&str, &str>> {
    let mut found = None;
    let mut lines = reply.split_inclusive('\n').scan(0usize, |offset, line| {
        let start = *offset;
        *offset += line.len();
        Some((start, line))
    });
    while let Some((_, line)) = lines.next() {
        let opening = line.trim();
        let Some(rest) = opening.strip_prefix("```") else {
            continue;
        };
        if rest.trim() != FENCE_TAG {
            continue;
        }
        let body_start = lines.clone().next().map_or(reply.len(), |(start, _)| start);
        let mut closed = None;
        for (start, line) in lines.by_ref() {
            if line.trim() == "```" {
                closed = Some(start);
                break;
            }
        }
        found = Some(match closed {
            Some(end) => Ok(&reply[body_start..end]),
            None => Err(&reply[body_start..]),
        });
    }
    found
}

fn invalid(error: impl Into<String>, raw: &str) -> RunDirective {
    RunDirective::Invalid {
        valid: False,
        error: error.into(),
        raw: raw.trim().to_owned(),
    }
}

/// [`parse_run_directive`] with the run context as JSON (`None`: none),
/// read first: a bad one is `INVALID_INPUT` naming `runContext`.
pub fn parse_run_directive_with(
    reply: &str,
    context: Option<&Value>,
) -> crate::error::Result<Option<RunDirective>> {
    Ok(match context {
        Some(value) => {
            let context = RunContext::read(value, "runContext")?;
            parse_run_directive(reply, Some(&context))
        }
        None => parse_run_directive(reply, None),
    })
}

/// Finds and checks the run directive in `reply`. With `context`, the step id
/// and the transition label are checked against the current step too.
pub fn parse_run_directive(reply: &str, context: Option<&RunContext<'_>>) -> Option<RunDirective> {
    let body = match last_block(reply)? {
        Ok(body) => body,
        Err(body) => {
            return Some(invalid(
                "the run-directive block is not closed with ```",
                body,
            ))
        }
    };
    let value: Value = match serde_json::from_str(body) {
        Ok(v) => v,
        Err(e) => {
            return Some(invalid(
                format!("the run-directive block is not valid JSON: {e}"),
                body,
            ))
        }
    };
    let Some(o) = value.as_object() else {
        return Some(invalid(
            format!(
                "the run-directive block must hold a JSON object, got {}",
                type_name(&value)
            ),
            body,
        ));
    };
    let text = |key: &str, required: bool| -> Result<Option<String>, String> {
        match o.get(key) {
            Some(Value::String(s)) => Ok(Some(s.clone())),
            None | Some(Value::Null) if !required => Ok(None),
            Some(other) => Err(format!(
                "\"{key}\" must be a string, got {}",
                type_name(other)
            )),
            None => Err(format!("\"{key}\" is missing")),
        }
    };
    let checked = (|| -> Result<RunDirective, String> {
        let step = text("step", true)?.unwrap_or_default();
        if step.is_empty() {
            return Err("\"step\" must not be empty".into());
        }
        let status = match text("status", true)?.as_deref() {
            Some("complete") => StepStatus::Complete,
            Some("blocked") => StepStatus::Blocked,
            Some("needs_input") => StepStatus::NeedsInput,
            other => {
                return Err(format!(
                    "\"status\" must be \"complete\", \"blocked\" or \"needs_input\", got {:?}",
                    other.unwrap_or_default()
                ))
            }
        };
        let transition = text("transition", false)?;
        let artifacts = match o.get("artifacts") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| {
                    i.as_str().map(str::to_owned).ok_or_else(|| {
                        format!("\"artifacts\" must hold strings, got {}", type_name(i))
                    })
                })
                .collect::<Result<_, _>>()?,
            Some(other) => {
                return Err(format!(
                    "\"artifacts\" must be an array of strings, got {}",
                    type_name(other)
                ))
            }
        };
        let summary = text("summary", false)?.unwrap_or_default();
        if let Some(ctx) = context {
            if step != ctx.step_id {
                return Err(format!(
                    "\"step\" is {step:?} but the current step is {:?}",
                    ctx.step_id
                ));
            }
            let labels: Vec<&str> = ctx.outgoing_edges.iter().map(|e| e.label).collect();
            match (&transition, status) {
                (Some(t), _) if !labels.contains(&t.as_str()) => {
                    return Err(format!(
                        "\"transition\" {t:?} is not one of the available transitions ({})",
                        labels.join(", ")
                    ))
                }
                (None, StepStatus::Complete) if !labels.is_empty() => {
                    return Err(format!(
                        "a complete step must name its \"transition\" (one of {})",
                        labels.join(", ")
                    ))
                }
                _ => {}
            }
        }
        Ok(RunDirective::Valid {
            valid: True,
            step,
            status,
            transition,
            artifacts,
            summary,
        })
    })();
    Some(checked.unwrap_or_else(|e| invalid(e, body)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prompt::context_builder::options::Transition;

    fn valid(
        step: &str,
        status: StepStatus,
        transition: Option<&str>,
        artifacts: &[&str],
        summary: &str,
    ) -> RunDirective {
        RunDirective::Valid {
            valid: True,
            step: step.into(),
            status,
            transition: transition.map(Into::into),
            artifacts: artifacts.iter().map(|a| a.to_string()).collect(),
            summary: summary.into(),
        }
    }

    #[test]
    fn finds_the_last_block() {
        let reply = "Done.\n\n```run-directive\n{\"step\":\"a\",\"status\":\"blocked\"}\n```\nthen\n```run-directive\n{\"step\": \"draft\", \"status\": \"complete\", \"transition\": \"approved\", \"artifacts\": [\"docs/a.md\"], \"summary\": \"Wrote it.\"}\n```\n";
        assert_eq!(
            parse_run_directive(reply, None),
            Some(valid(
                "draft",
                StepStatus::Complete,
                Some("approved"),
                &["docs/a.md"],
                "Wrote it."
            ))
        );
        assert_eq!(
            parse_run_directive("no directive here\n```json\n{}\n```", None),
            None
        );
        assert_eq!(parse_run_directive("", None), None);
        let minimal = "```run-directive\n{\"step\":\"s\",\"status\":\"needs_input\",\"summary\":\"Which DB?\"}\n```";
        assert_eq!(
            parse_run_directive(minimal, None),
            Some(valid("s", StepStatus::NeedsInput, None, &[], "Which DB?"))
        );
    }

    #[test]
    fn a_run_context_as_json_is_read_first() {
        let reply = "```run-directive\n{\"step\":\"s\",\"status\":\"blocked\"}\n```";
        let parsed = parse_run_directive_with(reply, None).unwrap();
        assert_eq!(parsed, parse_run_directive(reply, None));
        let err = parse_run_directive_with(reply, Some(&serde_json::json!(3))).unwrap_err();
        assert!(err.message().starts_with("runContext"), "{}", err.message());
    }

    #[test]
    fn malformed_blocks_say_why() {
        let cases = [
            ("```run-directive\n{\"step\":\"s\",\"status\":\"complete\"\n", "the run-directive block is not closed with ```"),
            ("```run-directive\n{step: s}\n```", "the run-directive block is not valid JSON: key must be a string at line 1 column 2"),
            ("```run-directive\n[1]\n```", "the run-directive block must hold a JSON object, got an array"),
            ("```run-directive\n{\"status\":\"complete\"}\n```", "\"step\" is missing"),
            ("```run-directive\n{\"step\":\"s\",\"status\":\"done\"}\n```", "\"status\" must be \"complete\", \"blocked\" or \"needs_input\", got \"done\""),
            ("```run-directive\n{\"step\":\"s\",\"status\":\"blocked\",\"artifacts\":\"a\"}\n```", "\"artifacts\" must be an array of strings, got a string"),
            ("```run-directive\n{\"step\":\"s\",\"status\":\"blocked\",\"transition\":3}\n```", "\"transition\" must be a string, got a number"),
        ];
        for (reply, error) in cases {
            match parse_run_directive(reply, None) {
                Some(RunDirective::Invalid { error: e, .. }) => assert_eq!(e, error, "{reply}"),
                other => panic!("{reply}: {other:?}"),
            }
        }
    }

    #[test]
    fn checks_against_the_run_context() {
        let ctx = RunContext {
            step_id: "draft",
            outgoing_edges: vec![Transition {
                label: "approved",
                target_node_id: "review",
                is_default: true,
            }],
            ..RunContext::default()
        };
        let block = |json: &str| format!("```run-directive\n{json}\n```");
        let err = |json: &str| match parse_run_directive(&block(json), Some(&ctx)) {
            Some(RunDirective::Invalid { error, .. }) => error,
            other => panic!("{other:?}"),
        };
        assert_eq!(
            err(r#"{"step":"other","status":"complete","transition":"approved"}"#),
            "\"step\" is \"other\" but the current step is \"draft\""
        );
        assert_eq!(
            err(r#"{"step":"draft","status":"complete","transition":"nope"}"#),
            "\"transition\" \"nope\" is not one of the available transitions (approved)"
        );
        assert_eq!(
            err(r#"{"step":"draft","status":"complete"}"#),
            "a complete step must name its \"transition\" (one of approved)"
        );
        assert!(matches!(
            parse_run_directive(
                &block(r#"{"step":"draft","status":"blocked","summary":"no access"}"#),
                Some(&ctx)
            ),
            Some(RunDirective::Valid { .. })
        ));
    }
}
