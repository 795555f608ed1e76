//! What a session is opened with: the agent, how it is started for ACP
//! (command, arguments, environment), the options of a run (the working
//! folder, the model, the sandbox, the deadlines, the retries), the system
//! prompt and the MCP servers. Read once, every problem naming its field.

use serde_json::{json, Value};

pub use crate::launch::mcp_servers::{read_mcp_servers, McpServer};

use crate::launch::mcp_servers::cli;

use crate::agents::definition::{self, Agent};
use crate::agents::{AcpLaunch, AcpMcp, AcpModel, AgentSpec};
use crate::attempt::RunOptions;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;
use crate::formats::toml_text::toml_string;
use crate::launch::endpoint::Protocol;
use crate::launch::platform::limits::{self, CommandLine};
use crate::launch::platform::Platform;

/// The command the host resolved: `file` is spawned with `prefix` first
/// (`found` is named in messages), in an environment of `env` (the child's
/// whole environment), on `platform`.
#[derive(Clone, Debug)]
pub struct Resolved {
    pub platform: Platform,
    pub found: String,
    pub file: String,
    pub prefix: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// A session's settings, with the defaults filled in.
#[derive(Clone, Debug)]
pub struct SessionConfig {
    pub agent: &'static AgentSpec,
    pub launch: &'static AcpLaunch,
    /// What results name the agent by: its agent type, or a definition's id.
    pub id: String,
    /// The agent's name for messages.
    pub name: String,
    /// Keys of a definition or registry entry the library does not know.
    pub warnings: Vec<String>,
    pub options: RunOptions,
    /// The executable (the registry's ACP command, or `options.command`),
    /// replaced by the file the host found once it resolved it.
    pub command: String,
    pub args: Vec<String>,
    /// Variables the session sets in the child's environment (the model,
    /// the endpoint).
    pub env: Vec<(String, String)>,
    /// Variables set only when the caller's environment lacks them.
    pub default_env: Vec<(String, String)>,
    /// The settings file in the run's folder that bounds the agent's own
    /// retries (Qwen Code's), written with the endpoint's ([`Self::files`]).
    pub own_files: Vec<crate::launch::invocation::InvocationFile>,
    /// The file the agent tells of its own retries in, read by the host
    /// while the process runs (`Engine::retry_log`).
    pub retry_log: Option<crate::attempt::LogWatch>,
    /// Appended to the agent's system prompt where it takes one at
    /// `session/new`; otherwise it opens the first prompt.
    pub system_prompt: Option<String>,
    /// `mcpServers` as the agent receives them (ACP's shape).
    pub mcp_servers: Vec<McpServer>,
    /// The file found for the command, named in messages.
    pub found: Option<String>,
    /// `idleClose`: without a turn for this long the process stops (the
    /// session is reopened on the next prompt).
    pub idle_close_ms: Option<u64>,
    /// `terminals`, `terminalAuth`, `dirs` and `traceparent` ([`crate::acp::client`]).
    pub client: crate::acp::client::ClientOptions,
    /// An agent served elsewhere (`options.transport`): connected to, not
    /// started; and whether the agent may use this machine's files
    /// (`clientFs`) ([`crate::acp::transport`]).
    pub reach: crate::acp::transport::Reach,
}

impl SessionConfig {
    /// Reads `options` (`RunAgentOptions` and the session's own keys,
    /// without the functions and `env`) for `agent_type`; `command`
    /// overrides the registry's ACP executable when not empty.
    pub fn read(agent_type: &str, options: &Value, command: &str) -> Result<SessionConfig> {
        SessionConfig::read_agent(&Value::String(agent_type.to_owned()), options, command)
    }

    /// [`SessionConfig::read`] for an agent given as an agent type, an
    /// `AgentDefinition` or an ACP registry entry (`agents::definition`):
    /// a definition's command, arguments and environment replace the
    /// registry's launch; `command`, when not empty, still overrides.
    pub fn read_agent(agent: &Value, options: &Value, command: &str) -> Result<SessionConfig> {
        let (agent, warnings) = match crate::acp::transport::given(options) {
            true => definition::read_served_agent(agent)?,
            false => definition::read_agent(agent)?,
        };
        let (agent, defined) = match agent {
            Agent::Known(spec) => (spec, None),
            Agent::Defined(def) => (def.spec(), Some(def)),
        };
        let launch = agent.acp.as_ref().ok_or_else(|| {
            AgentContextError::invalid(format!("{} cannot be run over ACP", agent.name))
        })?;
        if defined.is_some() && options.get("protocol").and_then(Value::as_str) == Some("cli") {
            return Err(AgentContextError::invalid(
                "options.protocol must be 'acp' for an agent given by its definition (it speaks the Agent Client Protocol), got \"cli\"",
            ));
        }
        let command = match &defined {
            Some(def) if command.is_empty() => def.command.as_str(),
            _ => command,
        };
        let mut cfg = SessionConfig::read_for(agent, launch, options, command)?;
        if let Some(def) = defined {
            if cfg.reach.transport.is_none() {
                let launch_args = launch.args.len();
                cfg.args.splice(..launch_args, def.args.iter().cloned());
            }
            cfg.env.extend(def.env);
            cfg.id = def.id;
            cfg.name = def.name;
        }
        cfg.warnings = warnings;
        Ok(cfg)
    }

    fn read_for(
        agent: &'static AgentSpec,
        launch: &'static AcpLaunch,
        options: &Value,
        command: &str,
    ) -> Result<SessionConfig> {
        let mut rest = options.clone();
        let mut system_prompt = None;
        let mut mcp = Value::Null;
        let mut idle_close_ms = None;
        let mut client = crate::acp::client::ClientOptions::default();
        let mut reach = crate::acp::transport::Reach::default();
        if let Some(map) = rest.as_object_mut() {
            reach = crate::acp::transport::Reach::take(map, command)?;
            check_protocol(map.remove("protocol"))?;
            client = crate::acp::client::ClientOptions::take(map)?;
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
            mcp = map.remove("mcpServers").unwrap_or(Value::Null);
            idle_close_ms = match map.remove("idleClose") {
                None | Some(Value::Null) => None,
                Some(Value::Number(n)) if n.as_f64().is_some_and(|s| s > 0.0 && s <= 86_400.0) => {
                    Some((n.as_f64().unwrap_or(0.0) * 1000.0).round() as u64)
                }
                Some(other) => {
                    return Err(AgentContextError::invalid(format!(
                    "options.idleClose must be a number of seconds from 0 to 86400 (not 0), got {}",
                    match &other {
                        Value::Number(n) => n.to_string(),
                        v => type_name(v).to_owned(),
                    }
                )))
                }
            };
        }
        let command = if command.is_empty() {
            launch.command
        } else {
            command
        };
        let mut options = RunOptions::read(&rest, command)?;
        if reach.transport.is_some() {
            // Nothing is started here: no command line, environment, files or home.
            return SessionConfig::served(
                agent,
                launch,
                options,
                system_prompt,
                mcp,
                idle_close_ms,
                client,
                reach,
            );
        }
        options.apply_endpoint(agent, Protocol::Acp)?;
        options.apply_home(agent, Protocol::Acp)?;
        if !options.extra_args.is_empty() {
            return Err(AgentContextError::invalid(
                "options.extraArgs is for the CLI protocol; over ACP the agent is started as its registry entry says",
            ));
        }
        let mut args: Vec<String> = launch.args.iter().map(|a| (*a).to_owned()).collect();
        let mut env = Vec::new();
        if let Some(model) = &options.model {
            match launch.model {
                AcpModel::Flag(flag) => args.extend([flag.to_owned(), model.clone()]),
                AcpModel::CodexConfig => {
                    args.extend(["-c".to_owned(), format!("model={}", toml_string(model))]);
                    // `@agentclientprotocol/codex-acp` ignores its arguments
                    // and reads Codex's settings from this variable (JSON);
                    // it replaces a `CODEX_CONFIG` of the caller's.
                    env.push((
                        "CODEX_CONFIG".to_owned(),
                        json!({ "model": model }).to_string(),
                    ));
                }
                AcpModel::Env(name) => env.push((name.to_owned(), model.clone())),
                AcpModel::Config => {
                    return Err(AgentContextError::invalid(format!(
                        "options.model cannot be set for {} over ACP (its own configuration chooses the model)",
                        agent.name
                    )))
                }
            }
        }
        // The endpoint's arguments (Zed's codex-acp takes Codex's `-c`) and
        // variables, which replace the caller's (merged with the model's
        // `CODEX_CONFIG`).
        args.extend(options.endpoint_args());
        crate::launch::endpoint::merge_env(&mut env, options.endpoint_env());
        if let Some(tp) = &client.traceparent {
            env.push(("TRACEPARENT".to_owned(), tp.clone()));
        }
        let mut default_env: Vec<(String, String)> = launch
            .ask_env
            .map(|(n, v)| vec![(n.to_owned(), v.to_owned())])
            .unwrap_or_default();
        default_env.extend(
            launch
                .env
                .iter()
                .chain(agent.start_env)
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        // maxRetries bounds the agent's own retries: a variable, or a
        // settings file in the run's folder (with the file the agent tells
        // of its retries in, read while it runs); the caller's own value of
        // the variable wins.
        let settings = options
            .run_folder
            .as_deref()
            .filter(|folder| !folder.is_empty())
            .map(|folder| {
                crate::launch::endpoint::join(folder, crate::launch::endpoint::SETTINGS_FILE)
            });
        let own =
            crate::attempt::own_retry_config(agent, options.max_retries, settings.as_deref(), &[]);
        default_env.extend(own.env);
        let mcp_servers = read_mcp_servers(&mcp)?;
        if let (AcpMcp::Unsupported(why), false) = (launch.mcp, mcp_servers.is_empty()) {
            return Err(AgentContextError::invalid(format!(
                "options.mcpServers cannot be given to {} over ACP: {why}",
                agent.name
            )));
        }
        if !mcp_servers.is_empty() {
            default_env.extend(
                launch
                    .mcp_env
                    .iter()
                    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
            );
        }
        if launch.mcp == AcpMcp::Launch {
            // As its CLI takes them; `approve` matters to none of these.
            let approve = options.yolo == Some(true)
                || options.sandbox == Some(crate::launch::invocation::Sandbox::DangerFullAccess);
            args.extend(cli::cli_args(agent, &mcp_servers, approve)?);
            default_env.extend(cli::cli_env(agent, &mcp_servers, &[])?);
        }
        Ok(SessionConfig {
            agent,
            launch,
            id: agent.agent_type.to_owned(),
            name: agent.name.to_owned(),
            warnings: Vec::new(),
            options,
            command: command.to_owned(),
            args,
            env,
            default_env,
            own_files: own.file.into_iter().collect(),
            retry_log: own.log,
            system_prompt,
            mcp_servers,
            found: None,
            idle_close_ms,
            client,
            reach,
        })
    }

    /// The settings of an agent served elsewhere: the session's own, and
    /// no command line, environment, files or home (nothing starts here).
    #[allow(clippy::too_many_arguments)]
    fn served(
        agent: &'static AgentSpec,
        launch: &'static AcpLaunch,
        mut options: RunOptions,
        system_prompt: Option<String>,
        mcp: Value,
        idle_close_ms: Option<u64>,
        client: crate::acp::client::ClientOptions,
        reach: crate::acp::transport::Reach,
    ) -> Result<SessionConfig> {
        options.command = String::new();
        Ok(SessionConfig {
            agent,
            launch,
            id: agent.agent_type.to_owned(),
            name: agent.name.to_owned(),
            warnings: Vec::new(),
            options,
            command: String::new(),
            args: Vec::new(),
            env: Vec::new(),
            default_env: Vec::new(),
            own_files: Vec::new(),
            retry_log: None,
            system_prompt,
            mcp_servers: read_mcp_servers(&mcp)?,
            found: None,
            idle_close_ms,
            client,
            reach,
        })
    }

    /// The files to write in the run's folder before the agent starts:
    /// the endpoint's and the one that bounds its own retries, merged
    /// where they are one settings file.
    pub fn files(&self) -> Vec<crate::launch::invocation::InvocationFile> {
        let mut files = self.options.endpoint_files();
        files.extend(self.own_files.iter().cloned());
        crate::launch::endpoint::merge_json_files(files)
    }

    /// The settings of one more session on the same process: `options`
    /// (`{ cd?, sessionId?, systemPrompt?, mcpServers?, dirs? }`) replace the
    /// process's; the session to reopen is only the one given here.
    pub fn for_session(&self, options: &Value) -> Result<SessionConfig> {
        let mut cfg = self.clone();
        cfg.options.session_id = None;
        let map = match options {
            Value::Null => return Ok(cfg),
            Value::Object(map) => map,
            other => {
                return Err(AgentContextError::invalid(format!(
                    "sessionOptions must be an object, got {}",
                    type_name(other)
                )))
            }
        };
        let text = |key: &str| -> Result<Option<String>> {
            match map.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if !s.is_empty() => Ok(Some(s.clone())),
                Some(other) => Err(AgentContextError::invalid(format!(
                    "sessionOptions.{key} must be a non-empty string, got {}",
                    match other {
                        Value::String(_) => "an empty string",
                        v => type_name(v),
                    }
                ))),
            }
        };
        if let Some(cd) = text("cd")? {
            cfg.options.cd = cd;
        }
        cfg.options.session_id = text("sessionId")?;
        if map.contains_key("systemPrompt") {
            cfg.system_prompt = text("systemPrompt")?;
        }
        if map.contains_key("dirs") {
            cfg.client.dirs =
                crate::acp::client::read_dirs(map.get("dirs").cloned(), "sessionOptions.dirs")?;
        }
        if let Some(mcp) = map.get("mcpServers") {
            cfg.mcp_servers = read_mcp_servers(mcp).map_err(|e| {
                AgentContextError::invalid(e.message().replacen("options.", "sessionOptions.", 1))
            })?;
            if self.takes_mcp_at_launch() && cfg.mcp_servers != self.mcp_servers {
                return Err(AgentContextError::invalid(format!(
                    "sessionOptions.mcpServers cannot differ from the process's for {}: it takes MCP servers on the command line it is started with; give them in openAgent's options.mcpServers",
                    self.agent.name
                )));
            }
        }
        Ok(cfg)
    }

    /// The command was resolved: the whole command line is counted
    /// against the platform's limits.
    pub fn launch(&mut self, resolved: &Resolved) -> Result<()> {
        let Resolved {
            platform,
            found,
            file,
            prefix,
            env,
        } = resolved;
        let platform = *platform;
        let args: Vec<String> = prefix.iter().chain(&self.args).cloned().collect();
        let line = CommandLine {
            program: file,
            args: &args,
            env,
        };
        limits::check(platform, &line).map_err(|over| {
            AgentContextError::invalid(format!(
                "the command line does not fit on {}: {}",
                platform.name(),
                over.message()
            ))
        })?;
        self.options.platform = Some(platform);
        self.found = Some(found.to_owned());
        self.command = file.to_owned();
        self.args = args;
        // What the agent's parts read differently in the caller's
        // environment, agreed as the caller's value means.
        for (name, value) in crate::launch::env_flags::agreed_env(self.agent.env_flags, env) {
            self.env.retain(|(k, _)| *k != name);
            self.env.push((name, value));
        }
        Ok(())
    }

    /// Whether the agent got its MCP servers on the command line it was
    /// started with (never one served elsewhere: it gets them as ACP says).
    fn takes_mcp_at_launch(&self) -> bool {
        self.launch.mcp == AcpMcp::Launch && self.reach.transport.is_none()
    }

    /// The MCP servers the agent can take, as `session/new|load|resume`
    /// send them; a transport it does not advertise is `Err` naming it.
    /// None for an agent that got them on its command line.
    pub fn mcp_for(&self, initialized: &Value) -> Result<Value> {
        if self.takes_mcp_at_launch() {
            return Ok(Value::Array(Vec::new()));
        }
        let caps = initialized.pointer("/agentCapabilities/mcpCapabilities");
        let mut out = Vec::new();
        for server in &self.mcp_servers {
            let ok = server.transport == "stdio"
                || caps
                    .and_then(|c| c.get(server.transport))
                    .and_then(Value::as_bool)
                    .unwrap_or(false);
            if !ok {
                return Err(AgentContextError::invalid(format!(
                    "options.mcpServers: {} does not take MCP servers over {} (server \"{}\"); give it a stdio server",
                    self.agent.name, server.transport, server.name
                )));
            }
            out.push(server.acp());
        }
        Ok(Value::Array(out))
    }
}

impl SessionConfig {
    /// `additionalDirectories` for `session/new|load|resume|fork`: `None`
    /// when the session has no `dirs`; `Err` naming `dirs` and the agent
    /// when it does and the agent does not advertise
    /// `sessionCapabilities.additionalDirectories` (never dropped).
    pub fn dirs_for(&self, initialized: &Value) -> Result<Option<Value>> {
        if self.client.dirs.is_empty() {
            return Ok(None);
        }
        let taken = initialized
            .pointer("/agentCapabilities/sessionCapabilities/additionalDirectories")
            .is_some_and(|c| !c.is_null() && c != &Value::Bool(false));
        if !taken {
            return Err(AgentContextError::invalid(format!(
                "options.dirs: {} does not take more folders than cd over ACP (it does not advertise sessionCapabilities.additionalDirectories); open the session without dirs",
                self.name
            )));
        }
        Ok(Some(json!(self.client.dirs)))
    }
}

fn check_protocol(protocol: Option<Value>) -> Result<()> {
    match protocol {
        None | Some(Value::Null) => Ok(()),
        Some(Value::String(p)) if p == "acp" => Ok(()),
        Some(Value::String(p)) => Err(AgentContextError::invalid(format!(
            "options.protocol must be 'cli' or 'acp', got \"{p}\""
        ))),
        Some(other) => Err(AgentContextError::invalid(format!(
            "options.protocol must be 'cli' or 'acp', got {}",
            type_name(&other)
        ))),
    }
}
