//! What a session over an agent's command line is opened with: the agent,
//! the options of a run (`RunAgentOptions`: the folder, the model, the
//! sandbox, the deadlines, the retries), the system prompt, and how each
//! process of the session is started (the CLI's own headless command line,
//! from [`build_cli_invocation`], with the session to resume and, for a CLI
//! that reads a message a line, its streaming-input flags).

use serde_json::Value;

use crate::agents::{self, AgentSpec, CliSpec, SystemPromptArg};
use crate::attempt::RunOptions;
use crate::engine::config::Resolved;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;
use crate::launch::endpoint::Protocol;
use crate::launch::invocation::{build_cli_invocation, CliInvocation};
use crate::launch::platform::limits::{self, CommandLine};
use crate::prompt::output::AssemblerOutput;

/// A session's settings over the CLI, with the defaults filled in.
#[derive(Clone, Debug)]
pub struct CliSessionConfig {
    pub agent: &'static AgentSpec,
    /// Its CLI (an agent that speaks ACP only is refused when read).
    pub cli: &'static CliSpec,
    /// `cd`, `model` (the first process's), `sessionId`, `sandbox`, `yolo`,
    /// the deadlines and retries, `extraArgs`; the platform and the
    /// child's environment once the host launched it.
    pub options: RunOptions,
    /// Given to every process where the CLI takes a system prompt flag;
    /// otherwise it opens the first prompt of a new session.
    pub system_prompt: Option<String>,
    /// What is spawned: the file the host found (or the command's name
    /// until then) and the arguments before the agent's own (a script
    /// that an interpreter runs).
    pub file: String,
    pub prefix: Vec<String>,
    /// The file found for the command, named in messages.
    pub found: Option<String>,
    /// Variables every process gets for the MCP servers, once launched
    /// (opencode's configuration with them, Claude Code's tool search off).
    pub mcp_env: Vec<(String, String)>,
    /// Variables of the caller's environment the agent's parts read
    /// differently, as every process gets them (`crate::launch::env_flags`).
    pub flag_env: Vec<(String, String)>,
    /// The agent's start variables the caller did not name
    /// (`AgentSpec::start_env`), as every process gets them.
    pub start_env: Vec<(String, String)>,
    /// A run (`runAgent`, the Gemini tool): every turn its own process
    /// with the CLI's whole headless command line — the system prompt as
    /// its flag (in a file of the run's folder when too long for an
    /// argument), the files the agent writes for the reply, the
    /// attachments — even for a CLI that could keep one process.
    pub one_shot: bool,
    /// Each attempt keeps its reply's events for the turn's result (the
    /// Gemini tool's `all_messages`).
    pub keep_events: bool,
    /// What bounds the agent's own retries by `maxRetries`, once launched
    /// (the caller's environment wins): variables every process gets, and
    /// a settings file written before it starts.
    pub own_retries: crate::attempt::OwnRetryConfig,
}

impl CliSessionConfig {
    /// Reads `options` (`RunAgentOptions` and the session's own keys,
    /// without the functions and `env`) for `agent_type`; `command`
    /// overrides the registry's executable when not empty. Every problem
    /// names its field.
    /// [`CliSessionConfig::read`] for an agent as a caller gives it: an
    /// agent type; an agent definition or registry entry speaks ACP only.
    pub fn read_agent(agent: &Value, options: &Value, command: &str) -> Result<CliSessionConfig> {
        match agent {
            Value::String(agent_type) => CliSessionConfig::read(agent_type, options, command),
            Value::Object(_) => {
                crate::agents::definition::read_agent(agent)?;
                Err(AgentContextError::invalid(
                    "options.protocol must be 'acp' for an agent given by its definition (it speaks the Agent Client Protocol), got \"cli\"",
                ))
            }
            // Neither: the message names what is taken.
            other => Err(crate::agents::definition::read_agent_for(other, "to run")
                .err()
                .unwrap_or_else(|| AgentContextError::invalid("agentType must be a string"))),
        }
    }

    pub fn read(agent_type: &str, options: &Value, command: &str) -> Result<CliSessionConfig> {
        CliSessionConfig::read_as(agent_type, options, command, None)
    }

    /// A run of `agent_type` on `output` (an `AssemblerOutput`: the prompt
    /// and its `systemFlag`) with `options` (`RunAgentOptions` without the
    /// functions and `env`): the process of a session opened for one
    /// prompt ([`CliSessionConfig::one_shot`]). The prompt and every option
    /// that reaches the command line are checked now.
    pub fn read_run(
        agent: &Value,
        output: &AssemblerOutput,
        options: &Value,
        command: &str,
    ) -> Result<CliSessionConfig> {
        match agent {
            Value::String(agent_type) => {
                CliSessionConfig::read_as(agent_type, options, command, Some(output))
            }
            other => Err(crate::agents::definition::read_agent_for(other, "to run")
                .err()
                .unwrap_or_else(|| AgentContextError::invalid("agentType must be a string"))),
        }
    }

    fn read_as(
        agent_type: &str,
        options: &Value,
        command: &str,
        run: Option<&AssemblerOutput>,
    ) -> Result<CliSessionConfig> {
        let agent = agents::require(agent_type, "to run")?;
        let cli: &'static CliSpec = agent.cli(if run.is_some() {
            "a run over the command line (protocol 'cli')"
        } else {
            "a session over the command line (protocol 'cli')"
        })?;
        // More roots are given over ACP only: never dropped silently.
        if let Some(map) = options.as_object() {
            let dirs = crate::acp::client::read_dirs(map.get("dirs").cloned(), "options.dirs")?;
            if !dirs.is_empty() {
                return Err(AgentContextError::invalid(format!(
                    "options.dirs: more folders than cd are given over ACP only (protocol: 'acp'); {} over its command line takes only cd",
                    agent.name
                )));
            }
        }
        let mut rest = options.clone();
        let mut system_prompt = run
            .and_then(|o| o.system_flag.clone())
            .filter(|f| !f.is_empty());
        if let (None, Some(map)) = (run, rest.as_object_mut()) {
            match map.get("protocol") {
                Some(Value::String(p)) if p == "cli" => {}
                None | Some(Value::Null) => {}
                Some(other) => {
                    return Err(AgentContextError::invalid(format!(
                    "options.protocol must be 'cli' for a session over the command line, got {}",
                    match other {
                        Value::String(s) => format!("\"{s}\""),
                        v => type_name(v).to_owned(),
                    }
                )))
                }
            }
            system_prompt = match map.remove("systemPrompt") {
                None | Some(Value::Null) => None,
                Some(Value::String(s)) if s.is_empty() => None,
                Some(Value::String(s)) => Some(s),
                Some(other) => {
                    return Err(AgentContextError::invalid(format!(
                        "options.systemPrompt must be a string, got {}",
                        type_name(&other)
                    )))
                }
            };
        }
        let command = if command.is_empty() {
            cli.command
        } else {
            command
        };
        let mut options = RunOptions::read(&rest, command)?;
        if run.is_none() {
            // A session's schema is a turn's, stated in its prompt.
            options.output_schema = None;
        }
        options.apply_endpoint(agent, Protocol::Cli)?;
        options.apply_home(agent, Protocol::Cli)?;
        // The endpoint's arguments (Codex's provider overrides) before the caller's.
        let mut args = options.endpoint_args();
        args.append(&mut options.extra_args);
        options.extra_args = args;
        let cfg = CliSessionConfig {
            agent,
            cli,
            options,
            system_prompt,
            file: command.to_owned(),
            prefix: Vec::new(),
            found: None,
            mcp_env: Vec::new(),
            flag_env: Vec::new(),
            start_env: Vec::new(),
            one_shot: run.is_some(),
            keep_events: false,
            own_retries: Default::default(),
        };
        // Every option that reaches the command line is checked now (a
        // run's prompt too).
        cfg.command_line(
            cfg.options.session_id.as_deref(),
            cfg.options.model.as_deref(),
            run.map(|o| o.prompt.as_str()),
        )?;
        Ok(cfg)
    }

    /// Whether one process holds every turn (the CLI reads a message a
    /// line, and this is a session, not a run).
    pub fn persistent(&self) -> bool {
        !self.one_shot && self.cli.extras.stream_input.is_some()
    }

    /// Whether the system prompt travels as a flag of every process (else
    /// it opens the first prompt of a new session).
    pub fn system_as_flag(&self) -> bool {
        self.one_shot || !matches!(self.cli.system_prompt, SystemPromptArg::None)
    }

    /// The command was resolved: the command line is counted against the
    /// platform's limits with the child's whole environment.
    pub fn launch(&mut self, resolved: Resolved) -> Result<()> {
        let Resolved {
            platform,
            found,
            file,
            prefix,
            mut env,
        } = resolved;
        // The endpoint's variables, then the MCP servers' (merged into the
        // same JSON variable where both use one: opencode's configuration).
        crate::launch::endpoint::merge_env(&mut env, self.options.endpoint_env());
        // The agent's own retries bounded by maxRetries, unless the
        // caller's environment already says.
        let own = crate::attempt::own_retry_config(
            self.agent,
            self.options.max_retries,
            self.options.settings_file.as_deref(),
            &env,
        );
        crate::launch::endpoint::merge_env(&mut env, own.env.clone());
        let mcp =
            crate::launch::mcp_servers::cli::cli_env(self.agent, &self.options.mcp_servers, &env)?;
        crate::launch::endpoint::merge_env(&mut env, mcp.clone());
        // What the agent's parts read differently in the caller's
        // environment, agreed as the caller's value means.
        let flags = crate::launch::env_flags::agreed_env(self.agent.env_flags, &env);
        for (name, value) in &flags {
            env.retain(|(k, _)| k != name);
            env.push((name.clone(), value.clone()));
        }
        // What makes its start the one a driven run needs, unless the caller said.
        let start = crate::launch::env_flags::start_env(self.agent.start_env, &env);
        env.extend(start.iter().cloned());
        self.start_env = start;
        self.flag_env = flags;
        self.mcp_env = mcp;
        self.own_retries = own;
        self.options.platform = Some(platform);
        self.options.env = Some(env);
        self.file = file;
        self.prefix = prefix;
        self.found = Some(found);
        let session = self.options.session_id.clone();
        let model = self.options.model.clone();
        self.command_line(session.as_deref(), model.as_deref(), None)
            .map(|_| ())
    }

    /// The variables every process gets: the endpoint's and the run
    /// home's, the MCP servers' (already merged with them where both use
    /// one), the bound on the agent's own retries, and the variables its
    /// parts read differently, agreed, and its start variables.
    pub fn spawn_env(&self) -> Vec<(String, String)> {
        let mut env = self.options.endpoint_env();
        crate::launch::endpoint::merge_env(&mut env, self.own_retries.env.clone());
        crate::launch::endpoint::merge_env(&mut env, self.mcp_env.clone());
        env.extend(self.flag_env.iter().cloned());
        env.extend(self.start_env.iter().cloned());
        env
    }

    /// The file and arguments of a process resuming `session` (a new
    /// session when `None`) with `model`. The prompt travels on stdin.
    pub fn command_line(
        &self,
        session: Option<&str>,
        model: Option<&str>,
        prompt: Option<&str>,
    ) -> Result<(String, Vec<String>)> {
        self.invocation(session, model, prompt)
            .map(|inv| (inv.command, inv.args))
    }

    /// The whole command line of a process resuming `session` with
    /// `model` for `prompt` (`None`: a process started before its first
    /// prompt, which reads its turns a line each): the file and arguments,
    /// stdin, the files to write before it starts (a run's long system
    /// prompt, the settings bounding its own retries) and the files it
    /// writes for the reply (a run's usage file).
    pub fn invocation(
        &self,
        session: Option<&str>,
        model: Option<&str>,
        prompt: Option<&str>,
    ) -> Result<CliInvocation> {
        let mut inv = self.options.invocation();
        inv.session_id = session.map(str::to_owned);
        inv.model = model.map(str::to_owned);
        if !self.one_shot {
            // The host writes no file for a session: a system prompt too
            // long for an argument is refused, naming the limit.
            inv.system_prompt_file = None;
            inv.usage_file = None;
        }
        let output = AssemblerOutput {
            prompt: prompt.unwrap_or("(the prompt travels on stdin)").to_owned(),
            system_flag: self.system_prompt.clone().filter(|_| self.system_as_flag()),
        };
        let mut built = build_cli_invocation(self.agent.agent_type, &output, &inv)?;
        let mut args = std::mem::take(&mut built.args);
        if let Some(stream) = self.cli.extras.stream_input.filter(|_| self.persistent()) {
            let at = self.cli.base_args.len().min(args.len());
            args.splice(at..at, stream.iter().map(|a| (*a).to_owned()));
        }
        let args: Vec<String> = self.prefix.iter().cloned().chain(args).collect();
        let platform = self.options.platform.unwrap_or_default();
        let line = CommandLine {
            program: &self.file,
            args: &args,
            env: self.options.env.as_deref().unwrap_or(&[]),
        };
        limits::check(platform, &line).map_err(|over| {
            AgentContextError::invalid(format!(
                "the command line does not fit on {}: {} (the prompt travels on stdin; shorten the options)",
                platform.name(),
                over.message()
            ))
        })?;
        // The run's own files with them, merged where two share a file
        // (the endpoint's settings and the bound on the agent's retries).
        built.files.extend(self.own_retries.file.clone());
        built.files.extend(self.options.endpoint_files());
        Ok(CliInvocation {
            command: self.file.clone(),
            args,
            stdin: built.stdin,
            files: crate::launch::endpoint::merge_json_files(built.files),
            outputs: built.outputs,
        })
    }
}
