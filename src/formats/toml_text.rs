//! TOML text for the overrides an agent takes on its command line (Codex's
//! `-c key=value`).

/// `value` as a TOML basic string (Codex's `-c key=value` reads TOML).
pub fn toml_string(value: &str) -> String {
    let mut out = String::from("\"");
    for c in value.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}
