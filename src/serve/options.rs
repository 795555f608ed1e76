//! The options of a server of ACP over HTTP and WebSocket, read once, every
//! problem naming its field, with the defaults of its security model: it
//! listens on 127.0.0.1, at `/acp`; a bearer token (the caller's, or one the
//! host generated); no `Origin` allowed unless listed (`null` never by
//! default); no `Host` but the listen address's (and, on loopback,
//! `localhost`, `127.0.0.1` and `[::1]`) unless listed; 16 MiB a message, 64
//! connections, 120 s without traffic or pong; no stdio MCP server from a
//! client unless allowed.

use serde::Serialize;
use serde_json::Value;

use crate::error::{AgentContextError, Result};
use crate::formats::input_keys::unknown_key_warnings;
use crate::formats::json_read::type_name;

pub const DEFAULT_HOST: &str = "127.0.0.1";
pub const DEFAULT_PORT: u16 = 7700;
pub const DEFAULT_PATH: &str = "/acp";
pub const DEFAULT_MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;
pub const DEFAULT_MAX_CONNECTIONS: u32 = 64;
pub const DEFAULT_IDLE_S: f64 = 120.0;
/// A token's characters (they also make a WebSocket subprotocol's), and
/// the fewest it may have.
pub const TOKEN_CHARS: &str = "A-Z a-z 0-9 . _ ~ -";
pub const TOKEN_MIN: usize = 16;

/// The options' keys (the host's own — the agent, the logger — among them).
pub const SERVE_KEYS: &[&str] = &[
    "agent",
    "createAgent",
    "listen",
    "path",
    "token",
    "origins",
    "allowedHosts",
    "allowClientMcp",
    "cd",
    "limits",
    "logger",
];

/// What a server bounds.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// The largest message a client may send (an HTTP body, a WebSocket message).
    pub max_message_bytes: u64,
    /// ACP connections at once (a WebSocket, or a Streamable HTTP connection
    /// from its `initialize` to its end).
    pub max_connections: u32,
    /// A connection with no traffic (and, over WebSocket, no pong) for this
    /// long is closed.
    pub idle_ms: u64,
}

/// A server's options, checked, the defaults filled in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ServeOptions {
    /// The address to listen on.
    pub host: String,
    /// The port (0: one the system picks).
    pub port: u16,
    /// The one path both transports answer on.
    pub path: String,
    pub token: String,
    /// Whether the token was generated (the host says it once).
    pub token_generated: bool,
    /// Origins a browser page may connect from (`scheme://host[:port]`,
    /// lowercase; `null` only when listed).
    pub origins: Vec<String>,
    /// More names the `Host` may carry (`name` or `name:port`, lowercase).
    pub allowed_hosts: Vec<String>,
    pub allow_client_mcp: bool,
    /// The folder every conversation works in (its real path).
    pub cd: String,
    pub limits: Limits,
    /// Keys the options do not know.
    pub warnings: Vec<String>,
}

impl ServeOptions {
    /// Reads `options` (`cd` made real by the host); `generated` is the
    /// token to use when none is given (32 random bytes, base64url, from
    /// the host). A given token is never named in an error, only its length.
    pub fn read(options: &Value, generated: &str) -> Result<ServeOptions> {
        let Value::Object(map) = options else {
            return Err(AgentContextError::invalid(format!(
                "options must be an object, got {}",
                type_name(options)
            )));
        };
        let keys: Vec<&String> = map.keys().collect();
        let warnings = unknown_key_warnings("the server's options", &keys, SERVE_KEYS);
        let given = |key: &str| map.get(key).filter(|v| !v.is_null());
        let (host, port) = listen(given("listen"))?;
        let path = match given("path") {
            None => DEFAULT_PATH.to_owned(),
            Some(Value::String(p)) if p.starts_with('/') && path_ok(p) => p.clone(),
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "options.path must be a URL path starting with / (no query, fragment or spaces), got {}",
                    shown(other)
                )))
            }
        };
        let (token, token_generated) = match given("token") {
            None => (generated.to_owned(), true),
            Some(Value::String(t)) if token_ok(t) => (t.clone(), false),
            Some(Value::String(t)) => {
                return Err(AgentContextError::invalid(format!(
                    "options.token must be at least {TOKEN_MIN} characters of {TOKEN_CHARS}, got a string of {} characters{}",
                    t.chars().count(),
                    if t.chars().count() >= TOKEN_MIN { " with others among them" } else { "" }
                )))
            }
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "options.token must be a string, got {}",
                    type_name(other)
                )))
            }
        };
        if !token_ok(&token) {
            return Err(AgentContextError::invalid(
                "the generated token must be at least 16 characters of A-Z a-z 0-9 . _ ~ - (the host's)",
            ));
        }
        let origins = list(given("origins"), "options.origins", |o| {
            origin_ok(o).then(|| o.to_ascii_lowercase()).ok_or_else(|| {
                "an origin (scheme://host or scheme://host:port, no path) or \"null\"".to_owned()
            })
        })?;
        let allowed_hosts = list(given("allowedHosts"), "options.allowedHosts", |h| {
            host_name_ok(h)
                .then(|| h.to_ascii_lowercase())
                .ok_or_else(|| "a host name, or name:port".to_owned())
        })?;
        let allow_client_mcp = match given("allowClientMcp") {
            None => false,
            Some(Value::Bool(b)) => *b,
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "options.allowClientMcp must be a boolean, got {}",
                    type_name(other)
                )))
            }
        };
        let cd = match given("cd") {
            Some(Value::String(cd)) if !cd.is_empty() => cd.clone(),
            other => {
                return Err(AgentContextError::invalid(format!(
                "options.cd must be the folder conversations work in (a non-empty string), got {}",
                other.map_or("undefined".to_owned(), shown)
            )))
            }
        };
        Ok(ServeOptions {
            host,
            port,
            path,
            token,
            token_generated,
            origins,
            allowed_hosts,
            allow_client_mcp,
            cd,
            limits: limits(given("limits"))?,
            warnings,
        })
    }
}

/// Whether `token` may be a bearer token (and a WebSocket subprotocol's
/// tail): `[A-Za-z0-9._~-]{16,}`.
pub fn token_ok(token: &str) -> bool {
    token.len() >= TOKEN_MIN
        && token
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._~-".contains(&b))
}

fn path_ok(path: &str) -> bool {
    !path.contains(['?', '#']) && !path.chars().any(|c| c.is_whitespace() || c.is_control())
}

fn shown(value: &Value) -> String {
    match value {
        Value::String(s) => format!("\"{}\"", s.escape_debug()),
        other => type_name(other).to_owned(),
    }
}

/// `listen: { host?, port? }`.
fn listen(value: Option<&Value>) -> Result<(String, u16)> {
    let Some(value) = value else {
        return Ok((DEFAULT_HOST.to_owned(), DEFAULT_PORT));
    };
    let Value::Object(map) = value else {
        return Err(AgentContextError::invalid(format!(
            "options.listen must be an object {{ host?, port? }}, got {}",
            type_name(value)
        )));
    };
    if let Some(key) = map.keys().find(|k| !["host", "port"].contains(&k.as_str())) {
        return Err(AgentContextError::invalid(format!(
            "options.listen takes host and port, got the key \"{}\"",
            key.escape_debug()
        )));
    }
    let host = match map.get("host").filter(|v| !v.is_null()) {
        None => DEFAULT_HOST.to_owned(),
        Some(Value::String(h)) if listen_host_ok(h) => h.to_ascii_lowercase(),
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "options.listen.host must be an address or host name to listen on (such as \"127.0.0.1\" or \"::1\"), got {}",
                shown(other)
            )))
        }
    };
    let port = match map.get("port").filter(|v| !v.is_null()) {
        None => DEFAULT_PORT,
        Some(Value::Number(n)) if n.as_u64().is_some_and(|p| p <= 65535) => {
            n.as_u64().unwrap_or(0) as u16
        }
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "options.listen.port must be a whole number from 0 to 65535, got {}",
                match other {
                    Value::Number(n) => n.to_string(),
                    v => type_name(v).to_owned(),
                }
            )))
        }
    };
    Ok((host, port))
}

fn listen_host_ok(host: &str) -> bool {
    !host.is_empty()
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-:_%".contains(&b))
}

/// `scheme://host[:port]` (no path, query or credentials), or `null`.
fn origin_ok(origin: &str) -> bool {
    if origin == "null" {
        return true;
    }
    let Some((scheme, rest)) = origin.split_once("://") else {
        return false;
    };
    let scheme_ok = scheme.starts_with(|c: char| c.is_ascii_alphabetic())
        && scheme
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b));
    scheme_ok && host_name_ok(rest)
}

/// A host as a `Host` header or an origin carries it: `name`,
/// `name:port`, `[v6]` or `[v6]:port`.
fn host_name_ok(host: &str) -> bool {
    let Ok((name, port)) = crate::launch::endpoint::host_and_port(host) else {
        return false;
    };
    let name_ok = !name.is_empty()
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b".-_:%".contains(&b));
    let port_ok = port.map_or(true, |p| {
        !p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit())
    });
    name_ok && port_ok && (host.starts_with('[') || !name.contains(':'))
}

fn list(
    value: Option<&Value>,
    field: &str,
    check: impl Fn(&str) -> std::result::Result<String, String>,
) -> Result<Vec<String>> {
    let Some(value) = value else {
        return Ok(Vec::new());
    };
    let Value::Array(items) = value else {
        return Err(AgentContextError::invalid(format!(
            "{field} must be an array of strings, got {}",
            type_name(value)
        )));
    };
    items
        .iter()
        .enumerate()
        .map(|(i, item)| match item {
            Value::String(s) => check(s).map_err(|what| {
                AgentContextError::invalid(format!(
                    "{field}[{i}] must be {what}, got \"{}\"",
                    s.escape_debug()
                ))
            }),
            other => Err(AgentContextError::invalid(format!(
                "{field}[{i}] must be a string, got {}",
                type_name(other)
            ))),
        })
        .collect()
}

/// `limits: { maxMessageBytes?, maxConnections?, idleTimeout? }` (the
/// last in seconds).
fn limits(value: Option<&Value>) -> Result<Limits> {
    let mut limits = Limits {
        max_message_bytes: DEFAULT_MAX_MESSAGE_BYTES,
        max_connections: DEFAULT_MAX_CONNECTIONS,
        idle_ms: (DEFAULT_IDLE_S * 1000.0) as u64,
    };
    let Some(value) = value else {
        return Ok(limits);
    };
    let Value::Object(map) = value else {
        return Err(AgentContextError::invalid(format!(
            "options.limits must be an object {{ maxMessageBytes?, maxConnections?, idleTimeout? }}, got {}",
            type_name(value)
        )));
    };
    for (key, v) in map {
        if v.is_null() {
            continue;
        }
        let number = v.as_f64().filter(|n| n.is_finite() && *n > 0.0);
        let whole = number.filter(|n| n.fract() == 0.0);
        let bad = |what: &str| {
            AgentContextError::invalid(format!(
                "options.limits.{key} must be {what}, got {}",
                match v {
                    Value::Number(n) => n.to_string(),
                    v => type_name(v).to_owned(),
                }
            ))
        };
        match key.as_str() {
            "maxMessageBytes" => {
                limits.max_message_bytes = whole
                    .filter(|n| *n <= 1024.0 * 1024.0 * 1024.0)
                    .ok_or_else(|| bad("a whole number of bytes from 1 to 1 GiB"))?
                    as u64
            }
            "maxConnections" => {
                limits.max_connections = whole
                    .filter(|n| *n <= 65_536.0)
                    .ok_or_else(|| bad("a whole number from 1 to 65536"))?
                    as u32
            }
            "idleTimeout" => {
                let s = number
                    .filter(|n| *n <= 86_400.0)
                    .ok_or_else(|| bad("a number of seconds from 0 to 86400 (not 0)"))?;
                limits.idle_ms = ((s * 1000.0).round() as u64).max(1);
            }
            other => {
                return Err(AgentContextError::invalid(format!(
                    "options.limits takes maxMessageBytes, maxConnections and idleTimeout, got the key \"{}\"",
                    other.escape_debug()
                )))
            }
        }
    }
    Ok(limits)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const GENERATED: &str = "q1w2e3r4t5y6u7i8o9p0q1w2e3r4t5y6u7i8o9p0abc";

    fn read(options: Value) -> Result<ServeOptions> {
        ServeOptions::read(&options, GENERATED)
    }

    #[test]
    fn the_defaults_are_the_security_models() {
        let o = read(json!({"cd": "/w"})).unwrap();
        assert_eq!(
            (o.host.as_str(), o.port, o.path.as_str()),
            ("127.0.0.1", 7700, "/acp")
        );
        assert_eq!((o.token.as_str(), o.token_generated), (GENERATED, true));
        assert!(o.origins.is_empty() && o.allowed_hosts.is_empty() && !o.allow_client_mcp);
        assert_eq!(
            o.limits,
            Limits {
                max_message_bytes: 16 * 1024 * 1024,
                max_connections: 64,
                idle_ms: 120_000
            }
        );
        let o = read(json!({"cd": "/w", "token": "abcdefghijklmnop", "listen": {"host": "::1", "port": 0},
            "origins": ["HTTP://Localhost:5173", "null"], "allowedHosts": ["LB.example"], "allowClientMcp": true,
            "limits": {"maxMessageBytes": 1024, "maxConnections": 2, "idleTimeout": 0.5}, "agent": {}, "logger": {}}))
        .unwrap();
        assert_eq!((o.host.as_str(), o.port), ("::1", 0));
        assert!(!o.token_generated);
        assert_eq!(o.origins, ["http://localhost:5173", "null"]);
        assert_eq!(o.allowed_hosts, ["lb.example"]);
        assert_eq!(
            (
                o.limits.max_message_bytes,
                o.limits.max_connections,
                o.limits.idle_ms
            ),
            (1024, 2, 500)
        );
        assert!(o.warnings.is_empty());
        assert_eq!(
            read(json!({"cd": "/w", "listn": {}}))
                .unwrap()
                .warnings
                .len(),
            1
        );
    }

    #[test]
    fn a_given_token_is_checked_and_never_named() {
        let secret = "short-secret";
        let e = read(json!({"cd": "/w", "token": secret})).unwrap_err();
        assert_eq!(
            e.message(),
            "options.token must be at least 16 characters of A-Z a-z 0-9 . _ ~ -, got a string of 12 characters"
        );
        assert!(!e.message().contains(secret));
        let e = read(json!({"cd": "/w", "token": "long enough but has spaces"})).unwrap_err();
        assert!(
            e.message().ends_with("with others among them"),
            "{}",
            e.message()
        );
        assert!(!e.message().contains("spaces"));
        assert!(token_ok("Ab3-._~Zk9q0Ab3-"));
    }

    #[test]
    fn every_problem_names_its_field() {
        let problems = [
            (
                json!({}),
                "options.cd must be the folder conversations work in",
            ),
            (
                json!({"cd": "/w", "listen": {"port": 70000}}),
                "options.listen.port must be a whole number from 0 to 65535, got 70000",
            ),
            (
                json!({"cd": "/w", "listen": {"host": "a b"}}),
                "options.listen.host must be an address",
            ),
            (
                json!({"cd": "/w", "listen": {"hots": "x"}}),
                "options.listen takes host and port",
            ),
            (
                json!({"cd": "/w", "path": "acp"}),
                "options.path must be a URL path",
            ),
            (
                json!({"cd": "/w", "origins": ["http://x/path"]}),
                "options.origins[0] must be an origin",
            ),
            (
                json!({"cd": "/w", "origins": "http://x"}),
                "options.origins must be an array of strings",
            ),
            (
                json!({"cd": "/w", "allowedHosts": ["a/b"]}),
                "options.allowedHosts[0] must be a host name",
            ),
            (
                json!({"cd": "/w", "allowClientMcp": "yes"}),
                "options.allowClientMcp must be a boolean",
            ),
            (
                json!({"cd": "/w", "limits": {"maxConnections": 0}}),
                "options.limits.maxConnections must be a whole number from 1 to 65536, got 0",
            ),
            (
                json!({"cd": "/w", "limits": {"idleTimeout": -1}}),
                "options.limits.idleTimeout must be a number of seconds",
            ),
            (
                json!({"cd": "/w", "limits": {"maxBytes": 1}}),
                "options.limits takes maxMessageBytes",
            ),
        ];
        for (options, expected) in problems {
            let e = read(options.clone()).unwrap_err();
            assert!(
                e.message().starts_with(expected),
                "{options}: {}",
                e.message()
            );
        }
    }
}
