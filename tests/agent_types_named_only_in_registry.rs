//! The registry of agents is the one place that knows them: no source file
//! outside `src/agents/` (its tests, comments and docs aside) names a
//! registered agent type, so adding an agent touches only its file and the
//! list. The Gemini tool is the one exception, allow-listed below.

use std::fs;
use std::path::{Path, PathBuf};

use agent_context::agents::AGENTS;

/// Files that may name an agent type, and why.
const ALLOWED: &[(&str, &str)] = &[(
    "src/tools/gemini_tool/",
    "the Gemini tool runs Gemini CLI and nothing else: it names the agent it runs",
)];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            sources(&path, out);
        } else if ["rs", "cjs", "js", "mjs", "ts"]
            .iter()
            .any(|e| path.extension().is_some_and(|x| x == *e))
        {
            out.push(path);
        }
    }
}

/// A test file by its name (`tests.rs`, `acp_tests.rs`, `more_agents_tests.rs`).
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name == "tests.rs" || name.ends_with("_tests.rs")
}

/// The lines of `text` that are code, numbered from 1: comments (docs and
/// their examples) are left out, and in Rust the test module that ends a
/// file (clippy's `items_after_test_module` keeps it last).
fn code_lines(text: &str, rust: bool) -> Vec<(usize, &str)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut in_block_comment = false;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim_start();
        if rust && t.starts_with("#[cfg(test)]") {
            let next = lines.get(i + 1).map_or("", |l| l.trim_start());
            if next.starts_with("mod ") && next.trim_end().ends_with('{') {
                break;
            }
            continue;
        }
        if in_block_comment {
            in_block_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with("/*") {
            in_block_comment = !t.contains("*/");
            continue;
        }
        if t.starts_with("//") || t.starts_with('*') {
            continue;
        }
        out.push((i + 1, *line));
    }
    out
}

/// Every place in the non-test code of `src/`, `js/` and `bin/` that names a
/// registered agent type in quotes (`"opencode"`, `'opencode'`,
/// `` `opencode` ``).
fn namings() -> Vec<String> {
    let root = root();
    let mut files = Vec::new();
    for dir in ["src", "js", "bin"] {
        sources(&root.join(dir), &mut files);
    }
    files.sort();
    let mut found = Vec::new();
    for path in files {
        let rel = path
            .strip_prefix(&root)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if rel.starts_with("src/agents/")
            || is_test_file(&rel)
            || ALLOWED.iter().any(|(p, _)| rel.starts_with(p))
        {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        for (n, line) in code_lines(&text, rel.ends_with(".rs")) {
            for agent in AGENTS {
                for q in ['"', '\'', '`'] {
                    if line.contains(&format!("{q}{}{q}", agent.agent_type)) {
                        found.push(format!("{rel}:{n}: {}", line.trim()));
                    }
                }
            }
        }
    }
    found
}

#[test]
fn no_source_outside_the_registry_names_an_agent_type() {
    let found = namings();
    assert!(
        found.is_empty(),
        "agent types named outside src/agents/ (move the knowledge into the agent's file):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_scan_sees_what_it_looks_for() {
    // It would catch a match on an agent type, and leaves docs and tests out.
    let code = "/// `assemble('claude-code', …)`\nfn f(t: &str) -> bool {\n    t == \"claude-code\"\n}\n#[cfg(test)]\nmod tests {\n    const T: &str = \"opencode\";\n}\n";
    let lines = code_lines(code, true);
    assert_eq!(lines.iter().map(|(n, _)| *n).collect::<Vec<_>>(), [2, 3, 4]);
    assert!(lines.iter().any(|(_, l)| l.contains("\"claude-code\"")));
    // The allow-list's files exist and are the Gemini tool's.
    for (path, why) in ALLOWED {
        assert!(root().join(path).exists(), "{path}");
        assert!(why.contains("Gemini"), "{path}");
    }
    // And it scans real files: the Gemini tool does name its agent (in
    // the core; its Node host takes the agent type from there).
    let call = fs::read_to_string(root().join("src/tools/gemini_tool/call.rs")).unwrap();
    assert!(code_lines(&call, true)
        .iter()
        .any(|(_, l)| l.contains("\"google-gemini\"")));
}
