//! What the JS fast path of `assemble` (`js/web/fast-path.js`) asks the
//! planner: the layout it renders with, described once per agent type
//! ([`layout_info`]), and the next step for the sizes it measured
//! ([`plan_sizes`]). Which layout an agent type has, and its id, is the
//! registry's (`crate::agents::assembly`); the binding only moves the
//! numbers.

use crate::prompt::cache_stable::cache_block_option;
use crate::prompt::input::{max_bytes_from_number, DEFAULT_MAX_BYTES};
use crate::prompt::layout::{InstructionPlacement, Layout};

use super::{plan_context, Bounds, MessageBounds, PlanStep, ScalarBounds};

/// What the fast path needs to know of `layout` (whose id is `id`, and
/// `warning` the unknown-agent warning when it is plain text for an
/// unknown type), as the JSON of an object: `{ id, warning, inFlag,
/// instructions, team, context, prefix, arrow, message }` — the layout id
/// for `__planContext`, the warning or `null`, whether the instructions go
/// to `systemFlag`, the headings of the instructions, team task, context and
/// message sections, the context line prefix and whether a line shows
/// ` -> {to}`. Asked once per agent type.
pub fn layout_info(layout: &Layout, id: usize, warning: Option<&str>) -> String {
    let (in_flag, header) = match layout.instructions {
        InstructionPlacement::SystemFlag => (true, ""),
        InstructionPlacement::Inline { header } => (false, header),
    };
    let mut json = String::with_capacity(256);
    json.push_str("{\"id\":");
    // One or two digits: the built-in layouts and plain text are fewer than
    // a hundred (no formatting code on a first call).
    let id = id as u32;
    if id >= 10 {
        json.push(char::from_digit(id / 10 % 10, 10).unwrap_or('0'));
    }
    json.push(char::from_digit(id % 10, 10).unwrap_or('0'));
    json.push_str(",\"warning\":");
    match warning {
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

fn bounds(pair: &[f64]) -> Bounds {
    // Sizes come from JS lengths: whole, non-negative and below 2^53.
    Bounds {
        lo: pair[0] as u64,
        hi: pair[1] as u64,
    }
}

/// The step for `sizes` with `layout`: `[lo, hi]` of system, file, team and message, then
/// `[lo, hi]` of from, to and content for each message read, newest first,
/// out of `total`. `max_bytes`, `cache_stable` and `cache_block` are the
/// caller's values (`maxBytes` missing: `None`), normalised as the full path
/// does; sizes of the wrong shape or a value the full path rejects give
/// `Engine`.
pub fn plan_sizes(
    layout: &Layout,
    max_bytes: Option<f64>,
    sizes: &[f64],
    total: f64,
    cache_stable: Option<bool>,
    cache_block: Option<f64>,
) -> PlanStep {
    if sizes.len() < 8 || (sizes.len() - 8) % 6 != 0 {
        return PlanStep::Engine;
    }
    let budget = match max_bytes.map(max_bytes_from_number) {
        None => DEFAULT_MAX_BYTES,
        Some(Ok(budget)) => budget,
        Some(Err(_)) => return PlanStep::Engine,
    };
    let Ok(cache_block) = cache_block_option(cache_stable, cache_block) else {
        return PlanStep::Engine;
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
    plan_context(
        layout,
        budget,
        &scalars,
        &messages,
        total as usize,
        cache_block,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::agents::assembly::{layout_by_id, layout_id, resolve_layout, BUILT_IN};

    /// As the binding asks it.
    fn layout_info(agent_type: &str) -> String {
        let (layout, warning) = resolve_layout(agent_type);
        super::layout_info(layout, layout_id(layout), warning.as_deref())
    }

    #[test]
    fn layout_info_is_json_of_the_layout() {
        let info: serde_json::Value = serde_json::from_str(&layout_info("claude-code")).unwrap();
        let claude = resolve_layout("claude-code").0;
        assert_eq!(info["team"], claude.team_header);
        assert_eq!(info["message"], claude.message_header);
        assert_eq!(info["warning"], serde_json::Value::Null);
        assert_eq!(info["inFlag"], true);
        // Every agent's id names its own layout, in any build.
        for (i, layout) in BUILT_IN.iter().enumerate() {
            let info: serde_json::Value =
                serde_json::from_str(&layout_info(layout.agent_type)).unwrap();
            assert_eq!(info["id"], i, "{}", layout.agent_type);
            assert_eq!(layout_by_id(i as u32).agent_type, layout.agent_type);
        }
        let plain: serde_json::Value = serde_json::from_str(&layout_info("nobody")).unwrap();
        assert_eq!(plain["id"], BUILT_IN.len());
        assert!(plain["warning"].as_str().unwrap().contains("\"nobody\""));
    }

    #[test]
    fn control_characters_are_escaped() {
        let mut out = String::new();
        push_json_string(&mut out, "a\"b\\c\nd\u{1}");
        assert_eq!(out, "\"a\\\"b\\\\c\\nd\\u0001\"");
        let back: String = serde_json::from_str(&out).unwrap();
        assert_eq!(back, "a\"b\\c\nd\u{1}");
    }

    #[test]
    fn sizes_of_the_wrong_shape_or_bad_options_take_the_full_path() {
        let scalars = [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0, 6.0];
        assert_eq!(
            plan_sizes(layout_by_id(0), None, &scalars[..7], 0.0, None, None),
            PlanStep::Engine
        );
        assert_eq!(
            plan_sizes(layout_by_id(0), Some(-1.0), &scalars, 0.0, None, None),
            PlanStep::Engine
        );
        assert_eq!(
            plan_sizes(layout_by_id(0), None, &scalars, 0.0, Some(true), Some(0.5)),
            PlanStep::Engine
        );
        assert_eq!(
            plan_sizes(layout_by_id(0), None, &scalars, 0.0, None, None),
            PlanStep::Keep { kept: 0 }
        );
    }
}
