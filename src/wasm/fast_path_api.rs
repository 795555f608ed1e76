//! The planner behind the JS fast path of `assemble` (`js/fast-path.js`):
//! the JS side sends sizes, never the strings, and builds the prompt from the
//! caller's own strings with the layout's literals. Internal: `__`-prefixed
//! and left out of the TypeScript declarations.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::assemblers::{resolve_layout, InstructionPlacement, Layout, BUILT_IN, PLAIN_TEXT};
use crate::cache_stable::cache_block_option;
use crate::input::{max_bytes_from_number, DEFAULT_MAX_BYTES};
use crate::size_plan::{plan_context, Bounds, MessageBounds, PlanStep, ScalarBounds};

/// Layout ids: the built-in layouts in order, then plain text.
fn layout_by_id(id: u32) -> &'static Layout {
    BUILT_IN.get(id as usize).copied().unwrap_or(&PLAIN_TEXT)
}

/// What the fast path needs to know of the layout for `agent_type`, as the
/// JSON of an object: `{ id, warning, inFlag, instructions, team, context,
/// prefix, arrow, message }` — the layout id for `__planContext`, the
/// unknown-agent warning or `null`, whether the instructions go to
/// `systemFlag`, the headings of the instructions, team task, context and
/// message sections, the context line prefix and whether a line shows
/// ` -> {to}`. Asked once per agent type.
#[wasm_bindgen(js_name = __layoutInfo, skip_typescript)]
pub fn layout_info(agent_type: &str) -> String {
    let (layout, warning) = resolve_layout(agent_type);
    let id = BUILT_IN
        .iter()
        .position(|l| std::ptr::eq(*l, layout))
        .unwrap_or(BUILT_IN.len());
    let (in_flag, header) = match layout.instructions {
        InstructionPlacement::SystemFlag => (true, ""),
        InstructionPlacement::Inline { header } => (false, header),
    };
    let mut json = String::with_capacity(256);
    json.push_str("{\"id\":");
    // One digit: there are four layouts (no formatting code on a first call).
    json.push(char::from_digit(id as u32, 10).unwrap_or('0'));
    json.push_str(",\"warning\":");
    match &warning {
        Some(w) => push_json_string(&mut json, w),
        None => json.push_str("null"),
    }
    json.push_str(if in_flag {
        ",\"inFlag\":true"
    } else {
        ",\"inFlag\":false"
    });
    for (name, text) in [
        ("instructions", header),
        ("team", layout.team_header),
        ("context", layout.context_header),
        ("prefix", layout.line_prefix),
    ] {
        json.push_str(",\"");
        json.push_str(name);
        json.push_str("\":");
        push_json_string(&mut json, text);
    }
    json.push_str(if layout.line_shows_recipient {
        ",\"arrow\":true,\"message\":"
    } else {
        ",\"arrow\":false,\"message\":"
    });
    push_json_string(&mut json, layout.message_header);
    json.push('}');
    json
}

/// `text` as a JSON string. Written here rather than with serde_json: this
/// runs on a new process's first call, where every function run for the
/// first time is compiled then.
fn push_json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            c if u32::from(c) < 0x20 => {
                out.push_str(&format!("\\u{:04x}", u32::from(c)));
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// What `__planContext` returns: what the fast path does next. Exported to
/// JS as `__PlanStep` (`{ Keep: 0, More: 1, … }`).
#[wasm_bindgen(js_name = __PlanStep, skip_typescript)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlanStepCode {
    /// Render the newest `kept` (the answer's first number) messages.
    Keep = 0,
    /// Read messages up to `count` (the first number) of the newest in all.
    More = 1,
    /// Give exact UTF-8 sizes: of the scalars when the first number is 1,
    /// and of the newest messages up to the second.
    Exact = 2,
    /// Run the full path (a cut, a failure, or a bad option).
    Engine = 3,
}

fn bounds(pair: &[f64]) -> Bounds {
    // Sizes come from JS lengths: whole, non-negative and below 2^53.
    Bounds {
        lo: pair[0] as u64,
        hi: pair[1] as u64,
    }
}

/// Where the answer's two numbers are in the plan area; the sizes follow.
const ANSWER: usize = 2;

thread_local! {
    /// The plan area: the fast path writes the sizes straight into this
    /// memory (no copy, no allocation per call), after the two numbers of
    /// `__planContext`'s answer.
    static PLAN_AREA: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// Makes the plan area hold at least `len` numbers, keeping what it holds,
/// and returns its address in the module's memory (which changes only here).
#[wasm_bindgen(js_name = __planArea, skip_typescript)]
pub fn plan_area(len: usize) -> *mut f64 {
    PLAN_AREA.with_borrow_mut(|area| {
        if area.len() < len {
            area.resize(len, 0.0);
        }
        area.as_mut_ptr()
    })
}

/// Plans from the plan area: after the answer's two numbers, `len` sizes —
/// `[lo, hi]` of system, file, team and message, then `[lo, hi]` of from, to
/// and content for each message read, newest first, out of `total`.
/// `max_bytes`, `cache_stable` and `cache_block` are the caller's values
/// (`maxBytes` missing: `undefined`), normalised here as the full path does;
/// a value the full path rejects gives `Engine`. Returns the step's
/// [`PlanStepCode`] and puts its numbers at the start of the area.
#[wasm_bindgen(js_name = __planContext, skip_typescript)]
pub fn plan(
    layout_id: u32,
    max_bytes: Option<f64>,
    len: usize,
    total: f64,
    cache_stable: Option<bool>,
    cache_block: Option<f64>,
) -> PlanStepCode {
    PLAN_AREA.with_borrow_mut(|area| {
        let Some(sizes) = area.get(ANSWER..ANSWER + len) else {
            return PlanStepCode::Engine;
        };
        let (code, numbers) = plan_sizes(
            layout_id,
            max_bytes,
            sizes,
            total,
            cache_stable,
            cache_block,
        );
        area[..ANSWER].copy_from_slice(&numbers);
        code
    })
}

/// The step for `sizes` (as [`plan`] reads them) and its two numbers.
fn plan_sizes(
    layout_id: u32,
    max_bytes: Option<f64>,
    sizes: &[f64],
    total: f64,
    cache_stable: Option<bool>,
    cache_block: Option<f64>,
) -> (PlanStepCode, [f64; ANSWER]) {
    let engine = (PlanStepCode::Engine, [0.0; ANSWER]);
    if sizes.len() < 8 || (sizes.len() - 8) % 6 != 0 {
        return engine;
    }
    let budget = match max_bytes.map(max_bytes_from_number) {
        None => DEFAULT_MAX_BYTES,
        Some(Ok(budget)) => budget,
        Some(Err(_)) => return engine,
    };
    let Ok(cache_block) = cache_block_option(cache_stable, cache_block) else {
        return engine;
    };
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
    // `total` is a JS array's length: whole and below 2^32.
    match plan_context(
        layout_by_id(layout_id),
        budget,
        &scalars,
        &messages,
        total as usize,
        cache_block,
    ) {
        PlanStep::Keep { kept } => (PlanStepCode::Keep, [kept as f64, 0.0]),
        PlanStep::More { count } => (PlanStepCode::More, [count as f64, 0.0]),
        PlanStep::Exact { scalars, messages } => (
            PlanStepCode::Exact,
            [f64::from(u8::from(scalars)), messages as f64],
        ),
        PlanStep::Engine => engine,
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
