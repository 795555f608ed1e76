//! A team's members as the team keeps them: who each one is (read and
//! checked when it joins), which protocol its sessions run over, which
//! model endpoint they take, and how its instructions reach a session that
//! is reopened.
//!
//! - **Who it is** — id, agent type (or an agent definition, whose `id` is
//!   the agent type), instructions, budget, protocol — is data: the team's
//!   JSON holds it. An agent type the library does not know is refused when
//!   the member joins, naming the nearest known one.
//! - **How its sessions run** — its own `endpoint`, `env`, `model` and
//!   `command` — are session options, like the team's: they win over the
//!   team's, and the JSON names them without holding them (an environment
//!   and an endpoint's key are not data to store).
//! - **The team's endpoint** goes to the members without one of their own
//!   (`endpoint: null` keeps a member without any). It speaks one API
//!   family: its `api`, else the one family every member taking it calls
//!   by default. A member whose agent cannot take it is `INVALID_INPUT`
//!   naming the member, when the member joins.

use serde_json::Value;

use crate::agents::{self, AgentSpec, ApiFamily, SystemPromptArg};
use crate::error::{AgentContextError, Result};
use crate::formats::input_keys::nearest_known;
use crate::formats::json_read::{type_name, Obj};
use crate::launch::endpoint::{endpoint_setup, Endpoint, Protocol};
use crate::prompt::input::{max_bytes_from_number, DEFAULT_MAX_BYTES};

use super::turn::Member;

/// The session options a member may have of its own (besides `protocol`).
pub const SESSION_OPTIONS: [&str; 5] = ["endpoint", "env", "model", "command", "fallback"];

/// A member as the team stores it.
#[derive(Clone, Debug, PartialEq)]
pub struct MemberRecord {
    pub id: String,
    pub agent_type: String,
    /// The agent definition or ACP registry entry it was given by.
    pub definition: Option<Value>,
    pub system_instruction: Option<String>,
    pub instruction_file_text: Option<String>,
    /// `'acp'` or `'cli'`, when the member names one.
    pub protocol: Option<String>,
    pub max_bytes: Option<u64>,
    /// The names of its own session options (their values are the host's).
    pub session_options: Vec<String>,
    /// How many agents of its `fallback` it went on with (its agent type is
    /// then the last one's).
    pub fallback_used: usize,
}

impl MemberRecord {
    /// Reads a member at `path` (`options.members[0]`): its identity only.
    pub fn read(value: &Value, path: &str) -> Result<MemberRecord> {
        let o = Obj::new(value, path)?;
        let definition = match o.get("definition") {
            None => None,
            Some(d @ Value::Object(_)) => Some(d.clone()),
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "{} must be an agent definition or an ACP registry entry (an object), got {}",
                    o.path_of("definition"),
                    type_name(other)
                )))
            }
        };
        let agent_type = match &definition {
            None => non_empty(&o, "agentType", &o.path_of("agentType"))?,
            Some(d) => {
                let given = o.get("agentType");
                let id = d.get("id");
                if given.is_some() && given != id {
                    return Err(AgentContextError::invalid(format!(
                        "{} must be left out when {} is given (its id is the member's agent type), got {}",
                        o.path_of("agentType"),
                        o.path_of("definition"),
                        type_name(given.unwrap_or(&Value::Null))
                    )));
                }
                let d = Obj::new(d, "")?;
                non_empty(&d, "id", &format!("{}.id", o.path_of("definition")))?
            }
        };
        let max_bytes = match o.get("maxBytes") {
            None => None,
            Some(Value::Number(n)) => Some(
                max_bytes_from_number(n.as_f64().unwrap_or(f64::NAN))
                    .map_err(|e| AgentContextError::invalid(format!("{path}.{}", e.message())))?,
            ),
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "{} must be a finite number >= 0, got {}",
                    o.path_of("maxBytes"),
                    type_name(other)
                )))
            }
        };
        Ok(MemberRecord {
            id: non_empty(&o, "id", &o.path_of("id"))?,
            agent_type,
            definition,
            system_instruction: o.opt_str("systemInstruction")?.map(str::to_owned),
            instruction_file_text: o.opt_str("instructionFileText")?.map(str::to_owned),
            protocol: o.opt_str("protocol")?.map(str::to_owned),
            max_bytes,
            session_options: Vec::new(),
            fallback_used: 0,
        })
    }

    /// What its prompts are planned with.
    pub fn member(&self) -> Member {
        Member {
            id: self.id.clone(),
            agent_type: self.agent_type.clone(),
            system_instruction: self.system_instruction.clone().unwrap_or_default(),
            instruction_file_text: self.instruction_file_text.clone().unwrap_or_default(),
            max_bytes: self.max_bytes.unwrap_or(DEFAULT_MAX_BYTES),
        }
    }
}

fn non_empty(o: &Obj<'_, '_>, key: &str, path: &str) -> Result<String> {
    match o.get(key) {
        Some(Value::String(s)) if !s.is_empty() => Ok(s.clone()),
        other => Err(AgentContextError::invalid(format!(
            "{path} must be a non-empty string, got {}",
            other.map_or("undefined", |v| if v.as_str() == Some("") {
                "an empty string"
            } else {
                type_name(v)
            })
        ))),
    }
}

/// The team's session options that decide something for its members.
#[derive(Clone, Debug, Default)]
pub struct TeamConfig {
    /// `options.endpoint`, checked.
    pub endpoint: Option<Endpoint>,
    /// `options.protocol`.
    pub protocol: Option<String>,
    /// `options.model`.
    pub model: Option<String>,
}

impl TeamConfig {
    /// Reads `{ endpoint?, protocol?, model? }` (the rest is the host's).
    pub fn read(value: &Value) -> Result<TeamConfig> {
        let o = Obj::new(value, "options")?;
        let protocol = o.opt_str("protocol")?.map(str::to_owned);
        if let Some(p) = protocol.as_deref().filter(|p| !matches!(*p, "acp" | "cli")) {
            return Err(AgentContextError::invalid(format!(
                "options.protocol must be 'acp' or 'cli', got \"{p}\""
            )));
        }
        Ok(TeamConfig {
            endpoint: o
                .get("endpoint")
                .map(|e| Endpoint::read(e, "options.endpoint"))
                .transpose()?,
            protocol,
            model: o.opt_str("model")?.map(str::to_owned),
        })
    }
}

/// Which endpoint a member's sessions take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EndpointChoice {
    /// Its own (`options.members[i].endpoint`).
    Own,
    /// The team's (`options.endpoint`).
    Team,
    /// None (`endpoint: null`, or none anywhere).
    None,
}

impl EndpointChoice {
    pub fn as_str(self) -> &'static str {
        match self {
            EndpointChoice::Own => "own",
            EndpointChoice::Team => "team",
            EndpointChoice::None => "none",
        }
    }
}

/// What the team decided for a member's sessions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Runs {
    pub protocol: &'static str,
    pub endpoint: EndpointChoice,
    /// A session it reopens takes the system prompt (Claude Code's adapter
    /// reads it on `session/resume` and `session/load`; its CLI takes the
    /// flag on every process); else a resumed session holds only what its
    /// history holds, and the next prompt opens with the instructions.
    pub reopen_takes_system: bool,
    /// The family of the team's endpoint it calls (when it takes it).
    pub team_family: Option<ApiFamily>,
}

/// Decides how `record`'s sessions run with its own session options
/// (`own`: the member's object as given, at `path`) and the team's. The
/// names of the options it has of its own go into `record`.
pub fn decide_runs(
    record: &mut MemberRecord,
    own: &Value,
    path: &str,
    team: &TeamConfig,
) -> Result<Runs> {
    let o = Obj::new(own, path)?;
    let spec = agent_of(record, path)?;
    let protocol = match record.protocol.as_deref().or(team.protocol.as_deref()) {
        None | Some("acp") => "acp",
        Some("cli") => "cli",
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{}.protocol must be 'acp' or 'cli', got \"{other}\"",
                path
            )))
        }
    };
    let where_protocol = if record.protocol.is_some() {
        format!("{path}.protocol")
    } else {
        "options.protocol".to_owned()
    };
    if protocol == "cli" {
        if record.definition.is_some() {
            return Err(AgentContextError::invalid(format!(
                "{where_protocol} must be 'acp' for member \"{}\", given by its definition",
                record.id
            )));
        }
        if let Some(spec) = spec {
            spec.cli(&format!("member \"{}\" over its CLI", record.id))?;
        }
    }
    record.session_options = own_option_names(own);
    let model = o.opt_str("model")?.or(team.model.as_deref());
    let wire = if protocol == "cli" {
        Protocol::Cli
    } else {
        Protocol::Acp
    };
    let (endpoint, choice) = match own.get("endpoint") {
        Some(Value::Null) => (None, EndpointChoice::None),
        Some(given) => (
            Some(Endpoint::read(given, &format!("{path}.endpoint"))?),
            EndpointChoice::Own,
        ),
        None => match &team.endpoint {
            Some(e) => (Some(e.clone()), EndpointChoice::Team),
            None => (None, EndpointChoice::None),
        },
    };
    let name = spec.map_or(record.agent_type.as_str(), |s| s.name);
    let mut team_family = None;
    if let Some(endpoint) = &endpoint {
        let checked = match spec {
            Some(spec) => endpoint_setup(spec, wire, endpoint, "/", model).map(|s| s.family),
            None => Err(AgentContextError::invalid(format!(
                "the library does not know how to point {name} at an endpoint: set its variables in the agent definition's env instead"
            ))),
        };
        let family = checked.map_err(|e| {
            let fix = if choice == EndpointChoice::Team {
                format!(
                    " (the team's endpoint goes to every member without one of its own: give this one its own at {path}.endpoint, or endpoint: null for none)"
                )
            } else {
                String::new()
            };
            AgentContextError::invalid(format!(
                "member \"{}\" ({name}): {}{fix}",
                record.id,
                e.message()
            ))
        })?;
        if choice == EndpointChoice::Team {
            team_family = Some(family);
        }
    }
    Ok(Runs {
        protocol,
        endpoint: choice,
        reopen_takes_system: match (spec, protocol) {
            (Some(s), "cli") => s
                .cli
                .is_some_and(|c| !matches!(c.system_prompt, SystemPromptArg::None)),
            (Some(s), _) => s.acp.is_some_and(|a| a.system_prompt_meta),
            (None, _) => false,
        },
        team_family,
    })
}

/// The names of the session options `own` gives (`endpoint: null` is one).
pub fn own_option_names(own: &Value) -> Vec<String> {
    SESSION_OPTIONS
        .iter()
        .filter(|k| {
            own.get(**k)
                .is_some_and(|v| !v.is_null() || **k == "endpoint")
        })
        .map(|k| (*k).to_owned())
        .collect()
}

/// The built-in agent a member is (a definition whose id is an agent type
/// is that agent); `None` for any other definition. An agent type the
/// library does not know is `INVALID_INPUT` naming the nearest one.
fn agent_of(record: &MemberRecord, path: &str) -> Result<Option<&'static AgentSpec>> {
    if let Some(spec) = agents::find(&record.agent_type) {
        return Ok(Some(spec));
    }
    if record.definition.is_some() {
        return Ok(None);
    }
    let known: Vec<&str> = agents::AGENTS.iter().map(|a| a.agent_type).collect();
    let hint = nearest_known(&record.agent_type, &known)
        .map(|near| format!(" (did you mean '{near}'?)"))
        .unwrap_or_default();
    Err(AgentContextError::invalid(format!(
        "{path}.agentType must be {} (or the member given by its definition), got \"{}\"{hint}",
        agents::known_list(),
        record.agent_type
    )))
}

/// The team's endpoint speaks one family: with no `api`, the members that
/// take it must all call the same one by default. `takers`: `(id, family)`.
pub fn check_team_family(team: &TeamConfig, takers: &[(&str, ApiFamily)]) -> Result<()> {
    let Some(endpoint) = &team.endpoint else {
        return Ok(());
    };
    if endpoint.api.is_some() || takers.windows(2).all(|w| w[0].1 == w[1].1) {
        return Ok(());
    }
    let list: Vec<String> = takers
        .iter()
        .map(|(id, f)| format!("{id}: '{}'", f.name()))
        .collect();
    Err(AgentContextError::invalid(format!(
        "options.endpoint has no api, and the members that take it call different API families ({}): name its family in options.endpoint.api, or give members endpoints of their own",
        list.join(", ")
    )))
}
