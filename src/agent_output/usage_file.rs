//! Files a CLI writes during a run that belong in the reply: GitHub Copilot
//! CLI puts its token usage only in the file named by `--usage-output-file`
//! (the invocation lists it in `outputs` with `kind: "usage"`); the host
//! reads it after the run and merges it here.

use serde_json::Value;

use super::json::count_field;
use super::reply::{AgentReply, Usage};
use super::OutputFormat;
use crate::error::{AgentContextError, Result};
use crate::launch::invocation::OutputKind;

/// Merges `content`, the file of `kind` that `agent_type`'s CLI wrote, into
/// `reply` (`mergeAgentOutputFile`): for Copilot's usage file, the token
/// counts summed over its models replace `reply.usage`'s, and its API time
/// is the `durationMs`.
///
/// Errors (`INVALID_INPUT`): an agent type that writes no such file, or
/// content that is not the JSON object the CLI writes.
pub fn merge_output_file(
    agent_type: &str,
    reply: &mut AgentReply,
    kind: OutputKind,
    content: &str,
) -> Result<()> {
    reply.usage = Some(merged_usage(agent_type, reply.usage.take(), kind, content)?);
    Ok(())
}

/// [`merge_output_file`] on the usage alone: `usage` (the reply's, if any)
/// with what the file says put over it.
pub fn merged_usage(
    agent_type: &str,
    usage: Option<Usage>,
    kind: OutputKind,
    content: &str,
) -> Result<Usage> {
    let agent = crate::agents::require(agent_type, "to read its output file")?;
    match (agent.output(), kind) {
        (OutputFormat::CopilotJson, OutputKind::Usage) => {
            let file = copilot_usage(content)?;
            let mut merged = usage.unwrap_or_default();
            merged.input_tokens = file.input_tokens.or(merged.input_tokens);
            merged.cached_input_tokens = file.cached_input_tokens.or(merged.cached_input_tokens);
            merged.output_tokens = file.output_tokens.or(merged.output_tokens);
            merged.total_tokens = file.total_tokens.or(merged.total_tokens);
            merged.duration_ms = file.duration_ms.or(merged.duration_ms);
            Ok(merged)
        }
        _ => Err(AgentContextError::invalid(format!(
            "file.kind: {agent_type} writes no usage file (its usage is in its output)"
        ))),
    }
}

/// A reply's `usage` as JSON (`{ inputTokens?, … }`, camelCase) back into a
/// [`Usage`]; fields of another type read as absent.
pub fn usage_from_json(value: &Value) -> Usage {
    Usage {
        input_tokens: count_field(value, "inputTokens"),
        cached_input_tokens: count_field(value, "cachedInputTokens"),
        output_tokens: count_field(value, "outputTokens"),
        total_tokens: count_field(value, "totalTokens"),
        duration_ms: count_field(value, "durationMs"),
        cost_usd: value.get("costUsd").and_then(Value::as_f64),
        ..Default::default()
    }
}

/// Copilot's usage file: `modelMetrics.{model}.usage.{inputTokens,
/// outputTokens, cacheReadTokens, cacheWriteTokens}` (the input already
/// counts the cached tokens, as the API reports them) and
/// `totalApiDurationMs`.
fn copilot_usage(content: &str) -> Result<Usage> {
    let value: Value = serde_json::from_str(content).map_err(|e| {
        AgentContextError::invalid(format!("content is not the JSON of a usage file: {e}"))
    })?;
    let models = value
        .get("modelMetrics")
        .and_then(Value::as_object)
        .ok_or_else(|| {
            AgentContextError::invalid(
                "content has no modelMetrics object: not a Copilot usage file",
            )
        })?;
    let mut usage = Usage::default();
    for metrics in models.values() {
        let Some(counts) = metrics.get("usage") else {
            continue;
        };
        let input = count_field(counts, "inputTokens");
        let output = count_field(counts, "outputTokens");
        usage.add(&Usage {
            input_tokens: input,
            cached_input_tokens: count_field(counts, "cacheReadTokens"),
            output_tokens: output,
            total_tokens: input.zip(output).map(|(i, o)| i + o),
            ..Usage::default()
        });
    }
    usage.duration_ms = count_field(&value, "totalApiDurationMs");
    Ok(usage)
}
