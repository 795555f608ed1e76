//! The planner behind the JS fast path of `assemble` (`js/web/fast-path.js`):
//! the JS side sends sizes, never the strings, and builds the prompt from the
//! caller's own strings with the layout's literals. Internal: `__`-prefixed
//! and left out of the TypeScript declarations.

use std::cell::RefCell;

use wasm_bindgen::prelude::*;

use crate::agents::assembly;
use crate::prompt::size_plan::{fast_path, PlanStep};

/// What the fast path needs to know of the layout for `agent_type`, as the
/// JSON of an object: `{ id, warning, inFlag, instructions, team, context,
/// prefix, arrow, message }` — the layout id for `__planContext`, the
/// unknown-agent warning or `null`, whether the instructions go to
/// `systemFlag`, the headings of the instructions, team task, context and
/// message sections, the context line prefix and whether a line shows
/// ` -> {to}`. Asked once per agent type.
#[wasm_bindgen(js_name = __layoutInfo, skip_typescript)]
pub fn layout_info(agent_type: &str) -> String {
    let (layout, warning) = assembly::resolve_layout(agent_type);
    fast_path::layout_info(layout, assembly::layout_id(layout), warning.as_deref())
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
        let step = fast_path::plan_sizes(
            assembly::layout_by_id(layout_id),
            max_bytes,
            sizes,
            total,
            cache_stable,
            cache_block,
        );
        let (code, numbers) = answer(step);
        area[..ANSWER].copy_from_slice(&numbers);
        code
    })
}

/// A step's code and its two numbers.
fn answer(step: PlanStep) -> (PlanStepCode, [f64; ANSWER]) {
    match step {
        PlanStep::Keep { kept } => (PlanStepCode::Keep, [kept as f64, 0.0]),
        PlanStep::More { count } => (PlanStepCode::More, [count as f64, 0.0]),
        PlanStep::Exact { scalars, messages } => (
            PlanStepCode::Exact,
            [f64::from(u8::from(scalars)), messages as f64],
        ),
        PlanStep::Engine => (PlanStepCode::Engine, [0.0; ANSWER]),
    }
}

/// The builder's fast path: `codes` holds each message's role (0 user,
/// 1 assistant, 2 system, 3 tool) plus 4 when `includeInContext === false`;
/// `max_messages` is negative when not given. Returns `[filteredCount,
/// trimmedCount or 2^32 - 1, ...indices of the messages that go out]`.
#[wasm_bindgen(js_name = __planMessages, skip_typescript)]
pub fn plan_messages(codes: &[u8], max_messages: f64) -> Vec<u32> {
    crate::prompt::context_builder::select_coded_messages(codes, max_messages)
}
