//! What a client may ask of a served conversation's folder and commands,
//! checked on the requests that open or reopen a session (`session/new`,
//! `load`, `resume`, `fork`): its `cwd` and `additionalDirectories` lie
//! inside the server's `cd` (their real paths, which the host resolves),
//! and no MCP server over stdio — a command the server would run — unless
//! the server allows it (`allowClientMcp`). A refused request is answered
//! with a JSON-RPC error and never reaches the agent.

use serde::Serialize;
use serde_json::Value;

/// The requests whose params are checked.
pub const CHECKED_METHODS: &[&str] = &[
    "session/new",
    "session/load",
    "session/resume",
    "session/fork",
];

/// JSON-RPC's "invalid params".
pub const INVALID_PARAMS: i64 = -32602;

/// A request refused: the JSON-RPC error to answer with.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Refusal {
    pub code: i64,
    pub message: String,
}

/// The paths of `params` whose real paths the host resolves before
/// [`check`]: `cwd`, then each of `additionalDirectories`.
pub fn paths_of(params: &Value) -> Vec<String> {
    let mut paths: Vec<String> = params
        .get("cwd")
        .and_then(Value::as_str)
        .map(str::to_owned)
        .into_iter()
        .collect();
    if let Some(Value::Array(dirs)) = params.get("additionalDirectories") {
        paths.extend(dirs.iter().filter_map(Value::as_str).map(str::to_owned));
    }
    paths
}

/// Checks `params` of a [`CHECKED_METHODS`] request; `real`: the real
/// path of each of [`paths_of`], in order (as given when it cannot be
/// resolved); `cd`: the server's folder, real.
pub fn check(
    params: &Value,
    real: &[String],
    cd: &str,
    allow_client_mcp: bool,
) -> Result<(), Refusal> {
    let refuse = |message: String| {
        Err(Refusal {
            code: INVALID_PARAMS,
            message,
        })
    };
    let paths = paths_of(params);
    match params.get("cwd") {
        Some(Value::String(cwd)) if cwd.starts_with('/') || is_windows_absolute(cwd) => {}
        Some(_) => return refuse("params.cwd must be an absolute path".to_owned()),
        None => {}
    }
    for (i, given) in paths.iter().enumerate() {
        let real = real.get(i).unwrap_or(given);
        let absolute = real.starts_with('/') || is_windows_absolute(real);
        if !absolute || crate::acp::fs::inside(cd, real).is_none() {
            let what = if i == 0 && params.get("cwd").is_some() {
                "params.cwd".to_owned()
            } else {
                "params.additionalDirectories".to_owned()
            };
            return refuse(format!(
                "{what} must lie inside the folder this server works in: {given} does not"
            ));
        }
    }
    if let Some(servers) = params.get("mcpServers") {
        let Value::Array(servers) = servers else {
            return refuse("params.mcpServers must be an array".to_owned());
        };
        if !allow_client_mcp {
            for (i, server) in servers.iter().enumerate() {
                let stdio = match server.get("type") {
                    None | Some(Value::Null) => true,
                    Some(Value::String(t)) => t == "stdio",
                    Some(_) => true,
                };
                if stdio {
                    let name = server.get("name").and_then(Value::as_str).unwrap_or("");
                    return refuse(format!(
                        "params.mcpServers[{i}] (\"{}\") is an MCP server over stdio, a command this server would run; it takes MCP servers over http or sse only (the server's allowClientMcp option allows stdio)",
                        name.escape_debug()
                    ));
                }
            }
        }
    }
    Ok(())
}

fn is_windows_absolute(path: &str) -> bool {
    let b = path.as_bytes();
    b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && (b[2] == b'\\' || b[2] == b'/')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn checked(params: Value, real: &[&str], allow: bool) -> Result<(), String> {
        let real: Vec<String> = real.iter().map(|s| (*s).to_owned()).collect();
        check(&params, &real, "/srv/w", allow).map_err(|r| {
            assert_eq!(r.code, -32602);
            r.message
        })
    }

    #[test]
    fn the_cwd_lies_inside_the_servers_folder() {
        assert!(checked(
            json!({"cwd": "/srv/w", "mcpServers": []}),
            &["/srv/w"],
            false
        )
        .is_ok());
        assert!(checked(json!({"cwd": "/srv/w/app"}), &["/srv/w/app"], false).is_ok());
        let e = checked(json!({"cwd": "/etc"}), &["/etc"], false).unwrap_err();
        assert_eq!(
            e,
            "params.cwd must lie inside the folder this server works in: /etc does not"
        );
        // A link inside that leads out: its real path decides.
        assert!(checked(json!({"cwd": "/srv/w/link"}), &["/etc"], false).is_err());
        assert!(checked(json!({"cwd": "/srv/wx"}), &["/srv/wx"], false).is_err());
        assert!(checked(json!({"cwd": "/srv/w/../x"}), &["/srv/x"], false).is_err());
        assert_eq!(
            checked(json!({"cwd": "rel"}), &["rel"], false).unwrap_err(),
            "params.cwd must be an absolute path"
        );
        let e = checked(
            json!({"cwd": "/srv/w", "additionalDirectories": ["/srv/w/a", "/home"]}),
            &["/srv/w", "/srv/w/a", "/home"],
            false,
        )
        .unwrap_err();
        assert!(
            e.starts_with("params.additionalDirectories must lie inside"),
            "{e}"
        );
        assert_eq!(
            paths_of(&json!({"cwd": "/a", "additionalDirectories": ["/b"]})),
            ["/a", "/b"]
        );
    }

    #[test]
    fn a_clients_stdio_mcp_servers_are_refused_unless_allowed() {
        let stdio = json!({"cwd": "/srv/w", "mcpServers": [
            {"type": "http", "name": "web", "url": "http://x", "headers": []},
            {"name": "probe", "command": "/bin/sh", "args": [], "env": []}]});
        let e = checked(stdio.clone(), &["/srv/w"], false).unwrap_err();
        assert!(
            e.starts_with("params.mcpServers[1] (\"probe\") is an MCP server over stdio"),
            "{e}"
        );
        assert!(
            checked(stdio, &["/srv/w"], true).is_ok(),
            "allowed with allowClientMcp"
        );
        let typed = json!({"cwd": "/srv/w", "mcpServers": [{"type": "stdio", "name": "x", "command": "c"}]});
        assert!(checked(typed, &["/srv/w"], false).is_err());
        let web = json!({"cwd": "/srv/w", "mcpServers": [{"type": "sse", "name": "s", "url": "http://x", "headers": []}]});
        assert!(checked(web, &["/srv/w"], false).is_ok());
    }
}
