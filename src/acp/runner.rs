//! One `runAgent(…, { protocol: 'acp' })` call as a state machine the Node
//! runner drives: `plan()` → `launch()` (or `cannot_launch()`) → per
//! attempt `start_attempt()`, `initialize_params()`, `session_request()`
//! with `initialize`'s result, `session_opened()`, `prompt_params()`,
//! answers to the agent's requests (`permission()`, `fs_path()`,
//! `missing_file()`, `unknown_request()`), `push_stdout`/`push_stderr`,
//! `prompt_ended()` or `request_failed()`, then `end_attempt()` (the wait
//! before another attempt, or `None`) → `result()`.
//!
//! ```
//! use agent_context::acp::AcpRunner;
//! use agent_context::gemini_tool::AttemptEnd;
//! use serde_json::json;
//!
//! let mut run = AcpRunner::new("claude-code", &json!({"prompt": "Hi", "systemFlag": "Be brief."}), &json!({"cd": "/w"}), "claude-agent-acp");
//! assert_eq!(run.plan().unwrap().command, "claude-agent-acp");
//! run.start_attempt();
//! let (method, params) = run.session_request(&json!({"agentCapabilities": {}})).unwrap();
//! assert_eq!((method, params["_meta"]["systemPrompt"]["append"].as_str()), ("session/new", Some("Be brief.")));
//! run.session_opened(&json!({"sessionId": "s1"}));
//! assert_eq!(run.prompt_params()["prompt"][0]["text"], "Hi");
//! run.prompt_ended(&json!({"stopReason": "end_turn"}));
//! assert_eq!(run.end_attempt(&AttemptEnd::default(), 10), None);
//! let result = serde_json::to_value(run.result(10).unwrap()).unwrap();
//! assert_eq!((result["success"].clone(), result["sessionId"].clone()), (json!(true), json!("s1")));
//! ```

use serde_json::{json, Map, Value};

use super::fs::inside;
use super::permission::{self, Decision, Policy};
use super::session::{plan_session, SessionStep};
use super::{INVALID_PARAMS, METHOD_NOT_FOUND, PROTOCOL_VERSION, RESOURCE_NOT_FOUND};
use crate::agent_output::{
    parse_agent_output, AgentEvent, AgentOutputParser, AgentReply, Protocol, ReplyError,
    ReplyStatus, TextForm,
};
use crate::agents::{self, AcpLaunch, AcpModel, AgentSpec};
use crate::error::{AgentContextError, Result};
use crate::invocation::Sandbox;
use crate::json_read::Obj;
use crate::platform::limits::{self, CommandLine};
use crate::platform::Platform;
use crate::run::{
    aborted, classify, command_not_found, retry_wait, AgentErrorKind, AgentRun, AttemptEnd,
    Evidence, Failure, LastAttempt, OutputTail, RunOptions, Stream,
};

/// After `session/cancel`, how long the turn may take to end before the
/// process tree is killed.
pub const CANCEL_GRACE_MS: u64 = 5_000;

/// Where a JSON-RPC request failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    Initialize,
    Session,
    Prompt,
}

impl Stage {
    pub fn parse(text: &str) -> Option<Stage> {
        match text {
            "initialize" => Some(Stage::Initialize),
            "session" => Some(Stage::Session),
            "prompt" => Some(Stage::Prompt),
            _ => None,
        }
    }
}

/// What the Node runner spawns and how it times it.
#[derive(Clone, Debug, PartialEq)]
pub struct AcpPlan<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    /// Variables added to the child's environment (the model, for Claude).
    pub env: &'a [(String, String)],
    /// Variables added only when the caller's environment lacks them
    /// (opencode's `OPENCODE_PERMISSION`, so that it asks).
    pub default_env: &'a [(String, String)],
    pub cd: &'a str,
    pub idle_timeout_ms: u64,
    pub max_duration_ms: u64,
    pub max_attempts: u32,
    pub cancel_grace_ms: u64,
    /// False: the agent keeps running after its stdin closes; kill it at
    /// the end of the run.
    pub exits_on_eof: bool,
}

/// One attempt's progress.
#[derive(Debug, Default)]
struct Attempt {
    /// Reads the agent's stdout from the prompt on (a loaded session's
    /// replayed history is not this run's reply).
    parser: Option<AgentOutputParser>,
    tail: OutputTail,
    session_id: Option<String>,
    stop_reason: Option<String>,
    /// A failed request: where, and its `{code, message, data}`.
    failed: Option<(Stage, Value)>,
    /// Decided before the agent was asked (the session cannot be opened).
    decided: Option<Failure>,
    rejected: u32,
    /// The agent advertised `sessionCapabilities.close`.
    can_close: bool,
}

#[derive(Debug)]
struct Report {
    outcome: std::result::Result<(), Failure>,
    reply: AgentReply,
    last_lines: Vec<String>,
    exit_code: Option<i32>,
}

#[derive(Debug)]
pub struct AcpRunner {
    agent_type: String,
    agent: Option<&'static AgentSpec>,
    launch: Option<&'static AcpLaunch>,
    options: Option<RunOptions>,
    prompt: String,
    system: Option<String>,
    command: String,
    args: Vec<String>,
    env: Vec<(String, String)>,
    default_env: Vec<(String, String)>,
    found: Option<String>,
    attempt: Option<Attempt>,
    attempts: u32,
    last: Option<Report>,
    outcome: Option<std::result::Result<(), Failure>>,
    /// Whether the reply parser records events (see [`AcpRunner::set_events`]).
    events: bool,
}

impl AcpRunner {
    /// Reads `request` (`{ prompt, systemFlag? }`) and `options`
    /// (`RunAgentOptions` without `signal`, `onEvent`, `onPermission`,
    /// `env`); `command` overrides the registry's ACP executable when not
    /// empty. A problem ends the call at once with `invalid_params`.
    pub fn new(agent_type: &str, request: &Value, options: &Value, command: &str) -> AcpRunner {
        let agent = agents::find(agent_type);
        let mut run = AcpRunner {
            agent_type: agent_type.to_owned(),
            agent,
            launch: agent.and_then(|a| a.acp.as_ref()),
            options: None,
            prompt: String::new(),
            system: None,
            command: String::new(),
            args: Vec::new(),
            env: Vec::new(),
            default_env: Vec::new(),
            found: None,
            attempt: None,
            attempts: 0,
            last: None,
            outcome: None,
            events: true,
        };
        if let Err(e) = run.read(request, options, command) {
            run.outcome = Some(Err(invalid_params(e.message())));
        }
        run
    }

    fn read(&mut self, request: &Value, options: &Value, command: &str) -> Result<()> {
        let agent = agents::require(&self.agent_type, "to run over ACP")?;
        let launch = agent.acp.as_ref().ok_or_else(|| {
            AgentContextError::invalid(format!("{} cannot be run over ACP", agent.name))
        })?;
        let mut without = options.clone();
        if let Some(map) = without.as_object_mut() {
            match map.remove("protocol") {
                None | Some(Value::Null) => {}
                Some(Value::String(p)) if p == "acp" => {}
                Some(Value::String(p)) => {
                    return Err(AgentContextError::invalid(format!(
                        "options.protocol must be 'cli' or 'acp', got \"{p}\""
                    )))
                }
                Some(other) => {
                    return Err(AgentContextError::invalid(format!(
                        "options.protocol must be 'cli' or 'acp', got {}",
                        crate::json_read::type_name(&other)
                    )))
                }
            }
        }
        let command = if command.is_empty() {
            launch.command
        } else {
            command
        };
        let options = RunOptions::read(&without, command)?;
        if !options.extra_args.is_empty() {
            return Err(AgentContextError::invalid(
                "options.extraArgs is for the CLI protocol; over ACP the agent is started as the registry says",
            ));
        }
        let o = Obj::new(request, "request")?;
        self.prompt = o.req_str("prompt")?.to_owned();
        self.system = o
            .opt_str("systemFlag")?
            .filter(|s| !s.is_empty())
            .map(str::to_owned);
        self.command = command.to_owned();
        self.args = launch.args.iter().map(|a| (*a).to_owned()).collect();
        if let Some(model) = &options.model {
            match launch.model {
                AcpModel::Flag(flag) => self.args.extend([flag.to_owned(), model.clone()]),
                AcpModel::CodexConfig => {
                    self.args.extend(["-c".to_owned(), format!("model={}", toml_string(model))])
                }
                AcpModel::Env(name) => self.env.push((name.to_owned(), model.clone())),
                AcpModel::Config => {
                    return Err(AgentContextError::invalid(format!(
                        "options.model cannot be set for {} over ACP (its own configuration chooses the model)",
                        agent.name
                    )))
                }
            }
        }
        if let Some((name, value)) = launch.ask_env {
            self.default_env.push((name.to_owned(), value.to_owned()));
        }
        self.options = Some(options);
        Ok(())
    }

    /// A call that is over before it started (unreadable input, a bad `cd`).
    pub fn reject(&mut self, message: &str) {
        self.outcome = Some(Err(invalid_params(message)));
    }

    /// The command was resolved: spawn `file` with `prefix` first; the whole
    /// command line is counted against `platform`'s limits with `env`.
    pub fn launch(
        &mut self,
        platform: Platform,
        found: &str,
        file: &str,
        prefix: &[String],
        env: &[(String, String)],
    ) {
        if self.outcome.is_some() {
            return;
        }
        let args: Vec<String> = prefix.iter().chain(&self.args).cloned().collect();
        let line = CommandLine {
            program: file,
            args: &args,
            env,
        };
        if let Err(over) = limits::check(platform, &line) {
            self.reject(&format!(
                "the command line does not fit on {}: {}",
                platform.name(),
                over.message()
            ));
            return;
        }
        self.found = Some(found.to_owned());
        self.command = file.to_owned();
        self.args = args;
    }

    /// See [`crate::run::AgentRunner::cannot_launch`].
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: &str) {
        if self.outcome.is_some() {
            return;
        }
        let (Some(agent), Some(launch)) = (self.agent, self.launch) else {
            return;
        };
        self.outcome = Some(Err(if spawn_failed {
            Failure::new(
                AgentErrorKind::SpawnFailed,
                format!("{} could not be started: {message}", agent.name),
            )
        } else {
            let mut failure = command_not_found(agent, &self.command, message.to_owned());
            if launch.package != agent.cli.package {
                failure.message = failure.message.replace(agent.cli.package, launch.package);
            }
            failure
        }));
    }

    /// What to spawn; `None` once the call is over.
    pub fn plan(&self) -> Option<AcpPlan<'_>> {
        if self.outcome.is_some() {
            return None;
        }
        let options = self.options.as_ref()?;
        Some(AcpPlan {
            command: &self.command,
            args: &self.args,
            env: &self.env,
            default_env: &self.default_env,
            cd: &options.cd,
            idle_timeout_ms: options.idle_timeout_ms,
            max_duration_ms: options.max_duration_ms,
            max_attempts: options.max_retries + 1,
            cancel_grace_ms: CANCEL_GRACE_MS,
            exits_on_eof: self.launch.is_some_and(|l| l.exits_on_eof),
        })
    }

    pub fn start_attempt(&mut self) {
        self.attempt = Some(Attempt::default());
        self.attempts += 1;
    }

    /// `initialize`'s params: protocol 1, `fs` offered, no `terminal`.
    pub fn initialize_params(&self) -> Value {
        json!({
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": {"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false},
            "clientInfo": {"name": "agent-context", "version": env!("CARGO_PKG_VERSION")},
        })
    }

    /// The request that opens the session, from `initialize`'s result; `None`
    /// when the session asked for cannot be opened (the attempt is then
    /// `session_not_found`: end it).
    pub fn session_request(&mut self, initialized: &Value) -> Option<(&'static str, Value)> {
        let (launch, options, agent) = (self.launch?, self.options.as_ref()?, self.agent?);
        let attempt = self.attempt.as_mut()?;
        attempt.can_close = initialized
            .pointer("/agentCapabilities/sessionCapabilities/close")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        let asked = options.session_id.as_deref();
        let step = match plan_session(launch, initialized, asked) {
            Ok(step) => step,
            Err(why) => {
                attempt.decided = Some(Failure::new(
                    AgentErrorKind::SessionNotFound,
                    format!(
                        "{} cannot resume session {} over ACP: {why}",
                        agent.name,
                        asked.unwrap_or_default()
                    ),
                ));
                return None;
            }
        };
        let mut params = Map::new();
        if let Some(id) = asked.filter(|_| step != SessionStep::New) {
            params.insert("sessionId".into(), json!(id));
        }
        params.insert("cwd".into(), json!(options.cd));
        params.insert("mcpServers".into(), json!([]));
        if let (true, Some(system)) = (launch.system_prompt_meta, &self.system) {
            params.insert("_meta".into(), json!({"systemPrompt": {"append": system}}));
        }
        Some((step.method(), Value::Object(params)))
    }

    /// The session request's result: `session/new` names the session;
    /// load and resume keep the one asked for.
    pub fn session_opened(&mut self, result: &Value) {
        let asked = self.options.as_ref().and_then(|o| o.session_id.clone());
        let Some(attempt) = self.attempt.as_mut() else {
            return;
        };
        let given = result
            .get("sessionId")
            .and_then(Value::as_str)
            .map(str::to_owned);
        attempt.session_id = given.or(asked);
    }

    /// `session/set_mode`'s params when the agent's default mode approves
    /// tools by itself and the mode that asks is offered (the session
    /// request's `result.modes`); `None` otherwise.
    pub fn mode_params(&self, opened: &Value) -> Option<Value> {
        let wanted = self.launch?.ask_mode?;
        let modes = opened.get("modes")?;
        if modes.get("currentModeId").and_then(Value::as_str) == Some(wanted) {
            return None;
        }
        let offered = modes
            .get("availableModes")?
            .as_array()?
            .iter()
            .any(|m| m.get("id").and_then(Value::as_str) == Some(wanted));
        let session = self.attempt.as_ref()?.session_id.clone()?;
        offered.then(|| json!({"sessionId": session, "modeId": wanted}))
    }

    /// `session/prompt`'s params: the prompt as one text block, the
    /// instructions first where the agent takes no system prompt. From
    /// here on stdout is the reply.
    pub fn prompt_params(&mut self) -> Value {
        let text = match (&self.system, self.launch) {
            (Some(system), Some(l)) if !l.system_prompt_meta => {
                format!("{system}\n\n{}", self.prompt)
            }
            _ => self.prompt.clone(),
        };
        let agent_type = self.agent_type.clone();
        let Some(attempt) = self.attempt.as_mut() else {
            return Value::Null;
        };
        attempt.parser = reply_parser(&agent_type, self.events);
        json!({
            "sessionId": attempt.session_id,
            "prompt": [{"type": "text", "text": text}],
        })
    }

    /// `session/close`'s params once the turn is over, when the agent
    /// advertised it: an adapter that is killed at the end (Claude's writes
    /// its session to disk after the turn) is asked to finish the session
    /// first, so that it can be resumed. `None` otherwise.
    pub fn close_params(&self) -> Option<Value> {
        let attempt = self.attempt.as_ref()?;
        let id = attempt.session_id.clone()?;
        (attempt.can_close && attempt.stop_reason.is_some()).then(|| json!({ "sessionId": id }))
    }

    /// `session/cancel`'s params (a notification).
    pub fn cancel_params(&self) -> Value {
        let id = self.attempt.as_ref().and_then(|a| a.session_id.clone());
        json!({ "sessionId": id })
    }

    /// The response to `session/request_permission`: `decision` is what
    /// `onPermission` answered (`'allow'`, `'allow_always'`, `'reject'`),
    /// `None` for the policy's. An answer that is none of those is `Err`.
    pub fn permission(&mut self, request: &Value, decision: Option<&str>) -> Result<Value> {
        let decided = match decision {
            None => None,
            Some(text) => Some(Decision::parse(text).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "onPermission must answer 'allow', 'allow_always' or 'reject', got \"{text}\""
                ))
            })?),
        };
        let (policy, cd) = match &self.options {
            Some(o) => (Policy::from_options(o.sandbox, o.yolo), o.cd.as_str()),
            None => (Policy::ReadOnly, ""),
        };
        let (made, response) = permission::answer(request, policy, cd, decided);
        if let (Decision::Reject, Some(a)) = (made, self.attempt.as_mut()) {
            a.rejected += 1;
        }
        Ok(response)
    }

    /// The path an `fs/read_text_file` (`write: false`) or
    /// `fs/write_text_file` (`write: true`) request may use, or the JSON-RPC
    /// error to answer: outside `cd`, or a write under `read-only`.
    pub fn fs_path(&self, params: &Value, write: bool) -> std::result::Result<String, Value> {
        let Some(options) = &self.options else {
            return Err(rpc_error(INVALID_PARAMS, "no run", None));
        };
        let Some(path) = params.get("path").and_then(Value::as_str) else {
            return Err(rpc_error(
                INVALID_PARAMS,
                "params.path must be a string",
                None,
            ));
        };
        let Some(full) = inside(&options.cd, path) else {
            let what = if write { "write" } else { "read" };
            return Err(rpc_error(
                INVALID_PARAMS,
                &format!(
                    "refused to {what} {path}: it is outside the working directory {}",
                    options.cd
                ),
                None,
            ));
        };
        if write && options.sandbox == Some(Sandbox::ReadOnly) {
            return Err(rpc_error(
                INVALID_PARAMS,
                &format!("refused to write {path}: the sandbox is read-only"),
                None,
            ));
        }
        Ok(full)
    }

    /// The answer to a read of `path` that does not exist: empty content for
    /// an agent that creates files that way (Gemini), else `resourceNotFound`.
    pub fn missing_file(&self, path: &str) -> std::result::Result<Value, Value> {
        if self.launch.is_some_and(|l| l.missing_file_is_empty) {
            return Ok(json!({"content": ""}));
        }
        Err(rpc_error(
            RESOURCE_NOT_FOUND,
            "Resource not found",
            Some(json!({"uri": path})),
        ))
    }

    /// The answer to a request this client does not serve: method not found.
    pub fn unknown_request(&self, method: &str) -> Value {
        rpc_error(
            METHOD_NOT_FOUND,
            "Method not found",
            Some(json!({"method": method})),
        )
    }

    /// A chunk of the agent's stdout (the JSON-RPC lines as it printed
    /// them); returns the parser's events it completed.
    pub fn push_stdout(&mut self, chunk: &[u8]) -> Vec<AgentEvent> {
        let Some(attempt) = self.attempt.as_mut() else {
            return Vec::new();
        };
        attempt.tail.push(Stream::Stdout, chunk);
        match attempt.parser.as_mut() {
            Some(parser) => parser.push(chunk),
            None => Vec::new(),
        }
    }

    /// Whether the attempts' prompts from now on report the reply parser's
    /// events from [`push_stdout`](Self::push_stdout) (on by default). Off
    /// when no one reads them: the parser then makes none (no copy of a
    /// tool's state or a text for its event).
    pub fn set_events(&mut self, on: bool) {
        self.events = on;
    }

    pub fn push_stderr(&mut self, chunk: &[u8]) {
        if let Some(attempt) = self.attempt.as_mut() {
            attempt.tail.push(Stream::Stderr, chunk);
        }
    }

    /// `session/prompt` answered: its `stopReason`.
    pub fn prompt_ended(&mut self, response: &Value) {
        if let Some(a) = self.attempt.as_mut() {
            a.stop_reason = Some(
                response
                    .get("stopReason")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
            );
        }
    }

    /// A request failed with JSON-RPC `error` (`{code, message, data}`).
    pub fn request_failed(&mut self, stage: Stage, error: &Value) {
        if let Some(a) = self.attempt.as_mut() {
            a.failed.get_or_insert((stage, error.clone()));
        }
    }

    /// Whether the attempt has its answer (the prompt ended, a request
    /// failed, or the session could not be opened): the process may go.
    pub fn attempt_settled(&self) -> bool {
        self.attempt
            .as_ref()
            .is_some_and(|a| a.stop_reason.is_some() || a.failed.is_some() || a.decided.is_some())
    }

    /// The attempt's process is gone (`end.stopped`: the runner stopped it);
    /// returns the wait before the next attempt, or `None`: the call is over.
    pub fn end_attempt(&mut self, end: &AttemptEnd, elapsed_ms: u64) -> Option<u64> {
        let attempt = self.attempt.take()?;
        let options = self.options.as_ref()?;
        let agent = self.agent?;
        let mut reply = match attempt.parser {
            Some(parser) => parser.finish(),
            None => parse_agent_output(&self.agent_type, b""),
        };
        reply.session_id = attempt.session_id.clone().or(reply.session_id);
        let last_lines = attempt.tail.finish();
        let outcome = judge(
            agent,
            options,
            end,
            &mut reply,
            &last_lines,
            &attempt.stop_reason,
            &attempt.failed,
            attempt.decided,
            attempt.rejected,
            self.found.as_deref().unwrap_or(&self.command),
        );
        let failure = outcome.as_ref().err().cloned();
        self.last = Some(Report {
            outcome,
            reply,
            last_lines,
            exit_code: end.exit_code,
        });
        let Some(failure) = failure else {
            self.outcome = Some(Ok(()));
            return None;
        };
        let wait = retry_wait(
            failure.kind,
            self.attempts.saturating_sub(1),
            options.max_retries,
            options.max_duration_ms.saturating_sub(elapsed_ms),
        );
        if wait.is_none() {
            self.outcome = Some(Err(failure));
        }
        wait
    }

    /// The caller aborted between attempts (or before the first).
    pub fn abort(&mut self) {
        self.attempt = None;
        let name = self.agent.map_or("the agent", |a| a.name);
        self.outcome = Some(Err(aborted(name)));
    }

    /// How the last attempt went, even when a retry follows.
    pub fn last_attempt_kind(&self) -> Option<AgentErrorKind> {
        self.last
            .as_ref()
            .and_then(|r| r.outcome.as_ref().err().map(|f| f.kind))
    }

    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The finished call, `duration_ms` after it began.
    pub fn result(&self, duration_ms: u64) -> Result<AgentRun<'_>> {
        AgentRun::finished(
            &self.agent_type,
            self.outcome.as_ref(),
            self.last.as_ref().map(|r| LastAttempt {
                reply: &r.reply,
                exit_code: r.exit_code,
                last_lines: &r.last_lines,
            }),
            self.options.as_ref().and_then(|o| o.session_id.as_deref()),
            duration_ms,
            self.attempts,
        )
    }
}

/// The parser of the agent's ACP lines (SPEC §12's reply model).
fn reply_parser(agent_type: &str, events: bool) -> Option<AgentOutputParser> {
    Some(AgentOutputParser::for_protocol(
        agent_type,
        Protocol::Acp,
        events,
        TextForm::Utf8,
    ))
}

/// What one attempt came to.
#[allow(clippy::too_many_arguments)]
fn judge(
    agent: &'static AgentSpec,
    options: &RunOptions,
    end: &AttemptEnd,
    reply: &mut AgentReply,
    last_lines: &[String],
    stop_reason: &Option<String>,
    failed: &Option<(Stage, Value)>,
    decided: Option<Failure>,
    rejected: u32,
    command: &str,
) -> std::result::Result<(), Failure> {
    let name = agent.name;
    let asked = options.session_id.as_deref();
    // Stopped by the runner, or never started: the CLI runner's words.
    if end.stopped.is_some() || end.spawn_error.is_some() {
        return classify(&evidence(agent, options, end, reply, last_lines, command));
    }
    if let Some(failure) = decided {
        return Err(failure);
    }
    if let Some((stage, error)) = failed {
        let message = error_text(error);
        reply.status = ReplyStatus::Error;
        // The parser read the error response of the prompt; a request
        // before it (initialize, the session) it did not see.
        let seen = reply
            .errors
            .iter()
            .any(|e| e.fatal && message.contains(&e.message));
        if !seen {
            reply.errors.push(ReplyError {
                message: message.clone(),
                fatal: true,
                source: "jsonrpc".to_owned(),
                code: None,
            });
        }
        if *stage == Stage::Session {
            if let Some(asked) = asked {
                return Err(Failure::new(
                    AgentErrorKind::SessionNotFound,
                    format!("{name} cannot resume session {asked}: {message}"),
                ));
            }
        }
        // As the CLI runner reads a failed run: the HTTP status, the words.
        let failed_end = AttemptEnd {
            exit_code: Some(1),
            ..end.clone()
        };
        if let Some(failure) = by_status(name, reply) {
            return Err(failure);
        }
        let ev = evidence(agent, options, &failed_end, reply, last_lines, command);
        let failure = classify(&ev).err().unwrap_or_else(|| {
            Failure::new(
                AgentErrorKind::ProcessError,
                format!("{name} failed: {message}"),
            )
        });
        return Err(failure);
    }
    let Some(stop) = stop_reason else {
        reply.status = ReplyStatus::Incomplete;
        let ev = evidence(agent, options, end, reply, last_lines, command);
        return Err(classify(&ev).err().unwrap_or_else(|| {
            Failure::new(
                AgentErrorKind::Incomplete,
                format!("{name} ended without answering the prompt"),
            )
        }));
    };
    if let (Some(asked), Some(got)) = (asked, reply.session_id.as_deref()) {
        if asked != got {
            return Err(Failure::new(
                AgentErrorKind::SessionNotFound,
                format!("{name} did not resume session {asked}: it answered in session {got}"),
            ));
        }
    }
    let fail = |kind: AgentErrorKind, what: String| Err(Failure::new(kind, what));
    match stop.as_str() {
        // A turn that ended normally after the agent reported a fatal
        // error as its message (the parser's errors) failed.
        "end_turn" if reply.errors.iter().any(|e| e.fatal) => {
            reply.status = ReplyStatus::Error;
            let failed_end = AttemptEnd {
                exit_code: Some(1),
                ..end.clone()
            };
            if let Some(failure) = by_status(name, reply) {
                return Err(failure);
            }
            let ev = evidence(agent, options, &failed_end, reply, last_lines, command);
            Err(classify(&ev).err().unwrap_or_else(|| {
                Failure::new(
                    AgentErrorKind::ProcessError,
                    format!("{name} reported an error"),
                )
            }))
        }
        "end_turn" => {
            reply.status = ReplyStatus::Success;
            Ok(())
        }
        "cancelled" => {
            reply.status = ReplyStatus::Incomplete;
            let why = if rejected > 0 {
                format!(" after {rejected} permission request(s) were rejected")
            } else {
                String::new()
            };
            fail(
                AgentErrorKind::Incomplete,
                format!("{name} ended the turn cancelled{why}"),
            )
        }
        "refusal" => {
            reply.status = ReplyStatus::Error;
            fail(
                AgentErrorKind::RequestRejected,
                format!("{name}: the model refused to answer (stopReason refusal)"),
            )
        }
        other => {
            reply.status = ReplyStatus::Incomplete;
            fail(
                AgentErrorKind::Incomplete,
                format!("{name} stopped before the end of its turn (stopReason {other})"),
            )
        }
    }
}

/// The kind of the HTTP status the parser read from the agent's error (a
/// 400 that says why, such as a bad key, is left to the classifier's words).
fn by_status(name: &str, reply: &AgentReply) -> Option<Failure> {
    let status = u16::try_from(reply.api_error_status?).ok()?;
    let kind = AgentErrorKind::from_http_status(status);
    if kind == AgentErrorKind::RequestRejected {
        return None;
    }
    let said = reply
        .errors
        .iter()
        .rev()
        .find(|e| e.fatal)
        .map_or("", |e| e.message.as_str());
    Some(Failure::new(
        kind,
        format!("{name}: the API answered HTTP {status}: {said}"),
    ))
}

fn evidence<'a>(
    agent: &'static AgentSpec,
    options: &'a RunOptions,
    end: &'a AttemptEnd,
    reply: &'a AgentReply,
    last_lines: &'a [String],
    command: &'a str,
) -> Evidence<'a> {
    Evidence {
        agent,
        end,
        reply,
        last_lines,
        command,
        requested_session: None,
        idle_timeout_s: options.idle_timeout_ms / 1000,
        max_duration_s: options.max_duration_ms / 1000,
        platform: options.platform,
    }
}

/// A JSON-RPC error's words: its message, and `data`'s (`details`, or the
/// whole of it) when it says more.
fn error_text(error: &Value) -> String {
    let message = error
        .get("message")
        .and_then(Value::as_str)
        .unwrap_or("JSON-RPC error");
    let data = match error.get("data") {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v
            .get("details")
            .and_then(Value::as_str)
            .map(str::to_owned)
            .unwrap_or_else(|| v.to_string()),
    };
    if data.is_empty() || message.contains(&data) {
        message.to_owned()
    } else {
        format!("{message}: {data}")
    }
}

fn rpc_error(code: i64, message: &str, data: Option<Value>) -> Value {
    let mut e = json!({"code": code, "message": message});
    if let Some(d) = data {
        e["data"] = d;
    }
    e
}

/// `value` as a TOML basic string (Codex's `-c key=value` reads TOML).
fn toml_string(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn invalid_params(message: &str) -> Failure {
    Failure::new(
        AgentErrorKind::InvalidParams,
        format!("invalid parameters: {message}"),
    )
}
