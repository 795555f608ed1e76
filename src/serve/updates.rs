//! A served conversation's ACP `session/update`s, made from this library's
//! one reply model: a turn's live events (`AgentOutputEvent`s, and the
//! conversation's own `discard` and `handoff`), the session's updates
//! outside a turn, and, for a conversation the server did not see happen,
//! its record's entries. Every agent's conversation comes out the same way,
//! whatever it spoke and whether or not it can load its own sessions.
//!
//! What a client is told beside the reply — an attempt whose text is not
//! part of it, the conversation going on with another agent, a turn that
//! failed, a write the store refused — is a `notice`, which only the
//! clients that advertise notices are sent (never as reply text).

use std::collections::BTreeSet;

use serde_json::{json, Map, Value};

/// Who is sent an update live.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Audience {
    /// Every client of the conversation.
    All,
    /// Only the clients that advertise notices (`clientCapabilities.session.notices`).
    Notices,
    /// Every client but the one whose prompt it is (the user's message,
    /// which that client has already).
    Others,
}

impl Audience {
    pub fn name(self) -> &'static str {
        match self {
            Audience::All => "all",
            Audience::Notices => "notices",
            Audience::Others => "others",
        }
    }
}

/// The updates the session sends outside a turn's reply that a client is
/// passed as they are; the others (an agent's replay of its own history
/// when its session is loaded, its usage) are not the conversation's.
const PASSED_ON: &[&str] = &[
    "current_mode_update",
    "config_option_update",
    "available_commands_update",
    "session_info_update",
];

/// The tool calls already opened for the clients (a second sight of one is
/// a `tool_call_update`).
#[derive(Clone, Debug, Default)]
pub struct ToolCalls(BTreeSet<String>);

fn text_chunk(kind: &str, text: &str) -> Value {
    json!({ "sessionUpdate": kind, "content": { "type": "text", "text": text } })
}

/// A notice: `severity`, a title that stands alone, an optional description.
pub fn notice(severity: &str, title: &str, description: Option<&str>) -> Value {
    let mut n = json!({ "sessionUpdate": "notice", "severity": severity, "title": title });
    if let Some(d) = description.filter(|d| !d.is_empty()) {
        n["description"] = json!(d);
    }
    n
}

fn status_of(ours: Option<&str>) -> &'static str {
    match ours {
        Some("success") => "completed",
        Some("error") => "failed",
        _ => "pending",
    }
}

impl ToolCalls {
    /// A tool call as this library has it (`id`, `name`, `status`,
    /// `input?`, `output?`): `tool_call` the first time, else
    /// `tool_call_update`.
    pub fn update(&mut self, call: &Value) -> Option<Value> {
        let id = call.get("id").and_then(Value::as_str)?;
        let first = self.0.insert(id.to_owned());
        let status = status_of(call.get("status").and_then(Value::as_str));
        let mut u = Map::new();
        u.insert(
            "sessionUpdate".into(),
            json!(if first {
                "tool_call"
            } else {
                "tool_call_update"
            }),
        );
        u.insert("toolCallId".into(), json!(id));
        let name = call.get("name").and_then(Value::as_str).unwrap_or("");
        if first || !name.is_empty() {
            u.insert(
                "title".into(),
                json!(if name.is_empty() { id } else { name }),
            );
        }
        u.insert("status".into(), json!(status));
        if let Some(input) = call.get("input").filter(|v| !v.is_null()) {
            u.insert("rawInput".into(), input.clone());
        }
        if let Some(output) = call.get("output").and_then(Value::as_str) {
            u.insert(
                "content".into(),
                json!([{ "type": "content", "content": { "type": "text", "text": output } }]),
            );
        }
        Some(Value::Object(u))
    }
}

/// A live event of a turn: its updates, each with its audience.
pub fn of_event(event: &Value, tools: &mut ToolCalls) -> Vec<(Audience, Value)> {
    let str_of = |key: &str| event.get(key).and_then(Value::as_str);
    match str_of("type").unwrap_or("") {
        "text" => str_of("text")
            .filter(|t| !t.is_empty())
            .map(|t| vec![(Audience::All, text_chunk("agent_message_chunk", t))])
            .unwrap_or_default(),
        "thought" => str_of("text")
            .filter(|t| !t.is_empty())
            .map(|t| vec![(Audience::All, text_chunk("agent_thought_chunk", t))])
            .unwrap_or_default(),
        "toolUse" => event
            .get("toolUse")
            .and_then(|c| tools.update(c))
            .map(|u| vec![(Audience::All, u)])
            .unwrap_or_default(),
        "plan" => match event.get("entries") {
            Some(entries @ Value::Array(_)) => {
                vec![(
                    Audience::All,
                    json!({ "sessionUpdate": "plan", "entries": entries }),
                )]
            }
            _ => Vec::new(),
        },
        "notice" => match str_of("title").filter(|t| !t.is_empty()) {
            Some(title) => vec![(
                Audience::Notices,
                notice(
                    str_of("severity").unwrap_or("info"),
                    title,
                    str_of("description"),
                ),
            )],
            None => Vec::new(),
        },
        "discard" => {
            let attempt = event.get("attempt").and_then(Value::as_u64).unwrap_or(0);
            vec![(
                Audience::Notices,
                notice(
                    "warning",
                    &format!(
                        "Attempt {attempt} failed: the text it streamed is not part of the reply"
                    ),
                    None,
                ),
            )]
        }
        "handoff" => {
            let to = event
                .pointer("/to/agentType")
                .and_then(Value::as_str)
                .unwrap_or("another agent");
            let from = event
                .pointer("/from/agentType")
                .and_then(Value::as_str)
                .unwrap_or("the agent");
            let reason = str_of("reason").unwrap_or("");
            vec![(
                Audience::Notices,
                notice(
                    "warning",
                    &format!("The conversation went on with {to}"),
                    Some(&format!("{from}: {reason}")),
                ),
            )]
        }
        "recordError" => vec![(Audience::Notices, record_error(event.get("error")))],
        _ => Vec::new(),
    }
}

fn record_error(error: Option<&Value>) -> Value {
    let message = error
        .and_then(|e| e.get("message").and_then(Value::as_str).or(e.as_str()))
        .unwrap_or("");
    notice(
        "error",
        "The conversation's record could not be written",
        Some(message),
    )
}

/// An update of the session outside a turn's reply (or a `recordError`
/// the session reported outside a turn): what a client is sent of it.
pub fn of_outside(update: &Value) -> Option<(Audience, Value)> {
    if update.get("type").and_then(Value::as_str) == Some("recordError") {
        return Some((Audience::Notices, record_error(update.get("error"))));
    }
    let kind = update.get("sessionUpdate").and_then(Value::as_str)?;
    PASSED_ON
        .contains(&kind)
        .then(|| (Audience::All, update.clone()))
}

/// The user's prompt (its ACP content blocks) as the other clients see it:
/// a `user_message_chunk` per text or resource link (images and embedded
/// resources are named by a link, never copied into memory twice).
pub fn of_prompt(blocks: &Value) -> Vec<(Audience, Value)> {
    let Value::Array(blocks) = blocks else {
        return Vec::new();
    };
    blocks
        .iter()
        .filter_map(|b| {
            let content = match b.get("type").and_then(Value::as_str)? {
                "text" => json!({ "type": "text", "text": b.get("text")?.as_str()? }),
                "resource_link" => b.clone(),
                "resource" => {
                    let uri = b.pointer("/resource/uri")?.as_str()?;
                    json!({ "type": "resource_link", "uri": uri, "name": uri })
                }
                _ => return None,
            };
            Some((
                Audience::Others,
                json!({ "sessionUpdate": "user_message_chunk", "content": content }),
            ))
        })
        .collect()
}

/// The live part's state for the clients once the conversation moved to
/// it (`{ mode?, configOptions?, commands? }`, the new agent session's):
/// its current mode, its options and its commands, never reply text.
pub fn of_part(part: &Value) -> Vec<(Audience, Value)> {
    let mut out = Vec::new();
    if let Some(mode) = part.get("mode").and_then(Value::as_str) {
        out.push(json!({ "sessionUpdate": "current_mode_update", "currentModeId": mode }));
    }
    let list = |key: &str| match part.get(key) {
        Some(v @ Value::Array(_)) => v.clone(),
        _ => json!([]),
    };
    out.push(
        json!({ "sessionUpdate": "config_option_update", "configOptions": list("configOptions") }),
    );
    out.push(json!({ "sessionUpdate": "available_commands_update", "availableCommands": list("commands") }));
    out.into_iter().map(|u| (Audience::All, u)).collect()
}

/// How a turn ended, for the clients: nothing when it succeeded or was
/// cancelled, else a notice with its error (the prompting client also gets
/// it as its request's error).
pub fn of_turn_end(turn: &Value) -> Vec<(Audience, Value)> {
    if turn.get("success").and_then(Value::as_bool) == Some(true) {
        return Vec::new();
    }
    let kind = turn
        .pointer("/error/kind")
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    if kind == "aborted" {
        return Vec::new();
    }
    let message = turn.pointer("/error/message").and_then(Value::as_str);
    vec![(
        Audience::Notices,
        notice("error", &format!("The turn failed: {kind}"), message),
    )]
}

/// A record entry of the conversation (a `ConversationEntry`): its updates.
/// `first_part`: whether a `part` entry opens the conversation (no notice).
pub fn of_entry(entry: &Value, tools: &mut ToolCalls, first_part: bool) -> Vec<(Audience, Value)> {
    let str_of = |key: &str| entry.get(key).and_then(Value::as_str);
    match str_of("kind").unwrap_or("") {
        "request" => str_of("text")
            .filter(|t| !t.is_empty())
            .map(|t| vec![(Audience::All, text_chunk("user_message_chunk", t))])
            .unwrap_or_default(),
        "text" => of_event(&json!({ "type": "text", "text": str_of("text") }), tools),
        "thought" => of_event(&json!({ "type": "thought", "text": str_of("text") }), tools),
        "toolCall" => tools
            .update(entry)
            .map(|u| vec![(Audience::All, u)])
            .unwrap_or_default(),
        "plan" => of_event(
            &json!({ "type": "plan", "entries": entry.get("entries") }),
            tools,
        ),
        "mode" => str_of("mode")
            .map(|m| {
                vec![(
                    Audience::All,
                    json!({ "sessionUpdate": "current_mode_update", "currentModeId": m }),
                )]
            })
            .unwrap_or_default(),
        "part" if !first_part => {
            let agent = str_of("agentType").unwrap_or("another agent");
            let reason = str_of("reason").unwrap_or("");
            vec![(
                Audience::Notices,
                notice(
                    "info",
                    &format!("The conversation went on with {agent}"),
                    Some(reason),
                ),
            )]
        }
        "attemptEnd" => {
            let attempt = entry.get("attempt").and_then(Value::as_u64).unwrap_or(0);
            let kind = entry
                .pointer("/error/kind")
                .and_then(Value::as_str)
                .unwrap_or("unknown");
            vec![(
                Audience::Notices,
                notice(
                    "warning",
                    &format!("Attempt {attempt} failed: {kind}"),
                    entry.pointer("/error/message").and_then(Value::as_str),
                ),
            )]
        }
        "turnEnd" => match entry.get("error") {
            Some(error) if error.is_object() => {
                of_turn_end(&json!({ "success": false, "error": error }))
            }
            _ => Vec::new(),
        },
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(updates: &[(Audience, Value)]) -> Vec<(&'static str, String)> {
        updates
            .iter()
            .map(|(a, u)| (a.name(), u["sessionUpdate"].as_str().unwrap().to_owned()))
            .collect()
    }

    #[test]
    fn text_and_thoughts_are_chunks_and_empty_ones_are_dropped() {
        let mut tools = ToolCalls::default();
        let t = of_event(
            &json!({"type": "text", "text": "Hi", "attempt": 1}),
            &mut tools,
        );
        assert_eq!(
            t,
            vec![(
                Audience::All,
                json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hi"}})
            )]
        );
        assert_eq!(
            kinds(&of_event(
                &json!({"type": "thought", "text": "hmm"}),
                &mut tools
            )),
            [("all", "agent_thought_chunk".into())]
        );
        assert!(of_event(&json!({"type": "text", "text": ""}), &mut tools).is_empty());
        for quiet in [
            "status",
            "session",
            "usage",
            "error",
            "nonJson",
            "unknown",
            "compaction",
        ] {
            assert!(
                of_event(&json!({"type": quiet}), &mut tools).is_empty(),
                "{quiet}"
            );
        }
    }

    #[test]
    fn a_tool_call_opens_once_then_updates() {
        let mut tools = ToolCalls::default();
        let open = of_event(
            &json!({"type": "toolUse", "toolUse": {"id": "t1", "name": "Read", "input": {"path": "a"}, "status": "pending"}}),
            &mut tools,
        );
        assert_eq!(
            open[0].1,
            json!({"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "status": "pending", "rawInput": {"path": "a"}})
        );
        let end = of_event(
            &json!({"type": "toolUse", "toolUse": {"id": "t1", "name": "", "input": null, "status": "success", "output": "ok"}}),
            &mut tools,
        );
        assert_eq!(
            end[0].1,
            json!({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed", "content": [{"type": "content", "content": {"type": "text", "text": "ok"}}]})
        );
        let failed = of_event(
            &json!({"type": "toolUse", "toolUse": {"id": "t2", "name": "", "status": "error"}}),
            &mut tools,
        );
        assert_eq!(failed[0].1["title"], "t2");
        assert_eq!(failed[0].1["status"], "failed");
    }

    #[test]
    fn what_is_not_the_reply_is_a_notice_for_the_clients_that_take_notices() {
        let mut tools = ToolCalls::default();
        let discard = of_event(&json!({"type": "discard", "attempt": 1}), &mut tools);
        assert_eq!(kinds(&discard), [("notices", "notice".into())]);
        assert_eq!(
            discard[0].1["title"],
            "Attempt 1 failed: the text it streamed is not part of the reply"
        );
        let handoff = of_event(
            &json!({"type": "handoff", "reason": "quota_exceeded", "from": {"agentType": "claude-code"}, "to": {"agentType": "openai-codex"}}),
            &mut tools,
        );
        assert_eq!(
            handoff[0].1,
            json!({"sessionUpdate": "notice", "severity": "warning", "title": "The conversation went on with openai-codex", "description": "claude-code: quota_exceeded"})
        );
        let own = of_event(
            &json!({"type": "notice", "severity": "info", "title": "Busy"}),
            &mut tools,
        );
        assert_eq!(
            own[0],
            (
                Audience::Notices,
                json!({"sessionUpdate": "notice", "severity": "info", "title": "Busy"})
            )
        );
        assert_eq!(
            kinds(&of_event(
                &json!({"type": "recordError", "error": {"message": "disk full"}}),
                &mut tools
            )),
            [("notices", "notice".into())]
        );
        assert!(of_turn_end(&json!({"success": true})).is_empty());
        assert!(of_turn_end(&json!({"success": false, "error": {"kind": "aborted"}})).is_empty());
        assert_eq!(
            of_turn_end(
                &json!({"success": false, "error": {"kind": "quota_exceeded", "message": "429"}})
            )[0]
            .1["title"],
            "The turn failed: quota_exceeded"
        );
    }

    #[test]
    fn outside_a_turn_only_the_sessions_state_is_passed_on() {
        let mode = json!({"sessionUpdate": "current_mode_update", "currentModeId": "plan"});
        assert_eq!(of_outside(&mode), Some((Audience::All, mode.clone())));
        assert_eq!(
            of_outside(
                &json!({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "old"}})
            ),
            None
        );
        assert_eq!(
            of_outside(&json!({"sessionUpdate": "usage_update", "used": 3})),
            None
        );
        assert_eq!(
            of_outside(&json!({"type": "recordError", "error": {"message": "x"}}))
                .unwrap()
                .0,
            Audience::Notices
        );
        assert_eq!(of_outside(&json!("nothing")), None);
    }

    #[test]
    fn the_prompt_is_for_the_other_clients() {
        let blocks = json!([{"type": "text", "text": "Hi"}, {"type": "image", "data": "AAAA", "mimeType": "image/png"}, {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "x"}}]);
        let out = of_prompt(&blocks);
        assert_eq!(
            kinds(&out),
            [
                ("others", "user_message_chunk".into()),
                ("others", "user_message_chunk".into())
            ]
        );
        assert_eq!(
            out[1].1["content"],
            json!({"type": "resource_link", "uri": "file:///a.txt", "name": "file:///a.txt"})
        );
    }

    #[test]
    fn a_new_part_brings_its_mode_options_and_commands() {
        let out = of_part(
            &json!({"mode": "default", "configOptions": [{"id": "m"}], "commands": [{"name": "init"}]}),
        );
        assert_eq!(
            kinds(&out),
            [
                ("all", "current_mode_update".into()),
                ("all", "config_option_update".into()),
                ("all", "available_commands_update".into())
            ]
        );
        let bare = of_part(&json!({}));
        assert_eq!(bare.len(), 2);
        assert_eq!(bare[0].1["configOptions"], json!([]));
    }

    #[test]
    fn record_entries_replay_as_the_live_updates_did() {
        let mut tools = ToolCalls::default();
        let entries = [
            json!({"kind": "part", "agentType": "claude-code", "reason": "opened"}),
            json!({"kind": "request", "turn": 1, "text": "Hi"}),
            json!({"kind": "toolCall", "id": "t", "name": "Read", "status": "pending"}),
            json!({"kind": "toolCall", "id": "t", "name": "Read", "status": "success", "output": "x"}),
            json!({"kind": "text", "text": "Hello"}),
            json!({"kind": "attemptEnd", "attempt": 1, "error": {"kind": "quota_exceeded", "message": "429"}, "text": "API Error"}),
            json!({"kind": "part", "agentType": "openai-codex", "reason": "failover"}),
            json!({"kind": "turnEnd", "stopReason": "end_turn"}),
            json!({"kind": "permission", "toolCallId": "t"}),
            json!({"kind": "mode", "mode": "plan"}),
        ];
        let all: Vec<_> = entries
            .iter()
            .enumerate()
            .flat_map(|(i, e)| of_entry(e, &mut tools, i == 0))
            .collect();
        assert_eq!(
            kinds(&all),
            [
                ("all", "user_message_chunk".into()),
                ("all", "tool_call".into()),
                ("all", "tool_call_update".into()),
                ("all", "agent_message_chunk".into()),
                ("notices", "notice".into()),
                ("notices", "notice".into()),
                ("all", "current_mode_update".into()),
            ]
        );
        assert!(
            !all.iter().any(|(_, u)| u.to_string().contains("API Error")),
            "a failed attempt's text is never replayed"
        );
    }
}
