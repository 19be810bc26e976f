//! The command-line tool: output for people and for scripts (`--json`, its keys pinned here and
//! listed in the README), exit codes 0 (readable / agreed), 1 (incompatible), 2 (unreadable or
//! bad usage), and the `ifrt-serdes: ` prefix on every message it writes to stderr. `cargo test`
//! builds the binary: the crate's dev-dependency on itself turns its `cli` feature on.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::GOLDEN_DIR;
use serde_json::Value;

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ifrt-serdes"))
        .args(args)
        .output()
        .expect("the binary runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json(output: &Output) -> Value {
    serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {}", stdout(output)))
}

/// The run failed with exit 2 and said why on stderr, on one line with the tool's prefix.
fn assert_unreadable(output: &Output, says: &str) {
    assert_eq!(output.status.code(), Some(2), "{}", stderr(output));
    let text = stderr(output);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.starts_with("ifrt-serdes: "), "{text}");
    assert!(text.contains(says), "{text:?} does not say {says:?}");
}

fn keys(value: &Value) -> Vec<&str> {
    let object = value.as_object().expect("a JSON object");
    object.keys().map(String::as_str).collect()
}

/// A file of its own for one test, in the tests' scratch directory.
fn scratch(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("ifrt-serdes-cli-{name}"))
}

#[test]
fn history_computes_week_4_old_for_a_given_day() {
    let output = run(&["history", "--today", "2026-03-19"]);
    assert_eq!(output.status.code(), Some(0));
    let text = stdout(&output);
    assert!(text.contains("2026-02-19"), "{text}");
    // IFRT keeps week-4-old by hand: version 3 in the preset, whatever the day.
    assert!(
        text.contains("week-4-old: IFRT SerDes version 3 (as of 2026-03-19)"),
        "{text}"
    );
    // A day that is not YYYY-MM-DD is a usage error, refused by clap through jiff's `Date`.
    let bad = run(&["history", "--today", "19.03.2026"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("19.03.2026"), "{}", stderr(&bad));
    let no_such_day = run(&["history", "--today", "2026-02-30"]);
    assert_eq!(no_such_day.status.code(), Some(2));
}

#[test]
fn history_as_json() {
    let output = run(&["history", "--today", "2026-07-14", "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    assert_eq!(
        keys(&report),
        ["current", "minimum", "today", "versions", "week_4_old"]
    );
    assert_eq!(report["today"], "2026-07-14");
    assert_eq!(report["week_4_old"], 3);
    assert_eq!(report["minimum"], 0);
    assert_eq!(report["current"], 6);
    let versions = report["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 7);
    for (number, version) in versions.iter().enumerate() {
        assert_eq!(keys(version), ["change", "introduced", "number"]);
        assert_eq!(version["number"], number);
    }
    assert_eq!(versions[1]["introduced"], "2026-02-19");
    // XLA renumbered version 2; the crate follows the newest serdes_version.h.
    assert_eq!(versions[2]["introduced"], "2026-04-06");
    assert_eq!(
        versions[3]["change"],
        "Allowed mixed serialization for stablehlo dialects"
    );
    // Versions 4 to 6 are dated by the first jaxlib that offers each.
    assert_eq!(versions[4]["introduced"], "2026-07-16");
    assert_eq!(versions[5]["introduced"], "2026-08-17");
    assert_eq!(versions[6]["introduced"], "2026-09-17");

    // IFRT's week-4-old is kept by hand, so it is the same on any day, even one before the
    // first version was four weeks old.
    let early = json(&run(&["history", "--today", "2025-05-21", "--json"]));
    assert_eq!(early["week_4_old"], 3);
    let early = run(&["history", "--today", "2025-05-21"]);
    assert_eq!(early.status.code(), Some(0));
    assert!(
        stdout(&early).contains("week-4-old: IFRT SerDes version 3 (as of 2025-05-21)"),
        "{}",
        stdout(&early)
    );
}

#[test]
fn inspect_reads_goldens_and_refuses_removed_versions() {
    let v0 = format!("{GOLDEN_DIR}/array_spec_proto_v0.pb");
    let ok = run(&["inspect", &v0, "--proto", "array-spec"]);
    assert_eq!(ok.status.code(), Some(0), "{}", stdout(&ok));
    assert!(
        stdout(&ok).contains("proto:     xla.ifrt.ArraySpecProto (a plain message, no envelope)"),
        "{}",
        stdout(&ok)
    );
    assert!(stdout(&ok).contains("value:     ArraySpec {"));

    let raised = run(&[
        "inspect",
        &v0,
        "--proto",
        "array-spec",
        "--minimum",
        "1",
        "--json",
    ]);
    assert_eq!(raised.status.code(), Some(1));
    let report = json(&raised);
    assert_eq!(report["unreadable"], false);
    assert_eq!(report["refused"], true);
    // The array spec's own format 0 is still read; its param's format 0, superseded at 1, is
    // not.
    assert_eq!(
        report["error"],
        "Unsupported IFRT SerDes version 0 for ShardingParam deserialization: this build reads \
         IFRT SerDes versions [1, 6], and ShardingParam format 0 was superseded by format 1 at \
         or before this build's minimum, so its reader was removed; the writer must request a \
         version both builds support (negotiate one)"
    );
    assert!(
        stderr(&raised).is_empty(),
        "a refusal is a report, not a failure"
    );
    let raised = run(&["inspect", &v0, "--proto", "array-spec", "--minimum", "1"]);
    assert_eq!(raised.status.code(), Some(1));
    assert!(
        stdout(&raised).contains(
            "refused:   Unsupported IFRT SerDes version 0 for ShardingParam deserialization"
        ),
        "{}",
        stdout(&raised)
    );

    let missing = run(&["inspect", "/nonexistent/file.pb"]);
    assert_unreadable(&missing, "cannot read /nonexistent/file.pb: ");
    assert!(stdout(&missing).is_empty());
    let bad_range = run(&["inspect", &v0, "--minimum", "2", "--current", "1"]);
    assert_unreadable(
        &bad_range,
        "--minimum and --current do not describe a build of this history: invalid supported \
         range [2, 1] of IFRT SerDes versions",
    );
    let negative = run(&["inspect", &v0, "--minimum", "-1"]);
    assert_unreadable(
        &negative,
        "invalid supported range [-1, 6] of IFRT SerDes versions",
    );
    let garbage = run(&[
        "inspect",
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
    ]);
    assert_unreadable(&garbage, "Cargo.toml as a serialized IFRT value: ");
    let word = run(&["inspect", &v0, "--current", "two"]);
    assert_eq!(word.status.code(), Some(2), "a usage error, from clap");
}

#[test]
fn inspect_as_json() {
    let v1 = format!("{GOLDEN_DIR}/sharding_param_sharding_v1.pb");
    let output = run(&["inspect", &v1, "--json"]);
    assert_eq!(output.status.code(), Some(0));
    let report = json(&output);
    let inspect_keys = [
        "error",
        "file",
        "format",
        "lowest_writable",
        "mlir_bytecode_version",
        "narrowest_range",
        "proto",
        "readable_in",
        "reader",
        "refused",
        "stablehlo_producer",
        "type_name",
        "unreadable",
        "value",
        "values",
    ];
    assert_eq!(keys(&report), inspect_keys);
    assert_eq!(
        report["values"],
        serde_json::json!([
            { "type": "ShardingParamSharding", "format": 0 },
            { "type": "ShardingParam", "format": 1 },
            { "type": "DeviceList", "format": 0 },
        ])
    );
    assert_eq!(keys(&report["readable_in"]), ["current", "minimum"]);
    assert_eq!(report["readable_in"]["minimum"], 1);
    assert_eq!(report["readable_in"]["current"], 6);
    assert_eq!(keys(&report["narrowest_range"]), ["current", "minimum"]);
    assert_eq!(report["file"], v1);
    assert_eq!(keys(&report["reader"]), ["current", "minimum"]);
    assert_eq!(report["reader"]["minimum"], 0);
    assert_eq!(report["reader"]["current"], 6);
    assert_eq!(report["type_name"], "xla::ifrt::ShardingParamSharding");
    assert_eq!(report["proto"], Value::Null);
    assert_eq!(report["format"], 0, "the outer value's recorded format");
    assert_eq!(report["unreadable"], false);
    assert_eq!(report["refused"], false);
    assert!(
        report["value"]
            .as_str()
            .unwrap()
            .starts_with("ShardingParamSharding {")
    );
    assert_eq!(report["error"], Value::Null);

    // Unreadable input: the same keys on stdout, the reason on stderr, exit 2.
    let garbage = run(&[
        "inspect",
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
        "--json",
    ]);
    assert_unreadable(&garbage, "as a serialized IFRT value");
    let report = json(&garbage);
    assert_eq!(keys(&report), inspect_keys);
    assert_eq!(report["unreadable"], true);
    assert_eq!(report["refused"], false);
    assert_eq!(report["value"], Value::Null);
    assert_eq!(
        stderr(&garbage).trim_end(),
        format!("ifrt-serdes: {}", report["error"].as_str().unwrap())
    );
    let missing = run(&["inspect", "/nonexistent/file.pb", "--json"]);
    assert_unreadable(&missing, "cannot read /nonexistent/file.pb");
    assert_eq!(keys(&json(&missing)), inspect_keys);
    assert_eq!(json(&missing)["type_name"], Value::Null);
    assert_eq!(json(&missing)["format"], Value::Null);
    assert_eq!(json(&missing)["values"], serde_json::json!([]));
    assert_eq!(json(&missing)["readable_in"], Value::Null);
}

/// `inspect` names every nested value with its recorded format, and the versions that read
/// the whole file, whatever the reader it was asked to play.
#[test]
fn inspect_lists_every_nested_value_and_the_versions_that_read_the_file() {
    let cases = [
        // (golden, --proto, formats in reading order, readable_in)
        (
            "array_spec_proto_v1.pb",
            Some("array-spec"),
            vec![
                ("ArraySpec", 0),
                ("DType", 0),
                ("Shape", 0),
                ("ShardingParamSharding", 0),
                ("ShardingParam", 1),
                ("DeviceList", 0),
            ],
            (1, 6),
        ),
        (
            "dtype_proto_v0.pb",
            Some("dtype"),
            vec![("DType", 0)],
            (0, 6),
        ),
        (
            "device_list_proto_v0.pb",
            Some("device-list"),
            vec![("DeviceList", 0)],
            (0, 6),
        ),
        (
            "single_device_sharding_v0.pb",
            None,
            vec![("SingleDeviceSharding", 0)],
            (0, 6),
        ),
        (
            "sharding_param_sharding_v0.pb",
            None,
            vec![
                ("ShardingParamSharding", 0),
                ("ShardingParam", 0),
                ("DeviceList", 0),
            ],
            (0, 0),
        ),
        // Compile options of jaxlib 0.10.2 (no version field) and of 0.11.0 on at 4.
        (
            "xla_compile_options_v0.pb",
            None,
            vec![("XlaCompileOptions", 0)],
            (0, 3),
        ),
        (
            "xla_compile_options_v4.pb",
            None,
            vec![("XlaCompileOptions", 4)],
            (4, 6),
        ),
    ];
    for (file, proto, values, (from, to)) in cases {
        let path = format!("{GOLDEN_DIR}/{file}");
        let inspect = |args: &[&str]| {
            let mut all = vec!["inspect", path.as_str()];
            if let Some(kind) = proto {
                all.extend(["--proto", kind]);
            }
            all.extend(args);
            run(&all)
        };
        // As a build that refuses part of it: the list still covers the whole file.
        for reader in [["--minimum", "0"], ["--current", "0"]] {
            let report = json(&inspect(&[reader[0], reader[1], "--json"]));
            let listed: Vec<(String, i64)> = report["values"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| {
                    assert_eq!(keys(v), ["format", "type"]);
                    (
                        v["type"].as_str().unwrap().to_string(),
                        v["format"].as_i64().unwrap(),
                    )
                })
                .collect();
            let want: Vec<(String, i64)> =
                values.iter().map(|(t, f)| (t.to_string(), *f)).collect();
            assert_eq!(listed, want, "{file}");
            assert_eq!(report["readable_in"]["minimum"], from, "{file}");
            assert_eq!(report["readable_in"]["current"], to, "{file}");
            assert_eq!(report["narrowest_range"]["minimum"], from, "{file}");
            assert_eq!(report["narrowest_range"]["current"], from, "{file}");
            // The claim holds: a build reads the file exactly when its range meets
            // `readable_in`.
            for (min, max) in [
                (0, 0),
                (0, 1),
                (0, 2),
                (0, 3),
                (0, 4),
                (1, 1),
                (1, 2),
                (1, 3),
                (1, 4),
                (2, 2),
                (2, 3),
                (3, 3),
                (3, 4),
                (4, 4),
            ] {
                let output =
                    inspect(&["--minimum", &min.to_string(), "--current", &max.to_string()]);
                let meets = min <= to && max >= from;
                assert_eq!(
                    output.status.code(),
                    Some(if meets { 0 } else { 1 }),
                    "{file} by [{min}, {max}]"
                );
                // The text says what the range means for a build, and for this one.
                let text = stdout(&output);
                let says = format!(
                    "readable in versions [{from}, {to}]: a build reads the file when its range \
                     [minimum, current] includes one of them\n  (minimum <= {to} and current >= \
                     {from}); this reader [{min}, {max}] {}\n",
                    if meets { "does" } else { "does not" }
                );
                assert!(text.contains(&says), "{file} by [{min}, {max}]: {text}");
            }
        }
    }
}

#[test]
fn inspect_refuses_what_it_cannot_map_before_reading_it() {
    // A directory is not a file.
    let directory = run(&["inspect", GOLDEN_DIR]);
    assert_unreadable(&directory, "is a directory, not a file");

    // A file over the library's limit is refused by its length alone (a sparse file: nothing
    // is written or read).
    let big = scratch("too-large.pb");
    let file = fs::File::create(&big).unwrap();
    let limit = ifrt_serdes::DeserializeOptions::DEFAULT_MAX_BYTES as u64;
    file.set_len(limit + 1).unwrap();
    drop(file);
    let output = run(&["inspect", big.to_str().unwrap()]);
    fs::remove_file(&big).unwrap();
    assert_unreadable(
        &output,
        &format!("is {} bytes, above the limit of {limit} bytes", limit + 1),
    );

    // An empty file is not a serialized value: the message says it is empty (not that a codec
    // is missing for the blank type name an empty envelope would have).
    let empty = scratch("empty.pb");
    fs::write(&empty, b"").unwrap();
    let output = run(&["inspect", empty.to_str().unwrap(), "--json"]);
    fs::remove_file(&empty).unwrap();
    assert_unreadable(&output, "empty.pb is empty: a serialized IFRT value is");
    assert!(
        !stderr(&output).contains("type_name"),
        "{}",
        stderr(&output)
    );
    assert_eq!(json(&output)["unreadable"], true);
}

/// A named pipe that no process writes to is refused at once (opening it would block forever).
#[cfg(unix)]
#[test]
fn inspect_refuses_a_named_pipe_without_opening_it() {
    let fifo = scratch("fifo.pb");
    let _ = fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status();
    assert!(
        made.is_ok_and(|status| status.success()),
        "mkfifo {} failed: the test needs a named pipe",
        fifo.display()
    );
    let mut child = Command::new(env!("CARGO_BIN_EXE_ifrt-serdes"))
        .args(["inspect", fifo.to_str().unwrap()])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            let _ = fs::remove_file(&fifo);
            panic!("`ifrt-serdes inspect` hangs on a named pipe");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    fs::remove_file(&fifo).unwrap();
    assert_unreadable(&output, "fifo.pb is a pipe, socket or device, not a file");
}

#[test]
fn negotiate_agrees_or_names_both_ranges() {
    let agreed = run(&["negotiate", "0", "2", "0", "1"]);
    assert_eq!(agreed.status.code(), Some(0));
    assert_eq!(stdout(&agreed).trim(), "agreed: IFRT SerDes version 1");
    let failed = run(&["negotiate", "0", "0", "1", "2"]);
    assert_eq!(failed.status.code(), Some(1));
    assert_eq!(
        stderr(&failed).trim(),
        "ifrt-serdes: IFRT Proxy client and server failed to agree on the IFRT SerDes version; \
         supported versions: client = [0, 0], server = [1, 2]"
    );
    // Versions are typed: a word is a usage error (clap's), and so is a range no build
    // announces: a negative end, or a minimum above the maximum.
    let word = run(&["negotiate", "0", "two", "0", "1"]);
    assert_eq!(word.status.code(), Some(2));
    for (args, says) in [
        (
            ["negotiate", "0", "2", "-1", "1"],
            "ifrt-serdes: the server's range [-1, 1] is not a range of versions: version \
             numbers are never negative (the first version is 0)",
        ),
        (
            ["negotiate", "-1", "0", "0", "0"],
            "ifrt-serdes: the client's range [-1, 0] is not a range of versions",
        ),
        (
            ["negotiate", "2", "1", "0", "2"],
            "ifrt-serdes: the client's range [2, 1] is not a range of versions: its minimum is \
             above its maximum; give the minimum first",
        ),
    ] {
        let output = run(&args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
        assert!(stdout(&output).is_empty(), "{args:?}");
        assert!(
            stderr(&output).starts_with(says),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    let json_too = run(&["negotiate", "0", "2", "-1", "1", "--json"]);
    assert_eq!(json_too.status.code(), Some(2));
}

/// The README's commands work from where it says to run them: the repository root.
#[test]
fn the_readme_commands_work_from_the_repository_root() {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    // The lines of the README's ```sh blocks that run the tool.
    let commands: Vec<&str> = readme
        .split("```sh\n")
        .skip(1)
        .filter_map(|block| block.split("```").next())
        .flat_map(str::lines)
        .filter_map(|line| line.strip_prefix("ifrt-serdes "))
        .collect();
    assert!(commands.len() >= 3, "the README shows the tool's commands");
    for command in commands {
        let args: Vec<&str> = command.split_whitespace().collect();
        let output = Command::new(env!("CARGO_BIN_EXE_ifrt-serdes"))
            .args(&args)
            .current_dir(&root)
            .output()
            .unwrap();
        assert_eq!(
            output.status.code(),
            Some(0),
            "`ifrt-serdes {command}` from the repository root: {}",
            stderr(&output)
        );
    }
}

#[test]
fn negotiate_as_json() {
    let agreed = run(&["negotiate", "0", "2", "1", "1", "--json"]);
    assert_eq!(agreed.status.code(), Some(0));
    let report = json(&agreed);
    assert_eq!(keys(&report), ["agreed", "client", "error", "server"]);
    assert_eq!(keys(&report["client"]), ["max", "min"]);
    assert_eq!(keys(&report["server"]), ["max", "min"]);
    assert_eq!(report["agreed"], 1);
    assert_eq!(report["client"]["max"], 2);
    assert_eq!(report["error"], Value::Null);

    let failed = run(&["negotiate", "0", "0", "1", "2", "--json"]);
    assert_eq!(failed.status.code(), Some(1));
    let report = json(&failed);
    assert_eq!(keys(&report), ["agreed", "client", "error", "server"]);
    assert_eq!(report["agreed"], Value::Null);
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .starts_with("IFRT Proxy client and server failed to agree")
    );
}

/// The README lists every key each `--json` command prints.
#[test]
fn the_readme_lists_every_json_key() {
    let readme = fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let section = readme
        .split("### `--json` output")
        .nth(1)
        .expect("a README section \"### `--json` output\"");
    let section = section.split("\n## ").next().unwrap_or_default();
    let documented: BTreeSet<&str> = section
        .split('`')
        .skip(1)
        .step_by(2)
        .flat_map(|path| path.split('.'))
        .map(|key| key.trim_end_matches("[]"))
        .collect();
    let today = ["history", "--today", "2026-07-14", "--json"];
    let v1 = format!("{GOLDEN_DIR}/array_spec_proto_v1.pb");
    let inspect = ["inspect", v1.as_str(), "--proto", "array-spec", "--json"];
    let negotiate = ["negotiate", "0", "2", "1", "1", "--json"];
    let with_client = [
        "negotiate",
        "--client",
        "jaxlib==0.10.2",
        "0",
        "2",
        "--json",
    ];
    let jaxlib = ["jaxlib", "--json"];
    for args in [
        &today[..],
        &inspect[..],
        &negotiate[..],
        &with_client[..],
        &jaxlib[..],
    ] {
        let mut stack = vec![json(&run(args))];
        while let Some(value) = stack.pop() {
            match value {
                Value::Object(object) => {
                    for (key, value) in object {
                        assert!(
                            documented.contains(key.as_str()),
                            "`{key}` of `ifrt-serdes {}` is not in the README",
                            args[0]
                        );
                        stack.push(value);
                    }
                }
                Value::Array(items) => stack.extend(items),
                _ => {}
            }
        }
    }
}

/// `inspect` on a program (jaxlib 0.10.2's real one, the golden file) says which StableHLO made
/// it, and that a reader stopping below its build's week-4-old version writes no program.
/// (`real.rs` runs `inspect --json` on every value real clients sent.)
#[test]
fn inspect_tells_a_programs_producer_and_floor() {
    let program = format!("{GOLDEN_DIR}/xla_program_v0.pb");
    let text = stdout(&run(&["inspect", &program, "--current", "1"]));
    assert!(
        text.contains("producer:  StableHLO_v1.13.7 (MLIR bytecode version 6)"),
        "{text}"
    );
    assert!(
        text.contains("written:   at no version of this reader's range"),
        "{text}"
    );
    assert!(text.contains("  HloProgram format 0"), "{text}");
    let report = json(&run(&["inspect", &program, "--json"]));
    assert_eq!(report["stablehlo_producer"], "StableHLO_v1.13.7");
    assert_eq!(report["lowest_writable"], 3);
}

/// `inspect --proto` reads a plain message, as IFRT sends `DType`, `Shape`, `ArraySpec` and
/// `DeviceList`: exit 0 with the value and its recorded format, 1 when the recorded version is
/// one this build (or the reader asked for) does not read, 2 for bytes that are no such message.
#[test]
fn inspect_reads_plain_messages() {
    use ifrt_serdes::schema::{DTypeProto, DeviceListProto};
    use prost::Message;
    for (file, kind, proto, what, value) in [
        (
            "dtype_proto_v0.pb",
            "dtype",
            "xla.ifrt.DTypeProto",
            "DType",
            "BF16",
        ),
        (
            "shape_proto_v0.pb",
            "shape",
            "xla.ifrt.ShapeProto",
            "Shape",
            "Shape { dims: [16, 128] }",
        ),
        (
            "device_list_proto_v0.pb",
            "device-list",
            "xla.ifrt.DeviceListProto",
            "DeviceList",
            "DeviceList { device_ids: [3, 0, 2, 1] }",
        ),
    ] {
        let path = format!("{GOLDEN_DIR}/{file}");
        let output = run(&["inspect", &path, "--proto", kind, "--json"]);
        assert_eq!(output.status.code(), Some(0), "{file}: {}", stderr(&output));
        let report = json(&output);
        assert_eq!(report["type_name"], Value::Null, "{file}");
        assert_eq!(report["proto"], proto, "{file}");
        assert_eq!(report["format"], 0, "{file}");
        assert_eq!(
            report["values"],
            serde_json::json!([{ "type": what, "format": 0 }])
        );
        assert_eq!(report["value"], value, "{file}");
        assert_eq!(report["refused"], false);
        let text = stdout(&run(&["inspect", &path, "--proto", kind]));
        assert!(text.contains(&format!("value:     {value}\n")), "{text}");
        assert!(text.contains(&format!("  {what} format 0\n")), "{text}");
    }

    // A recorded version newer than the reader: exit 1, in IFRT's words.
    let newer = scratch("dtype-v7.pb");
    let bytes = DTypeProto {
        version_number: 7,
        kind: 11,
    }
    .encode_to_vec();
    fs::write(&newer, bytes).unwrap();
    let output = run(&[
        "inspect",
        newer.to_str().unwrap(),
        "--proto",
        "dtype",
        "--json",
    ]);
    let report = json(&output);
    assert_eq!(output.status.code(), Some(1), "{report}");
    assert_eq!(report["refused"], true);
    assert_eq!(report["format"], 7);
    assert!(
        report["error"]
            .as_str()
            .unwrap()
            .starts_with("Unsupported IFRT SerDes version 7 for DType deserialization: "),
        "{report}"
    );
    // A format the type never had, within the build's range: exit 1 too (IFRT refuses it as
    // unsupported), and a reader older than the golden's format refuses what it does not know.
    let device_list_v1 = scratch("device-list-v1.pb");
    let bytes = DeviceListProto {
        version_number: 1,
        device_ids: vec![0],
    }
    .encode_to_vec();
    fs::write(&device_list_v1, bytes).unwrap();
    let output = run(&[
        "inspect",
        device_list_v1.to_str().unwrap(),
        "--proto",
        "device-list",
    ]);
    assert_eq!(output.status.code(), Some(1), "{}", stdout(&output));
    assert!(
        stdout(&output).contains("refused:   Unsupported IFRT SerDes version 1 for DeviceList"),
        "{}",
        stdout(&output)
    );
    let spec = format!("{GOLDEN_DIR}/array_spec_proto_v1.pb");
    let output = run(&["inspect", &spec, "--proto", "array-spec", "--current", "0"]);
    assert_eq!(output.status.code(), Some(1));

    // A plain message may be empty: a scalar's shape is (exit 0); an empty DType names no kind
    // (exit 2).
    let empty = scratch("empty-plain.pb");
    fs::write(&empty, b"").unwrap();
    let output = run(&[
        "inspect",
        empty.to_str().unwrap(),
        "--proto",
        "shape",
        "--json",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert_eq!(json(&output)["value"], "Shape { dims: [] }");
    let output = run(&["inspect", empty.to_str().unwrap(), "--proto", "dtype"]);
    assert_unreadable(
        &output,
        "empty-plain.pb as a plain xla.ifrt.DTypeProto message: unknown DType kind 0",
    );

    // Bytes that are no such message: exit 2, saying which message was expected.
    let garbage = run(&[
        "inspect",
        concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
        "--proto",
        "array-spec",
        "--json",
    ]);
    assert_unreadable(
        &garbage,
        "Cargo.toml as a plain xla.ifrt.ArraySpecProto message: cannot parse \
         xla.ifrt.ArraySpecProto",
    );
    assert_eq!(json(&garbage)["unreadable"], true);
    assert_eq!(json(&garbage)["proto"], "xla.ifrt.ArraySpecProto");
    // An unknown kind is a usage error (clap's).
    let word = run(&["inspect", &spec, "--proto", "sharding"]);
    assert_eq!(word.status.code(), Some(2));

    // An envelope of such a type (as this crate once wrote) is refused, saying what to do.
    let envelope = scratch("dtype-envelope.pb");
    let bytes = ifrt_serdes::schema::Serialized {
        type_name: "xla::ifrt::DType".to_string(),
        data: vec![0x08, 0x0b],
    }
    .encode_to_vec();
    fs::write(&envelope, bytes).unwrap();
    let output = run(&["inspect", envelope.to_str().unwrap()]);
    assert_unreadable(
        &output,
        "IFRT never puts a DType in a `Serialized` envelope: it sends a plain \
         xla.ifrt.DTypeProto message inside its requests",
    );
    for file in [newer, device_list_v1, empty, envelope] {
        fs::remove_file(file).unwrap();
    }
}
