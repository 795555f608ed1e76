#![cfg(not(target_arch = "wasm32"))]
//! JSON lines of types the parsers do not know (SPEC §13): reported as
//! `Unknown` events and counted in `unknownEvents`, never fatal, never lost;
//! and Codex's older `{ id, msg }` schema, event by event.

use agent_context::agent_output::{
    parse_agent_output, parse_agent_output_as, AgentEvent, AgentOutputParser, AgentReply,
    EventTypeCount, Output, ReplyStatus, TextForm, ToolStatus,
};
use serde_json::{json, Value};

fn events_of(agent: &str, out: &str) -> (Vec<AgentEvent>, AgentReply) {
    let mut parser = AgentOutputParser::new(agent);
    let events = parser.push(out.as_bytes());
    (events, parser.finish())
}

fn count(event_type: &str, count: u64) -> EventTypeCount {
    EventTypeCount {
        event_type: event_type.into(),
        count,
    }
}

fn unknown(event_type: &str, raw: Value) -> AgentEvent {
    AgentEvent::Unknown {
        event_type: event_type.into(),
        raw,
    }
}

#[test]
fn claude_unknown_types_are_events_and_counts_in_first_seen_order() {
    let out = concat!(
        r#"{"type":"system","subtype":"init","session_id":"c-1"}"#,
        "\n",
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}}"#,
        "\n",
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"Hi"}]}}"#,
        "\n",
        r#"{"type":"stream_event","event":{"type":"ping"}}"#,
        "\n",
        r#"{"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning"}}"#,
        "\n",
        r#"{"no_type":true}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Hi"}"#,
        "\n",
    );
    let (events, reply) = events_of("claude-code", out);
    let unknowns: Vec<&AgentEvent> = events
        .iter()
        .filter(|e| matches!(e, AgentEvent::Unknown { .. }))
        .collect();
    assert_eq!(
        unknowns,
        [
            &unknown(
                "rate_limit_event",
                json!({"type":"rate_limit_event","rate_limit_info":{"status":"allowed"}})
            ),
            &unknown(
                "stream_event",
                json!({"type":"stream_event","event":{"type":"ping"}})
            ),
            &unknown(
                "rate_limit_event",
                json!({"type":"rate_limit_event","rate_limit_info":{"status":"allowed_warning"}})
            ),
            &unknown("", json!({"no_type": true})),
        ]
    );
    assert_eq!(reply.text, "Hi");
    assert_eq!(reply.status, ReplyStatus::Success);
    assert!(reply.errors.is_empty());
    assert_eq!(
        reply.unknown_events,
        [
            count("rate_limit_event", 2),
            count("stream_event", 1),
            count("", 1)
        ]
    );
    // The whole-text function counts the same.
    assert_eq!(parse_agent_output("claude-code", out.as_bytes()), reply);
}

#[test]
fn codex_and_gemini_unknown_types_are_counted() {
    let codex = concat!(
        r#"{"type":"thread.started","thread_id":"t"}"#,
        "\n",
        r#"{"type":"turn.started"}"#,
        "\n",
        r#"{"type":"thread.title","title":"x"}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":1}}"#,
        "\n",
    );
    let reply = parse_agent_output("openai-codex", codex.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.unknown_events, [count("thread.title", 1)]);

    let gemini = concat!(
        r#"{"type":"init","session_id":"g","model":"m"}"#,
        "\n",
        r#"{"type":"thought","content":"hmm"}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":"Yes","delta":true}"#,
        "\n",
        r#"{"type":"result","status":"success"}"#,
        "\n",
    );
    let (events, reply) = events_of("google-gemini", gemini);
    assert!(events.contains(&unknown(
        "thought",
        json!({"type":"thought","content":"hmm"})
    )));
    assert_eq!(reply.text, "Yes");
    assert_eq!(reply.unknown_events, [count("thought", 1)]);
}

#[test]
fn the_gemini_fast_paths_leave_unknown_types_to_the_general_reader() {
    // A line shaped like a plain message (string fields only) but of another
    // type: the byte scanner (UTF-16 form) and the serde fast path both hand
    // it on, and it is counted, in every text form and input form.
    let out = concat!(
        r#"{"type":"message","role":"assistant","content":"A","delta":true}"#,
        "\n",
        r#"{"type":"message_v2","role":"assistant","content":"B","delta":true}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":"C","delta":true}"#,
    );
    let units: Vec<u16> = out.encode_utf16().collect();
    for output in [
        Output::Bytes(out.as_bytes()),
        Output::Text(out),
        Output::Utf16(&units),
    ] {
        for form in [TextForm::Utf8, TextForm::Utf16] {
            let (reply, text_units) = parse_agent_output_as("google-gemini", output, form);
            let text = match form {
                TextForm::Utf8 => reply.text.clone(),
                TextForm::Utf16 => String::from_utf16(&text_units).unwrap(),
            };
            assert_eq!(text, "AC", "{output:?} {form:?}");
            assert_eq!(reply.unknown_events, [count("message_v2", 1)]);
        }
    }
    let mut parser = AgentOutputParser::with_utf16_text("google-gemini");
    let events = parser.push(out.as_bytes());
    assert!(events.contains(&unknown(
        "message_v2",
        json!({"type":"message_v2","role":"assistant","content":"B","delta":true})
    )));
}

#[test]
fn plain_text_agents_have_no_unknown_events() {
    let reply = parse_agent_output("aider", b"{\"type\":\"whatever\"}\n");
    assert!(reply.unknown_events.is_empty());
    assert_eq!(reply.text, "{\"type\":\"whatever\"}\n");
}

#[test]
fn unknown_events_serialize_as_the_spec_says() {
    let event = unknown("x.y", json!({"type": "x.y", "n": 1}));
    assert_eq!(
        serde_json::to_value(&event).unwrap(),
        json!({"type": "unknown", "eventType": "x.y", "raw": {"type": "x.y", "n": 1}})
    );
    let reply = parse_agent_output("openai-codex", b"{\"type\":\"x.y\"}\n{\"type\":\"x.y\"}\n");
    assert_eq!(
        serde_json::to_value(&reply).unwrap()["unknownEvents"],
        json!([{"type": "x.y", "count": 2}])
    );
    // None seen: the key is left out, like the other optional parts.
    let reply = parse_agent_output("openai-codex", b"{\"type\":\"turn.started\"}\n");
    assert!(serde_json::to_value(&reply)
        .unwrap()
        .get("unknownEvents")
        .is_none());
}

// ---- Codex's older schema, hand-written for the events the mock runs do not produce ----

#[test]
fn codex_older_schema_tools_of_every_kind() {
    let out = concat!(
        r#"{"model":"gpt-x","sandbox":"read-only","approval":"never"}"#,
        "\n",
        r#"{"prompt":"do it"}"#,
        "\n",
        r#"{"id":"","msg":{"type":"session_configured","session_id":"sess-1","model":"gpt-x"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"task_started"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"agent_reasoning","text":"thinking"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"exec_command_begin","call_id":"c1","command":["bash","-lc","ls"],"cwd":"/w"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"exec_command_end","call_id":"c1","stdout":"a\n","stderr":"","exit_code":0}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"exec_command_begin","call_id":"c2","command":["false"]}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"exec_command_end","call_id":"c2","aggregated_output":"boom","exit_code":1}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"patch_apply_begin","call_id":"p1","auto_approved":true,"changes":{"a.txt":{"add":{"content":"x"}}}}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"patch_apply_end","call_id":"p1","stdout":"ok","stderr":"","success":true}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"mcp_tool_call_begin","call_id":"m1","invocation":{"server":"s","tool":"t","arguments":{"q":1}}}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"mcp_tool_call_end","call_id":"m1","invocation":{"server":"s","tool":"t"},"result":{"Ok":{"content":[{"type":"text","text":"r"}],"isError":false}}}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"mcp_tool_call_begin","call_id":"m2","invocation":{"server":"s","tool":"u"}}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"mcp_tool_call_end","call_id":"m2","result":{"Err":"no server"}}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"web_search_begin","call_id":"w1"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"web_search_end","call_id":"w1","query":"rust"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"agent_message","message":"Done."}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"token_count","input_tokens":10,"cached_input_tokens":4,"output_tokens":3,"reasoning_output_tokens":1,"total_tokens":13}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"new_kind","x":1}}"#,
        "\n",
    );
    let reply = parse_agent_output("openai-codex", out.as_bytes());
    assert_eq!(reply.session_id.as_deref(), Some("sess-1"));
    assert_eq!(reply.text, "Done.");
    assert_eq!(reply.status, ReplyStatus::Success);
    let tools: Vec<(&str, &str, ToolStatus, Option<&str>)> = reply
        .tool_uses
        .iter()
        .map(|t| {
            (
                t.id.as_str(),
                t.name.as_str(),
                t.status,
                t.output.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        tools,
        [
            ("c1", "command_execution", ToolStatus::Success, Some("a\n")),
            ("c2", "command_execution", ToolStatus::Error, Some("boom")),
            ("p1", "file_change", ToolStatus::Success, None),
            ("m1", "s.t", ToolStatus::Success, Some("r")),
            ("m2", "s.u", ToolStatus::Error, Some("no server")),
            ("w1", "web_search", ToolStatus::Success, None),
        ]
    );
    assert_eq!(reply.tool_uses[0].input, json!({"command": "bash -lc ls"}));
    assert_eq!(
        reply.tool_uses[2].input,
        json!({"changes": [{"path": "a.txt", "kind": "add"}]})
    );
    assert_eq!(reply.tool_uses[3].input, json!({"q": 1}));
    assert_eq!(reply.tool_uses[5].input, json!({"query": "rust"}));
    let usage = reply.usage.unwrap();
    assert_eq!(
        (
            usage.input_tokens,
            usage.cached_input_tokens,
            usage.output_tokens,
            usage.total_tokens,
            usage.reasoning_output_tokens
        ),
        (Some(10), Some(4), Some(3), Some(13), Some(1))
    );
    assert_eq!(reply.unknown_events, [count("new_kind", 1)]);
}

#[test]
fn codex_older_schema_ends_well_only_after_a_message_that_followed_every_tool() {
    let started = concat!(
        r#"{"id":"0","msg":{"type":"task_started"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"agent_message","message":"Let me look."}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"exec_command_begin","call_id":"c1","command":["ls"]}}"#,
        "\n",
    );
    // Killed while the command ran: no final message.
    assert_eq!(
        parse_agent_output("openai-codex", started.as_bytes()).status,
        ReplyStatus::Incomplete
    );
    let finished = format!(
        "{started}{}\n{}\n",
        r#"{"id":"0","msg":{"type":"exec_command_end","call_id":"c1","stdout":"x","exit_code":0}}"#,
        r#"{"id":"0","msg":{"type":"agent_message","message":"Found x."}}"#
    );
    let reply = parse_agent_output("openai-codex", finished.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, "Let me look.\n\nFound x.");
    // A task_complete, where a release prints one, settles it too, and its
    // last message stands in when no message was printed.
    let complete = concat!(
        r#"{"id":"0","msg":{"type":"task_started"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"task_complete","last_agent_message":"All done."}}"#,
        "\n",
    );
    let reply = parse_agent_output("openai-codex", complete.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, "All done.");
}

#[test]
fn codex_older_schema_errors() {
    let out = concat!(
        r#"{"id":"0","msg":{"type":"task_started"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"stream_error","message":"stream error: retrying 1/1"}}"#,
        "\n",
        r#"{"id":"0","msg":{"type":"error","message":"The model is unavailable."}}"#,
        "\n",
    );
    let reply = parse_agent_output("openai-codex", out.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(reply.errors.len(), 2);
    assert!(!reply.errors[0].fatal);
    assert_eq!(reply.errors[0].source, "stream_error");
    assert!(reply.errors[1].fatal);
    assert_eq!(reply.errors[1].message, "The model is unavailable.");

    let aborted = r#"{"id":"0","msg":{"type":"turn_aborted","reason":"interrupted"}}"#;
    let reply = parse_agent_output("openai-codex", aborted.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(reply.errors[0].code.as_deref(), Some("interrupted"));
}

#[test]
fn codex_in_between_schema_reads_the_same() {
    // The releases between the two schemas: `session.created`, and items
    // with `item_type` (`assistant_message`).
    let out = concat!(
        r#"{"type":"session.created","session_id":"s-9"}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_0","item_type":"reasoning","text":"hm"}}"#,
        "\n",
        r#"{"type":"item.completed","item":{"id":"item_1","item_type":"assistant_message","text":"Hello"}}"#,
        "\n",
        r#"{"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":2}}"#,
        "\n",
    );
    let reply = parse_agent_output("openai-codex", out.as_bytes());
    assert_eq!(reply.session_id.as_deref(), Some("s-9"));
    assert_eq!(reply.text, "Hello");
    assert_eq!(reply.status, ReplyStatus::Success);
    assert!(reply.unknown_events.is_empty());
}
