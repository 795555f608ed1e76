//! Seed 003's result envelope, keys in the seed's order, plus what
//! `return_all_messages` and `return_metrics` ask for (`all_messages`,
//! `metrics`), and the `log_metrics` line. Plain structs written with
//! serde: the envelope is data, and the JS side reads it through JSON.

use serde::Serialize;

use crate::agent_output::{AgentEvent, Usage};

use super::classify::Failure;
use super::duration::format_duration;
use super::params::Limits;

/// The tool's name, in the envelope and as the MCP tool.
pub const TOOL_NAME: &str = "gemini";

/// `error_detail` of a failure, besides its message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorDetail<'a> {
    pub exit_code: Option<i32>,
    pub last_lines: &'a [String],
    pub limits: Limits,
    pub retries: u32,
}

/// `metrics` (`return_metrics`) and the `log_metrics` line: the call's
/// time and attempts, the last attempt's exit code, and the token counts
/// and tool calls Gemini CLI reported for it.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Metrics {
    pub duration_ms: u64,
    pub attempts: u32,
    pub retries: u32,
    pub exit_code: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cached_input_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tokens: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub total_tokens: Option<u64>,
    /// Gemini CLI's own `duration_ms` of the run.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub api_duration_ms: Option<u64>,
    pub tool_calls: usize,
}

impl Metrics {
    pub fn with_usage(mut self, usage: Option<&Usage>) -> Self {
        if let Some(u) = usage {
            self.input_tokens = u.input_tokens;
            self.cached_input_tokens = u.cached_input_tokens;
            self.output_tokens = u.output_tokens;
            self.total_tokens = u.total_tokens;
            self.api_duration_ms = u.duration_ms;
        }
        self
    }
}

/// The optional parts, added at the end when asked for.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Extras<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub all_messages: Option<&'a [AgentEvent]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metrics: Option<Metrics>,
}

/// The envelope: `success` says which.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Envelope<'a> {
    Success(SuccessEnvelope<'a>),
    Failure(FailureEnvelope<'a>),
}

/// `{ success: true, tool, SESSION_ID, result, duration }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SuccessEnvelope<'a> {
    pub success: bool,
    pub tool: &'static str,
    #[serde(rename = "SESSION_ID")]
    pub session_id: Option<&'a str>,
    pub result: &'a str,
    pub duration: String,
    #[serde(flatten)]
    pub extras: Extras<'a>,
}

/// `{ success: false, tool, error, error_kind, error_detail, duration }`.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct FailureEnvelope<'a> {
    pub success: bool,
    pub tool: &'static str,
    pub error: &'a str,
    pub error_kind: &'static str,
    pub error_detail: ErrorDetailOut<'a>,
    pub duration: String,
    #[serde(flatten)]
    pub extras: Extras<'a>,
}

/// `error_detail` as written.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ErrorDetailOut<'a> {
    pub message: &'a str,
    pub exit_code: Option<i32>,
    pub last_lines: &'a [String],
    pub idle_timeout_s: u64,
    pub max_duration_s: u64,
    pub retries: u32,
}

/// `{ success: true, tool, SESSION_ID, result, duration }`.
///
/// ```
/// use agent_context::tools::gemini_tool::{success_envelope, Extras};
/// let e = success_envelope(Some("s1"), "Use React.", 90_000, Extras::default());
/// assert_eq!(
///     serde_json::to_string(&e).unwrap(),
///     r#"{"success":true,"tool":"gemini","SESSION_ID":"s1","result":"Use React.","duration":"1m30s"}"#
/// );
/// ```
pub fn success_envelope<'a>(
    session_id: Option<&'a str>,
    result: &'a str,
    duration_ms: u64,
    extras: Extras<'a>,
) -> Envelope<'a> {
    Envelope::Success(SuccessEnvelope {
        success: true,
        tool: TOOL_NAME,
        session_id,
        result,
        duration: format_duration(duration_ms),
        extras,
    })
}

/// `{ success: false, tool, error, error_kind, error_detail, duration }`.
pub fn failure_envelope<'a>(
    failure: &'a Failure,
    detail: ErrorDetail<'a>,
    duration_ms: u64,
    extras: Extras<'a>,
) -> Envelope<'a> {
    Envelope::Failure(FailureEnvelope {
        success: false,
        tool: TOOL_NAME,
        error: &failure.summary,
        error_kind: failure.kind.as_str(),
        error_detail: ErrorDetailOut {
            message: &failure.message,
            exit_code: detail.exit_code,
            last_lines: detail.last_lines,
            idle_timeout_s: detail.limits.idle_timeout_s,
            max_duration_s: detail.limits.max_duration_s,
            retries: detail.retries,
        },
        duration: format_duration(duration_ms),
        extras,
    })
}

/// The one JSON line `log_metrics` writes to stderr.
#[derive(Serialize)]
struct MetricsLine<'a> {
    tool: &'static str,
    success: bool,
    error_kind: Option<&'a str>,
    duration: String,
    #[serde(flatten)]
    metrics: &'a Metrics,
}

/// `{"tool":"gemini","success":…,"error_kind":…,"duration":…, …metrics}`.
pub fn metrics_line(
    success: bool,
    error_kind: Option<&str>,
    duration_ms: u64,
    metrics: &Metrics,
) -> String {
    let line = MetricsLine {
        tool: TOOL_NAME,
        success,
        error_kind,
        duration: format_duration(duration_ms),
        metrics,
    };
    // Plain data: writing it as JSON cannot fail.
    serde_json::to_string(&line).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::gemini_tool::ErrorKind;
    use serde_json::json;

    fn text(e: &Envelope) -> String {
        serde_json::to_string(e).unwrap()
    }

    #[test]
    fn the_failure_envelope_has_the_seeds_keys_in_order() {
        let failure = Failure::new(ErrorKind::IdleTimeout, "went quiet", "no output for 300 s");
        let lines = vec!["{\"type\":\"init\"}".to_owned()];
        let detail = ErrorDetail {
            exit_code: None,
            last_lines: &lines,
            limits: Limits::default(),
            retries: 1,
        };
        let e = failure_envelope(&failure, detail, 30_000, Extras::default());
        assert_eq!(
            text(&e),
            r#"{"success":false,"tool":"gemini","error":"went quiet","error_kind":"idle_timeout","error_detail":{"message":"no output for 300 s","exit_code":null,"last_lines":["{\"type\":\"init\"}"],"idle_timeout_s":300,"max_duration_s":1800,"retries":1},"duration":"0m30s"}"#
        );
    }

    #[test]
    fn extras_come_last_and_only_when_asked() {
        let events = [AgentEvent::Session {
            session_id: "s1".into(),
        }];
        let metrics = Metrics {
            duration_ms: 1200,
            attempts: 2,
            retries: 1,
            exit_code: Some(0),
            ..Default::default()
        }
        .with_usage(Some(&Usage {
            input_tokens: Some(120),
            output_tokens: Some(9),
            total_tokens: Some(129),
            duration_ms: Some(71),
            ..Default::default()
        }));
        let extras = Extras {
            all_messages: Some(&events),
            metrics: Some(metrics.clone()),
        };
        let e: serde_json::Value =
            serde_json::from_str(&text(&success_envelope(None, "", 1200, extras))).unwrap();
        let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "success",
                "tool",
                "SESSION_ID",
                "result",
                "duration",
                "all_messages",
                "metrics"
            ]
        );
        assert_eq!(e["SESSION_ID"], serde_json::Value::Null);
        assert_eq!(
            e["all_messages"],
            json!([{"type": "session", "sessionId": "s1"}])
        );
        assert_eq!(
            e["metrics"],
            json!({"duration_ms": 1200, "attempts": 2, "retries": 1, "exit_code": 0, "input_tokens": 120,
                   "output_tokens": 9, "total_tokens": 129, "api_duration_ms": 71, "tool_calls": 0})
        );
        assert_eq!(
            metrics_line(false, Some("timeout"), 1200, &metrics),
            r#"{"tool":"gemini","success":false,"error_kind":"timeout","duration":"0m1s","duration_ms":1200,"attempts":2,"retries":1,"exit_code":0,"input_tokens":120,"output_tokens":9,"total_tokens":129,"api_duration_ms":71,"tool_calls":0}"#
        );
    }
}
