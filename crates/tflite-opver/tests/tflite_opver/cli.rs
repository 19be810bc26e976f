//! The `tflite-opver` command line on real converter models: what it prints, the JSON names
//! scripts depend on (pinned, and listed in the README), its messages (every stderr line starts
//! with `tflite-opver: `) and its exit codes (0 ok, 1 does not run, 2 unreadable input / usage).

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::data;
use serde_json::{Value, json};
use tflite_opver::{
    BuiltinOperator, ElementType, MAX_MODEL_LEN, ModelBuilder, OpSignature, OpVersion, TensorSpec,
    params::Params,
};

fn oracle(model: &str) -> PathBuf {
    data(&format!("tflite/{model}"))
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tflite-opver"))
        .args(args)
        .output()
        .expect("binary runs")
}

/// `tflite-opver check MODEL --runtime RUNTIME [--json]`.
fn check(model: &std::path::Path, runtime: &str, json: bool) -> Output {
    check_against(model, "--runtime", runtime, json)
}

/// `tflite-opver check MODEL FLAG VALUE [--json]`: `--runtime` or `--delegate`.
fn check_against(model: &std::path::Path, flag: &str, value: &str, json: bool) -> Output {
    let mut args = vec![
        "check".as_ref(),
        model.as_os_str(),
        flag.as_ref(),
        value.as_ref(),
    ];
    if json {
        args.push("--json".as_ref());
    }
    run(&args)
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn inspect_json_has_the_documented_names() {
    let model = oracle("depthwise_conv2d_dilated__int16x8.tflite");
    let out = run(&["inspect".as_ref(), model.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(json["min_runtime_version"]["stored"], "1.12.0");
    assert_eq!(json["min_runtime_version"]["required"], "1.15.0");
    let codes = json["operator_codes"].as_array().unwrap();
    assert_eq!(codes.len(), 3);
    assert_eq!(codes[0]["name"], "DEPTHWISE_CONV_2D");
    assert_eq!(codes[0]["builtin_code"], 4);
    assert_eq!(codes[0]["custom_code"], serde_json::Value::Null);
    assert_eq!(codes[0]["stored_version"], 3);
    assert_eq!(codes[0]["required_version"], 2);
    assert_eq!(codes[2]["name"], "DEQUANTIZE");
    assert_eq!(codes[2]["required_version"], 3);
    // Why: the dilation rule of DEPTHWISE_CONV_2D; int16 tensors for the others.
    assert_eq!(codes[0]["reason"], "v2: dilation ≠ 1");
    assert_eq!(codes[1]["reason"], "v2: int16 output");
    assert_eq!(codes[2]["reason"], "v3: int16 input");
    // QUANTIZE v2 and DEQUANTIZE v3 both first shipped in 1.15.0: the first code is named.
    assert_eq!(
        json["min_runtime_version"]["because"],
        serde_json::json!({"name": "QUANTIZE", "version": 2})
    );
}

#[test]
fn inspect_says_why_a_model_needs_its_runtime() {
    let model = oracle("add__int16x8.tflite");
    let out = run(&["inspect".as_ref(), model.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(json["min_runtime_version"]["required"], "2.4.0");
    assert_eq!(
        json["min_runtime_version"]["because"],
        serde_json::json!({"name": "ADD", "version": 3})
    );
    assert_eq!(
        json["operator_codes"][0]["reason"],
        "v3: int16 input and output without pot_scale_int16"
    );
    let out = run(&["inspect".as_ref(), model.as_os_str()]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("v3        int16 input and output without pot_scale_int16"),
        "{stdout}"
    );
    assert!(
        stdout.contains("required \"2.4.0\", because of ADD v3"),
        "{stdout}"
    );
}

#[test]
fn inspect_table_flags_wrong_stamps() {
    let model = oracle("depthwise_conv2d_dilated__int16x8.tflite");
    let out = run(&["inspect".as_ref(), model.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("stamped too low"), "{stdout}");
    assert!(stdout.contains("min_runtime_version: stored \"1.12.0\", required \"1.15.0\""));
    assert!(
        stdout.contains("dilation ≠ 1  (higher than needed)"),
        "{stdout}"
    );
}

#[test]
fn check_reports_every_missing_kernel_in_tensorflows_words() {
    let model = oracle("add__int8.tflite");
    let out = check(&model, "1.5.0", false);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "Didn't find op for builtin opcode 'ADD' version '2'. An older version of this builtin \
         might be supported. Are you using an old TFLite binary with a newer model?"
        ),
        "{stderr}"
    );
    // QUANTIZE (code 114) did not exist in 1.5.0 at all.
    assert!(
        stderr.contains(
            "Op builtin_code out of range: 114. Are you using old TFLite binary with newer model?"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("'DEQUANTIZE' version '2'"), "{stderr}");

    let out = check(&model, "2.3.0", false);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn stamp_minimize_then_check_on_an_older_runtime() {
    // Stored DEPTHWISE_CONV_2D v3 is more than the op needs; minimized it runs on 1.15.0.
    let model = oracle("depthwise_conv2d_dilated__int16x8.tflite");
    let dir = std::env::temp_dir().join(format!("tflite-opver-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out_path = dir.join("min.tflite");
    let out = run(&[
        "stamp".as_ref(),
        model.as_os_str(),
        "-o".as_ref(),
        out_path.as_os_str(),
        "--minimize".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).contains("DEPTHWISE_CONV_2D: v3 -> v2"));
    let stamped = std::fs::read(&out_path).unwrap();
    let read = tflite_opver::Model::from_bytes(&stamped).unwrap();
    assert_eq!(read.stored_min_runtime_version(), Some("1.15.0"));
    let check = check(&out_path, "1.15.0", false);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stderr));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreadable_input_and_bad_usage_exit_2() {
    let dir = std::env::temp_dir().join(format!("tflite-opver-cli-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let garbage = dir.join("garbage.tflite");
    std::fs::write(&garbage, b"this is not a model").unwrap();
    let out = run(&["inspect".as_ref(), garbage.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("expected \"TFL3\""));

    let missing = dir.join("missing.tflite");
    assert_eq!(
        run(&["inspect".as_ref(), missing.as_os_str()])
            .status
            .code(),
        Some(2)
    );

    let model = oracle("add__int8.tflite");
    let out = check(&model, "two", false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(run(&["frobnicate".as_ref()]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// A fresh scratch directory for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tflite-opver-cli-{test}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "stdout is not one JSON object ({e}): {}",
            text(&output.stdout)
        )
    })
}

/// Every key path of a JSON value: `a`, `a.b`, `list[].c`.
fn key_paths(value: &Value, prefix: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let path = if prefix.is_empty() {
                    key.clone()
                } else {
                    format!("{prefix}.{key}")
                };
                out.push(path.clone());
                key_paths(inner, &path, out);
            }
        }
        Value::Array(items) => {
            for item in items {
                key_paths(item, &format!("{prefix}[]"), out);
            }
        }
        _ => {}
    }
}

fn sorted_keys(value: &Value) -> Vec<String> {
    let mut keys = Vec::new();
    key_paths(value, "", &mut keys);
    keys.sort();
    keys.dedup();
    keys
}

/// The keys of `inspect --json`, exactly; the crate README lists the same.
const INSPECT_KEYS: &[&str] = &[
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
const CHECK_KEYS: &[&str] = &[
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

/// `keys` without those starting with `prefix` (the keys of an array's items, when it is empty).
fn without_item_keys(keys: &[&'static str], prefix: &str) -> Vec<&'static str> {
    keys.iter()
        .copied()
        .filter(|key| !key.starts_with(prefix))
        .collect()
}

/// The keys of `inspect --json` and `check --json` when the model cannot be read (exit 2).
const UNREADABLE_KEYS: &[&str] = &["error", "file", "unreadable"];

/// The keys the crate README lists in the table under `heading` (first column, in backticks).
fn readme_keys(heading: &str) -> Vec<String> {
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
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let json = json_of(&out);
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

/// Every line the tool writes to stderr, in every outcome, starts with `tflite-opver: `.
fn assert_prefixed(stderr: &[u8]) {
    let stderr = text(stderr);
    assert!(!stderr.is_empty());
    for line in stderr.lines() {
        assert!(line.starts_with("tflite-opver: "), "{line:?} in\n{stderr}");
    }
}

/// Runs `inspect` on a file it cannot read: exit 2 and prefixed lines; returns stderr.
fn refused(path: &std::path::Path) -> String {
    let out = run(&["inspect".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(2), "{}", path.display());
    assert_prefixed(&out.stderr);
    text(&out.stderr)
}

#[test]
fn every_message_starts_with_the_tool_name() {
    let dir = scratch("prefix");
    let model = oracle("add__int8.tflite");
    let rejected = check(&model, "1.5.0", false);
    assert_eq!(rejected.status.code(), Some(1));
    assert!(rejected.stdout.is_empty());
    assert_prefixed(&rejected.stderr);
    assert!(text(&rejected.stderr).contains(&format!(
        "tflite-opver: {}: operator code 1 (ADD v2): Didn't find op for builtin opcode 'ADD' version '2'.",
        model.display()
    )));

    let garbage = dir.join("garbage.tflite");
    std::fs::write(&garbage, b"this is not a model").unwrap();
    let stderr = refused(&garbage);
    assert_eq!(
        stderr,
        format!(
            "tflite-opver: cannot read {} as a TFLite model: The model is not a valid Flatbuffer \
             buffer: file identifier is \" is \", expected \"TFL3\"; is this a .tflite model?\n",
            garbage.display()
        )
    );

    // A FlatBuffer cut short: planus' report is the last cause, once.
    let bytes = std::fs::read(&model).unwrap();
    let cut = dir.join("cut.tflite");
    std::fs::write(&cut, &bytes[..64]).unwrap();
    let stderr = refused(&cut);
    assert!(
        stderr.contains(
            "the file is truncated or corrupt: planus could not read the FlatBuffer: In <"
        ),
        "{stderr}"
    );
    assert_eq!(stderr.matches("Invalid").count(), 1, "{stderr}");

    assert!(refused(&dir).contains("is a directory, not a file"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A named pipe that no process writes to is refused at once, with exit 2, by every command:
/// opening it to read would block until a writer came.
#[test]
fn a_named_pipe_is_refused_without_waiting_for_a_writer() {
    use std::time::{Duration, Instant};
    let dir = scratch("fifo");
    let fifo = dir.join("model.tflite");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let out_path = dir.join("out.tflite");
    let commands: [Vec<&std::ffi::OsStr>; 4] = [
        vec!["inspect".as_ref(), fifo.as_os_str()],
        vec!["inspect".as_ref(), fifo.as_os_str(), "--json".as_ref()],
        vec![
            "check".as_ref(),
            fifo.as_os_str(),
            "--runtime".as_ref(),
            "2.3.0".as_ref(),
        ],
        vec![
            "stamp".as_ref(),
            fifo.as_os_str(),
            "-o".as_ref(),
            out_path.as_os_str(),
        ],
    ];
    for args in commands {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tflite-opver"))
            .args(&args)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("binary runs");
        let started = Instant::now();
        while child.try_wait().expect("waitable").is_none() {
            if started.elapsed() > Duration::from_secs(20) {
                child.kill().ok();
                panic!("{args:?} hangs on a named pipe");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let out = child.wait_with_output().expect("output");
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(
            text(&out.stderr).contains(&format!(
                "tflite-opver: {} is a pipe, socket or device, not a file: give a .tflite model",
                fifo.display()
            )),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    assert!(!out_path.exists());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn check_hints_when_minimizing_would_fix_it() {
    // A float RELU needs version 1 (TFLite 1.5.0) but is stamped 3.
    let dir = scratch("hint");
    let t = TensorSpec::new(ElementType::Float32, &[1, 4]);
    let relu = OpSignature::new(
        BuiltinOperator::RELU,
        vec![t.clone()],
        vec![t],
        Params::None,
    );
    let path = dir.join("relu.tflite");
    std::fs::write(
        &path,
        ModelBuilder::new()
            .signature(&relu, OpVersion::new(3))
            .finish(),
    )
    .unwrap();
    let out = check(&path, "1.5.0", false);
    assert_eq!(out.status.code(), Some(1));
    assert_prefixed(&out.stderr);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "operator code 0 (RELU v3): Didn't find op for builtin opcode 'RELU' version '3'."
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "tflite-opver: hint: its versions are stamped higher than its operators need"
        ),
        "{stderr}"
    );

    let out = check(&path, "1.5.0", true);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(json_of(&out)["runs_when_minimized"], true);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_file_over_2_gib_is_read_and_only_an_absurd_one_is_refused_unread() {
    // Over FlatBuffers' 2 GiB: a model over 2 GB keeps data after its FlatBuffer, and TFLite
    // loads such files, so the tool reads it (a sparse file of zeros: not a model, by its bytes).
    let dir = scratch("large");
    let path = dir.join("large.tflite");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MAX_MODEL_LEN as u64 + 1).unwrap();
    drop(file);
    let message = refused(&path);
    assert!(message.contains("as a TFLite model"), "{message}");
    assert!(!message.contains("this tool maps"), "{message}");

    // Over 1 TiB (sparse, nothing is written or mapped): refused before reading.
    let path = dir.join("absurd.tflite");
    let file = std::fs::File::create(&path).unwrap();
    let len = (1u64 << 40) + 1;
    file.set_len(len).unwrap();
    drop(file);
    assert_eq!(
        refused(&path),
        format!(
            "tflite-opver: {} is {len} bytes, above the 1099511627776 bytes (1 TiB) this tool \
             maps: no TFLite model is that large\n",
            path.display()
        )
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn an_empty_file_is_a_model_too_short() {
    let dir = scratch("empty");
    let path = dir.join("empty.tflite");
    std::fs::write(&path, b"").unwrap();
    let out = run(&["inspect".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("it is 0 bytes, shorter than the 8-byte header"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stamp_may_write_over_its_input() {
    let dir = scratch("in-place");
    let path = dir.join("model.tflite");
    std::fs::copy(oracle("depthwise_conv2d_dilated__int16x8.tflite"), &path).unwrap();
    let out = run(&[
        "stamp".as_ref(),
        path.as_os_str(),
        "-o".as_ref(),
        path.as_os_str(),
        "--minimize".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("DEPTHWISE_CONV_2D: v3 -> v2"), "{stdout}");
    assert!(
        stdout.contains(&format!("wrote {}", path.display())),
        "{stdout}"
    );
    let bytes = std::fs::read(&path).unwrap();
    let model = tflite_opver::Model::from_bytes(&bytes).unwrap();
    assert_eq!(model.operator_codes()[0].version, OpVersion::new(2));
    assert_eq!(model.stored_min_runtime_version(), Some("1.15.0"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_runtime_that_does_not_parse_is_a_usage_error() {
    let model = oracle("add__int8.tflite");
    let out = check(&model, "2.3.x", false);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("invalid runtime version \"2.3.x\""),
        "{stderr}"
    );
    assert!(out.stdout.is_empty());
}

/// The keys of `check --delegate NAME --json`, exactly; the crate README lists the same.
const CHECK_DELEGATE_KEYS: &[&str] = &[
    "delegate",
    "file",
    "no_kernel",
    "no_kernel_nodes",
    "not_modelled",
    "unreadable",
    "version_refusals",
    "version_refusals[].max_version",
    "version_refusals[].name",
    "version_refusals[].operator",
    "version_refusals[].reason",
    "version_refusals[].subgraph",
    "version_refusals[].version",
    "versions_accepted",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// `tflite-opver check MODEL --delegate NAME [--json]`.
fn check_delegate(model: &std::path::Path, delegate: &str, json: bool) -> Output {
    check_against(model, "--delegate", delegate, json)
}

#[test]
fn delegate_json_keys_are_pinned_and_listed() {
    assert_eq!(
        readme_keys("#### `check --delegate --json`"),
        CHECK_DELEGATE_KEYS
    );
    // GATHER v5 (batch_dims): the GPU delegate caps GATHER at 1.
    let model = oracle("gather_batch_dims__float32.tflite");
    let out = check_delegate(&model, "gpu", true);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let json = json_of(&out);
    // Stamped as TF's rules require: no `warnings[]` keys (`stamp_warnings_everywhere` has them).
    assert_eq!(
        sorted_keys(&json),
        without_item_keys(CHECK_DELEGATE_KEYS, "warnings[")
    );
    assert_eq!(json["delegate"], "GPU");
    assert_eq!(json["versions_accepted"], false);
    assert_eq!(
        json["version_refusals"],
        serde_json::json!([{
            "subgraph": 0, "operator": 0, "name": "GATHER", "version": 5, "max_version": 1,
            "reason": "Max version supported: 1. Requested version 5.",
        }])
    );
    assert!(
        json["not_modelled"]
            .as_str()
            .unwrap()
            .contains("not modelled")
    );

    // NNAPI's ExpectOpVersion(version, 2) for GATHER, in its own words.
    let json = json_of(&check_delegate(&model, "nnapi", true));
    assert_eq!(json["delegate"], "NNAPI");
    assert_eq!(json["version_refusals"][0]["max_version"], 2);
    assert_eq!(
        json["version_refusals"][0]["reason"],
        "OP Version different from 2"
    );
}

#[test]
fn check_delegate_lists_refused_nodes_and_what_is_not_modelled() {
    let model = oracle("fully_connected_keep_dims__dynamic.tflite");
    let out = check_delegate(&model, "gpu", false);
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = text(&out.stderr);
    assert_prefixed(&out.stderr);
    assert!(
        stderr.contains(
            "subgraph 0 node 0 (FULLY_CONNECTED v12): Max version supported: 9. Requested version 12.\n"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("the GPU delegate refuses 1 of its 1 node(s) on version grounds"));
    assert!(stderr.contains("tflite-opver: note: the GPU delegate also checks"));

    // XNNPACK takes FULLY_CONNECTED v12; nothing is refused.
    let out = check_delegate(&model, "xnnpack", false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("the XNNPACK delegate refuses none of its 1 node(s) on version grounds"),
        "{stdout}"
    );
    assert!(stdout.contains("note: XNNPACK also checks"), "{stdout}");
}

#[test]
fn xnnpack_refuses_sparse_fully_connected_and_names_ops_without_a_kernel() {
    let f32 = TensorSpec::new(ElementType::Float32, &[1, 4]);
    let fc = OpSignature::new(
        BuiltinOperator::FULLY_CONNECTED,
        vec![f32.clone(), f32.clone()],
        vec![f32.clone()],
        Params::None,
    );
    let lookup = OpSignature::new(
        BuiltinOperator::EMBEDDING_LOOKUP,
        vec![f32.clone(), f32.clone()],
        vec![f32],
        Params::None,
    );
    // Version 8 is what the converter stamps for sparse weights.
    let bytes = ModelBuilder::new()
        .signature(&fc, OpVersion::new(8))
        .signature(&lookup, OpVersion::ONE)
        .signature(&lookup, OpVersion::ONE)
        .finish();
    let path = scratch("xnnpack_fc8").join("fc8.tflite");
    std::fs::write(&path, bytes).unwrap();

    let out = check_delegate(&path, "xnnpack", false);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "subgraph 0 node 0 (FULLY_CONNECTED v8): Unsupported version 8 of FullyConnected.\n"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "tflite-opver: 2 node(s) have no XNNPACK kernel at all and stay on the CPU: EMBEDDING_LOOKUP\n"
        ),
        "{stderr}"
    );
    let json = json_of(&check_delegate(&path, "xnnpack", true));
    assert_eq!(json["version_refusals"][0]["max_version"], Value::Null);
    assert_eq!(json["no_kernel"], serde_json::json!(["EMBEDDING_LOOKUP"]));
    assert_eq!(json["no_kernel_nodes"], 2);

    // The GPU delegate takes FULLY_CONNECTED up to version 9.
    let out = check_delegate(&path, "gpu", false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
}

#[test]
fn delegate_usage_errors_exit_2() {
    let model = oracle("add__float32.tflite");
    let out = check_delegate(&model, "tpu", false);
    assert_eq!(out.status.code(), Some(2));
    let out = run(&[
        "check".as_ref(),
        model.as_os_str(),
        "--delegate".as_ref(),
        "gpu".as_ref(),
        "--runtime".as_ref(),
        "2.3.0".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    // Neither a runtime nor a delegate.
    let out = run(&["check".as_ref(), model.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
}

/// A model of `operators` int8 ADDs, each on fresh tensors (two constant inputs, all three
/// quantized), as converters write them: ten FlatBuffer tables per operator (operator,
/// AddOptions, 3 tensors, 3 quantization tables, 2 buffers).
pub(crate) fn int8_adds(operators: usize) -> Vec<u8> {
    let q = tflite_opver::Quantization::per_tensor(0.5);
    let t = TensorSpec::new(ElementType::Int8, &[1, 4]).quantized(q);
    let add = OpSignature::new(
        BuiltinOperator::ADD,
        vec![t.clone().constant(), t.clone().constant()],
        vec![t],
        Params::Add(tflite_opver::params::AddParams::default()),
    );
    let mut builder = ModelBuilder::new();
    for _ in 0..operators {
        builder.signature(&add, OpVersion::new(2));
    }
    builder.finish()
}

#[test]
fn inspect_warns_above_the_verifiers_table_limit() {
    let dir = scratch("max_tables");
    // 100,000 operators: 1,000,004 tables (with the model, its operator code, subgraph and
    // empty buffer 0), just above flatbuffers' default max_tables.
    let path = dir.join("adds.tflite");
    std::fs::write(&path, int8_adds(100_000)).unwrap();
    let out = run(&["inspect".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_prefixed(&out.stderr);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "adds.tflite: the model has 1000004 FlatBuffer tables, above the 1000000 TFLite's \
             verifier accepts"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("flatbuffers/verifier.h"), "{stderr}");
    assert!(
        stderr.contains("\"The model is not a valid Flatbuffer buffer\""),
        "{stderr}"
    );

    let out = run(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0));
    assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    let json = json_of(&out);
    assert_eq!(sorted_keys(&json), INSPECT_KEYS);
    assert_eq!(json["verifier_tables"], 1_000_004);
    let warnings = json["loader_warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["limit"], "max_tables");
    assert_eq!(warnings[0]["value"], 1_000_004);
    assert_eq!(warnings[0]["max"], 1_000_000);
    std::fs::remove_dir_all(&dir).ok();
}

/// A float16 DEQUANTIZE (needs v3) stored at v2 and a half-pixel RESIZE_BILINEAR (needs v3)
/// stored at v1, as models in public wheels ship; with `metadata`, its entries.
fn stamped_too_low(metadata: Option<(&str, &[u8])>) -> Vec<u8> {
    let x = TensorSpec::new(ElementType::Float32, &[1, 4, 4, 2]);
    let dequantize = OpSignature::new(
        BuiltinOperator::DEQUANTIZE,
        vec![TensorSpec::new(ElementType::Float16, &[1, 4, 4, 2]).constant()],
        vec![x.clone()],
        Params::None,
    );
    let resize = OpSignature::new(
        BuiltinOperator::RESIZE_BILINEAR,
        vec![x, TensorSpec::new(ElementType::Int32, &[2]).constant()],
        vec![TensorSpec::new(ElementType::Float32, &[1, 8, 8, 2])],
        Params::ResizeBilinear(tflite_opver::params::ResizeBilinearParams {
            align_corners: false,
            half_pixel_centers: true,
        }),
    );
    let mut builder = ModelBuilder::new();
    builder
        .signature(&dequantize, OpVersion::new(2))
        .signature(&resize, OpVersion::ONE);
    if let Some((name, data)) = metadata {
        builder.metadata(name, data);
    }
    builder.finish()
}

#[test]
fn stamp_warnings_everywhere() {
    let dir = scratch("stamp_warnings");
    for (file, metadata, runtime_kind) in [
        ("no_metadata.tflite", None, "no_metadata"),
        (
            "no_entry.tflite",
            Some(("CONVERSION_METADATA", &b"\x0c\x00\x00\x00"[..])),
            "no_min_runtime_version",
        ),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, stamped_too_low(metadata)).unwrap();

        // inspect: the table flags both codes, and stderr has one warning per finding.
        let out = run(&["inspect".as_ref(), path.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert_eq!(stdout.matches("<- stamped too low").count(), 2, "{stdout}");
        assert!(
            stdout.contains("stored (none), required \"2.2.0\""),
            "{stdout}"
        );
        assert_prefixed(&out.stderr);
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 3, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "tflite-opver: warning: {}: operator code 0 (DEQUANTIZE) is stored as version 2, \
                 but its operators need version 3 (float16 input)",
                path.display()
            )),
            "{stderr}"
        );
        assert!(
            stderr.contains("operator code 1 (RESIZE_BILINEAR) is stored as version 1"),
            "{stderr}"
        );
        assert!(stderr.contains("runtime_version.cc"), "{stderr}");

        // inspect --json: the same, as `warnings`.
        let out = run(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
        let json = json_of(&out);
        assert_eq!(
            sorted_keys(&json),
            without_item_keys(INSPECT_KEYS, "loader_warnings[")
        );
        let warnings = json["warnings"].as_array().unwrap();
        let kinds: Vec<_> = warnings.iter().map(|w| w["kind"].clone()).collect();
        assert_eq!(
            kinds,
            ["version_too_low", "version_too_low", runtime_kind],
            "{file}"
        );
        assert_eq!(warnings[1]["operator_code"], 1);
        assert_eq!(warnings[2]["operator_code"], Value::Null);
        assert_eq!(json["min_runtime_version"]["stored"], Value::Null);

        // check: the stored versions resolve on 2.2.0, and the warnings say what is wrong.
        let out = check(&path, "2.2.0", false);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_prefixed(&out.stderr);
        assert_eq!(text(&out.stderr).lines().count(), 3);
        let out = check(&path, "2.2.0", true);
        let json = json_of(&out);
        assert_eq!(
            sorted_keys(&json),
            without_item_keys(CHECK_KEYS, "unresolved[")
        );
        assert_eq!(json["warnings"].as_array().unwrap().len(), 3);
        let out = check_delegate(&path, "gpu", true);
        assert_eq!(json_of(&out)["warnings"].as_array().unwrap().len(), 3);

        // stamp: says what it found beside each change, and leaves nothing to warn about.
        let stamped = dir.join(format!("stamped_{file}"));
        let out = run(&[
            "stamp".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            stamped.as_os_str(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        assert!(
            report.contains(
                "DEQUANTIZE: v2 -> v3 (stored lower than its operators need: v3: float16 input)"
            ),
            "{report}"
        );
        assert!(
            report.contains("RESIZE_BILINEAR: v1 -> v3 (stored lower than its operators need"),
            "{report}"
        );
        assert!(
            report.contains("min_runtime_version: (none) -> \"2.2.0\" (added: the model"),
            "{report}"
        );
        let out = run(&["inspect".as_ref(), stamped.as_os_str(), "--json".as_ref()]);
        let json = json_of(&out);
        assert_eq!(json["warnings"], serde_json::json!([]), "{file}");
        assert_eq!(json["min_runtime_version"]["stored"], "2.2.0");
        let out = run(&["inspect".as_ref(), stamped.as_os_str()]);
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// The keys of `runtimes --json`, exactly; the crate README lists the same.
const RUNTIMES_KEYS: &[&str] = &[
    "file",
    "loads_on",
    "oldest",
    "oldest.ai-edge-litert",
    "oldest.tensorflow-cpu",
    "oldest.tflite-runtime",
    "required",
    "required[].loads",
    "required[].runtime",
    "runtimes",
    "runtimes[].blocking",
    "runtimes[].blocking[].builtin_code",
    "runtimes[].blocking[].cause",
    "runtimes[].blocking[].max_registered_version",
    "runtimes[].blocking[].name",
    "runtimes[].blocking[].operator_code",
    "runtimes[].blocking[].reason",
    "runtimes[].blocking[].required_version",
    "runtimes[].blocking[].version",
    "runtimes[].crashes",
    "runtimes[].error",
    "runtimes[].family",
    "runtimes[].loads",
    "runtimes[].refused_by",
    "runtimes[].runtime",
    "runtimes[].version",
    "unreadable",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// A float SQRT stamped version 2 (the version of its int8 and int16 kernels, which came in
/// TensorFlow 2.21 and ai-edge-litert 2.0.2): a model older runtimes refuse.
fn sqrt_v2(dir: &std::path::Path) -> PathBuf {
    let t = TensorSpec::new(ElementType::Float32, &[1, 4]);
    let sqrt = OpSignature::new(
        BuiltinOperator::SQRT,
        vec![t.clone()],
        vec![t],
        Params::None,
    );
    let path = dir.join("sqrt_v2.tflite");
    std::fs::write(
        &path,
        ModelBuilder::new()
            .signature(&sqrt, OpVersion::new(2))
            .finish(),
    )
    .unwrap();
    path
}

fn runtimes(model: &std::path::Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["runtimes".as_ref(), model.as_os_str()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    run(&args)
}

#[test]
fn runtimes_json_has_the_documented_names() {
    assert_eq!(readme_keys("#### `runtimes --json`"), RUNTIMES_KEYS);
    let dir = scratch("runtimes-json");
    let model = sqrt_v2(&dir);
    let out = runtimes(
        &model,
        &[
            "--json",
            "--require",
            "ai-edge-litert 2.3.0",
            "--require",
            "tensorflow-cpu 2.20.0",
        ],
    );
    // A required runtime refuses it.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json = json_of(&out);
    // Every key, and no other (the model has no metadata: a stamp warning).
    assert_eq!(sorted_keys(&json), RUNTIMES_KEYS);
    assert_eq!(json["warnings"][0]["kind"], "no_metadata");
    let all = json["runtimes"].as_array().unwrap();
    assert_eq!(all.len(), 30);
    assert_eq!(all[0]["runtime"], "tensorflow-cpu 2.12.1");
    assert_eq!(all[0]["family"], "tensorflow-cpu");
    assert_eq!(all[0]["version"], "2.12.1");
    assert_eq!(all[0]["loads"], false);
    assert_eq!(all[0]["crashes"], false);
    assert_eq!(all[0]["refused_by"], "operator");
    assert_eq!(
        all[0]["error"],
        "Didn't find op for builtin opcode 'SQRT' version '2'. An older version of this builtin \
         might be supported. Are you using an old TFLite binary with a newer model?\n\
         Registration failed.\n"
    );
    let blocking = &all[0]["blocking"][0];
    assert_eq!(blocking["operator_code"], 0);
    assert_eq!(blocking["name"], "SQRT");
    assert_eq!(blocking["builtin_code"], 75);
    assert_eq!(blocking["version"], 2);
    assert_eq!(blocking["max_registered_version"], 1);
    assert_eq!(blocking["cause"], "version_not_registered");
    assert_eq!(blocking["required_version"], 1);
    assert!(blocking["reason"].as_str().unwrap().starts_with("v1: "));
    assert_eq!(all[9]["runtime"], "tensorflow-cpu 2.21.0");
    assert_eq!(all[9]["loads"], true);
    assert_eq!(all[9]["error"], Value::Null);
    assert_eq!(all[9]["refused_by"], Value::Null);
    assert_eq!(all[9]["blocking"], json!([]));
    assert_eq!(json["oldest"]["tensorflow-cpu"], "2.21.0");
    assert_eq!(json["oldest"]["tflite-runtime"], Value::Null);
    assert_eq!(json["oldest"]["ai-edge-litert"], "2.0.2");
    assert_eq!(json["loads_on"].as_array().unwrap().len(), 12);
    assert_eq!(
        json["required"],
        json!([
            {"runtime": "ai-edge-litert 2.3.0", "loads": true},
            {"runtime": "tensorflow-cpu 2.20.0", "loads": false},
        ])
    );
    assert_eq!(json["file"], model.display().to_string());
    assert_eq!(json["unreadable"], false);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn runtimes_exits_1_only_when_no_runtime_or_a_required_one_refuses() {
    let dir = scratch("runtimes-exit");
    let model = sqrt_v2(&dir);
    // Some runtime loads it: 0, and the table on standard output.
    let out = runtimes(&model, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(&format!(
            "{}: loads on 12 of 30 runtimes\noldest that load it: tensorflow-cpu 2.21.0, no \
             tflite-runtime, ai-edge-litert 2.0.2\n",
            model.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains(
        "\n  tensorflow-cpu 2.20.0    Didn't find op for builtin opcode 'SQRT' version '2'. An \
         older version of this builtin might be supported. Are you using an old TFLite binary \
         with a newer model? Registration failed.\n                             operator code 0 \
         (SQRT v2): it registers up to v1; its operators need v1: "
    ));
    assert!(
        stdout.contains("`tflite-opver stamp --minimize` lowers it\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains("\n  ai-edge-litert 2.3.0     loads\n"),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 2 + 30 + 18);
    // The model has no metadata: the stamp warning, and nothing else.
    let warning = format!(
        "tflite-opver: warning: {}: the model has no metadata",
        model.display()
    );
    let only_the_warning = |out: &Output| {
        let stderr = text(&out.stderr);
        stderr.lines().count() == 1 && stderr.starts_with(&warning)
    };
    assert!(only_the_warning(&out), "{}", text(&out.stderr));

    // Every required runtime loads it: 0.
    let out = runtimes(
        &model,
        &[
            "--require",
            "ai-edge-litert 2.0.2",
            "--require",
            "tensorflow-cpu 2.21.0",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(only_the_warning(&out), "{}", text(&out.stderr));

    // One refuses it: 1, and why on standard error.
    let out = runtimes(&model, &["--require", "ai-edge-litert 1.4.0"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let file = model.display();
    let (stderr, rest) = stderr.split_at(stderr.find(&warning).unwrap_or(stderr.len()));
    assert!(rest.starts_with(&warning), "{rest}");
    assert_eq!(
        stderr,
        format!(
            "tflite-opver: {file}: ai-edge-litert 1.4.0 refuses it (required): Didn't find op \
             for builtin opcode 'SQRT' version '2'. An older version of this builtin might be \
             supported. Are you using an old TFLite binary with a newer model? Registration \
             failed.\ntflite-opver: {file}: ai-edge-litert 1.4.0: operator code 0 (SQRT v2): it \
             registers up to v1; its operators need {}; `tflite-opver stamp --minimize` lowers \
             it\n",
            stderr
                .split("its operators need ")
                .nth(1)
                .and_then(|rest| rest.split(';').next())
                .unwrap_or("?")
        )
    );

    // No runtime loads it: 1.
    let out_of_range = dir.join("code_250.tflite");
    let t = TensorSpec::new(ElementType::Float32, &[4]);
    let mut builder = ModelBuilder::new();
    let code = builder.operator_code(BuiltinOperator::new(250), OpVersion::ONE);
    let (a, b) = (builder.tensor(&t), builder.tensor(&t));
    builder.operator(code, &[a], &[b], None);
    std::fs::write(&out_of_range, builder.finish()).unwrap();
    let out = runtimes(&out_of_range, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json = json_of(&out);
    assert_eq!(json["loads_on"], json!([]));
    assert_eq!(
        json["runtimes"][29]["error"],
        "Op builtin_code out of range: 250. Are you using old TFLite binary with newer model?\
         Registration failed.\n"
    );
    assert_eq!(
        json["runtimes"][29]["blocking"][0]["cause"],
        "code_out_of_range"
    );
    assert_eq!(
        json["runtimes"][29]["blocking"][0]["max_registered_version"],
        Value::Null
    );

    // A runtime that is not one of the thirty is a usage error; so is an unreadable model.
    let out = runtimes(&model, &["--require", "ai-edge-litert 9.9.9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown runtime \"ai-edge-litert 9.9.9\""));
    let garbage = dir.join("garbage.tflite");
    std::fs::write(&garbage, b"not a model at all").unwrap();
    let out = runtimes(&garbage, &["--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(sorted_keys(&json_of(&out)), UNREADABLE_KEYS);
    std::fs::remove_dir_all(&dir).ok();
}
