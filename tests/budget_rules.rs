//! SPEC §3, step by step, for every layout.
#![cfg(not(target_arch = "wasm32"))]

mod common;

use agent_context::agents::{CLAUDE, CODEX, GEMINI};
use agent_context::prompt::budget::{assemble, MESSAGE_MIN_KEEP};
use agent_context::prompt::layout::PLAIN_TEXT;
use agent_context::{AssembleOptions, Assembled, AssemblerInput, ErrorCode, Layout};
use common::input;

const LAYOUTS: [&Layout; 4] = [&CLAUDE, &CODEX, &GEMINI, &PLAIN_TEXT];
const MEASURE: AssembleOptions = AssembleOptions {
    measure_dropped: true,
    cache_block: None,
};

fn run(layout: &Layout, i: &AssemblerInput) -> agent_context::Result<Assembled> {
    assemble(layout, &i.fields, &i.context_messages, MEASURE)
}

fn budget(mut i: AssemblerInput, max: u64) -> AssemblerInput {
    i.fields.max_bytes = max;
    i
}

/// `(head, removed, tail)` of a text cut around the marker.
fn split_marker(text: &str) -> (&str, u64, &str) {
    let open = text.find("\n[... truncated ").expect("marker");
    let rest = &text[open + "\n[... truncated ".len()..];
    let digits = rest.find(" bytes ...]\n").unwrap();
    let tail = &rest[digits + " bytes ...]\n".len()..];
    (&text[..open], rest[..digits].parse().unwrap(), tail)
}

fn assert_report_adds_up(a: &Assembled) {
    let r = &a.report;
    assert_eq!(r.bytes_after, a.output.byte_len() as u64);
    assert_eq!(
        r.bytes_before - r.bytes_after,
        r.context_bytes_cut + r.message_bytes_cut + r.instruction_file_bytes_cut,
        "{r:?}"
    );
    assert_eq!(r.messages_kept + r.messages_dropped, r.messages_total);
}

#[test]
fn claude_counts_prompt_and_system_flag_together() {
    let i = input(
        &[("a", Some("b"), "old"), ("c", Some("d"), "new")],
        "msg",
        None,
        Some("sys"),
        None,
    );
    let whole = run(&CLAUDE, &i).unwrap();
    assert_eq!(whole.output.system_flag.as_deref(), Some("sys"));
    let total = whole.output.byte_len() as u64;
    assert_eq!(total, whole.output.prompt.len() as u64 + 3);
    let trimmed = run(&CLAUDE, &budget(i, total - 1)).unwrap();
    assert_eq!(
        trimmed.output.prompt,
        "[CONTEXT]\n- c -> d: new\n\n[MESSAGE]\nmsg"
    );
    assert_eq!(trimmed.output.system_flag.as_deref(), Some("sys"));
    assert_eq!(trimmed.report.messages_dropped, 1);
    assert_report_adds_up(&trimmed);
}

#[test]
fn message_is_cut_to_head_and_tail_after_all_context_is_gone() {
    let message: String = (0..4000)
        .map(|i| char::from(b'a' + (i % 26) as u8))
        .collect();
    for layout in LAYOUTS {
        let i = input(
            &[("x", None, "context")],
            &message,
            Some("team"),
            Some("sys"),
            None,
        );
        let a = run(layout, &budget(i, 3000)).unwrap();
        assert!(a.output.byte_len() <= 3000);
        assert!(
            !a.output.prompt.contains("context"),
            "{}",
            layout.agent_type
        );
        let body = &a.output.prompt[a.output.prompt.find("abcdefghij").unwrap()..];
        let (head, removed, tail) = split_marker(body);
        assert!(message.starts_with(head) && message.ends_with(tail));
        assert_eq!(
            head.len() as u64 + removed + tail.len() as u64,
            message.len() as u64
        );
        assert!(head.len() + tail.len() >= MESSAGE_MIN_KEEP);
        assert!(
            head.len().abs_diff(tail.len()) <= 1,
            "head and tail share what is kept"
        );
        assert_eq!(a.report.message_bytes_removed, removed);
        assert_report_adds_up(&a);
        assert_eq!(a.decisions.len(), 2, "{:?}", a.decisions);
        assert!(a.decisions[0].starts_with("CONTEXT trimmed to 0 messages"));
        assert!(a.decisions[1].starts_with("MESSAGE truncated from 4000 to"));
    }
}

#[test]
fn message_is_never_cut_below_2048_bytes_then_the_instruction_file_goes() {
    let message = "m".repeat(5000);
    let file = "f".repeat(5000);
    for layout in LAYOUTS {
        let i = input(&[], &message, None, Some("SYS"), Some(&file));
        let a = run(layout, &budget(i, 4000)).unwrap();
        let out = &a.output;
        assert!(out.byte_len() <= 4000);
        let (_, removed, _) = split_marker(&out.prompt[out.prompt.rfind("mmm").unwrap() - 1100..]);
        assert_eq!(
            5000 - removed,
            MESSAGE_MIN_KEEP as u64,
            "{}",
            layout.agent_type
        );
        // The file keeps head + tail with its own marker; SYS is whole.
        let instructions = out
            .system_flag
            .clone()
            .unwrap_or_else(|| out.prompt.clone());
        assert!(instructions.contains("SYS\n\nfff"));
        assert!(
            a.report.instruction_file_bytes_removed > 0
                && a.report.instruction_file_bytes_removed < 5000
        );
        assert_report_adds_up(&a);
        assert!(a
            .decisions
            .last()
            .unwrap()
            .starts_with("INSTRUCTION FILE truncated from 5000 to"));
    }
}

#[test]
fn the_instruction_file_goes_down_to_nothing() {
    let message = "m".repeat(3000);
    for layout in LAYOUTS {
        let i = input(&[], &message, Some("T"), Some("SYS"), Some("file text"));
        // The least that can be sent: system + team + the 2048-byte message minimum.
        let err = run(layout, &budget(i.clone(), 0)).unwrap_err();
        let min: u64 = err
            .message()
            .split("at least ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        let a = run(layout, &budget(i.clone(), min)).unwrap();
        assert_eq!(a.output.byte_len() as u64, min, "{}", layout.agent_type);
        assert_eq!(
            a.report.message_bytes_removed,
            3000 - MESSAGE_MIN_KEEP as u64
        );
        let instructions = a
            .output
            .system_flag
            .clone()
            .unwrap_or_else(|| a.output.prompt.clone());
        assert!(
            !instructions.contains("file") && instructions.contains("SYS"),
            "{instructions:?}"
        );
        assert_eq!(a.report.instruction_file_bytes_removed, 9);
        assert!(a
            .decisions
            .last()
            .unwrap()
            .starts_with("INSTRUCTION FILE dropped"));
        assert_report_adds_up(&a);
        // One byte less: BUDGET_EXCEEDED naming the minimum and the budget.
        let err = run(layout, &budget(i, min - 1)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::BudgetExceeded);
        assert!(
            err.message().starts_with(&format!(
                "maxBytes is {} but the output needs at least {min} bytes",
                min - 1
            )),
            "{err}"
        );
    }
}

#[test]
fn the_instruction_file_keeps_what_fits_around_its_marker() {
    let i = input(&[], "hi", None, None, Some(&"f".repeat(100)));
    let at = |max: u64| run(&PLAIN_TEXT, &budget(i.clone(), max)).unwrap();
    // 1 byte kept + a 30-byte marker (2 digits) + "\n\n" + "hi" = 35.
    assert_eq!(
        at(36).output.prompt,
        "f\n[... truncated 98 bytes ...]\nf\n\nhi"
    );
    assert_eq!(
        at(35).output.prompt,
        "f\n[... truncated 99 bytes ...]\n\n\nhi"
    );
    // A bare marker for all 100 bytes would need 31: at 34 the text goes whole.
    let dropped = at(34);
    assert_eq!(dropped.output.prompt, "hi");
    assert_eq!(dropped.report.instruction_file_bytes_removed, 100);
    for max in [34, 35, 36] {
        assert_report_adds_up(&at(max));
    }
}

#[test]
fn short_messages_are_never_cut() {
    let message = "q".repeat(2048);
    for layout in LAYOUTS {
        let i = input(&[], &message, Some("team"), None, None);
        let err = run(layout, &budget(i, 2000)).unwrap_err();
        assert_eq!(
            err.code(),
            ErrorCode::BudgetExceeded,
            "{}",
            layout.agent_type
        );
    }
    // A message only just over 2048 bytes is not "cut" into something longer.
    let i = input(&[], &"q".repeat(2060), None, None, None);
    let err = run(&PLAIN_TEXT, &budget(i, 2059)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::BudgetExceeded);
    assert!(err.message().contains("at least 2060 bytes"), "{err}");
}

#[test]
fn system_instruction_and_team_task_are_never_cut() {
    for layout in LAYOUTS {
        let i = input(
            &[],
            "m",
            Some(&"t".repeat(500)),
            Some(&"s".repeat(500)),
            None,
        );
        let err = run(layout, &budget(i, 900)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::BudgetExceeded);
    }
}

#[test]
fn cuts_fall_on_character_boundaries() {
    let message = "日本語のテキスト🎉".repeat(400);
    for max in [2200u64, 2500, 3001, 3333] {
        for layout in LAYOUTS {
            let i = input(&[], &message, None, None, Some(&"é🎉".repeat(500)));
            let a = run(layout, &budget(i, max)).unwrap();
            assert!(a.output.byte_len() as u64 <= max);
            let body = &a.output.prompt[a.output.prompt.find("日本語").unwrap()..];
            let (head, _, tail) = split_marker(body);
            assert!(message.starts_with(head) && message.ends_with(tail));
            assert_report_adds_up(&a);
        }
    }
}

#[test]
fn report_without_trimming_and_without_measuring() {
    let i = input(
        &[("a", None, "one"), ("b", None, "two")],
        "m",
        None,
        None,
        None,
    );
    let a = run(&GEMINI, &i).unwrap();
    assert!(!a.report.trimmed());
    assert!(a.decisions.is_empty());
    assert_eq!(a.report.bytes_before, a.report.bytes_after);
    // Without measure_dropped the dropped lines are not read; the rest is exact.
    // "Conversation so far:\n- b: two\n\nYour task:\nm" is 43 bytes; both lines need 52.
    let small = budget(i, 50);
    let quick = assemble(
        &GEMINI,
        &small.fields,
        &small.context_messages,
        AssembleOptions::default(),
    )
    .unwrap();
    let full = run(&GEMINI, &small).unwrap();
    assert_eq!(quick.output, full.output);
    assert_eq!(quick.report.messages_dropped, 1);
    assert_eq!(
        (quick.report.bytes_before, quick.report.context_bytes_cut),
        (0, 0)
    );
    assert_eq!(full.report.bytes_before, a.report.bytes_after);
    assert_report_adds_up(&full);
}
