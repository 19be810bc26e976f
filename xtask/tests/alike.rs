//! The command-line scaffolding each crate keeps a copy of stays alike.
//!
//! The four crates never depend on each other, so the little their tools share (how a run ends
//! and prints, in `outcome.rs`; how the input file is mapped, in `input.rs`) is copied into each,
//! and copies drift: their docs already had. This test fails, naming the file and the first line
//! that differs, when a copy changes without the others. se-abi's tool reads its input another
//! way (an `O_NONBLOCK` descriptor that `se_abi::plugin` reads from, for `/proc` files and
//! FIFOs) and ends a run another way (`--json` on error), so of these it shares `chain` alone.

use std::fs;
use std::path::{Path, PathBuf};

/// The tools that keep the whole scaffolding; the first one's copies are compared with the rest.
const TOOLS: [&str; 3] = ["graphdef-versions", "tflite-opver", "ifrt-serdes"];

/// The files copied into each of `TOOLS`' `src/bin/<tool>/`.
const COPIED: [&str; 2] = ["input.rs", "outcome.rs"];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives one level below the workspace root")
        .to_path_buf()
}

fn bin_file(tool: &str, file: &str) -> (PathBuf, String) {
    let path = root().join(format!("crates/{tool}/src/bin/{tool}/{file}"));
    let text = fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .replace("\r\n", "\n");
    (path, text)
}

/// Where two texts first differ, as a message naming both files; `None` if they are the same.
fn first_difference(a: (&Path, &str), b: (&Path, &str)) -> Option<String> {
    if a.1 == b.1 {
        return None;
    }
    let mut a_lines = a.1.lines();
    let mut b_lines = b.1.lines();
    let mut number = 1;
    loop {
        match (a_lines.next(), b_lines.next()) {
            (Some(x), Some(y)) if x == y => number += 1,
            (x, y) => {
                return Some(format!(
                    "{} and {} differ at line {number}:\n  {:?}\n  {:?}\nthe copies are kept \
                     alike on purpose: make the same change in every copy",
                    a.0.display(),
                    b.0.display(),
                    x.unwrap_or("(end of file)"),
                    y.unwrap_or("(end of file)"),
                ));
            }
        }
    }
}

/// The text of `fn chain` in `text`, from its doc comment to its closing brace.
fn chain_function(text: &str) -> Option<&str> {
    let start = text.find("/// An error and its `source()` chain")?;
    let end = start + text[start..].find("\n}\n")? + 3;
    Some(&text[start..end])
}

#[test]
fn the_copied_cli_files_are_alike() {
    let mut differences = Vec::new();
    for file in COPIED {
        let (first_path, first) = bin_file(TOOLS[0], file);
        for tool in &TOOLS[1..] {
            let (path, text) = bin_file(tool, file);
            differences.extend(first_difference((&first_path, &first), (&path, &text)));
        }
    }
    assert!(differences.is_empty(), "{}", differences.join("\n\n"));
}

#[test]
fn every_tool_declares_the_copies_it_keeps() {
    for tool in TOOLS {
        let (path, main) = bin_file(tool, "main.rs");
        for file in COPIED {
            let module = format!("mod {};", file.trim_end_matches(".rs"));
            assert!(
                main.lines().any(|line| line == module),
                "{} does not declare `{module}`",
                path.display()
            );
        }
    }
}

#[test]
fn se_abi_shares_chain() {
    let (outcome_path, outcome) = bin_file(TOOLS[0], "outcome.rs");
    let (main_path, main) = bin_file("se-abi", "main.rs");
    let theirs = chain_function(&outcome).expect("outcome.rs has `chain`");
    let ours = chain_function(&main).expect("se-abi's main.rs has `chain`");
    // se-abi's copy says where the others are; the function itself is the same.
    let ours = ours.replace(
        "///\n/// The same function as in the other three tools' `outcome.rs` (`xtask/tests/alike.rs` checks).\n",
        "",
    );
    if let Some(difference) = first_difference((&outcome_path, theirs), (&main_path, ours.as_str()))
    {
        panic!("{difference}");
    }
}

#[test]
fn a_difference_is_named_by_file_and_line() {
    let a = (Path::new("a/input.rs"), "one\ntwo\nthree\n");
    let b = (Path::new("b/input.rs"), "one\ntwo\nfour\n");
    let message = first_difference(a, b).unwrap();
    assert!(
        message.starts_with("a/input.rs and b/input.rs differ at line 3:"),
        "{message}"
    );
    assert!(
        message.contains("\"three\"") && message.contains("\"four\""),
        "{message}"
    );
    assert_eq!(first_difference(a, a), None);
    let shorter = (Path::new("c/input.rs"), "one\ntwo\n");
    assert!(
        first_difference(a, shorter)
            .unwrap()
            .contains("(end of file)")
    );
}
