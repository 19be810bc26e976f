//! The `se-abi` tool: input handling, exit codes, `--json` keys. (Its verdicts against real
//! TensorFlow are `verdicts`.)

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

fn se_abi(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_se-abi"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run se-abi")
}

fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("se-abi-cli-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The crate's own `rust_plugin` example, a real shared library with no entry point.
fn a_shared_library() -> PathBuf {
    // The matrix builds it; this only needs its path, so build it the same way.
    let _ = crate::common::c_build::build_and_load_rust_plugin();
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("se-abi-examples")
        .join("debug")
        .join("examples")
        .join("librust_plugin.so")
}

#[test]
fn a_named_pipe_is_refused_without_hanging() {
    let dir = scratch("fifo");
    let fifo = dir.join("plugin.so");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .expect("run mkfifo");
    assert!(made.success());
    let mut child = Command::new(env!("CARGO_BIN_EXE_se-abi"))
        .args(["plugin-check", "--json"])
        .arg(&fifo)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("se-abi hung on a named pipe");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.starts_with("se-abi: ") && stderr.contains("is a pipe, socket or device"),
        "{stderr}"
    );
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(json["unreadable"], true);
}

#[test]
fn unreadable_inputs_exit_2_with_a_message() {
    let dir = scratch("inputs");
    let text = dir.join("notes.txt");
    std::fs::write(&text, "not a plugin").unwrap();
    let missing = dir.join("missing.so");
    let cases: [(&Path, &str); 3] = [
        (&dir, "is a directory, not a plugin file"),
        (&missing, "cannot read"),
        (
            &text,
            "is not an ELF file: not a plugin TensorFlow could load",
        ),
    ];
    for (path, want) in cases {
        let output = se_abi(&["plugin-check", path.to_str().unwrap()]);
        assert_eq!(output.status.code(), Some(2), "{}", path.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            stderr.starts_with("se-abi: ") && stderr.contains(want),
            "{stderr}"
        );
        let output = se_abi(&["plugin-check", "--json", path.to_str().unwrap()]);
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["unreadable"], true);
    }
    // Bad usage: an unknown release.
    let output = se_abi(&["plugin-check", "--release", "1.15", text.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("unknown release"));
}

/// A library with no entry point loads in every release (TensorFlow registers nothing from
/// it), and the JSON output has the keys the README lists.
#[test]
fn json_keys_and_a_plugin_that_registers_nothing() {
    let library = a_shared_library();
    let output = se_abi(&["plugin-check", "--json", library.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0));
    let json: Value = serde_json::from_slice(&output.stdout).unwrap();
    let mut keys: Vec<&str> = json
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "entry_points",
            "loads_in",
            "needed",
            "plugin",
            "ran_init",
            "releases",
            "unreadable"
        ]
    );
    assert_eq!(json["unreadable"], false);
    assert_eq!(json["entry_points"], serde_json::json!([]));
    let releases = json["releases"].as_array().unwrap();
    assert_eq!(releases.len(), 10);
    let mut keys: Vec<&str> = releases[0]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        ["init", "init_message", "loads", "refusals", "release"]
    );
    assert_eq!(json["loads_in"].as_array().unwrap().len(), 10);
    let text = se_abi(&[
        "plugin-check",
        "--release",
        "2.21.0",
        library.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("entry points: none"), "{text}");
    assert!(text.contains("2.21.0   loads"), "{text}");
    assert!(text.contains("loads in 1 of 1 releases: 2.21.0"), "{text}");
}
