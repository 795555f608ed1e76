//! The session's own state updates during a turn (its commands, mode,
//! options and title), read without building a JSON tree of the line: the
//! commands list is most of an agent's bytes (one long line a turn for some
//! agents) and is kept as the text it came in until the host reads the
//! session ([`Engine::snapshot`]). What changes, and in which order, is
//! what the general reader (`agent_notification`) does with the same line;
//! any line the reply's scanner does not take whole (escapes it leaves to
//! a full parser, a repeated key, a missing or null list) goes to the
//! general reader.

use agent_context_scan::acp_update::field;
use serde_json::Value;

use super::engine::{Engine, DEFAULT};

/// What a state update changes in the session.
enum Change<'a> {
    Mode(Option<String>),
    Commands(&'a str),
    ConfigOptions(Value),
    Title,
}

/// The raw text of `key` in the object `value`; `None` when it is absent
/// or cannot be told without a full parser.
fn raw<'a>(value: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    field(value, key).flatten()
}

/// The update's raw text and what it changes; `None` for any other line.
fn change(line: &[u8]) -> Option<(&[u8], Change<'_>)> {
    // A request (an id that is not null) is answered by the general reader.
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
