//! The command-line tool: output for people, and exit codes 0 (readable / agreed), 1
//! (incompatible), 2 (unreadable or bad usage). Needs `--features cli`.
#![cfg(feature = "cli")]

use std::process::{Command, Output};

use common::GOLDEN_DIR;

mod common;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ifrt-serdes"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

#[test]
fn history_computes_week_4_old_for_a_given_day() {
    let output = run(&["history", "--today", "2026-03-19"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("2026-02-19"), "{text}");
    assert!(
        text.contains("week-4-old: IFRT SerDes version 1 (as of 2026-03-19)"),
        "{text}"
    );
    let bad = run(&["history", "--today", "19.03.2026"]);
    assert_eq!(bad.status.code(), Some(2));
}

#[test]
fn inspect_reads_goldens_and_refuses_removed_versions() {
    let v0 = format!("{GOLDEN_DIR}/array_spec_v0.pb");
    let ok = run(&["inspect", &v0]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    assert!(stdout(&ok).contains("type name: xla::ifrt::ArraySpec"));

    let raised = run(&["inspect", &v0, "--minimum", "1", "--json"]);
    assert_eq!(raised.status.code(), Some(1));
    let report: serde_json::Value = serde_json::from_slice(&raised.stdout).unwrap();
    assert_eq!(report["readable"], false);
    assert_eq!(
        report["error"],
        "Unsupported IFRT SerDes version 0 for ArraySpec deserialization"
    );

    let missing = run(&["inspect", "/nonexistent/file.pb"]);
    assert_eq!(missing.status.code(), Some(2));
    let bad_range = run(&["inspect", &v0, "--minimum", "2", "--current", "1"]);
    assert_eq!(bad_range.status.code(), Some(2));
    let garbage = run(&[
        "inspect",
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
    ]);
    assert_eq!(garbage.status.code(), Some(2));
}

#[test]
fn negotiate_agrees_or_names_both_ranges() {
    let agreed = run(&["negotiate", "0", "2", "0", "1"]);
    assert_eq!(agreed.status.code(), Some(0));
    assert_eq!(stdout(&agreed).trim(), "agreed: IFRT SerDes version 1");
    let failed = run(&["negotiate", "0", "0", "1", "2"]);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&failed.stderr).trim(),
        "IFRT Proxy client and server failed to agree on the IFRT SerDes version; supported \
         versions: client = [0, 0], server = [1, 2]"
    );
}
