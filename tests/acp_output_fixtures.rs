#![cfg(not(target_arch = "wasm32"))]
//! ACP transcripts recorded from the six real agents driven over the Agent
//! Client Protocol against the offline mocks (`tests/acp/record_acp.cjs`,
//! fixtures in `tests/fixtures/acp/<agent>/<version>/<scenario>.jsonl`),
//! read with `protocol: 'acp'`. The expected values come from what the mocks
//! sent (their answers, usage and errors, tests/cli/mocks/) and from the
//! lines of each transcript that carry them (session ids).

use agent_context::agent_output::{
    parse_agent_output_in, AgentEvent, AgentOutputParser, AgentReply, Output, Protocol,
    ReplyStatus, TextForm, ToolStatus, ToolUse, Usage,
};

const PLAIN: &str = "Mock reply: use React for the dashboard.";
const TOOL: &str = "The notes say the launch code is 4217.";
const TOOL_WITH_PREAMBLE: &str = "Let me read the notes.\n\nThe notes say the launch code is 4217.";

fn read(agent: &str, version: &str, scenario: &str) -> Vec<u8> {
    let path = format!(
        "{}/tests/fixtures/acp/{agent}/{version}/{scenario}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The whole transcript at once, and fed in 7-byte chunks through the
/// incremental parser: both replies must be equal; the events' text joined
/// must be the reply's text.
fn parse(agent_type: &str, bytes: &[u8]) -> AgentReply {
    let (whole, _) = parse_agent_output_in(
        agent_type,
        Protocol::Acp,
        Output::Bytes(bytes),
        TextForm::Utf8,
    );
    let mut parser = AgentOutputParser::with_protocol(agent_type, Protocol::Acp, TextForm::Utf8);
    let mut events = Vec::new();
    for chunk in bytes.chunks(7) {
        events.extend(parser.push(chunk));
    }
    let streamed = parser.finish();
    assert_eq!(streamed, whole, "{agent_type}: streamed and whole differ");
    let text: String = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(text, whole.text);
    // A `toolUse` event is the call's state when it changed: never the same
    // state twice in a row, and the last one is the reply's.
    let mut last: std::collections::HashMap<&str, &ToolUse> = Default::default();
    for event in &events {
        if let AgentEvent::ToolUse { tool_use } = event {
            let before = last.insert(&tool_use.id, tool_use);
            assert_ne!(
                before,
                Some(tool_use),
                "{agent_type}: an unchanged toolUse event"
            );
        }
    }
    for tool in &whole.tool_uses {
        assert_eq!(
            last.get(tool.id.as_str()),
            Some(&tool),
            "{agent_type}: {}",
            tool.id
        );
    }
    // A `usage` event is the usage when it changed; the last is the reply's.
    let usages: Vec<&Usage> = events
        .iter()
        .filter_map(|e| match e {
            AgentEvent::Usage { usage } => Some(usage),
            _ => None,
        })
        .collect();
    assert!(
        usages.windows(2).all(|w| w[0] != w[1]),
        "{agent_type}: an unchanged usage event"
    );
    assert_eq!(
        usages.last().copied(),
        whole.usage.as_ref(),
        "{agent_type}: the last usage event"
    );
    // The UTF-16 form (what JS gets) holds the same reply.
    let (utf16, units) = parse_agent_output_in(
        agent_type,
        Protocol::Acp,
        Output::Bytes(bytes),
        TextForm::Utf16,
    );
    assert_eq!(String::from_utf16(&units).unwrap(), whole.text);
    assert_eq!(
        AgentReply {
            text: whole.text.clone(),
            ..utf16
        },
        whole
    );
    whole
}

struct Expect<'a> {
    session: &'a str,
    text: &'a str,
    status: ReplyStatus,
}

fn check(agent_type: &str, dir: (&str, &str), scenario: &str, expect: Expect) -> AgentReply {
    let reply = parse(agent_type, &read(dir.0, dir.1, scenario));
    let at = format!("{} {} {scenario}", dir.0, dir.1);
    assert_eq!(reply.text, expect.text, "{at}: text");
    assert_eq!(
        reply.session_id.as_deref(),
        Some(expect.session),
        "{at}: session"
    );
    assert_eq!(reply.status, expect.status, "{at}: status");
    assert!(
        reply.non_json_lines.is_empty(),
        "{at}: {:?}",
        reply.non_json_lines
    );
    if expect.status == ReplyStatus::Success {
        assert!(reply.errors.is_empty(), "{at}: {:?}", reply.errors);
        assert_eq!(reply.terminal_reason.as_deref(), Some("end_turn"), "{at}");
    } else {
        let fatal: Vec<_> = reply.errors.iter().filter(|e| e.fatal).collect();
        assert_eq!(fatal.len(), 1, "{at}: {:?}", reply.errors);
    }
    reply
}

fn ok<'a>(session: &'a str, text: &'a str) -> Expect<'a> {
    Expect {
        session,
        text,
        status: ReplyStatus::Success,
    }
}

fn failed(session: &str) -> Expect<'_> {
    Expect {
        session,
        text: "",
        status: ReplyStatus::Error,
    }
}

/// The one tool call of the tool scenario: its name, finished, its output
/// holding what notes.txt holds.
fn one_read(reply: &AgentReply, name: &str) {
    assert_eq!(reply.tool_uses.len(), 1, "{:?}", reply.tool_uses);
    let tool = &reply.tool_uses[0];
    assert_eq!(tool.name, name);
    assert_eq!(tool.status, ToolStatus::Success);
    let output = tool.output.as_deref().unwrap_or_default();
    assert!(output.contains("The launch code is 4217."), "{output}");
}

fn tokens(input: u64, cached: Option<u64>, output: u64) -> Usage {
    Usage {
        input_tokens: Some(input),
        cached_input_tokens: cached,
        output_tokens: Some(output),
        total_tokens: Some(input + output),
        ..Usage::default()
    }
}

const GEMINI: (&str, &str) = ("gemini", "0.61.0");

#[test]
fn gemini_0_61_0_over_acp() {
    let plain = check(
        "google-gemini",
        GEMINI,
        "plain",
        ok("e548b981-7e08-409c-8f49-e06cf128e2c2", PLAIN),
    );
    // Gemini's usage is only in the prompt response's `_meta.quota`.
    let usage = plain.usage.unwrap();
    assert_eq!(
        Usage {
            models: vec![],
            ..usage.clone()
        },
        tokens(120, None, 9)
    );
    assert_eq!(usage.models.len(), 1);
    assert_eq!(usage.models[0].model, "gemini-2.5-flash");
    assert_eq!(usage.models[0].usage, tokens(120, None, 9));

    let tool = check(
        "google-gemini",
        GEMINI,
        "tool",
        ok("a0073258-40d8-49e1-8f63-7d9ad3be24f1", TOOL),
    );
    // Gemini's update has no content: the tool's output is not in the transcript.
    assert_eq!(tool.tool_uses.len(), 1);
    assert_eq!(tool.tool_uses[0].name, "read_file");
    assert_eq!(tool.tool_uses[0].status, ToolStatus::Success);
    assert_eq!(tool.usage.unwrap().input_tokens, Some(240));

    let error = check(
        "google-gemini",
        GEMINI,
        "error",
        failed("51511382-26df-4c0b-bc40-df3c774f3868"),
    );
    assert_eq!(error.api_error_status, Some(400));
    assert_eq!(
        error.errors[0].message,
        "Mock rejects this request: API key not valid."
    );
    assert_eq!(error.errors[0].code.as_deref(), Some("400"));
}

const CLAUDE: (&str, &str) = ("claude", "0.23.1");

#[test]
fn claude_agent_acp_0_23_1_over_acp() {
    let plain = check(
        "claude-code",
        CLAUDE,
        "plain",
        ok("70c2a90c-274d-41eb-b571-10a43e07a93b", PLAIN),
    );
    // Tokens from the response's `usage`, the cost and context level from `usage_update`.
    assert_eq!(
        plain.usage.unwrap(),
        Usage {
            cost_usd: Some(0.000495),
            context_tokens: Some(121),
            context_window: Some(200000),
            ..tokens(120, Some(0), 9)
        }
    );

    let tool = check(
        "claude-code",
        CLAUDE,
        "tool",
        ok("9d88f1a0-91d5-4fdd-8091-023728ce44b6", TOOL_WITH_PREAMBLE),
    );
    one_read(&tool, "Read");
    assert!(tool.tool_uses[0].input["file_path"]
        .as_str()
        .unwrap()
        .ends_with("/work/notes.txt"));
    assert_eq!(tool.usage.unwrap().input_tokens, Some(240));

    let error = check(
        "claude-code",
        CLAUDE,
        "error",
        failed("bbea149a-0031-4bcf-bbbd-f4b5f60b91a4"),
    );
    assert_eq!(error.api_error_status, Some(400));
    assert!(error.errors[0]
        .message
        .contains("Mock rejects this request: prompt is not allowed."));
    assert_eq!(error.errors[0].code.as_deref(), Some("-32603"));
}

const CODEX: (&str, &str) = ("codex", "0.16.0");

#[test]
fn codex_acp_0_16_0_over_acp() {
    let plain = check(
        "openai-codex",
        CODEX,
        "plain",
        ok("01a205fc-dcdd-7b52-a8f8-573bd3b37e25", PLAIN),
    );
    // Codex's adapter reports only the context level, no tokens spent.
    assert_eq!(
        plain.usage.unwrap(),
        Usage {
            context_tokens: Some(129),
            context_window: Some(258400),
            ..Usage::default()
        }
    );

    let tool = check(
        "openai-codex",
        CODEX,
        "tool",
        ok("01a205fc-e39e-7512-981c-9dac57d1d6d0", TOOL_WITH_PREAMBLE),
    );
    one_read(&tool, "read");
    assert_eq!(
        tool.tool_uses[0].input["command"][2].as_str(),
        Some("cat notes.txt")
    );

    let error = check(
        "openai-codex",
        CODEX,
        "error",
        failed("01a205fc-edc4-7692-b99a-1733854e2a69"),
    );
    assert_eq!(
        error.errors[0].code.as_deref(),
        Some("internal_server_error")
    );
    assert!(error.errors[0].message.contains("high demand"));
}

/// Claude Code's auto-mode billing notice, sent by claude-agent-acp 0.101.0
/// after the answer as an `agent_message_chunk` with
/// `_meta.claudeCode.kind: informational` (the CLI's `system/informational`):
/// a note, not the reply's text.
fn auto_mode_notice(reply: &AgentReply) {
    assert_eq!(reply.errors.len(), 1, "{:?}", reply.errors);
    let note = &reply.errors[0];
    assert!(!note.fatal);
    assert_eq!(note.code.as_deref(), Some("informational"));
    assert_eq!(note.source, "agent_message_chunk");
    assert!(
        note.message
            .starts_with("**Warning:** We're changing auto mode"),
        "{}",
        note.message
    );
    assert!(!reply.text.contains("auto mode"), "{}", reply.text);
}

#[test]
fn claude_agent_acp_0_101_0_over_acp() {
    // The notice is a note: the reply succeeded, with one (non-fatal) error.
    let plain = parse("claude-code", &read("claude", "0.101.0", "plain"));
    assert_eq!(plain.text, PLAIN);
    assert_eq!(
        plain.session_id.as_deref(),
        Some("e6c14dd2-68ea-4354-a783-a440bfe05adc")
    );
    assert_eq!(plain.status, ReplyStatus::Success);
    assert_eq!(plain.terminal_reason.as_deref(), Some("end_turn"));
    auto_mode_notice(&plain);
    assert_eq!(
        plain.usage.unwrap(),
        Usage {
            cost_usd: Some(0.00132),
            context_tokens: Some(129),
            context_window: Some(1000000),
            ..tokens(120, Some(0), 9)
        }
    );

    let tool = parse("claude-code", &read("claude", "0.101.0", "tool"));
    assert_eq!(tool.text, TOOL_WITH_PREAMBLE);
    assert_eq!(tool.status, ReplyStatus::Success);
    auto_mode_notice(&tool);
    one_read(&tool, "Read");
    assert_eq!(tool.usage.unwrap().input_tokens, Some(240));

    // An API error comes as the text of a message chunk (with a
    // `messageId`, as an answer), then as the prompt's JSON-RPC error: the
    // reply failed with the error's status.
    for (scenario, status) in [("error", 400), ("error500", 500)] {
        let reply = parse("claude-code", &read("claude", "0.101.0", scenario));
        assert_eq!(reply.status, ReplyStatus::Error, "{scenario}");
        assert_eq!(reply.api_error_status, Some(status), "{scenario}");
        assert!(
            reply.text.starts_with(&format!("API Error: {status} ")),
            "{}",
            reply.text
        );
        let fatal: Vec<_> = reply.errors.iter().filter(|e| e.fatal).collect();
        assert_eq!(fatal.len(), 1, "{scenario}: {:?}", reply.errors);
        assert_eq!(fatal[0].code.as_deref(), Some("-32603"));
    }
}

const CODEX_MAINTAINED: (&str, &str) = ("codex", "2.6.0");

#[test]
fn codex_acp_2_6_0_over_acp() {
    let plain = check(
        "openai-codex",
        CODEX_MAINTAINED,
        "plain",
        ok("01a21310-2c86-7d72-834a-1d80c05cdb13", PLAIN),
    );
    assert_eq!(plain.usage.unwrap().context_window, Some(258400));

    let tool = check(
        "openai-codex",
        CODEX_MAINTAINED,
        "tool",
        ok("01a21310-3144-71b0-8809-6f3ac736688c", TOOL_WITH_PREAMBLE),
    );
    assert_eq!(tool.tool_uses.len(), 1, "{:?}", tool.tool_uses);

    // An HTTP 500, Codex's retries off: `session_info_update` says
    // `threadStatus: systemError`, then Codex's words come as a message
    // chunk and the prompt ends `end_turn`. The words are the fatal error,
    // not the reply.
    let error500 = check(
        "openai-codex",
        CODEX_MAINTAINED,
        "error500",
        failed("01a21310-3d7e-7102-b55b-304d5a52af1d"),
    );
    assert_eq!(error500.terminal_reason.as_deref(), Some("end_turn"));
    let fatal = error500.errors.iter().find(|e| e.fatal).unwrap();
    assert_eq!(fatal.code.as_deref(), Some("systemError"));
    assert!(
        fatal.message.contains("experiencing high demand"),
        "{}",
        fatal.message
    );

    // With one stream retry left on: the failed attempt is first reported in
    // `_meta.codex.error` (`willRetry: true`), a note.
    let error = check(
        "openai-codex",
        CODEX_MAINTAINED,
        "error",
        failed("01a21310-36ea-71f2-a340-b3f2e4dbb026"),
    );
    let note = error.errors.iter().find(|e| !e.fatal).unwrap();
    assert_eq!(note.code.as_deref(), Some("responseStreamDisconnected"));
    assert!(
        note.message.starts_with("Reconnecting... 1/1"),
        "{}",
        note.message
    );
    assert!(error
        .errors
        .iter()
        .find(|e| e.fatal)
        .unwrap()
        .message
        .contains("high demand"));
}

const QWEN: (&str, &str) = ("qwen", "0.24.4");

#[test]
fn qwen_0_24_4_over_acp() {
    let plain = check(
        "qwen-code",
        QWEN,
        "plain",
        ok("eca3440d-9bff-4c5a-9cab-aeca68241b23", PLAIN),
    );
    // Qwen's usage: `_meta.usage` of an empty chunk, one per model call.
    assert_eq!(
        plain.usage.unwrap(),
        Usage {
            duration_ms: Some(6251),
            context_tokens: Some(120),
            context_window: Some(131072),
            ..tokens(120, Some(20), 9)
        }
    );

    let tool = check(
        "qwen-code",
        QWEN,
        "tool",
        ok("5aaf57a8-e470-4946-acb7-3cbb5590662a", TOOL),
    );
    one_read(&tool, "read_file");
    let usage = tool.usage.clone().unwrap();
    assert_eq!(
        (usage.input_tokens, usage.output_tokens),
        (Some(240), Some(18))
    );
    // Its own methods are unknown to ACP: counted, not lost.
    let unknown: Vec<_> = tool
        .unknown_events
        .iter()
        .map(|u| (u.event_type.as_str(), u.count))
        .collect();
    assert_eq!(
        unknown,
        [
            ("craft/drainMidTurnQueue", 1),
            ("qwen/notify/session/prompt-suggestion", 1)
        ]
    );

    let error = check(
        "qwen-code",
        QWEN,
        "error",
        failed("ce1bde5e-8ee4-4b05-9541-a9ab713b627d"),
    );
    assert_eq!(error.api_error_status, Some(400));
    assert!(error.errors[0]
        .message
        .ends_with("400 Mock rejects this request: bad parameter."));
}

const COPILOT: (&str, &str) = ("copilot", "1.0.102");

#[test]
fn copilot_1_0_102_over_acp() {
    let plain = check(
        "github-copilot",
        COPILOT,
        "plain",
        ok("1ba9d718-21d2-4e9c-8640-d51bed1f4f88", PLAIN),
    );
    assert_eq!(
        Usage {
            context_tokens: None,
            context_window: None,
            ..plain.usage.unwrap()
        },
        tokens(120, Some(20), 9)
    );

    let tool = check(
        "github-copilot",
        COPILOT,
        "tool",
        ok("4eb4b2f0-564c-49be-a30c-f396e5de16d1", TOOL),
    );
    one_read(&tool, "read");

    // Copilot says the model call failed as the turn's text, then `end_turn`.
    let error = check(
        "github-copilot",
        COPILOT,
        "error",
        failed("cf6940e4-8102-4cdd-ba87-de360efaae53"),
    );
    assert_eq!(error.api_error_status, Some(400));
    assert_eq!(
        error.errors[0].message,
        "400 Mock rejects this request: bad parameter."
    );
    assert_eq!(error.errors[0].code.as_deref(), Some("http_400"));
}

const OPENCODE: (&str, &str) = ("opencode", "1.18.33");

#[test]
fn opencode_1_18_33_over_acp() {
    let plain = check(
        "opencode",
        OPENCODE,
        "plain",
        ok("ses_dfa0249dcffe4n0dAEhU6bcBAa", PLAIN),
    );
    // opencode leaves the cached tokens out of `inputTokens` (100 + 20).
    assert_eq!(
        plain.usage.unwrap(),
        Usage {
            cost_usd: Some(0.0),
            context_tokens: Some(120),
            context_window: Some(128000),
            ..tokens(120, Some(20), 9)
        }
    );

    let tool = check(
        "opencode",
        OPENCODE,
        "tool",
        ok("ses_dfa0232eaffe5mdeyq0MQEYYpL", TOOL),
    );
    one_read(&tool, "read");

    let error = check(
        "opencode",
        OPENCODE,
        "error",
        failed("ses_dfa02176ffferGeghq1IhMZssa"),
    );
    assert_eq!(error.errors[0].code.as_deref(), Some("APIError"));
    assert!(error.errors[0]
        .message
        .contains("Mock rejects this request: bad parameter."));
}

/// The shell scenario (Qwen, Copilot, opencode): the mock asks for
/// `cat notes.txt` through the agent's shell tool; Copilot asks the client
/// for permission first (allowed by the recorder).
fn shell(agent_type: &str, dir: (&str, &str), session: &str, name: &str) -> AgentReply {
    let reply = check(agent_type, dir, "shell", ok(session, TOOL));
    one_read(&reply, name);
    reply
}

#[test]
fn a_shell_command_over_acp_with_and_without_a_permission_request() {
    let copilot = shell(
        "github-copilot",
        COPILOT,
        "c735f516-3866-4269-aab4-4deff40b9e8b",
        "execute",
    );
    // The permission request's own view of the call is merged into it.
    assert_eq!(
        copilot.tool_uses[0].input["command"].as_str(),
        Some("cat notes.txt")
    );
    assert!(copilot.tool_uses[0]
        .output
        .as_deref()
        .unwrap()
        .contains("exit code 0"));
    let qwen = shell(
        "qwen-code",
        QWEN,
        "22417e31-8bfb-4909-8de1-91653288a784",
        "run_shell_command",
    );
    assert_eq!(qwen.usage.unwrap().input_tokens, Some(240));
    shell(
        "opencode",
        OPENCODE,
        "ses_df9dd0c1bffeRz5evB4DH1KYng",
        "execute",
    );
}
