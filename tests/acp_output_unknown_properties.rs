#![cfg(not(target_arch = "wasm32"))]
//! Lines the ACP reader does not know (a `session/update` of a new kind, a
//! method of the agent's own, an object that is no JSON-RPC message)
//! inserted anywhere in every recorded ACP transcript: the reply is the same
//! but for `unknownEvents`, which gains one count per inserted line, and the
//! events are the same but for one `Unknown` event per inserted line, whole
//! and in chunks, in the UTF-8 and the UTF-16 (JS) form.

use std::path::PathBuf;

use agent_context::agent_output::{
    parse_agent_output_in, AgentEvent, AgentOutputParser, AgentReply, Output, Protocol, TextForm,
};
use proptest::prelude::*;
use serde_json::{json, Value};

/// Every recorded transcript: its agent type, name and bytes.
fn fixtures() -> Vec<(&'static str, String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp");
    let mut all = Vec::new();
    for (folder, agent) in [
        ("claude", "claude-code"),
        ("codex", "openai-codex"),
        ("gemini", "google-gemini"),
        ("qwen", "qwen-code"),
        ("copilot", "github-copilot"),
        ("opencode", "opencode"),
    ] {
        for version in std::fs::read_dir(root.join(folder)).unwrap() {
            let version = version.unwrap().path();
            let mut files: Vec<PathBuf> = std::fs::read_dir(&version)
                .unwrap()
                .map(|e| e.unwrap().path())
                .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
                .collect();
            files.sort();
            for file in files {
                let name = file.strip_prefix(&root).unwrap().display().to_string();
                all.push((agent, name, std::fs::read(&file).unwrap()));
            }
        }
    }
    assert!(all.len() >= 21, "{} transcripts", all.len());
    all
}

/// An unknown line and the type it counts as: an update of a new kind
/// (whose fields look like a message chunk's, with another session id), a
/// notification or request of a new method, or an object that is no
/// JSON-RPC message.
fn unknown_line(shape: u8, name: &str, text: &str) -> (String, String) {
    match shape % 4 {
        0 => {
            let kind = format!("zz_{name}");
            let line = json!({"jsonrpc": "2.0", "method": "session/update", "params": {
                "sessionId": "not-this-one",
                "update": {"sessionUpdate": kind, "content": {"type": "text", "text": text}},
            }});
            (line.to_string(), kind)
        }
        1 => {
            let method = format!("zz/{name}");
            let line = json!({"jsonrpc": "2.0", "method": method, "params": {"sessionId": "not-this-one", "text": text}});
            (line.to_string(), method)
        }
        2 => {
            let method = format!("zz/{name}");
            let line = json!({"jsonrpc": "2.0", "id": 77, "method": method, "params": {"stopReason": "refusal"}});
            (line.to_string(), method)
        }
        _ => (
            json!({"payload": text, "sessionId": "not-this-one"}).to_string(),
            String::new(),
        ),
    }
}

fn insert(bytes: &[u8], insertions: &[(usize, String, String)]) -> Vec<u8> {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::new();
    for at in 0..=lines.len() {
        for (_, line, _) in insertions
            .iter()
            .filter(|(i, _, _)| *i % (lines.len() + 1) == at)
        {
            out.push_str(line);
            out.push('\n');
        }
        if let Some(original) = lines.get(at) {
            out.push_str(original);
        }
    }
    out.into_bytes()
}

fn parse(agent: &str, bytes: &[u8]) -> AgentReply {
    parse_agent_output_in(agent, Protocol::Acp, Output::Bytes(bytes), TextForm::Utf8).0
}

fn streamed(agent: &str, bytes: &[u8], cuts: &[usize]) -> (Vec<AgentEvent>, AgentReply) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.extend([0, bytes.len()]);
    points.sort_unstable();
    let mut parser = AgentOutputParser::with_protocol(agent, Protocol::Acp, TextForm::Utf8);
    let mut events = Vec::new();
    for pair in points.windows(2) {
        events.extend(parser.push(&bytes[pair[0]..pair[1]]));
    }
    (events, parser.finish())
}

/// The counts per type, whatever their order.
fn tally(reply: &AgentReply) -> std::collections::BTreeMap<String, u64> {
    let mut map = std::collections::BTreeMap::new();
    for c in &reply.unknown_events {
        *map.entry(c.event_type.clone()).or_insert(0) += c.count;
    }
    map
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn unknown_acp_lines_anywhere_change_nothing_but_unknown_events(
        which in any::<prop::sample::Index>(),
        inserted in prop::collection::vec(
            (any::<usize>(), any::<u8>(), "[a-z_]{0,8}", "[a-zA-Z0-9 é🎉]{0,12}"),
            1..6,
        ),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let all = fixtures();
        let (agent, name, bytes) = &all[which.index(all.len())];
        let insertions: Vec<(usize, String, String)> = inserted
            .iter()
            .map(|(at, shape, kind, text)| {
                let (line, counted) = unknown_line(*shape, kind, text);
                (*at, line, counted)
            })
            .collect();
        let changed = insert(bytes, &insertions);

        let original = parse(agent, bytes);
        let reply = parse(agent, &changed);
        let mut expected = tally(&original);
        for (_, _, kind) in &insertions {
            *expected.entry(kind.clone()).or_insert(0) += 1;
        }
        prop_assert_eq!(tally(&reply), expected, "{}", name);
        prop_assert_eq!(
            AgentReply { unknown_events: vec![], ..reply.clone() },
            AgentReply { unknown_events: vec![], ..original.clone() },
            "{}", name
        );

        let (original_events, _) = streamed(agent, bytes, &[]);
        let (events, streamed_reply) = streamed(agent, &changed, &cuts);
        prop_assert_eq!(&streamed_reply, &reply, "{}", name);
        let inserted_raw: Vec<Value> = insertions
            .iter()
            .map(|(_, line, _)| serde_json::from_str(line).unwrap())
            .collect();
        let is_inserted = |e: &AgentEvent| matches!(e, AgentEvent::Unknown { raw, .. } if inserted_raw.contains(raw));
        let known: Vec<AgentEvent> = events.iter().filter(|e| !is_inserted(e)).cloned().collect();
        prop_assert_eq!(known, original_events, "{}", name);
        prop_assert_eq!(events.iter().filter(|e| is_inserted(e)).count(), insertions.len());

        let units: Vec<u16> = String::from_utf8_lossy(&changed).encode_utf16().collect();
        let (utf16_reply, text_units) =
            parse_agent_output_in(agent, Protocol::Acp, Output::Utf16(&units), TextForm::Utf16);
        prop_assert_eq!(String::from_utf16(&text_units).unwrap(), reply.text.clone());
        prop_assert_eq!(AgentReply { text: reply.text.clone(), ..utf16_reply }, reply);
    }
}
