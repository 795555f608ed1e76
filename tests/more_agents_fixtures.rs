#![cfg(not(target_arch = "wasm32"))]
//! Qwen Code, GitHub Copilot CLI and opencode output recorded from the real
//! CLIs against the OpenAI Chat Completions mock
//! (`tests/cli/record_openai_chat_agents.cjs`, fixtures in
//! `tests/fixtures/cli/<agent-type>/<version>/`). The expected values come
//! from what the mock sent (`tests/cli/mocks/openai-chat.cjs`): its answers,
//! its usage per call (120 prompt tokens of which 20 cached, 9 completion
//! tokens), its errors; the session ids from the lines that carry them.

use agent_context::agent_output::{
    merge_output_file, parse_agent_output, AgentEvent, AgentOutputParser, AgentReply, ReplyStatus,
    ToolStatus, Usage,
};
use agent_context::launch::invocation::OutputKind;
use serde_json::Value;

const QWEN: (&str, &str) = ("qwen-code", "0.24.4");
const COPILOT: (&str, &str) = ("github-copilot", "1.0.102");
const OPENCODE: (&str, &str) = ("opencode", "1.18.33");

const PLAIN_ANSWER: &str = "Mock reply: use React for the dashboard.";
const TOOL_ANSWER: &str = "The notes say the launch code is 4217.";
const NOTES_TEXT: &str = "The launch code is 4217.\n";
const ERROR_400: &str = "Mock rejects this request: bad parameter.";
const ERROR_500: &str = "Mock server error: the model is unavailable.";

/// The mock's usage for `calls` main calls.
fn mock_usage(calls: u64) -> Usage {
    Usage {
        input_tokens: Some(120 * calls),
        cached_input_tokens: Some(20 * calls),
        output_tokens: Some(9 * calls),
        total_tokens: Some(129 * calls),
        ..Usage::default()
    }
}

fn path((agent, version): (&str, &str), name: &str) -> String {
    format!(
        "{}/tests/fixtures/cli/{agent}/{version}/{name}",
        env!("CARGO_MANIFEST_DIR")
    )
}

fn fixture(which: (&str, &str), scenario: &str) -> Vec<u8> {
    let path = path(which, &format!("{scenario}.jsonl"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| serde_json::from_slice(l).unwrap())
        .collect()
}

/// Parses `bytes` whole and in chunks of 1 to 64 bytes: all agree, and the
/// text events add up to the text.
fn parse(agent: &str, bytes: &[u8]) -> AgentReply {
    let whole = parse_agent_output(agent, bytes);
    for size in 1..=64 {
        let mut parser = AgentOutputParser::new(agent);
        let mut text = String::new();
        for chunk in bytes.chunks(size) {
            for event in parser.push(chunk) {
                if let AgentEvent::Text { text: piece } = event {
                    text.push_str(&piece);
                }
            }
        }
        assert_eq!(parser.finish(), whole, "chunks of {size} bytes");
        assert_eq!(text, whole.text, "text events, chunks of {size} bytes");
    }
    whole
}

fn fatal(reply: &AgentReply) -> Vec<&str> {
    reply
        .errors
        .iter()
        .filter(|e| e.fatal)
        .map(|e| e.message.as_str())
        .collect()
}

fn without_duration(usage: &Option<Usage>) -> Option<Usage> {
    usage.clone().map(|u| Usage {
        duration_ms: None,
        ..u
    })
}

// --- Qwen Code ---------------------------------------------------------

fn qwen_session(bytes: &[u8]) -> String {
    lines(bytes)[0]["session_id"].as_str().unwrap().to_owned()
}

#[test]
fn qwen_plain() {
    let bytes = fixture(QWEN, "plain");
    let reply = parse("qwen-code", &bytes);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(reply.session_id, Some(qwen_session(&bytes)));
    assert!(reply.errors.is_empty() && reply.tool_uses.is_empty());
    // One main call; Qwen's input already counts the cached tokens.
    assert_eq!(without_duration(&reply.usage), Some(mock_usage(1)));
    let result = lines(&bytes).pop().unwrap();
    assert_eq!(
        reply.usage.unwrap().duration_ms,
        result["duration_ms"].as_u64()
    );
    // Qwen's stderr warning is not in stdout; nothing here is non-JSON.
    assert!(reply.non_json_lines.is_empty());
}

#[test]
fn qwen_tool_call_then_answer() {
    let reply = parse("qwen-code", &fixture(QWEN, "tool"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, TOOL_ANSWER);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(
        (tool.id.as_str(), tool.name.as_str()),
        ("call_mock_1", "read_file")
    );
    assert!(tool.input["file_path"]
        .as_str()
        .unwrap()
        .ends_with("/notes.txt"));
    assert_eq!(tool.status, ToolStatus::Success);
    assert_eq!(tool.output.as_deref(), Some(NOTES_TEXT));
    assert_eq!(without_duration(&reply.usage), Some(mock_usage(2)));
}

#[test]
fn qwen_api_errors_are_errors_not_text() {
    for (scenario, status, message) in [("error400", 400, ERROR_400), ("error500", 500, ERROR_500)]
    {
        let bytes = fixture(QWEN, scenario);
        let reply = parse("qwen-code", &bytes);
        assert_eq!(reply.status, ReplyStatus::Error, "{scenario}");
        assert_eq!(
            reply.text, "",
            "{scenario}: the [API Error] text is not the reply"
        );
        assert_eq!(
            fatal(&reply),
            [format!("[API Error: {status} {message}]")],
            "{scenario}"
        );
        assert_eq!(reply.errors.len(), 1, "{scenario}");
        assert_eq!(reply.session_id, Some(qwen_session(&bytes)));
    }
}

#[test]
fn qwen_resume_reports_this_runs_usage_not_the_sessions() {
    let first = fixture(QWEN, "resume-first");
    let second = fixture(QWEN, "resume");
    let reply = parse("qwen-code", &second);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.session_id, Some(qwen_session(&first)));
    assert_eq!(reply.text, PLAIN_ANSWER);
    // The trap: result.usage counts the first run (and the memory
    // extraction calls) again.
    let result = lines(&second).pop().unwrap();
    assert!(result["usage"]["input_tokens"].as_u64().unwrap() > 240);
    assert_eq!(without_duration(&reply.usage), Some(mock_usage(1)));
}

#[test]
fn qwen_exit_53_without_a_result_line_is_incomplete() {
    let bytes = fixture(QWEN, "max-turns");
    assert!(lines(&bytes).iter().all(|l| l["type"] != "result"));
    let reply = parse("qwen-code", &bytes);
    assert_eq!(reply.status, ReplyStatus::Incomplete);
    assert_eq!(reply.tool_uses.len(), 1);
    assert!(fatal(&reply).is_empty());
}

// --- GitHub Copilot CLI ------------------------------------------------

fn copilot_usage_file(scenario: &str) -> String {
    let path = path(COPILOT, &format!("{scenario}.usage.json"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn copilot_session(bytes: &[u8]) -> String {
    lines(bytes).pop().unwrap()["sessionId"]
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn copilot_plain_with_its_usage_file() {
    let bytes = fixture(COPILOT, "plain");
    let mut reply = parse("github-copilot", &bytes);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(reply.session_id, Some(copilot_session(&bytes)));
    assert!(reply.errors.is_empty() && reply.tool_uses.is_empty());
    // Usage is not on stdout...
    assert_eq!(reply.usage, None);
    // ...but in the usage file.
    let file = copilot_usage_file("plain");
    merge_output_file("github-copilot", &mut reply, OutputKind::Usage, &file).unwrap();
    let api_ms = serde_json::from_str::<Value>(&file).unwrap()["totalApiDurationMs"].as_u64();
    assert_eq!(
        reply.usage,
        Some(Usage {
            duration_ms: api_ms,
            ..mock_usage(1)
        })
    );
}

#[test]
fn copilot_session_id_is_only_on_the_last_line() {
    let bytes = fixture(COPILOT, "plain");
    let all = lines(&bytes);
    let last = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    let before = parse_agent_output("github-copilot", &bytes[..=last]);
    assert_eq!(before.session_id, None);
    assert_eq!(before.status, ReplyStatus::Incomplete);
    let mut parser = AgentOutputParser::new("github-copilot");
    let events = parser.push(&bytes);
    let session = events
        .iter()
        .position(|e| matches!(e, AgentEvent::Session { .. }))
        .unwrap();
    // Reported once, after every text event.
    assert!(events[..session]
        .iter()
        .any(|e| matches!(e, AgentEvent::Text { .. })));
    assert_eq!(all.last().unwrap()["type"], "result");
}

#[test]
fn copilot_tool_call_then_answer() {
    let mut reply = parse("github-copilot", &fixture(COPILOT, "tool"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, TOOL_ANSWER);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(
        (tool.id.as_str(), tool.name.as_str()),
        ("call_mock_1", "view")
    );
    assert!(tool.input["path"].as_str().unwrap().ends_with("/notes.txt"));
    assert_eq!(tool.status, ToolStatus::Success);
    assert_eq!(tool.output.as_deref(), Some(NOTES_TEXT));
    merge_output_file(
        "github-copilot",
        &mut reply,
        OutputKind::Usage,
        &copilot_usage_file("tool"),
    )
    .unwrap();
    assert_eq!(without_duration(&reply.usage), Some(mock_usage(2)));
}

#[test]
fn copilot_a_denied_tool_still_exits_0_and_is_reported() {
    let bytes = fixture(COPILOT, "denied");
    assert_eq!(lines(&bytes).pop().unwrap()["exitCode"], 0);
    let reply = parse("github-copilot", &bytes);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(tool.name, "bash");
    assert_eq!(tool.input["command"], "cat notes.txt");
    assert_eq!(tool.status, ToolStatus::Error);
    assert!(tool.output.as_deref().unwrap().contains("denied"));
    let notes: Vec<_> = reply.errors.iter().filter(|e| !e.fatal).collect();
    assert_eq!(notes.len(), 1);
    assert_eq!(notes[0].code.as_deref(), Some("denied"));
    assert_eq!(Some(notes[0].message.as_str()), tool.output.as_deref());
    assert!(fatal(&reply).is_empty());
}

#[test]
fn copilot_api_errors() {
    let reply = parse("github-copilot", &fixture(COPILOT, "error400"));
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(fatal(&reply), [format!("400 {ERROR_400}")]);
    assert_eq!(reply.errors[0].code.as_deref(), Some("http_400"));
    assert_eq!(reply.text, "");

    let bytes = fixture(COPILOT, "error500");
    let reply = parse("github-copilot", &bytes);
    assert_eq!(reply.status, ReplyStatus::Error);
    let fatal = fatal(&reply);
    assert_eq!(fatal.len(), 1);
    assert!(
        fatal[0].ends_with(&format!("Last error: 500 {ERROR_500}")),
        "{}",
        fatal[0]
    );
    // Each retry the CLI announced is a note.
    let retries = lines(&bytes)
        .iter()
        .filter(|l| l["type"] == "session.info" && l["data"]["infoType"] == "model_retry")
        .count();
    assert!(retries >= 1);
    assert_eq!(reply.errors.iter().filter(|e| !e.fatal).count(), retries);
    assert_eq!(reply.session_id, Some(copilot_session(&bytes)));
}

#[test]
fn copilot_resume_keeps_the_session() {
    let first = fixture(COPILOT, "resume-first");
    let reply = parse("github-copilot", &fixture(COPILOT, "resume"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.session_id, Some(copilot_session(&first)));
    assert_eq!(reply.text, PLAIN_ANSWER);
}

#[test]
fn merging_a_usage_file_checks_its_input() {
    let mut reply = parse_agent_output("github-copilot", b"");
    let err =
        merge_output_file("github-copilot", &mut reply, OutputKind::Usage, "not json").unwrap_err();
    assert!(err
        .message()
        .starts_with("content is not the JSON of a usage file"));
    let err = merge_output_file("github-copilot", &mut reply, OutputKind::Usage, "{}").unwrap_err();
    assert!(err
        .message()
        .starts_with("content has no modelMetrics object"));
    let err = merge_output_file("opencode", &mut reply, OutputKind::Usage, "{}").unwrap_err();
    assert_eq!(
        err.message(),
        "file.kind: opencode writes no usage file (its usage is in its output)"
    );
    assert!(merge_output_file("aider", &mut reply, OutputKind::Usage, "{}").is_err());
    assert_eq!(reply.usage, None);
    // A failed run's file has no model: zero counts stay absent.
    merge_output_file(
        "github-copilot",
        &mut reply,
        OutputKind::Usage,
        &copilot_usage_file("error400"),
    )
    .unwrap();
    let usage = reply.usage.unwrap();
    assert_eq!((usage.input_tokens, usage.output_tokens), (None, None));
}

// --- opencode ------------------------------------------------------------

fn opencode_session(bytes: &[u8]) -> String {
    lines(bytes)[0]["sessionID"].as_str().unwrap().to_owned()
}

#[test]
fn opencode_plain() {
    let bytes = fixture(OPENCODE, "plain");
    let reply = parse("opencode", &bytes);
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, PLAIN_ANSWER);
    assert_eq!(reply.session_id, Some(opencode_session(&bytes)));
    assert!(reply.errors.is_empty() && reply.tool_uses.is_empty());
    // opencode's `input` leaves the cached tokens out; ours counts them.
    assert_eq!(
        reply.usage,
        Some(Usage {
            cost_usd: Some(0.0),
            ..mock_usage(1)
        })
    );
}

#[test]
fn opencode_tool_call_then_answer() {
    let reply = parse("opencode", &fixture(OPENCODE, "tool"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.text, TOOL_ANSWER);
    assert_eq!(reply.tool_uses.len(), 1);
    let tool = &reply.tool_uses[0];
    assert_eq!(tool.name, "read");
    assert!(tool.input["filePath"]
        .as_str()
        .unwrap()
        .ends_with("/notes.txt"));
    assert_eq!(tool.status, ToolStatus::Success);
    assert!(tool.output.as_deref().unwrap().contains(NOTES_TEXT.trim()));
    assert_eq!(
        without_duration(&reply.usage).map(|u| u.input_tokens),
        Some(Some(240))
    );
}

#[test]
fn opencode_without_its_last_step_finish_is_incomplete() {
    let bytes = fixture(OPENCODE, "plain");
    let cut = bytes[..bytes.len() - 1]
        .iter()
        .rposition(|&b| b == b'\n')
        .unwrap();
    assert_eq!(lines(&bytes).pop().unwrap()["part"]["reason"], "stop");
    let reply = parse("opencode", &bytes[..=cut]);
    assert_eq!(reply.status, ReplyStatus::Incomplete);
    assert_eq!(reply.text, PLAIN_ANSWER);
    // A step that ends in tool calls is not the end either.
    let tool = fixture(OPENCODE, "tool");
    let first_finish = lines(&tool)
        .iter()
        .position(|l| l["type"] == "step_finish")
        .unwrap();
    let upto: Vec<u8> = tool
        .split_inclusive(|&b| b == b'\n')
        .take(first_finish + 1)
        .flatten()
        .copied()
        .collect();
    assert_eq!(parse("opencode", &upto).status, ReplyStatus::Incomplete);
}

#[test]
fn opencode_api_errors() {
    for (scenario, status, message) in [("error400", 400, ERROR_400), ("error500", 500, ERROR_500)]
    {
        let bytes = fixture(OPENCODE, scenario);
        let reply = parse("opencode", &bytes);
        assert_eq!(reply.status, ReplyStatus::Error, "{scenario}");
        assert_eq!(fatal(&reply), [message], "{scenario}");
        assert_eq!(reply.errors[0].code, Some(format!("http_{status}")));
        assert_eq!(reply.session_id, Some(opencode_session(&bytes)));
    }
}

#[test]
fn opencode_resume_keeps_the_session() {
    let first = fixture(OPENCODE, "resume-first");
    let reply = parse("opencode", &fixture(OPENCODE, "resume"));
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.session_id, Some(opencode_session(&first)));
    assert_eq!(reply.text, PLAIN_ANSWER);
}

// --- Lines the recorded runs do not have ---------------------------------

#[test]
fn hand_written_lines_for_the_other_endings() {
    // Copilot exiting non-zero with no error of its own.
    let reply = parse(
        "github-copilot",
        b"{\"type\":\"assistant.message\",\"data\":{\"content\":\"Hi\"}}\n{\"type\":\"result\",\"sessionId\":\"s1\",\"exitCode\":2}\n",
    );
    assert_eq!(reply.status, ReplyStatus::Error);
    assert_eq!(fatal(&reply), ["GitHub Copilot CLI exited with code 2"]);
    assert_eq!(reply.session_id.as_deref(), Some("s1"));

    // opencode: a failed tool is a note; a step cut by the length limit ends the run.
    let reply = parse(
        "opencode",
        br#"{"type":"tool_use","sessionID":"ses_1","part":{"tool":"bash","callID":"c1","state":{"status":"error","input":{"command":"false"},"error":"exit 1"}}}
{"type":"text","sessionID":"ses_1","part":{"text":"Partial"}}
{"type":"step_finish","sessionID":"ses_1","part":{"reason":"length","tokens":{"input":10,"output":5,"reasoning":2,"cache":{"read":1,"write":3}},"cost":0.25}}
"#,
    );
    assert_eq!(reply.status, ReplyStatus::Success);
    assert_eq!(reply.tool_uses[0].status, ToolStatus::Error);
    assert_eq!(reply.tool_uses[0].output.as_deref(), Some("exit 1"));
    let codes: Vec<_> = reply
        .errors
        .iter()
        .map(|e| (e.fatal, e.code.as_deref()))
        .collect();
    assert_eq!(
        codes,
        [(false, Some("tool_failed")), (false, Some("length"))]
    );
    assert_eq!(
        reply.usage,
        Some(Usage {
            input_tokens: Some(14),
            cached_input_tokens: Some(1),
            output_tokens: Some(7),
            total_tokens: Some(21),
            duration_ms: None,
            cost_usd: Some(0.25),
            ..Default::default()
        })
    );

    // Qwen: a sub-agent's lines are not the reply, but its calls are in the usage.
    let reply = parse(
        "qwen-code",
        br#"{"type":"assistant","session_id":"q1","parent_tool_use_id":"t1","message":{"content":[{"type":"text","text":"inner"}],"usage":{"input_tokens":5,"output_tokens":1}}}
{"type":"assistant","session_id":"q1","parent_tool_use_id":null,"message":{"content":[{"type":"text","text":"outer"}],"usage":{"input_tokens":7,"output_tokens":2}}}
{"type":"result","subtype":"success","session_id":"q1","is_error":false,"result":"outer","usage":{"input_tokens":99,"output_tokens":9}}
"#,
    );
    assert_eq!(reply.text, "outer");
    assert_eq!(reply.usage.as_ref().and_then(|u| u.input_tokens), Some(12));
    assert_eq!(reply.status, ReplyStatus::Success);
}
