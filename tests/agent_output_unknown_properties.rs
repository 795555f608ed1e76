#![cfg(not(target_arch = "wasm32"))]
//! Lines of unknown event types inserted anywhere in the real output of
//! every recorded CLI release: the reply is the same but for
//! `unknownEvents`, which counts them per type in first-seen order, and the
//! events are the same but for one `Unknown` event per inserted line, in the
//! UTF-8 and the UTF-16 (JS) form, whole and in chunks.

use std::path::{Path, PathBuf};

use agent_context::agent_output::{
    parse_agent_output, parse_agent_output_as, AgentEvent, AgentOutputParser, AgentReply,
    EventTypeCount, Output, TextForm,
};
use proptest::prelude::*;
use serde_json::{json, Value};

fn agent_type(cli: &str) -> &'static str {
    match cli {
        "claude" => "claude-code",
        "codex" => "openai-codex",
        "gemini" => "google-gemini",
        // The later agents' folders are named by their agent type.
        other => {
            agent_context::agents::find(other)
                .unwrap_or_else(|| panic!("fixtures of an unknown agent: {other}"))
                .agent_type
        }
    }
}

/// Every recorded output (`tests/fixtures/cli/<cli>-<scenario>.jsonl` and
/// `tests/fixtures/cli/<cli>/<version>/<scenario>.jsonl`), with its agent
/// type and name.
fn fixtures() -> Vec<(&'static str, String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/cli");
    let mut all = Vec::new();
    let mut add = |cli: &str, path: &Path| {
        let name = path.strip_prefix(&root).unwrap().display().to_string();
        all.push((agent_type(cli), name, std::fs::read(path).unwrap()));
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    for path in &files {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        if let Some(cli) = ["claude", "codex", "gemini"]
            .into_iter()
            .find(|cli| name.starts_with(&format!("{cli}-")) && name.ends_with(".jsonl"))
        {
            add(cli, path);
        } else if path.is_dir() {
            let mut runs: Vec<PathBuf> = walk(path);
            runs.sort();
            for run in runs {
                add(&name, &run);
            }
        }
    }
    assert!(all.len() >= 40, "{} fixtures", all.len());
    all
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "jsonl") {
            out.push(path);
        }
    }
    out
}

/// An unknown line: a new top-level type (whose fields look like known
/// ones), Codex's older `{ id, msg }` with a new `msg.type` (Codex only), or
/// an object without a type. Returns the line and the type it counts as.
fn unknown_line(agent: &str, shape: u8, name: &str, text: &str) -> (String, String) {
    let event_type = format!("zz_{name}");
    let line = match shape % 3 {
        0 => json!({
            "type": event_type,
            "subtype": "init",
            "session_id": "not-this-one",
            "message": {"content": [{"type": "text", "text": text}]},
            "content": text,
            "role": "assistant",
            "delta": true,
        }),
        1 if agent == "openai-codex" => {
            json!({"id": "0", "msg": {"type": event_type, "message": text}})
        }
        1 => json!({"type": event_type, "status": "error", "error": {"message": text}}),
        _ => json!({"payload": text, "session_id": "not-this-one"}),
    };
    let counted = if shape % 3 == 2 {
        String::new()
    } else {
        event_type
    };
    (line.to_string(), counted)
}

/// `bytes` with `insertions` (line index, line) placed before those lines
/// (an index past the end appends); the types in the order they now come.
fn insert(bytes: &[u8], insertions: &[(usize, String, String)]) -> (Vec<u8>, Vec<String>) {
    let text = String::from_utf8_lossy(bytes);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut out = String::new();
    let mut order = Vec::new();
    for at in 0..=lines.len() {
        for (_, line, kind) in insertions
            .iter()
            .filter(|(i, _, _)| *i % (lines.len() + 1) == at)
        {
            out.push_str(line);
            out.push('\n');
            order.push(kind.clone());
        }
        if let Some(original) = lines.get(at) {
            out.push_str(original);
        }
    }
    (out.into_bytes(), order)
}

fn counts(order: &[String]) -> Vec<EventTypeCount> {
    let mut counts: Vec<EventTypeCount> = Vec::new();
    for kind in order {
        match counts.iter_mut().find(|c| &c.event_type == kind) {
            Some(c) => c.count += 1,
            None => counts.push(EventTypeCount {
                event_type: kind.clone(),
                count: 1,
            }),
        }
    }
    counts
}

/// The events of `bytes` fed in chunks cut at `cuts`, and the reply.
fn streamed(agent: &str, bytes: &[u8], cuts: &[usize]) -> (Vec<AgentEvent>, AgentReply) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.extend([0, bytes.len()]);
    points.sort_unstable();
    let mut parser = AgentOutputParser::new(agent);
    let mut events = Vec::new();
    for pair in points.windows(2) {
        events.extend(parser.push(&bytes[pair[0]..pair[1]]));
    }
    (events, parser.finish())
}

fn without_unknown(reply: &AgentReply) -> AgentReply {
    AgentReply {
        unknown_events: Vec::new(),
        ..reply.clone()
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn unknown_lines_anywhere_change_nothing_but_unknown_events(
        which in any::<prop::sample::Index>(),
        inserted in prop::collection::vec(
            (any::<usize>(), any::<u8>(), "[a-z_.]{0,8}", "[a-zA-Z0-9 é🎉]{0,12}"),
            1..6,
        ),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
    ) {
        let all = fixtures();
        let (agent, name, bytes) = &all[which.index(all.len())];
        let insertions: Vec<(usize, String, String)> = inserted
            .iter()
            .map(|(at, shape, kind, text)| {
                let (line, counted) = unknown_line(agent, *shape, kind, text);
                (*at, line, counted)
            })
            .collect();
        let (changed, order) = insert(bytes, &insertions);

        let original = parse_agent_output(agent, bytes);
        prop_assert!(original.unknown_events.is_empty(), "{}", name);
        let reply = parse_agent_output(agent, &changed);
        prop_assert_eq!(&reply.unknown_events, &counts(&order), "{}", name);
        prop_assert_eq!(without_unknown(&reply), original.clone(), "{}", name);

        // Streamed: the same reply, and the original's events with one
        // `Unknown` event per inserted line, carrying that line.
        let (original_events, _) = streamed(agent, bytes, &[]);
        let (events, streamed_reply) = streamed(agent, &changed, &cuts);
        prop_assert_eq!(&streamed_reply, &reply, "{}", name);
        let (unknown, known): (Vec<AgentEvent>, Vec<AgentEvent>) = events
            .into_iter()
            .partition(|e| matches!(e, AgentEvent::Unknown { .. }));
        prop_assert_eq!(known, original_events, "{}", name);
        let mut lines_in_order: Vec<&(usize, String, String)> = insertions.iter().collect();
        let line_count = String::from_utf8_lossy(bytes).split_inclusive('\n').count();
        lines_in_order.sort_by_key(|(at, _, _)| at % (line_count + 1));
        prop_assert_eq!(unknown.len(), insertions.len());
        for (event, (_, line, kind)) in unknown.iter().zip(lines_in_order) {
            let raw: Value = serde_json::from_str(line).unwrap();
            prop_assert_eq!(event, &AgentEvent::Unknown { event_type: kind.clone(), raw });
        }

        // The UTF-16 form (the JS binding's, Gemini lines through the byte
        // scanner): the same reply.
        let units: Vec<u16> = String::from_utf8_lossy(&changed).encode_utf16().collect();
        let (utf16_reply, text_units) =
            parse_agent_output_as(agent, Output::Utf16(&units), TextForm::Utf16);
        prop_assert_eq!(String::from_utf16(&text_units).unwrap(), reply.text.clone());
        prop_assert_eq!(AgentReply { text: reply.text.clone(), ..utf16_reply }, reply);
    }
}

/// Every fixture of every release of every agent (not a sample): unknown
/// lines of each shape at the start, in the middle and at the end change
/// nothing but `unknownEvents`, whole and streamed in chunks of 7 bytes.
#[test]
fn every_fixture_with_unknown_lines_at_the_start_middle_and_end() {
    let all = fixtures();
    let mut agents_seen: Vec<&str> = Vec::new();
    for (agent, name, bytes) in &all {
        let line_count = String::from_utf8_lossy(bytes).split_inclusive('\n').count();
        let insertions: Vec<(usize, String, String)> = [0, line_count / 2, line_count]
            .into_iter()
            .zip(0u8..)
            .map(|(at, shape)| {
                let (line, counted) = unknown_line(agent, shape, "new_kind", "text é");
                (at, line, counted)
            })
            .collect();
        let (changed, order) = insert(bytes, &insertions);
        let original = parse_agent_output(agent, bytes);
        assert!(original.unknown_events.is_empty(), "{name}");
        let reply = parse_agent_output(agent, &changed);
        assert_eq!(reply.unknown_events, counts(&order), "{name}");
        assert_eq!(without_unknown(&reply), original, "{name}");
        let cuts: Vec<usize> = (7..changed.len()).step_by(7).collect();
        let (events, streamed_reply) = streamed(agent, &changed, &cuts);
        assert_eq!(streamed_reply, reply, "{name}");
        let unknown = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::Unknown { .. }))
            .count();
        assert_eq!(unknown, insertions.len(), "{name}");
        if !agents_seen.contains(agent) {
            agents_seen.push(agent);
        }
    }
    agents_seen.sort_unstable();
    assert_eq!(
        agents_seen,
        [
            "claude-code",
            "github-copilot",
            "google-gemini",
            "kimi-code",
            "openai-codex",
            "opencode",
            "pi",
            "qwen-code"
        ]
    );
}
