//! Seed 004 natively: golden system prompts for every mode, metadata, the
//! OpenAI message form, and `maxMessages` at every cut point.
//!
//! `GOLDEN_UPDATE=1 cargo test --test context_builder` rewrites the golden
//! files; review the diff before committing it.
#![cfg(not(target_arch = "wasm32"))]

use std::path::PathBuf;

use agent_context::prompt::context_builder::{
    build_llm_messages, compose_system_prompt, ContextBuildOptions, Templates, PART_SEPARATOR,
};
use agent_context::ErrorCode;
use serde_json::{json, Value};

fn golden_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/golden/context")
}

fn cases() -> Vec<Value> {
    serde_json::from_str(&std::fs::read_to_string(golden_dir().join("cases.json")).unwrap())
        .unwrap()
}

fn build(options: &Value) -> Value {
    let parsed = ContextBuildOptions::read(options).unwrap();
    serde_json::to_value(build_llm_messages(&parsed, &Templates::default())).unwrap()
}

#[test]
fn system_prompts_match_the_golden_files() {
    let update = std::env::var_os("GOLDEN_UPDATE").is_some();
    let cases = cases();
    assert_eq!(cases.len(), 10);
    for case in &cases {
        let name = case["name"].as_str().unwrap();
        let parsed = ContextBuildOptions::read(&case["options"]).unwrap();
        let prompt = compose_system_prompt(&parsed.prompt, &Templates::default());
        let path = golden_dir().join(case["golden"].as_str().unwrap());
        if update {
            std::fs::write(&path, &prompt).unwrap();
        }
        let golden = std::fs::read_to_string(&path)
            .unwrap_or_else(|_| panic!("{name}: no {}", path.display()));
        assert_eq!(prompt, golden, "{name}");
        // The system message of the built array is the same text.
        assert_eq!(
            build(&case["options"])["messages"][0]["content"],
            Value::String(golden),
            "{name}"
        );
    }
}

#[test]
fn parts_come_in_the_seed_order() {
    let case = cases()
        .into_iter()
        .find(|c| c["golden"] == "run-full.txt")
        .unwrap();
    let prompt = std::fs::read_to_string(golden_dir().join("run-full.txt")).unwrap();
    let parts: Vec<&str> = prompt.split(PART_SEPARATOR).collect();
    let heads: Vec<&str> = parts.iter().map(|p| p.lines().next().unwrap()).collect();
    assert_eq!(
        heads,
        [
            "# Mode: RUN",
            "## Base Rules (Run)",
            "## Tool Policy",
            "## Agent Persona",
            "## Run Directive"
        ]
    );
    assert!(
        parts[2].contains("\n\n### How to read this policy\n"),
        "tool-policy.md follows the lines"
    );
    assert!(parts[4].ends_with("The host reads only the last `run-directive` block of your reply."));
    assert!(parts[4].contains("**Completed Steps:** gather-requirements → pick-framework"));
    assert!(
        parts[4].contains("- **approved** → review (default)\n- **needs-research** → research\n")
    );
    assert_eq!(case["options"]["mode"], "run");
}

#[test]
fn messages_and_metadata_follow_the_seed() {
    let case = cases()
        .into_iter()
        .find(|c| c["golden"] == "agent-persona-policy.txt")
        .unwrap();
    let built = build(&case["options"]);
    let messages = built["messages"].as_array().unwrap();
    assert_eq!(messages[0]["role"], "system");
    assert_eq!(
        messages[1..],
        [
            json!({"role": "user", "content": "Draft the layout please 🙏"}),
            json!({"role": "assistant", "content": null, "tool_calls": [{"id": "call_1", "type": "function",
                "function": {"name": "read_file", "arguments": "{\"path\":\"docs/requirements.md\"}"}}]}),
            json!({"role": "tool", "content": "# Requirements\n- dark mode", "name": "read_file", "tool_call_id": "call_1"}),
            json!({"role": "assistant", "content": "Reading done; drafting now."}),
        ]
    );
    let prompt = messages[0]["content"].as_str().unwrap();
    assert_eq!(
        built["metadata"],
        json!({"inputCount": 6, "outputCount": 5, "filteredCount": 1, "systemPromptIncluded": true,
               "systemPromptLength": prompt.encode_utf16().count()})
    );
    // 🎨 is two UTF-16 units, and one char.
    assert_eq!(prompt.encode_utf16().count(), prompt.chars().count() + 1);

    let mut without = case["options"].clone();
    without["settings"] = json!({"includeSystemPrompt": false});
    let built = build(&without);
    assert_eq!(built["messages"][0]["role"], "user");
    assert_eq!(
        built["metadata"],
        json!({"inputCount": 6, "outputCount": 4, "filteredCount": 1, "systemPromptIncluded": false, "systemPromptLength": 0})
    );
}

/// A conversation with two tool-call rounds, one with two calls.
fn tool_conversation() -> Value {
    json!([
        {"role": "user", "content": "u1"},
        {"role": "assistant", "content": null, "toolCalls": [{"id": "a", "name": "t", "arguments": "{}"}]},
        {"role": "tool", "toolCallId": "a", "content": "ra"},
        {"role": "assistant", "content": "a1"},
        {"role": "user", "content": "u2"},
        {"role": "system", "content": "skipped"},
        {"role": "assistant", "content": "", "tool_calls": [{"id": "b", "type": "function", "function": {"name": "t", "arguments": "{}"}},
                                                         {"id": "c", "type": "function", "function": {"name": "t", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "b", "content": "rb"},
        {"role": "user", "content": "hidden", "includeInContext": false},
        {"role": "tool", "tool_call_id": "c", "content": "rc"},
        {"role": "assistant", "content": "a2"},
    ])
}

#[test]
fn max_messages_never_splits_a_tool_call_from_its_results_at_any_cut() {
    let conversation = tool_conversation();
    let all: Vec<Value> = build(&json!({"mode": "chat", "messages": conversation, "settings": {"includeSystemPrompt": false}}))
        ["messages"].as_array().unwrap().clone();
    assert_eq!(all.len(), 9);
    for max in 0..=all.len() + 1 {
        let built = build(
            &json!({"mode": "chat", "messages": conversation, "settings": {"includeSystemPrompt": false, "maxMessages": max}}),
        );
        let kept = built["messages"].as_array().unwrap();
        assert!(kept.len() <= max, "max {max}");
        assert_eq!(
            kept[..],
            all[all.len() - kept.len()..],
            "max {max}: the newest, in order"
        );
        if let Some(first) = kept.first() {
            assert_ne!(
                first["role"], "tool",
                "max {max}: starts on an orphaned tool result"
            );
        }
        // Every kept tool result has its call in the kept assistant messages, and vice versa.
        let calls: Vec<&Value> = kept
            .iter()
            .filter_map(|m| m["tool_calls"].as_array())
            .flatten()
            .map(|c| &c["id"])
            .collect();
        let results: Vec<&Value> = kept
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| &m["tool_call_id"])
            .collect();
        assert_eq!(calls, results, "max {max}");
        // As many as possible: only the orphaned results at the cut are lost.
        let lost_orphans = all[all.len() - max.min(all.len())..]
            .iter()
            .take_while(|m| m["role"] == "tool")
            .count();
        assert_eq!(kept.len(), max.min(all.len()) - lost_orphans, "max {max}");
        assert_eq!(
            built["metadata"]["trimmedCount"],
            json!(all.len() - kept.len()),
            "max {max}"
        );
        assert_eq!(built["metadata"]["filteredCount"], 1);
    }
    // Without maxMessages the metadata has exactly the seed's five fields.
    let plain = build(&json!({"mode": "chat", "messages": conversation}));
    assert_eq!(plain["metadata"].as_object().unwrap().len(), 5);
}

#[test]
fn bad_options_name_the_path() {
    let cases = [
        (
            json!({"messages": []}),
            "mode must be a string, got undefined",
        ),
        (
            json!({"mode": "debug", "messages": []}),
            "mode must be 'chat', 'agent' or 'run', got \"debug\"",
        ),
        (
            json!({"mode": "chat"}),
            "messages must be an array, got undefined",
        ),
        (
            json!({"mode": "chat", "messages": [{"role": "user", "content": "ok"}, {"role": "bot", "content": "x"}]}),
            "messages[1].role must be 'user', 'assistant', 'system' or 'tool', got \"bot\"",
        ),
        (
            json!({"mode": "chat", "messages": [{"role": "tool", "content": "x"}]}),
            "messages[0] is a tool message without toolCallId (the id of the call it answers)",
        ),
        (
            json!({"mode": "chat", "messages": [{"role": "user", "content": {"text": "x"}}]}),
            "messages[0].content must be a string or an array of content parts, got an object",
        ),
        (
            json!({"mode": "agent", "agent": {"id": "x", "role": "r"}, "messages": []}),
            "agent.name must be a string, got undefined",
        ),
        (
            json!({"mode": "chat", "toolPolicy": {"deniedTools": "rm"}, "messages": []}),
            "toolPolicy.deniedTools must be an array of strings, got a string",
        ),
        (
            json!({"mode": "run", "runContext": {"packageName": "p", "workflowName": "w"}, "messages": []}),
            "runContext.currentStep must be an object, got undefined",
        ),
        (
            json!({"mode": "run", "runContext": {"packageName": "p", "workflowName": "w", "currentStep": {"id": "s", "name": "n", "instruction": "i"},
                "graph": {"outgoingEdges": [{"label": "go"}]}}, "messages": []}),
            "runContext.graph.outgoingEdges[0].targetNodeId must be a string, got undefined",
        ),
        (
            json!({"mode": "chat", "messages": [], "settings": {"maxMessages": -1}}),
            "settings.maxMessages must be a whole number >= 0, got -1",
        ),
        (
            json!({"mode": "chat", "messages": [], "settings": {"includeSystemPrompt": "no"}}),
            "settings.includeSystemPrompt must be a boolean, got a string",
        ),
        (json!([]), "options must be an object, got an array"),
    ];
    for (options, message) in cases {
        let err = ContextBuildOptions::read(&options).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert_eq!(err.message(), message);
    }
}

#[test]
fn template_overrides_replace_the_embedded_text() {
    let options = json!({"mode": "chat", "toolPolicy": {"deniedTools": ["rm"]}, "messages": []});
    let parsed = ContextBuildOptions::read(&options).unwrap();
    let overrides = json!({"base-rules-chat.md": "## Our chat rules\n", "tool-policy.md": ""});
    let templates = Templates::with_overrides(Some(&overrides), "templates").unwrap();
    assert_eq!(
        compose_system_prompt(&parsed.prompt, &templates),
        "# Mode: CHAT\n\n---\n\n## Our chat rules\n\n---\n\n## Tool Policy\nDenied tools: rm"
    );
}
