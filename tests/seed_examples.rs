//! Seed 000 §7 / §10 (Gemini) and seed 001 §6 / §10 (PlainText), natively.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_context::agents::assembly::resolve_layout;
use agent_context::agents::{CLAUDE, CODEX, GEMINI};
use agent_context::prompt::layout::PLAIN_TEXT;
use agent_context::{assemble_for_agent, AssembleOptions, AssemblerInput, ContextMessage};
use common::{golden, input, WORKED_EXAMPLES_JSON};
use serde_json::Value;

fn run(agent_type: &str, input: &AssemblerInput) -> agent_context::AgentAssembly {
    assemble_for_agent(
        agent_type,
        &input.fields,
        &input.context_messages,
        AssembleOptions::default(),
    )
    .expect("assembles")
}

/// A JS-shaped `AssemblerInput` from the JSON fixture.
fn from_json(v: &Value) -> AssemblerInput {
    let text = |key: &str| v[key].as_str().unwrap_or_default().to_owned();
    let mut input = input(&[], "", None, None, None);
    input.fields.current_message = text("currentMessage");
    input.fields.team_task = text("teamTask");
    input.fields.system_instruction = text("systemInstruction");
    input.fields.instruction_file_text = text("instructionFileText");
    input.fields.max_bytes = v["maxBytes"].as_u64().expect("maxBytes");
    for m in v["contextMessages"].as_array().expect("contextMessages") {
        input.context_messages.push(ContextMessage::new(
            m["from"].as_str().unwrap(),
            m["to"].as_str(),
            m["content"].as_str().unwrap(),
        ));
    }
    input
}

#[test]
fn worked_examples_come_out_byte_for_byte() {
    let examples: Vec<Value> = serde_json::from_str(WORKED_EXAMPLES_JSON).unwrap();
    assert_eq!(examples.len(), 10);
    for ex in &examples {
        let name = ex["name"].as_str().unwrap();
        let got = run(ex["agentType"].as_str().unwrap(), &from_json(&ex["input"]))
            .assembled
            .output;
        assert_eq!(got.prompt, golden(ex["golden"].as_str().unwrap()), "{name}");
        let flag = ex["goldenSystemFlag"].as_str().map(golden);
        assert_eq!(got.system_flag.as_deref(), flag, "{name}");
    }
}

const ALL: [&agent_context::Layout; 4] = [&CLAUDE, &CODEX, &GEMINI, &PLAIN_TEXT];

#[test]
fn agent_types() {
    assert_eq!(CLAUDE.agent_type, "claude-code");
    assert_eq!(CODEX.agent_type, "openai-codex");
    assert_eq!(GEMINI.agent_type, "google-gemini");
    assert_eq!(PLAIN_TEXT.agent_type, "unknown");
}

/// Everything an output says: the system flag (if any) and the prompt.
fn everything(out: &agent_context::AssemblerOutput) -> String {
    format!(
        "{}\n{}",
        out.system_flag.as_deref().unwrap_or(""),
        out.prompt
    )
}

fn full() -> AssemblerInput {
    input(
        &[
            ("kailai", Some("carol"), "first"),
            ("max", Some("carol"), "second"),
        ],
        "  the message \n",
        Some("\tthe team task "),
        Some(" the system "),
        Some("\nthe file\n"),
    )
}

#[test]
fn gemini_section_order_and_headers() {
    let p = GEMINI.assemble(&full()).unwrap().prompt;
    let order = [
        "Instructions:\n",
        "Team Task:\n",
        "Conversation so far:\n",
        "Your task:\n",
    ]
    .map(|h| {
        p.find(h)
            .unwrap_or_else(|| panic!("{h:?} missing in {p:?}"))
    });
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
    assert!(!p.contains('['), "no brackets: {p:?}");
    assert_eq!(
        p,
        "Instructions:\nthe system\n\nthe file\n\nTeam Task:\nthe team task\n\n\
         Conversation so far:\n- kailai: first\n- max: second\n\nYour task:\nthe message"
    );
}

#[test]
fn gemini_instructions_section() {
    let only_system = input(&[], "m", None, Some("sys"), None);
    assert_eq!(
        GEMINI.assemble(&only_system).unwrap().prompt,
        "Instructions:\nsys\n\nYour task:\nm"
    );
    let only_file = input(&[], "m", None, None, Some("file"));
    assert_eq!(
        GEMINI.assemble(&only_file).unwrap().prompt,
        "Instructions:\nfile\n\nYour task:\nm"
    );
    let whitespace = input(&[], "m", None, Some(" \n\t"), Some("\u{FEFF}\u{3000}"));
    assert_eq!(
        GEMINI.assemble(&whitespace).unwrap().prompt,
        "Your task:\nm"
    );
}

#[test]
fn gemini_context_lines_ignore_recipient_and_keep_content_verbatim() {
    let i = input(
        &[
            ("a", Some("b"), "line one\nline two  "),
            ("c", None, "[MESSAGE] *raw* <b>"),
        ],
        "",
        None,
        None,
        None,
    );
    assert_eq!(
        GEMINI.assemble(&i).unwrap().prompt,
        "Conversation so far:\n- a: line one\nline two  \n- c: [MESSAGE] *raw* <b>"
    );
}

#[test]
fn empty_sections_are_skipped() {
    for layout in ALL {
        let empty = input(&[], "   ", None, None, Some("\n"));
        let out = layout.assemble(&empty).unwrap();
        assert_eq!(out.prompt, "", "{}", layout.agent_type);
        assert_eq!(out.system_flag, None);
        let only_team = input(&[], "", Some("t"), None, None);
        assert_eq!(
            layout.assemble(&only_team).unwrap().prompt,
            format!("{}t", layout.team_header)
        );
        let only_context = input(&[("x", Some(""), "y")], "", None, None, None);
        assert_eq!(
            layout.assemble(&only_context).unwrap().prompt,
            format!("{}{}x: y", layout.context_header, layout.line_prefix)
        );
    }
}

#[test]
fn js_trim_rules_apply_to_the_four_scalars() {
    // U+FEFF is trimmed (JS), U+0085 is not (unlike Rust's trim).
    let i = input(&[], "\u{FEFF}msg\u{0085}", Some("\u{0085}team"), None, None);
    assert_eq!(
        PLAIN_TEXT.assemble(&i).unwrap().prompt,
        "\u{0085}team\n\nmsg\u{0085}"
    );
}

#[test]
fn plain_text_has_no_markers() {
    let p = PLAIN_TEXT.assemble(&full()).unwrap().prompt;
    assert_eq!(
        p,
        "the system\n\nthe file\n\nthe team task\n\nkailai: first\nmax: second\n\nthe message"
    );
}

#[test]
fn unknown_agent_falls_back_to_plain_text_with_the_exact_warning() {
    let i = full();
    let a = run("custom-agent", &i);
    assert_eq!(
        a.warning.as_deref(),
        Some("[ContextManager] Unknown agentType \"custom-agent\", using PlainTextAssembler")
    );
    assert_eq!(a.assembled.output, PLAIN_TEXT.assemble(&i).unwrap());
    assert_eq!(run("google-gemini", &i).warning, None);
    assert_eq!(resolve_layout("").0, &PLAIN_TEXT);
}

fn with_budget(mut i: AssemblerInput, max: u64) -> AssemblerInput {
    i.fields.max_bytes = max;
    i
}

#[test]
fn within_budget_is_unchanged() {
    for layout in ALL {
        let whole = layout.assemble(&full()).unwrap();
        let exact = with_budget(full(), whole.byte_len() as u64);
        assert_eq!(layout.assemble(&exact).unwrap(), whole);
    }
}

#[test]
fn oldest_context_messages_go_first_and_whole() {
    for layout in ALL {
        let whole = layout.assemble(&full()).unwrap();
        // One byte short: the oldest line (and its newline) goes, the rest stays.
        let i = with_budget(full(), whole.byte_len() as u64 - 1);
        let out = layout.assemble(&i).unwrap();
        let text = everything(&out);
        assert!(!text.contains("first"), "{text:?}");
        assert!(text.contains("second"));
        let recipient = if layout.line_shows_recipient {
            " -> carol"
        } else {
            ""
        };
        let oldest_line = format!("{}kailai{recipient}: first\n", layout.line_prefix);
        assert_eq!(
            out.byte_len(),
            whole.byte_len() - oldest_line.len(),
            "{}",
            layout.agent_type
        );
        assert!(
            text.contains("the system")
                && text.contains("the file")
                && text.contains("the team task")
        );
        assert!(out.prompt.ends_with("the message"));
    }
}

#[test]
fn bracketed_layouts_keep_section_order() {
    let codex = CODEX.assemble(&full()).unwrap().prompt;
    assert_eq!(
        codex,
        "[SYSTEM]\nthe system\n\nthe file\n\n[TEAM_TASK]\nthe team task\n\n\
         [CONTEXT]\n- kailai -> carol: first\n- max -> carol: second\n\n[MESSAGE]\nthe message"
    );
    let claude = CLAUDE.assemble(&full()).unwrap();
    assert_eq!(
        claude.system_flag.as_deref(),
        Some("the system\n\nthe file")
    );
    assert_eq!(claude.prompt, codex[codex.find("[TEAM_TASK]").unwrap()..]);
    // Claude with no instructions: systemFlag is undefined, not "".
    let bare = input(&[], "m", None, Some(" "), None);
    assert_eq!(CLAUDE.assemble(&bare).unwrap().system_flag, None);
}

#[test]
fn context_section_disappears_with_its_header_when_nothing_fits() {
    let i = with_budget(full(), 90);
    let out = GEMINI.assemble(&i).unwrap().prompt;
    assert_eq!(
        out,
        "Instructions:\nthe system\n\nthe file\n\nTeam Task:\nthe team task\n\nYour task:\nthe message"
    );
    assert!(out.len() <= 90);
}

#[test]
fn instructions_and_team_task_are_preserved_and_the_message_is_cut_last() {
    let long = "m".repeat(10_000);
    let mut i = input(
        &[("a", None, "context")],
        &long,
        Some("team"),
        Some("sys"),
        None,
    );
    i.fields.max_bytes = 5_000;
    let out = GEMINI.assemble(&i).unwrap().prompt;
    assert!(out.len() <= 5_000);
    assert!(
        out.starts_with("Instructions:\nsys\n\nTeam Task:\nteam\n\nYour task:\nmmm"),
        "{out:.80}"
    );
    assert!(out.contains("\n[... truncated "));
    assert!(!out.contains("context"));
}

#[test]
fn counts_messages_read_newest_first_and_stops() {
    use agent_context::{ContextSource, Result};
    use std::borrow::Cow;
    use std::cell::Cell;
    struct Counting {
        inner: Vec<ContextMessage>,
        reads: Cell<usize>,
    }
    impl ContextSource for Counting {
        fn count(&self) -> usize {
            self.inner.len()
        }
        fn message(&self, index: usize) -> Result<Cow<'_, ContextMessage>> {
            self.reads.set(self.reads.get() + 1);
            self.inner.message(index)
        }
    }
    let source = Counting {
        inner: (0..100_000)
            .map(|i| ContextMessage::new("u", None, &format!("message {i}")))
            .collect(),
        reads: Cell::new(0),
    };
    let mut fields = input(&[], "now", None, None, None).fields;
    fields.max_bytes = 1_000;
    let a = assemble_for_agent(
        "google-gemini",
        &fields,
        &source,
        AssembleOptions::default(),
    )
    .unwrap();
    let kept = a.assembled.report.messages_kept as usize;
    assert!(kept > 10 && kept < 100, "{kept}");
    assert_eq!(
        source.reads.get(),
        kept + 1,
        "reads only what fits, plus the first that does not"
    );
    assert!(a
        .assembled
        .output
        .prompt
        .ends_with("- u: message 99999\n\nYour task:\nnow"));
}
