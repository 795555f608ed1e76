//! `options.host`: the other machine an agent runs on, and the channel that
//! reaches it — OpenSSH, `docker exec` (or podman), `kubectl exec`, or the
//! host application's own function. Read once; every problem names its
//! field (`options.host.ssh.port`).

use serde_json::{Map, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;

/// Where the agent runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RemoteHost {
    Ssh(SshHost),
    Docker(DockerHost),
    Kubernetes(KubernetesHost),
    /// The host application's `exec(argv, env)` function builds the local
    /// command that runs `argv` on the other side.
    Exec,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SshHost {
    pub host: String,
    pub user: Option<String>,
    pub port: Option<u16>,
    pub identity_file: Option<String>,
    /// `Key=Value` settings, each given to `ssh -o`.
    pub options: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DockerHost {
    pub container: String,
    pub user: Option<String>,
    /// The executable: `docker`, or one that takes the same arguments
    /// (`podman`).
    pub docker: String,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KubernetesHost {
    pub pod: String,
    pub namespace: Option<String>,
    pub container: Option<String>,
    pub context: Option<String>,
    pub kubectl: String,
}

/// The `ssh -o` settings the channel sets itself: the shared connection,
/// and what keeps stdin and stdout the agent's.
const OWN_SSH_OPTIONS: &[&str] = &[
    "BatchMode",
    "ControlMaster",
    "ControlPath",
    "ControlPersist",
    "ForkAfterAuthentication",
    "RemoteCommand",
    "RequestTTY",
    "SessionType",
    "StdinNull",
];

const CHANNELS: &[&str] = &["ssh", "docker", "kubernetes", "exec"];

impl RemoteHost {
    /// Reads `value` (`options.host`; `field` names it in messages). The
    /// function form comes as `{ exec: { function: true } }`: the host
    /// keeps the function, the core what it is given and what it answers.
    pub fn read(value: &Value, field: &str) -> Result<RemoteHost> {
        let map = object(value, field)?;
        let given: Vec<&str> = CHANNELS
            .iter()
            .copied()
            .filter(|k| map.get(*k).is_some_and(|v| !v.is_null()))
            .collect();
        if let Some(other) = map.keys().find(|k| !CHANNELS.contains(&k.as_str())) {
            return Err(AgentContextError::invalid(format!(
                "{field}.{other} is not a channel: {field} takes one of ssh, docker, kubernetes or exec"
            )));
        }
        let channel = match given.as_slice() {
            [one] => *one,
            [] => {
                return Err(AgentContextError::invalid(format!(
                    "{field} must name its channel: one of ssh, docker, kubernetes or exec"
                )))
            }
            many => {
                return Err(AgentContextError::invalid(format!(
                    "{field} takes one channel, got {}",
                    many.join(" and ")
                )))
            }
        };
        let path = format!("{field}.{channel}");
        let inner = &map[channel];
        match channel {
            "ssh" => read_ssh(inner, &path).map(RemoteHost::Ssh),
            "docker" => read_docker(inner, &path).map(RemoteHost::Docker),
            "kubernetes" => read_kubernetes(inner, &path).map(RemoteHost::Kubernetes),
            _ => match inner {
                Value::Object(m) if m.get("function") == Some(&Value::Bool(true)) => {
                    Ok(RemoteHost::Exec)
                }
                other => Err(AgentContextError::invalid(format!(
                    "{path} must be a function (argv, env) => ({{ command, args }}), got {}",
                    type_name(other)
                ))),
            },
        }
    }

    /// How messages name the other side: `ssh dev@build-1:2222`,
    /// `docker container agents`, `kubernetes pod ci/agent-0`.
    pub fn name(&self) -> String {
        match self {
            RemoteHost::Ssh(s) => {
                let user = s
                    .user
                    .as_deref()
                    .map(|u| format!("{u}@"))
                    .unwrap_or_default();
                let port = s.port.map(|p| format!(":{p}")).unwrap_or_default();
                format!("ssh {user}{}{port}", s.host)
            }
            RemoteHost::Docker(d) => format!("{} container {}", d.docker, d.container),
            RemoteHost::Kubernetes(k) => match &k.namespace {
                Some(ns) => format!("kubernetes pod {ns}/{}", k.pod),
                None => format!("kubernetes pod {}", k.pod),
            },
            RemoteHost::Exec => "the host's exec channel".to_owned(),
        }
    }
}

fn object<'a>(value: &'a Value, field: &str) -> Result<&'a Map<String, Value>> {
    match value {
        Value::Object(map) => Ok(map),
        other => Err(AgentContextError::invalid(format!(
            "{field} must be an object, got {}",
            type_name(other)
        ))),
    }
}

/// Reads an object's fields, refusing the keys it does not take.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    path: &'a str,
}

impl<'a> Fields<'a> {
    fn new(value: &'a Value, path: &'a str, known: &[&str]) -> Result<Fields<'a>> {
        let map = object(value, path)?;
        if let Some(other) = map.keys().find(|k| !known.contains(&k.as_str())) {
            return Err(AgentContextError::invalid(format!(
                "{path}.{other} is not an option here: {path} takes {}",
                known.join(", ")
            )));
        }
        Ok(Fields { map, path })
    }

    /// A non-empty string that cannot be read as an option or split by a
    /// shell (no leading `-`, no whitespace or control characters) when
    /// `word`.
    fn text(&self, key: &str, word: bool) -> Result<Option<String>> {
        let value = match self.map.get(key) {
            None | Some(Value::Null) => return Ok(None),
            Some(Value::String(s)) => s,
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "{}.{key} must be a string, got {}",
                    self.path,
                    type_name(other)
                )))
            }
        };
        if value.is_empty() || value.contains('\0') {
            return Err(AgentContextError::invalid(format!(
                "{}.{key} must be a non-empty string without NUL",
                self.path
            )));
        }
        if word
            && (value.starts_with('-')
                || value.chars().any(|c| c.is_whitespace() || c.is_control()))
        {
            return Err(AgentContextError::invalid(format!(
                "{}.{key} must not start with '-' or hold spaces or control characters, got {value:?}",
                self.path
            )));
        }
        Ok(Some(value.clone()))
    }

    fn required(&self, key: &str, word: bool) -> Result<String> {
        self.text(key, word)?
            .ok_or_else(|| AgentContextError::invalid(format!("{}.{key} is required", self.path)))
    }
}

fn read_ssh(value: &Value, path: &str) -> Result<SshHost> {
    let f = Fields::new(
        value,
        path,
        &["host", "user", "port", "identityFile", "options"],
    )?;
    let port = match f.map.get("port") {
        None | Some(Value::Null) => None,
        Some(Value::Number(n)) => match n.as_u64() {
            Some(p @ 1..=65535) => Some(p as u16),
            _ => {
                return Err(AgentContextError::invalid(format!(
                    "{path}.port must be a whole number from 1 to 65535, got {n}"
                )))
            }
        },
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{path}.port must be a number, got {}",
                type_name(other)
            )))
        }
    };
    let options = match f.map.get("options") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Array(list)) => list
            .iter()
            .enumerate()
            .map(|(i, item)| ssh_option(item, &format!("{path}.options[{i}]")))
            .collect::<Result<_>>()?,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{path}.options must be an array of 'Key=Value' strings, got {}",
                type_name(other)
            )))
        }
    };
    Ok(SshHost {
        host: f.required("host", true)?,
        user: f.text("user", true)?,
        port,
        identity_file: f.text("identityFile", false)?,
        options,
    })
}

/// One `ssh -o` setting: `Key=Value`, a key of letters that the channel
/// does not set itself.
fn ssh_option(item: &Value, path: &str) -> Result<String> {
    let Value::String(text) = item else {
        return Err(AgentContextError::invalid(format!(
            "{path} must be a 'Key=Value' string, got {}",
            type_name(item)
        )));
    };
    let key = text.split('=').next().unwrap_or("");
    if key.is_empty()
        || !key.chars().all(|c| c.is_ascii_alphanumeric())
        || !text.contains('=')
        || text.contains(['\0', '\n', '\r'])
    {
        return Err(AgentContextError::invalid(format!(
            "{path} must be an ssh setting 'Key=Value' (as ssh -o takes it), got {text:?}"
        )));
    }
    if let Some(own) = OWN_SSH_OPTIONS.iter().find(|o| o.eq_ignore_ascii_case(key)) {
        return Err(AgentContextError::invalid(format!(
            "{path}: {own} is set by the channel itself (one shared connection per session, the agent's stdin and stdout), got {text:?}"
        )));
    }
    Ok(text.clone())
}

fn read_docker(value: &Value, path: &str) -> Result<DockerHost> {
    let f = Fields::new(value, path, &["container", "user", "docker"])?;
    Ok(DockerHost {
        container: f.required("container", true)?,
        user: f.text("user", true)?,
        docker: f
            .text("docker", false)?
            .unwrap_or_else(|| "docker".to_owned()),
    })
}

fn read_kubernetes(value: &Value, path: &str) -> Result<KubernetesHost> {
    let f = Fields::new(
        value,
        path,
        &["pod", "namespace", "container", "context", "kubectl"],
    )?;
    Ok(KubernetesHost {
        pod: f.required("pod", true)?,
        namespace: f.text("namespace", true)?,
        container: f.text("container", true)?,
        context: f.text("context", true)?,
        kubectl: f
            .text("kubectl", false)?
            .unwrap_or_else(|| "kubectl".to_owned()),
    })
}
