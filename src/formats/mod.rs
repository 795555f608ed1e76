//! The text formats every layer reads and writes: JSON read with field
//! paths (`json_read`), JSON text written as JavaScript would
//! (`json_text`), and TOML values for command-line overrides (`toml_text`).

pub mod json_read;
pub mod json_text;
pub mod toml_text;
