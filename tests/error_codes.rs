//! One list of error codes, in Rust (`ErrorCode::ALL`), and one taxonomy of
//! failures (`AgentErrorKind::ALL`): the shipped types declare exactly them
//! (`AgentContextErrorCode` and `AgentErrorKind` in `src/wasm/types.d.ts`,
//! which both builds' declarations open with). The codes the JS host throws
//! are checked against the same declaration by `tests/js/js_sources.test.cjs`.
#![cfg(not(target_arch = "wasm32"))]

use std::path::Path;

use agent_context::error_kind::AgentErrorKind;
use agent_context::ErrorCode;

/// The quoted members of `export type {name} = …;` in `text`, in order.
fn union(text: &str, name: &str) -> Vec<String> {
    let start = format!("export type {name} =");
    let mut found = text.match_indices(&start);
    let (at, _) = found
        .next()
        .unwrap_or_else(|| panic!("no `{start}` in the types"));
    assert!(found.next().is_none(), "{name} is declared twice");
    let body = &text[at + start.len()..];
    let body = &body[..body.find(';').expect("the union ends with ;")];
    body.split('\'')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

fn types() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/wasm/types.d.ts");
    std::fs::read_to_string(path).unwrap()
}

#[test]
fn the_shipped_error_codes_are_the_cores() {
    let rust: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert_eq!(union(&types(), "AgentContextErrorCode"), rust);
    for code in [
        "INVALID_INPUT",
        "AGENT_ERROR",
        "SESSION_LOCKED",
        "SESSION_MOVED",
    ] {
        assert!(rust.contains(&code), "{code}");
    }
}

#[test]
fn the_shipped_error_kinds_are_the_cores() {
    let rust: Vec<&str> = AgentErrorKind::ALL.iter().map(|k| k.as_str()).collect();
    assert_eq!(union(&types(), "AgentErrorKind"), rust);
}

#[test]
fn every_code_has_its_own_text() {
    let mut texts: Vec<&str> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
    assert!(texts
        .iter()
        .all(|t| !t.is_empty() && t.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')));
    texts.sort_unstable();
    texts.dedup();
    assert_eq!(texts.len(), ErrorCode::ALL.len());
}

#[test]
fn a_union_is_read_member_by_member() {
    let text = "export type A = 'x' | 'y_z';\nexport type B =\n  | 'b';\n";
    assert_eq!(union(text, "A"), ["x", "y_z"]);
    assert_eq!(union(text, "B"), ["b"]);
}
