//! Step 1 of the budget (which context messages to keep) decided from sizes
//! alone, so a caller that holds the strings need not hand them over.
//!
//! A JS string of `n` UTF-16 units is between `n` and `3n` bytes of UTF-8, so
//! the caller first gives those bounds; only when they cannot settle a
//! decision does the planner ask for exact sizes, and only of what it needs.
//! Messages come newest first and the planner asks for more only while they
//! fit, so the work follows the budget, not the history. Anything that needs
//! a cut (the message or the instruction file) is left to the full engine
//! ([`crate::prompt::budget::assemble`]), which makes the same decisions on text.

pub mod fast_path;

use std::num::NonZeroUsize;

use crate::prompt::budget::{line_size, Sizer};
use crate::prompt::cache_stable::messages_to_drop;
use crate::prompt::layout::Layout;

/// Bounds on a UTF-8 size; exact when `lo == hi`. A size is 0 only when the
/// text is empty, so `lo == 0` and `hi == 0` agree on emptiness.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Bounds {
    pub lo: u64,
    pub hi: u64,
}

impl Bounds {
    pub fn exact(size: u64) -> Bounds {
        Bounds { lo: size, hi: size }
    }
    /// For a JS string of `units` UTF-16 code units.
    pub fn of_utf16_len(units: u64) -> Bounds {
        Bounds {
            lo: units,
            hi: units * 3,
        }
    }
    pub fn is_exact(self) -> bool {
        self.lo == self.hi
    }
}

/// The trimmed scalar fields' sizes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScalarBounds {
    pub system: Bounds,
    pub file: Bounds,
    pub team: Bounds,
    pub message: Bounds,
}

/// One context message's parts' sizes (`to`: 0 when missing or empty).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MessageBounds {
    pub from: Bounds,
    pub to: Bounds,
    pub content: Bounds,
}

/// What the caller does next.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanStep {
    /// Keep the newest `kept` messages; nothing else is cut, and the output fits.
    Keep { kept: usize },
    /// Read more messages, up to `count` of the newest in all.
    More { count: usize },
    /// Give exact sizes: of the scalars when `scalars`, and of the newest `messages`.
    Exact { scalars: bool, messages: usize },
    /// A cut is needed, or nothing fits: run the full engine on the text.
    Engine,
}

/// The next step for `messages` (the newest of `total`, newest first) under
/// `budget`, dropping a multiple of `cache_block` messages when some must go
/// (as [`crate::prompt::budget::AssembleOptions::cache_block`]).
pub fn plan_context(
    layout: &Layout,
    budget: u64,
    s: &ScalarBounds,
    messages: &[MessageBounds],
    total: usize,
    cache_block: Option<NonZeroUsize>,
) -> PlanStep {
    let total = total.max(messages.len());
    match plan_minimum(layout, budget, s, messages, total > messages.len()) {
        PlanStep::Keep { kept } => PlanStep::Keep {
            kept: total - messages_to_drop(total - kept, total, cache_block),
        },
        step => step,
    }
}

/// [`plan_context`] dropping as few messages as possible (`more`: older
/// messages exist that were not given).
fn plan_minimum(
    layout: &Layout,
    budget: u64,
    s: &ScalarBounds,
    messages: &[MessageBounds],
    more: bool,
) -> PlanStep {
    let lo = Sizer {
        layout,
        system: s.system.lo,
        team: s.team.lo,
    };
    let hi = Sizer {
        layout,
        system: s.system.hi,
        team: s.team.hi,
    };
    let scalars_exact = [s.system, s.file, s.team, s.message]
        .iter()
        .all(|b| b.is_exact());
    if lo.total(None, s.message.lo, s.file.lo) > budget {
        return PlanStep::Engine;
    }
    if hi.total(None, s.message.hi, s.file.hi) > budget {
        return if scalars_exact {
            PlanStep::Engine
        } else {
            PlanStep::Exact {
                scalars: true,
                messages: 0,
            }
        };
    }
    let (mut lines_lo, mut lines_hi) = (0u64, 0u64);
    for (i, m) in messages.iter().enumerate() {
        let line_lo = line_size(layout, m.from.lo, m.to.lo, m.content.lo);
        let line_hi = line_size(layout, m.from.hi, m.to.hi, m.content.hi);
        let (next_lo, next_hi) = if i == 0 {
            (line_lo, line_hi)
        } else {
            (lines_lo + 1 + line_lo, lines_hi + 1 + line_hi)
        };
        if hi.total(Some(next_hi), s.message.hi, s.file.hi) <= budget {
            lines_lo = next_lo;
            lines_hi = next_hi;
            continue;
        }
        if lo.total(Some(next_lo), s.message.lo, s.file.lo) > budget {
            return PlanStep::Keep { kept: i };
        }
        // Undecided: ask for exact sizes of everything so far and some ahead.
        return PlanStep::Exact {
            scalars: !scalars_exact,
            messages: (2 * (i + 1)).min(messages.len()),
        };
    }
    if more {
        PlanStep::More {
            count: (2 * messages.len()).max(64),
        }
    } else {
        PlanStep::Keep {
            kept: messages.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agents::{CLAUDE, GEMINI};
    use crate::prompt::budget::{assemble, AssembleOptions};
    use crate::prompt::input::{ContextMessage, PromptFields};

    fn exact_scalars(f: &PromptFields) -> ScalarBounds {
        let b = |t: &str| Bounds::exact(crate::prompt::text::js_trim(t).len() as u64);
        ScalarBounds {
            system: b(&f.system_instruction),
            file: b(&f.instruction_file_text),
            team: b(&f.team_task),
            message: b(&f.current_message),
        }
    }

    fn exact(m: &ContextMessage) -> MessageBounds {
        MessageBounds {
            from: Bounds::exact(m.from.len() as u64),
            to: Bounds::exact(m.to.as_ref().map_or(0, |t| t.len() as u64)),
            content: Bounds::exact(m.content.len() as u64),
        }
    }

    fn utf16(s: &str) -> Bounds {
        Bounds::of_utf16_len(s.encode_utf16().count() as u64)
    }

    fn bounded(m: &ContextMessage) -> MessageBounds {
        MessageBounds {
            from: utf16(&m.from),
            to: m.to.as_deref().map_or(Bounds::default(), utf16),
            content: utf16(&m.content),
        }
    }

    /// Drives the planner as the JS side does and compares with the engine.
    fn drive(
        layout: &Layout,
        fields: &PromptFields,
        history: &[ContextMessage],
        cache_block: Option<NonZeroUsize>,
    ) -> Option<usize> {
        let newest_first: Vec<&ContextMessage> = history.iter().rev().collect();
        let mut scalars = ScalarBounds {
            system: utf16(crate::prompt::text::js_trim(&fields.system_instruction)),
            file: utf16(crate::prompt::text::js_trim(&fields.instruction_file_text)),
            team: utf16(crate::prompt::text::js_trim(&fields.team_task)),
            message: utf16(crate::prompt::text::js_trim(&fields.current_message)),
        };
        let mut read: Vec<MessageBounds> =
            newest_first.iter().take(8).map(|m| bounded(m)).collect();
        for _ in 0..100 {
            match plan_context(
                layout,
                fields.max_bytes,
                &scalars,
                &read,
                history.len(),
                cache_block,
            ) {
                PlanStep::Keep { kept } => return Some(kept),
                PlanStep::Engine => return None,
                PlanStep::More { count } => {
                    let have = read.len();
                    read.extend(
                        newest_first
                            .iter()
                            .skip(have)
                            .take(count - have)
                            .map(|m| bounded(m)),
                    );
                }
                PlanStep::Exact {
                    scalars: s,
                    messages,
                } => {
                    if s {
                        scalars = exact_scalars(fields);
                    }
                    for (slot, m) in read.iter_mut().zip(&newest_first).take(messages) {
                        *slot = exact(m);
                    }
                }
            }
        }
        panic!("the planner did not settle");
    }

    #[test]
    fn agrees_with_the_engine_at_every_budget() {
        let history: Vec<ContextMessage> = (0..30)
            .map(|i| {
                ContextMessage::new(
                    ["ann", "李雷", "zoë"][i % 3],
                    (i % 4 != 0).then_some("bob"),
                    &"é🎉x ".repeat(i % 7 + 1),
                )
            })
            .collect();
        for layout in [&CLAUDE, &GEMINI] {
            let mut fields = PromptFields {
                current_message: " now ".into(),
                team_task: "team".into(),
                system_instruction: "sys".into(),
                instruction_file_text: "file".into(),
                max_bytes: u64::MAX >> 12,
            };
            let whole = assemble(layout, &fields, &history, AssembleOptions::default()).unwrap();
            for (budget, block) in (0..whole.output.byte_len() as u64 + 5)
                .flat_map(|b| [None, NonZeroUsize::new(4), NonZeroUsize::new(16)].map(|k| (b, k)))
            {
                fields.max_bytes = budget;
                let options = AssembleOptions {
                    cache_block: block,
                    ..AssembleOptions::default()
                };
                let engine = assemble(layout, &fields, &history, options);
                match drive(layout, &fields, &history, block) {
                    Some(kept) => {
                        let engine = engine.unwrap();
                        assert_eq!(kept as u64, engine.report.messages_kept, "budget {budget}");
                        assert!(
                            !engine.report.trimmed() || engine.report.message_bytes_removed == 0
                        );
                    }
                    // The engine path: something must be cut, or it fails.
                    None => assert!(
                        engine.map_or(true, |a| a.report.message_bytes_removed > 0
                            || a.report.instruction_file_bytes_removed > 0),
                        "budget {budget}"
                    ),
                }
            }
        }
    }

    #[test]
    fn reads_only_what_the_budget_can_hold() {
        let history: Vec<ContextMessage> = (0..100_000)
            .map(|_| ContextMessage::new("u", None, "0123456789"))
            .collect();
        let fields = PromptFields {
            current_message: "m".into(),
            max_bytes: 2_000,
            ..PromptFields::default()
        };
        // Bounds alone settle nothing here; count what the JS side would read.
        assert_eq!(
            drive(&GEMINI, &fields, &history, None),
            Some(
                assemble(&GEMINI, &fields, &history, AssembleOptions::default())
                    .unwrap()
                    .report
                    .messages_kept as usize
            )
        );
        let step = plan_context(
            &GEMINI,
            2_000,
            &exact_scalars(&fields),
            &history[..64].iter().map(exact).collect::<Vec<_>>(),
            history.len(),
            None,
        );
        assert_eq!(step, PlanStep::More { count: 128 });
    }
}
