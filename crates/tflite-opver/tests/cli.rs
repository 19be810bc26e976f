//! The `tflite-opver` command line on real converter models: what it prints, the JSON names
//! scripts depend on, and its exit codes (0 ok, 1 does not run, 2 unreadable input / usage).
#![cfg(feature = "cli")]

mod common;

use std::path::PathBuf;

use common::data;
use std::process::{Command, Output};

fn oracle(model: &str) -> PathBuf {
    data(&format!("tflite/{model}"))
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_tflite-opver"))
        .args(args)
        .output()
        .expect("binary runs")
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
}

#[test]
fn inspect_table_flags_wrong_stamps() {
    let model = oracle("depthwise_conv2d_dilated__int16x8.tflite");
    let out = run(&["inspect".as_ref(), model.as_os_str()]);
    assert_eq!(out.status.code(), Some(0));
    let stdout = text(&out.stdout);
    assert!(stdout.contains("stamped too low"), "{stdout}");
    assert!(stdout.contains("min_runtime_version: stored \"1.12.0\", required \"1.15.0\""));
}

#[test]
fn check_reports_every_missing_kernel_in_tensorflows_words() {
    let model = oracle("add__int8.tflite");
    let out = run(&[
        "check".as_ref(),
        model.as_os_str(),
        "--runtime".as_ref(),
        "1.5.0".as_ref(),
    ]);
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

    let out = run(&[
        "check".as_ref(),
        model.as_os_str(),
        "--runtime".as_ref(),
        "2.3.0".as_ref(),
    ]);
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
    let check = run(&[
        "check".as_ref(),
        out_path.as_os_str(),
        "--runtime".as_ref(),
        "1.15.0".as_ref(),
    ]);
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
    let out = run(&[
        "check".as_ref(),
        model.as_os_str(),
        "--runtime".as_ref(),
        "two".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(run(&["frobnicate".as_ref()]).status.code(), Some(2));
    std::fs::remove_dir_all(&dir).ok();
}
