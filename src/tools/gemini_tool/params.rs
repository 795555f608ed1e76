//! The tool's parameters (seed 003), names and defaults exact, read from the
//! JSON the caller (an agent, through MCP or `runGeminiTool`) sent. Every
//! problem is an `INVALID_INPUT` error naming the parameter; the tool turns
//! it into an `invalid_params` envelope.

use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};
use crate::launch::invocation::{Sandbox, MAX_ARG_BYTES};
use crate::prompt::text::js_trim;

pub const DEFAULT_SANDBOX: Sandbox = Sandbox::WorkspaceWrite;
pub const DEFAULT_YOLO: bool = true;
pub const DEFAULT_MODEL: &str = "gemini-3-pro-preview";
/// `timeout`: seconds without any output before the run is stopped.
pub const DEFAULT_TIMEOUT_S: u64 = 300;
/// `max_duration`: seconds the whole call may take, retries included.
pub const DEFAULT_MAX_DURATION_S: u64 = 1800;
pub const DEFAULT_MAX_RETRIES: u32 = 1;

/// The largest `timeout` and `max_duration`: one day (a JS timer cannot wait
/// past 24.8 days, and no tool call should).
pub const MAX_SECONDS: u64 = 86_400;
/// The largest `max_retries`.
pub const MAX_RETRIES_LIMIT: u32 = 10;
/// Linux's `PATH_MAX`.
const MAX_PATH_BYTES: usize = 4096;

/// Every parameter, in the seed's order.
pub const PARAMETER_NAMES: [&str; 12] = [
    "PROMPT",
    "cd",
    "sandbox",
    "yolo",
    "SESSION_ID",
    "model",
    "return_all_messages",
    "return_metrics",
    "timeout",
    "max_duration",
    "max_retries",
    "log_metrics",
];

/// The parameters with the defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeminiToolParams {
    pub prompt: String,
    pub cd: String,
    pub sandbox: Sandbox,
    pub yolo: bool,
    /// Resume this Gemini CLI session; `None` starts a new one.
    pub session_id: Option<String>,
    pub model: String,
    pub return_all_messages: bool,
    pub return_metrics: bool,
    pub timeout_s: u64,
    pub max_duration_s: u64,
    pub max_retries: u32,
    pub log_metrics: bool,
}

/// `timeout` and `max_duration` in seconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    pub idle_timeout_s: u64,
    pub max_duration_s: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            idle_timeout_s: DEFAULT_TIMEOUT_S,
            max_duration_s: DEFAULT_MAX_DURATION_S,
        }
    }
}

impl GeminiToolParams {
    /// Reads and checks `value`. `null` counts as left out; `''` for
    /// `SESSION_ID` or `model` too.
    ///
    /// ```
    /// use agent_context::tools::gemini_tool::GeminiToolParams;
    /// let p = GeminiToolParams::read(&serde_json::json!({"PROMPT": "Review src/", "cd": "/repo"})).unwrap();
    /// assert_eq!((p.model.as_str(), p.yolo, p.timeout_s, p.max_retries), ("gemini-3-pro-preview", true, 300, 1));
    /// ```
    pub fn read(value: &Value) -> Result<GeminiToolParams> {
        GeminiToolParams::read_for(value, "Gemini", "Gemini CLI", &[])
    }

    /// [`GeminiToolParams::read`] for the tool of another agent (the MCP
    /// server's `claude`, `codex`, …): the same parameters, with `agent`
    /// (who gets the task) and `cli` (who runs in `cd`) named in messages,
    /// and `extra`, the parameters the caller reads itself (and has taken
    /// out of `value`), listed with the others when one is unknown.
    pub fn read_for(
        value: &Value,
        agent: &str,
        cli: &str,
        extra: &[&str],
    ) -> Result<GeminiToolParams> {
        let map = value.as_object().ok_or_else(|| {
            AgentContextError::invalid(format!(
                "params must be an object, got {}",
                type_name(value)
            ))
        })?;
        if let Some(unknown) = map.keys().find(|k| !PARAMETER_NAMES.contains(&k.as_str())) {
            return Err(unknown_parameter(unknown, extra));
        }
        let o = Obj::new(value, "")?;
        let prompt = o.req_str("PROMPT")?;
        if js_trim(prompt).is_empty() {
            return Err(AgentContextError::invalid(format!(
                "PROMPT must not be empty: it is the whole task {agent} gets"
            )));
        }
        let cd = o.req_str("cd")?;
        if cd.is_empty() {
            return Err(AgentContextError::invalid(format!(
                "cd must not be empty: it is {cli}'s working directory"
            )));
        }
        if cd.contains('\0') {
            return Err(AgentContextError::invalid(
                "cd must not contain a NUL character",
            ));
        }
        if cd.len() > MAX_PATH_BYTES {
            return Err(AgentContextError::invalid(format!(
                "cd is {} bytes, longer than a path may be ({MAX_PATH_BYTES})",
                cd.len()
            )));
        }
        let sandbox = match o.opt_str("sandbox")? {
            None => DEFAULT_SANDBOX,
            Some(name) => Sandbox::parse(name).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "sandbox must be one of {}, got \"{}\"",
                    Sandbox::NAMES.map(|n| format!("'{n}'")).join(", "),
                    shown(name)
                ))
            })?,
        };
        let session_id = o.opt_str("SESSION_ID")?.filter(|s| !s.is_empty());
        if let Some(id) = session_id {
            check_argument("SESSION_ID", id)?;
            if id.starts_with('-') {
                return Err(AgentContextError::invalid(format!(
                    "SESSION_ID must not start with '-', got \"{}\"",
                    shown(id)
                )));
            }
        }
        let model = o.opt_str("model")?.filter(|m| !m.is_empty());
        if let Some(model) = model {
            check_argument("model", model)?;
        }
        let limits = read_limits(&o)?;
        Ok(GeminiToolParams {
            prompt: prompt.to_owned(),
            cd: cd.to_owned(),
            sandbox,
            yolo: o.opt_bool("yolo")?.unwrap_or(DEFAULT_YOLO),
            session_id: session_id.map(str::to_owned),
            model: model.unwrap_or(DEFAULT_MODEL).to_owned(),
            return_all_messages: o.opt_bool("return_all_messages")?.unwrap_or(false),
            return_metrics: o.opt_bool("return_metrics")?.unwrap_or(false),
            timeout_s: limits.idle_timeout_s,
            max_duration_s: limits.max_duration_s,
            max_retries: whole(&o, "max_retries", 0, u64::from(MAX_RETRIES_LIMIT))?
                .map_or(DEFAULT_MAX_RETRIES, |n| n as u32),
            log_metrics: o.opt_bool("log_metrics")?.unwrap_or(false),
        })
    }

    pub fn limits(&self) -> Limits {
        Limits {
            idle_timeout_s: self.timeout_s,
            max_duration_s: self.max_duration_s,
        }
    }
}

/// `timeout` and `max_duration` as far as they can be read, for the
/// envelope of parameters that failed the check: each one that is not a
/// valid value keeps its default.
pub fn lenient_limits(value: &Value) -> Limits {
    let Ok(o) = Obj::new(value, "") else {
        return Limits::default();
    };
    let read = |key, default| seconds(&o, key).ok().flatten().unwrap_or(default);
    Limits {
        idle_timeout_s: read("timeout", DEFAULT_TIMEOUT_S),
        max_duration_s: read("max_duration", DEFAULT_MAX_DURATION_S),
    }
}

fn read_limits(o: &Obj) -> Result<Limits> {
    Ok(Limits {
        idle_timeout_s: seconds(o, "timeout")?.unwrap_or(DEFAULT_TIMEOUT_S),
        max_duration_s: seconds(o, "max_duration")?.unwrap_or(DEFAULT_MAX_DURATION_S),
    })
}

fn seconds(o: &Obj, key: &str) -> Result<Option<u64>> {
    whole(o, key, 1, MAX_SECONDS)
}

/// A whole number in `min..=max`.
fn whole(o: &Obj, key: &str, min: u64, max: u64) -> Result<Option<u64>> {
    let out_of_range = |got: String| {
        AgentContextError::invalid(format!(
            "{key} must be a whole number from {min} to {max}, got {got}"
        ))
    };
    match o.get(key) {
        None => Ok(None),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if (min..=max).contains(&v) => Ok(Some(v)),
            // `5.0` arrives as a float from some JSON writers: a whole number all the same.
            None if n
                .as_f64()
                .is_some_and(|f| f.fract() == 0.0 && f >= min as f64 && f <= max as f64) =>
            {
                Ok(n.as_f64().map(|f| f as u64))
            }
            _ => Err(out_of_range(n.to_string())),
        },
        Some(other) => Err(out_of_range(type_name(other).to_owned())),
    }
}

/// A value that goes into one argument of the command line.
fn check_argument(name: &str, value: &str) -> Result<()> {
    if value.contains('\0') {
        return Err(AgentContextError::invalid(format!(
            "{name} must not contain a NUL character"
        )));
    }
    if value.len() >= MAX_ARG_BYTES - 16 {
        return Err(AgentContextError::invalid(format!(
            "{name} is {} bytes, too long for a command-line argument",
            value.len()
        )));
    }
    Ok(())
}

/// A value quoted in a message, cut after 60 characters: the message goes
/// back to an agent, and a 10 MB parameter should not come back whole.
pub(crate) fn shown(value: &str) -> String {
    match value.char_indices().nth(60) {
        Some((at, _)) => format!("{}…", &value[..at]),
        None => value.to_owned(),
    }
}

fn unknown_parameter(name: &str, extra: &[&str]) -> AgentContextError {
    let folded = |s: &str| -> Vec<u8> {
        s.bytes()
            .map(|b| {
                if b == b'-' {
                    b'_'
                } else {
                    b.to_ascii_lowercase()
                }
            })
            .collect()
    };
    let known: Vec<&str> = PARAMETER_NAMES.iter().chain(extra).copied().collect();
    let hint = known
        .iter()
        .find(|p| folded(p) == folded(name))
        .map(|p| format!(" (did you mean {p}?)"))
        .unwrap_or_default();
    AgentContextError::invalid(format!(
        "unknown parameter \"{}\"{hint}; the parameters are {}",
        shown(name),
        known.join(", ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn err(value: Value) -> String {
        let e = GeminiToolParams::read(&value).expect_err("should fail");
        assert_eq!(e.code(), crate::error::ErrorCode::InvalidInput);
        e.message().to_owned()
    }

    #[test]
    fn defaults_are_the_seeds() {
        let p = GeminiToolParams::read(&json!({"PROMPT": "Hi", "cd": "/w"})).unwrap();
        assert_eq!(
            p,
            GeminiToolParams {
                prompt: "Hi".into(),
                cd: "/w".into(),
                sandbox: Sandbox::WorkspaceWrite,
                yolo: true,
                session_id: None,
                model: "gemini-3-pro-preview".into(),
                return_all_messages: false,
                return_metrics: false,
                timeout_s: 300,
                max_duration_s: 1800,
                max_retries: 1,
                log_metrics: false,
            }
        );
        // null and '' keep the defaults.
        let q = GeminiToolParams::read(&json!({
            "PROMPT": "Hi", "cd": "/w", "sandbox": null, "yolo": null, "SESSION_ID": "",
            "model": "", "timeout": null, "max_retries": null
        }))
        .unwrap();
        assert_eq!(q, p);
    }

    #[test]
    fn every_parameter_is_read() {
        let p = GeminiToolParams::read(&json!({
            "PROMPT": "Review", "cd": "/repo", "sandbox": "read-only", "yolo": false,
            "SESSION_ID": "c6eec536-0929-4a6a-912e-c6ac96d0eb18", "model": "gemini-2.5-flash",
            "return_all_messages": true, "return_metrics": true, "timeout": 5,
            "max_duration": 60.0, "max_retries": 0, "log_metrics": true
        }))
        .unwrap();
        assert_eq!(p.sandbox, Sandbox::ReadOnly);
        assert!(!p.yolo);
        assert_eq!(
            p.session_id.as_deref(),
            Some("c6eec536-0929-4a6a-912e-c6ac96d0eb18")
        );
        assert_eq!(p.model, "gemini-2.5-flash");
        assert!(p.return_all_messages && p.return_metrics && p.log_metrics);
        assert_eq!((p.timeout_s, p.max_duration_s, p.max_retries), (5, 60, 0));
        assert_eq!(
            p.limits(),
            Limits {
                idle_timeout_s: 5,
                max_duration_s: 60
            }
        );
    }

    #[test]
    fn problems_name_the_parameter() {
        assert_eq!(err(json!("hi")), "params must be an object, got a string");
        assert_eq!(
            err(json!({"cd": "/w"})),
            "PROMPT must be a string, got undefined"
        );
        assert_eq!(
            err(json!({"PROMPT": 5, "cd": "/w"})),
            "PROMPT must be a string, got a number"
        );
        assert!(err(json!({"PROMPT": " \n", "cd": "/w"})).starts_with("PROMPT must not be empty"));
        assert_eq!(
            err(json!({"PROMPT": "x"})),
            "cd must be a string, got undefined"
        );
        assert!(err(json!({"PROMPT": "x", "cd": ""})).starts_with("cd must not be empty"));
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "sandbox": "full"})),
            "sandbox must be one of 'read-only', 'workspace-write', 'danger-full-access', got \"full\""
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "yolo": "yes"})),
            "yolo must be a boolean, got a string"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "timeout": 0})),
            "timeout must be a whole number from 1 to 86400, got 0"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "max_duration": 1.5})),
            "max_duration must be a whole number from 1 to 86400, got 1.5"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "max_duration": 86401})),
            "max_duration must be a whole number from 1 to 86400, got 86401"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "max_retries": 11})),
            "max_retries must be a whole number from 0 to 10, got 11"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "max_retries": "2"})),
            "max_retries must be a whole number from 0 to 10, got a string"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "SESSION_ID": "--last"})),
            "SESSION_ID must not start with '-', got \"--last\""
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "model": "a\u{0}b"})),
            "model must not contain a NUL character"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "session_id": "abc"})),
            "unknown parameter \"session_id\" (did you mean SESSION_ID?); the parameters are PROMPT, cd, sandbox, yolo, SESSION_ID, model, return_all_messages, return_metrics, timeout, max_duration, max_retries, log_metrics"
        );
        let long = "s".repeat(100);
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/w", "sandbox": long})),
            format!("sandbox must be one of 'read-only', 'workspace-write', 'danger-full-access', got \"{}…\"", "s".repeat(60))
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "a\u{0}"})),
            "cd must not contain a NUL character"
        );
        assert_eq!(
            err(json!({"PROMPT": "x", "cd": "/".repeat(4097)})),
            "cd is 4097 bytes, longer than a path may be (4096)"
        );
        assert!(err(json!({"PROMPT": "x", "cd": "/w", "verbose": true}))
            .starts_with("unknown parameter \"verbose\"; the parameters are PROMPT"));
    }

    #[test]
    fn limits_of_bad_params_keep_what_can_be_read() {
        assert_eq!(lenient_limits(&json!(null)), Limits::default());
        assert_eq!(
            lenient_limits(&json!({"timeout": 7, "max_duration": -1})),
            Limits {
                idle_timeout_s: 7,
                max_duration_s: 1800
            }
        );
    }
}
