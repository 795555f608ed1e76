//! Which request a server of ACP over HTTP and WebSocket lets in, decided
//! from its headers before anything reaches an agent, in this order:
//!
//! 1. the `Host` is the listen address's (`host:port`; on loopback, or on
//!    every address, also `localhost`, `127.0.0.1` and `[::1]` with the
//!    port) or one of `allowedHosts` — a page elsewhere that renamed
//!    itself to this machine (DNS rebinding) is refused (403);
//! 2. a request that carries an `Origin` comes from a listed origin (403);
//! 3. it carries the bearer token: `Authorization: Bearer <token>`, or
//!    for a WebSocket from a browser the subprotocol `bearer.<token>`
//!    beside `acp`, compared in constant time (401, with
//!    `WWW-Authenticate: Bearer`); never from the URL;
//! 4. it is for the server's path (404) and a method the transports use
//!    (405); a WebSocket that offers subprotocols offers `acp`, which is
//!    the one selected (the token's is never echoed) (400);
//! 5. a request that opens an ACP connection (a WebSocket, or a POST
//!    without `Acp-Connection-Id`) finds room under the limit (503).
//!
//! No CORS: nothing here ever allows a cross-origin read.

use serde::Serialize;

use super::options::ServeOptions;

/// A request, as the host read its headers.
#[derive(Clone, Debug, Default)]
pub struct Request<'a> {
    pub method: &'a str,
    /// The request's target (path and query).
    pub target: &'a str,
    pub host: Option<&'a str>,
    pub origin: Option<&'a str>,
    pub authorization: Option<&'a str>,
    /// `Sec-WebSocket-Protocol`, as sent.
    pub protocols: Option<&'a str>,
    /// An upgrade to WebSocket.
    pub upgrade: bool,
    /// It names an ACP connection (`Acp-Connection-Id`).
    pub connection_id: bool,
    /// ACP connections open now.
    pub connections: u32,
}

/// What the gate decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Admission {
    /// Let in; `protocol`: the WebSocket subprotocol to select.
    Admit { protocol: Option<&'static str> },
    /// Refused with this status and message; `challenge`: answer with
    /// `WWW-Authenticate: Bearer`.
    Refuse {
        status: u16,
        message: &'static str,
        challenge: bool,
    },
}

/// The subprotocol ACP is spoken under, and the prefix of the one that
/// carries the token from a browser.
pub const ACP_PROTOCOL: &str = "acp";
pub const BEARER_PROTOCOL: &str = "bearer.";

/// A server's gate, once it listens (`port`: the one it got).
#[derive(Clone, Debug)]
pub struct Gate {
    token: String,
    path: String,
    hosts: Vec<String>,
    host_names: Vec<String>,
    origins: Vec<String>,
    max_connections: u32,
}

/// Whether `host` (an address or name to listen on) is this machine alone.
pub fn is_loopback(host: &str) -> bool {
    host == "localhost"
        || host == "::1"
        || host
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|a| a.is_loopback())
}

/// Whether `host` listens on every address.
fn is_unspecified(host: &str) -> bool {
    host == "0.0.0.0" || host == "::"
}

/// `host` as a URL writes it (an IPv6 address in brackets).
pub fn url_host(host: &str) -> String {
    if host.contains(':') {
        format!("[{host}]")
    } else {
        host.to_owned()
    }
}

impl Gate {
    pub fn new(options: &ServeOptions, port: u16) -> Gate {
        let mut hosts = vec![format!("{}:{port}", url_host(&options.host))];
        if is_loopback(&options.host) || is_unspecified(&options.host) {
            for name in ["localhost", "127.0.0.1", "[::1]"] {
                hosts.push(format!("{name}:{port}"));
            }
        }
        let (with_port, names): (Vec<String>, Vec<String>) = options
            .allowed_hosts
            .iter()
            .cloned()
            .partition(|h| has_port(h));
        hosts.extend(with_port);
        Gate {
            token: options.token.clone(),
            path: options.path.clone(),
            hosts,
            host_names: names,
            origins: options.origins.clone(),
            max_connections: options.limits.max_connections,
        }
    }

    pub fn admit(&self, r: &Request) -> Admission {
        let refuse = |status, message| Admission::Refuse {
            status,
            message,
            challenge: false,
        };
        match r.host.map(str::trim) {
            None | Some("") => return refuse(400, "a Host header is needed"),
            Some(host) if !self.host_allowed(host) => {
                return refuse(403, "this server does not answer to that Host")
            }
            _ => {}
        }
        if let Some(origin) = r.origin {
            let origin = origin.trim().to_ascii_lowercase();
            if !self.origins.contains(&origin) {
                return refuse(403, "requests from that Origin are not allowed");
            }
        }
        let offered: Vec<&str> = r
            .protocols
            .map(|p| {
                p.split(',')
                    .map(str::trim)
                    .filter(|p| !p.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        let from_protocol = r
            .upgrade
            .then(|| offered.iter().find_map(|p| p.strip_prefix(BEARER_PROTOCOL)))
            .flatten();
        let token = bearer(r.authorization).or(from_protocol);
        if !token.is_some_and(|t| same(t.as_bytes(), self.token.as_bytes())) {
            return Admission::Refuse {
                status: 401,
                message: "a valid bearer token is needed",
                challenge: true,
            };
        }
        let path = r.target.split(['?', '#']).next().unwrap_or("");
        if path != self.path {
            return refuse(404, "not found");
        }
        if r.upgrade {
            if r.method != "GET" {
                return refuse(405, "method not allowed");
            }
            if !offered.is_empty() && !offered.contains(&ACP_PROTOCOL) {
                return refuse(400, "a WebSocket that offers subprotocols offers acp");
            }
        } else if !["GET", "POST", "DELETE"].contains(&r.method) {
            return refuse(405, "method not allowed");
        }
        let opens = r.upgrade || (r.method == "POST" && !r.connection_id);
        if opens && !self.room_for(r.connections) {
            return refuse(503, "too many connections");
        }
        Admission::Admit {
            protocol: (r.upgrade && offered.contains(&ACP_PROTOCOL)).then_some(ACP_PROTOCOL),
        }
    }

    /// Whether one more ACP connection may open beside `connections`
    /// (asked again as it opens: requests let in at once may pass together).
    pub fn room_for(&self, connections: u32) -> bool {
        connections < self.max_connections
    }

    fn host_allowed(&self, host: &str) -> bool {
        let host = host.to_ascii_lowercase();
        // No port written is the scheme's (80: this server speaks plain HTTP).
        let full = if has_port(&host) {
            host.clone()
        } else {
            format!("{host}:80")
        };
        let name = match crate::launch::endpoint::host_and_port(&host) {
            Ok((name, _)) if host.starts_with('[') => format!("[{name}]"),
            Ok((name, _)) => name.to_owned(),
            Err(_) => return false,
        };
        self.hosts.contains(&full) || self.host_names.contains(&name)
    }
}

/// Whether a host (`name`, `name:port`, `[v6]`, `[v6]:port`) writes a port.
fn has_port(host: &str) -> bool {
    match host.strip_prefix('[') {
        Some(v6) => v6
            .split_once(']')
            .is_some_and(|(_, tail)| tail.starts_with(':')),
        None => host.contains(':'),
    }
}

/// The token of `Authorization: Bearer <token>`.
fn bearer(authorization: Option<&str>) -> Option<&str> {
    let (scheme, token) = authorization?.trim().split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

/// Whether `given` is `secret`, in a time that depends on the secret's
/// length alone (never on where they first differ).
fn same(given: &[u8], secret: &[u8]) -> bool {
    let mut diff = u8::from(given.len() != secret.len());
    for (i, s) in secret.iter().enumerate() {
        diff |= s ^ given.get(i).copied().unwrap_or(0);
    }
    diff == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const TOKEN: &str = "Ab3-._~Zk9q0Ab3-._~Zk9q0";

    fn gate(options: serde_json::Value) -> Gate {
        let mut o = json!({"cd": "/srv/w", "token": TOKEN, "listen": {"port": 7700}});
        for (k, v) in options.as_object().unwrap() {
            o[k] = v.clone();
        }
        let options = ServeOptions::read(&o, "").unwrap();
        Gate::new(&options, 7700)
    }

    fn good<'a>(auth: &'a str) -> Request<'a> {
        Request {
            method: "POST",
            target: "/acp",
            host: Some("127.0.0.1:7700"),
            authorization: Some(auth),
            ..Request::default()
        }
    }

    fn status(a: Admission) -> u16 {
        match a {
            Admission::Admit { .. } => 200,
            Admission::Refuse { status, .. } => status,
        }
    }

    #[test]
    fn the_token_is_needed_and_compared_whole() {
        let g = gate(json!({}));
        let auth = format!("Bearer {TOKEN}");
        assert_eq!(status(g.admit(&good(&auth))), 200, "the positive control");
        assert_eq!(status(g.admit(&good(&format!("bearer  {TOKEN} ")))), 200);
        for bad in [
            String::new(),
            "Bearer".to_owned(),
            format!("Basic {TOKEN}"),
            format!("Bearer {}", &TOKEN[..TOKEN.len() - 1]),
            format!("Bearer {TOKEN}x"),
            format!("Bearer {}X", &TOKEN[..TOKEN.len() - 1]),
        ] {
            let a = g.admit(&good(&bad));
            assert!(
                matches!(
                    a,
                    Admission::Refuse {
                        status: 401,
                        challenge: true,
                        ..
                    }
                ),
                "{bad}: {a:?}"
            );
        }
        let mut none = good("");
        none.authorization = None;
        assert_eq!(status(g.admit(&none)), 401);
        // Never from the URL.
        let mut in_url = none.clone();
        let target = format!("/acp?token={TOKEN}");
        in_url.target = &target;
        assert_eq!(status(g.admit(&in_url)), 401);
        assert!(
            same(b"abc", b"abc")
                && !same(b"abd", b"abc")
                && !same(b"ab", b"abc")
                && !same(b"abcd", b"abc")
        );
    }

    #[test]
    fn only_the_listen_address_or_an_allowed_host_is_answered() {
        let g = gate(json!({"allowedHosts": ["agents.internal", "lb.example:8443"]}));
        let auth = format!("Bearer {TOKEN}");
        for host in [
            "127.0.0.1:7700",
            "localhost:7700",
            "LOCALHOST:7700",
            "[::1]:7700",
            "agents.internal",
            "agents.internal:9",
            "lb.example:8443",
        ] {
            let mut r = good(&auth);
            r.host = Some(host);
            assert_eq!(status(g.admit(&r)), 200, "{host}");
        }
        for host in [
            "evil.example:7700",
            "127.0.0.1:7701",
            "127.0.0.1",
            "lb.example:8444",
            "attacker.test",
            "",
        ] {
            let mut r = good(&auth);
            r.host = Some(host);
            assert_eq!(
                status(g.admit(&r)),
                if host.is_empty() { 400 } else { 403 },
                "{host}"
            );
        }
        let mut r = good(&auth);
        r.host = None;
        assert_eq!(status(g.admit(&r)), 400);
        // Listening on another address: only its own name.
        let options = ServeOptions::read(
            &json!({"cd": "/w", "token": TOKEN, "listen": {"host": "10.1.2.3", "port": 80}}),
            "",
        )
        .unwrap();
        let g = Gate::new(&options, 80);
        let mut r = good(&auth);
        r.host = Some("10.1.2.3");
        assert_eq!(status(g.admit(&r)), 200, "port 80 need not be written");
        r.host = Some("localhost:80");
        assert_eq!(status(g.admit(&r)), 403);
    }

    #[test]
    fn an_origin_is_refused_unless_listed() {
        let g = gate(json!({"origins": ["http://localhost:5173", "app://renderer"]}));
        let auth = format!("Bearer {TOKEN}");
        let mut r = good(&auth);
        assert_eq!(
            status(g.admit(&r)),
            200,
            "no Origin: an editor, a Node client"
        );
        for origin in [
            "http://localhost:5173",
            "HTTP://LOCALHOST:5173",
            "app://renderer",
        ] {
            r.origin = Some(origin);
            assert_eq!(status(g.admit(&r)), 200, "{origin}");
        }
        for origin in ["http://evil.example", "null", "http://localhost:5174", ""] {
            r.origin = Some(origin);
            assert_eq!(status(g.admit(&r)), 403, "{origin}");
        }
        let g = gate(json!({"origins": ["null"]}));
        r.origin = Some("null");
        assert_eq!(status(g.admit(&r)), 200, "null when listed");
        // The Origin is checked before the token: a foreign page learns nothing.
        let g = gate(json!({}));
        let mut r = good("");
        r.origin = Some("http://evil.example");
        assert_eq!(status(g.admit(&r)), 403);
    }

    #[test]
    fn a_websocket_offers_acp_and_may_carry_the_token_as_a_subprotocol() {
        let g = gate(json!({"origins": ["http://localhost:5173"]}));
        let protocols = format!("acp, bearer.{TOKEN}");
        let browser = Request {
            method: "GET",
            target: "/acp",
            host: Some("localhost:7700"),
            origin: Some("http://localhost:5173"),
            protocols: Some(&protocols),
            upgrade: true,
            ..Request::default()
        };
        assert_eq!(
            g.admit(&browser),
            Admission::Admit {
                protocol: Some("acp")
            },
            "acp selected, never the token's"
        );
        let wrong = format!("acp, bearer.{TOKEN}x");
        assert_eq!(
            status(g.admit(&Request {
                protocols: Some(&wrong),
                ..browser.clone()
            })),
            401
        );
        assert_eq!(
            status(g.admit(&Request {
                protocols: Some("acp"),
                ..browser.clone()
            })),
            401
        );
        let only = format!("bearer.{TOKEN}");
        assert_eq!(
            status(g.admit(&Request {
                protocols: Some(&only),
                ..browser.clone()
            })),
            400
        );
        assert_eq!(
            status(g.admit(&Request {
                origin: Some("http://evil.example"),
                ..browser.clone()
            })),
            403
        );
        // A plain HTTP request's subprotocol header carries no token.
        assert_eq!(
            status(g.admit(&Request {
                upgrade: false,
                method: "POST",
                ..browser.clone()
            })),
            401
        );
        // A Node client: the header, no subprotocol.
        let auth = format!("Bearer {TOKEN}");
        let node = Request {
            origin: None,
            protocols: None,
            authorization: Some(&auth),
            ..browser
        };
        assert_eq!(g.admit(&node), Admission::Admit { protocol: None });
    }

    #[test]
    fn the_path_the_method_and_the_connection_limit() {
        let g = gate(json!({"limits": {"maxConnections": 2}}));
        let auth = format!("Bearer {TOKEN}");
        let r = good(&auth);
        assert_eq!(
            status(g.admit(&Request {
                target: "/other",
                ..r.clone()
            })),
            404
        );
        assert_eq!(
            status(g.admit(&Request {
                target: "/acp?x=1",
                ..r.clone()
            })),
            200
        );
        assert_eq!(
            status(g.admit(&Request {
                method: "PUT",
                ..r.clone()
            })),
            405
        );
        assert_eq!(
            status(g.admit(&Request {
                method: "OPTIONS",
                ..r.clone()
            })),
            405
        );
        assert_eq!(
            status(g.admit(&Request {
                connections: 1,
                ..r.clone()
            })),
            200
        );
        assert_eq!(
            status(g.admit(&Request {
                connections: 2,
                ..r.clone()
            })),
            503
        );
        // A request on a connection already open is not a new one.
        assert_eq!(
            status(g.admit(&Request {
                connections: 2,
                connection_id: true,
                ..r.clone()
            })),
            200
        );
        assert_eq!(
            status(g.admit(&Request {
                connections: 2,
                method: "GET",
                ..r.clone()
            })),
            200
        );
        let ws = Request {
            method: "GET",
            upgrade: true,
            connections: 2,
            ..r.clone()
        };
        assert_eq!(status(g.admit(&ws)), 503);
        assert_eq!(
            status(g.admit(&Request {
                connections: 1,
                ..ws
            })),
            200
        );
    }
}
