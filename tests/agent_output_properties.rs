//! Properties of agent output parsing and of the command line, over random
//! input: chunks split anywhere parse as the whole text does, nothing panics,
//! memory holds one line, and the prompt never lands in argv.
#![cfg(not(target_arch = "wasm32"))]

use agent_context::agent_output::{
    parse_agent_output, parse_agent_output_as, strip_ansi, AgentEvent, AgentOutputParser,
    AgentReply, Output, TextForm,
};
use agent_context::launch::invocation::{build_cli_invocation, InvocationOptions, MAX_ARG_BYTES};
use agent_context::AssemblerOutput;
use proptest::prelude::*;

const AGENTS: [&str; 4] = ["claude-code", "openai-codex", "google-gemini", "plain"];

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/fixtures/cli/{name}.jsonl",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Every recorded real output, with its agent type.
fn fixtures() -> Vec<(&'static str, Vec<u8>)> {
    let mut all = Vec::new();
    for (cli, agent, scenarios) in [
        ("claude", "claude-code", ["plain", "tool", "error", "flaky"]),
        ("codex", "openai-codex", ["plain", "tool", "error", "flaky"]),
        (
            "gemini",
            "google-gemini",
            ["plain", "tool", "error", "empty"],
        ),
    ] {
        for scenario in scenarios {
            all.push((agent, fixture(&format!("{cli}-{scenario}"))));
            // The other releases recorded (tests/fixtures/cli/<cli>/<version>/).
            let releases = format!("{}/tests/fixtures/cli/{cli}", env!("CARGO_MANIFEST_DIR"));
            for release in std::fs::read_dir(releases).into_iter().flatten() {
                let path = release.unwrap().path().join(format!("{scenario}.jsonl"));
                all.push((agent, std::fs::read(path).unwrap()));
            }
        }
    }
    all
}

/// Feeds `bytes` cut at `cuts` (positions, any order, duplicates allowed);
/// returns the reply and the text the events carried.
fn streamed(
    agent: &str,
    bytes: &[u8],
    cuts: &[usize],
) -> (agent_context::agent_output::AgentReply, String) {
    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.push(0);
    points.push(bytes.len());
    points.sort_unstable();
    let mut parser = AgentOutputParser::new(agent);
    let mut text = String::new();
    let mut longest_line = 0;
    let mut line_start = 0;
    for pair in points.windows(2) {
        for event in parser.push(&bytes[pair[0]..pair[1]]) {
            if let AgentEvent::Text { text: piece } = event {
                text.push_str(&piece);
            }
        }
        // Memory: only the bytes since the last newline are held.
        if let Some(nl) = bytes[..pair[1]].iter().rposition(|&b| b == b'\n') {
            line_start = line_start.max(nl + 1);
        }
        longest_line = longest_line.max(pair[1] - line_start);
        assert_eq!(parser.buffered_bytes(), pair[1] - line_start);
    }
    assert!(parser.buffered_bytes() <= longest_line);
    (parser.finish(), text)
}

/// The UTF-16 form (what the JS binding uses, with Gemini message lines
/// read by the byte scanner) against the UTF-8 form (serde_json): the same
/// reply, the same text as code units, the same events, whole and in chunks.
fn assert_utf16_form_agrees(agent: &str, bytes: &[u8], cuts: &[usize]) {
    let expected = parse_agent_output(agent, bytes);
    let (reply, units) = parse_agent_output_as(agent, Output::Bytes(bytes), TextForm::Utf16);
    assert_same_reply(&reply, &units, &expected);
    if let Ok(text) = std::str::from_utf8(bytes) {
        let (reply, text_units) = parse_agent_output_as(agent, Output::Text(text), TextForm::Utf16);
        assert_eq!(text_units, units);
        assert_eq!(reply.errors, expected.errors);
        let js_string: Vec<u16> = text.encode_utf16().collect();
        let (from_units, units_of_units) =
            parse_agent_output_as(agent, Output::Utf16(&js_string), TextForm::Utf16);
        assert_eq!(units_of_units, units);
        assert_eq!(from_units, reply);
    }

    let mut points: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    points.extend([0, bytes.len()]);
    points.sort_unstable();
    let mut utf8 = AgentOutputParser::new(agent);
    let mut utf16 = AgentOutputParser::with_utf16_text(agent);
    for pair in points.windows(2) {
        let chunk = &bytes[pair[0]..pair[1]];
        let want = utf8.push(chunk);
        let got = utf16.push(chunk);
        let (lengths, units) = utf16.take_text_units();
        let (mut at, mut lengths) = (0, lengths.into_iter());
        assert_eq!(got.len(), want.len());
        for (got, want) in got.iter().zip(&want) {
            match (got, want) {
                (AgentEvent::Text { text }, AgentEvent::Text { text: want }) => {
                    assert!(text.is_empty());
                    let n = lengths.next().expect("a length per text event") as usize;
                    assert_eq!(
                        String::from_utf16(&units[at..at + n]).ok().as_deref(),
                        Some(want.as_str())
                    );
                    at += n;
                }
                _ => assert_eq!(got, want),
            }
        }
        assert_eq!(at, units.len());
    }
    let (reply, units) = utf16.finish_utf16();
    assert_same_reply(&reply, &units, &utf8.finish());
}

/// A reply of the UTF-16 form (empty `text`, the text in `units`) is
/// `expected`.
fn assert_same_reply(reply: &AgentReply, units: &[u16], expected: &AgentReply) {
    assert_eq!(
        String::from_utf16(units).ok().as_deref(),
        Some(expected.text.as_str())
    );
    assert_eq!(
        &AgentReply {
            text: expected.text.clone(),
            ..reply.clone()
        },
        expected
    );
}

/// Gemini `message` lines of every shape the byte scanner must take or
/// leave: keys in any order, repeated or escaped, whitespace, every JSON
/// value type, escapes (`\u` ones too), control characters, invalid UTF-8,
/// `U+009B`, cut-off lines, and text long enough for the 8-byte steps.
fn gemini_message_lines() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop::sample::select(vec![
        &b"a"[..],
        b"Hello, world",
        b"ascii run of more than eight bytes",
        b" ",
        "é".as_bytes(),
        "日本語".as_bytes(),
        "国".as_bytes(),
        "🎉".as_bytes(),
        br"\n",
        br#"\""#,
        br"\\",
        br"\/",
        br"\t",
        br"\r",
        br"\b",
        br"\f",
        br"\u0041",
        br"\u001b[31m",
        br"\ud83c\udf89",
        br"\x",
        b"\t",
        "\u{9b}".as_bytes(),
        b"\xff",
        b"\xe6\x97",
        b"\xc0\x80",
        b"\xed\xa0\x80",
    ]);
    let string = prop::collection::vec(piece, 0..8).prop_map(|p| {
        let mut s = b"\"".to_vec();
        for piece in p {
            s.extend_from_slice(piece);
        }
        s.push(b'"');
        s
    });
    let value = prop_oneof![
        6 => string.clone(),
        1 => prop::sample::select(vec![&b"true"[..], b"false", b"null", b"1", b"{}", b"[]", b"tru"])
            .prop_map(<[u8]>::to_vec),
    ];
    let key = prop::sample::select(vec![
        &br#""type""#[..],
        br#""role""#,
        br#""content""#,
        br#""delta""#,
        br#""timestamp""#,
        br#""typ\u0065""#,
    ]);
    let ws = prop::sample::select(vec![&b""[..], b" ", b"\t", b"\r"]);
    let kind = prop::sample::select(vec![
        &br#""type":"message""#[..],
        br#""type":"message""#,
        br#""type":"message""#,
        br#""type":"tool_use""#,
    ]);
    let role = prop::sample::select(vec![
        &br#""role":"assistant""#[..],
        br#""role":"assistant""#,
        br#""role":"user""#,
        b"",
    ]);
    let delta = prop::sample::select(vec![
        &br#""delta":true"#[..],
        br#""delta":false"#,
        br#""delta":null"#,
        b"",
    ]);
    let content = string
        .clone()
        .prop_map(|s| [&br#""content":"#[..], &s].concat());
    let odd = (key, ws.clone(), value).prop_map(|(k, w, v)| [k, w, b":", &v[..]].concat());
    let fields = (
        kind,
        role,
        delta,
        content,
        prop::collection::vec(odd, 0..3),
        any::<bool>(),
    )
        .prop_flat_map(|(kind, role, delta, content, odd, plain)| {
            let mut fields: Vec<Vec<u8>> =
                vec![kind.to_vec(), role.to_vec(), delta.to_vec(), content];
            if !plain {
                fields.extend(odd);
            }
            fields.retain(|f| !f.is_empty());
            Just(fields).prop_shuffle()
        });
    let line = (
        fields,
        ws,
        prop::sample::select(vec![&b"}\n"[..], b"}\n", b"}\n", b"} x\n", b",}\n", b"\n"]),
    )
        .prop_map(|(fields, w, end)| [&b"{"[..], w, &fields.join(&b","[..]), end].concat());
    prop::collection::vec(line, 0..12).prop_map(|lines| lines.concat())
}

/// JSON event lines of the three formats with random strings in them, ANSI
/// codes, non-JSON lines, blank lines, CRLF and cut-off lines.
fn output_lines() -> impl Strategy<Value = Vec<u8>> {
    let word = prop::sample::select(vec![
        "a",
        "Hello",
        " ",
        "é",
        "日本",
        "🎉",
        "\\n",
        "\\u001b[31m",
        "\\u001b[0m",
        "\\\"",
        "\u{9b}",
        "\\u001b[3",
        "1m",
        "\\u001b]0;t",
        "\\u0007",
        "",
    ]);
    let text = prop::collection::vec(word, 0..6).prop_map(|w| w.concat());
    let template = prop::sample::select(vec![
        r#"{"type":"init","session_id":"S","model":"m"}"#,
        r#"{"type":"message","role":"assistant","content":"T","delta":true}"#,
        r#"{"type":"message","role":"user","content":"T"}"#,
        r#"{"type":"tool_use","tool_name":"T","tool_id":"S","parameters":{"p":"T"}}"#,
        r#"{"type":"tool_result","tool_id":"S","status":"error","output":"T"}"#,
        r#"{"type":"error","severity":"warning","message":"T"}"#,
        r#"{"type":"result","status":"success","stats":{"input_tokens":3}}"#,
        r#"{"type":"result","status":"error"}"#,
        r#"{"type":"system","subtype":"init","session_id":"S"}"#,
        r#"{"type":"assistant","message":{"content":[{"type":"text","text":"T"},{"type":"tool_use","id":"S","name":"T","input":{}}]}}"#,
        r#"{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"S","content":"T"}]}}"#,
        r#"{"type":"result","subtype":"success","is_error":true,"result":"T"}"#,
        r#"{"type":"thread.started","thread_id":"S"}"#,
        r#"{"type":"item.completed","item":{"id":"S","type":"agent_message","text":"T"}}"#,
        r#"{"type":"item.started","item":{"id":"S","type":"command_execution","command":"T","status":"in_progress"}}"#,
        r#"{"type":"error","message":"Reconnecting... T"}"#,
        r#"{"type":"turn.failed","error":{"message":"T"}}"#,
        r#"{"type":"turn.completed","usage":{"input_tokens":1,"output_tokens":2}}"#,
        "Warning: T",
        "\u{1b}[33mT\u{1b}[0m",
        "",
        "{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"T",
    ]);
    let ending = prop::sample::select(vec!["\n", "\r\n", "\n\n"]);
    let line = (
        template,
        text,
        prop::sample::select(vec!["a", "b", "é"]),
        ending,
    )
        .prop_map(|(template, text, id, ending)| {
            format!(
                "{}{ending}",
                template
                    .replace('T', &text)
                    .replace("\"S\"", &format!("\"{id}\""))
            )
        });
    prop::collection::vec(line, 0..24).prop_map(|lines| lines.concat().into_bytes())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn real_outputs_split_anywhere_parse_the_same(
        which in any::<prop::sample::Index>(),
        cuts in prop::collection::vec(any::<usize>(), 0..40),
    ) {
        let all = fixtures();
        let (agent, bytes) = &all[which.index(all.len())];
        let whole = parse_agent_output(agent, bytes);
        let (reply, text) = streamed(agent, bytes, &cuts);
        prop_assert_eq!(&reply, &whole);
        prop_assert_eq!(text, whole.text);
    }

    #[test]
    fn generated_event_lines_split_anywhere_parse_the_same(
        agent in 0usize..4,
        bytes in output_lines(),
        cuts in prop::collection::vec(any::<usize>(), 0..20),
    ) {
        let agent = AGENTS[agent];
        let whole = parse_agent_output(agent, &bytes);
        let (reply, text) = streamed(agent, &bytes, &cuts);
        prop_assert_eq!(&reply, &whole);
        if bytes.ends_with(b"\n") {
            prop_assert_eq!(text, whole.text.clone());
        }
        const ESC: char = '\u{1b}';
        const CSI: char = '\u{9b}';
        prop_assert!(!whole.text.contains(ESC) && !whole.text.contains(CSI), "escapes left in {:?}", whole.text);
        for line in &whole.non_json_lines {
            prop_assert!(!line.trim().is_empty() && !line.contains(ESC), "bad non-JSON line {:?}", line);
        }
    }

    #[test]
    fn gemini_deltas_are_stripped_as_one_message(
        pieces in prop::collection::vec(prop::sample::select(vec![
            "Hi", " ", "é", "\u{1b}", "[", "3", "1m", "\u{1b}[0m", "]0;title", "\u{7}", "\u{1b}\\", "\u{9b}", "m",
        ]), 0..30),
    ) {
        let mut out = String::new();
        for piece in &pieces {
            let line = serde_json::json!({"type": "message", "role": "assistant", "content": piece, "delta": true});
            out.push_str(&format!("{line}\n"));
        }
        let reply = parse_agent_output("google-gemini", out.as_bytes());
        prop_assert_eq!(reply.text, strip_ansi(&pieces.concat()).into_owned());
    }

    #[test]
    fn the_utf16_form_agrees_on_gemini_message_lines(
        bytes in gemini_message_lines(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        assert_utf16_form_agrees("google-gemini", &bytes, &cuts);
    }

    #[test]
    fn the_utf16_form_agrees_on_every_format(
        agent in 0usize..4,
        bytes in output_lines(),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
    ) {
        assert_utf16_form_agrees(AGENTS[agent], &bytes, &cuts);
    }

    #[test]
    fn a_js_string_read_as_utf16_agrees_with_its_utf8(
        agent in 0usize..4,
        bytes in prop_oneof![gemini_message_lines(), output_lines()],
        lone in prop::collection::vec((any::<usize>(), prop::sample::select(vec![0xd800u16, 0xdbff, 0xdc00, 0xdfff])), 0..3),
    ) {
        // The units of a JS string, lone surrogates included; written as
        // UTF-8 (what wasm-bindgen does to a string) they become U+FFFD.
        let agent = if agent == 0 { "google-gemini" } else { AGENTS[agent] };
        let mut units: Vec<u16> = String::from_utf8_lossy(&bytes).encode_utf16().collect();
        for (at, unit) in lone {
            units.insert(at % (units.len() + 1), unit);
        }
        let text = String::from_utf16_lossy(&units);
        for form in [TextForm::Utf8, TextForm::Utf16] {
            let (want, want_units) = parse_agent_output_as(agent, Output::Text(&text), form);
            let (got, got_units) = parse_agent_output_as(agent, Output::Utf16(&units), form);
            prop_assert_eq!(got, want);
            prop_assert_eq!(got_units, want_units);
        }
    }

    #[test]
    fn lone_surrogates_in_message_content_read_as_replacement_characters(
        pieces in prop::collection::vec(prop::sample::select(vec![
            "a", "Hello ", "é", "日本語", "🎉", r"\n", r"\r", r"\b", r"\f", r#"\""#, r"\\", "ascii text of some length",
        ]), 0..12),
        lone in prop::collection::vec((any::<usize>(), prop::sample::select(vec![0xd800u16, 0xdbff, 0xdc00, 0xdfff])), 0..3),
        delta in any::<bool>(),
    ) {
        let mut content: Vec<u16> = pieces.concat().encode_utf16().collect();
        for (at, unit) in lone {
            content.insert(at % (content.len() + 1), unit);
        }
        let mut units: Vec<u16> = r#"{"type":"message","role":"assistant","content":""#.encode_utf16().collect();
        units.extend(&content);
        units.extend(format!(r#"","delta":{delta}}}"#).encode_utf16());
        units.push(u16::from(b'\n'));
        let text = String::from_utf16_lossy(&units);
        let (want, want_units) = parse_agent_output_as("google-gemini", Output::Text(&text), TextForm::Utf16);
        let (got, got_units) = parse_agent_output_as("google-gemini", Output::Utf16(&units), TextForm::Utf16);
        prop_assert_eq!(got, want);
        prop_assert_eq!(got_units, want_units);
    }

    #[test]
    fn arbitrary_bytes_never_panic(
        agent in 0usize..4,
        bytes in prop::collection::vec(any::<u8>(), 0..600),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
    ) {
        let agent = AGENTS[agent];
        let whole = parse_agent_output(agent, &bytes);
        let (reply, _) = streamed(agent, &bytes, &cuts);
        prop_assert_eq!(reply, whole);
    }

    #[test]
    fn arbitrary_strings_never_panic(agent in 0usize..4, text in ".{0,300}") {
        let agent = AGENTS[agent];
        let reply = parse_agent_output(agent, text.as_bytes());
        if agent == "plain" {
            prop_assert_eq!(reply.text, strip_ansi(&text).into_owned());
        }
    }

    #[test]
    fn the_prompt_travels_on_stdin_and_no_argument_is_too_long(
        agent in 0usize..3,
        prompt in "[a-z \n]{1,20}",
        repeat in 1usize..20_000,
        flag_repeat in prop::option::of(0usize..25_000),
        model in prop::option::of("-?[a-z0-9.\\-]{0,12}"),
    ) {
        let agent = AGENTS[agent];
        let prompt = format!("Q {}", prompt.repeat(repeat));
        let flag = flag_repeat.filter(|_| agent == "claude-code").map(|n| format!("Be {}", "brief ".repeat(n)));
        let output = AssemblerOutput { prompt: prompt.clone(), system_flag: flag.clone() };
        let options = InvocationOptions {
            model,
            system_prompt_file: Some("/tmp/system.md".into()),
            ..InvocationOptions::default()
        };
        let run = build_cli_invocation(agent, &output, &options).unwrap();
        prop_assert_eq!(&run.stdin, &prompt);
        for arg in &run.args {
            prop_assert!(arg.len() < MAX_ARG_BYTES);
            prop_assert!(!arg.contains(&prompt));
        }
        // The flag is in argv when it fits, in the file otherwise; never both, never lost.
        if let Some(flag) = flag.filter(|f| !f.is_empty()) {
            let in_args = run.args.iter().any(|a| a == &format!("--append-system-prompt={flag}"));
            let in_file = run.files.iter().any(|f| f.content == flag);
            prop_assert!(in_args != in_file);
            prop_assert_eq!(in_file, flag.len() + "--append-system-prompt=".len() >= MAX_ARG_BYTES);
        } else {
            prop_assert!(run.files.is_empty());
        }
    }
}
