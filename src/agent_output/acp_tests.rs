//! Tests of `acp.rs`.

use crate::agent_output::{
    parse_agent_output_in, AgentEvent, AgentOutputParser, AgentReply, Output, Protocol,
    ReplyStatus, TextForm, ToolStatus,
};
use serde_json::json;

fn parse(agent: &str, lines: &[serde_json::Value]) -> AgentReply {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    parse_agent_output_in(agent, Protocol::Acp, Output::Text(&text), TextForm::Utf8).0
}

fn update(kind: &str, fields: serde_json::Value) -> serde_json::Value {
    let mut update = fields;
    update["sessionUpdate"] = json!(kind);
    json!({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": update}})
}

fn chunk(kind: &str, text: &str) -> serde_json::Value {
    update(kind, json!({"content": {"type": "text", "text": text}}))
}

fn stop(reason: &str) -> serde_json::Value {
    json!({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": reason}})
}

#[test]
fn thoughts_and_plans_are_kept_apart_from_the_text() {
    let entries = json!([{"content": "read", "priority": "high", "status": "pending"}]);
    let reply = parse(
        "claude-code",
        &[
            chunk("agent_thought_chunk", "Think"),
            chunk("agent_message_chunk", "Hel"),
            chunk("agent_thought_chunk", "ing"),
            update("plan", json!({"entries": entries})),
            chunk("agent_message_chunk", "lo"),
            stop("end_turn"),
        ],
    );
    assert_eq!(reply.text, "Hello");
    assert_eq!(reply.thoughts, "Thinking");
    assert_eq!(reply.plan, Some(entries));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.session_id.as_deref(), Some("s"));
}

#[test]
fn thought_and_plan_events_arrive_in_order() {
    let mut parser = AgentOutputParser::with_protocol("qwen-code", Protocol::Acp, TextForm::Utf8);
    let line = format!("{}\n", chunk("agent_thought_chunk", "hmm"));
    assert_eq!(
        parser.push(line.as_bytes()),
        vec![
            AgentEvent::Session {
                session_id: "s".into()
            },
            AgentEvent::Thought { text: "hmm".into() }
        ]
    );
    let line = format!("{}\n", update("plan", json!({"entries": []})));
    assert_eq!(
        parser.push(line.as_bytes()),
        vec![AgentEvent::Plan { entries: json!([]) }]
    );
}

#[test]
fn a_turn_not_ended_by_end_turn_failed_with_its_reason() {
    for reason in ["cancelled", "max_tokens", "max_turn_requests", "refusal"] {
        let reply = parse(
            "opencode",
            &[chunk("agent_message_chunk", "part"), stop(reason)],
        );
        assert_eq!(reply.status, ReplyStatus::Error, "{reason}");
        assert_eq!(reply.errors[0].code.as_deref(), Some(reason));
        assert_eq!(reply.terminal_reason.as_deref(), Some(reason));
        assert_eq!(reply.text, "part");
    }
    // No response at all: the agent was killed or is still going.
    let reply = parse("opencode", &[chunk("agent_message_chunk", "part")]);
    assert_eq!(reply.status, ReplyStatus::Incomplete);
}

#[test]
fn history_replayed_by_session_load_is_not_the_reply() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}});
    let loaded = json!({"jsonrpc": "2.0", "id": 2, "result": {}});
    let reply = parse(
        "claude-code",
        &[
            init,
            chunk("user_message_chunk", "old question"),
            chunk("agent_message_chunk", "old answer"),
            update("tool_call", json!({"toolCallId": "old", "title": "Read"})),
            loaded,
            chunk("agent_message_chunk", "new answer"),
            stop("end_turn"),
        ],
    );
    assert_eq!(reply.text, "new answer");
    assert!(reply.tool_uses.is_empty());
    // The session is the one the replay carried.
    assert_eq!(reply.session_id.as_deref(), Some("s"));
    assert_eq!(reply.status, ReplyStatus::Success);
}

#[test]
fn tool_calls_merge_their_updates_and_permission_requests() {
    let permission = json!({"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {
        "sessionId": "s",
        "toolCall": {"toolCallId": "t1", "rawInput": {"path": "a.txt", "content": "x"}},
        "options": [{"optionId": "allow", "kind": "allow_once", "name": "Allow"}],
    }});
    let reply = parse(
        "copilot-unknown-agent",
        &[
            chunk("agent_message_chunk", "Writing."),
            update(
                "tool_call",
                json!({"toolCallId": "t1", "title": "Write a.txt", "kind": "edit", "status": "pending"}),
            ),
            permission,
            update(
                "tool_call_update",
                json!({"toolCallId": "t1", "status": "failed",
                "content": [{"type": "content", "content": {"type": "text", "text": "denied"}}]}),
            ),
            chunk("agent_message_chunk", "Could not."),
            stop("end_turn"),
        ],
    );
    assert_eq!(reply.text, "Writing.\n\nCould not.");
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!((tool.id.as_str(), tool.name.as_str()), ("t1", "edit"));
    assert_eq!(tool.input, json!({"path": "a.txt", "content": "x"}));
    assert_eq!(tool.status, ToolStatus::Error);
    assert_eq!(tool.output.as_deref(), Some("denied"));
}

#[test]
fn lines_that_are_not_json_are_kept_aside() {
    let text = "warning: something\n{\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"stopReason\":\"end_turn\"}}\n{\"jsonrpc\"";
    let reply = parse_agent_output_in(
        "google-gemini",
        Protocol::Acp,
        Output::Text(text),
        TextForm::Utf8,
    )
    .0;
    assert_eq!(reply.non_json_lines, ["warning: something", "{\"jsonrpc\""]);
    assert_eq!(reply.status, ReplyStatus::Success);
}

#[test]
fn an_error_response_is_fatal_with_its_http_status() {
    let reply = parse(
        "claude-code",
        &[
            json!({"jsonrpc": "2.0", "id": 3, "error": {"code": -32603, "message": "Internal error: API Error: 529 overloaded"}}),
        ],
    );
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(reply.api_error_status, Some(529));
    assert_eq!(reply.errors[0].code.as_deref(), Some("-32603"));
}

#[test]
fn the_protocol_option_is_cli_or_acp() {
    assert_eq!(Protocol::from_option(None).unwrap(), Protocol::Cli);
    assert_eq!(Protocol::from_option(Some("acp")).unwrap(), Protocol::Acp);
    let err = Protocol::from_option(Some("ACP")).unwrap_err();
    assert_eq!(err.code().as_str(), "INVALID_INPUT");
    assert!(err.message().starts_with("protocol "), "{err}");
}

#[test]
fn an_mcp_tool_is_named_with_its_input_and_output_as_each_agent_sends_it() {
    // Gemini CLI 0.61 asks before an MCP tool: the permission request is the
    // call's first sight, its content the arguments; no `rawInput` ever.
    let id = "mcp_notes_record_note__mcp_notes_record_note_1795773195721_0";
    let reply = parse(
        "google-gemini",
        &[
            json!({"jsonrpc": "2.0", "id": 0, "method": "session/request_permission", "params": {"sessionId": "s",
                "options": [], "toolCall": {"toolCallId": id, "status": "pending", "title": "record_note (notes MCP Server)",
                "content": [{"type": "content", "content": {"type": "text", "text": "{\"text\":\"Launch window opens at 4217.\"}"}}],
                "locations": [], "kind": "other"}}}),
            update(
                "tool_call_update",
                json!({"toolCallId": id, "status": "completed", "title": "record_note (notes MCP Server)",
                "content": [{"type": "content", "content": {"type": "text", "text": "Noted: Launch window opens at 4217. (note 1)"}}],
                "locations": [], "kind": "other"}),
            ),
            stop("end_turn"),
        ],
    );
    let tool = &reply.tool_uses[0];
    assert_eq!(tool.name, "mcp_notes_record_note");
    assert_eq!(tool.input, json!({"text": "Launch window opens at 4217."}));
    assert_eq!(tool.status, ToolStatus::Success);
    assert_eq!(
        tool.output.as_deref(),
        Some("Noted: Launch window opens at 4217. (note 1)")
    );
    // Codex's adapter 2.6: kind `execute`, the title names the tool, the
    // result in `rawOutput`.
    let reply = parse(
        "openai-codex",
        &[
            update(
                "tool_call",
                json!({"toolCallId": "call_2", "kind": "execute", "title": "mcp.notes.record_note",
                "status": "in_progress", "rawInput": {"server": "notes", "tool": "record_note", "arguments": {"text": "T"}},
                "_meta": {"is_mcp_tool_call": true}}),
            ),
            update(
                "tool_call_update",
                json!({"toolCallId": "call_2", "status": "completed",
                "rawOutput": {"result": {"content": [{"type": "text", "text": "Noted: T"}], "structuredContent": null, "_meta": null}, "error": null}}),
            ),
            update(
                "tool_call",
                json!({"toolCallId": "call_3", "kind": "execute", "title": "mcp.sh", "status": "in_progress",
                "rawInput": {"command": ["mcp.sh"]}}),
            ),
            stop("end_turn"),
        ],
    );
    assert_eq!(reply.tool_uses[0].name, "mcp.notes.record_note");
    assert_eq!(reply.tool_uses[0].input["arguments"], json!({"text": "T"}));
    assert_eq!(reply.tool_uses[0].output.as_deref(), Some("Noted: T"));
    // A command is named by its kind still.
    assert_eq!(reply.tool_uses[1].name, "execute");
}

#[test]
fn a_sub_agents_tool_calls_name_the_call_that_runs_it() {
    // claude-agent-acp 0.101 stamps `_meta.claudeCode.parentToolUseId` on
    // what a sub-agent (the `Task` tool) does.
    let task = update(
        "tool_call",
        json!({"toolCallId": "toolu_task", "title": "Task", "kind": "think", "status": "pending",
               "_meta": {"claudeCode": {"toolName": "Task"}}}),
    );
    let inner = update(
        "tool_call",
        json!({"toolCallId": "toolu_read", "title": "Read notes.txt", "kind": "read", "status": "pending",
               "rawInput": {"file_path": "/w/notes.txt"},
               "_meta": {"claudeCode": {"toolName": "Read", "parentToolUseId": "toolu_task"}}}),
    );
    let done = update(
        "tool_call_update",
        json!({"toolCallId": "toolu_read", "status": "completed",
               "_meta": {"claudeCode": {"toolName": "Read", "parentToolUseId": "toolu_task"}},
               "content": [{"type": "content", "content": {"type": "text", "text": "notes"}}]}),
    );
    let reply = parse("claude-code", &[task, inner, done, stop("end_turn")]);
    assert_eq!(reply.tool_uses.len(), 2);
    assert_eq!(reply.tool_uses[0].name, "Task");
    assert_eq!(reply.tool_uses[0].parent_id, None);
    assert_eq!(reply.tool_uses[1].name, "Read");
    assert_eq!(reply.tool_uses[1].parent_id.as_deref(), Some("toolu_task"));
    assert_eq!(reply.tool_uses[1].status, ToolStatus::Success);
    let json = serde_json::to_value(&reply.tool_uses[1]).unwrap();
    assert_eq!(json["parentId"], "toolu_task");
    assert!(serde_json::to_value(&reply.tool_uses[0])
        .unwrap()
        .get("parentId")
        .is_none());
}

#[test]
fn a_turn_that_says_nothing_failed_for_an_agent_whose_failures_are_silent() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}});
    let session = json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s"}});
    let usage = update("usage_update", json!({"used": 73, "size": 262144}));
    // Kimi Code ends a turn whose model call failed `end_turn`, silent.
    let silent = parse(
        "kimi-code",
        &[
            init.clone(),
            session.clone(),
            usage.clone(),
            stop("end_turn"),
        ],
    );
    assert_eq!(silent.status, ReplyStatus::Error);
    assert_eq!(silent.errors[0].code.as_deref(), Some("silent_turn"));
    assert!(
        silent.errors[0]
            .message
            .starts_with("the turn ended without a word, a thought or a tool call: over ACP Kimi Code says nothing"),
        "{}",
        silent.errors[0].message
    );
    // A second turn of the same transcript is judged on its own.
    let answered = parse(
        "kimi-code",
        &[
            init.clone(),
            session.clone(),
            chunk("agent_message_chunk", "Hi"),
            stop("end_turn"),
            usage.clone(),
            stop("end_turn"),
        ],
    );
    assert_eq!(answered.status, ReplyStatus::Error);
    let both = parse(
        "kimi-code",
        &[
            init.clone(),
            session.clone(),
            chunk("agent_message_chunk", "Hi"),
            stop("end_turn"),
        ],
    );
    assert_eq!(both.status, ReplyStatus::Success);
    // Any other agent's empty turn is an empty success.
    let other = parse("opencode", &[init, session, usage, stop("end_turn")]);
    assert_eq!(other.status, ReplyStatus::Success);
}

#[test]
fn an_agents_notices_sent_as_text_are_notes_not_the_reply() {
    let init = json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}});
    let session = json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s"}});
    let lines = [
        init.clone(),
        session.clone(),
        chunk(
            "agent_message_chunk",
            "Retrying (attempt 1/1, waiting 2s)...",
        ),
        chunk("agent_message_chunk", "Retry finished, resuming."),
        chunk("agent_message_chunk", "Hello"),
        stop("end_turn"),
    ];
    let reply = parse("pi", &lines);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, "Hello");
    let codes: Vec<Option<&str>> = reply.errors.iter().map(|e| e.code.as_deref()).collect();
    assert_eq!(codes, [Some("notice"), Some("notice")]);
    // Its retries given up on: only notices, then a silent end.
    let failed = parse(
        "pi",
        &[
            init,
            session,
            lines[2].clone(),
            lines[3].clone(),
            stop("end_turn"),
        ],
    );
    assert_eq!(failed.status, ReplyStatus::Error);
    assert!(failed
        .errors
        .last()
        .unwrap()
        .message
        .contains("over ACP pi says nothing of a failed model call"));
    // The same text from another agent is its reply.
    let other = parse(
        "opencode",
        &[
            json!({"jsonrpc": "2.0", "id": 1, "result": {"protocolVersion": 1}}),
            json!({"jsonrpc": "2.0", "id": 2, "result": {"sessionId": "s"}}),
            chunk("agent_message_chunk", "Retry finished, resuming."),
            stop("end_turn"),
        ],
    );
    assert_eq!(other.text, "Retry finished, resuming.");
}
