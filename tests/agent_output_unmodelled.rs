#![cfg(not(target_arch = "wasm32"))]
//! Lines of a known type whose inner kind the parser does not model (SPEC
//! §13: never silently lost): Claude Code's `system` subtypes and Codex's
//! item types are counted as `<type>/<kind>` unknown events; the ones
//! modelled (Claude's `informational` notice) are notes.

use agent_context::agent_output::{
    parse_agent_output, AgentEvent, AgentOutputParser, EventTypeCount, ReplyStatus,
};
use serde_json::json;

fn counts(pairs: &[(&str, u64)]) -> Vec<EventTypeCount> {
    pairs
        .iter()
        .map(|(t, n)| EventTypeCount {
            event_type: (*t).to_owned(),
            count: *n,
        })
        .collect()
}

const CLAUDE_RUN: &str = r#"{"type":"system","subtype":"init","session_id":"s1"}
{"type":"system","subtype":"hook_started","hook_name":"SessionStart","session_id":"s1"}
{"type":"system","subtype":"informational","content":"Auto mode is billed differently here.","level":"warning","session_id":"s1"}
{"type":"assistant","message":{"content":[{"type":"text","text":"Hi"}]},"session_id":"s1"}
{"type":"system","subtype":"compact_boundary","compact_metadata":{"trigger":"auto"},"session_id":"s1"}
{"type":"system","session_id":"s1"}
{"type":"system","subtype":"hook_started","hook_name":"Stop","session_id":"s1"}
{"type":"result","subtype":"success","is_error":false,"result":"Hi","session_id":"s1","terminal_reason":"completed"}
"#;

#[test]
fn claude_system_subtypes_not_modelled_are_counted() {
    let reply = parse_agent_output("claude-code", CLAUDE_RUN.as_bytes());
    assert_eq!(reply.text, "Hi");
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.session_id.as_deref(), Some("s1"));
    assert_eq!(
        reply.unknown_events,
        counts(&[
            ("system/hook_started", 2),
            ("system/compact_boundary", 1),
            ("system", 1)
        ])
    );
    // The notice is a note, with its own code, not the reply.
    assert_eq!(reply.errors.len(), 1);
    let note = &reply.errors[0];
    assert!(!note.fatal);
    assert_eq!(note.message, "Auto mode is billed differently here.");
    assert_eq!(note.code.as_deref(), Some("informational"));

    // Streamed: one `unknown` event per such line, carrying the line.
    let mut parser = AgentOutputParser::new("claude-code");
    let events = parser.push(CLAUDE_RUN.as_bytes());
    let unknown: Vec<_> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Unknown { event_type, raw } => Some((event_type.as_str(), raw)),
            _ => None,
        })
        .collect();
    assert_eq!(unknown.len(), 4);
    assert_eq!(unknown[1].0, "system/compact_boundary");
    assert_eq!(unknown[1].1["compact_metadata"], json!({"trigger": "auto"}));
    assert_eq!(parser.finish(), reply);
}

#[test]
fn qwen_reads_system_lines_as_claude_does() {
    let reply = parse_agent_output("qwen-code", CLAUDE_RUN.as_bytes());
    assert_eq!(reply.text, "Hi");
    assert_eq!(reply.unknown_events.len(), 3);
}

const CODEX_RUN: &str = r#"{"type":"thread.started","thread_id":"t1"}
{"type":"turn.started"}
{"type":"item.completed","item":{"id":"item_0","type":"reasoning","text":"**Thinking**"}}
{"type":"item.started","item":{"id":"item_1","type":"todo_list","items":[{"text":"read","completed":false}]}}
{"type":"item.started","item":{"id":"item_2","type":"image_generation","prompt":"a cat"}}
{"type":"item.completed","item":{"id":"item_2","type":"image_generation","status":"completed"}}
{"type":"item.updated","item":{"id":"item_3"}}
{"type":"item.completed","item":{"id":"item_4","type":"agent_message","text":"Done."}}
{"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":0,"output_tokens":2}}
"#;

#[test]
fn codex_item_kinds_not_modelled_are_counted() {
    let reply = parse_agent_output("openai-codex", CODEX_RUN.as_bytes());
    assert_eq!(reply.text, "Done.");
    assert_eq!(reply.status, ReplyStatus::Success);
    assert!(reply.tool_uses.is_empty());
    // Reasoning and the plan are known kinds the reply does not keep.
    assert_eq!(
        reply.unknown_events,
        counts(&[
            ("item.started/image_generation", 1),
            ("item.completed/image_generation", 1),
            ("item.updated/", 1)
        ])
    );
    let mut parser = AgentOutputParser::new("openai-codex");
    let mut raws = Vec::new();
    for chunk in CODEX_RUN.as_bytes().chunks(5) {
        for event in parser.push(chunk) {
            if let AgentEvent::Unknown { raw, .. } = event {
                raws.push(raw);
            }
        }
    }
    assert_eq!(raws.len(), 3);
    // `raw` is the whole line, not just its item.
    assert_eq!(raws[0]["type"], "item.started");
    assert_eq!(raws[0]["item"]["prompt"], "a cat");
    assert_eq!(parser.finish(), reply);
}
