//! The formats every layer reads and writes: the caller's values read with
//! field paths (`host_value`), JSON read with field paths (`json_read`),
//! JSON text written as JavaScript would (`json_text`), and TOML values for
//! command-line overrides (`toml_text`).

pub mod host_value;
#[cfg(test)]
mod host_value_tests;
pub mod json_read;
pub mod json_text;
pub mod toml_text;
