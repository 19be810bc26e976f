//! The `graphdef-versions` binary: verdicts, JSON field names, exit codes.
//! `cargo test` builds the binary (the crate is its own dev-dependency with the `cli` feature).

use std::path::PathBuf;
use std::process::{Command, Output};

use crate::common::{data, graph, saved_model_around, versions};
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

    // `check` takes a SavedModel's directory as `releases` does, and reads its saved_model.pb:
    // its versions pass, but TensorFlow 2.21 looks for the variables this copy does not keep.
    let dir = data("release_cases/cases/e_2.21.0_new_CheckPinned");
    let output = run(&["check", dir.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let json = json_of(&output);
    assert_eq!(json["file"], dir.to_str().unwrap());
    assert_eq!(json["kind"], "saved_model");
    assert_eq!(json["producer"], 2474);
    assert_eq!(json["graphs"][0]["accepted"], true);
    assert_eq!(json["load"]["error_class"], "FileNotFoundError");
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
    // Its nodes have no attrs, which TensorFlow 2.21's importer refuses: a consumer that is no
    // release (here 2.21.0-rc1) judges the versions and deprecations alone.
    let output = run(&[
        "check",
        path.to_str().unwrap(),
        "--json",
        "--tf-version",
        "2.21.0-rc1",
    ]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(json_of(&output)["load"], Value::Null);
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(json_of(&output)["graphs"][0]["accepted"], true);
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

/// Runs the binary with `args`, killing it if it has not finished within ten seconds.
fn run_within_ten_seconds(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_graphdef-versions"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let start = std::time::Instant::now();
    while child.try_wait().expect("waitable").is_none() {
        if start.elapsed() > std::time::Duration::from_secs(10) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("graphdef-versions {args:?} still runs after ten seconds");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().expect("its output")
}

#[test]
fn a_named_pipe_no_one_writes_to_is_refused_at_once() {
    let dir = std::env::temp_dir().join(format!("graphdef-versions-fifo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fifo = dir.join("graph.pb");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("mkfifo runs");
    assert!(made.success(), "mkfifo {}", fifo.display());
    let path = fifo.to_str().unwrap();
    for args in [
        &["check", path][..],
        &["check", path, "--json"],
        &["releases", path],
        &["releases", path, "--json"],
    ] {
        let output = run_within_ten_seconds(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("is a pipe, socket or device, not a file"),
            "{args:?}: {stderr}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
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

/// Every line the tool writes to stderr starts with its name.
fn assert_prefixed(output: &Output) -> String {
    let stderr = String::from_utf8(output.stderr.clone()).unwrap();
    assert!(!stderr.is_empty(), "nothing on stderr");
    for line in stderr.lines() {
        assert!(line.starts_with("graphdef-versions: "), "{line:?}");
    }
    stderr
}

#[test]
fn errors_are_one_prefixed_line_with_their_causes() {
    let missing = run(&["check", "/nonexistent/graph.pb"]);
    assert_eq!(missing.status.code(), Some(2));
    assert_eq!(
        assert_prefixed(&missing),
        "graphdef-versions: cannot read /nonexistent/graph.pb: No such file or directory (os error 2)\n"
    );
    assert!(missing.stdout.is_empty());

    let garbage = temp_file("garbage2.pb", &[0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f, 1, 2]);
    let output = run(&["check", garbage.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = assert_prefixed(&output);
    assert_eq!(
        stderr,
        format!(
            "graphdef-versions: cannot read {} as a GraphDef or SavedModel: truncated input: a \
             length-delimited field at byte 0 needs 4294967295 bytes but only 2 remain; the file is \
             cut short or is not a GraphDef or SavedModel\n",
            garbage.display()
        )
    );

    // The framing fault is the last link of the chain.
    let malformed = temp_file("malformed.pb", &[0x0f]);
    let output = run(&["check", malformed.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = assert_prefixed(&output);
    assert!(
        stderr.contains("malformed protobuf at byte 0 while reading GraphDef or SavedModel: the file is damaged or is not a GraphDef or SavedModel: a field key has wire type 7, which protobuf does not define"),
        "{stderr}"
    );

    // A directory is read as a SavedModel: one without a saved_model.pb is refused in
    // TensorFlow's words, before anything is read.
    let dir = data("graphdef");
    for command in ["check", "releases"] {
        let output = run(&[command, dir.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2));
        assert_eq!(
            assert_prefixed(&output),
            format!(
                "graphdef-versions: {0} is not a SavedModel directory: SavedModel file does not \
                 exist at: {0}/{{saved_model.pbtxt|saved_model.pb}}\n",
                dir.display()
            )
        );
    }

    let output = run(&["history", "--on", "2022-02-30"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("write a day that exists as YYYY-MM-DD"),
        "{stderr}"
    );
    let output = run(&["check", "x.pb", "--tf-version", "latest"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("write it as MAJOR.MINOR.PATCH"), "{stderr}");
}

#[test]
fn files_above_two_gib_are_refused_before_they_are_read() {
    // A sparse file one byte above protobuf's limit: its metadata says how long it is, and the
    // tool must refuse it on that alone (reading or mapping 2 GiB would be the bug).
    let path = temp_file("huge.pb", &[]);
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(2_147_483_648).unwrap();
    drop(file);
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    std::fs::remove_file(&path).unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = assert_prefixed(&output);
    assert_eq!(
        stderr,
        format!(
            "graphdef-versions: {} is 2147483648 bytes, above protobuf's limit of 2147483647 bytes \
             (2 GiB) for one message: TensorFlow cannot parse it as a GraphDef or SavedModel\n",
            path.display()
        )
    );
    let json = json_of(&output);
    assert_eq!(json["unreadable"], true);
    assert_eq!(json["accepted"], false);
}

#[test]
fn an_empty_file_is_an_empty_graph_from_before_versioning() {
    let path = temp_file("empty.pb", &[]);
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(json["kind"], "graph_def");
    assert_eq!(json["producer"], 0);
    assert_eq!(json["graphs"][0]["has_versions"], false);
    assert_eq!(json["graphs"][0]["nodes"], 0);
    // Accepted, as TensorFlow accepts it, with a warning that a file of 0 bytes is more often
    // a failed download than a graph: on stderr, and in the JSON warnings.
    let warning = format!(
        "{} is 0 bytes: TensorFlow reads it as an empty GraphDef (no node, no versions), which \
         every release loads; a file of 0 bytes is often a download or a copy that failed",
        path.display()
    );
    assert_eq!(json["warnings"], serde_json::json!([warning]));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("graphdef-versions: warning: {warning}\n")
    );
    let output = run(&["releases", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(json["oldest_release"], "2.12.1");
    assert_eq!(json["warnings"], serde_json::json!([warning]));
    assert_eq!(
        String::from_utf8(output.stderr).unwrap(),
        format!("graphdef-versions: warning: {warning}\n")
    );
    // A file that is not empty gets no such warning.
    let output = run(&[
        "check",
        data("graphdef/small.pb").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(json_of(&output)["warnings"], serde_json::json!([]));
    assert!(output.stderr.is_empty());
    // An older minimum producer than the graph's is still refused in TensorFlow's words.
    let output = run(&["check", path.to_str().unwrap(), "--min-producer", "1"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        String::from_utf8(output.stdout)
            .unwrap()
            .contains("GraphDef producer version 0 below min producer 1")
    );
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

/// The keys of `check --json`, exactly; the crate README lists the same.
const CHECK_KEYS: &[&str] = &[
    "accepted",
    "bad_consumers",
    "consumer",
    "consumer.min_producer",
    "consumer.tf_version",
    "consumer.version",
    "deprecated_ops",
    "deprecated_ops[].explanation",
    "deprecated_ops[].name",
    "deprecated_ops[].version",
    "error",
    "file",
    "graphs",
    "graphs[].accepted",
    "graphs[].bad_consumers",
    "graphs[].error",
    "graphs[].has_versions",
    "graphs[].library_functions",
    "graphs[].meta_graph",
    "graphs[].min_consumer",
    "graphs[].nodes",
    "graphs[].producer",
    "kind",
    "load",
    "load.accepted",
    "load.error",
    "load.error_class",
    "load.loader",
    "load.release",
    "min_consumer",
    "producer",
    "unreadable",
    "warnings",
];

/// The keys of `check --json` when the file cannot be read (exit 2).
const UNREADABLE_KEYS: &[&str] = &["accepted", "error", "file", "unreadable"];

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
    assert_eq!(
        readme_keys("#### When the file was read (exit 0 or 1)"),
        CHECK_KEYS
    );
    assert_eq!(
        readme_keys("#### When the file could not be read (exit 2)"),
        UNREADABLE_KEYS
    );
}

#[test]
fn json_keys_are_pinned() {
    let removed = graph(&["TopK"], &[], Some(versions(20, 0, &[])));
    let path = temp_file("keys.pb", &removed.encode_to_vec());
    let output = run(&["check", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let refused = json_of(&output);
    // A graph refused on its ops is not loaded: `load` is null.
    assert_eq!(refused["load"], Value::Null);
    // A graph whose versions and ops pass is loaded by TensorFlow 2.21's importer: `load` is an
    // object.
    let output = run(&[
        "check",
        data("graphdef/small.pb").to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0));
    let mut keys = sorted_keys(&refused);
    keys.extend(sorted_keys(&json_of(&output)));
    keys.sort();
    keys.dedup();
    assert_eq!(keys, CHECK_KEYS);

    let output = run(&["check", "/nonexistent/graph.pb", "--json"]);
    assert_eq!(output.status.code(), Some(2));
    let json = json_of(&output);
    assert_eq!(sorted_keys(&json), UNREADABLE_KEYS);
    assert_eq!(json["file"], "/nonexistent/graph.pb");
    assert_eq!(
        json["error"],
        "cannot read /nonexistent/graph.pb: No such file or directory (os error 2)"
    );
}

// --- checkpoints ------------------------------------------------------------------------------

/// The keys of `check --json` for a checkpoint, exactly; the crate README lists the same.
const CHECKPOINT_KEYS: &[&str] = &[
    "accepted",
    "bad_consumers",
    "consumer",
    "consumer.min_producer",
    "consumer.tf_version",
    "consumer.version",
    "endianness",
    "error",
    "file",
    "kind",
    "min_consumer",
    "num_shards",
    "producer",
    "unreadable",
];

#[test]
fn a_checkpoint_is_judged_by_its_index_file_or_its_prefix() {
    let index = data("checkpoint/keras_2.21.0/ckpt-1.index");
    let prefix = index.with_extension("");
    assert!(!prefix.exists());
    for path in [&index, &prefix] {
        let output = run(&["check", path.to_str().unwrap(), "--json"]);
        assert_eq!(output.status.code(), Some(0), "{}", path.display());
        let json = json_of(&output);
        assert_eq!(sorted_keys(&json), CHECKPOINT_KEYS);
        assert_eq!(json["kind"], "checkpoint");
        assert_eq!(json["producer"], 1);
        assert_eq!(json["num_shards"], 1);
        assert_eq!(json["endianness"], "little");
        assert_eq!(
            json["consumer"]["version"], 1,
            "the checkpoint scheme's consumer"
        );
        assert_eq!(json["file"], path.to_str().unwrap());
    }
    let text = run(&["check", prefix.to_str().unwrap()]);
    let stdout = String::from_utf8(text.stdout).unwrap();
    assert!(
        stdout.contains("consumer: TensorFlow 2.21.0 (checkpoint version 1, min producer 0)"),
        "{stdout}"
    );
    assert!(stdout.contains("verdict: accepted"), "{stdout}");
}

#[test]
fn a_checkpoint_the_consumer_refuses_exits_1_in_tensorflows_words() {
    // A consumer whose oldest producer is newer than the checkpoint's producer (1).
    let index = data("checkpoint/small_2.21.0/ckpt.index");
    let output = run(&[
        "check",
        index.to_str().unwrap(),
        "--min-producer",
        "2",
        "--consumer",
        "3",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(1));
    let json = json_of(&output);
    assert_eq!(json["accepted"], false);
    assert_eq!(
        json["error"],
        "Checkpoint producer version 1 below min producer 2 supported by TensorFlow 2.21.0.  \
         Please regenerate your checkpoint."
    );
}

#[test]
fn a_damaged_checkpoint_exits_2_naming_the_fault() {
    let mut bytes = std::fs::read(data("checkpoint/small_2.21.0/ckpt.index")).unwrap();
    bytes[5] ^= 1;
    let path = temp_file("damaged.index", &bytes);
    let output = run(&["check", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.starts_with("graphdef-versions: cannot read "),
        "{stderr}"
    );
    assert!(
        stderr.contains("Perhaps the file is corrupt or was produced by a newer version of TensorFlow with format changes: block checksum mismatch"),
        "{stderr}"
    );
}

#[test]
fn the_readme_lists_every_checkpoint_json_key() {
    assert_eq!(
        readme_keys("#### When the file is a checkpoint (exit 0 or 1)"),
        CHECKPOINT_KEYS
    );
}

// --- releases ---------------------------------------------------------------------------------

/// The keys of `releases --json`, exactly; the crate README lists the same.
const RELEASES_KEYS: &[&str] = &[
    "file",
    "loader",
    "oldest_release",
    "releases",
    "releases[].accepted",
    "releases[].error_class",
    "releases[].errors",
    "releases[].release",
    "unreadable",
    "warnings",
];

const RELEASES_UNREADABLE_KEYS: &[&str] = &["error", "file", "oldest_release", "unreadable"];

#[test]
fn releases_json_keys_are_pinned_and_listed() {
    let mut keys = readme_keys("#### `releases --json`, when the file was read (exit 0 or 1)");
    keys.sort();
    assert_eq!(keys, RELEASES_KEYS);
    assert_eq!(
        readme_keys("#### `releases --json`, when the file could not be read (exit 2)"),
        RELEASES_UNREADABLE_KEYS
    );
    let path = data("release_cases/cases/b_2.14.1_attr_ConcatOffset_shape_type_nondefault.pb");
    let output = run(&["releases", path.to_str().unwrap(), "--json", "--host", "vm"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(sorted_keys(&json), RELEASES_KEYS);
    assert_eq!(json["loader"], "import_graph_def");
    assert_eq!(json["oldest_release"], "2.14.1");
    assert_eq!(json["releases"].as_array().unwrap().len(), 10);
    assert_eq!(json["releases"][0]["release"], "2.12.1");
    assert_eq!(json["releases"][0]["accepted"], false);
    assert_eq!(json["releases"][0]["error_class"], "ValueError");
    assert!(
        json["releases"][0]["errors"][0]
            .as_str()
            .unwrap()
            .starts_with("Converting GraphDef to Graph has failed with an error: 'Input 1 of node n was passed int64 from n_shape_0:0 incompatible with expected int32.'")
    );
    assert_eq!(json["releases"][2]["accepted"], true);
    assert_eq!(json["releases"][2]["errors"], serde_json::json!([]));

    let output = run(&["releases", "/nonexistent/graph.pb", "--json"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(sorted_keys(&json_of(&output)), RELEASES_UNREADABLE_KEYS);
}

#[test]
fn releases_reads_a_saved_model_directory_as_tf_saved_model_load() {
    // A Keras 2 model with optimizer slot variables: Keras 3 (2.16 on) cannot revive them.
    let dir = data("wild/cases/tfx_trainer_keras_format_serving");
    let output = run(&["releases", dir.to_str().unwrap(), "--host", "vm"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("as tf.saved_model.load loads it"), "{text}");
    assert!(text.contains("  2.15.1  loads"), "{text}");
    assert!(
        text.contains(
            "  2.16.2  refuses: AttributeError: '_UserObject' object has no attribute 'add_slot'"
        ),
        "{text}"
    );
    assert!(
        text.ends_with("oldest release that loads it: 2.12.1\n"),
        "{text}"
    );

    // The variables beside the SavedModel are looked for: this one's were not kept, so the
    // releases that load its functions refuse it for want of them. Named by its
    // saved_model.pb, it is judged as its directory is.
    let dir = data("release_cases/cases/e_2.21.0_new_CheckPinned");
    for path in [dir.clone(), dir.join("saved_model.pb")] {
        let output = run(&["releases", path.to_str().unwrap(), "--host", "vm"]);
        assert_eq!(output.status.code(), Some(1));
        let text = String::from_utf8(output.stdout).unwrap();
        assert!(text.contains("  2.17.1  refuses: RuntimeError: Op type not registered 'CheckPinned' in binary running on vm."), "{text}");
        let missing = format!(
            "  2.18.1  refuses: FileNotFoundError: Unsuccessful TensorSliceReader constructor: \
             Failed to find any matching files for {}/variables/variables\n",
            dir.display()
        );
        assert!(text.contains(&missing), "{text}");
        assert!(
            text.ends_with("no release from 2.12 to 2.21 loads it\n"),
            "{text}"
        );
    }
}

#[test]
fn releases_judges_a_large_graph_and_names_this_host_by_default() {
    use graphdef_versions::schema::{GraphDef, NodeDef};
    // 80,000 nodes, each waiting for the one before.
    let mut graph = GraphDef {
        node: (0..80_000)
            .map(|i| NodeDef {
                name: format!("layer_{}/node_{i}", i / 100),
                op: "NoOp".to_string(),
                input: if i == 0 {
                    vec![]
                } else {
                    vec![format!("^layer_{}/node_{}", (i - 1) / 100, i - 1)]
                },
                ..NodeDef::default()
            })
            .collect(),
        versions: Some(versions(1205, 0, &[])),
        ..GraphDef::default()
    };
    let path = temp_file("large.pb", &graph.encode_to_vec());
    let output = run(&["releases", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(json["oldest_release"], "2.12.1");
    let releases = json["releases"].as_array().unwrap();
    assert!(releases.iter().all(|release| release["accepted"] == true));
    // Its last node's op is one no release has: each says so, naming the machine it runs on.
    graph.node.last_mut().unwrap().op = "NoSuchOp".to_string();
    let path = temp_file("large_unknown.pb", &graph.encode_to_vec());
    let output = run(&["releases", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let host = gethostname();
    for release in json_of(&output)["releases"].as_array().unwrap() {
        let error = release["errors"][0].as_str().unwrap();
        assert!(
            error.starts_with(&format!(
                "Op type not registered 'NoSuchOp' in binary running on {host}."
            )),
            "{error}"
        );
    }
}

/// This machine's name, as the kernel gives it.
fn gethostname() -> String {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname").expect("a Linux host name");
    name.trim().to_string()
}

#[test]
fn releases_exits_1_when_no_release_loads_it() {
    // min_consumer above every release's GraphDef version.
    let bytes = graph(&["NoOp"], &[], Some(versions(2474, 2475, &[]))).encode_to_vec();
    let path = temp_file("too_new.pb", &bytes);
    let output = run(&["releases", path.to_str().unwrap(), "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let json = json_of(&output);
    assert_eq!(json["oldest_release"], Value::Null);
    assert_eq!(
        json["releases"][9]["errors"][0],
        "GraphDef min consumer version 2475 above current version 2474 for TensorFlow 2.21.0.  Please upgrade TensorFlow."
    );
}

/// A copy of a test SavedModel's directory in a fresh temporary directory.
fn copy_of_saved_model(case: &str) -> PathBuf {
    let from = data(case);
    let to = std::env::temp_dir()
        .join(format!("graphdef-versions-copy-{}", std::process::id()))
        .join(from.file_name().unwrap());
    let _ = std::fs::remove_dir_all(&to);
    let mut stack = vec![(from, to.clone())];
    while let Some((from, to)) = stack.pop() {
        std::fs::create_dir_all(&to).unwrap();
        for entry in std::fs::read_dir(&from).unwrap() {
            let entry = entry.unwrap();
            let target = to.join(entry.file_name());
            if entry.file_type().unwrap().is_dir() {
                stack.push((entry.path(), target));
            } else {
                std::fs::copy(entry.path(), target).unwrap();
            }
        }
    }
    to
}

#[test]
fn check_and_releases_agree_on_a_saved_model_whose_variables_are_deleted() {
    let dir = copy_of_saved_model("specimens/cases/tf2_scale");
    let path = dir.to_str().unwrap();
    // With its variables, TensorFlow 2.21 loads it.
    let output = run(&["check", path, "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let json = json_of(&output);
    assert_eq!(json["accepted"], true);
    assert_eq!(json["load"]["release"], "2.21.0");
    assert_eq!(json["load"]["accepted"], true);

    std::fs::remove_dir_all(dir.join("variables")).unwrap();
    let releases = run(&["releases", path, "--json"]);
    assert_eq!(releases.status.code(), Some(1));
    let releases = json_of(&releases);
    assert_eq!(releases["oldest_release"], Value::Null);
    let newest = releases["releases"].as_array().unwrap().last().unwrap();
    assert_eq!(newest["release"], "2.21.0");

    let output = run(&["check", path, "--json"]);
    assert_eq!(output.status.code(), Some(1));
    let json = json_of(&output);
    assert_eq!(json["accepted"], false);
    // Its versions and ops are fine: what refuses it is the restore of its variables.
    assert_eq!(json["graphs"][0]["accepted"], true);
    let missing = format!(
        "Unsuccessful TensorSliceReader constructor: Failed to find any matching files for \
         {path}/variables/variables"
    );
    assert!(
        json["error"].as_str().unwrap().starts_with(&missing),
        "{json}"
    );
    assert_eq!(json["error"], newest["errors"][0]);
    assert_eq!(json["load"]["error_class"], "FileNotFoundError");
    assert_eq!(json["load"]["error_class"], newest["error_class"]);
    assert_eq!(json["load"]["loader"], "saved_model_load");

    let text = run(&["check", path]);
    assert_eq!(text.status.code(), Some(1));
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(
        text.contains(&format!(
            "loading: tf.saved_model.load in TensorFlow 2.21.0 refuses it: FileNotFoundError: \
             {missing}\nverdict: rejected\n"
        )),
        "{text}"
    );

    // Another consumer than a release's is judged on its versions and ops alone, and says so.
    let output = run(&["check", path, "--consumer", "2500"]);
    assert_eq!(output.status.code(), Some(0));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains("loading: not replayed"), "{text}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_other_tools_files_are_named_with_the_tool_that_reads_them() {
    // A TensorFlow Lite model: a FlatBuffer whose root offset is followed by `TFL3`. Read as
    // protobuf, its bytes would be "an end-group tag ends no group".
    let mut tflite = vec![0x1c, 0, 0, 0, b'T', b'F', b'L', b'3'];
    tflite.extend([
        0x14, 0, 0x20, 0, 0x1c, 0, 0x18, 0, 0x0c, 0, 0x04, 0, 0, 0, 0, 0,
    ]);
    let model = temp_file("model.tflite", &tflite);
    // This very binary is an ELF shared object, as a PluggableDevice plugin is.
    let elf = env!("CARGO_BIN_EXE_graphdef-versions");
    for (path, said) in [
        (
            model.to_str().unwrap(),
            "this is a TensorFlow Lite model, not a GraphDef or SavedModel; tflite-opver reads it",
        ),
        (
            elf,
            "this is a shared library, not a GraphDef or SavedModel; se-abi plugin-check reads it",
        ),
    ] {
        for command in ["check", "releases"] {
            let output = run(&[command, path]);
            assert_eq!(output.status.code(), Some(2), "{command} {path}");
            let stderr = assert_prefixed(&output);
            assert!(stderr.ends_with(&format!(": {said}\n")), "{stderr}");
        }
    }
}
