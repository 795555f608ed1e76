//! `options.endpoint`: the model endpoint a run points its agent at
//! (`{ baseUrl, api?, apiKey?, model?, headers? }`), read and checked here,
//! every problem naming its field. [`endpoint_setup`] turns it and an agent
//! into what the run owns: variables of the child's environment, files in
//! a folder the host creates and removes, and arguments — from what the
//! agent's file in `src/agents/` says ([`crate::agents::EndpointSpec`]).
//!
//! ```
//! use agent_context::{agents, launch::endpoint};
//! use serde_json::json;
//!
//! let given = json!({ "baseUrl": "http://127.0.0.1:8080", "apiKey": "k" });
//! let e = endpoint::Endpoint::read(&given, "options.endpoint").unwrap();
//! let claude = agents::find("claude-code").unwrap();
//! let setup = endpoint::endpoint_setup(claude, endpoint::Protocol::Cli, &e, "/tmp/run", None).unwrap();
//! assert!(setup.env.contains(&("ANTHROPIC_BASE_URL".into(), "http://127.0.0.1:8080".into())));
//! ```

mod setup;
#[cfg(test)]
mod tests;

pub use crate::agents::ApiFamily;
pub use setup::{
    endpoint_setup, join, merge_env, merge_json, merge_json_files, EndpointSetup, Protocol,
    RunFile, NO_KEY, SETTINGS_FILE,
};

use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::{type_name, Obj};

/// A model endpoint, checked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Endpoint {
    /// `http(s)://host[:port][/path]`, without a trailing `/`.
    pub base_url: String,
    /// The family named by `api`; `None`: the agent's own.
    pub api: Option<ApiFamily>,
    pub api_key: Option<String>,
    pub model: Option<String>,
    /// In the order given.
    pub headers: Vec<(String, String)>,
    /// The field path, for messages (`options.endpoint`).
    pub field: String,
}

impl Endpoint {
    /// Reads `value` (the object at `field`).
    pub fn read(value: &Value, field: &str) -> Result<Endpoint> {
        let o = Obj::new(value, field)?;
        let base_url = match o.get("baseUrl") {
            Some(Value::String(s)) => check_base_url(s, &o.path_of("baseUrl"))?,
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "{} must be a URL string, got {}",
                    o.path_of("baseUrl"),
                    type_name(other)
                )))
            }
            None => {
                return Err(AgentContextError::invalid(format!(
                    "{} is required (the endpoint's URL, e.g. \"http://127.0.0.1:8080\")",
                    o.path_of("baseUrl")
                )))
            }
        };
        let api = match o.opt_str("api")? {
            None => None,
            Some(name) => Some(ApiFamily::parse(name).ok_or_else(|| {
                AgentContextError::invalid(format!(
                    "{} must be one of {}, got \"{name}\"",
                    o.path_of("api"),
                    ApiFamily::quoted_names()
                ))
            })?),
        };
        let text = |key: &str| -> Result<Option<String>> {
            match o.opt_str(key)? {
                None => Ok(None),
                Some("") => Err(AgentContextError::invalid(format!(
                    "{} must not be empty (leave it out instead)",
                    o.path_of(key)
                ))),
                Some(s) if s.chars().any(char::is_control) => Err(AgentContextError::invalid(
                    format!("{} must not hold control characters", o.path_of(key)),
                )),
                Some(s) => Ok(Some(s.to_owned())),
            }
        };
        Ok(Endpoint {
            base_url,
            api,
            api_key: text("apiKey")?,
            model: text("model")?,
            headers: read_headers(o.get("headers"), &o.path_of("headers"))?,
            field: field.to_owned(),
        })
    }

    /// The path of one of its fields (`options.endpoint.model`).
    pub fn path_of(&self, key: &str) -> String {
        format!("{}.{key}", self.field)
    }
}

/// An absolute `http:` or `https:` URL with a host, no query, fragment,
/// credentials or whitespace; returned without trailing slashes.
fn check_base_url(url: &str, field: &str) -> Result<String> {
    let bad = |why: &str| {
        AgentContextError::invalid(format!(
            "{field} must be an http or https URL such as \"http://127.0.0.1:8080\" ({why}), got \"{}\"",
            url.escape_debug()
        ))
    };
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"))
        .ok_or_else(|| bad("it must start with http:// or https://"))?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("it holds whitespace"));
    }
    if url.contains(['?', '#']) {
        return Err(bad("no query or fragment"));
    }
    let host = rest.split('/').next().unwrap_or("");
    if host.contains('@') {
        return Err(bad("credentials go in apiKey or headers, not in the URL"));
    }
    let (name, port) = host_and_port(host).map_err(bad)?;
    if let Some(port) = port {
        if port.is_empty() || port.len() > 5 || !port.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad("the port must be a number"));
        }
    }
    if name.is_empty() {
        return Err(bad("it names no host"));
    }
    Ok(url.trim_end_matches('/').to_owned())
}

/// A URL's host part (`[v6]:port`, `[v6]`, `name:port` or `name`) as the
/// host's name and the port's text when one is written (what follows `]`
/// without a `:` is no port: `x`); `Err` says what is malformed.
pub(crate) fn host_and_port(host: &str) -> std::result::Result<(&str, Option<&str>), &'static str> {
    match host.strip_prefix('[') {
        Some(v6) => match v6.split_once(']') {
            Some((addr, "")) => Ok((addr, None)),
            Some((addr, tail)) => Ok((addr, Some(tail.strip_prefix(':').unwrap_or("x")))),
            None => Err("an IPv6 address needs its closing ]"),
        },
        None => Ok(match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (host, None),
        }),
    }
}

/// Where a base URL points when that is this machine (`localhost`,
/// `127.x.y.z`, `[::1]`): the host to connect to and the port (the
/// scheme's when none is given). `None` for any other host.
pub fn loopback_address(url: &str) -> Option<(String, u16)> {
    let (rest, default_port) = match url.strip_prefix("http://") {
        Some(rest) => (rest, 80),
        None => (url.strip_prefix("https://")?, 443),
    };
    let (name, port) = host_and_port(rest.split('/').next()?).ok()?;
    let port = match port {
        Some(port) => port.parse().ok().filter(|&p| p != 0)?,
        None => default_port,
    };
    let loopback = name.eq_ignore_ascii_case("localhost")
        || name == "::1"
        || name
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback());
    loopback.then(|| (name.to_ascii_lowercase(), port))
}

/// `headers`: an object of strings; names are HTTP tokens, values hold no
/// line breaks.
pub(crate) fn read_headers(value: Option<&Value>, field: &str) -> Result<Vec<(String, String)>> {
    let map = match value {
        None => return Ok(Vec::new()),
        Some(Value::Object(map)) => map,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{field} must be an object of strings, got {}",
                type_name(other)
            )))
        }
    };
    let token = |c: char| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c);
    map.iter()
        .map(|(name, v)| {
            if name.is_empty() || !name.chars().all(token) {
                return Err(AgentContextError::invalid(format!(
                    "{field} has a header name that is not an HTTP token: \"{}\"",
                    name.escape_debug()
                )));
            }
            match v {
                Value::String(s) if s.contains(['\r', '\n', '\0']) => Err(
                    AgentContextError::invalid(format!("{field}.{name} must not hold line breaks")),
                ),
                Value::String(s) => Ok((name.clone(), s.trim().to_owned())),
                other => Err(AgentContextError::invalid(format!(
                    "{field}.{name} must be a string, got {}",
                    type_name(other)
                ))),
            }
        })
        .collect()
}
