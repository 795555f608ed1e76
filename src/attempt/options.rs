//! `RunAgentOptions` (SPEC §10), read from the JSON the Node runner passes
//! (everything but `signal`, `onEvent` and `env`, which stay in JS). Every
//! problem names its field; the run then ends at once with `invalid_params`.

use serde_json::Value;

use crate::agents::AgentSpec;
use crate::attempt::own_retry_config;
use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};
use crate::launch::attachments::{read_attachments, Attachment};
use crate::launch::endpoint::{
    endpoint_setup, join, merge_json, Endpoint, EndpointSetup, Protocol,
};
use crate::launch::invocation::{InvocationFile, InvocationOptions, Sandbox};
use crate::launch::mcp_servers::cli::cli_settings;
use crate::launch::mcp_servers::{read_mcp_servers, McpServer};
use crate::launch::platform::Platform;
use crate::launch::run_home::{home_request, HomeRequest};

/// `timeout`: seconds without any output before the run is stopped.
pub const DEFAULT_TIMEOUT_S: f64 = 300.0;
/// `maxDuration`: seconds the whole call may take, retries included.
pub const DEFAULT_MAX_DURATION_S: f64 = 1800.0;
pub const DEFAULT_MAX_RETRIES: u32 = 1;
/// The largest `timeout` and `maxDuration`: one day.
pub const MAX_SECONDS: f64 = 86_400.0;
pub const MAX_RETRIES_LIMIT: u32 = 10;

/// The options with the defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct RunOptions {
    pub cd: String,
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub sandbox: Option<Sandbox>,
    pub yolo: Option<bool>,
    /// The executable, as the host resolved it.
    pub command: String,
    pub idle_timeout_ms: u64,
    pub max_duration_ms: u64,
    pub max_retries: u32,
    /// Where a system prompt too long for an argument is written (the Node
    /// runner names a temp file).
    pub system_prompt_file: Option<String>,
    /// Where the agent is told to write its usage (GitHub Copilot's
    /// `--usage-output-file`; the Node runner names a temp file, reads it
    /// after each attempt and removes it). Ignored for agents without one.
    pub usage_file: Option<String>,
    /// Where the settings file that bounds the agent's own retries is
    /// written, for agents that take one (the Node runner names a file in
    /// the folder it creates and removes).
    pub settings_file: Option<String>,
    /// `extraArgs`: more arguments, after ours and before any positional one.
    pub extra_args: Vec<String>,
    /// `endpoint`: the model endpoint the agent is pointed at.
    pub endpoint: Option<Endpoint>,
    /// The folder the host creates for the run's own files and removes
    /// after it (the endpoint's settings), named by the host.
    pub run_folder: Option<String>,
    /// What the endpoint adds, once [`RunOptions::apply_endpoint`] ran.
    pub endpoint_setup: Option<EndpointSetup>,
    /// `mcpServers`: handed to the agent as its CLI takes them
    /// ([`crate::launch::mcp_servers::cli`]).
    pub mcp_servers: Vec<McpServer>,
    /// The system the command runs on (set by the host, not read from the
    /// options): its command-line limits are counted.
    pub platform: Option<Platform>,
    /// The child's whole environment once the host knows it (counted on
    /// Linux and macOS, where argv and environment share one limit).
    pub env: Option<Vec<(String, String)>>,
    /// `attachments`: images and resources after the prompt.
    pub attachments: Vec<Attachment>,
    /// The run's home for the agent, once [`RunOptions::apply_home`] ran
    /// and when the run gives the agent settings (`crate::launch::run_home`).
    pub home: Option<HomeRequest>,
    /// `outputSchema`: the JSON Schema the reply must match
    /// ([`crate::structured`]); on the command line of a CLI that takes one.
    pub output_schema: Option<crate::structured::OutputSchema>,
}

impl RunOptions {
    /// Reads `options`; `command` is the executable the runner resolved
    /// (`options.command`, else the registry's name on the PATH).
    pub fn read(value: &Value, command: &str) -> Result<RunOptions> {
        let o = Obj::new(value, "options")?;
        let cd = o.req_str("cd")?;
        if cd.is_empty() {
            return Err(AgentContextError::invalid("options.cd must not be empty"));
        }
        if let Some(protocol) = o.opt_str("protocol")? {
            if protocol != "cli" {
                return Err(AgentContextError::invalid(format!(
                    "options.protocol must be 'cli' for a command-line run (runs over 'acp' go to the ACP runner), got \"{protocol}\""
                )));
            }
        }
        let text = |key: &str| -> Result<Option<String>> {
            Ok(o.opt_str(key)?.filter(|v| !v.is_empty()).map(str::to_owned))
        };
        let session_id = text("sessionId")?;
        let sandbox = match o.opt_str("sandbox")? {
            None => None,
            Some(name) => Some(Sandbox::parse(name).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "options.sandbox must be one of {}, got \"{name}\"",
                    Sandbox::NAMES.map(|n| format!("'{n}'")).join(", ")
                ))
            })?),
        };
        Ok(RunOptions {
            cd: cd.to_owned(),
            model: text("model")?,
            session_id,
            sandbox,
            yolo: o.opt_bool("yolo")?,
            command: command.to_owned(),
            idle_timeout_ms: seconds(&o, "timeout", DEFAULT_TIMEOUT_S)?,
            max_duration_ms: seconds(&o, "maxDuration", DEFAULT_MAX_DURATION_S)?,
            max_retries: retries(&o)?,
            system_prompt_file: text("systemPromptFile")?,
            usage_file: text("usageFile")?,
            // The run's own folder's, when the host names only the folder
            // (a session over the CLI): the agent's own retries are bounded
            // there as in a run.
            settings_file: match (text("settingsFile")?, text("runFolder")?) {
                (Some(file), _) => Some(file),
                (None, Some(folder)) if !folder.is_empty() => Some(crate::launch::endpoint::join(
                    &folder,
                    crate::launch::endpoint::SETTINGS_FILE,
                )),
                _ => None,
            },
            extra_args: o
                .opt_str_list("extraArgs")?
                .unwrap_or_default()
                .into_iter()
                .map(str::to_owned)
                .collect(),
            endpoint: match o.get("endpoint") {
                None => None,
                Some(value) => Some(Endpoint::read(value, "options.endpoint")?),
            },
            run_folder: text("runFolder")?,
            endpoint_setup: None,
            mcp_servers: read_mcp_servers(o.get("mcpServers").unwrap_or(&Value::Null))?,
            platform: None,
            env: None,
            attachments: read_attachments(
                o.get("attachments").unwrap_or(&Value::Null),
                "options.attachments",
            )?,
            home: None,
            output_schema: match o.get("outputSchema") {
                None => None,
                Some(schema) => Some(crate::structured::OutputSchema::read(
                    schema,
                    "options.outputSchema",
                )?),
            },
        })
    }

    /// Points `agent` at `endpoint` (when given) over `protocol`: the model
    /// becomes the endpoint's, and [`RunOptions::endpoint_setup`] holds the
    /// variables, files and arguments the run adds. `INVALID_INPUT` names
    /// the field.
    pub fn apply_endpoint(&mut self, agent: &AgentSpec, protocol: Protocol) -> Result<()> {
        let Some(endpoint) = &self.endpoint else {
            return Ok(());
        };
        let folder = self.run_folder.as_deref().unwrap_or("");
        let setup = endpoint_setup(agent, protocol, endpoint, folder, self.model.as_deref())?;
        if folder.is_empty() && !setup.files.is_empty() {
            return Err(AgentContextError::invalid(format!(
                "options.endpoint needs a folder for {}'s settings file (options.runFolder)",
                agent.name
            )));
        }
        self.model = setup.model.clone();
        self.endpoint_setup = Some(setup);
        Ok(())
    }

    /// Gives `agent` a home of the run's own when the run has settings for
    /// it (after [`RunOptions::apply_endpoint`]): the endpoint's, the MCP
    /// servers over its command line, the bound on its own retries. Its
    /// variable joins [`RunOptions::endpoint_env`].
    pub fn apply_home(&mut self, agent: &AgentSpec, protocol: Protocol) -> Result<()> {
        if agent.home.is_none() {
            return Ok(());
        }
        let mut keys = Value::Object(Default::default());
        if let Some(settings) = self
            .endpoint_setup
            .as_ref()
            .and_then(|s| s.home_settings.clone())
        {
            merge_json(&mut keys, settings);
        }
        let mut servers = false;
        if protocol == Protocol::Cli {
            let approve =
                self.yolo == Some(true) || self.sandbox == Some(Sandbox::DangerFullAccess);
            if let Some(given) = cli_settings(agent, &self.mcp_servers, approve)? {
                merge_json(&mut keys, given);
                servers = true;
            }
        }
        if let Some(retries) = own_retry_config(agent, self.max_retries, None, &[]).home_settings {
            merge_json(&mut keys, retries);
        }
        let folder = self.run_folder.as_deref().unwrap_or("");
        let files = self
            .endpoint_setup
            .iter()
            .flat_map(|s| &s.home_files)
            .map(|f| (f.path.clone(), f.content.clone()))
            .collect();
        self.home = home_request(agent, folder, keys, files);
        if folder.is_empty() {
            let field = if servers {
                Some("options.mcpServers")
            } else if self
                .endpoint_setup
                .as_ref()
                .is_some_and(|s| s.home_settings.is_some())
            {
                Some("options.endpoint")
            } else {
                None
            };
            if let Some(field) = field {
                return Err(AgentContextError::invalid(format!(
                    "{field} needs a folder for {}'s home (options.runFolder)",
                    agent.name
                )));
            }
        }
        Ok(())
    }

    /// The variables the run's own configuration sets: the endpoint's and
    /// the run home's (none without either).
    pub fn endpoint_env(&self) -> Vec<(String, String)> {
        let mut env: Vec<(String, String)> = self
            .endpoint_setup
            .as_ref()
            .map(|s| s.env.clone())
            .unwrap_or_default();
        if let Some(home) = &self.home {
            env.push((home.env.clone(), home.env_value()));
        }
        env
    }

    /// The endpoint's files, at their place in the run's folder.
    pub fn endpoint_files(&self) -> Vec<InvocationFile> {
        let folder = self.run_folder.as_deref().unwrap_or("");
        self.endpoint_setup
            .iter()
            .flat_map(|s| &s.files)
            .map(|f| InvocationFile {
                path: join(folder, &f.path),
                content: f.content.clone(),
            })
            .collect()
    }

    /// The endpoint's arguments (none without one).
    pub fn endpoint_args(&self) -> Vec<String> {
        self.endpoint_setup
            .as_ref()
            .map(|s| s.args.clone())
            .unwrap_or_default()
    }

    /// What `build_cli_invocation` takes.
    pub fn invocation(&self) -> InvocationOptions {
        InvocationOptions {
            command: Some(self.command.clone()),
            model: self.model.clone(),
            session_id: self.session_id.clone(),
            // Resume is verified: never a new session for an unknown id.
            resume_existing: true,
            sandbox: self.sandbox,
            yolo: self.yolo,
            system_prompt_file: self.system_prompt_file.clone(),
            usage_file: self.usage_file.clone(),
            extra_args: self.extra_args.clone(),
            mcp_servers: self.mcp_servers.clone(),
            platform: self.platform,
            env: self.env.clone(),
            attachments: self.attachments.clone(),
            output_schema: self.output_schema.clone(),
            output_schema_file: self
                .run_folder
                .as_deref()
                .filter(|f| !f.is_empty())
                .map(|folder| join(folder, crate::structured::SCHEMA_FILE)),
        }
    }
}

/// A number of seconds above 0 and at most a day, as milliseconds.
fn seconds(o: &Obj, key: &str, default: f64) -> Result<u64> {
    let value = match o.get(key) {
        None | Some(Value::Null) => default,
        Some(Value::Number(n)) => n.as_f64().unwrap_or(f64::NAN),
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "options.{key} must be a number of seconds, got {}",
                type_name(other)
            )))
        }
    };
    if !(value > 0.0 && value <= MAX_SECONDS) {
        return Err(AgentContextError::invalid(format!(
            "options.{key} must be more than 0 and at most {MAX_SECONDS} seconds, got {value}"
        )));
    }
    Ok((value * 1000.0).round() as u64)
}

fn retries(o: &Obj) -> Result<u32> {
    let bad = |got: String| {
        AgentContextError::invalid(format!(
            "options.maxRetries must be a whole number from 0 to {MAX_RETRIES_LIMIT}, got {got}"
        ))
    };
    match o.get("maxRetries") {
        None | Some(Value::Null) => Ok(DEFAULT_MAX_RETRIES),
        Some(Value::Number(n)) => match n.as_u64() {
            Some(v) if v <= u64::from(MAX_RETRIES_LIMIT) => Ok(v as u32),
            _ => Err(bad(n.to_string())),
        },
        Some(other) => Err(bad(type_name(other).to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_settings_file_is_the_run_folders_unless_named() {
        let read = |v: Value| RunOptions::read(&v, "x").unwrap().settings_file;
        assert_eq!(read(json!({"cd": "/w"})), None);
        assert_eq!(
            read(json!({"cd": "/w", "runFolder": "/runs/run-1"})).as_deref(),
            Some("/runs/run-1/settings.json")
        );
        assert_eq!(
            read(json!({"cd": "/w", "runFolder": "/runs/run-1", "settingsFile": "/s.json"}))
                .as_deref(),
            Some("/s.json")
        );
    }

    #[test]
    fn defaults_and_field_names_in_errors() {
        let o = RunOptions::read(&json!({"cd": "/w"}), "claude").unwrap();
        assert_eq!(
            (o.idle_timeout_ms, o.max_duration_ms, o.max_retries),
            (300_000, 1_800_000, 1)
        );
        assert_eq!(o.command, "claude");
        let o = RunOptions::read(
            &json!({"cd": "/w", "timeout": 1.5, "maxDuration": 20, "maxRetries": 0, "sessionId": "", "sandbox": "read-only"}),
            "x",
        )
        .unwrap();
        assert_eq!(
            (o.idle_timeout_ms, o.max_duration_ms, o.max_retries),
            (1500, 20_000, 0)
        );
        assert_eq!(o.session_id, None);
        assert_eq!(o.sandbox, Some(Sandbox::ReadOnly));
        let err = |v: Value| RunOptions::read(&v, "x").unwrap_err().message().to_owned();
        assert_eq!(err(json!({})), "options.cd must be a string, got undefined");
        assert!(err(json!({"cd": "/w", "timeout": 0}))
            .starts_with("options.timeout must be more than 0"));
        assert!(err(json!({"cd": "/w", "maxDuration": "9"}))
            .starts_with("options.maxDuration must be a number"));
        assert!(err(json!({"cd": "/w", "maxRetries": 11}))
            .starts_with("options.maxRetries must be a whole number"));
        assert!(err(json!({"cd": "/w", "maxRetries": 1.5})).starts_with("options.maxRetries"));
        assert!(err(json!({"cd": "/w", "sandbox": "none"}))
            .starts_with("options.sandbox must be one of"));
        assert!(err(json!({"cd": "/w", "protocol": "acp"}))
            .starts_with("options.protocol must be 'cli' for a command-line run"));
        assert!(err(json!({"cd": ""})).contains("options.cd"));
    }
}
