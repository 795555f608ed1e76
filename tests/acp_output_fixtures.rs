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
