//! Properties of cache-stable trimming (SPEC §14) over random inputs, for
//! every layout: the budget holds, at most `cacheBlock - 1` messages go
//! beyond the minimum, the same input gives the same output, and the output
//! is the default one for the history without the extra oldest messages.
#![cfg(not(target_arch = "wasm32"))]

use std::num::NonZeroUsize;

use agent_context::agents::{CLAUDE, CODEX, GEMINI};
use agent_context::prompt::budget::assemble;
use agent_context::prompt::layout::PLAIN_TEXT;
use agent_context::{AssembleOptions, ContextMessage, ErrorCode, Layout, PromptFields};
use proptest::prelude::*;

const LAYOUTS: [&Layout; 4] = [&CLAUDE, &CODEX, &GEMINI, &PLAIN_TEXT];

fn text(max_len: usize) -> impl Strategy<Value = String> {
    let pieces = prop::sample::select(vec![
        "a", "word ", "é", "日本", "🎉", "\n", " ", "\t", "\u{FEFF}", "[SYSTEM]", "x: y", "",
    ]);
    prop::collection::vec(pieces, 0..max_len).prop_map(|v| v.concat())
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
    block: NonZeroUsize,
}

fn case() -> impl Strategy<Value = Case> {
    (
        0..LAYOUTS.len(),
        prop_oneof![3 => text(20), 1 => text(1500)],
        text(10),
        text(10),
        prop_oneof![3 => text(20), 1 => text(1500)],
        prop::collection::vec(message(), 0..120),
        0u64..8000,
        prop_oneof![1..=40usize, Just(16), Just(1), Just(1000)],
    )
        .prop_map(
            |(layout, current, team, system, file, messages, max, block)| Case {
                layout,
                fields: PromptFields {
                    current_message: current,
                    team_task: team,
                    system_instruction: system,
                    instruction_file_text: file,
                    max_bytes: max,
                },
                messages,
                block: NonZeroUsize::new(block).unwrap(),
            },
        )
}

fn options(cache_block: Option<NonZeroUsize>) -> AssembleOptions {
    AssembleOptions {
        measure_dropped: true,
        cache_block,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn cache_stable_trimming(c in case()) {
        let layout = LAYOUTS[c.layout];
        let stable = assemble(layout, &c.fields, &c.messages, options(Some(c.block)));
        let minimal = assemble(layout, &c.fields, &c.messages, options(None));
        // Same input, same output (nothing kept between calls).
        prop_assert_eq!(&stable, &assemble(layout, &c.fields, &c.messages, options(Some(c.block))));
        let (stable, minimal) = match (stable, minimal) {
            (Err(a), Err(b)) => {
                // It fails exactly when the default fails, with the same error.
                prop_assert_eq!(a.code(), ErrorCode::BudgetExceeded);
                prop_assert_eq!(a, b);
                return Ok(());
            }
            (Ok(a), Ok(b)) => (a, b),
            (a, b) => {
                prop_assert!(false, "cacheStable {:?} but default {:?}", a.map(|_| ()), b.map(|_| ()));
                unreachable!()
            }
        };
        let r = &stable.report;
        let total = c.messages.len() as u64;
        // Within budget, and the report adds up.
        prop_assert!(stable.output.byte_len() as u64 <= c.fields.max_bytes);
        prop_assert_eq!(r.bytes_after, stable.output.byte_len() as u64);
        prop_assert_eq!(r.bytes_before - r.bytes_after,
            r.context_bytes_cut + r.message_bytes_cut + r.instruction_file_bytes_cut);
        prop_assert_eq!(r.messages_kept + r.messages_dropped, total);
        prop_assert_eq!(r.bytes_before, minimal.report.bytes_before);
        // The minimum plus fewer than a block; a multiple of the block, or everything.
        let minimum = minimal.report.messages_dropped;
        prop_assert_eq!(minimal.report.messages_dropped_for_cache, 0);
        prop_assert_eq!(r.messages_dropped, minimum + r.messages_dropped_for_cache);
        prop_assert!(r.messages_dropped_for_cache < c.block.get() as u64);
        if minimum == 0 {
            prop_assert_eq!(r.messages_dropped, 0);
        } else {
            prop_assert!(r.messages_dropped % c.block.get() as u64 == 0 || r.messages_dropped == total,
                "dropped {} of {} with block {}", r.messages_dropped, total, c.block);
        }
        // Nothing else changes: the output is the default one for the
        // history without the extra oldest messages (which need no cut).
        let rest = &c.messages[r.messages_dropped as usize..];
        let expected = assemble(layout, &c.fields, &rest.to_vec(), options(None)).unwrap();
        prop_assert_eq!(&stable.output, &expected.output);
        prop_assert_eq!(expected.report.messages_dropped, 0);
        if r.messages_dropped_for_cache > 0 {
            prop_assert_eq!(r.message_bytes_removed, 0);
            prop_assert_eq!(r.instruction_file_bytes_removed, 0);
        } else {
            prop_assert_eq!(&stable.output, &minimal.output);
            prop_assert_eq!(&stable.report, &minimal.report);
        }
    }

    /// A conversation growing one message per call: while the number
    /// dropped stays the same, each prompt starts with the previous one up to
    /// the end of its context section.
    #[test]
    fn consecutive_calls_share_their_prefix(c in case()) {
        let layout = LAYOUTS[c.layout];
        let mut fields = c.fields.clone();
        fields.current_message = String::new(); // the context section ends the prompt
        let mut previous: Option<(u64, String)> = None;
        for n in 0..=c.messages.len() {
            let Ok(a) = assemble(layout, &fields, &c.messages[..n].to_vec(), options(Some(c.block))) else {
                previous = None;
                continue;
            };
            if let Some((dropped, prompt)) = &previous {
                if *dropped == a.report.messages_dropped && a.report.messages_kept > 1 {
                    prop_assert!(a.output.prompt.starts_with(prompt.as_str()),
                        "{:?} is not a prefix of {:?}", prompt, a.output.prompt);
                }
            }
            previous = Some((a.report.messages_dropped, a.output.prompt));
        }
    }
}
