//! One call of the tool: seed 003's parameters read, turned into a run of
//! Gemini CLI on the CLI session engine (`runAgent`'s, [`crate::engine::cli`]:
//! the same command line, attempts, retries and kinds), and the run's
//! result written as the seed's envelope, its failure in the tool's words
//! ([`super::classify::describe`]) with the run's kind: `runGeminiTool`'s
//! `error_kind` is `runAgent`'s `error.kind` because it is the same run.
//!
//! ```
//! use agent_context::tools::gemini_tool::GeminiToolCall;
//! use serde_json::json;
//!
//! let call = GeminiToolCall::new(&json!({"PROMPT": "Hi", "cd": "/w"}), "gemini");
//! let (request, options) = call.run_request().unwrap();
//! assert_eq!(request, json!({"prompt": "Hi"}));
//! assert_eq!(options["model"], "gemini-3-pro-preview");
//! assert_eq!(options["maxRetries"], 1);
//! ```

use serde_json::{json, Value};

use crate::engine::TurnResult;
use crate::error::Result;

use super::classify::{describe, AttemptEnd, ErrorKind, Evidence, Failure};
use super::envelope::{
    failure_envelope, metrics_line, success_envelope, ErrorDetail, Extras, Metrics,
};
use super::params::{lenient_limits, GeminiToolParams, Limits};

/// The Gemini CLI agent type the tool runs.
pub const GEMINI_AGENT: &str = "google-gemini";

#[derive(Debug)]
pub struct GeminiToolCall {
    /// The executable the run spawns.
    command: String,
    limits: Limits,
    /// The parameters, or why they cannot be used (`invalid_params`).
    params: std::result::Result<GeminiToolParams, Failure>,
    /// Every place the command was looked for, when it was not found there
    /// (added to a `command_not_found` error).
    searched: Option<String>,
}

impl GeminiToolCall {
    /// Reads `params`; bad ones make a call whose envelope is
    /// `invalid_params` ([`GeminiToolCall::invalid_envelope`]). `command`
    /// is the executable the run will spawn.
    pub fn new(params: &Value, command: &str) -> GeminiToolCall {
        let read = GeminiToolParams::read(params);
        GeminiToolCall {
            command: command.to_owned(),
            limits: read
                .as_ref()
                .map_or_else(|_| lenient_limits(params), GeminiToolParams::limits),
            params: read.map_err(|e| invalid_params(e.message())),
            searched: None,
        }
    }

    /// A call whose parameters could not even be read as JSON.
    pub fn unreadable(message: &str, command: &str) -> GeminiToolCall {
        let mut call = GeminiToolCall::new(&Value::Null, command);
        call.params = Err(invalid_params(message));
        call
    }

    pub fn params(&self) -> Option<&GeminiToolParams> {
        self.params.as_ref().ok()
    }

    /// The run that answers the call: `runAgent`'s request (`{ prompt }`)
    /// and options (the model, the session, the sandbox, the approval, the
    /// deadlines and retries), or `None` when the parameters failed.
    pub fn run_request(&self) -> Option<(Value, Value)> {
        let params = self.params()?;
        let mut options = json!({
            "cd": params.cd,
            "model": params.model,
            "sandbox": params.sandbox.name(),
            "yolo": params.yolo,
            "timeout": params.timeout_s,
            "maxDuration": params.max_duration_s,
            "maxRetries": params.max_retries,
        });
        if let Some(id) = &params.session_id {
            options["sessionId"] = json!(id);
        }
        Some((json!({ "prompt": params.prompt }), options))
    }

    /// Whether the run keeps its last attempt's events (`all_messages`).
    /// `{ agentType, request, options, keepEvents }`: the run to start, or
    /// `None` when the parameters failed.
    pub fn run_json(&self) -> Option<Value> {
        let (request, options) = self.run_request()?;
        Some(json!({
            "agentType": GEMINI_AGENT,
            "request": request,
            "options": options,
            "keepEvents": self.keeps_events(),
        }))
    }

    pub fn keeps_events(&self) -> bool {
        self.params().is_some_and(|p| p.return_all_messages)
    }

    /// The command was not found where the host looked (`searched`: its
    /// message listing every place): the run still spawns the name as it
    /// is, and if that finds nothing either, the `command_not_found`
    /// error's summary lists those places.
    pub fn not_found(&mut self, searched: &str) {
        self.searched = Some(searched.to_owned());
    }

    /// The envelope of a call whose parameters failed (`None` when they
    /// did not).
    pub fn invalid_envelope(&self, duration_ms: u64) -> Option<Value> {
        let failure = self.params.as_ref().err()?;
        let detail = ErrorDetail {
            exit_code: None,
            last_lines: &[],
            limits: self.limits,
            retries: 0,
        };
        to_value(failure_envelope(
            failure,
            detail,
            duration_ms,
            self.extras(None, duration_ms),
        ))
    }

    /// The envelope of the finished run `turn`, `duration_ms` after the
    /// call began.
    pub fn envelope(&self, turn: &TurnResult, duration_ms: u64) -> Result<Value> {
        if let Some(envelope) = self.invalid_envelope(duration_ms) {
            return Ok(envelope);
        }
        let extras = self.extras(Some(turn), duration_ms);
        let envelope = match &turn.error {
            None => to_value(success_envelope(
                turn.reply.session_id.as_deref(),
                &turn.reply.text,
                duration_ms,
                extras,
            )),
            Some(error) => {
                let failure = self.failure(turn);
                let detail = ErrorDetail {
                    exit_code: error.exit_code,
                    last_lines: &error.last_lines,
                    limits: self.limits,
                    retries: turn.attempts.saturating_sub(1),
                };
                to_value(failure_envelope(&failure, detail, duration_ms, extras))
            }
        };
        envelope.ok_or_else(|| {
            crate::error::AgentContextError::new(
                crate::error::ErrorCode::Internal,
                "gemini tool: the envelope could not be written",
            )
        })
    }

    /// Whether `log_metrics` asked for [`GeminiToolCall::metrics_line`].
    pub fn logs_metrics(&self) -> bool {
        self.params().is_some_and(|p| p.log_metrics)
    }

    /// The `log_metrics` line of the finished run `turn` (`None`: a call
    /// whose parameters failed).
    pub fn metrics_line(&self, turn: Option<&TurnResult>, duration_ms: u64) -> String {
        let kind = match turn {
            Some(t) => t.kind(),
            None => Some(ErrorKind::InvalidParams),
        };
        metrics_line(
            kind.is_none(),
            kind.map(ErrorKind::as_str),
            duration_ms,
            &self.metrics(turn, duration_ms),
        )
    }

    /// The run's failure in the tool's words, with the run's kind.
    pub fn failure(&self, turn: &TurnResult) -> Failure {
        let Some(error) = &turn.error else {
            return Failure::new(ErrorKind::ProcessError, "", "");
        };
        let not_started = AttemptEnd::default();
        let evidence = Evidence {
            end: turn.end.as_ref().unwrap_or(&not_started),
            reply: &turn.reply,
            last_lines: &error.last_lines,
            command: &self.command,
            session_id: self.params().and_then(|p| p.session_id.as_deref()),
            limits: self.limits,
            platform: None,
        };
        let mut failure = describe(
            &crate::attempt::Failure::new(error.kind, error.message.clone()),
            &evidence,
        );
        if let (ErrorKind::CommandNotFound, Some(searched)) = (failure.kind, &self.searched) {
            failure.summary = format!("{}. {searched}", failure.summary);
        }
        failure
    }

    fn extras<'a>(&self, turn: Option<&'a TurnResult>, duration_ms: u64) -> Extras<'a> {
        let params = self.params();
        Extras {
            all_messages: params
                .filter(|p| p.return_all_messages)
                .map(|_| turn.and_then(|t| t.events.as_deref()).unwrap_or(&[])),
            metrics: params
                .filter(|p| p.return_metrics)
                .map(|_| self.metrics(turn, duration_ms)),
        }
    }

    fn metrics(&self, turn: Option<&TurnResult>, duration_ms: u64) -> Metrics {
        let attempts = turn.map_or(0, |t| t.attempts);
        Metrics {
            duration_ms,
            attempts,
            retries: attempts.saturating_sub(1),
            exit_code: turn.and_then(|t| t.end.as_ref()).and_then(|e| e.exit_code),
            tool_calls: turn.map_or(0, |t| t.reply.tool_uses.len()),
            ..Metrics::default()
        }
        .with_usage(turn.and_then(|t| t.reply.usage.as_ref()))
    }
}

fn to_value<T: serde::Serialize>(value: T) -> Option<Value> {
    serde_json::to_value(value).ok()
}

fn invalid_params(message: &str) -> Failure {
    Failure::new(
        ErrorKind::InvalidParams,
        format!("invalid parameters: {message}"),
        message,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::cli::run_script::ScriptedRun;
    use crate::launch::invocation::Sandbox;
    use serde_json::json;

    const PLAIN: &[u8] = include_bytes!("../../../tests/fixtures/cli/gemini-plain.jsonl");
    const SERVER_ERROR: &str = r#"{"type":"init","session_id":"s1"}
{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"Mock internal error\"}}]"}}
"#;

    fn exited(code: i32) -> AttemptEnd {
        AttemptEnd {
            exit_code: Some(code),
            ..Default::default()
        }
    }

    /// The call's run, as `js/api/gemini-tool.cjs` starts it.
    fn run_of(call: &GeminiToolCall, command: &str) -> ScriptedRun {
        let (request, mut options) = call.run_request().unwrap();
        options["command"] = json!(command);
        let mut run = ScriptedRun::new(GEMINI_AGENT, &request, &options, command);
        if call.keeps_events() {
            run.keep_events();
        }
        run
    }

    fn envelope(call: &GeminiToolCall, run: &mut ScriptedRun, duration_ms: u64) -> Value {
        call.envelope(&run.turn(duration_ms).unwrap(), duration_ms)
            .unwrap()
    }

    #[test]
    fn the_run_is_the_seeds_command_line() {
        let call = GeminiToolCall::new(
            &json!({"PROMPT": "Review src/", "cd": "/repo", "sandbox": "read-only", "SESSION_ID": "abc", "model": "gemini-2.5-flash", "timeout": 5, "max_duration": 60}),
            "/opt/gemini",
        );
        let plan = run_of(&call, "/opt/gemini").plan().unwrap();
        assert_eq!(plan.command, "/opt/gemini");
        assert_eq!(
            plan.args,
            [
                "-o",
                "stream-json",
                "--skip-trust",
                "--model=gemini-2.5-flash",
                "--resume=abc",
                "--approval-mode=plan"
            ]
        );
        assert_eq!(plan.max_attempts, 2);
        assert!(plan.args.iter().all(|a| !a.contains("Review")));
        let (_, options) = call.run_request().unwrap();
        assert_eq!(
            (&options["timeout"], &options["maxDuration"]),
            (&json!(5), &json!(60))
        );
        let auto =
            GeminiToolCall::new(&json!({"PROMPT": "x", "cd": "/r", "yolo": false}), "gemini");
        assert_eq!(
            run_of(&auto, "gemini").plan().unwrap().args[4],
            "--approval-mode=auto_edit"
        );
        assert_eq!(auto.params().unwrap().sandbox, Sandbox::WorkspaceWrite);
    }

    #[test]
    fn not_found_lists_the_places_searched() {
        let mut call = GeminiToolCall::new(
            &json!({"PROMPT": "x", "cd": "/r", "max_retries": 2}),
            "gemini",
        );
        call.not_found("gemini was not found; looked at:\n  /usr/bin/gemini (PATH)");
        let mut run = run_of(&call, "gemini");
        run.start_attempt();
        let end = AttemptEnd {
            spawn_error: Some("ENOENT".into()),
            ..Default::default()
        };
        assert_eq!(run.end_attempt(&end, 5), None);
        let e = envelope(&call, &mut run, 5);
        assert_eq!(e["error_kind"], "command_not_found");
        assert_eq!(e["error_detail"]["message"], "spawn gemini ENOENT");
        assert_eq!(e["error_detail"]["retries"], 0);
        let error = e["error"].as_str().unwrap();
        assert!(
            error.starts_with("Gemini CLI was not found: `gemini` is not on PATH"),
            "{error}"
        );
        assert!(
            error.ends_with(". gemini was not found; looked at:\n  /usr/bin/gemini (PATH)"),
            "{error}"
        );
    }

    #[test]
    fn bad_parameters_make_an_invalid_params_envelope() {
        let call = GeminiToolCall::new(
            &json!({"PROMPT": "x", "cd": "/w", "timeout": 9, "max_retries": -1}),
            "gemini",
        );
        assert!(call.run_request().is_none());
        let e = call.invalid_envelope(3).unwrap();
        assert_eq!(e["error_kind"], "invalid_params");
        assert_eq!(
            e["error"],
            "invalid parameters: max_retries must be a whole number from 0 to 10, got -1"
        );
        assert_eq!(
            e["error_detail"]["message"],
            "max_retries must be a whole number from 0 to 10, got -1"
        );
        assert_eq!(e["error_detail"]["idle_timeout_s"], 9);
        assert_eq!(e["error_detail"]["max_duration_s"], 1800);
        assert_eq!(e["error_detail"]["retries"], 0);
        assert_eq!(e["error_detail"]["exit_code"], Value::Null);
        assert_eq!(e["duration"], "0m0s");
        let unreadable = GeminiToolCall::unreadable("params could not be read: cycle", "gemini");
        assert_eq!(
            unreadable.invalid_envelope(0).unwrap()["error_kind"],
            "invalid_params"
        );
        assert!(
            GeminiToolCall::new(&json!({"PROMPT": "x", "cd": "/w"}), "g")
                .invalid_envelope(0)
                .is_none()
        );

        // The run's own refusal (the folder as the host found it) in the tool's words.
        let call = GeminiToolCall::new(&json!({"PROMPT": "x", "cd": "/nope"}), "gemini");
        let mut run = run_of(&call, "gemini");
        run.reject("cd does not exist: /nope");
        let e = envelope(&call, &mut run, 0);
        assert_eq!(e["error"], "invalid parameters: cd does not exist: /nope");
        assert_eq!(e["error_detail"]["message"], "cd does not exist: /nope");
    }

    #[test]
    fn success_after_one_retry() {
        let call = GeminiToolCall::new(
            &json!({"PROMPT": "x", "cd": "/w", "return_metrics": true}),
            "gemini",
        );
        let mut run = run_of(&call, "gemini");
        run.start_attempt();
        run.push_stdout(SERVER_ERROR.as_bytes());
        assert_eq!(run.end_attempt(&exited(244), 2_000), Some(500));
        run.start_attempt();
        run.push_stdout(PLAIN);
        assert_eq!(run.end_attempt(&exited(0), 5_000), None);
        let e = envelope(&call, &mut run, 5_000);
        assert_eq!(e["success"], true);
        assert_eq!(e["SESSION_ID"], "c93265c3-ff3f-4d07-b32a-67a5ff5c389a");
        assert_eq!(e["result"], "Mock reply: use React for the dashboard.");
        assert_eq!(e["metrics"]["attempts"], 2);
        assert_eq!(e["metrics"]["retries"], 1);
        assert_eq!(e["metrics"]["exit_code"], 0);
        assert_eq!(e["metrics"]["output_tokens"], 9);
    }

    #[test]
    fn retries_run_out_and_the_last_attempt_is_reported() {
        let call = GeminiToolCall::new(
            &json!({"PROMPT": "x", "cd": "/w", "max_retries": 2, "log_metrics": true, "return_all_messages": true}),
            "gemini",
        );
        let mut run = run_of(&call, "gemini");
        let mut waits = Vec::new();
        for _ in 0..3 {
            run.start_attempt();
            run.push_stdout(SERVER_ERROR.as_bytes());
            run.push_stderr(b"Error when talking to Gemini API\n");
            waits.push(run.end_attempt(&exited(244), 1_000));
        }
        assert_eq!(waits, [Some(500), Some(1000), None]);
        let e = envelope(&call, &mut run, 9_000);
        assert_eq!(e["error_kind"], "upstream_error");
        assert_eq!(e["error"], "the Gemini API failed (HTTP 500)");
        assert_eq!(e["error_detail"]["retries"], 2);
        assert_eq!(e["error_detail"]["exit_code"], 244);
        assert_eq!(e["error_detail"]["last_lines"].as_array().unwrap().len(), 3);
        // The last attempt's events only.
        assert_eq!(
            e["all_messages"][0],
            json!({"type": "session", "sessionId": "s1"})
        );
        assert_eq!(
            e["all_messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["type"] == "session")
                .count(),
            1
        );
        assert!(call.logs_metrics());
        let line = call.metrics_line(Some(&run.turn(9_000).unwrap()), 9_000);
        assert!(line.starts_with(r#"{"tool":"gemini","success":false,"error_kind":"upstream_error","duration":"0m9s","duration_ms":9000,"attempts":3,"retries":2,"exit_code":244"#), "{line}");
    }

    #[test]
    fn never_retried_kinds_and_the_time_budget() {
        let call = GeminiToolCall::new(
            &json!({"PROMPT": "x", "cd": "/w", "max_retries": 5}),
            "gemini",
        );
        let mut run = run_of(&call, "gemini");
        run.start_attempt();
        let enoent = AttemptEnd {
            spawn_error: Some("ENOENT".into()),
            ..Default::default()
        };
        assert_eq!(run.end_attempt(&enoent, 10), None);
        let e = envelope(&call, &mut run, 10);
        assert_eq!(e["error_kind"], "command_not_found");
        assert_eq!(e["error_detail"]["retries"], 0);

        // Idle 1 s before max_duration's 10 s: no time for another attempt.
        let late = GeminiToolCall::new(
            &json!({"PROMPT": "x", "cd": "/w", "max_duration": 10, "timeout": 9}),
            "gemini",
        );
        let mut run = run_of(&late, "gemini");
        run.start_attempt();
        let idle = AttemptEnd {
            stopped: Some(super::super::classify::StopReason::IdleTimeout),
            signal: Some("SIGKILL".into()),
            ..Default::default()
        };
        assert_eq!(run.end_attempt(&idle, 0), None);
        let e = envelope(&late, &mut run, 9_000);
        assert_eq!(e["error_kind"], "idle_timeout");
        assert_eq!(
            e["error"],
            "Gemini CLI printed nothing for 9 s and was stopped (idle timeout)"
        );
    }

    #[test]
    fn an_abort_between_attempts_keeps_the_last_attempts_details() {
        let call = GeminiToolCall::new(&json!({"PROMPT": "x", "cd": "/w"}), "gemini");
        let mut run = run_of(&call, "gemini");
        run.start_attempt();
        run.push_stdout(SERVER_ERROR.as_bytes());
        assert_eq!(run.end_attempt(&exited(244), 100), Some(500));
        run.abort();
        let e = envelope(&call, &mut run, 300);
        assert_eq!(e["error_kind"], "aborted");
        assert_eq!(e["error"], "the call was aborted by the caller");
        assert_eq!(e["error_detail"]["exit_code"], 244);
        assert_eq!(e["error_detail"]["retries"], 0);
    }
}
