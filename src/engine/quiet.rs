//! The session's own state updates during a turn (its commands, mode,
//! options and title), read without building a JSON tree of the line: the
//! commands list is most of an agent's bytes (one long line a turn for some
//! agents) and is kept as the text it came in until the host reads the
//! session ([`Engine::snapshot`]). What changes, and in which order, is
//! what the general reader (`agent_notification`) does with the same line;
//! any line the reply's scanner does not take whole (escapes it leaves to
//! a full parser, a repeated key, a missing or null list) goes to the
//! general reader.

use agent_context_scan::acp_state::state_fields;
use serde_json::Value;

use super::engine::{Engine, DEFAULT};

/// What a state update changes in the session.
#[derive(Debug, PartialEq)]
enum Change<'a> {
    Mode(Option<String>),
    Commands(&'a str),
    ConfigOptions(Value),
    Title,
}

/// The update's raw text and what it changes; `None` for any other line,
/// or one whose fields cannot be told without a full parser (a repeated
/// key). Its fields are found in one pass over the line.
fn change(line: &[u8]) -> Option<(&[u8], Change<'_>)> {
    let fields = state_fields(line)?;
    // A request (an id that is not null) is answered by the general reader.
    match fields.id? {
        None | Some(b"null") => {}
        Some(_) => return None,
    }
    let update = fields.update??;
    let change = match fields.kind?? {
        b"\"current_mode_update\"" => {
            let id = match fields.mode_id? {
                Some(id) => serde_json::from_slice::<Value>(id).ok()?,
                None => Value::Null,
            };
            Change::Mode(id.as_str().map(str::to_owned))
        }
        b"\"available_commands_update\"" => {
            let commands = fields.commands.flatten().filter(|c| c != b"null")?;
            Change::Commands(std::str::from_utf8(commands).ok()?)
        }
        b"\"config_option_update\"" => {
            Change::ConfigOptions(serde_json::from_slice(fields.config_options??).ok()?)
        }
        b"\"session_info_update\"" => Change::Title,
        _ => return None,
    };
    Some((update, change))
}

impl Engine {
    /// One stdout line in a turn, when it is a `session/update` of the
    /// session's own state: the turn's reply reader and the session read
    /// it, and the host hears it when it listens. False, nothing done, for
    /// any other line.
    pub(super) fn quiet_line(&mut self, i: usize, line: &[u8]) -> bool {
        let Some((update, change)) = change(line) else {
            return false;
        };
        self.drain_events(Some(i));
        let Some(a) = self.attempt_mut(i) else {
            return false;
        };
        // The reply reader reads the line as the general reader would (the
        // session id; Codex's title, which it declines here), and checks
        // that the whole line is JSON.
        if !a.parser.acp_fast_quiet_line(line) {
            return false;
        }
        let s = &mut self.sessions[i];
        match change {
            Change::Mode(Some(id)) => s.snapshot.mode = Some(id),
            Change::Mode(None) | Change::Title => {}
            Change::Commands(text) => s.commands_text = Some(text.to_owned()),
            Change::ConfigOptions(options) => s.snapshot.config_options = options,
        }
        let key = s.key;
        if key != DEFAULT || self.hears_updates {
            if let Ok(update) = serde_json::from_slice::<Value>(update) {
                self.push_update(key, &update);
            }
        }
        true
    }

    /// Session `i`'s commands list kept as text, read into it now.
    pub(super) fn settle_snapshot(&mut self, i: usize) {
        let s = &mut self.sessions[i];
        if let Some(text) = s.commands_text.take() {
            s.snapshot.commands = serde_json::from_str(&text).unwrap_or(Value::Null);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_context_scan::acp_update::field;

    /// What [`change`] did when it read each field by itself.
    fn change_field_by_field(line: &[u8]) -> Option<(&[u8], Change<'_>)> {
        let raw = |value, key| field(value, key).flatten();
        match field(line, b"id")? {
            None | Some(b"null") => {}
            Some(_) => return None,
        }
        let update = raw(raw(line, b"params")?, b"update")?;
        let change = match raw(update, b"sessionUpdate")? {
            b"\"current_mode_update\"" => {
                let id = match field(update, b"currentModeId")? {
                    Some(id) => serde_json::from_slice::<Value>(id).ok()?,
                    None => Value::Null,
                };
                Change::Mode(id.as_str().map(str::to_owned))
            }
            b"\"available_commands_update\"" => {
                let commands = raw(update, b"availableCommands").filter(|c| c != b"null")?;
                Change::Commands(std::str::from_utf8(commands).ok()?)
            }
            b"\"config_option_update\"" => {
                Change::ConfigOptions(serde_json::from_slice(raw(update, b"configOptions")?).ok()?)
            }
            b"\"session_info_update\"" => Change::Title,
            _ => return None,
        };
        Some((update, change))
    }

    /// Every recorded line of the ACP fixtures, and lines made to be odd.
    fn lines() -> Vec<Vec<u8>> {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/acp");
        let mut lines = Vec::new();
        let mut folders = vec![std::path::PathBuf::from(root)];
        while let Some(folder) = folders.pop() {
            for entry in std::fs::read_dir(folder).unwrap() {
                let path = entry.unwrap().path();
                if path.is_dir() {
                    folders.push(path);
                } else if let Ok(text) = std::fs::read_to_string(&path) {
                    lines.extend(text.lines().map(|l| l.as_bytes().to_vec()));
                }
            }
        }
        let update = |u: &str| {
            format!(
                r#"{{"jsonrpc":"2.0","method":"session/update","params":{{"sessionId":"s","update":{u}}}}}"#
            )
        };
        let odd = [
            update(r#"{"sessionUpdate":"current_mode_update","currentModeId":"plan"}"#),
            update(r#"{"sessionUpdate":"current_mode_update"}"#),
            update(r#"{"sessionUpdate":"current_mode_update","currentModeId":5}"#),
            update(r#"{"sessionUpdate":"current_mode_update","currentModeId":"a","currentModeId":"b"}"#),
            update(r#"{"sessionUpdate":"available_commands_update","availableCommands":null}"#),
            update(r#"{"sessionUpdate":"available_commands_update"}"#),
            update(r#"{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"x"}],"availableCommands":[]}"#),
            update(r#"{"sessionUpdate":"available_commands_update","availableCommands":[{"name":"x","deep":[[[{"a":{"b":[1,2.5,-3e0]}}]]]}]}"#),
            update(r#"{"sessionUpdate":"config_option_update","configOptions":[{"id":"m"}]}"#),
            update(r#"{"sessionUpdate":"config_option_update"}"#),
            update(r#"{"sessionUpdate":"session_info_update","title":"t"}"#),
            update(r#"{"sessionUpdate":"session_info_update","sessionUpdate":"session_info_update"}"#),
            update(r#"{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}"#),
            update(r#""session_info_update""#),
            update("[1]"),
            update(r#"{"sessionUpdate":"session_info_update"} "#),
            update(r#"{"sessionUpdate" : "current_mode_update" , "currentModeId" : "x" }"#),
            r#"{"jsonrpc":"2.0","id":3,"method":"session/update","params":{"update":{"sessionUpdate":"session_info_update"}}}"#.to_owned(),
            r#"{"jsonrpc":"2.0","id":null,"method":"session/update","params":{"update":{"sessionUpdate":"session_info_update"}}}"#.to_owned(),
            r#"{"id":1,"id":null,"params":{"update":{"sessionUpdate":"session_info_update"}}}"#.to_owned(),
            r#"{"params":{"update":{"sessionUpdate":"session_info_update"}},"params":{}}"#.to_owned(),
            r#"{"params":{"update":{"sessionUpdate":"session_info_update"},"update":{"sessionUpdate":"session_info_update"}}}"#.to_owned(),
            r#"{"params":5}"#.to_owned(),
            r#"{"params":{"update":{"sessionUpdate":"session_info_update"}}} trailing"#.to_owned(),
            r#"{"params":{"update":{"sessionUpdate":"session_info_update"}}"#.to_owned(),
            r#"{"params":{"update":{"session\u0055pdate":"session_info_update"}}}"#.to_owned(),
            r#"{"params":{"upd\nate":{"sessionUpdate":"session_info_update"}}}"#.to_owned(),
            r#" {"params":{"update":{"sessionUpdate":"session_info_update"}}}"#.to_owned(),
            "".to_owned(),
            "not json".to_owned(),
        ];
        lines.extend(odd.map(String::into_bytes));
        lines
    }

    #[test]
    fn one_pass_reads_what_field_by_field_read() {
        let lines = lines();
        assert!(lines.len() > 400, "{}", lines.len());
        let mut changes = 0;
        for line in &lines {
            let (before, now) = (change_field_by_field(line), change(line));
            assert_eq!(now, before, "{}", String::from_utf8_lossy(line));
            changes += usize::from(now.is_some());
        }
        // Each kind is in the recorded lines, and lines that are none.
        assert!(
            changes >= 50 && changes < lines.len() / 2,
            "{changes} of {}",
            lines.len()
        );
    }
}
