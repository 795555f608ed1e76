//! One call of a tool: its parameters read. `gemini`'s are seed 003's,
//! read by the Gemini tool itself; the other agents' are seed 003's plus
//! `max_result_chars`, read here into `runAgent`'s request and options. A problem is an `invalid_params` envelope naming the parameter.

use serde_json::{json, Map, Value};

use crate::agents::{AgentSpec, AGENTS};
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;
use crate::tools::gemini_tool::{lenient_limits, GeminiToolParams, Limits, TOOL_NAME};

/// The parameter every tool has besides seed 003's.
pub const MAX_RESULT_CHARS: &str = "max_result_chars";
/// The other one: `cli` (the default) or `acp`; `acp` only for an agent
/// that speaks ACP only (`AgentSpec::protocols`).
pub const PROTOCOL: &str = "protocol";
/// Fits Claude Code's default 25 000-token limit on an MCP result even at
/// one token per character.
pub const DEFAULT_MAX_RESULT_CHARS: u64 = 20_000;
/// Room for the marker and some text on each side of it.
pub const MIN_RESULT_CHARS: u64 = 200;
pub const MAX_RESULT_CHARS_LIMIT: u64 = 100_000_000;

/// What the host runs for the call.
#[derive(Clone, Debug, PartialEq)]
pub enum CallPlan {
    /// `runGeminiTool(params)`: seed 003's parameters, as the caller sent them.
    Gemini(Value),
    /// `runAgent(agentType, { prompt }, options)`.
    Run { prompt: String, options: Value },
    /// Nothing: the envelope is `invalid_params` with this message.
    Invalid(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ToolCall {
    pub agent: &'static AgentSpec,
    pub max_result_chars: usize,
    pub plan: CallPlan,
    /// For the envelope (as far as they could be read when invalid).
    pub limits: Limits,
    pub return_all_messages: bool,
    pub return_metrics: bool,
    pub log_metrics: bool,
}

impl ToolCall {
    /// A call of the tool `name` with `params`; `Err` only when no agent
    /// has a tool of that name.
    pub fn new(name: &str, params: &Value) -> Result<ToolCall> {
        let agent = AGENTS
            .iter()
            .copied()
            .find(|spec| spec.mcp_tool == name)
            .ok_or_else(|| {
                let names: Vec<&str> = AGENTS.iter().map(|s| s.mcp_tool).collect();
                AgentContextError::invalid(format!(
                    "unknown tool \"{name}\": the tools are {}",
                    names.join(", ")
                ))
            })?;
        let mut call = ToolCall {
            agent,
            max_result_chars: DEFAULT_MAX_RESULT_CHARS as usize,
            plan: CallPlan::Invalid(String::new()),
            limits: lenient_limits(params),
            return_all_messages: false,
            return_metrics: false,
            log_metrics: false,
        };
        call.plan = match call.read(params) {
            Ok(plan) => plan,
            Err(e) => CallPlan::Invalid(e.message().to_owned()),
        };
        Ok(call)
    }

    /// A call of the tool of an agent given by its definition (over ACP).
    pub fn for_definition(agent: &Value, params: &Value) -> Result<ToolCall> {
        let spec = match crate::agents::definition::read_agent(agent)?.0 {
            crate::agents::definition::Agent::Known(spec) => spec,
            crate::agents::definition::Agent::Defined(def) => def.spec(),
        };
        let mut call = ToolCall {
            agent: spec,
            max_result_chars: DEFAULT_MAX_RESULT_CHARS as usize,
            plan: CallPlan::Invalid(String::new()),
            limits: lenient_limits(params),
            return_all_messages: false,
            return_metrics: false,
            log_metrics: false,
        };
        call.plan = match call.read(params) {
            Ok(CallPlan::Run {
                prompt,
                mut options,
            }) => {
                options["protocol"] = json!("acp");
                CallPlan::Run { prompt, options }
            }
            Ok(other) => other,
            Err(e) => CallPlan::Invalid(e.message().to_owned()),
        };
        Ok(call)
    }

    fn read(&mut self, params: &Value) -> Result<CallPlan> {
        let Value::Object(map) = params else {
            return Err(AgentContextError::invalid(format!(
                "params must be an object, got {}",
                type_name(params)
            )));
        };
        // `gemini` is seed 003's tool exactly: runGeminiTool reads (and
        // refuses anything else, `max_result_chars` too); its result is
        // bounded by the default.
        if self.agent.mcp_tool == TOOL_NAME {
            return Ok(CallPlan::Gemini(params.clone()));
        }
        let mut rest: Map<String, Value> = map.clone();
        if let Some(value) = rest.remove(MAX_RESULT_CHARS) {
            self.max_result_chars = max_result_chars(&value)?;
        }
        // The agent's default first (`acp` for one that speaks ACP only).
        let spoken = self.agent.protocols();
        let protocol = match rest.remove(PROTOCOL) {
            Some(value) => protocol(&value, spoken)?,
            None => spoken[0],
        };
        let rest = Value::Object(rest);
        let p = GeminiToolParams::read_for(
            &rest,
            self.agent.name,
            self.agent.name,
            &[MAX_RESULT_CHARS, PROTOCOL],
        )?;
        self.limits = p.limits();
        self.return_all_messages = p.return_all_messages;
        self.return_metrics = p.return_metrics;
        self.log_metrics = p.log_metrics;
        let mut options = json!({
            "cd": p.cd,
            "sandbox": p.sandbox.name(),
            "yolo": p.yolo,
            "timeout": p.timeout_s,
            "maxDuration": p.max_duration_s,
            "maxRetries": p.max_retries,
        });
        // Seed 003's default model is Gemini's: the others keep their CLI's own.
        let model = rest
            .get("model")
            .and_then(Value::as_str)
            .filter(|m| !m.is_empty());
        if model.is_some() {
            options["model"] = json!(p.model);
        }
        if let Some(id) = &p.session_id {
            options["sessionId"] = json!(id);
        }
        if protocol != "cli" {
            options["protocol"] = json!(protocol);
        }
        Ok(CallPlan::Run {
            prompt: p.prompt,
            options,
        })
    }

    /// What the host runs: `{ gemini: params }` (`runGeminiTool`), `{
    /// prompt, options }` (`runAgent`), or `None` (its envelope is the
    /// invalid one).
    pub fn plan_json(&self) -> Option<Value> {
        match &self.plan {
            CallPlan::Gemini(params) => Some(serde_json::json!({ "gemini": params })),
            CallPlan::Run { prompt, options } => {
                Some(serde_json::json!({ "prompt": prompt, "options": options }))
            }
            CallPlan::Invalid(_) => None,
        }
    }

    /// The `invalid_params` envelope of a call whose parameters failed.
    pub fn invalid(&self, duration_ms: u64) -> Value {
        let message = match &self.plan {
            CallPlan::Invalid(m) => m.as_str(),
            _ => "",
        };
        super::invalid_envelope(self, message, duration_ms)
    }

    /// A finished run's `{ envelope, metricsLine? }` (not yet bounded);
    /// `all_messages`: the run's events when the call asked for them.
    pub fn finished(&self, run: &crate::attempt::AgentRun, all_messages: Option<Value>) -> Value {
        let envelope = super::run_envelope(self, run, all_messages);
        let line = super::metrics_line(self, run);
        serde_json::json!({ "envelope": envelope, "metricsLine": line })
    }
}

/// `protocol` among those the agent speaks (`spoken`, its default first).
fn protocol(value: &Value, spoken: &'static [&'static str]) -> Result<&'static str> {
    let names = spoken
        .iter()
        .map(|p| format!("\"{p}\""))
        .collect::<Vec<_>>()
        .join(" or ");
    match value {
        Value::Null => Ok(spoken[0]),
        Value::String(s) => spoken.iter().copied().find(|p| p == s).ok_or_else(|| {
            AgentContextError::invalid(format!("{PROTOCOL} must be {names}, got \"{s}\""))
        }),
        other => Err(AgentContextError::invalid(format!(
            "{PROTOCOL} must be {names}, got {}",
            type_name(other)
        ))),
    }
}

fn max_result_chars(value: &Value) -> Result<usize> {
    let bad = |got: String| {
        AgentContextError::invalid(format!(
            "{MAX_RESULT_CHARS} must be a whole number from {MIN_RESULT_CHARS} to {MAX_RESULT_CHARS_LIMIT}, got {got}"
        ))
    };
    match value {
        Value::Null => Ok(DEFAULT_MAX_RESULT_CHARS as usize),
        Value::Number(n) => {
            let whole = n.as_u64().or_else(|| {
                n.as_f64()
                    .filter(|f| {
                        f.fract() == 0.0 && *f >= 0.0 && *f <= MAX_RESULT_CHARS_LIMIT as f64
                    })
                    .map(|f| f as u64)
            });
            match whole {
                Some(v) if (MIN_RESULT_CHARS..=MAX_RESULT_CHARS_LIMIT).contains(&v) => {
                    Ok(v as usize)
                }
                _ => Err(bad(n.to_string())),
            }
        }
        other => Err(bad(type_name(other).to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(name: &str, params: Value) -> ToolCall {
        ToolCall::new(name, &params).unwrap()
    }

    #[test]
    fn seed_parameters_become_run_agent_options() {
        let call = plan(
            "codex",
            json!({"PROMPT": "Review", "cd": "/w", "SESSION_ID": "t1", "timeout": 60, "max_retries": 0, "max_result_chars": 5000}),
        );
        assert_eq!(call.max_result_chars, 5000);
        assert_eq!(
            call.plan,
            CallPlan::Run {
                prompt: "Review".into(),
                options: json!({"cd": "/w", "sandbox": "workspace-write", "yolo": true, "timeout": 60,
                                "maxDuration": 1800, "maxRetries": 0, "sessionId": "t1"})
            }
        );
        assert_eq!(call.limits.idle_timeout_s, 60);
        // No model given: the CLI's own; given: passed on.
        let with_model = plan(
            "claude",
            json!({"PROMPT": "x", "cd": "/w", "model": "opus"}),
        );
        let CallPlan::Run { options, .. } = with_model.plan else {
            panic!()
        };
        assert_eq!(options["model"], "opus");
    }

    #[test]
    fn protocol_acp_is_passed_on_and_anything_else_refused() {
        let call = plan(
            "claude",
            json!({"PROMPT": "x", "cd": "/w", "protocol": "acp"}),
        );
        let CallPlan::Run { options, .. } = call.plan else {
            panic!()
        };
        assert_eq!(options["protocol"], "acp");
        // `cli` is the default and is not written.
        let call = plan(
            "codex",
            json!({"PROMPT": "x", "cd": "/w", "protocol": "cli"}),
        );
        let CallPlan::Run { options, .. } = call.plan else {
            panic!()
        };
        assert!(options.get("protocol").is_none());
        for bad in [json!("ACP"), json!(1)] {
            match plan("qwen", json!({"PROMPT": "x", "cd": "/w", "protocol": bad})).plan {
                CallPlan::Invalid(m) => {
                    assert!(m.starts_with("protocol must be \"cli\" or \"acp\""), "{m}")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn an_agent_driven_over_acp_only_runs_over_acp_and_takes_no_cli() {
        for tool in ["cline", "droid"] {
            let call = plan(tool, json!({"PROMPT": "x", "cd": "/w"}));
            let CallPlan::Run { options, .. } = call.plan else {
                panic!("{tool}")
            };
            assert_eq!(options["protocol"], "acp", "{tool}");
            match plan(tool, json!({"PROMPT": "x", "cd": "/w", "protocol": "cli"})).plan {
                CallPlan::Invalid(m) => {
                    assert_eq!(m, "protocol must be \"acp\", got \"cli\"")
                }
                other => panic!("{other:?}"),
            }
        }
    }

    #[test]
    fn gemini_gets_the_seeds_parameters_as_sent() {
        let sent = json!({"PROMPT": "x", "cd": "/w", "max_result_chars": 300, "model": "m"});
        let call = plan("gemini", sent.clone());
        assert_eq!(call.plan, CallPlan::Gemini(sent));
        assert_eq!(call.max_result_chars, 20_000);
    }

    #[test]
    fn problems_name_the_parameter_and_the_agent() {
        let invalid = |name: &str, params: Value| match plan(name, params).plan {
            CallPlan::Invalid(m) => m,
            other => panic!("{other:?}"),
        };
        assert!(invalid("claude", json!({"PROMPT": " ", "cd": "/w"}))
            .contains("whole task Claude Code gets"));
        assert!(invalid(
            "codex",
            json!({"PROMPT": "x", "cd": "/w", "sandbox": "all"})
        )
        .starts_with("sandbox must be one of"));
        assert!(
            invalid("codex", json!({"PROMPT": "x", "cd": "/w", "SESSION": "t"}))
                .contains("SESSION")
        );
        for bad in [json!(10), json!(1.5), json!("9"), json!(-1)] {
            let m = invalid(
                "copilot",
                json!({"PROMPT": "x", "cd": "/w", "max_result_chars": bad}),
            );
            assert!(
                m.starts_with("max_result_chars must be a whole number from 200"),
                "{m}"
            );
        }
        assert!(invalid("qwen", json!([1])).contains("params must be an object, got an array"));
        // An unknown parameter: the list names every parameter the tool takes,
        // its own two included, and the hint finds them too.
        assert_eq!(
            invalid("claude", json!({"PROMPT": "x", "cd": "/w", "verbose": true})),
            "unknown parameter \"verbose\"; the parameters are PROMPT, cd, sandbox, yolo, SESSION_ID, model, \
             return_all_messages, return_metrics, timeout, max_duration, max_retries, log_metrics, \
             max_result_chars, protocol"
        );
        assert!(invalid(
            "opencode",
            json!({"PROMPT": "x", "cd": "/w", "Max-Result-Chars": 300})
        )
        .starts_with("unknown parameter \"Max-Result-Chars\" (did you mean max_result_chars?)"));
        let e = ToolCall::new("nobody", &json!({})).unwrap_err();
        assert!(e.message().contains("the tools are claude, codex, gemini"));
    }
}
