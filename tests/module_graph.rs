//! The core's modules form no cycle (`prompt::assemblers` and
//! `prompt::budget` do not import each other): a module's dependencies are
//! the `crate::name` paths in its files (`crate::layer::name` for a module
//! of a layer folder, `LAYERS`), comments and test modules left out;
//! `lib.rs`, the layers' own `mod.rs` and the binding (`src/wasm/`) are not
//! part of the core's graph. Nor do the files of any
//! one folder (`src/agent_output/codex.rs` and `codex_legacy.rs`, or
//! `crates/scan`'s `json_string`, `unit` and `utf16`): there a file's
//! dependencies are its `super::name` and `crate::folder::name` paths.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;

/// The folders that only group modules by layer (`src/lib.rs`): a module
/// of the core is `layer::name` there.
const LAYERS: [&str; 4] = ["prompt", "launch", "tools", "formats"];

/// The core module a path under `src/` belongs to, from its components.
fn module_of(components: &[String]) -> String {
    let stem = |s: &String| s.trim_end_matches(".rs").to_owned();
    match components {
        [layer, inner, ..] if LAYERS.contains(&layer.as_str()) => {
            format!("{layer}::{}", stem(inner))
        }
        [first, ..] => stem(first),
        [] => String::new(),
    }
}

/// The identifier `s` starts with.
fn ident(s: &str) -> String {
    s.chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
        .collect()
}

/// The core module a `crate::` path names, from what follows `crate::`.
fn module_named(rest: &str) -> String {
    let first = ident(rest);
    match rest[first.len()..].strip_prefix("::") {
        Some(tail) if LAYERS.contains(&first.as_str()) && !ident(tail).is_empty() => {
            format!("{first}::{}", ident(tail))
        }
        _ => first,
    }
}

fn collect(dir: &Path, root: &Path, graph: &mut BTreeMap<String, BTreeSet<String>>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            collect(&path, root, graph);
            continue;
        }
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let relative = path.strip_prefix(root).unwrap();
        let components: Vec<String> = relative
            .components()
            .map(|c| c.as_os_str().to_string_lossy().into_owned())
            .collect();
        let module = module_of(&components);
        if module == "lib" || module == "wasm" || LAYERS.contains(&module.as_str()) {
            continue;
        }
        let deps = graph.entry(module.clone()).or_default();
        if is_test_file(&path) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            for (at, _) in line.match_indices("crate::") {
                let name = module_named(&line[at + 7..]);
                if !name.is_empty() && name != module {
                    deps.insert(name);
                }
            }
        }
    }
}

/// A test module kept in a file of its own (`tests.rs`, `*_tests.rs`).
fn is_test_file(path: &Path) -> bool {
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    stem == "tests" || stem.ends_with("_tests")
}

/// The first identifier of each path that follows `prefix` in `line`:
/// `super::a::b` gives `a`, `super::{a, b::c}` gives `a` and `b`.
fn names_after(line: &str, prefix: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in line.match_indices(prefix) {
        let rest = &line[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let mut item = String::new();
            for c in group.chars() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.push(ident(item.trim_start()));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                item.push(c);
            }
            names.push(ident(item.trim_start()));
        } else {
            names.push(ident(rest.trim_start()));
        }
    }
    names.retain(|n| !n.is_empty());
    names
}

/// The graph of the `.rs` files directly in `dir`, whose module path is
/// `path` (`""` for a crate's root): a file's dependencies are the files of
/// the same folder it names as `super::name` (`mod.rs` left out, where
/// `super` is the parent) or `crate::path::name`.
fn folder_graph(dir: &Path, path: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut files = BTreeMap::new();
    for entry in fs::read_dir(dir).unwrap() {
        let file = entry.unwrap().path();
        let stem = file.file_stem().unwrap().to_string_lossy().into_owned();
        if file.extension().and_then(|e| e.to_str()) == Some("rs")
            && stem != "mod"
            && stem != "lib"
            && !is_test_file(&file)
        {
            files.insert(stem, fs::read_to_string(&file).unwrap());
        }
    }
    let crate_prefix = if path.is_empty() {
        "crate::".to_owned()
    } else {
        format!("crate::{path}::")
    };
    let mut graph = BTreeMap::new();
    for (module, text) in &files {
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        let deps: &mut BTreeSet<String> = graph.entry(module.clone()).or_default();
        for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
            let named = names_after(line, &crate_prefix)
                .into_iter()
                .chain(if path.is_empty() {
                    Vec::new()
                } else {
                    names_after(line, "super::")
                });
            for name in named {
                if &name != module && files.contains_key(&name) {
                    deps.insert(name);
                }
            }
        }
    }
    graph
}

/// Every folder under `dir` (itself included) with its module path.
fn folders(dir: &Path, path: &str, out: &mut Vec<(std::path::PathBuf, String)>) {
    out.push((dir.to_path_buf(), path.to_owned()));
    for entry in fs::read_dir(dir).unwrap() {
        let sub = entry.unwrap().path();
        if sub.is_dir() {
            let name = sub.file_name().unwrap().to_string_lossy().into_owned();
            let sub_path = if path.is_empty() {
                name
            } else {
                format!("{path}::{name}")
            };
            folders(&sub, &sub_path, out);
        }
    }
}

fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        open: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = open.iter().position(|m| m == module) {
            let mut cycle = open[at..].to_vec();
            cycle.push(module.to_owned());
            return Some(cycle);
        }
        if done.contains(module) {
            return None;
        }
        open.push(module.to_owned());
        for dep in graph.get(module).into_iter().flatten() {
            if let Some(cycle) = visit(dep, graph, open, done) {
                return Some(cycle);
            }
        }
        open.pop();
        done.insert(module.to_owned());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|m| visit(m, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_core_has_no_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = BTreeMap::new();
    collect(&root, &root, &mut graph);
    assert!(graph.len() > 10, "read the core: {graph:?}");
    assert!(graph["prompt::assemblers"].contains("prompt::budget"));
    assert!(!graph["prompt::budget"].contains("prompt::assemblers"));
    assert!(graph["engine"].contains("launch::invocation"), "{graph:?}");
    if let Some(cycle) = find_cycle(&graph) {
        panic!("a module cycle: {}", cycle.join(" -> "));
    }
}

#[test]
fn no_folder_has_a_cycle_among_its_files() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut all = Vec::new();
    folders(&manifest.join("src"), "", &mut all);
    all.retain(|(_, path)| !path.is_empty()); // the core's own graph, above
    folders(&manifest.join("crates/scan/src"), "", &mut all);
    let agent_output = folder_graph(&manifest.join("src/agent_output"), "agent_output");
    assert!(
        agent_output["codex_legacy"].contains("codex_shared"),
        "{agent_output:#?}"
    );
    assert!(
        agent_output["codex"].contains("codex_legacy"),
        "{agent_output:#?}"
    );
    let scan = folder_graph(&manifest.join("crates/scan/src"), "");
    assert!(scan["json_string"].contains("unit"), "{scan:#?}");
    assert!(scan["utf16"].contains("unit"), "{scan:#?}");
    for (dir, path) in &all {
        let graph = folder_graph(dir, path);
        if let Some(cycle) = find_cycle(&graph) {
            panic!("a cycle in {}: {}", dir.display(), cycle.join(" -> "));
        }
    }
}

#[test]
fn paths_in_a_use_are_read() {
    assert_eq!(
        names_after("use super::{a, b::{c, d}, e};", "super::"),
        ["a", "b", "e"]
    );
    assert_eq!(
        names_after("    crate::x::y(1) + crate::z", "crate::"),
        ["x", "z"]
    );
    assert_eq!(
        module_named("prompt::budget::assemble(x)"),
        "prompt::budget"
    );
    assert_eq!(module_named("prompt;"), "prompt");
    assert_eq!(module_named("engine::Engine"), "engine");
    let parts = |s: &str| s.split('/').map(String::from).collect::<Vec<_>>();
    assert_eq!(
        module_of(&parts("prompt/assemblers/mod.rs")),
        "prompt::assemblers"
    );
    assert_eq!(module_of(&parts("prompt/budget.rs")), "prompt::budget");
    assert_eq!(module_of(&parts("engine/turns.rs")), "engine");
}

#[test]
fn a_cycle_is_found() {
    let mut graph = BTreeMap::new();
    for (from, to) in [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a")] {
        graph
            .entry(from.to_owned())
            .or_insert_with(BTreeSet::new)
            .insert(to.to_owned());
    }
    assert_eq!(
        find_cycle(&graph),
        Some(["a", "b", "c", "a"].map(String::from).to_vec())
    );
}
