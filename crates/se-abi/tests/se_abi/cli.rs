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
    crate::common::c_build::rust_plugin()
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
    let empty = dir.join("empty.so");
    std::fs::write(&empty, "").unwrap();
    let cases: [(&Path, &str); 4] = [
        (
            &empty,
            "is an empty file (0 bytes), not an ELF file (cut off while copying",
        ),
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

/// A library with no entry point: without `--run` the tool cannot tell (its initializers are
/// not run); with it, it loads in every release and registers nothing. The JSON output has the
/// keys the README lists.
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
            "refused_by",
            "releases",
            "tensorflow",
            "unknown_in",
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
        [
            "at_run_time",
            "devices",
            "loads",
            "reason",
            "refusals",
            "release"
        ]
    );
    assert!(releases.iter().all(|r| r["loads"].is_null()));
    assert!(
        releases[0]["reason"]
            .as_str()
            .unwrap()
            .contains("add --run"),
        "{}",
        releases[0]
    );
    assert_eq!(json["unknown_in"].as_array().unwrap().len(), 10);
    let run = se_abi(&["plugin-check", "--json", "--run", library.to_str().unwrap()]);
    assert_eq!(run.status.code(), Some(0));
    let run: Value = serde_json::from_slice(&run.stdout).unwrap();
    assert_eq!(run["loads_in"].as_array().unwrap().len(), 10, "{run}");
    let text = se_abi(&[
        "plugin-check",
        "--run",
        "--release",
        "2.21.0",
        library.to_str().unwrap(),
    ]);
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(text.contains("entry points: none"), "{text}");
    assert!(
        text.contains("2.21.0    loads (it registers no device)"),
        "{text}"
    );
    assert!(
        text.contains("of 1 releases: loads in 1 (2.21.0)"),
        "{text}"
    );
}

#[test]
fn a_proc_file_is_read_and_refused_as_not_a_plugin() {
    let output = se_abi(&["plugin-check", "/proc/self/maps"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("/proc/self/maps is not an ELF file"),
        "{stderr}"
    );
}

#[test]
fn tensorflow_must_name_an_installed_release_and_go_with_run() {
    let library = a_shared_library();
    let dir = scratch("tensorflow");
    let output = se_abi(&[
        "plugin-check",
        "--run",
        "--tensorflow",
        dir.to_str().unwrap(),
        library.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("no libtensorflow_framework.so.2 in it"),
        "{stderr}"
    );
    let output = se_abi(&[
        "plugin-check",
        "--tensorflow",
        dir.to_str().unwrap(),
        library.to_str().unwrap(),
    ]);
    assert_eq!(output.status.code(), Some(2));
}

/// The probe plugin, asked through `SE_ABI_PROBE`, with `--run`: its JSON output and how long
/// the whole run took.
fn run_probe(probe: &str, args: &[&str], cwd: Option<&Path>) -> (Value, Duration, Output) {
    run_plugin(&crate::probes::variants()["probe"], probe, args, cwd)
}

fn run_plugin(
    plugin: &Path,
    probe: &str,
    args: &[&str],
    cwd: Option<&Path>,
) -> (Value, Duration, Output) {
    let plugin = match cwd {
        Some(_) => PathBuf::from(plugin.file_name().unwrap()),
        None => plugin.to_path_buf(),
    };
    let started = Instant::now();
    let mut command = Command::new(env!("CARGO_BIN_EXE_se-abi"));
    command
        .args(["plugin-check", "--json", "--run"])
        .args(args)
        .arg(&plugin)
        .env("SE_ABI_PROBE", probe)
        .stdin(Stdio::null());
    if let Some(cwd) = cwd {
        command.current_dir(cwd);
    }
    let output = command.output().unwrap();
    let elapsed = started.elapsed();
    let json = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    (json, elapsed, output)
}

#[test]
fn a_relative_path_runs_the_file_it_names() {
    let dir = crate::probes::variants()["probe"]
        .parent()
        .unwrap()
        .to_path_buf();
    let (json, _, output) = run_probe("", &[], Some(&dir));
    assert_eq!(output.status.code(), Some(0), "{json}");
    assert_eq!(json["loads_in"].as_array().unwrap().len(), 10, "{json}");
}

#[test]
fn a_plugin_that_hangs_is_stopped_at_the_deadline_in_every_release_at_once() {
    let (json, elapsed, output) = run_probe("hang", &["--timeout", "1"], None);
    assert_eq!(output.status.code(), Some(0), "{json}");
    assert_eq!(json["unknown_in"].as_array().unwrap().len(), 10, "{json}");
    let reason = json["releases"][0]["reason"].as_str().unwrap();
    assert!(
        reason.starts_with("the plugin's SE_InitPlugin did not return within 1 s"),
        "{reason}"
    );
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

#[test]
fn output_forks_and_unflushed_lines_neither_hang_nor_fool_the_tool() {
    // A copy of its own, so that no other test's hosts run it.
    let dir = scratch("forks");
    let plugin = dir.join("libtf_probe_forks.so");
    std::fs::copy(&crate::probes::variants()["probe"], &plugin).unwrap();
    for probe in ["stdout=200000", "stdout-unflushed=PROBE: buffered", "fork"] {
        let (json, elapsed, output) = run_plugin(&plugin, probe, &[], None);
        assert_eq!(output.status.code(), Some(0), "{probe}: {json}");
        assert_eq!(
            json["loads_in"].as_array().unwrap().len(),
            10,
            "{probe}: {json}"
        );
        assert!(elapsed < Duration::from_secs(10), "{probe}: {elapsed:?}");
    }
    // What the plugin forked is gone with its host: no process of this test's probe is left.
    let probe = plugin.to_str().unwrap().to_string();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains("__emulate-host") && c.contains(&probe))
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}
