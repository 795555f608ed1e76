//! Tests' driver of a run (`runAgent` over the CLI, the Gemini tool) on
//! the CLI session engine: the engine opened for one prompt and fed an
//! attempt at a time — what the process printed, how it ended — against a
//! fake clock, as `js/host/engine-host.cjs` feeds it. No process, no I/O.

use serde_json::{json, Value};

use super::CliSessionConfig;
use crate::attempt::{AgentErrorKind, AttemptEnd, StopReason};
use crate::engine::Engine;
use crate::engine::{Action, Outcome, TurnLimits, TurnResult};
use crate::error::{AgentContextError, ErrorCode, Result};
use crate::launch::invocation::{CliInvocation, InvocationFile, InvocationOutput};
use crate::launch::platform::Platform;
use crate::prompt::output::AssemblerOutput;

/// What the first process of the run is started with.
#[derive(Debug)]
pub struct RunPlan {
    pub command: String,
    pub args: Vec<String>,
    pub files: Vec<InvocationFile>,
    pub outputs: Vec<InvocationOutput>,
    pub max_attempts: u32,
}

/// One run, driven an attempt at a time.
pub struct ScriptedRun {
    agent_type: String,
    engine: Option<Engine>,
    /// The input refused before the engine was made.
    refused: Option<TurnResult>,
    prompt: String,
    op: Option<u64>,
    /// The process was asked for and not yet reported started.
    spawning: bool,
    now: u64,
    retry_at: Option<u64>,
    result: Option<TurnResult>,
    /// Every action seen.
    pub actions: Vec<Action>,
}

impl ScriptedRun {
    /// `request`: `{ prompt, systemFlag? }`; `options`: RunAgentOptions.
    /// Bad input makes a run that is over (`invalid_params`).
    pub fn new(agent_type: &str, request: &Value, options: &Value, command: &str) -> ScriptedRun {
        let read = read_request(request).and_then(|output| {
            CliSessionConfig::read_run(&json!(agent_type), &output, options, command)
                .map(|cfg| (cfg, output.prompt))
        });
        let mut run = ScriptedRun {
            agent_type: agent_type.to_owned(),
            engine: None,
            refused: None,
            prompt: String::new(),
            op: None,
            spawning: false,
            now: 0,
            retry_at: None,
            result: None,
            actions: Vec::new(),
        };
        match read {
            Ok((cfg, prompt)) => {
                run.engine = Some(Engine::cli(cfg));
                run.prompt = prompt;
            }
            Err(e) => {
                let failure = crate::attempt::Failure::new(
                    AgentErrorKind::InvalidParams,
                    format!("invalid parameters: {}", e.message()),
                );
                run.refused = Some(TurnResult::new(
                    agent_type,
                    Err(failure),
                    crate::agent_output::parse_agent_output(agent_type, b""),
                    None,
                    None,
                    Vec::new(),
                    None,
                    0,
                ));
            }
        }
        run
    }

    /// Each attempt keeps its events for the result (the Gemini tool's
    /// `all_messages`).
    pub fn keep_events(&mut self) {
        if let crate::engine::Config::Cli(cfg) = &mut self.engine().cfg {
            cfg.keep_events = true;
        }
    }

    pub fn engine(&mut self) -> &mut Engine {
        self.engine.as_mut().expect("a run whose input was read")
    }

    /// Whether the run is over (or decided before anything ran).
    pub fn is_over(&self) -> bool {
        self.refused.is_some()
            || self.result.is_some()
            || self.engine.as_ref().is_some_and(|e| e.broken.is_some())
    }

    /// What the first process is started with; `None` once the run is
    /// over or cannot start.
    pub fn plan(&self) -> Option<RunPlan> {
        if self.is_over() {
            return None;
        }
        let e = self.engine.as_ref()?;
        let cfg = e.cli_config()?;
        let inv: CliInvocation = cfg
            .invocation(
                cfg.options.session_id.as_deref(),
                cfg.options.model.as_deref(),
                Some(&self.prompt),
            )
            .ok()?;
        Some(RunPlan {
            command: inv.command,
            args: inv.args,
            files: inv.files,
            outputs: inv.outputs,
            max_attempts: cfg.options.max_retries + 1,
        })
    }

    pub fn launch(
        &mut self,
        platform: Platform,
        found: &str,
        file: &str,
        prefix: &[String],
        env: Vec<(String, String)>,
    ) {
        let now = self.now;
        if let Some(e) = self.engine.as_mut() {
            e.launch(
                crate::engine::Resolved {
                    platform,
                    found: found.into(),
                    file: file.into(),
                    prefix: prefix.to_vec(),
                    env,
                },
                now,
            );
        }
    }

    pub fn cannot_launch(&mut self, spawn_failed: bool, message: &str) {
        let now = self.now;
        if let Some(e) = self.engine.as_mut() {
            e.cannot_launch(spawn_failed, message, now);
        }
    }

    pub fn reject(&mut self, message: &str) {
        let now = self.now;
        if let Some(e) = self.engine.as_mut() {
            e.reject(message, now);
        }
    }

    /// The next attempt: the prompt sent (first), or the wait before a
    /// retry over; the process asked for.
    pub fn start_attempt(&mut self) {
        if self.refused.is_some() || self.result.is_some() {
            return;
        }
        match self.op {
            None => {
                let cfg = self.engine().cli_config().unwrap();
                let limits = TurnLimits {
                    idle_ms: cfg.options.idle_timeout_ms,
                    max_ms: cfg.options.max_duration_ms,
                    max_retries: cfg.options.max_retries,
                    events: true,
                };
                let (text, now) = (self.prompt.clone(), self.now);
                let op = self
                    .engine()
                    .prompt(json!([{"type": "text", "text": text}]), limits, now);
                self.op = Some(op);
            }
            Some(_) => {
                let at = self.retry_at.take().expect("a retry was due");
                self.now = self.now.max(at);
                let now = self.now;
                self.engine().timeout(now);
            }
        }
        let seen = self.drain();
        self.spawning = seen.iter().any(|a| matches!(a, Action::Spawn { .. }));
    }

    fn up(&mut self) {
        if std::mem::take(&mut self.spawning) {
            let now = self.now;
            self.engine().spawned(now);
            self.drain();
        }
    }

    /// A chunk of stdout; the events it completed.
    pub fn push_stdout(&mut self, chunk: &[u8]) -> Vec<crate::agent_output::AgentEvent> {
        if chunk.is_empty() {
            return Vec::new(); // nothing printed: it may not have started
        }
        self.up();
        let now = self.now;
        self.engine().stdout(chunk, now);
        self.drain()
            .into_iter()
            .filter_map(|a| match a {
                Action::Event { event, .. } => Some(event),
                _ => None,
            })
            .collect()
    }

    pub fn push_stderr(&mut self, chunk: &[u8]) {
        if chunk.is_empty() {
            return;
        }
        self.up();
        let now = self.now;
        self.engine().stderr(chunk, now);
        self.drain();
    }

    /// What the host read of the file the agent tells of its retries in.
    pub fn push_retry_log(&mut self, chunk: &[u8]) {
        self.up();
        let now = self.now;
        self.engine().retry_log(chunk, now);
        self.drain();
    }

    /// The file the first process's spawn asks the host to read while it
    /// runs.
    pub fn retry_log(&self) -> Option<crate::attempt::LogWatch> {
        self.engine
            .as_ref()?
            .cli_config()
            .unwrap()
            .own_retries
            .log
            .clone()
    }

    /// What the process wrote to its output file at `path`; whether it is
    /// one of the attempt's.
    pub fn push_output(&mut self, path: &str, content: String) -> bool {
        self.up();
        self.engine().output(path, content)
    }

    /// How the last attempt went while a retry follows.
    pub fn last_attempt_kind(&self) -> Option<AgentErrorKind> {
        self.engine
            .as_ref()
            .and_then(|e| e.sessions[0].turn.as_ref())
            .and_then(|t| t.last.as_ref())
            .and_then(TurnResult::kind)
    }

    /// Whether the engine stopped the attempt (killed the tree) past the
    /// agent's own retries.
    pub fn stopped_for_own_retries(&self) -> bool {
        self.engine
            .as_ref()
            .and_then(|e| e.sessions[0].turn.as_ref())
            .is_some_and(|t| matches!(t.stopped, Some(StopReason::OwnRetries(_))))
    }

    /// The attempt's process ended as `end`, `elapsed_ms` after the run
    /// began (a stop is asked of the engine first, by its own clock or the
    /// caller's abort). Returns the wait before the next attempt, or
    /// `None`: the run is over.
    pub fn end_attempt(&mut self, end: &AttemptEnd, elapsed_ms: u64) -> Option<u64> {
        if let Some(code) = &end.spawn_error {
            self.now = self.now.max(elapsed_ms);
            let (code, now) = (code.clone(), self.now);
            if std::mem::take(&mut self.spawning) {
                self.engine().spawn_failed(&code, now);
            }
            return self.after();
        }
        self.up();
        match end.stopped {
            Some(StopReason::IdleTimeout) => {
                let idle = self.engine().cli_config().unwrap().options.idle_timeout_ms;
                self.now += idle;
                let now = self.now;
                self.engine().timeout(now);
            }
            Some(StopReason::MaxDuration) => {
                let max = self.engine().cli_config().unwrap().options.max_duration_ms;
                self.now += max;
                let now = self.now;
                self.engine().timeout(now);
            }
            Some(StopReason::Aborted) => {
                let (op, now) = (self.op.unwrap_or_default(), self.now);
                self.engine().abort(op, now);
            }
            _ => {}
        }
        self.drain();
        self.now = self.now.max(elapsed_ms);
        let now = self.now;
        self.engine()
            .exited(end.exit_code, end.signal.as_deref(), now);
        self.after()
    }

    fn after(&mut self) -> Option<u64> {
        self.drain();
        if self.result.is_some() {
            return None;
        }
        let engine = self.engine.as_ref()?;
        let at = engine
            .timers
            .get(crate::engine::Timer::Retry(crate::engine::DEFAULT))?;
        self.retry_at = Some(at);
        Some(at - self.now)
    }

    /// The caller aborted (between attempts).
    pub fn abort(&mut self) {
        let now = self.now;
        match self.op {
            Some(op) => self.engine().abort(op, now),
            None => {
                let name = crate::agents::find(&self.agent_type).map_or("the agent", |a| a.name);
                self.reject_with(crate::attempt::aborted(name));
            }
        }
        self.drain();
    }

    fn reject_with(&mut self, failure: crate::attempt::Failure) {
        self.refused = Some(TurnResult::new(
            &self.agent_type,
            Err(failure),
            crate::agent_output::parse_agent_output(&self.agent_type, b""),
            None,
            None,
            Vec::new(),
            None,
            0,
        ));
    }

    fn drain(&mut self) -> Vec<Action> {
        let Some(e) = self.engine.as_mut() else {
            return Vec::new();
        };
        let seen: Vec<Action> = std::iter::from_fn(|| e.poll()).collect();
        for a in &seen {
            if let Action::Done {
                outcome: Outcome::Turn(t),
                ..
            } = a
            {
                self.result = Some((**t).clone());
            }
        }
        self.actions.extend(seen.iter().cloned());
        seen
    }

    /// The finished run, `duration_ms` long; an error while it runs.
    pub fn turn(&mut self, duration_ms: u64) -> Result<TurnResult> {
        if self.result.is_none() && self.refused.is_none() {
            // A run refused before its prompt: the prompt says so.
            if self.op.is_none() && self.is_over() {
                self.start_attempt();
            }
        }
        let mut turn = self
            .result
            .clone()
            .or_else(|| self.refused.clone())
            .ok_or_else(|| AgentContextError::new(ErrorCode::Internal, "the run has not ended"))?;
        turn.duration_ms = duration_ms;
        Ok(turn)
    }

    /// The finished run as `runAgent` resolves it (JSON).
    pub fn result(&mut self, duration_ms: u64) -> Result<Value> {
        let turn = self.turn(duration_ms)?;
        Ok(serde_json::to_value(turn.as_run()).unwrap())
    }
}

fn read_request(request: &Value) -> Result<AssemblerOutput> {
    let o = crate::formats::json_read::Obj::new(request, "request")?;
    Ok(AssemblerOutput {
        prompt: o.req_str("prompt")?.to_owned(),
        system_flag: o.opt_str("systemFlag")?.map(str::to_owned),
    })
}
