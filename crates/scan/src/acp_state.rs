//! The fields of a `session/update` line that the session's own state is
//! read from (`available_commands_update`, `current_mode_update`,
//! `config_option_update`, `session_info_update`), found in one pass over
//! the line's bytes: the line's `id`, and in `params.update` its kind, mode,
//! commands and configuration options, each as its raw JSON text. A
//! commands list is most of an agent's bytes (one long line a turn for
//! some agents); reading each field by itself went over the line once per
//! field.

use crate::acp_update::{object, skip_value};
use crate::unit::eq_ascii;

/// A field's raw text: `Some(None)` when the object has no such key;
/// `None` when it cannot be told without a full parser (the key repeated).
pub type Found<'a> = Option<Option<&'a [u8]>>;

/// What [`state_fields`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct StateFields<'a> {
    /// The line's `id`.
    pub id: Found<'a>,
    /// `params.update`, when `params` is an object (`None` when `params`
    /// is repeated).
    pub update: Found<'a>,
    /// In `params.update`, when it is an object: `sessionUpdate`,
    /// `currentModeId`, `availableCommands` and `configOptions` (absent
    /// when it is not).
    pub kind: Found<'a>,
    pub mode_id: Found<'a>,
    pub commands: Found<'a>,
    pub config_options: Found<'a>,
}

/// A field seen once more.
fn put<'a>(slot: &mut Found<'a>, value: &'a [u8]) {
    *slot = match slot {
        Some(None) => Some(Some(value)),
        _ => None,
    };
}

/// The object at `line[at]` (a `{`) walked with `each(key, at)`, or any
/// other value skipped; where it ends. Each value is checked at depth 1
/// of the object it is in, as [`crate::acp_update::field`] checks it.
fn walk(
    line: &[u8],
    at: usize,
    each: &mut dyn FnMut(&[u8], usize) -> Option<usize>,
) -> Option<usize> {
    if line.get(at) == Some(&b'{') {
        object(line, at, each)
    } else {
        skip_value(line, at, 1)
    }
}

/// The line's fields, in one pass; `None` for a line that is not one JSON
/// object (what follows its end is not looked at).
#[inline(never)]
pub fn state_fields(line: &[u8]) -> Option<StateFields<'_>> {
    if line.first() != Some(&b'{') {
        return None;
    }
    let absent = Some(None);
    let mut found = StateFields {
        id: absent,
        update: absent,
        kind: absent,
        mode_id: absent,
        commands: absent,
        config_options: absent,
    };
    let mut params = absent;
    object(line, 0, &mut |key, at| {
        if eq_ascii(key, b"params") {
            let end = walk(line, at, &mut |key, at| {
                if !eq_ascii(key, b"update") {
                    return skip_value(line, at, 1);
                }
                let end = walk(line, at, &mut |key, at| {
                    let end = skip_value(line, at, 1)?;
                    let slot = match key {
                        b"sessionUpdate" => &mut found.kind,
                        b"currentModeId" => &mut found.mode_id,
                        b"availableCommands" => &mut found.commands,
                        b"configOptions" => &mut found.config_options,
                        _ => return Some(end),
                    };
                    put(slot, &line[at..end]);
                    Some(end)
                })?;
                put(&mut found.update, &line[at..end]);
                Some(end)
            })?;
            put(&mut params, &line[at..end]);
            Some(end)
        } else {
            let end = skip_value(line, at, 1)?;
            if eq_ascii(key, b"id") {
                put(&mut found.id, &line[at..end]);
            }
            Some(end)
        }
    })?;
    if params.is_none() {
        found.update = None;
    }
    Some(found)
}
