//! The `tflite-opver` command line on real converter models: what it prints, the JSON names
//! scripts depend on (pinned, and listed in the README), its messages (every stderr line starts
//! with `tflite-opver: `) and its exit codes (0 ok, 1 does not run, 2 unreadable input / usage).

mod delegate;
mod json_keys;
mod runtimes;
mod stamps;

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

    // A truncated model: what is cut off, in a user's words, not planus' internals.
    let truncated = dir.join("truncated.tflite");
    std::fs::write(
        &truncated,
        &std::fs::read(oracle("add__int8.tflite")).unwrap()[..64],
    )
    .unwrap();
    let out = run(&["inspect".as_ref(), truncated.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains("the model is cut off: its operator codes table lies past the end of the file (file is 64 bytes)"),
        "{stderr}"
    );
    assert!(
        !stderr.contains("Invalid offset") && !stderr.contains("<Model"),
        "{stderr}"
    );

    let model = oracle("add__int8.tflite");
    let out = check(&model, "two", false);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(run(&["frobnicate".as_ref()]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}

/// A fresh scratch directory for one test.
/// A model of one float operator `op` of one input and one output, stamped `version`, written
/// into `dir`.
fn float_op_stamped(dir: &std::path::Path, op: BuiltinOperator, version: i32) -> PathBuf {
    let t = TensorSpec::new(ElementType::Float32, &[1, 4]);
    let signature = OpSignature::new(op, vec![t.clone()], vec![t], Params::None);
    let path = dir.join(format!("{op:?}_v{version}.tflite"));
    std::fs::write(
        &path,
        ModelBuilder::new()
            .signature(&signature, OpVersion::new(version))
            .finish(),
    )
    .unwrap();
    path
}

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

/// The JSON object on standard output, with nothing on standard error: what `--json` prints
/// when it has no usage error to report.
fn json_alone(output: &Output) -> Value {
    assert!(output.stderr.is_empty(), "{}", text(&output.stderr));
    json_of(output)
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

    // A FlatBuffer cut short: what is cut off, once, in a user's words (planus' report is
    // kept in the error for code, not printed).
    let bytes = std::fs::read(&model).unwrap();
    let cut = dir.join("cut.tflite");
    std::fs::write(&cut, &bytes[..64]).unwrap();
    let stderr = refused(&cut);
    assert_eq!(
        stderr,
        format!(
            "tflite-opver: cannot read {} as a TFLite model: the model is cut off: its operator \
             codes table lies past the end of the file (file is 64 bytes); the file was probably \
             truncated while copying or downloading: copy or download it again\n",
            cut.display()
        )
    );

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
    let path = float_op_stamped(&dir, BuiltinOperator::RELU, 3);
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
