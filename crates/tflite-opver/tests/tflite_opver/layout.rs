//! The library's layout: no import cycle between its files, and `lib.rs`'s module map names
//! every file.
//!
//! Each file of `src/` (but `src/generated/` and the CLI in `src/bin/`) is a node; a file
//! points at another when its code names a path into it: `crate::model::Model`,
//! `super::fields::missing`, or `buffers::BufferLen` where it declares `mod buffers;`. Comments
//! and strings are left out, and so are `#[cfg(test)]` modules: a unit test may build a whole
//! model, as the integration tests do. A path through the crate root (`crate::Model`) hides
//! which file it reaches, so inside the crate every path names its module.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

#[test]
fn files_import_each_other_without_a_cycle() {
    let (graph, through_root) = file_graph(&src());
    assert!(
        through_root.is_empty(),
        "paths through the crate root instead of their module: {through_root:#?}"
    );
    // The graph is not empty: the reader's parts point at the model.
    assert!(
        graph["model/read/mod.rs"].contains("model/mod.rs"),
        "{graph:#?}"
    );
    if let Some(cycle) = find_cycle(&graph) {
        panic!(
            "files of src/ import each other in a cycle: {}; move what both need into a file \
             of its own",
            cycle.join(" -> ")
        );
    }
}

#[test]
fn the_module_map_names_every_file() {
    let src = src();
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let mapped: BTreeSet<String> = lib
        .lines()
        .filter_map(|line| line.strip_prefix("// | `"))
        .filter_map(|rest| rest.split('`').next())
        .map(str::to_owned)
        .collect();
    let files: BTreeSet<String> = rust_files(&src).into_keys().collect();
    let unmapped: Vec<_> = files.difference(&mapped).collect();
    let gone: Vec<_> = mapped.difference(&files).collect();
    assert!(
        unmapped.is_empty() && gone.is_empty(),
        "lib.rs's module map misses {unmapped:?} and names files that do not exist: {gone:?}"
    );
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_only_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut g = Graph::new();
        for (a, b) in edges {
            g.entry(a.to_string()).or_default().insert(b.to_string());
            g.entry(b.to_string()).or_default();
        }
        g
    };
    // A diamond has no cycle.
    let diamond = graph(&[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]);
    assert_eq!(find_cycle(&diamond), None);
    // One edge back closes one.
    let cycle = graph(&[("a", "b"), ("b", "c"), ("c", "d"), ("d", "b"), ("a", "e")]);
    assert_eq!(find_cycle(&cycle).unwrap(), ["b", "c", "d", "b"]);
    // Two files that import each other.
    let pair = graph(&[("x", "y"), ("y", "x")]);
    assert_eq!(find_cycle(&pair).unwrap(), ["x", "y", "x"]);
}

#[test]
fn paths_are_read_from_code_only() {
    let code = "use crate::model::{self, wire::Span, read::fields};\n\
                // use crate::stamp::Stamped;\n\
                let s = \"crate::rules::user\";\n\
                fn f() { super::fields::missing(); x::y(); }\n\
                #[cfg(test)]\nmod tests {\n    use crate::runtimes::installed::Runtime;\n}\n";
    let paths = paths_in(&strip(code), &["x".into()]);
    let expect: Vec<Vec<&str>> = vec![
        vec!["crate", "model", "self"],
        vec!["crate", "model", "wire", "Span"],
        vec!["crate", "model", "read", "fields"],
        vec!["super", "fields", "missing"],
        vec!["x", "y"],
    ];
    assert_eq!(paths, expect);
}

/// The graph of `src/`'s files, and the paths that go through the crate root.
fn file_graph(src: &Path) -> (Graph, Vec<String>) {
    let files = rust_files(src);
    // Module path (`model::read`) -> file (`model/read/mod.rs`).
    let modules: BTreeMap<Vec<String>, String> = files
        .keys()
        .map(|file| (module_of(file), file.clone()))
        .collect();
    let mut graph = Graph::new();
    let mut through_root = Vec::new();
    for (file, text) in &files {
        let here = module_of(file);
        let code = strip(text);
        let children = declared_children(&code);
        let edges = graph.entry(file.clone()).or_default();
        for path in paths_in(&code, &children) {
            let mut absolute = match path[0].as_str() {
                "crate" => Vec::new(),
                "self" => here.clone(),
                "super" => {
                    let mut up = here.clone();
                    for segment in path.iter().take_while(|s| *s == "super") {
                        let _ = segment;
                        up.pop();
                    }
                    up
                }
                _ => here.clone(),
            };
            let skip = match path[0].as_str() {
                "crate" | "self" => 1,
                "super" => path.iter().take_while(|s| *s == "super").count(),
                _ => 0,
            };
            absolute.extend(path[skip..].iter().filter(|s| *s != "self").cloned());
            if absolute.first().is_some_and(|s| s == "generated") {
                continue; // planus' and the runtime table's generated code: a leaf
            }
            let target = (0..=absolute.len())
                .rev()
                .find_map(|n| modules.get(&absolute[..n]))
                .expect("lib.rs is the root");
            if target == "lib.rs" && !absolute.is_empty() && file != "lib.rs" {
                through_root.push(format!("{file}: crate::{}", absolute.join("::")));
            } else if target != file {
                edges.insert(target.clone());
            }
        }
    }
    (graph, through_root)
}

/// A cycle of `graph` as its nodes, first and last the same, or `None`.
fn find_cycle(graph: &Graph) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        Open,
        Done,
    }
    fn visit<'g>(
        graph: &'g Graph,
        node: &'g str,
        marks: &mut BTreeMap<&'g str, Mark>,
        stack: &mut Vec<&'g str>,
    ) -> Option<Vec<String>> {
        marks.insert(node, Mark::Open);
        stack.push(node);
        for next in graph.get(node).into_iter().flatten() {
            match marks.get(next.as_str()) {
                Some(Mark::Open) => {
                    let from = stack.iter().position(|n| n == next).unwrap();
                    let mut cycle: Vec<String> =
                        stack[from..].iter().map(|n| n.to_string()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                Some(Mark::Done) => {}
                None => {
                    if let Some(cycle) = visit(graph, next, marks, stack) {
                        return Some(cycle);
                    }
                }
            }
        }
        stack.pop();
        marks.insert(node, Mark::Done);
        None
    }
    let mut marks = BTreeMap::new();
    for node in graph.keys() {
        if !marks.contains_key(node.as_str())
            && let Some(cycle) = visit(graph, node, &mut marks, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file of `src/` but `generated/` and `bin/`, by its path from `src/`.
fn rust_files(src: &Path) -> BTreeMap<String, String> {
    fn walk(dir: &Path, src: &Path, out: &mut BTreeMap<String, String>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            let name = path
                .strip_prefix(src)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/");
            if path.is_dir() {
                if name != "generated" && name != "bin" {
                    walk(&path, src, out);
                }
            } else if name.ends_with(".rs") {
                out.insert(name, std::fs::read_to_string(&path).unwrap());
            }
        }
    }
    let mut out = BTreeMap::new();
    walk(src, src, &mut out);
    out
}

/// `model/read/mod.rs` -> `[model, read]`; `lib.rs` -> `[]`.
fn module_of(file: &str) -> Vec<String> {
    let mut parts: Vec<String> = file
        .trim_end_matches(".rs")
        .split('/')
        .map(str::to_owned)
        .collect();
    if matches!(parts.last().map(String::as_str), Some("mod" | "lib")) {
        parts.pop();
    }
    parts
}

/// The code of a file: comments, string and character literals, and `#[cfg(test)]` modules
/// left out.
fn strip(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i + 1 < chars.len() && !(chars[i] == '*' && chars[i + 1] == '/') {
                i += 1;
            }
            i += 2;
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if c == '\'' && (next == Some('\\') || chars.get(i + 2) == Some(&'\'')) {
            // A character literal (not a lifetime).
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("' '");
        } else {
            out.push(c);
            i += 1;
        }
    }
    // Drop each `#[cfg(test)] mod name { ... }`.
    while let Some(at) = out.find("#[cfg(test)]") {
        let after = out[at + "#[cfg(test)]".len()..].trim_start();
        if !after.starts_with("mod ") {
            out.replace_range(at..at + "#[cfg(test)]".len(), "");
            continue;
        }
        let open = at + out[at..].find('{').unwrap();
        let mut depth = 0;
        let mut end = out.len();
        for (k, ch) in out[open..].char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        out.replace_range(at..end, "");
    }
    out
}

/// The modules a file declares in files of their own (`mod buffers;`).
fn declared_children(code: &str) -> Vec<String> {
    code.split(';')
        .filter_map(|statement| {
            let words: Vec<&str> = statement.split_whitespace().collect();
            match words.as_slice() {
                [.., "mod", name] => Some(name.to_string()),
                _ => None,
            }
        })
        .collect()
}

/// Every path in `code` that starts at `crate`, `super`, `self` or one of `children`, with
/// `a::{b, c::d}` groups spread into one path each.
fn paths_in(code: &str, children: &[String]) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut paths = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if !is_ident(bytes[i]) || (i > 0 && (is_ident(bytes[i - 1]) || code[..i].ends_with("::"))) {
            i += 1;
            continue;
        }
        let end = (i..bytes.len())
            .find(|&k| !is_ident(bytes[k]))
            .unwrap_or(bytes.len());
        let word = &code[i..end];
        let starts =
            matches!(word, "crate" | "super" | "self") || children.iter().any(|c| c == word);
        if starts && code[end..].starts_with("::") {
            let (found, after) = path_tree(code, i);
            paths.extend(found);
            i = after;
        } else {
            i = end;
        }
    }
    paths
}

/// The paths of the path (or `{...}` group) that starts at `at`, and where it ends.
fn path_tree(code: &str, mut at: usize) -> (Vec<Vec<String>>, usize) {
    let bytes = code.as_bytes();
    let is_ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let skip_space = |mut k: usize| {
        while k < bytes.len() && bytes[k].is_ascii_whitespace() {
            k += 1;
        }
        k
    };
    let mut prefix = Vec::new();
    loop {
        at = skip_space(at);
        if at < bytes.len() && bytes[at] == b'{' {
            let mut paths = Vec::new();
            at += 1;
            loop {
                at = skip_space(at);
                if at >= bytes.len() {
                    return (paths, at);
                }
                match bytes[at] {
                    b'}' => return (paths, at + 1),
                    b',' => at += 1,
                    _ => {
                        let (inner, after) = path_tree(code, at);
                        for path in inner {
                            paths.push([prefix.clone(), path].concat());
                        }
                        at = after.max(at + 1);
                    }
                }
            }
        }
        let end = (at..bytes.len())
            .find(|&k| !is_ident(bytes[k]))
            .unwrap_or(bytes.len());
        if end == at {
            return (
                vec![prefix].into_iter().filter(|p| !p.is_empty()).collect(),
                at,
            );
        }
        prefix.push(code[at..end].to_owned());
        at = end;
        if code[at..].starts_with("::") {
            at += 2;
        } else {
            return (vec![prefix], at);
        }
    }
}
