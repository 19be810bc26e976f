//! `se-abi plugin-check` against the probe plugins, each breaking one thing, that
//! `interop/plugin_check/probes.py` loaded into the ten real releases
//! (`tests/data/probe_verdicts.json`): every verdict and every text agrees, with `--run`; and
//! without it, the tool never says a plugin loads, and what it refuses, the release refused in
//! the same words.
//!
//! The probe is `examples/tf_probe.rs` (what it breaks is read from `SE_ABI_PROBE`); the files
//! around it are built here as `probes.py` builds them: the probe with its section headers
//! stripped, and shims (`tests/c/probe_shim.c`) that need a library nobody has, TensorFlow's
//! framework library (a stub with its soname, here), or import TensorFlow's functions, C and
//! C++ (the latter at an ELF symbol version, through a stub `_pywrap_tensorflow_internal.so`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Instant;

use serde_json::Value;

use crate::common;
use crate::common::c_build::cc;

/// A library in `dir` with soname `soname` that defines `symbols` (at ELF symbol version
/// `version`, if given): only to link against.
fn stub(dir: &Path, soname: &str, symbols: &[&str], version: Option<&str>) {
    let source = dir.join(format!("{soname}.c"));
    let mut text: String = symbols
        .iter()
        .map(|s| format!("void {s}(void) {{}}\n"))
        .collect();
    text.push_str("int se_abi_stub;\n");
    std::fs::write(&source, text).unwrap();
    let mut args: Vec<String> = vec![
        "-shared".into(),
        "-fPIC".into(),
        "-o".into(),
        dir.join(soname).display().to_string(),
        source.display().to_string(),
        format!("-Wl,-soname,{soname}"),
    ];
    if let Some(version) = version {
        let script = dir.join(format!("{soname}.map"));
        std::fs::write(&script, format!("{version} {{ global: *; }};\n")).unwrap();
        args.push(format!("-Wl,--version-script={}", script.display()));
    }
    cc(&args);
}

/// `source` without its section headers (`e_shoff`, `e_shnum`, `e_shstrndx` zero), as `sstrip`
/// leaves a library: the dynamic loader never reads them.
pub(crate) fn strip_section_headers(source: &Path, target: &Path) {
    let mut bytes = std::fs::read(source).unwrap();
    bytes[0x28..0x30].fill(0);
    bytes[0x3c..0x40].fill(0);
    std::fs::write(target, bytes).unwrap();
}

/// The probe and the files around it, built once per test process: variant name to path.
pub(crate) fn variants() -> &'static BTreeMap<&'static str, PathBuf> {
    static VARIANTS: OnceLock<BTreeMap<&'static str, PathBuf>> = OnceLock::new();
    VARIANTS.get_or_init(|| {
        let examples = crate::common::c_build::build_examples(&["tf-probe"]);
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("se-abi-probes-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let stubs = dir.join("link-only");
        std::fs::create_dir_all(&stubs).unwrap();
        let probe = dir.join("libtf_probe.so");
        std::fs::copy(examples.join("libtf_probe.so"), &probe).unwrap();
        stub(&stubs, "libse_abi_missing.so", &[], None);
        stub(
            &stubs,
            "_pywrap_tensorflow_internal.so",
            &["_ZN10tensorflow8internal15LogMessageFatalD1Ev"],
            Some("tensorflow"),
        );
        stub(
            &stubs,
            "libtensorflow_framework.so.2",
            &["TF_SetStatus"],
            None,
        );
        let mut variants = BTreeMap::new();
        let shim =
            |variants: &mut BTreeMap<&'static str, PathBuf>, name: &'static str, extra: &[&str]| {
                let path = dir.join(format!("libtf_probe_{}.so", name.replace('-', "_")));
                let mut args: Vec<String> = [
                    "-shared",
                    "-fPIC",
                    "-o",
                    path.to_str().unwrap(),
                    common::c_build::c_dir()
                        .join("probe_shim.c")
                        .to_str()
                        .unwrap(),
                    "-Wl,--no-as-needed",
                    "-Wl,--enable-new-dtags",
                    "-Wl,-rpath,$ORIGIN",
                ]
                .iter()
                .map(ToString::to_string)
                .collect();
                args.push(format!("-L{}", dir.display()));
                args.push("-l:libtf_probe.so".to_string());
                args.extend(extra.iter().map(ToString::to_string));
                cc(&args);
                variants.insert(name, path);
            };
        let stubs_dir = format!("-L{}", stubs.display());
        shim(
            &mut variants,
            "missing",
            &[&stubs_dir, "-l:libse_abi_missing.so"],
        );
        shim(
            &mut variants,
            "links-tf",
            &["-DIMPORT_C", &stubs_dir, "-l:libtensorflow_framework.so.2"],
        );
        shim(&mut variants, "imports-tf", &["-DIMPORT_C"]);
        shim(
            &mut variants,
            "imports-versioned",
            &[
                "-DIMPORT_VERSIONED",
                &stubs_dir,
                "-l:_pywrap_tensorflow_internal.so",
            ],
        );
        let stripped = dir.join("libtf_probe_stripped.so");
        strip_section_headers(&probe, &stripped);
        variants.insert("stripped", stripped);
        let missing_stripped = dir.join("libtf_probe_missing_stripped.so");
        strip_section_headers(&variants["missing"], &missing_stripped);
        variants.insert("missing-stripped", missing_stripped);
        variants.insert("probe", probe);
        variants
    })
}

/// `se-abi plugin-check --json` on `plugin` with `args`, `SE_ABI_PROBE` set to `probe`.
fn start(plugin: &Path, probe: &str, args: &[&str]) -> std::process::Child {
    Command::new(env!("CARGO_BIN_EXE_se-abi"))
        .args(["plugin-check", "--json"])
        .args(args)
        .arg(plugin)
        .env("SE_ABI_PROBE", probe)
        // Many probes make the plugin panic or abort on purpose; a backtrace of each (the
        // developer's RUST_BACKTRACE=1, inherited by the emulated hosts) costs half a second of
        // symbolizing and tells nothing.
        .env("RUST_BACKTRACE", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run se-abi")
}

/// Runs every probe through `se-abi plugin-check` with `args`, several at a time; returns each
/// probe's JSON output, by probe name.
fn check_all(args: &[&str]) -> BTreeMap<String, Value> {
    let verdicts = probe_verdicts();
    let variants = variants();
    let mut out = BTreeMap::new();
    let names: Vec<&String> = verdicts.as_object().unwrap().keys().collect();
    for batch in names.chunks(8) {
        let children: Vec<(String, std::process::Child)> = batch
            .iter()
            .map(|name| {
                let entry = &verdicts[name.as_str()];
                let variant = entry["variant"].as_str().unwrap();
                let plugin = variants
                    .get(variant)
                    .unwrap_or_else(|| panic!("no probe variant {variant}"));
                (
                    name.to_string(),
                    start(plugin, entry["probe"].as_str().unwrap(), args),
                )
            })
            .collect();
        for (name, child) in children {
            let output = child.wait_with_output().unwrap();
            assert!(
                matches!(output.status.code(), Some(0 | 1)),
                "{name}: {:?}\n{}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
            let value: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
                panic!("{name}: {e}: {}", String::from_utf8_lossy(&output.stdout))
            });
            out.insert(name, value);
        }
    }
    out
}

fn probe_verdicts() -> &'static Value {
    static VERDICTS: OnceLock<Value> = OnceLock::new();
    VERDICTS.get_or_init(|| {
        let text = std::fs::read_to_string(common::data("probe_verdicts.json")).unwrap();
        serde_json::from_str(&text).unwrap()
    })
}

/// Where `ours` (one release's entry of `--json`) and `real` (the judge's verdict) disagree, in
/// words; the probes' folder is `$PLUGIN_DIR` in the judge's texts.
pub(crate) fn disagreement(ours: &Value, real: &Value, plugin_dir: &Path) -> Option<String> {
    let normalize = |text: &str| text.replace(plugin_dir.to_str().unwrap(), "$PLUGIN_DIR");
    let loads = &ours["loads"];
    // A plugin that links TensorFlow's libraries cannot run without them: the tool says so, and
    // how to run it (`--tensorflow`), whatever the release does.
    if loads.is_null()
        && ours["reason"].as_str().is_some_and(|r| {
            r.contains("so it cannot run without TensorFlow") && r.contains("--tensorflow")
        })
    {
        return None;
    }
    if real.get("timeout").is_some() {
        return (!loads.is_null()).then(|| format!("TensorFlow hung; se-abi says loads={loads}"));
    }
    if real["loaded"] == true {
        if *loads != true {
            return Some(format!(
                "TensorFlow loads it; se-abi says loads={loads}: {ours}"
            ));
        }
        let devices = &ours["devices"];
        let listed = |kind: &str| {
            real["devices"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|d| d.as_str().is_some_and(|d| d.contains(&format!(":{kind}:"))))
                .count()
        };
        if let Some(kind) = devices["device_type"].as_str() {
            let count = devices["count"].as_i64().unwrap().max(0) as usize;
            let real_count = listed(kind);
            if count != real_count {
                return Some(format!(
                    "TensorFlow lists {real_count} {kind} devices, se-abi {count}"
                ));
            }
        }
        return None;
    }
    if *loads != false {
        return Some(format!(
            "TensorFlow refuses it ({real}); se-abi says loads={loads}"
        ));
    }
    let first = &ours["refusals"][0];
    let message = normalize(first["message"].as_str().unwrap_or_default());
    if let Some(error) = real["error"].as_str() {
        if first["exception"] != real["error_class"] || message != error {
            return Some(format!(
                "TensorFlow raises {} {error:?}; se-abi says {} {message:?}",
                real["error_class"], first["exception"]
            ));
        }
        return None;
    }
    if first["signal"] != real["signal"] {
        return Some(format!(
            "TensorFlow is killed by {}; se-abi says {first}",
            real["signal"]
        ));
    }
    if first["exit_status"] != real["exit_status"] {
        return Some(format!(
            "TensorFlow's process exits with status {}; se-abi says {first}",
            real["exit_status"]
        ));
    }
    if let Some(fatal) = real["fatal"].as_str()
        && message != fatal
    {
        return Some(format!(
            "TensorFlow aborts with {fatal:?}; se-abi says {message:?}"
        ));
    }
    None
}

#[test]
fn plugin_check_run_agrees_with_tensorflow_on_every_probe() {
    let verdicts = probe_verdicts();
    let started = Instant::now();
    let ours = check_all(&["--run"]);
    let elapsed = started.elapsed();
    let plugin_dir = variants()["probe"].parent().unwrap().to_path_buf();
    let mut failures = Vec::new();
    let mut cells = 0;
    for (name, output) in &ours {
        for release in output["releases"].as_array().unwrap() {
            let version = release["release"].as_str().unwrap();
            let real = &verdicts[name.as_str()]["releases"][version];
            assert!(real.is_object(), "no verdict for {name} in {version}");
            cells += 1;
            if let Some(why) = disagreement(release, real, &plugin_dir) {
                failures.push(format!("{name} in {version}: {why}"));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} disagreements:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert_eq!(cells, verdicts.as_object().unwrap().len() * 10);
    eprintln!("{cells} verdicts agree; the probe set ran in {elapsed:?}");
}

#[test]
fn plugin_check_without_run_never_says_loads_and_refuses_only_in_tensorflow_words() {
    let verdicts = probe_verdicts();
    let ours = check_all(&[]);
    let plugin_dir = variants()["probe"].parent().unwrap().to_path_buf();
    let mut failures = Vec::new();
    let mut refused = 0;
    for (name, output) in &ours {
        for release in output["releases"].as_array().unwrap() {
            let version = release["release"].as_str().unwrap();
            let real = &verdicts[name.as_str()]["releases"][version];
            match release["loads"].as_bool() {
                Some(true) => failures.push(format!("{name} in {version}: loads without --run")),
                Some(false) => {
                    refused += 1;
                    if let Some(why) = disagreement(release, real, &plugin_dir) {
                        failures.push(format!("{name} in {version}: {why}"));
                    }
                }
                None => {
                    let reason = release["reason"].as_str().unwrap_or_default();
                    if !reason.contains("add --run") {
                        failures.push(format!("{name} in {version}: null without a reason"));
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The file-level probes (a missing library, C and C++ imports) are refused statically.
    assert!(refused >= 20, "only {refused} static refusals");
}
