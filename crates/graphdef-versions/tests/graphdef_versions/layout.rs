//! The layout of `src/loading/`: `mod.rs` only steers (declares the parts, re-exports), and no
//! two parts import each other, directly or around a longer loop.
//!
//! Each file of `src/loading/` is a part (`mod.rs` is `mod`; a part's own folder, such as
//! `shape_fns/`, belongs to it). A part uses another when its code names `super::other` or
//! `crate::loading::other` (inside a part's `mod tests`, `super::super::other`); naming an item
//! of `mod.rs` itself (`super::Item`) uses `mod`. `mod.rs`'s `mod other;` lines declare its
//! parts and are not uses. Comments are not read.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Which parts each part uses.
type Uses = BTreeMap<String, BTreeSet<String>>;

/// A cycle of `uses`, as the parts met going round it (the first repeated at the end), or `None`.
fn find_cycle(uses: &Uses) -> Option<Vec<String>> {
    // 0: not seen, 1: on the current path, 2: done.
    fn visit<'a>(
        part: &'a str,
        uses: &'a Uses,
        state: &mut BTreeMap<&'a str, u8>,
        path: &mut Vec<&'a str>,
    ) -> Option<Vec<String>> {
        state.insert(part, 1);
        path.push(part);
        for next in uses.get(part).into_iter().flatten() {
            match state.get(next.as_str()).copied().unwrap_or(0) {
                1 => {
                    let start = path.iter().position(|&p| p == next).unwrap_or(0);
                    let mut cycle: Vec<String> =
                        path[start..].iter().map(|p| p.to_string()).collect();
                    cycle.push(next.clone());
                    return Some(cycle);
                }
                0 => {
                    if let Some(cycle) = visit(next, uses, state, path) {
                        return Some(cycle);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        state.insert(part, 2);
        None
    }
    let mut state = BTreeMap::new();
    for part in uses.keys() {
        if !state.contains_key(part.as_str())
            && let Some(cycle) = visit(part, uses, &mut state, &mut Vec::new())
        {
            return Some(cycle);
        }
    }
    None
}

/// The first path segment of each item of a `{a, b::C, d::{E, F}}` group (after its `{`).
fn group_heads(group: &str) -> Vec<&str> {
    let mut heads = Vec::new();
    let (mut depth, mut start) = (0usize, 0usize);
    for (at, c) in group.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                heads.push(&group[start..at]);
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                heads.push(&group[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    heads
        .into_iter()
        .map(|item| item.trim().split("::").next().unwrap_or_default().trim())
        .filter(|head| !head.is_empty() && *head != "self")
        .collect()
}

/// The names `code` reaches through `prefix` (`super::`...): `prefix{a, b}` gives both. A
/// longer path that ends in `prefix` (`super::super::` for `super::`) is not read.
fn names_after<'a>(code: &'a str, prefix: &str) -> Vec<&'a str> {
    let mut names = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        let before = code[..at].chars().next_back();
        let rest = &code[at + prefix.len()..];
        if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':')
            || rest.starts_with("super::")
        {
            continue;
        }
        if let Some(group) = rest.strip_prefix('{') {
            names.extend(group_heads(group));
        } else {
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            names.push(&rest[..end]);
        }
    }
    names
}

/// Which parts each file of `src/loading/` uses (see the module's documentation).
fn loading_uses(dir: &Path) -> Uses {
    let mut files: Vec<(String, String)> = Vec::new();
    for entry in std::fs::read_dir(dir).expect("src/loading/ is read") {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") {
            files.push((stem.to_string(), std::fs::read_to_string(&path).unwrap()));
        } else if path.is_dir() {
            for inner in std::fs::read_dir(&path).unwrap() {
                // A file of a part's folder is a child module of the part: read as the part's
                // own `mod tests` is.
                let text = std::fs::read_to_string(inner.unwrap().path()).unwrap();
                files.push((stem.to_string(), format!("mod tests {{{text}")));
            }
        }
    }
    let parts: BTreeSet<String> = files
        .iter()
        .map(|(part, _)| part.clone())
        .filter(|part| part != "mod")
        .collect();
    let mut uses = Uses::new();
    for (part, text) in &files {
        let code: String = text
            .lines()
            .map(|line| line.split("//").next().unwrap_or_default())
            .filter(|line| !(part == "mod" && line.trim_start().starts_with("mod ")))
            .collect::<Vec<_>>()
            .join("\n");
        // A part's own `mod tests` is a child: there, `super::` is the part itself.
        let (own, tests) = code.split_once("mod tests {").unwrap_or((&code, ""));
        let mut names = if part == "mod" {
            // mod.rs's own `use x::...` names its parts without `super::`.
            own.lines()
                .filter_map(|line| {
                    let line = line.trim_start();
                    line.strip_prefix("pub use ")
                        .or_else(|| line.strip_prefix("use "))
                        .or_else(|| line.strip_prefix("pub(crate) use "))
                })
                .filter_map(|used| used.split("::").next())
                .collect()
        } else {
            names_after(own, "super::")
        };
        names.extend(names_after(own, "crate::loading::"));
        names.extend(names_after(tests, "super::super::"));
        names.extend(names_after(tests, "crate::loading::"));
        let entry = uses.entry(part.clone()).or_default();
        for name in names {
            let used = if parts.contains(name) { name } else { "mod" };
            if used != part {
                entry.insert(used.to_string());
            }
        }
    }
    uses
}

#[test]
fn the_cycle_finder_finds_a_cycle_and_only_a_cycle() {
    let graph = |edges: &[(&str, &str)]| {
        let mut uses = Uses::new();
        for (from, to) in edges {
            uses.entry(from.to_string())
                .or_default()
                .insert(to.to_string());
            uses.entry(to.to_string()).or_default();
        }
        uses
    };
    // A diamond has no cycle.
    let diamond = graph(&[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d")]);
    assert_eq!(find_cycle(&diamond), None);
    // Closing it from d to a makes one, named as it goes round.
    let looped = graph(&[("a", "b"), ("a", "c"), ("b", "d"), ("c", "d"), ("d", "a")]);
    assert_eq!(
        find_cycle(&looped),
        Some(vec!["a".into(), "b".into(), "d".into(), "a".into()])
    );
    // Two parts that use each other.
    let pair = graph(&[("edges", "scan"), ("scan", "edges"), ("x", "edges")]);
    assert_eq!(
        find_cycle(&pair),
        Some(vec!["edges".into(), "scan".into(), "edges".into()])
    );
}

#[test]
fn the_reader_sees_uses_of_every_shape() {
    let code = "use super::{a, b::C, d::{E, F}};\nlet x = super::g::h();\nlet y = super::super::k;";
    let mut names = names_after(code, "super::");
    names.sort_unstable();
    assert_eq!(names, ["a", "b", "d", "g"]);
    assert_eq!(names_after(code, "super::super::"), ["k"]);
}

#[test]
fn no_two_parts_of_loading_import_each_other() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/loading");
    let uses = loading_uses(&dir);
    assert!(uses.len() > 10, "{uses:?}");
    if let Some(cycle) = find_cycle(&uses) {
        panic!(
            "src/loading/ has an import cycle: {} (uses: {uses:?})",
            cycle.join(" -> ")
        );
    }
    // mod.rs only steers: no part imports from it.
    let users: Vec<&String> = uses
        .iter()
        .filter(|(_, used)| used.contains("mod"))
        .map(|(part, _)| part)
        .collect();
    assert!(
        users.is_empty(),
        "these parts import from mod.rs: {users:?}"
    );
}
