//! An ACP agent served elsewhere, reached over Streamable HTTP or WebSocket
//! (`options.transport: { url, headers? }`) instead of a process started
//! here: what the option may hold, which options cannot go with it (they
//! say how to start a process here), whether the agent may use this
//! machine's files (`clientFs`), and how a lost connection is worded. The
//! engine treats the connection as its agent process: it connects where it
//! would spawn, sends where it would write, and a dropped connection is
//! the process's end ([`lost_line`], read as a crash by
//! `crate::attempt::transport_lost_in`).

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;
use crate::launch::endpoint::{host_and_port, read_headers};

/// How the messages travel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TransportKind {
    /// Streamable HTTP (`http://`, `https://`): a POST per message, the
    /// agent's messages on server-sent events.
    Http,
    /// WebSocket (`ws://`, `wss://`): a text frame per message.
    Websocket,
}

/// Where a served agent is and how to reach it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Transport {
    pub url: String,
    /// Sent with every request (and with a WebSocket's upgrade): the
    /// server's credentials, typically `Authorization: Bearer …`.
    pub headers: Vec<(String, String)>,
    pub kind: TransportKind,
}

/// The options that say how to start an agent here, which a served agent
/// does not take, each with why.
const LAUNCH_ONLY: &[(&str, &str)] = &[
    ("command", "nothing is started here"),
    ("env", "the agent runs with its server's environment"),
    ("endpoint", "the agent's server chooses its model endpoint"),
    ("host", "the transport is how the agent is reached"),
    ("extraArgs", "nothing is started here"),
    (
        "model",
        "the agent runs with its server's settings; choose a model with session.setModel() once the session is open",
    ),
];

/// What a session's options say of the agent's place: the transport to it,
/// if served elsewhere, and whether it may use this machine's files and
/// terminals (the client `fs` methods; `clientFs`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Reach {
    pub transport: Option<Transport>,
    pub client_fs: bool,
}

impl Reach {
    /// Takes `transport` and `clientFs` out of `options` (the caller's,
    /// `command` given apart: the host's `options.command`, or '') and
    /// checks that nothing that starts a process here comes with a
    /// transport. `clientFs` is true by default for an agent started here,
    /// false for one served elsewhere; client terminals (`terminals`)
    /// need it there.
    pub fn take(options: &mut Map<String, Value>, command: &str) -> Result<Reach> {
        let client_fs = match options.remove("clientFs") {
            None | Some(Value::Null) => None,
            Some(Value::Bool(b)) => Some(b),
            Some(other) => {
                return Err(AgentContextError::invalid(format!(
                    "options.clientFs must be a boolean, got {}",
                    type_name(&other)
                )))
            }
        };
        let transport = match options.remove("transport") {
            None | Some(Value::Null) => None,
            Some(value) => Some(read(&value, "options.transport")?),
        };
        let terminals = options.get("terminals") == Some(&Value::Bool(true));
        if transport.is_none() {
            if terminals && client_fs == Some(false) {
                return Err(AgentContextError::invalid(
                    "options.terminals cannot go with clientFs: false (client terminals run commands on this machine)",
                ));
            }
            return Ok(Reach {
                transport,
                client_fs: client_fs.unwrap_or(true),
            });
        }
        let given = |key: &str| options.get(key).is_some_and(|v| !v.is_null());
        if let Some((key, why)) = LAUNCH_ONLY
            .iter()
            .find(|(key, _)| given(key) || (*key == "command" && !command.is_empty()))
        {
            return Err(AgentContextError::invalid(format!(
                "options.{key} cannot be used with options.transport: {why}"
            )));
        }
        if options.get("protocol").and_then(Value::as_str) == Some("cli") {
            return Err(AgentContextError::invalid(
                "options.protocol must be 'acp' with options.transport (a served agent speaks the Agent Client Protocol), got \"cli\"",
            ));
        }
        let client_fs = client_fs.unwrap_or(false);
        if !client_fs && terminals {
            return Err(AgentContextError::invalid(
                "options.terminals: an agent reached by options.transport runs commands in this machine's terminals only with clientFs: true",
            ));
        }
        Ok(Reach {
            transport,
            client_fs,
        })
    }
}

/// Whether `options` name a transport (a run goes over ACP then).
pub fn given(options: &Value) -> bool {
    options.get("transport").is_some_and(|t| !t.is_null())
}

/// `options.transport`, checked: `{ url, headers? }` with an absolute
/// `http`, `https`, `ws` or `wss` URL (no credentials, query or fragment:
/// a token goes in `headers`, never in a URL).
pub fn read(value: &Value, field: &str) -> Result<Transport> {
    let Value::Object(map) = value else {
        return Err(AgentContextError::invalid(format!(
            "{field} must be an object {{ url, headers? }}, got {}",
            type_name(value)
        )));
    };
    if let Some(key) = map
        .keys()
        .find(|k| !["url", "headers"].contains(&k.as_str()))
    {
        return Err(AgentContextError::invalid(format!(
            "{field} takes url and headers, got the key \"{}\"",
            key.escape_debug()
        )));
    }
    let url = match map.get("url") {
        Some(Value::String(url)) => url.as_str(),
        other => {
            return Err(AgentContextError::invalid(format!(
                "{field}.url must be a string, got {}",
                other.map_or("undefined", type_name)
            )))
        }
    };
    let kind = check_url(url, &format!("{field}.url"))?;
    let headers = read_headers(map.get("headers"), &format!("{field}.headers"))?;
    Ok(Transport {
        url: url.to_owned(),
        headers,
        kind,
    })
}

fn check_url(url: &str, field: &str) -> Result<TransportKind> {
    let bad = |why: &str| {
        AgentContextError::invalid(format!(
            "{field} must be an http, https, ws or wss URL such as \"http://127.0.0.1:7700/acp\" ({why}), got \"{}\"",
            url.escape_debug()
        ))
    };
    let schemes = [
        ("http://", TransportKind::Http),
        ("https://", TransportKind::Http),
        ("ws://", TransportKind::Websocket),
        ("wss://", TransportKind::Websocket),
    ];
    let (rest, kind) = schemes
        .iter()
        .find_map(|(scheme, kind)| {
            let lower = url.get(..scheme.len())?.to_ascii_lowercase();
            (lower == *scheme).then(|| (&url[scheme.len()..], *kind))
        })
        .ok_or_else(|| bad("it must start with http://, https://, ws:// or wss://"))?;
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(bad("it holds whitespace"));
    }
    if url.contains(['?', '#']) {
        return Err(bad("no query or fragment: credentials go in headers"));
    }
    let host = rest.split('/').next().unwrap_or("");
    if host.contains('@') {
        return Err(bad("credentials go in headers, not in the URL"));
    }
    let (name, port) = host_and_port(host).map_err(bad)?;
    if let Some(port) = port {
        let ok = !port.is_empty()
            && port.len() <= 5
            && port.bytes().all(|b| b.is_ascii_digit())
            && port.parse::<u32>().is_ok_and(|p| (1..=65535).contains(&p));
        if !ok {
            return Err(bad("the port must be a number from 1 to 65535"));
        }
    }
    if name.is_empty() {
        return Err(bad("it names no host"));
    }
    Ok(kind)
}

/// The most of a connection's error kept in its line.
const REASON_MAX_CHARS: usize = 500;

/// The line the host's report of a lost connection becomes among the
/// agent's last lines: `transport_lost: <url>: <what happened>`.
/// `opened`: whether the agent answered anything on it (else it was never
/// reached); `reason`: the connection's error (its code or message), empty
/// when the server closed it.
pub fn lost_line(transport: &Transport, opened: bool, reason: &str) -> String {
    // One line, of a bounded length (a server's error body may be long).
    let one_line: String = reason
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
        .chars()
        .take(REASON_MAX_CHARS)
        .collect();
    let reason = one_line.as_str();
    let what = match (opened, reason.is_empty()) {
        (false, true) => "could not connect: the server closed the connection".to_owned(),
        (false, false) => format!("could not connect: {reason}"),
        (true, true) => "the server closed the connection".to_owned(),
        (true, false) => format!("the connection was lost: {reason}"),
    };
    format!(
        "{}: {}: {what}",
        crate::attempt::TRANSPORT_LOST,
        transport.url
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn take(options: Value, command: &str) -> Result<Reach> {
        let mut map = options.as_object().unwrap().clone();
        Reach::take(&mut map, command)
    }

    #[test]
    fn a_transport_is_read_and_checked() {
        let t = read(
            &json!({"url": "http://127.0.0.1:7700/acp", "headers": {"Authorization": "Bearer abc"}}),
            "options.transport",
        )
        .unwrap();
        assert_eq!(t.kind, TransportKind::Http);
        assert_eq!(
            t.headers,
            [("Authorization".to_owned(), "Bearer abc".to_owned())]
        );
        assert_eq!(
            read(&json!({"url": "WSS://agents.example/acp"}), "t")
                .unwrap()
                .kind,
            TransportKind::Websocket
        );
        let problems = [
            (
                json!("http://x"),
                "options.transport must be an object { url, headers? }, got a string",
            ),
            (
                json!({}),
                "options.transport.url must be a string, got undefined",
            ),
            (
                json!({"url": "http://x", "token": "t"}),
                "options.transport takes url and headers, got the key \"token\"",
            ),
            (json!({"url": "ftp://x/acp"}), "it must start with"),
            (
                json!({"url": "http://x/acp?token=abc"}),
                "no query or fragment",
            ),
            (
                json!({"url": "ws://u:p@x/acp"}),
                "credentials go in headers",
            ),
            (
                json!({"url": "http://x:99999/acp"}),
                "the port must be a number from 1 to 65535",
            ),
            (json!({"url": "http:///acp"}), "it names no host"),
            (
                json!({"url": "http://x", "headers": {"A": "b\nc"}}),
                "options.transport.headers.A must not hold line breaks",
            ),
            (
                json!({"url": "http://x", "headers": {"A": 1}}),
                "options.transport.headers.A must be a string, got a number",
            ),
        ];
        for (value, expected) in problems {
            let e = read(&value, "options.transport").unwrap_err();
            assert!(e.message().contains(expected), "{value}: {}", e.message());
        }
    }

    #[test]
    fn what_starts_a_process_here_is_refused_with_a_transport() {
        let t = json!({"url": "ws://127.0.0.1:1/acp"});
        for key in ["env", "endpoint", "host", "extraArgs", "model"] {
            let mut options = json!({"cd": "/w", "transport": t});
            options[key] = json!({});
            let e = take(options, "").unwrap_err();
            assert!(
                e.message().starts_with(&format!(
                    "options.{key} cannot be used with options.transport: "
                )),
                "{}",
                e.message()
            );
        }
        let e = take(json!({"cd": "/w", "transport": t}), "/bin/agent").unwrap_err();
        assert_eq!(
            e.message(),
            "options.command cannot be used with options.transport: nothing is started here"
        );
        let e = take(json!({"transport": t, "protocol": "cli"}), "").unwrap_err();
        assert!(e
            .message()
            .starts_with("options.protocol must be 'acp' with options.transport"));
        // Files and terminals: not offered to a served agent unless asked.
        assert!(!take(json!({"transport": t}), "").unwrap().client_fs);
        assert!(
            take(json!({"transport": t, "clientFs": true}), "")
                .unwrap()
                .client_fs
        );
        assert!(take(json!({}), "").unwrap().client_fs);
        assert!(!take(json!({"clientFs": false}), "").unwrap().client_fs);
        let e = take(json!({"clientFs": false, "terminals": true}), "").unwrap_err();
        assert!(
            e.message()
                .starts_with("options.terminals cannot go with clientFs: false"),
            "{}",
            e.message()
        );
        let e = take(json!({"transport": t, "terminals": true}), "").unwrap_err();
        assert!(
            e.message().starts_with("options.terminals: "),
            "{}",
            e.message()
        );
        assert!(take(
            json!({"transport": t, "terminals": true, "clientFs": true}),
            ""
        )
        .is_ok());
        let e = take(json!({"clientFs": "yes"}), "").unwrap_err();
        assert_eq!(
            e.message(),
            "options.clientFs must be a boolean, got a string"
        );
        // Null is not given.
        assert!(take(json!({"transport": t, "env": null, "model": null}), "").is_ok());
    }

    #[test]
    fn a_lost_connection_is_worded() {
        let t = read(&json!({"url": "http://127.0.0.1:9/acp"}), "t").unwrap();
        assert_eq!(
            lost_line(&t, false, "ECONNREFUSED"),
            "transport_lost: http://127.0.0.1:9/acp: could not connect: ECONNREFUSED"
        );
        assert_eq!(
            lost_line(&t, true, ""),
            "transport_lost: http://127.0.0.1:9/acp: the server closed the connection"
        );
        assert_eq!(
            lost_line(&t, true, "ACP connection SSE stream closed"),
            "transport_lost: http://127.0.0.1:9/acp: the connection was lost: ACP connection SSE stream closed"
        );
        assert!(crate::attempt::transport_lost_in(&[lost_line(&t, true, "x")]).is_some());
        let long = format!("ACP initialize failed: 401\n{}", "b".repeat(10_000));
        let line = lost_line(&t, false, &long);
        assert!(!line.contains('\n') && line.len() < 700, "{line}");
    }
}
