//! The formats every layer reads and writes: the caller's values read with
//! field paths (`host_value`) and their unknown keys worded (`input_keys`),
//! JavaScript numbers read and written (`js_number`), JSON read with field
//! paths (`json_read`), JSON text written as JavaScript would
//! (`json_text`), and TOML values for command-line overrides (`toml_text`).

pub mod host_value;
#[cfg(test)]
mod host_value_tests;
pub mod input_keys;
pub mod js_number;
pub mod json_read;
pub mod json_text;
pub mod toml_text;
