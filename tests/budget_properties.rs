//! Properties of the byte budget over random inputs (SPEC §3), for every layout.
#![cfg(not(target_arch = "wasm32"))]

use agent_context::agents::{CLAUDE, CODEX, GEMINI};
use agent_context::prompt::budget::{assemble, MESSAGE_MIN_KEEP};
use agent_context::prompt::layout::{InstructionPlacement, PLAIN_TEXT};
use agent_context::prompt::text::js_trim;
use agent_context::{AssembleOptions, ContextMessage, ErrorCode, Layout, PromptFields};
use proptest::prelude::*;

const LAYOUTS: [&Layout; 4] = [&CLAUDE, &CODEX, &GEMINI, &PLAIN_TEXT];

/// Text with ASCII, accents, CJK, emoji, newlines and JS whitespace.
fn text(max_len: usize) -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "word ", "é", "日本", "🎉", "\n", " ", "\t", "\u{FEFF}", "\u{0085}", "[SYSTEM]",
        "x: y", "",
    ]);
    prop::collection::vec(pieces, 0..max_len).prop_map(|v| v.concat())
}

/// Mostly short, sometimes long enough to need cutting.
fn long_text() -> impl Strategy<Value = String> {
    prop_oneof![3 => text(20), 1 => (text(5), 500usize..3000).prop_map(|(t, n)| t.repeat(n / t.len().max(1) + 1))]
}

fn message() -> impl Strategy<Value = ContextMessage> {
    (text(4), prop::option::of(text(3)), text(30)).prop_map(|(from, to, content)| ContextMessage {
        from,
        to,
        content,
    })
}

#[derive(Debug, Clone)]
struct Case {
    layout: usize,
    fields: PromptFields,
    messages: Vec<ContextMessage>,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..LAYOUTS.len(),
        long_text(),
        text(10),
        text(10),
        long_text(),
        prop::collection::vec(message(), 0..25),
        0u64..6000,
    )
        .prop_map(
            |(layout, current, team, system, file, messages, max)| Case {
                layout,
                fields: PromptFields {
                    current_message: current,
                    team_task: team,
                    system_instruction: system,
                    instruction_file_text: file,
                    max_bytes: max,
                },
                messages,
            },
        )
}

fn line(layout: &Layout, m: &ContextMessage) -> String {
    let to = match &m.to {
        Some(to) if layout.line_shows_recipient && !to.is_empty() => format!(" -> {to}"),
        _ => String::new(),
    };
    format!("{}{}{}: {}", layout.line_prefix, m.from, to, m.content)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn budget_invariants(c in case()) {
        let layout = LAYOUTS[c.layout];
        let result = assemble(layout, &c.fields, &c.messages, AssembleOptions { measure_dropped: true, cache_block: None });
        let a = match result {
            Err(e) => {
                // Only the budget may fail these inputs, and it names a minimum above it.
                prop_assert_eq!(e.code(), ErrorCode::BudgetExceeded);
                let needed: u64 = e.message().split("at least ").nth(1).unwrap()
                    .split(' ').next().unwrap().parse().unwrap();
                prop_assert!(needed > c.fields.max_bytes);
                return Ok(());
            }
            Ok(a) => a,
        };
        let out = &a.output;
        let r = &a.report;
        // 1. It fits.
        prop_assert!(out.byte_len() as u64 <= c.fields.max_bytes);
        prop_assert_eq!(r.bytes_after, out.byte_len() as u64);
        // 2. The report adds up to the bytes actually removed.
        prop_assert_eq!(r.bytes_before - r.bytes_after,
            r.context_bytes_cut + r.message_bytes_cut + r.instruction_file_bytes_cut);
        prop_assert_eq!(r.messages_kept + r.messages_dropped, c.messages.len() as u64);
        // 3. systemInstruction and teamTask come out unaltered, in order.
        let system = js_trim(&c.fields.system_instruction);
        let team = js_trim(&c.fields.team_task);
        let instructions = match layout.instructions {
            InstructionPlacement::SystemFlag => out.system_flag.clone().unwrap_or_default(),
            InstructionPlacement::Inline { header } => {
                prop_assert!(out.system_flag.is_none());
                if system.is_empty() && !out.prompt.starts_with(header) { String::new() }
                else { out.prompt[header.len()..].to_owned() }
            }
        };
        prop_assert!(instructions.starts_with(system), "{:?} / {:?}", instructions, system);
        let team_section = format!("{}{}", layout.team_header, team);
        let team_at = if team.is_empty() { None } else { out.prompt.find(&team_section) };
        prop_assert_eq!(team_at.is_some(), !team.is_empty());
        // 4. The kept messages are exactly the newest ones, whole and in order.
        let kept = r.messages_kept as usize;
        let expected: Vec<String> = c.messages[c.messages.len() - kept..].iter().map(|m| line(layout, m)).collect();
        // Sections are found by position, not by searching their text (without
        // headings, a short text can also stand inside an earlier section):
        // the message section is last, the context right before it, the team
        // task right before that.
        let message = js_trim(&c.fields.current_message);
        let body_start = if message.is_empty() {
            out.prompt.len()
        } else {
            out.prompt.len() - (message.len() - r.message_bytes_removed as usize)
                - if r.message_bytes_removed > 0 {
                    28 + r.message_bytes_removed.to_string().len()
                } else { 0 }
        };
        let before_message = if message.is_empty() {
            out.prompt.len()
        } else {
            (body_start - layout.message_header.len()).saturating_sub(2)
        };
        let mut before_context = before_message;
        if kept > 0 {
            let block = format!("{}{}", layout.context_header, expected.join("\n"));
            prop_assert!(out.prompt[..before_message].ends_with(&block), "context block missing or misplaced");
            before_context = (before_message - block.len()).saturating_sub(2);
        }
        // Section order: the team task right before the context (or the message).
        if !team.is_empty() {
            prop_assert!(out.prompt[..before_context].ends_with(&team_section), "team task misplaced");
        }
        // 5. The message is whole, or head + marker + tail of it with at least
        //    min(2048, size) bytes kept; cuts are on char boundaries (Rust
        //    strings cannot hold a split character; head/tail must be the
        //    original's prefix/suffix).
        if !message.is_empty() {
            let body = &out.prompt[body_start..];
            prop_assert!(out.prompt[..body_start].ends_with(layout.message_header));
            if r.message_bytes_removed == 0 {
                prop_assert_eq!(body, message);
            } else {
                let marker = format!("\n[... truncated {} bytes ...]\n", r.message_bytes_removed);
                let at = body.find(&marker).unwrap();
                prop_assert!(message.starts_with(&body[..at]));
                prop_assert!(message.ends_with(&body[at + marker.len()..]));
                prop_assert!(message.len() - r.message_bytes_removed as usize >= MESSAGE_MIN_KEEP.min(message.len()));
                // The message is cut only once all context is gone.
                prop_assert_eq!(kept, 0);
            }
        }
        // 6. The instruction file is cut only once the message is at its minimum.
        if r.instruction_file_bytes_removed > 0 {
            prop_assert_eq!(kept, 0);
            if message.len() > MESSAGE_MIN_KEEP + 40 {
                prop_assert!(r.message_bytes_removed > 0);
            }
        }
    }

    #[test]
    fn a_budget_that_holds_everything_changes_nothing(c in case()) {
        let layout = LAYOUTS[c.layout];
        let mut roomy = c.fields.clone();
        roomy.max_bytes = u64::MAX >> 11;
        let whole = assemble(layout, &roomy, &c.messages, AssembleOptions::default()).unwrap();
        prop_assert!(!whole.report.trimmed());
        let mut exact = c.fields.clone();
        exact.max_bytes = whole.output.byte_len() as u64;
        let same = assemble(layout, &exact, &c.messages, AssembleOptions::default()).unwrap();
        prop_assert_eq!(same.output, whole.output);
    }
}
