//! The byte loops of agent-context: UTF-8 → UTF-16 transcoding, the
//! scanning of JSON strings and Gemini CLI `message` lines, and the check
//! of a whole JSON line (the session record's reader).
//!
//! They live in a crate of their own so that the release profile can compile
//! them for speed (`opt-level = 3`) while everything else is compiled for
//! size: the `.wasm` stays small, and the loops that touch every byte of a
//! long agent reply run about 1.6× faster than at `opt-level = "z"`
//! (README, Performance). The entry points are `#[inline(never)]` so their
//! loops keep this crate's optimisation when linked into a caller compiled
//! for size. No dependencies, no `unsafe`, no panics on any input.

#![forbid(unsafe_code)]

pub mod acp_state;
pub mod acp_update;
pub mod gemini_message;
pub mod json_check;
pub mod json_string;
pub mod unit;
pub mod utf16;
