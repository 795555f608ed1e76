//! One call of the tool, as a state machine the JS process runner drives: a
//! layer over the runner of every agent ([`crate::run::AgentRunner`]), which
//! plans the command line, reads each attempt's output, classifies it and
//! decides whether and when to try again. This layer reads seed 003's
//! parameters, keeps the events when asked for, says what each attempt came
//! to in the tool's own words with the runner's kinds ([`super::classify`]:
//! one taxonomy, the same `error_kind` as `runAgent`'s `error.kind`), and
//! writes the envelope. The JS runner only spawns, times and kills.
//!
//! ```
//! use agent_context::gemini_tool::{AttemptEnd, GeminiToolRun};
//! use serde_json::json;
//!
//! let mut run = GeminiToolRun::new(&json!({"PROMPT": "Hi", "cd": "/w"}), "gemini");
//! let plan = run.plan().unwrap();
//! assert_eq!(plan.args, ["-o", "stream-json", "--skip-trust", "--model=gemini-3-pro-preview", "--approval-mode=yolo"]);
//! run.start_attempt();
//! run.push_stdout(b"{\"type\":\"init\",\"session_id\":\"s1\"}\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"Hello\"}\n{\"type\":\"result\",\"status\":\"success\"}\n");
//! let retry = run.end_attempt(&AttemptEnd { exit_code: Some(0), ..Default::default() }, 2_000);
//! assert_eq!(retry, None);
//! assert_eq!(serde_json::to_value(run.envelope(2_000).unwrap()).unwrap()["result"], "Hello");
//! ```

use serde_json::{json, Value};

use crate::agent_output::AgentEvent;
use crate::error::{AgentContextError, ErrorCode, Result};
use crate::run::AgentRunner;

use super::attempt::AttemptReport;
use super::classify::{aborted, classify, AttemptEnd, ErrorKind, Evidence, Failure, Verdict};
use super::envelope::{
    failure_envelope, metrics_line, success_envelope, Envelope, ErrorDetail, Extras, Metrics,
};
use super::params::{lenient_limits, GeminiToolParams, Limits};

/// What the runner needs to spawn and time an attempt.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Plan<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    /// The prompt: written to the child's stdin, which is then closed.
    pub stdin: &'a str,
    /// The child's working directory (as given; the runner resolves it).
    pub cd: &'a str,
    pub idle_timeout_ms: u64,
    pub max_duration_ms: u64,
    /// `max_retries + 1`: the most attempts the call can take.
    pub max_attempts: u32,
}

/// Why a `cd` cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CdProblem {
    Missing,
    NotADirectory,
    /// Another error code from the file system (`EACCES`, …).
    Other(String),
}

#[derive(Debug)]
pub struct GeminiToolRun {
    command: String,
    limits: Limits,
    /// `None` when the parameters failed the check.
    ready: Option<(GeminiToolParams, AgentRunner)>,
    /// The running attempt's events, when `return_all_messages` keeps them.
    events: Option<Vec<AgentEvent>>,
    running: bool,
    attempts: u32,
    last: Option<AttemptReport>,
    /// Set once the call is over: `Ok` with the successful report in `last`.
    outcome: Option<std::result::Result<(), Failure>>,
    /// Every place the command was looked for, when it was not found there
    /// (added to a `command_not_found` error).
    searched: Option<String>,
    /// The system the command runs on, once launched.
    platform: Option<crate::platform::Platform>,
}

impl GeminiToolRun {
    /// Reads `params`; bad ones end the call at once with `invalid_params`.
    /// `command` is the executable the runner will spawn.
    pub fn new(params: &Value, command: &str) -> GeminiToolRun {
        let mut run = GeminiToolRun {
            command: command.to_owned(),
            limits: lenient_limits(params),
            ready: None,
            events: None,
            running: false,
            attempts: 0,
            last: None,
            outcome: None,
            searched: None,
            platform: None,
        };
        match plan_runner(params, command) {
            Ok((params, runner)) => {
                run.limits = params.limits();
                run.ready = Some((params, runner));
            }
            Err(e) => run.outcome = Some(Err(invalid_params(e.message()))),
        }
        run
    }

    /// A call whose parameters could not even be read as JSON.
    pub fn unreadable(message: &str, command: &str) -> GeminiToolRun {
        let mut run = GeminiToolRun::new(&Value::Null, command);
        run.outcome = Some(Err(invalid_params(message)));
        run
    }

    pub fn params(&self) -> Option<&GeminiToolParams> {
        self.ready.as_ref().map(|(p, _)| p)
    }

    /// What to spawn; `None` once the call is over (bad parameters, a bad
    /// `cd`, an abort) or decided.
    pub fn plan(&self) -> Option<Plan<'_>> {
        if self.outcome.is_some() {
            return None;
        }
        let (params, runner) = self.ready.as_ref()?;
        let plan = runner.plan()?;
        Some(Plan {
            command: plan.command,
            args: plan.args,
            stdin: plan.stdin,
            cd: &params.cd,
            idle_timeout_ms: plan.idle_timeout_ms,
            max_duration_ms: plan.max_duration_ms,
            max_attempts: plan.max_attempts,
        })
    }

    /// The command was resolved (see [`AgentRunner::launch`]): the command
    /// line is planned again with its launcher for `platform` and `env`; a
    /// line that does not fit ends the call with `invalid_params`.
    pub fn launch(
        &mut self,
        platform: crate::platform::Platform,
        found: &str,
        file: &str,
        prefix: &[String],
        env: Vec<(String, String)>,
    ) {
        if self.outcome.is_some() {
            return;
        }
        let Some((_, runner)) = self.ready.as_mut() else {
            return;
        };
        self.platform = Some(platform);
        runner.launch(platform, found, file, prefix, env);
        if runner.is_over() {
            let message = runner
                .result(0)
                .ok()
                .and_then(|r| r.error.map(|e| e.message))
                .unwrap_or_default();
            let message = message
                .strip_prefix("invalid parameters: ")
                .unwrap_or(&message)
                .to_owned();
            self.outcome = Some(Err(invalid_params(&message)));
        }
    }

    /// `cd` is missing or not a directory: `invalid_params`.
    pub fn reject_cd(&mut self, problem: &CdProblem) {
        let cd = self.params().map_or("", |p| p.cd.as_str());
        let message = match problem {
            CdProblem::Missing => format!("cd does not exist: {cd}"),
            CdProblem::NotADirectory => format!("cd is not a directory: {cd}"),
            CdProblem::Other(code) => format!("cd cannot be used ({code}): {cd}"),
        };
        self.outcome = Some(Err(invalid_params(&message)));
    }

    pub fn start_attempt(&mut self) {
        let Some((params, runner)) = self.ready.as_mut() else {
            return;
        };
        runner.start_attempt();
        self.events = params.return_all_messages.then(Vec::new);
        self.running = true;
        self.attempts += 1;
    }

    pub fn push_stdout(&mut self, chunk: &[u8]) {
        if let (true, Some((_, runner))) = (self.running, self.ready.as_mut()) {
            let events = runner.push_stdout(chunk);
            if let Some(kept) = &mut self.events {
                kept.extend(events);
            }
        }
    }

    pub fn push_stderr(&mut self, chunk: &[u8]) {
        if let (true, Some((_, runner))) = (self.running, self.ready.as_mut()) {
            runner.push_stderr(chunk);
        }
    }

    /// Whether Gemini CLI retried more than `max_retries` times in this
    /// attempt (see [`crate::run::RetryCount`]): the host stops it.
    pub fn over_own_retries(&self) -> bool {
        self.running
            && self
                .ready
                .as_ref()
                .is_some_and(|(_, runner)| runner.over_own_retries())
    }

    /// The attempt's process ended `elapsed_ms` after the call began.
    /// Returns the wait before the next attempt, or `None`: the call is over.
    pub fn end_attempt(&mut self, end: &AttemptEnd, elapsed_ms: u64) -> Option<u64> {
        if !std::mem::take(&mut self.running) {
            return None;
        }
        let (params, runner) = self.ready.as_mut()?;
        // The runner classifies the attempt and decides whether and when to
        // try again (seed 003's schedule, by the kind's retryability); the
        // tool says what it came to in its words, with the runner's kind.
        let wait = runner.end_attempt(end, elapsed_ms);
        let (reply, last_lines, exit_code) = runner.last_report()?;
        let verdict = classify(&Evidence {
            end,
            reply,
            last_lines,
            command: &self.command,
            session_id: params.session_id.as_deref(),
            limits: self.limits,
            platform: self.platform,
        });
        debug_assert_eq!(
            match &verdict {
                Verdict::Success { .. } => None,
                Verdict::Failure(f) => Some(f.kind),
            },
            runner.last_attempt_kind(),
            "the tool's kind is the runner's"
        );
        let report = AttemptReport {
            verdict,
            exit_code,
            last_lines: last_lines.to_vec(),
            events: self.events.take(),
            usage: reply.usage.clone(),
            tool_calls: reply.tool_uses.len(),
        };
        let failure = match &report.verdict {
            Verdict::Success { .. } => None,
            Verdict::Failure(f) => Some(f.clone()),
        };
        self.last = Some(report);
        let Some(failure) = failure else {
            self.outcome = Some(Ok(()));
            return None;
        };
        if wait.is_none() {
            self.outcome = Some(Err(self.with_searched(failure)));
        }
        wait
    }

    /// The command was not found where the host looked (`searched`: its
    /// message listing every place): the call still spawns the name as it
    /// is, and if that finds nothing either, the `command_not_found`
    /// error's summary lists those places.
    pub fn not_found(&mut self, searched: &str) {
        self.searched = Some(searched.to_owned());
    }

    fn with_searched(&self, mut failure: Failure) -> Failure {
        if let (ErrorKind::CommandNotFound, Some(searched)) = (failure.kind, &self.searched) {
            failure.summary = format!("{}. {searched}", failure.summary);
        }
        failure
    }

    /// The caller aborted between attempts (or before the first).
    pub fn abort(&mut self) {
        if let Some((_, runner)) = self.ready.as_mut() {
            runner.abort();
        }
        self.running = false;
        self.events = None;
        self.outcome = Some(Err(aborted()));
    }

    /// Retries started so far.
    pub fn retries(&self) -> u32 {
        self.attempts.saturating_sub(1)
    }

    /// The envelope of the finished call, `duration_ms` after it began.
    pub fn envelope(&self, duration_ms: u64) -> Result<Envelope<'_>> {
        let outcome = self.finished()?;
        let last = self.last.as_ref();
        let params = self.params();
        let extras = Extras {
            all_messages: params
                .filter(|p| p.return_all_messages)
                .map(|_| last.and_then(|r| r.events.as_deref()).unwrap_or(&[])),
            metrics: params
                .filter(|p| p.return_metrics)
                .map(|_| self.metrics(duration_ms)),
        };
        Ok(match outcome {
            Ok(()) => match last.map(|r| &r.verdict) {
                Some(Verdict::Success { session_id, text }) => {
                    success_envelope(session_id.as_deref(), text, duration_ms, extras)
                }
                _ => return Err(internal("a successful call without its report")),
            },
            Err(failure) => {
                let detail = ErrorDetail {
                    exit_code: last.and_then(|r| r.exit_code),
                    last_lines: last.map_or(&[], |r| r.last_lines.as_slice()),
                    limits: self.limits,
                    retries: self.retries(),
                };
                failure_envelope(failure, detail, duration_ms, extras)
            }
        })
    }

    /// Whether `log_metrics` asked for [`Self::metrics_line`].
    pub fn logs_metrics(&self) -> bool {
        self.params().is_some_and(|p| p.log_metrics)
    }

    /// The `log_metrics` line of the finished call.
    pub fn metrics_line(&self, duration_ms: u64) -> Result<String> {
        let outcome = self.finished()?;
        let kind = outcome.as_ref().err().map(|f| f.kind.as_str());
        Ok(metrics_line(
            outcome.is_ok(),
            kind,
            duration_ms,
            &self.metrics(duration_ms),
        ))
    }

    /// The final error kind, `None` on success or while running.
    pub fn error_kind(&self) -> Option<ErrorKind> {
        match &self.outcome {
            Some(Err(f)) => Some(f.kind),
            _ => None,
        }
    }

    fn finished(&self) -> Result<&std::result::Result<(), Failure>> {
        self.outcome
            .as_ref()
            .ok_or_else(|| internal("the envelope was asked for before the call ended"))
    }

    fn metrics(&self, duration_ms: u64) -> Metrics {
        let last = self.last.as_ref();
        Metrics {
            duration_ms,
            attempts: self.attempts,
            retries: self.retries(),
            exit_code: last.and_then(|r| r.exit_code),
            tool_calls: last.map_or(0, |r| r.tool_calls),
            ..Metrics::default()
        }
        .with_usage(last.and_then(|r| r.usage.as_ref()))
    }
}

/// Seed 003's parameters, and the runner they make: Gemini CLI with the
/// prompt, model, session, sandbox and approval mode, timed and retried as
/// the parameters say.
fn plan_runner(params: &Value, command: &str) -> Result<(GeminiToolParams, AgentRunner)> {
    let params = GeminiToolParams::read(params)?;
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
    let mut runner = AgentRunner::new(
        "google-gemini",
        &json!({ "prompt": params.prompt }),
        &options,
        command,
    );
    // The events are kept only for `all_messages`.
    runner.set_events(params.return_all_messages);
    if !runner.is_over() {
        return Ok((params, runner));
    }
    let message = runner
        .result(0)
        .ok()
        .and_then(|r| r.error.map(|e| e.message))
        .unwrap_or_default();
    Err(AgentContextError::invalid(
        message
            .strip_prefix("invalid parameters: ")
            .unwrap_or(&message)
            .to_owned(),
    ))
}

fn invalid_params(message: &str) -> Failure {
    Failure::new(
        ErrorKind::InvalidParams,
        format!("invalid parameters: {message}"),
        message,
    )
}

fn internal(what: &str) -> AgentContextError {
    AgentContextError::new(ErrorCode::Internal, format!("gemini tool: {what}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::invocation::Sandbox;
    use serde_json::json;

    const PLAIN: &[u8] = include_bytes!("../../tests/fixtures/cli/gemini-plain.jsonl");
    const SERVER_ERROR: &str = r#"{"type":"init","session_id":"s1"}
{"type":"result","status":"error","error":{"type":"unknown","message":"[API Error: {\"error\":{\"code\":500,\"message\":\"Mock internal error\"}}]"}}
"#;

    fn envelope(run: &GeminiToolRun, duration_ms: u64) -> Value {
        serde_json::to_value(run.envelope(duration_ms).unwrap()).unwrap()
    }

    fn exited(code: i32) -> AttemptEnd {
        AttemptEnd {
            exit_code: Some(code),
            ..Default::default()
        }
    }

    #[test]
    fn not_found_lists_the_places_searched() {
        let mut run = GeminiToolRun::new(
            &json!({"PROMPT": "x", "cd": "/r", "max_retries": 2}),
            "gemini",
        );
        run.not_found("gemini was not found; looked at:\n  /usr/bin/gemini (PATH)");
        run.start_attempt();
        let end = AttemptEnd::new(None, None, Some("ENOENT".into()), None).unwrap();
        assert_eq!(run.end_attempt(&end, 5), None);
        let e = envelope(&run, 5);
        assert_eq!(e["error_kind"], "command_not_found");
        assert_eq!(e["error_detail"]["message"], "spawn gemini ENOENT");
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
    fn the_plan_is_the_seeds_command_line() {
        let run = GeminiToolRun::new(
            &json!({"PROMPT": "Review src/", "cd": "/repo", "sandbox": "read-only", "SESSION_ID": "abc", "model": "gemini-2.5-flash", "timeout": 5, "max_duration": 60}),
            "/opt/gemini",
        );
        let plan = run.plan().unwrap();
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
        assert_eq!(plan.stdin, "Review src/");
        assert_eq!(plan.cd, "/repo");
        assert_eq!((plan.idle_timeout_ms, plan.max_duration_ms), (5000, 60_000));
        assert_eq!(plan.max_attempts, 2);
        assert!(plan.args.iter().all(|a| !a.contains("Review")));
        let auto = GeminiToolRun::new(&json!({"PROMPT": "x", "cd": "/r", "yolo": false}), "gemini");
        assert_eq!(auto.plan().unwrap().args[4], "--approval-mode=auto_edit");
        assert_eq!(auto.params().unwrap().sandbox, Sandbox::WorkspaceWrite);
    }

    #[test]
    fn bad_parameters_end_the_call_with_invalid_params() {
        let run = GeminiToolRun::new(
            &json!({"PROMPT": "x", "cd": "/w", "timeout": 9, "max_retries": -1}),
            "gemini",
        );
        assert!(run.plan().is_none());
        let e = envelope(&run, 3);
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

        let mut cd = GeminiToolRun::new(&json!({"PROMPT": "x", "cd": "/nope"}), "gemini");
        cd.reject_cd(&CdProblem::Missing);
        assert!(cd.plan().is_none());
        assert_eq!(
            envelope(&cd, 0)["error_detail"]["message"],
            "cd does not exist: /nope"
        );
        let unreadable = GeminiToolRun::unreadable("params could not be read: cycle", "gemini");
        assert_eq!(envelope(&unreadable, 0)["error_kind"], "invalid_params");
    }

    #[test]
    fn success_after_one_retry() {
        let mut run = GeminiToolRun::new(
            &json!({"PROMPT": "x", "cd": "/w", "return_metrics": true}),
            "gemini",
        );
        run.start_attempt();
        run.push_stdout(SERVER_ERROR.as_bytes());
        assert_eq!(run.end_attempt(&exited(244), 2_000), Some(500));
        assert!(run.plan().is_some());
        run.start_attempt();
        run.push_stdout(PLAIN);
        assert_eq!(run.end_attempt(&exited(0), 5_000), None);
        assert!(run.plan().is_none());
        let e = envelope(&run, 5_000);
        assert_eq!(e["success"], true);
        assert_eq!(e["SESSION_ID"], "c93265c3-ff3f-4d07-b32a-67a5ff5c389a");
        assert_eq!(e["result"], "Mock reply: use React for the dashboard.");
        assert_eq!(e["metrics"]["attempts"], 2);
        assert_eq!(e["metrics"]["retries"], 1);
        assert_eq!(e["metrics"]["output_tokens"], 9);
        assert_eq!(run.error_kind(), None);
    }

    #[test]
    fn retries_run_out_and_the_last_attempt_is_reported() {
        let mut run = GeminiToolRun::new(
            &json!({"PROMPT": "x", "cd": "/w", "max_retries": 2, "log_metrics": true, "return_all_messages": true}),
            "gemini",
        );
        let mut waits = Vec::new();
        for _ in 0..3 {
            run.start_attempt();
            run.push_stdout(SERVER_ERROR.as_bytes());
            run.push_stderr(b"Error when talking to Gemini API\n");
            waits.push(run.end_attempt(&exited(244), 1_000));
        }
        assert_eq!(waits, [Some(500), Some(1000), None]);
        let e = envelope(&run, 9_000);
        assert_eq!(e["error_kind"], "upstream_error");
        assert_eq!(e["error_detail"]["retries"], 2);
        assert_eq!(e["error_detail"]["exit_code"], 244);
        assert_eq!(e["error_detail"]["last_lines"].as_array().unwrap().len(), 3);
        assert_eq!(
            e["all_messages"][0],
            json!({"type": "session", "sessionId": "s1"})
        );
        assert!(run.logs_metrics());
        let line = run.metrics_line(9_000).unwrap();
        assert!(line.starts_with(r#"{"tool":"gemini","success":false,"error_kind":"upstream_error","duration":"0m9s","duration_ms":9000,"attempts":3,"retries":2,"exit_code":244"#), "{line}");
    }

    #[test]
    fn never_retried_kinds_and_the_time_budget() {
        let mut run = GeminiToolRun::new(
            &json!({"PROMPT": "x", "cd": "/w", "max_retries": 5}),
            "gemini",
        );
        run.start_attempt();
        let enoent = AttemptEnd {
            spawn_error: Some("ENOENT".into()),
            ..Default::default()
        };
        assert_eq!(run.end_attempt(&enoent, 10), None);
        let e = envelope(&run, 10);
        assert_eq!(e["error_kind"], "command_not_found");
        assert_eq!(e["error_detail"]["retries"], 0);

        // An idle timeout 0.9 s before max_duration: no time for another attempt.
        let mut late = GeminiToolRun::new(
            &json!({"PROMPT": "x", "cd": "/w", "max_duration": 10, "timeout": 2}),
            "gemini",
        );
        late.start_attempt();
        let idle = AttemptEnd {
            stopped: Some(super::super::classify::StopReason::IdleTimeout),
            ..Default::default()
        };
        assert_eq!(late.end_attempt(&idle, 9_100), None);
        assert_eq!(late.error_kind(), Some(ErrorKind::IdleTimeout));
    }

    #[test]
    fn an_abort_between_attempts_keeps_the_last_attempts_details() {
        let mut run = GeminiToolRun::new(&json!({"PROMPT": "x", "cd": "/w"}), "gemini");
        assert!(run.envelope(0).is_err(), "no envelope before the end");
        run.start_attempt();
        run.push_stdout(SERVER_ERROR.as_bytes());
        assert_eq!(run.end_attempt(&exited(244), 100), Some(500));
        run.abort();
        let e = envelope(&run, 300);
        assert_eq!(e["error_kind"], "aborted");
        assert_eq!(e["error_detail"]["exit_code"], 244);
        assert_eq!(e["error_detail"]["retries"], 0);
    }
}
