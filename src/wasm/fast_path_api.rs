//! The planner behind the JS fast path of `assemble` (`js/fast-path.js`):
//! the JS side sends sizes, never the strings, and builds the prompt from the
//! caller's own strings with the layout's literals. Internal: `__`-prefixed
//! and left out of the TypeScript declarations.

use js_sys::Array;
use wasm_bindgen::prelude::*;

use crate::assemblers::{resolve_layout, InstructionPlacement, Layout, BUILT_IN, PLAIN_TEXT};
use crate::size_plan::{plan_context, Bounds, MessageBounds, PlanStep, ScalarBounds};

/// Layout ids: the built-in layouts in order, then plain text.
fn layout_by_id(id: u32) -> &'static Layout {
    BUILT_IN.get(id as usize).copied().unwrap_or(&PLAIN_TEXT)
}

/// `[layoutId, warning | null, instructionsInFlag, instructionsHeader,
/// teamHeader, contextHeader, linePrefix, lineShowsRecipient, messageHeader]`.
#[wasm_bindgen(js_name = __layoutInfo, skip_typescript)]
pub fn layout_info(agent_type: &str) -> Array {
    let (layout, warning) = resolve_layout(agent_type);
    let id = BUILT_IN
        .iter()
        .position(|l| std::ptr::eq(*l, layout))
        .unwrap_or(BUILT_IN.len());
    let (in_flag, header) = match layout.instructions {
        InstructionPlacement::SystemFlag => (true, ""),
        InstructionPlacement::Inline { header } => (false, header),
    };
    [
        JsValue::from(id as u32),
        warning.map_or(JsValue::NULL, |w| JsValue::from_str(&w)),
        JsValue::from_bool(in_flag),
        JsValue::from_str(header),
        JsValue::from_str(layout.team_header),
        JsValue::from_str(layout.context_header),
        JsValue::from_str(layout.line_prefix),
        JsValue::from_bool(layout.line_shows_recipient),
        JsValue::from_str(layout.message_header),
    ]
    .into_iter()
    .collect()
}

fn bounds(pair: &[f64]) -> Bounds {
    // Sizes come from JS lengths: whole, non-negative and below 2^53.
    Bounds {
        lo: pair[0] as u64,
        hi: pair[1] as u64,
    }
}

/// `sizes`: `[lo, hi]` of system, file, team and message, then `[lo, hi]` of
/// from, to and content for each message read, newest first. Returns
/// `[0, kept]`, `[1, count]` (read more), `[2, scalars, messages]` (exact
/// sizes wanted) or `[3]` (run the full engine).
#[wasm_bindgen(js_name = __planContext, skip_typescript)]
pub fn plan(layout_id: u32, budget: f64, sizes: &[f64], more: bool) -> Vec<f64> {
    if sizes.len() < 8 || (sizes.len() - 8) % 6 != 0 {
        return vec![3.0];
    }
    let scalars = ScalarBounds {
        system: bounds(&sizes[0..2]),
        file: bounds(&sizes[2..4]),
        team: bounds(&sizes[4..6]),
        message: bounds(&sizes[6..8]),
    };
    let messages: Vec<MessageBounds> = sizes[8..]
        .chunks_exact(6)
        .map(|m| MessageBounds {
            from: bounds(&m[0..2]),
            to: bounds(&m[2..4]),
            content: bounds(&m[4..6]),
        })
        .collect();
    match plan_context(
        layout_by_id(layout_id),
        budget as u64,
        &scalars,
        &messages,
        more,
    ) {
        PlanStep::Keep { kept } => vec![0.0, kept as f64],
        PlanStep::More { count } => vec![1.0, count as f64],
        PlanStep::Exact { scalars, messages } => {
            vec![2.0, f64::from(u8::from(scalars)), messages as f64]
        }
        PlanStep::Engine => vec![3.0],
    }
}

/// The builder's fast path: `codes` holds each message's role (0 user,
/// 1 assistant, 2 system, 3 tool) plus 4 when `includeInContext === false`;
/// `max_messages` is negative when not given. Returns `[filteredCount,
/// trimmedCount or 2^32 - 1, ...indices of the messages that go out]`.
#[wasm_bindgen(js_name = __planMessages, skip_typescript)]
pub fn plan_messages(codes: &[u8], max_messages: f64) -> Vec<u32> {
    use crate::context_builder::{select_messages, Role};
    let flags: Vec<(Role, bool)> = codes
        .iter()
        .map(|c| {
            let role = match c & 3 {
                0 => Role::User,
                1 => Role::Assistant,
                2 => Role::System,
                _ => Role::Tool,
            };
            (role, c & 4 == 0)
        })
        .collect();
    let max = (max_messages >= 0.0).then_some(max_messages as usize);
    let selection = select_messages(&flags, max);
    // Counts and indices are below the array's length, itself below 2^32.
    let mut out = Vec::with_capacity(selection.indices.len() + 2);
    out.push(selection.filtered as u32);
    out.push(selection.trimmed.map_or(u32::MAX, |t| t as u32));
    out.extend(selection.indices.iter().map(|&i| i as u32));
    out
}
