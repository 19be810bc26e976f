//! The JSON names scripts depend on: every key of every command's output, pinned here and
//! listed in the README.

use super::*;

/// The keys of `inspect --json`, exactly; the crate README lists the same.
pub(super) const INSPECT_KEYS: &[&str] = &[
    "file",
    "loader_warnings",
    "loader_warnings[].limit",
    "loader_warnings[].max",
    "loader_warnings[].message",
    "loader_warnings[].value",
    "min_runtime_version",
    "min_runtime_version.because",
    "min_runtime_version.because.name",
    "min_runtime_version.because.version",
    "min_runtime_version.required",
    "min_runtime_version.stored",
    "operator_codes",
    "operator_codes[].builtin_code",
    "operator_codes[].custom_code",
    "operator_codes[].name",
    "operator_codes[].reason",
    "operator_codes[].required_version",
    "operator_codes[].stored_version",
    "operators",
    "schema_version",
    "subgraphs",
    "unreadable",
    "verifier_tables",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// The keys of `check --json`, exactly; the crate README lists the same.
pub(super) const CHECK_KEYS: &[&str] = &[
    "file",
    "runs",
    "runs_when_minimized",
    "runtime",
    "unreadable",
    "unresolved",
    "unresolved[].error",
    "unresolved[].name",
    "unresolved[].operator_code",
    "unresolved[].version",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// The keys of `check --runtime NAME --json` (a real runtime), exactly; the README lists them.
pub(super) const CHECK_NAMED_KEYS: &[&str] = &[
    "allocate_error",
    "allocate_node",
    "allocate_note",
    "allocate_op",
    "allocate_refused_by",
    "allocates",
    "blocking",
    "blocking[].builtin_code",
    "blocking[].cause",
    "blocking[].max_registered_version",
    "blocking[].name",
    "blocking[].operator_code",
    "blocking[].reason",
    "blocking[].required_version",
    "blocking[].version",
    "crashes",
    "error",
    "family",
    "file",
    "kernel_gaps",
    "kernel_gaps[].builtin_code",
    "kernel_gaps[].name",
    "kernel_gaps[].nodes",
    "kernel_gaps[].operator",
    "kernel_gaps[].probe",
    "kernel_gaps[].stage",
    "kernel_gaps[].subgraph",
    "kernel_gaps[].text",
    "kernel_gaps[].types",
    "loads",
    "refused_by",
    "runs",
    "runtime",
    "unreadable",
    "version",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// `keys` without those starting with `prefix` (the keys of an array's items, when it is empty).
pub(super) fn without_item_keys(keys: &[&'static str], prefix: &str) -> Vec<&'static str> {
    keys.iter()
        .copied()
        .filter(|key| !key.starts_with(prefix))
        .collect()
}

/// The keys of `inspect --json` and `check --json` when the model cannot be read (exit 2).
pub(super) const UNREADABLE_KEYS: &[&str] = &["error", "file", "unreadable"];

/// The keys the crate README lists in the table under `heading` (first column, in backticks).
pub(super) fn readme_keys(heading: &str) -> Vec<String> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("the crate README");
    let section = readme
        .split_once(heading)
        .unwrap_or_else(|| panic!("README has no heading {heading:?}"))
        .1;
    let section = section.split("\n#").next().unwrap_or(section);
    let mut keys: Vec<String> = section
        .lines()
        .filter_map(|line| line.strip_prefix("| `"))
        .filter_map(|cell| cell.split_once("` |"))
        .map(|(key, _)| key.to_string())
        .collect();
    keys.sort();
    keys
}

#[test]
fn the_readme_lists_every_json_key() {
    assert_eq!(readme_keys("#### `inspect --json`"), INSPECT_KEYS);
    assert_eq!(readme_keys("#### `check --json`"), CHECK_KEYS);
    assert_eq!(
        readme_keys("#### `check --runtime NAME --json`"),
        CHECK_NAMED_KEYS
    );
    assert_eq!(
        readme_keys("#### When the model could not be read (exit 2)"),
        UNREADABLE_KEYS
    );
}

#[test]
fn json_keys_are_pinned() {
    let model = oracle("add__int8.tflite");
    let out = run(&["inspect".as_ref(), model.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    // No loader or stamp warning here, so no `loader_warnings[]` or `warnings[]` keys: the
    // model built in `inspect_warns_above_the_verifiers_table_limit` has them all.
    let without_warnings: Vec<_> = INSPECT_KEYS
        .iter()
        .copied()
        .filter(|key| !key.starts_with("loader_warnings[") && !key.starts_with("warnings["))
        .collect();
    assert_eq!(sorted_keys(&json_of(&out)), without_warnings);

    // Rejected, so that `unresolved` has elements whose keys count.
    let out = check(&model, "1.5.0", true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json = json_alone(&out);
    assert_eq!(
        sorted_keys(&json),
        without_item_keys(CHECK_KEYS, "warnings[")
    );
    assert_eq!(json["runs"], false);
    assert_eq!(json["runtime"], "1.5.0");
    let unresolved = json["unresolved"].as_array().unwrap();
    assert_eq!(unresolved.len(), 3);
    assert_eq!(unresolved[1]["operator_code"], 1);
    assert_eq!(unresolved[1]["name"], "ADD");
    assert_eq!(unresolved[1]["version"], 2);
    assert_eq!(
        unresolved[0]["error"],
        "Op builtin_code out of range: 114. Are you using old TFLite binary with newer model?"
    );

    let out = check(&model, "2.3.0", true);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json = json_of(&out);
    assert_eq!(json["runs"], true);
    assert_eq!(json["unresolved"], serde_json::json!([]));

    let missing: &std::ffi::OsStr = "/nonexistent/model.tflite".as_ref();
    let inspect = ["inspect".as_ref(), missing, "--json".as_ref()];
    let check = [
        "check".as_ref(),
        missing,
        "--runtime".as_ref(),
        "2.3.0".as_ref(),
        "--json".as_ref(),
    ];
    for (command, args) in [("inspect", &inspect[..]), ("check", &check[..])] {
        let out = run(args);
        assert_eq!(out.status.code(), Some(2), "{command}");
        let json = json_of(&out);
        assert_eq!(sorted_keys(&json), UNREADABLE_KEYS, "{command}");
        assert_eq!(json["file"], "/nonexistent/model.tflite");
        assert_eq!(json["unreadable"], true);
        assert_eq!(
            json["error"],
            "cannot read /nonexistent/model.tflite: No such file or directory (os error 2)"
        );
        assert_eq!(
            text(&out.stderr),
            "tflite-opver: cannot read /nonexistent/model.tflite: No such file or directory (os error 2)\n"
        );
    }
}
