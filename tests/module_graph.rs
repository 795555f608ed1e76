//! The layers of `src/` form no cycle. A layer is a top-level folder or
//! file of `src/` (`agents/`, `error.rs`; not `lib.rs`, nor the binding,
//! `src/wasm/`, which sits on top and may use any); a layer's dependencies
//! are the `crate::layer` paths in its files, comments and test modules
//! left out. Every dependency is on a layer declared before it in
//! `src/lib.rs`, whose module list is the order, bottom-up.
//!
//! Nor do the core's modules (`prompt::budget` and `prompt::layout` do not
//! import each other): a module's dependencies are the `crate::name` paths
//! in its files (`crate::layer::name` for a module of a layer folder,
//! `LAYERS`). Nor do the files of any one folder
//! (`src/agent_output/codex.rs` and `codex_legacy.rs`, or `crates/scan`'s
//! `json_string`, `unit` and `utf16`): there a file's dependencies are its
//! `super::name` and `crate::folder::name` paths.

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

/// The layers of `src/` (`dir`): its top-level folders and `.rs` files,
/// by name, but `lib.rs` and the binding (`wasm/`).
fn layers(dir: &Path) -> BTreeSet<String> {
    let mut layers = BTreeSet::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let layer = if path.is_dir() {
            name
        } else if let Some(stem) = name.strip_suffix(".rs") {
            stem.to_owned()
        } else {
            continue;
        };
        if layer != "lib" && layer != "wasm" {
            layers.insert(layer);
        }
    }
    layers
}

/// Every `.rs` file under `dir`.
fn rust_files(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().and_then(|e| e.to_str()) == Some("rs") {
            out.push(path);
        }
    }
}

/// Each layer's dependencies, each with the first place that names it
/// (`agents/spec.rs:240`): the `crate::layer` paths of the layer's files,
/// comments and test modules left out. A `crate::` path that names no
/// layer (an item `lib.rs` re-exports) is an error: the core names the
/// layer an item lives in.
fn layer_graph(src: &Path) -> BTreeMap<String, BTreeMap<String, String>> {
    let layers = layers(src);
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = layers
        .iter()
        .map(|layer| (layer.clone(), BTreeMap::new()))
        .collect();
    let mut files = Vec::new();
    rust_files(src, &mut files);
    for path in files {
        let relative = path.strip_prefix(src).unwrap();
        let first = relative.components().next().unwrap().as_os_str();
        let first = first.to_string_lossy();
        let layer = first.trim_end_matches(".rs");
        if !layers.contains(layer) || is_test_file(&path) {
            continue;
        }
        let text = fs::read_to_string(&path).unwrap();
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for (number, line) in code.lines().enumerate() {
            if line.trim_start().starts_with("//") {
                continue;
            }
            for (at, _) in line.match_indices("crate::") {
                let name = ident(&line[at + 7..]);
                let place = format!("{}:{}", relative.display(), number + 1);
                assert!(
                    layers.contains(&name),
                    "{place} names crate::{name}, which is no layer of src/: name the layer it lives in"
                );
                if name != layer {
                    let deps = graph.get_mut(layer).unwrap();
                    deps.entry(name).or_insert(place);
                }
            }
        }
    }
    graph
}

/// The layers in the order `src/lib.rs` declares them (`pub mod name;`),
/// bottom-up.
fn declared_order(lib: &str) -> Vec<String> {
    lib.lines()
        .filter_map(|line| line.trim().strip_prefix("pub mod "))
        .map(ident)
        .filter(|name| name != "wasm")
        .collect()
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
fn the_layers_of_src_form_no_cycle() {
    let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
    let graph = layer_graph(&manifest.join("src"));
    assert!(graph.len() > 10, "read the layers: {graph:#?}");
    assert!(graph["engine"].contains_key("agents"), "{graph:#?}");
    assert!(graph["team"].contains_key("prompt"), "{graph:#?}");
    assert!(graph["error"].is_empty(), "{graph:#?}");
    let plain: BTreeMap<String, BTreeSet<String>> = graph
        .iter()
        .map(|(layer, deps)| (layer.clone(), deps.keys().cloned().collect()))
        .collect();
    if let Some(cycle) = find_cycle(&plain) {
        let steps: Vec<String> = cycle
            .windows(2)
            .map(|pair| format!("{} -> {} ({})", pair[0], pair[1], graph[&pair[0]][&pair[1]]))
            .collect();
        panic!(
            "a cycle among the layers of src/: {}\n{}",
            cycle.join(" -> "),
            steps.join("\n")
        );
    }
    // And the order src/lib.rs writes down holds: a layer uses only those
    // declared before it.
    let order = declared_order(&fs::read_to_string(manifest.join("src/lib.rs")).unwrap());
    let declared: BTreeSet<String> = order.iter().cloned().collect();
    let layers: BTreeSet<String> = graph.keys().cloned().collect();
    assert_eq!(declared, layers, "src/lib.rs declares every layer once");
    assert_eq!(
        order.len(),
        layers.len(),
        "src/lib.rs declares every layer once"
    );
    for (at, layer) in order.iter().enumerate() {
        for (dep, place) in &graph[layer] {
            assert!(
                order[..at].contains(dep),
                "{layer} uses {dep} ({place}), which src/lib.rs declares above it: \
                 the layers are declared bottom-up"
            );
        }
    }
}

#[test]
fn the_core_has_no_module_cycle() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut graph = BTreeMap::new();
    collect(&root, &root, &mut graph);
    assert!(graph.len() > 10, "read the core: {graph:?}");
    assert!(graph["prompt::budget"].contains("prompt::layout"));
    assert!(!graph["prompt::layout"].contains("prompt::budget"));
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
        module_of(&parts("prompt/size_plan/mod.rs")),
        "prompt::size_plan"
    );
    assert_eq!(module_of(&parts("prompt/budget.rs")), "prompt::budget");
    assert_eq!(module_of(&parts("engine/turns.rs")), "engine");
}

#[test]
fn the_layer_order_is_read_from_lib_rs() {
    let lib = "pub mod error;\n\npub mod formats;\n#[cfg(target_arch = \"wasm32\")]\npub mod wasm;\npub use error::Result;\n";
    assert_eq!(declared_order(lib), ["error", "formats"]);
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
