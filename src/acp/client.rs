//! What the client offers an agent beyond files and permissions, and the
//! options that turn it on: client terminals (`terminals: true`), answers
//! to elicitations (the app's `onElicitation`), a login run in a terminal
//! by the app (`terminalAuth: true`), more roots than `cd` (`dirs`), and
//! the W3C trace context (`traceparent`) handed to the agent in ACP's
//! `_meta` and as `TRACEPARENT` in its environment. Always offered: the
//! agent's own context compaction and its live notices as session updates
//! (`session.compaction`, `session.notices`), and boolean config options.

use serde_json::{json, Map, Value};

use crate::error::{AgentContextError, Result};
use crate::formats::json_read::type_name;

/// The options of the client's own features, read off a session's options.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ClientOptions {
    /// `terminals: true`: the agent may run commands in client terminals.
    pub terminals: bool,
    /// `traceparent`: the trace the session's work belongs to.
    pub traceparent: Option<String>,
    /// `terminalAuth: true`: the app can run an agent's login in a
    /// terminal (`auth.terminal` is advertised).
    pub terminal_auth: bool,
    /// `dirs`: more roots of the session than `cd` (absolute paths), sent
    /// as `additionalDirectories` where the agent takes them; the client's
    /// files and terminals are allowed in them.
    pub dirs: Vec<String>,
}

impl ClientOptions {
    /// Takes `terminals`, `terminalAuth`, `dirs` and `traceparent` out of
    /// `options` (checked, each problem naming its field).
    pub fn take(options: &mut Map<String, Value>) -> Result<ClientOptions> {
        let flag = |options: &mut Map<String, Value>, key: &str| match options.remove(key) {
            None | Some(Value::Null) => Ok(false),
            Some(Value::Bool(b)) => Ok(b),
            Some(other) => Err(AgentContextError::invalid(format!(
                "options.{key} must be a boolean, got {}",
                type_name(&other)
            ))),
        };
        let terminals = flag(options, "terminals")?;
        let terminal_auth = flag(options, "terminalAuth")?;
        let traceparent = match options.remove("traceparent") {
            None | Some(Value::Null) => None,
            Some(value) => Some(read_traceparent(&value, "options.traceparent")?),
        };
        let dirs = read_dirs(options.remove("dirs"), "options.dirs")?;
        Ok(ClientOptions {
            terminals,
            traceparent,
            terminal_auth,
            dirs,
        })
    }
}

/// `dirs` as given (left out or `null`: none): an array of non-empty
/// strings, each an absolute path; `field` names it in errors.
pub fn read_dirs(value: Option<Value>, field: &str) -> Result<Vec<String>> {
    let list = match value {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::Array(list)) => list,
        Some(other) => {
            return Err(AgentContextError::invalid(format!(
                "{field} must be an array of absolute paths, got {}",
                type_name(&other)
            )))
        }
    };
    list.into_iter()
        .enumerate()
        .map(|(i, dir)| match dir {
            Value::String(s) if absolute(&s) => Ok(s),
            Value::String(s) => Err(AgentContextError::invalid(format!(
                "{field}[{i}] must be an absolute path, got {}",
                Value::String(s)
            ))),
            other => Err(AgentContextError::invalid(format!(
                "{field}[{i}] must be a string (an absolute path), got {}",
                type_name(&other)
            ))),
        })
        .collect()
}

/// Whether `path` is absolute (POSIX, or a Windows drive or share).
fn absolute(path: &str) -> bool {
    let b = path.as_bytes();
    path.starts_with('/')
        || path.starts_with("\\\\")
        || (b.len() >= 3
            && b[0].is_ascii_alphabetic()
            && b[1] == b':'
            && matches!(b[2], b'\\' | b'/'))
}

/// The client's own features on one agent process, as the engine keeps
/// them.
#[derive(Debug, Default)]
pub struct ClientState {
    /// Whether the host answers elicitations (`onElicitation`).
    pub elicitation: bool,
    pub terminals: super::terminals::Terminals,
}

/// `clientCapabilities` for `initialize`: `terminal` and `auth.terminal`
/// as the app enabled them, `elicitation` when it answers elicitations;
/// always the agent's compaction and notices as session updates and
/// boolean config options.
pub fn capabilities(terminals: bool, elicitation: bool, terminal_auth: bool) -> Value {
    let mut caps = json!({
        "fs": {"readTextFile": true, "writeTextFile": true},
        "terminal": terminals,
        "session": {"compaction": {}, "notices": {}, "configOptions": {"boolean": {}}},
        "auth": {"terminal": terminal_auth},
    });
    if elicitation {
        caps["elicitation"] = super::elicitation::capability();
    }
    caps
}

/// A W3C `traceparent` (`00-<32 hex trace id>-<16 hex parent id>-<2 hex
/// flags>`, lowercase, ids not all zeros; a later version's value is read
/// by its first four fields, as the recommendation says), checked; `field`
/// names it in the error.
pub fn read_traceparent(value: &Value, field: &str) -> Result<String> {
    let Value::String(text) = value else {
        return Err(AgentContextError::invalid(format!(
            "{field} must be a string (a W3C traceparent), got {}",
            type_name(value)
        )));
    };
    if traceparent_ok(text) {
        Ok(text.clone())
    } else {
        Err(AgentContextError::invalid(format!(
            "{field} must be a W3C traceparent (00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>, lowercase, ids not all zeros), got {}",
            Value::String(text.clone())
        )))
    }
}

fn traceparent_ok(text: &str) -> bool {
    let hex = |s: &str, n: usize| {
        s.len() == n
            && s.bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    };
    let zero = |s: &str| s.bytes().all(|b| b == b'0');
    let parts: Vec<&str> = text.split('-').collect();
    if parts.len() < 4 || !hex(parts[0], 2) || parts[0] == "ff" {
        return false;
    }
    // Version 00 has exactly four fields; a later one may add more.
    if parts[0] == "00" && parts.len() != 4 {
        return false;
    }
    hex(parts[1], 32) && !zero(parts[1]) && hex(parts[2], 16) && !zero(parts[2]) && hex(parts[3], 2)
}

/// A turn's `traceparent` (`limits.traceparent` of a prompt), checked.
pub fn turn_traceparent(limits: &Value) -> Result<Option<String>> {
    match limits.get("traceparent") {
        None | Some(Value::Null) => Ok(None),
        Some(v) => read_traceparent(v, "turn.traceparent").map(Some),
    }
}

/// `params` with `traceparent` in its `_meta` (kept with what is there).
pub fn with_trace(params: &mut Map<String, Value>, traceparent: Option<&str>) {
    let Some(tp) = traceparent else { return };
    let meta = params
        .entry("_meta")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(meta) = meta {
        meta.insert("traceparent".into(), Value::String(tp.to_owned()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TP: &str = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    #[test]
    fn traceparent_is_checked() {
        assert_eq!(
            read_traceparent(&json!(TP), "options.traceparent").unwrap(),
            TP
        );
        assert!(traceparent_ok(
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-later"
        ));
        for bad in [
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-x",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "trace",
        ] {
            assert!(!traceparent_ok(bad), "{bad}");
        }
        let e = read_traceparent(&json!("trace"), "turn.traceparent").unwrap_err();
        assert!(
            e.message()
                .starts_with("turn.traceparent must be a W3C traceparent"),
            "{}",
            e.message()
        );
        let e = read_traceparent(&json!(1), "options.traceparent").unwrap_err();
        assert_eq!(
            e.message(),
            "options.traceparent must be a string (a W3C traceparent), got a number"
        );
    }

    #[test]
    fn options_and_capabilities() {
        let mut map = json!({"cd": "/w", "terminals": true, "traceparent": TP, "terminalAuth": true, "dirs": ["/a", "C:\\b"]})
            .as_object()
            .unwrap()
            .clone();
        let c = ClientOptions::take(&mut map).unwrap();
        assert_eq!(
            c,
            ClientOptions {
                terminals: true,
                traceparent: Some(TP.into()),
                terminal_auth: true,
                dirs: vec!["/a".into(), "C:\\b".into()],
            }
        );
        assert_eq!(map.len(), 1, "taken out");
        let mut bad = json!({"terminals": "yes"}).as_object().unwrap().clone();
        assert_eq!(
            ClientOptions::take(&mut bad).unwrap_err().message(),
            "options.terminals must be a boolean, got a string"
        );
        for (bad, message) in [
            (
                json!({"dirs": "/a"}),
                "options.dirs must be an array of absolute paths, got a string",
            ),
            (
                json!({"dirs": ["rel"]}),
                "options.dirs[0] must be an absolute path, got \"rel\"",
            ),
            (
                json!({"dirs": ["/a", 3]}),
                "options.dirs[1] must be a string (an absolute path), got a number",
            ),
            (
                json!({"terminalAuth": 1}),
                "options.terminalAuth must be a boolean, got a number",
            ),
        ] {
            let mut map = bad.as_object().unwrap().clone();
            assert_eq!(
                ClientOptions::take(&mut map).unwrap_err().message(),
                message
            );
        }
        let always = json!({"compaction": {}, "notices": {}, "configOptions": {"boolean": {}}});
        assert_eq!(
            capabilities(false, false, false),
            json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": false,
                "session": always, "auth": {"terminal": false}})
        );
        assert_eq!(
            capabilities(true, true, true),
            json!({"fs": {"readTextFile": true, "writeTextFile": true}, "terminal": true,
                "session": always, "auth": {"terminal": true}, "elicitation": {"form": {}, "url": {}}})
        );
        let mut params = json!({"sessionId": "s", "_meta": {"x": 1}})
            .as_object()
            .unwrap()
            .clone();
        with_trace(&mut params, Some(TP));
        assert_eq!(
            Value::Object(params),
            json!({"sessionId": "s", "_meta": {"x": 1, "traceparent": TP}})
        );
    }
}
