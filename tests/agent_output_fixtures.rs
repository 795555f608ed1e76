#![cfg(not(target_arch = "wasm32"))]
//! Agent output parsing on real CLI output (`tests/fixtures/cli/`, recorded
//! by `tests/cli/record.cjs` from the pinned CLIs run against the mock APIs)
//! and on hand-written lines for the event types those runs do not produce.

use agent_context::agent_output::{
    parse_agent_output, AgentEvent, AgentOutputParser, AgentReply, ReplyError, ReplyStatus,
    ToolStatus, Usage,
};
use serde_json::{json, Value};

const CLAUDE: &str = "claude-code";
const CODEX: &str = "openai-codex";
const GEMINI: &str = "google-gemini";
const PLAIN_ANSWER: &str = "Mock reply: use React for the dashboard.";
const TOOL_ANSWER: &str = "The notes say the launch code is 4217.";

fn fixture(name: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/cli/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// `key` of the fixture's first line, read on its own, to check that the
/// parser takes the session id from the right event.
fn first_line_field(bytes: &[u8], key: &str) -> String {
    let first = bytes.split(|&b| b == b'\n').next().unwrap();
    let event: Value = serde_json::from_slice(first).unwrap();
    event[key].as_str().unwrap().to_owned()
}

/// Parses `bytes` whole, and streamed in chunks of every size from 1 to 64
/// (so across lines and inside UTF-8 characters): all must agree, and the
/// text events must add up to the text.
fn parse(agent: &str, bytes: &[u8]) -> AgentReply {
    let whole = parse_agent_output(agent, bytes);
    for size in 1..=64 {
        let mut parser = AgentOutputParser::new(agent);
        let mut text = String::new();
        let mut usages = Vec::new();
        for chunk in bytes.chunks(size) {
            for event in parser.push(chunk) {
                match event {
                    AgentEvent::Text { text: piece } => text.push_str(&piece),
                    AgentEvent::Usage { usage } => usages.push(usage),
                    _ => {}
                }
            }
        }
        // A `usage` event is the usage when it changed.
        assert!(
            usages.windows(2).all(|w| w[0] != w[1]),
            "an unchanged usage event"
        );
        let streamed = parser.finish();
        assert_eq!(streamed, whole, "chunks of {size} bytes");
        // A last line without `\n` is read by finish(), which reports no events.
        if bytes.ends_with(b"\n") {
            assert_eq!(text, whole.text, "text events, chunks of {size} bytes");
        }
    }
    whole
}

fn note(source: &str, message: &str, code: Option<&str>) -> ReplyError {
    ReplyError {
        message: message.into(),
        fatal: false,
        source: source.into(),
        code: code.map(Into::into),
    }
}

fn fatal(source: &str, message: &str, code: Option<&str>) -> ReplyError {
    ReplyError {
        fatal: true,
        ..note(source, message, code)
    }
}

fn tokens(input: u64, cached: u64, output: u64) -> Usage {
    Usage {
        input_tokens: Some(input),
        cached_input_tokens: Some(cached),
        output_tokens: Some(output),
        total_tokens: Some(input + output),
        ..Usage::default()
    }
}

const CODEX_MODEL_NOTE: &str = "Model metadata for `gpt-mock` not found. Defaulting to fallback metadata; this can degrade performance and cause issues.";

// ---- Real output of the pinned CLIs ----

#[test]
fn gemini_plain_answer() {
    let bytes = fixture("gemini-plain");
    let reply = parse(GEMINI, &bytes);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(
        reply.session_id.as_deref(),
        Some(first_line_field(&bytes, "session_id").as_str())
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.errors, []);
    let usage = reply.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(120), Some(9), Some(129))
    );
    assert!(usage.duration_ms.is_some());
    // The user message (our prompt, echoed) is not part of the reply.
    assert!(
        String::from_utf8_lossy(&bytes).contains("\"role\":\"user\",\"content\":\"Instructions:")
    );
    assert!(!reply.text.contains("Instructions:"));
}

#[test]
fn gemini_tool_call() {
    let reply = parse(GEMINI, &fixture("gemini-tool"));
    assert_eq!(reply.text, TOOL_ANSWER);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(tool.name, "read_file");
    assert!(tool.id.starts_with("read_file"));
    assert_eq!(tool.input, json!({"file_path": "notes.txt"}));
    assert_eq!(tool.status, ToolStatus::Success);
    assert_eq!(reply.usage.unwrap().total_tokens, Some(258));
}

#[test]
fn gemini_api_error_is_a_failed_result() {
    let reply = parse(GEMINI, &fixture("gemini-error"));
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(reply.text, "");
    assert!(reply.session_id.is_some());
    assert_eq!(
        reply.errors,
        [fatal(
            "result",
            r#"[API Error: {"error":{"code":400,"message":"Mock rejects this request: API key not valid.","status":"INVALID_ARGUMENT"}}]"#,
            Some("unknown")
        )]
    );
}

#[test]
fn gemini_error_status_with_exit_code_zero_is_a_failure() {
    // Recorded with exit code 0: the `error` line explains the failed result.
    let reply = parse(GEMINI, &fixture("gemini-empty"));
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(
        reply.errors,
        [fatal(
            "error",
            "The model returned an empty response with no text or thoughts. This may be a transient API issue; please try again.",
            Some("error")
        )]
    );
}

#[test]
fn claude_plain_answer() {
    let bytes = fixture("claude-plain");
    let reply = parse(CLAUDE, &bytes);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(
        reply.session_id.as_deref(),
        Some(first_line_field(&bytes, "session_id").as_str())
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.errors, []);
    let usage = reply.usage.unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens, usage.total_tokens),
        (Some(120), Some(9), Some(129))
    );
    assert_eq!(usage.cost_usd, Some(0.00066));
}

#[test]
fn claude_tool_call() {
    let reply = parse(CLAUDE, &fixture("claude-tool"));
    assert_eq!(
        reply.text,
        format!("Let me read the notes.\n\n{TOOL_ANSWER}")
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(
        (tool.id.as_str(), tool.name.as_str()),
        ("toolu_mock_1", "Read")
    );
    assert!(tool.input["file_path"]
        .as_str()
        .unwrap()
        .ends_with("/work/notes.txt"));
    assert_eq!(tool.status, ToolStatus::Success);
    assert_eq!(
        tool.output.as_deref(),
        Some("1\tThe launch code is 4217.\n2\t")
    );
}

#[test]
fn claude_is_error_fails_although_subtype_says_success() {
    let bytes = fixture("claude-error");
    let last = String::from_utf8_lossy(&bytes)
        .lines()
        .last()
        .map(str::to_owned)
        .unwrap();
    let result: Value = serde_json::from_str(&last).unwrap();
    assert_eq!(
        (result["subtype"].as_str(), result["is_error"].as_bool()),
        (Some("success"), Some(true))
    );

    let reply = parse(CLAUDE, &bytes);
    assert_eq!(reply.status, ReplyStatus::Error);
    // The synthetic assistant message is the error, not the reply; the
    // result repeating it makes it fatal rather than adding a copy.
    assert_eq!(reply.text, "");
    assert_eq!(
        reply.errors,
        [fatal(
            "assistant",
            "API Error: 400 Mock rejects this request: prompt is not allowed.",
            Some("invalid_request_error")
        )]
    );
}

#[test]
fn claude_api_retry_is_a_note() {
    let reply = parse(CLAUDE, &fixture("claude-flaky"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(
        reply.errors,
        [note(
            "system",
            "API call retried (attempt 1 of 10): overloaded, HTTP 529",
            Some("overloaded")
        )]
    );
}

#[test]
fn claude_mcp_servers_that_did_not_connect_are_notes() {
    // The init line's servers as Claude Code 2.1.332 listed them in a run
    // given a stdio server that exits at once and an http one on a port
    // nothing listens on (and, beside them, one connected).
    let servers = r#""mcp_servers":[{"name":"broken","status":"failed","source":"dynamic"},{"name":"gone","status":"failed","source":"dynamic"},{"name":"notes","status":"connected","source":"dynamic"}]"#;
    let plain = String::from_utf8(fixture("claude-plain")).unwrap();
    assert!(plain.contains(r#""mcp_servers":[]"#));
    let reply = parse(
        CLAUDE,
        plain.replacen(r#""mcp_servers":[]"#, servers, 1).as_bytes(),
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, PLAIN_ANSWER);
    let down = |name: &str| {
        note(
            "system",
            &format!(
                "MCP server \"{name}\" is not connected (failed): the agent runs without its tools"
            ),
            Some("mcp_server"),
        )
    };
    assert_eq!(reply.errors, [down("broken"), down("gone")]);
}

#[test]
fn codex_plain_answer() {
    let bytes = fixture("codex-plain");
    let reply = parse(CODEX, &bytes);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(
        reply.session_id.as_deref(),
        Some(first_line_field(&bytes, "thread_id").as_str())
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(
        reply.errors,
        [note("item.completed", CODEX_MODEL_NOTE, None)]
    );
    // 0.169.0 also prints the reasoning and cache-write counts.
    assert_eq!(
        reply.usage,
        Some(Usage {
            reasoning_output_tokens: Some(0),
            cache_write_input_tokens: Some(0),
            ..tokens(120, 20, 9)
        })
    );
}

#[test]
fn codex_tool_call() {
    let reply = parse(CODEX, &fixture("codex-tool"));
    assert_eq!(
        reply.text,
        format!("Let me read the notes.\n\n{TOOL_ANSWER}")
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(
        (tool.id.as_str(), tool.name.as_str()),
        ("item_2", "command_execution")
    );
    assert_eq!(
        tool.input,
        json!({"command": "/bin/bash -lc 'cat notes.txt'"})
    );
    assert_eq!(tool.status, ToolStatus::Success);
    assert_eq!(tool.output.as_deref(), Some("The launch code is 4217.\n"));
    // 0.169.0 also prints the reasoning and cache-write counts.
    assert_eq!(
        reply.usage,
        Some(Usage {
            reasoning_output_tokens: Some(0),
            cache_write_input_tokens: Some(0),
            ..tokens(240, 40, 18)
        })
    );
}

#[test]
fn codex_turn_failed_with_reconnecting_notes() {
    let reply = parse(CODEX, &fixture("codex-error"));
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(reply.text, "");
    let message =
        "We\u{2019}re currently experiencing high demand, which may cause temporary errors.";
    assert_eq!(
        reply.errors,
        [
            note("item.completed", CODEX_MODEL_NOTE, None),
            note("error", &format!("Reconnecting... 1/1 ({message})"), None),
            fatal("error", message, None),
        ]
    );
    assert_eq!(reply.usage, None);
}

#[test]
fn codex_reconnecting_then_success() {
    let reply = parse(CODEX, &fixture("codex-flaky"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(reply.errors.len(), 2);
    assert!(reply.errors[1]
        .message
        .starts_with("Reconnecting... 1/1 (unexpected status 503"));
    assert!(reply.errors.iter().all(|e| !e.fatal));
}

// ---- Event types the recorded runs do not show ----

#[test]
fn gemini_warnings_ansi_non_json_lines_and_failed_tools() {
    let out = concat!(
        "Loaded cached credentials.\r\n",
        r#"{"type":"init","timestamp":"t","session_id":"g-1","model":"gemini-2.5-pro"}"#,
        "\r\n",
        "\u{1b}[33m(node:1) [DEP0040] DeprecationWarning: The `punycode` module is deprecated.\u{1b}[0m\n",
        r#"{"type":"message","role":"user","content":"our prompt"}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":"\u001b[1mChecking","delta":true}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":"\u001b[0m the file.","delta":true}"#,
        "\n",
        r#"{"type":"tool_use","tool_name":"read_file","tool_id":"t1","parameters":{"file_path":"a.txt","limit":null}}"#,
        "\n",
        r#"{"type":"tool_result","tool_id":"t1","status":"error","error":{"type":"file_not_found","message":"File not found: a.txt"}}"#,
        "\n",
        r#"{"type":"error","severity":"warning","message":"Loop detected, stopping execution"}"#,
        "\n",
        "\n",
        r#"{"type":"message","role":"assistant","content":"It does not exist.","delta":true}"#,
        "\n",
        r#"{"type":"some_future_event","x":1}"#,
        "\n",
        r#"{"type":"result","status":"success","stats":{"total_tokens":10,"input_tokens":7,"output_tokens":3,"cached":2,"input":5,"duration_ms":42,"tool_calls":1}}"#,
        "\n",
    );
    let reply = parse(GEMINI, out.as_bytes());
    assert_eq!(reply.text, "Checking the file.\n\nIt does not exist.");
    assert_eq!(reply.session_id.as_deref(), Some("g-1"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(
        reply.errors,
        [note(
            "error",
            "Loop detected, stopping execution",
            Some("warning")
        )]
    );
    assert_eq!(
        reply.non_json_lines,
        [
            "Loaded cached credentials.",
            "(node:1) [DEP0040] DeprecationWarning: The `punycode` module is deprecated."
        ]
    );
    let tool = &reply.tool_uses[0];
    assert_eq!(tool.input, json!({"file_path": "a.txt", "limit": null}));
    assert_eq!(tool.status, ToolStatus::Error);
    assert_eq!(tool.output.as_deref(), Some("File not found: a.txt"));
    assert_eq!(
        reply.usage,
        Some(Usage {
            duration_ms: Some(42),
            ..tokens(7, 2, 3)
        })
    );
}

#[test]
fn gemini_output_cut_short_is_incomplete() {
    let out = concat!(
        r#"{"type":"init","session_id":"g-2","model":"m"}"#,
        "\n",
        r#"{"type":"message","role":"assistant","content":"Partial","delta":true}"#,
        "\n",
        r#"{"type":"message","role":"assist"#,
    );
    let reply = parse(GEMINI, out.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Incomplete);
    assert_eq!(reply.text, "Partial");
    assert_eq!(
        reply.non_json_lines,
        [r#"{"type":"message","role":"assist"#]
    );
}

#[test]
fn gemini_failed_result_with_its_own_error() {
    let out = r#"{"type":"result","status":"error","error":{"type":"FatalTurnLimitedError","message":"Reached max session turns"}}"#;
    let reply = parse(GEMINI, out.as_bytes());
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(
        reply.errors,
        [fatal(
            "result",
            "Reached max session turns",
            Some("FatalTurnLimitedError")
        )]
    );
    let bare = parse(GEMINI, br#"{"type":"result","status":"error"}"#);
    assert_eq!(
        bare.errors,
        [fatal(
            "result",
            "Gemini CLI reported a failed run without a message",
            None
        )]
    );
}

#[test]
fn claude_blocks_subagents_denials_and_failed_tools() {
    let out = [
        json!({"type":"system","subtype":"init","session_id":"c-1","model":"sonnet"}),
        json!({"type":"assistant","parent_tool_use_id":null,"session_id":"c-1","message":{"content":[
            {"type":"thinking","thinking":"hmm"},
            {"type":"text","text":"First."},
            {"type":"text","text":"Second."},
            {"type":"tool_use","id":"tu1","name":"Task","input":{"prompt":"look"}}]}}),
        json!({"type":"assistant","parent_tool_use_id":"tu1","message":{"content":[{"type":"text","text":"sub-agent talk"}]}}),
        json!({"type":"user","parent_tool_use_id":null,"message":{"content":[
            {"type":"tool_result","tool_use_id":"tu1","is_error":true,"content":[{"type":"text","text":"line 1"},{"type":"text","text":"line 2"}]}]}}),
        json!({"type":"system","subtype":"permission_denied","message":"Claude requested permissions to use Bash, but you haven't granted it yet."}),
        json!({"type":"system","subtype":"compact_boundary"}),
        json!({"type":"result","subtype":"success","is_error":false,"result":"Second.","session_id":"c-1",
            "usage":{"input_tokens":3,"cache_creation_input_tokens":5,"cache_read_input_tokens":7,"output_tokens":2},
            "duration_ms":900,"total_cost_usd":0.25}),
    ]
    .map(|v| format!("{v}\n"))
    .concat();
    let reply = parse(CLAUDE, out.as_bytes());
    assert_eq!(reply.text, "First.\n\nSecond.");
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.tool_uses.len(), 1);
    assert_eq!(reply.tool_uses[0].status, ToolStatus::Error);
    assert_eq!(reply.tool_uses[0].output.as_deref(), Some("line 1\nline 2"));
    assert_eq!(
        reply.errors,
        [note(
            "system",
            "Claude requested permissions to use Bash, but you haven't granted it yet.",
            Some("permission_denied")
        )]
    );
    assert_eq!(
        reply.usage,
        Some(Usage {
            duration_ms: Some(900),
            cost_usd: Some(0.25),
            cache_write_input_tokens: Some(5),
            ..tokens(15, 7, 2)
        })
    );
}

#[test]
fn claude_result_text_stands_in_when_no_block_was_seen() {
    let out = concat!(
        r#"{"type":"system","subtype":"init","session_id":"c-2"}"#,
        "\n",
        r#"{"type":"result","subtype":"success","is_error":false,"result":"Only here.","session_id":"c-2"}"#,
        "\n"
    );
    let reply = parse(CLAUDE, out.as_bytes());
    assert_eq!(reply.text, "Only here.");
    assert_eq!(reply.status, ReplyStatus::Success);
    // No `system/init`: the result's session id is taken.
    let reply = parse(
        CLAUDE,
        br#"{"type":"result","subtype":"success","result":"x","session_id":"c-3"}"#,
    );
    assert_eq!(reply.session_id.as_deref(), Some("c-3"));
}

#[test]
fn claude_error_subtypes_fail() {
    let turns = parse(
        CLAUDE,
        br#"{"type":"result","subtype":"error_max_turns","is_error":true,"num_turns":3}"#,
    );
    assert_eq!(turns.status, ReplyStatus::Error);
    assert_eq!(
        turns.errors,
        [fatal(
            "result",
            "Claude Code ended with error_max_turns",
            Some("error_max_turns")
        )]
    );
    let during = parse(
        CLAUDE,
        br#"{"type":"result","subtype":"error_during_execution","is_error":false,"errors":["disk full","gave up"]}"#,
    );
    assert_eq!(during.status, ReplyStatus::Error);
    assert_eq!(during.errors[0].message, "disk full; gave up");
}

#[test]
fn codex_tool_items_of_every_kind() {
    let out = [
        json!({"type":"thread.started","thread_id":"x-1"}),
        json!({"type":"turn.started"}),
        json!({"type":"item.started","item":{"id":"i1","type":"command_execution","command":"false","aggregated_output":"","exit_code":null,"status":"in_progress"}}),
        json!({"type":"item.completed","item":{"id":"i1","type":"command_execution","command":"false","aggregated_output":"\u{1b}[31mboom\u{1b}[0m","exit_code":1,"status":"failed"}}),
        json!({"type":"item.completed","item":{"id":"i2","type":"file_change","changes":[{"path":"a.rs","kind":"update"}],"status":"completed"}}),
        json!({"type":"item.started","item":{"id":"i3","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":null,"error":null,"status":"in_progress"}}),
        json!({"type":"item.completed","item":{"id":"i3","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"q":"x"},"result":null,"error":{"message":"timed out"},"status":"failed"}}),
        json!({"type":"item.completed","item":{"id":"i4","type":"web_search","query":"rust wasm"}}),
        json!({"type":"item.updated","item":{"id":"i5","type":"todo_list","items":[{"text":"a","completed":false}]}}),
        json!({"type":"item.completed","item":{"id":"i6","type":"reasoning","text":"thinking"}}),
        json!({"type":"item.completed","item":{"id":"i7","type":"agent_message","text":"Done."}}),
        json!({"type":"turn.completed","usage":{"input_tokens":10,"cached_input_tokens":4,"output_tokens":2}}),
        json!({"type":"turn.completed","usage":{"input_tokens":5,"cached_input_tokens":0,"output_tokens":1}}),
    ]
    .map(|v| format!("{v}\n"))
    .concat();
    let reply = parse(CODEX, out.as_bytes());
    assert_eq!(reply.text, "Done.");
    assert_eq!(reply.session_id.as_deref(), Some("x-1"));
    assert_eq!(reply.status, ReplyStatus::Success);
    let tools: Vec<_> = reply
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
            ("i1", "command_execution", ToolStatus::Error, Some("boom")),
            ("i2", "file_change", ToolStatus::Success, None),
            ("i3", "docs.search", ToolStatus::Error, Some("timed out")),
            ("i4", "web_search", ToolStatus::Success, None),
        ]
    );
    assert_eq!(reply.tool_uses[2].input, json!({"q": "x"}));
    // Two turns add up.
    assert_eq!(reply.usage, Some(tokens(15, 4, 3)));
}

#[test]
fn codex_errors_without_turn_failed() {
    let reply = parse(
        CODEX,
        br#"{"type":"error","message":"Reconnecting... 2/5 (stream disconnected)"}
{"type":"error","message":"stream disconnected before completion"}
"#,
    );
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(
        reply.errors,
        [
            note("error", "Reconnecting... 2/5 (stream disconnected)", None),
            fatal("error", "stream disconnected before completion", None)
        ]
    );
    let failed = parse(
        CODEX,
        br#"{"type":"turn.failed","error":{"message":"quota exceeded"}}"#,
    );
    assert_eq!(
        failed.errors,
        [fatal("turn.failed", "quota exceeded", None)]
    );
}

#[test]
fn any_other_agent_is_plain_text() {
    let reply = parse(
        "aider",
        b"\x1b[1mAider v0.80\x1b[0m\nThe answer.\n{\"type\":\"result\"}\n",
    );
    assert_eq!(
        reply.text,
        "Aider v0.80\nThe answer.\n{\"type\":\"result\"}\n"
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.session_id, None);
    assert!(
        reply.errors.is_empty() && reply.tool_uses.is_empty() && reply.non_json_lines.is_empty()
    );
}

#[test]
fn invalid_utf8_reads_as_replacement_characters() {
    let reply = parse(
        GEMINI,
        b"\xff\xfe warning\n{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"ok\",\"delta\":true}\n",
    );
    assert_eq!(reply.non_json_lines, ["\u{FFFD}\u{FFFD} warning"]);
    assert_eq!(reply.text, "ok");
}
