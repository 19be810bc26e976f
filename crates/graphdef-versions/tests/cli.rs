//! The `graphdef-versions` binary: verdicts, JSON field names, exit codes.
//! Needs the `cli` feature: `cargo test -p graphdef-versions --all-features`.

mod common;

use std::path::PathBuf;
use std::process::{Command, Output};

use common::{data, graph, saved_model_around, versions};
use prost::Message;
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_graphdef-versions"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn temp_file(name: &str, bytes: &[u8]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("graphdef-versions-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path
}

fn json_of(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout).expect("stdout is one JSON object")
}

#[test]
fn real_graphs_are_accepted_with_exit_0() {
    for name in ["small.pb", "medium.pb", "with_library.pb"] {
        let path = data(&format!("graphdef/{name}"));
        let output = run(&["check", path.to_str().unwrap(), "--json"]);
        assert_eq!(output.status.code(), Some(0), "{name}");
        let json = json_of(&output);
        assert_eq!(json["kind"], "graph_def");
        assert_eq!(json["producer"], 2474);
        assert_eq!(json["accepted"], true);
        assert_eq!(json["error"], Value::Null);
        assert_eq!(json["bad_consumers"], serde_json::json!([]));
        assert_eq!(json["deprecated_ops"], serde_json::json!([]));
        assert_eq!(json["warnings"], serde_json::json!([]));
    }
    let text = run(&["check", data("graphdef/small.pb").to_str().unwrap()]);
    assert_eq!(text.status.code(), Some(0));
    let stdout = String::from_utf8(text.stdout).unwrap();
    assert!(stdout.contains("verdict: accepted"), "{stdout}");
    assert!(stdout.contains("producer 2474"), "{stdout}");
}

#[test]
fn an_old_consumer_rejects_with_exit_1_and_tensorflows_message() {
    let path = data("graphdef/with_library.pb");
    let output = run(&[
        "check",
        path.to_str().unwrap(),
        "--consumer",
        "11",
        "--tf-version",
        "0.10.0",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let json = json_of(&output);
    assert_eq!(json["accepted"], false);
    assert_eq!(json["min_consumer"], 12);
    assert_eq!(
        json["error"],
        "GraphDef min consumer version 12 above current version 11 for TensorFlow 0.10.0.  Please upgrade TensorFlow."
    );
}

#[test]
fn saved_models_are_detected() {
    let bytes = std::fs::read(data("graphdef/small.pb")).unwrap();
    let path = temp_file("saved_model.pb", &saved_model_around(&bytes));
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(json["kind"], "saved_model");
    assert_eq!(json["graphs"][0]["meta_graph"], 0);
    assert_eq!(json["graphs"][0]["nodes"], 7);
}

#[test]
fn deprecated_ops_reject_or_warn() {
    let removed = graph(
        &["Const", "TopK"],
        &["BatchFFT"],
        Some(versions(20, 0, &[])),
    );
    let path = temp_file("removed.pb", &removed.encode_to_vec());
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let json = json_of(&output);
    assert_eq!(
        json["deprecated_ops"],
        serde_json::json!([
            {"name": "TopK", "version": 7, "explanation": "Use TopKV2 instead"},
            {"name": "BatchFFT", "version": 15, "explanation": "Use FFT"},
        ])
    );
    assert_eq!(
        json["error"],
        "Op TopK is not available in GraphDef version 20. It has been removed in version 7. Use TopKV2 instead."
    );

    let warned = graph(
        &["Const"],
        &["MatrixExponential"],
        Some(versions(26, 0, &[])),
    );
    let path = temp_file("warned.pb", &warned.encode_to_vec());
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(
        json["warnings"],
        serde_json::json!([
            "Op MatrixExponential is deprecated. It will cease to work in GraphDef version 27. Use Python implementation tf.linalg.matrix_exponential instead.."
        ])
    );
    let text = run(&["check", path.to_str().unwrap()]);
    assert!(
        String::from_utf8(text.stdout)
            .unwrap()
            .contains("warning: Op MatrixExponential is deprecated.")
    );
}

#[test]
fn unreadable_input_and_bad_usage_exit_2() {
    let missing = run(&["check", "/nonexistent/graph.pb"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        String::from_utf8(missing.stderr)
            .unwrap()
            .contains("cannot read /nonexistent/graph.pb")
    );

    let garbage = temp_file("garbage.pb", &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2]);
    let output = run(&["check", garbage.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("truncated input"), "{stderr}");

    let output = run(&["check", garbage.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(json_of(&output)["accepted"], false);

    assert_eq!(run(&["check"]).status.code(), Some(2));
    assert_eq!(
        run(&["check", "x.pb", "--consumer", "many"]).status.code(),
        Some(2)
    );
    assert_eq!(run(&["frobnicate"]).status.code(), Some(2));
}

#[test]
fn consumer_and_min_producer_flags_are_used() {
    let path = data("graphdef/small.pb");
    let output = run(&[
        "check",
        path.to_str().unwrap(),
        "--min-producer",
        "2475",
        "--consumer",
        "2500",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(
        json_of(&output)["error"],
        "GraphDef producer version 2474 below min producer 2475 supported by TensorFlow 2.21.0.  Please regenerate your graph."
    );
    let misordered = run(&[
        "check",
        path.to_str().unwrap(),
        "--min-producer",
        "10",
        "--consumer",
        "-3",
        "--json",
    ]);
    assert_eq!(misordered.status.code(), Some(1));
    assert_eq!(
        json_of(&misordered)["error"],
        "GraphDef version check has consumer -3 < min_producer 10."
    );
}

#[test]
fn history_answers_the_version_of_a_day() {
    let output = run(&["history", "--on", "2022-07-05"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(String::from_utf8(output.stdout).unwrap().trim(), "1183");
    assert_eq!(
        run(&["history", "--on", "2022-02-30"]).status.code(),
        Some(2)
    );
    let table = String::from_utf8(run(&["history"]).stdout).unwrap();
    assert!(table.contains("First real version."));
}
