//! One `runAgent` call as a state machine the Node runner drives: it reads
//! the request and options and plans the command line, takes each
//! attempt's output and end, decides whether and when to try again, and
//! writes the [`AgentRun`]. The runner only spawns, writes stdin, times and
//! kills.
//!
//! ```
//! use agent_context::gemini_tool::AttemptEnd;
//! use agent_context::run::AgentRunner;
//! use serde_json::json;
//!
//! let mut run = AgentRunner::new("openai-codex", &json!({"prompt": "Hi"}), &json!({"cd": "/w"}), "codex");
//! let plan = run.plan().unwrap();
//! assert_eq!(plan.args, ["exec", "--json", "--skip-git-repo-check", "-"]);
//! run.start_attempt();
//! run.push_stdout(b"{\"type\":\"thread.started\",\"thread_id\":\"t1\"}\n{\"type\":\"item.completed\",\"item\":{\"id\":\"i\",\"type\":\"agent_message\",\"text\":\"Hello\"}}\n{\"type\":\"turn.completed\"}\n");
//! assert_eq!(run.end_attempt(&AttemptEnd { exit_code: Some(0), ..Default::default() }, 900), None);
//! let result = serde_json::to_value(run.result(900).unwrap()).unwrap();
//! assert_eq!((result["success"].clone(), result["reply"]["text"].clone()), (json!(true), json!("Hello")));
//! ```

use serde_json::Value;

use super::attempt_end::{AttemptEnd, StopReason};
use super::backoff::{backoff_ms, MIN_ATTEMPT_MS};
use crate::agent_output::{AgentEvent, AgentReply, TextForm};
use crate::agents::{self, AgentSpec};
use crate::endpoint::Protocol;
use crate::error::{AgentContextError, Result};
use crate::invocation::{build_cli_invocation, CliInvocation, InvocationOutput};
use crate::json_read::Obj;
use crate::output::AssemblerOutput;
use crate::platform::limits::{self, CommandLine};
use crate::platform::Platform;

use super::attempt::RunAttempt;
use super::classify::{aborted, classify, command_not_found, Evidence, Failure};
use super::options::RunOptions;
use super::result::{AgentRun, LastAttempt};
use crate::error_kind::AgentErrorKind;

/// What the runner spawns and how it times it.
#[derive(Clone, Debug, PartialEq)]
pub struct RunPlan<'a> {
    pub command: &'a str,
    pub args: &'a [String],
    /// Written to the child's stdin, which is then closed.
    pub stdin: &'a str,
    /// Files to write before spawning and remove after (Claude's long
    /// system prompt).
    pub files: &'a [crate::invocation::InvocationFile],
    /// Files the agent writes for the reply (Copilot's usage file): made
    /// absent before each attempt, read after it ([`AgentRunner::push_output`])
    /// and removed.
    pub outputs: &'a [InvocationOutput],
    pub cd: &'a str,
    pub idle_timeout_ms: u64,
    pub max_duration_ms: u64,
    pub max_attempts: u32,
    /// Variables added to the child's environment (the agent's own retries
    /// bounded, see [`super::own_retry_config`]).
    pub env: &'a [(String, String)],
    /// The run's home for the agent, made before spawning
    /// (`crate::run_home`).
    pub home: Option<&'a crate::run_home::HomeRequest>,
}

/// One finished attempt.
#[derive(Debug)]
struct Report {
    outcome: std::result::Result<(), Failure>,
    reply: AgentReply,
    /// The reply's text as UTF-16 units, when kept so (`reply.text` empty).
    units: Vec<u16>,
    last_lines: Vec<String>,
    exit_code: Option<i32>,
}

#[derive(Debug)]
pub struct AgentRunner {
    agent_type: String,
    agent: Option<&'static AgentSpec>,
    /// `None` when the request or the options failed the check.
    ready: Option<(RunOptions, CliInvocation)>,
    requested_session: Option<String>,
    attempt: Option<RunAttempt>,
    /// The agent's own retries seen in this attempt.
    retry_count: Option<super::RetryCount>,
    attempts: u32,
    last: Option<Report>,
    /// Set once the call is over.
    outcome: Option<std::result::Result<(), Failure>>,
    /// The file found for the command (named in messages), once launched.
    found: Option<String>,
    /// The request read, kept to plan the command line again at launch.
    output: Option<AssemblerOutput>,
    /// Whether `push_stdout` returns the parser's events (default true).
    events: bool,
    /// Whether the reply's text is kept as UTF-16 units while events are off.
    utf16_text: bool,
    /// Variables the run adds to the child's environment, once launched.
    added_env: Vec<(String, String)>,
}

impl AgentRunner {
    /// Reads `request` (an `AssemblerOutput`: `{ prompt, systemFlag? }`)
    /// and `options`; a problem ends the call at once with `invalid_params`.
    /// `command` is the executable the runner will spawn.
    pub fn new(agent_type: &str, request: &Value, options: &Value, command: &str) -> AgentRunner {
        AgentRunner::new_on(None, agent_type, request, options, command)
    }

    /// [`AgentRunner::new`] for a command line that will run on `platform`
    /// (its limits counted from the start; default Linux).
    pub fn new_on(
        platform: Option<Platform>,
        agent_type: &str,
        request: &Value,
        options: &Value,
        command: &str,
    ) -> AgentRunner {
        let mut run = AgentRunner {
            agent_type: agent_type.to_owned(),
            agent: agents::find(agent_type),
            ready: None,
            requested_session: None,
            attempt: None,
            retry_count: None,
            attempts: 0,
            last: None,
            outcome: None,
            found: None,
            output: None,
            events: true,
            utf16_text: false,
            added_env: Vec::new(),
        };
        match plan(agent_type, request, options, command, platform) {
            Ok((options, output, invocation)) => {
                run.output = Some(output);
                run.requested_session = options.session_id.clone();
                run.ready = Some((options, invocation));
            }
            Err(e) => run.outcome = Some(Err(invalid_params(e.message()))),
        }
        run
    }

    /// A call that is over before it started (unreadable input, a bad `cd`).
    pub fn reject(&mut self, message: &str) {
        self.outcome = Some(Err(invalid_params(message)));
    }

    /// The command was resolved: spawn `file` with `prefix` before the
    /// agent's arguments, with `env` (the child's whole environment, the
    /// launcher's variables included). The command line is planned again
    /// for `platform` with that environment, and the whole line, launcher
    /// included, is counted against its limits: what does not fit ends the
    /// call with `invalid_params` naming the limit, before anything runs.
    /// `found` is the file found (the shim, the script), named in messages.
    pub fn launch(
        &mut self,
        platform: Platform,
        found: &str,
        file: &str,
        prefix: &[String],
        env: Vec<(String, String)>,
    ) {
        if self.outcome.is_some() {
            return;
        }
        let Some((options, _)) = self.ready.as_mut() else {
            return;
        };
        options.platform = Some(platform);
        // The agent's own retries bounded by maxRetries, unless the caller's
        // environment already says; counted with the rest of the environment.
        let own = match self.agent {
            Some(agent) => super::own_retry_config(
                agent,
                options.max_retries,
                options.settings_file.as_deref(),
                &env,
            ),
            None => Default::default(),
        };
        // The endpoint's variables replace the caller's.
        let mut added = own.env;
        crate::endpoint::merge_env(&mut added, options.endpoint_env());
        let mut env = env;
        crate::endpoint::merge_env(&mut env, added.clone());
        // The MCP servers where the CLI takes them from its environment
        // (the flags are planned with the rest), merged into what is set
        // now (opencode's configuration variable may hold the endpoint's
        // provider already).
        let mcp = match self.agent {
            Some(agent) => crate::mcp_servers::cli::cli_env(agent, &options.mcp_servers, &env),
            None => Ok(Vec::new()),
        };
        let mcp = match mcp {
            Ok(mcp) => mcp,
            Err(e) => {
                self.outcome = Some(Err(invalid_params(e.message())));
                return;
            }
        };
        crate::endpoint::merge_env(&mut env, mcp.clone());
        crate::endpoint::merge_env(&mut added, mcp);
        options.env = Some(env);
        let mut files: Vec<_> = own.file.into_iter().collect();
        files.extend(options.endpoint_files());
        let (Some(output), Some((options, _))) = (&self.output, self.ready.as_ref()) else {
            return;
        };
        match launched(&self.agent_type, output, options, file, prefix) {
            Ok(mut invocation) => {
                self.found = Some(found.to_owned());
                invocation.files.extend(files);
                invocation.files = crate::endpoint::merge_json_files(invocation.files);
                self.added_env = added;
                if let Some(ready) = self.ready.as_mut() {
                    ready.1 = invocation;
                }
            }
            Err(e) => self.outcome = Some(Err(invalid_params(e.message()))),
        }
    }

    /// The command could not be resolved: `command_not_found` (`message`
    /// lists every place searched) or `spawn_failed` (found, but only
    /// cmd.exe could run it). Nothing was spawned.
    pub fn cannot_launch(&mut self, spawn_failed: bool, message: &str) {
        if self.outcome.is_some() {
            return;
        }
        let (Some(agent), Some((options, _))) = (self.agent, self.ready.as_ref()) else {
            return;
        };
        self.outcome = Some(Err(if spawn_failed {
            Failure::new(
                AgentErrorKind::SpawnFailed,
                format!("{} could not be started: {message}", agent.name),
            )
        } else {
            command_not_found(agent, &options.command, message.to_owned())
        }));
    }

    /// What to spawn; `None` once the call is over or decided.
    pub fn plan(&self) -> Option<RunPlan<'_>> {
        if self.outcome.is_some() {
            return None;
        }
        let (options, invocation) = self.ready.as_ref()?;
        Some(RunPlan {
            command: &invocation.command,
            args: &invocation.args,
            stdin: &invocation.stdin,
            files: &invocation.files,
            outputs: &invocation.outputs,
            cd: &options.cd,
            idle_timeout_ms: options.idle_timeout_ms,
            max_duration_ms: options.max_duration_ms,
            home: options.home.as_ref(),
            max_attempts: options.max_retries + 1,
            env: &self.added_env,
        })
    }

    pub fn start_attempt(&mut self) {
        let form = if self.utf16_text && !self.events {
            TextForm::Utf16
        } else {
            TextForm::Utf8
        };
        self.attempt = Some(RunAttempt::new(&self.agent_type, self.events, form));
        self.retry_count = match (self.agent, self.ready.as_ref()) {
            (Some(agent), Some((options, _))) => {
                Some(super::RetryCount::new(agent.signs, options.max_retries))
            }
            _ => None,
        };
        self.attempts += 1;
    }

    /// Whether the attempts from now on report the parser's events from
    /// `push_stdout` (on by default). Off when no one reads them: an event
    /// carries a copy of its text, which a long stream pays for.
    pub fn set_events(&mut self, on: bool) {
        self.events = on;
    }

    /// Keep the reply's text as UTF-16 code units (while events are off):
    /// a JS host then makes its string with a copy, not by decoding UTF-8
    /// (see [`result_parts`](Self::result_parts)).
    pub fn set_utf16_text(&mut self, on: bool) {
        self.utf16_text = on;
    }

    /// A chunk of stdout; returns the parser's events it completed (none
    /// when [`set_events`](Self::set_events) turned them off).
    pub fn push_stdout(&mut self, chunk: &[u8]) -> Vec<AgentEvent> {
        match &mut self.attempt {
            Some(attempt) => {
                if let Some(count) = self.retry_count.as_mut() {
                    count.push(false, chunk);
                }
                attempt.push_stdout(chunk)
            }
            None => Vec::new(),
        }
    }

    /// Whether `chunk` (of stdout or stderr) is progress, which restarts
    /// the idle timeout: an agent's retry chatter is not
    /// ([`super::signs::is_progress`]).
    pub fn is_progress(&self, chunk: &[u8]) -> bool {
        self.agent
            .map_or(true, |agent| super::signs::is_progress(agent.signs, chunk))
    }

    pub fn push_stderr(&mut self, chunk: &[u8]) {
        if let Some(attempt) = &mut self.attempt {
            attempt.push_stderr(chunk);
            if let Some(count) = self.retry_count.as_mut() {
                count.push(true, chunk);
            }
        }
    }

    /// Whether the agent has retried a failed API call more than
    /// `maxRetries` times in this attempt ([`super::RetryCount`], read from
    /// stdout and stderr): the host then stops the process with
    /// `'own_retries'`.
    pub fn over_own_retries(&self) -> bool {
        self.attempt.is_some()
            && self
                .retry_count
                .as_ref()
                .is_some_and(|c| c.exceeded().is_some())
    }

    /// The content of the plan's output file at `path`, read once the
    /// attempt's process ended (before [`AgentRunner::end_attempt`]); merged
    /// into the attempt's reply. Returns whether `path` is one of the plan's
    /// outputs (anything else is ignored).
    pub fn push_output(&mut self, path: &str, content: String) -> bool {
        let Some((_, invocation)) = self.ready.as_ref() else {
            return false;
        };
        let Some(output) = invocation.outputs.iter().find(|o| o.path == path) else {
            return false;
        };
        match &mut self.attempt {
            Some(attempt) => {
                attempt.push_output(output.kind, content);
                true
            }
            None => false,
        }
    }

    /// The attempt's process ended `elapsed_ms` after the call began.
    /// Returns the wait before the next attempt, or `None`: the call is over.
    pub fn end_attempt(&mut self, end: &AttemptEnd, elapsed_ms: u64) -> Option<u64> {
        let attempt = self.attempt.take()?;
        let (options, invocation) = self.ready.as_ref()?;
        let agent = self.agent?;
        let (reply, units, last_lines) = attempt.finish();
        let mut end = end.clone();
        if let Some(StopReason::OwnRetries(_)) = end.stopped {
            // What the count saw: the host only said it stopped for it.
            let over = self
                .retry_count
                .as_ref()
                .and_then(super::RetryCount::exceeded);
            end.stopped = Some(StopReason::OwnRetries(over));
        }
        let end = &end;
        let outcome = classify(&Evidence {
            agent,
            end,
            reply: &reply,
            last_lines: &last_lines,
            command: self.found.as_deref().unwrap_or(&invocation.command),
            requested_session: options.session_id.as_deref(),
            idle_timeout_s: options.idle_timeout_ms / 1000,
            max_duration_s: options.max_duration_ms / 1000,
            platform: options.platform,
        });
        let failure = outcome.as_ref().err().cloned();
        let (max_retries, max_ms) = (options.max_retries, options.max_duration_ms);
        self.last = Some(Report {
            outcome,
            reply,
            units,
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
            max_retries,
            max_ms.saturating_sub(elapsed_ms),
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

    /// Whether the call is over.
    pub fn is_over(&self) -> bool {
        self.outcome.is_some()
    }

    /// The finished call, `duration_ms` after it began.
    pub fn result(&self, duration_ms: u64) -> Result<AgentRun<'_>> {
        let (mut run, units) = self.result_parts(duration_ms)?;
        if !units.is_empty() {
            run.reply.to_mut().text = String::from_utf16_lossy(units);
        }
        Ok(run)
    }

    /// [`result`](Self::result) with the reply's text apart when it was
    /// kept as UTF-16 units (then `reply.text` is empty and the units hold
    /// it; otherwise the units are empty).
    pub fn result_parts(&self, duration_ms: u64) -> Result<(AgentRun<'_>, &[u16])> {
        let last = self.last.as_ref();
        let run = AgentRun::finished(
            &self.agent_type,
            self.outcome.as_ref(),
            last.map(|r| LastAttempt {
                reply: &r.reply,
                exit_code: r.exit_code,
                last_lines: &r.last_lines,
            }),
            self.requested_session.as_deref(),
            duration_ms,
            self.attempts,
        )?;
        Ok((run, last.map_or(&[][..], |r| r.units.as_slice())))
    }

    /// The final error kind; `None` on success or while running.
    pub fn error_kind(&self) -> Option<AgentErrorKind> {
        match &self.outcome {
            Some(Err(f)) => Some(f.kind),
            _ => None,
        }
    }

    /// The last finished attempt's reply, last lines and exit code (a layer
    /// such as the Gemini tool writes its own report from them).
    pub fn last_report(&self) -> Option<(&AgentReply, &[String], Option<i32>)> {
        self.last
            .as_ref()
            .map(|r| (&r.reply, r.last_lines.as_slice(), r.exit_code))
    }

    /// How the last attempt went, even when a retry follows.
    pub fn last_attempt_kind(&self) -> Option<AgentErrorKind> {
        self.last
            .as_ref()
            .and_then(|r| r.outcome.as_ref().err().map(|f| f.kind))
    }
}

/// Seed 003's retry rule: a retryable kind, retries left, and time left for
/// the wait and a useful attempt within `maxDuration`.
pub fn retry_wait(
    kind: AgentErrorKind,
    retries_done: u32,
    max_retries: u32,
    remaining_ms: u64,
) -> Option<u64> {
    if !kind.is_retryable() || retries_done >= max_retries {
        return None;
    }
    let wait = backoff_ms(retries_done);
    (remaining_ms >= wait + MIN_ATTEMPT_MS).then_some(wait)
}

fn plan(
    agent_type: &str,
    request: &Value,
    options: &Value,
    command: &str,
    platform: Option<Platform>,
) -> Result<(RunOptions, AssemblerOutput, CliInvocation)> {
    let agent = agents::require(agent_type, "to run")?;
    agent.cli("a run over the command line (protocol 'cli')")?;
    let mut options = RunOptions::read(options, command)?;
    options.platform = platform;
    options.apply_endpoint(agent, Protocol::Cli)?;
    options.apply_home(agent, Protocol::Cli)?;
    // The endpoint's arguments (Codex's provider overrides) before the caller's.
    let mut args = options.endpoint_args();
    args.append(&mut options.extra_args);
    options.extra_args = args;
    let o = Obj::new(request, "request")?;
    let output = AssemblerOutput {
        prompt: o.req_str("prompt")?.to_owned(),
        system_flag: o.opt_str("systemFlag")?.map(str::to_owned),
    };
    let invocation = build_cli_invocation(agent_type, &output, &options.invocation())?;
    Ok((options, output, invocation))
}

/// The command line with its launcher: `file`, then `prefix` (a script an
/// interpreter runs), then the agent's arguments; the whole of it counted
/// against the platform's limits with the child's environment.
fn launched(
    agent_type: &str,
    output: &AssemblerOutput,
    options: &RunOptions,
    file: &str,
    prefix: &[String],
) -> Result<CliInvocation> {
    let invocation = build_cli_invocation(agent_type, output, &options.invocation())?;
    let platform = options.platform.unwrap_or_default();
    let args: Vec<String> = prefix.iter().chain(&invocation.args).cloned().collect();
    let line = CommandLine {
        program: file,
        args: &args,
        env: options.env.as_deref().unwrap_or(&[]),
    };
    if let Err(over) = limits::check(platform, &line) {
        return Err(AgentContextError::invalid(format!(
            "the command line does not fit on {}: {} (the prompt travels on stdin; shorten the options)",
            platform.name(),
            over.message()
        )));
    }
    Ok(CliInvocation {
        command: file.to_owned(),
        args,
        ..invocation
    })
}

fn invalid_params(message: &str) -> Failure {
    Failure::new(
        AgentErrorKind::InvalidParams,
        format!("invalid parameters: {message}"),
    )
}
