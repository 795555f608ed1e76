//! Making an engine for what the host asked — a session kept open, a
//! process holding several sessions, or one run (`runAgent`, the Gemini
//! tool) — over the protocol the options and the agent's registry entry
//! choose; and the plan the host prepares the run from (the command to
//! resolve, the folder, the run's own files and home, the turn's defaults).

use serde::Serialize;
use serde_json::{json, Value};

use super::cli::CliSessionConfig;
use super::config::SessionConfig;
use super::engine::Engine;
use super::state::Config;
use crate::error::Result;
use crate::launch::invocation::InvocationFile;
use crate::prompt::output::AssemblerOutput;

/// What an engine is made for.
#[derive(Clone, Copy, Debug)]
pub enum Purpose<'a> {
    /// `openAgentSession`: one session kept open, over ACP unless
    /// `options.protocol` is `'cli'`.
    Session,
    /// `openAgent`: an ACP process to which sessions are added.
    Process,
    /// `runAgent` and the Gemini tool: one prompt, then closed, over the
    /// protocol `options.protocol` names, else the agent's default.
    /// `keep_events`: each attempt keeps its events for the result.
    Run {
        request: &'a AssemblerOutput,
        keep_events: bool,
    },
}

/// What the host needs before the agent starts.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    pub protocol: &'static str,
    /// The command to resolve (the registry's, or `options.command`).
    pub command: String,
    pub cd: String,
    pub idle_timeout_ms: u64,
    pub max_duration_ms: u64,
    pub max_retries: u32,
    pub session_id: Option<String>,
    pub agent_name: String,
    /// The agent type, or a definition's id.
    pub agent_type: String,
    /// Keys of a definition the library does not know.
    pub warnings: Vec<String>,
    /// Written into the run's folder before the agent starts.
    pub files: Vec<InvocationFile>,
    /// The run's home, made there before the agent starts.
    pub home: Option<crate::launch::run_home::HomeRequest>,
    /// One process for every turn, else a process per turn.
    pub persistent: bool,
    /// An agent served elsewhere: connected to, not started (nothing to
    /// resolve, write or make here).
    pub transport: Option<TransportPlan>,
}

/// How the host reaches an agent served elsewhere.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TransportPlan {
    pub url: String,
    pub kind: crate::acp::transport::TransportKind,
    /// Whether `cd` is a folder of this machine (the agent may use its
    /// files: `clientFs`), checked here; else it is the server's, sent as
    /// it is.
    pub local_cd: bool,
}

impl Engine {
    /// An engine for `agent` (an agent type, an `AgentDefinition` or an ACP
    /// registry entry) with `options` (the caller's, without the functions
    /// and `env`), `command` overriding the registry's executable when not
    /// empty; `asks_host`: permissions go to the host. Bad input is
    /// `INVALID_INPUT` naming the field.
    pub fn make(
        agent: &Value,
        options: &Value,
        command: &str,
        purpose: Purpose<'_>,
        asks_host: bool,
    ) -> Result<Engine> {
        // An agent served elsewhere speaks ACP (its reader refuses 'cli').
        let defined = agent.is_object() || crate::acp::transport::given(options);
        let asked = options.get("protocol").filter(|p| !p.is_null());
        match purpose {
            Purpose::Process => {
                let cfg = SessionConfig::read_agent(agent, options, command)?;
                Ok(Engine::process(cfg, asks_host))
            }
            Purpose::Session => match asked.and_then(Value::as_str) {
                Some("cli") if !defined => {
                    let cfg = CliSessionConfig::read_agent(agent, options, command)?;
                    Ok(Engine::cli(cfg))
                }
                _ => Ok(Engine::new(
                    SessionConfig::read_agent(agent, options, command)?,
                    asks_host,
                )),
            },
            Purpose::Run {
                request,
                keep_events,
            } => {
                if run_protocol(agent, options) == "cli" {
                    let mut cfg = CliSessionConfig::read_run(agent, request, options, command)?;
                    cfg.keep_events = keep_events;
                    return Ok(Engine::cli(cfg));
                }
                let mut options = options.clone();
                if let (Some(map), Some(system)) = (options.as_object_mut(), &request.system_flag) {
                    map.insert("systemPrompt".into(), json!(system));
                }
                let mut engine = Engine::new(
                    SessionConfig::read_agent(agent, &options, command)?,
                    asks_host,
                );
                engine.for_run();
                Ok(engine)
            }
        }
    }

    /// What the host prepares before the agent starts.
    pub fn plan(&self) -> Plan {
        let options = self.options();
        let (protocol, command, agent_name, agent_type, warnings, files) = match &self.cfg {
            Config::Acp(c) => (
                "acp",
                c.command.clone(),
                c.name.clone(),
                c.id.clone(),
                c.warnings.clone(),
                c.files(),
            ),
            Config::Cli(c) => (
                "cli",
                c.options.command.clone(),
                c.agent.name.to_owned(),
                c.agent.agent_type.to_owned(),
                Vec::new(),
                c.options.endpoint_files(),
            ),
        };
        Plan {
            protocol,
            command,
            cd: options.cd.clone(),
            idle_timeout_ms: options.idle_timeout_ms,
            max_duration_ms: options.max_duration_ms,
            max_retries: options.max_retries,
            session_id: options.session_id.clone(),
            agent_name,
            agent_type,
            warnings,
            files,
            home: options.home.clone(),
            persistent: self.persistent(),
            transport: self.acp_config().and_then(|c| {
                let t = c.reach.transport.as_ref()?;
                Some(TransportPlan {
                    url: t.url.clone(),
                    kind: t.kind,
                    local_cd: c.reach.client_fs,
                })
            }),
        }
    }
}

/// The protocol a run of `agent` with `options` goes over: an agent given
/// by its definition speaks ACP; else `options.protocol` (anything but
/// `'cli'` goes to ACP, which names the two it takes), else the agent's
/// default (the first of its registry entry's protocols).
pub fn run_protocol(agent: &Value, options: &Value) -> &'static str {
    let asked = options.get("protocol").filter(|p| !p.is_null());
    let cli = match (asked, agent) {
        _ if crate::acp::transport::given(options) => false,
        (_, Value::Object(_)) => false,
        (Some(p), _) => p.as_str() == Some("cli"),
        (None, Value::String(agent_type)) => {
            crate::agents::find(agent_type).map_or(true, |a| a.protocols().first() == Some(&"cli"))
        }
        (None, _) => true, // the CLI's reader names what an agent must be
    };
    if cli {
        "cli"
    } else {
        "acp"
    }
}
