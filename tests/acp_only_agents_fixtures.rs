//! The ACP output of the agents driven over ACP only (Cline, Factory Droid),
//! recorded from real runs against the OpenAI Chat Completions mock
//! (tests/fixtures/acp/<agent>/<version>/, by
//! tests/acp/new_agents/probe_<agent>.cjs): each fixture is one process's
//! stdout, two prompts in one session. Read by the agent type, as
//! `parseAgentOutput` reads it by default for these agents.
#![cfg(not(target_arch = "wasm32"))]

use agent_context::agent_output::{parse_agent_output_in, AgentReply, Output, Protocol, TextForm};

const PLAIN: &str = "Mock reply: use React for the dashboard.";
const TOOL: &str = "The notes say the launch code is 4217.";

fn parse(agent_type: &str, dir: &str, scenario: &str) -> AgentReply {
    let path = format!(
        "{}/tests/fixtures/acp/{dir}/{scenario}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    );
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_agent_output_in(
        agent_type,
        Protocol::Acp,
        Output::Bytes(&bytes),
        TextForm::Utf8,
    )
    .0
}

#[test]
fn cline_3_0_65() {
    let plain = parse("cline", "cline/3.0.65", "plain");
    assert!(plain.text.starts_with(PLAIN), "{}", plain.text);
    assert!(plain
        .session_id
        .as_deref()
        .is_some_and(|s| s.ends_with("_cli")));
    // No usage anywhere in its ACP output.
    assert_eq!(plain.usage, None);
    let tool = parse("cline", "cline/3.0.65", "tool");
    assert!(tool.text.contains(TOOL), "{}", tool.text);
    assert!(!tool.tool_uses.is_empty());
    // A failed call: the prompt's JSON-RPC error with the API's message, no status.
    let error = parse("cline", "cline/3.0.65", "error");
    assert_eq!(error.text, "");
    let fatal: Vec<_> = error.errors.iter().filter(|e| e.fatal).collect();
    assert_eq!(fatal.len(), 1, "{:?}", error.errors);
    assert!(fatal[0].message.contains("Mock rejects this request"));
    assert_eq!(error.api_error_status, None);
}

#[test]
fn factory_droid_0_225_2() {
    let plain = parse("factory-droid", "droid/0.225.2", "plain");
    assert!(plain.text.starts_with(PLAIN), "{}", plain.text);
    assert!(plain.session_id.is_some());
    assert_eq!(plain.usage, None);
    let tool = parse("factory-droid", "droid/0.225.2", "tool");
    assert!(tool.text.contains(TOOL), "{}", tool.text);
    assert!(!tool.tool_uses.is_empty());
    // A failed call is the agent's text `Error: 400 …` and a JSON-RPC error
    // whose `data` is the status and message: an error, not the reply.
    let error = parse("factory-droid", "droid/0.225.2", "error");
    assert_eq!(error.text, "");
    assert_eq!(error.api_error_status, Some(400));
    assert!(error
        .errors
        .iter()
        .any(|e| e.fatal && e.code.as_deref() == Some("http_400")));
    assert!(error.errors.iter().any(|e| e.fatal
        && e.message
            .contains("Agent error: 400 Mock rejects this request")));
}
