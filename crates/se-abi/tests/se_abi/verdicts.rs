//! `se-abi plugin-check` agrees with real TensorFlow loading real plugins.
//!
//! `tests/data/plugin_verdicts.json` holds what `interop/plugin_check/judge.py` saw when it
//! loaded each plugin into each of the ten real releases 2.12.1 ... 2.21.0, each load in a fresh
//! process (see `tests/data/README.md`). The plugins are
//!
//! - the crate's own `tf_plugin` example in its builds (current sizes, older sizes, newer sizes,
//!   `struct_size` unset, and the current build asked to refuse registration), built here and
//!   checked with `--run` (their `SE_InitPlugin` runs in an emulated host of each release);
//! - Intel's Extension for TensorFlow CPU plugin (`intel-extension-for-tensorflow-lib`
//!   2.13.0.1.0, 2.14.0.2.0, 2.15.0.0.0), whose binaries are too large to keep: a stand-in of
//!   each package is rebuilt here with the C compiler from `tests/data/plugins/itex-*.json` (the
//!   libraries' paths, sonames, `DT_NEEDED`, run paths, and the TensorFlow functions they import
//!   and export, extracted from the wheels by `interop/plugin_check/extract.py`), and checked
//!   statically (it has no `SE_InitPlugin`);
//! - the crate's `rust_plugin` example, a library with none of TensorFlow's entry points, which
//!   every release loads and which registers nothing;
//! - Microsoft's DirectML plugin (`tensorflow-directml-plugin` 0.4.0.dev230202), rebuilt from
//!   `tests/data/plugins/directml-*.skeleton.json`: its own bytes where the dynamic loader reads
//!   them (headers, dynamic section, symbols, versions, relocations; made by
//!   `interop/plugin_check/skeleton.py`), zeros elsewhere. Checked statically: every release
//!   refuses it at `dlopen`, each in its own words.
//!
//! For every plugin and release the tool agrees with the release: loads, or refused in the
//! release's words (the loader's error TensorFlow raises, or the line it aborts with), or cannot
//! tell where the release loads it. A library the plugin may load at run time is the plugin's to
//! load and report: there the tool cannot tell, and where the release refuses the plugin, the
//! release's words (Intel's own fatal line) must contain the loader's error the tool gives for
//! that library.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::common;

/// `se-abi plugin-check --json` on `plugin`, with `--run` and an environment variable if asked.
fn plugin_check(plugin: &Path, run: bool, env: Option<(&str, &str)>) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_se-abi"));
    command.arg("plugin-check").arg("--json").arg(plugin);
    if run {
        command.arg("--run");
    }
    if let Some((key, value)) = env {
        command.env(key, value);
    }
    let output = command.output().expect("run se-abi");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "se-abi plugin-check {}: {:?}\n{}",
        plugin.display(),
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON output")
}

/// Compares the tool's output for `name` with the judge's verdicts; returns the cells compared.
fn agree(
    name: &str,
    ours: &Value,
    verdicts: &Value,
    plugin_dir: &Path,
    failures: &mut Vec<String>,
) -> usize {
    let judged = &verdicts[name]["releases"];
    let mut cells = 0;
    for release in ours["releases"].as_array().expect("releases") {
        let version = release["release"].as_str().expect("release");
        let real = &judged[version];
        assert!(real.is_object(), "no verdict for {name} in {version}");
        cells += 1;
        // Where the tool cannot run everything TensorFlow runs (Intel's plugin links
        // TensorFlow's libraries; its TF_InitKernel is not replayed), it says so: never where
        // the release refuses the plugin.
        // A library the plugin may load at run time, which the release would refuse: the tool
        // cannot tell whether the plugin loads it, but where the release refuses the plugin it
        // is for that library, and the plugin's own fatal line wraps the loader's error the
        // tool gives.
        let later = &release["at_run_time"][0];
        if release["loads"].is_null() && later.is_object() {
            assert_eq!(later["kind"], "missing-symbol-at-run-time");
            let said: String = ["fatal", "loader"]
                .iter()
                .filter_map(|k| real[*k].as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let message = later["message"]
                .as_str()
                .unwrap_or_default()
                .replace(plugin_dir.to_str().unwrap(), "$PLUGIN_DIR");
            if real["loaded"] != false || !said.contains(&message) {
                failures.push(format!(
                    "{name} in {version}: se-abi says {message:?} at run time, TensorFlow {real}"
                ));
            }
            continue;
        }
        if release["loads"].is_null() {
            if real["loaded"] != true {
                failures.push(format!(
                    "{name} in {version}: se-abi cannot tell; TensorFlow {real}"
                ));
            }
            continue;
        }
        if let Some(why) = crate::probes::disagreement(release, real, plugin_dir) {
            failures.push(format!("{name} in {version}: {why}"));
        }
    }
    cells
}

fn verdicts() -> Value {
    let path = common::data("plugin_verdicts.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

/// A library with none of TensorFlow's entry points (the crate's `rust_plugin` example):
/// every release loads it and registers nothing, and the tool says so with `--run`; without it,
/// it cannot tell (the library's initializers are not run).
#[test]
fn plugin_check_agrees_with_tensorflow_on_a_library_without_entry_points() {
    let verdicts = verdicts();
    let plugin = crate::common::c_build::rust_plugin();
    let ran = plugin_check(&plugin, true, None);
    assert_eq!(ran["entry_points"], serde_json::json!([]));
    let mut failures = Vec::new();
    let cells = agree(
        "rust-plugin",
        &ran,
        &verdicts,
        plugin.parent().unwrap(),
        &mut failures,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(cells, 10);
    assert_eq!(ran["loads_in"].as_array().unwrap().len(), 10, "{ran}");
    let read = plugin_check(&plugin, false, None);
    assert_eq!(read["unknown_in"].as_array().unwrap().len(), 10, "{read}");
}

#[test]
fn plugin_check_agrees_with_tensorflow_on_the_example_plugin() {
    let verdicts = verdicts();
    let dir = crate::common::c_build::build_examples(&[
        "tf-plugin",
        "tf-plugin-older",
        "tf-plugin-newer",
        "tf-plugin-unset",
    ]);
    let mut failures = Vec::new();
    let mut cells = 0;
    for (name, file, env) in [
        ("tf-plugin", "libtf_plugin.so", None),
        ("tf-plugin-older", "libtf_plugin_older.so", None),
        ("tf-plugin-newer", "libtf_plugin_newer.so", None),
        ("tf-plugin-unset", "libtf_plugin_unset.so", None),
        (
            "tf-plugin-refusing",
            "libtf_plugin.so",
            Some(("RUST_HOST_PLUGIN_REFUSE", "1")),
        ),
    ] {
        let ours = plugin_check(&dir.join(file), true, env);
        cells += agree(name, &ours, &verdicts, &dir, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(cells, 50);
}

/// One library of a plugin package, as `extract.py` recorded it.
struct Library {
    path: String,
    soname: Option<String>,
    needed: Vec<String>,
    runpath: Option<String>,
    rpath: Option<String>,
    imports: Vec<(String, bool)>,
    exports: Vec<String>,
    /// The package's libraries it names (as C strings).
    names: Vec<String>,
}

fn libraries(extract: &Value) -> Vec<Library> {
    let strings = |v: &Value| -> Vec<String> {
        v.as_array()
            .into_iter()
            .flatten()
            .filter_map(|s| s.as_str().map(str::to_string))
            .collect()
    };
    extract["libraries"]
        .as_array()
        .expect("libraries")
        .iter()
        .map(|l| Library {
            path: l["path"].as_str().expect("path").to_string(),
            soname: l["soname"].as_str().map(str::to_string),
            needed: strings(&l["needed"]),
            runpath: l["runpath"].as_str().map(str::to_string),
            rpath: l["rpath"].as_str().map(str::to_string),
            imports: l["imports"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|i| {
                    (
                        i["name"].as_str().expect("name").to_string(),
                        i["weak"].as_bool().unwrap_or(false),
                    )
                })
                .collect(),
            exports: strings(&l["exports"]),
            names: strings(&l["names"]),
        })
        .collect()
}

/// Rebuilds a stand-in of a plugin package in `root`: one shared library per library of the
/// extract, with its soname, `DT_NEEDED`, run path, imports and exports. A needed library that
/// the package does not have (TensorFlow's, the system's) is linked against a stub of that
/// soname made in a folder of its own, which is not there when the plugin is checked: the
/// stand-in's imports are then bound where the real library's are, to the system's libraries
/// on this machine and to the release's.
fn rebuild(extract: &Value, root: &Path) {
    let libs = libraries(extract);
    let link_only = root.join("link-only");
    std::fs::create_dir_all(&link_only).unwrap();
    let cc = common::c_build::cc;
    let basename = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    // Package libraries in an order where each comes after those it needs.
    let mut built: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut pending: Vec<&Library> = libs.iter().collect();
    while !pending.is_empty() {
        let before = pending.len();
        pending.retain(|lib| {
            let ready = lib
                .needed
                .iter()
                .all(|n| built.contains_key(n) || !libs.iter().any(|l| basename(&l.path) == *n));
            if !ready {
                return true;
            }
            let out = root.join(&lib.path);
            std::fs::create_dir_all(out.parent().unwrap()).unwrap();
            let mut source = String::from("void se_abi_stand_in(void) {}\n");
            for (name, weak) in &lib.imports {
                let attribute = if *weak { "__attribute__((weak)) " } else { "" };
                source.push_str(&format!("{attribute}extern void {name}(void);\n"));
            }
            source.push_str("void se_abi_stand_in_calls(void) {\n");
            for (name, weak) in &lib.imports {
                if *weak {
                    source.push_str(&format!("  if ({name}) {name}();\n"));
                } else {
                    source.push_str(&format!("  {name}();\n"));
                }
            }
            source.push_str("}\n");
            for (i, name) in lib.names.iter().enumerate() {
                source.push_str(&format!(
                    "__attribute__((used)) const char se_abi_name_{i}[] = \"{name}\";\n"
                ));
            }
            for name in &lib.exports {
                source.push_str(&format!("void {name}(void) {{}}\n"));
            }
            let c = root.join(format!("{}.c", basename(&lib.path)));
            std::fs::write(&c, source).unwrap();
            let mut args: Vec<String> = ["-shared", "-fPIC", "-w", "-o"]
                .iter()
                .map(ToString::to_string)
                .collect();
            args.push(out.display().to_string());
            args.push(c.display().to_string());
            if let Some(soname) = &lib.soname {
                args.push(format!("-Wl,-soname,{soname}"));
            }
            match (&lib.runpath, &lib.rpath) {
                (Some(path), _) => args.extend([
                    "-Wl,--enable-new-dtags".to_string(),
                    format!("-Wl,-rpath,{path}"),
                ]),
                (None, Some(path)) => args.extend([
                    "-Wl,--disable-new-dtags".to_string(),
                    format!("-Wl,-rpath,{path}"),
                ]),
                (None, None) => {}
            }
            args.push("-Wl,--no-as-needed".to_string());
            for name in &lib.needed {
                if let Some(path) = built.get(name) {
                    args.push(format!("-L{}", path.parent().unwrap().display()));
                } else {
                    let stub = link_only.join(name);
                    if !stub.exists() {
                        let c = link_only.join("stub.c");
                        std::fs::write(&c, "void se_abi_stub(void) {}\n").unwrap();
                        cc(&[
                            "-shared".into(),
                            "-fPIC".into(),
                            "-o".into(),
                            stub.display().to_string(),
                            c.display().to_string(),
                            format!("-Wl,-soname,{name}"),
                        ]);
                    }
                    args.push(format!("-L{}", link_only.display()));
                }
                args.push(format!("-l:{name}"));
            }
            cc(&args);
            built.insert(basename(&lib.path), out);
            false
        });
        assert!(
            pending.len() < before,
            "the extract's libraries need each other in a cycle"
        );
    }
}

#[test]
fn plugin_check_agrees_with_tensorflow_on_intel_extension_for_tensorflow() {
    let verdicts = verdicts();
    let mut failures = Vec::new();
    let mut cells = 0;
    for version in ["2.13.0.1.0", "2.14.0.2.0", "2.15.0.0.0"] {
        let extract: Value = serde_json::from_str(
            &std::fs::read_to_string(common::data(&format!("plugins/itex-{version}.json")))
                .expect("read"),
        )
        .expect("JSON");
        let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
            .join(format!("se-abi-itex-{version}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        rebuild(&extract, &root);
        let plugin = root.join(extract["plugin"].as_str().expect("plugin"));
        let ours = plugin_check(&plugin, false, None);
        assert_eq!(
            ours["entry_points"],
            serde_json::json!(["TF_InitKernel", "TF_InitGraph"])
        );
        if version == "2.15.0.0.0" {
            // TensorFlow 2.12 refuses it when it loads its AVX2 library at run time: the tool
            // names that library's failure, and cannot tell whether the plugin loads it.
            let old = &ours["releases"][0];
            assert_eq!(old["release"], "2.12.1");
            assert!(old["loads"].is_null(), "{old}");
            assert!(old["refusals"].as_array().unwrap().is_empty(), "{old}");
            assert!(
                old["at_run_time"][0]["message"]
                    .as_str()
                    .unwrap()
                    .contains("libitex_cpu_internal_avx2.so: undefined symbol"),
                "{old}"
            );
        }
        let plugin_dir = plugin.parent().unwrap().to_path_buf();
        cells += agree(
            &format!("itex-{version}"),
            &ours,
            &verdicts,
            &plugin_dir,
            &mut failures,
        );
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(cells, 30);
}

/// Rebuilds a skeleton (`interop/plugin_check/skeleton.py`) at `path`: the original's size, its
/// bytes where the dynamic loader reads them, zeros elsewhere.
fn rebuild_skeleton(skeleton: &Value, path: &Path) {
    use std::io::{Seek as _, SeekFrom, Write as _};
    let mut file = std::fs::File::create(path).unwrap();
    file.set_len(skeleton["size"].as_u64().unwrap()).unwrap();
    for chunk in skeleton["chunks"].as_array().unwrap() {
        let offset = chunk[0].as_u64().unwrap();
        let hex = chunk[1].as_str().unwrap();
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect();
        file.seek(SeekFrom::Start(offset)).unwrap();
        file.write_all(&bytes).unwrap();
    }
}

#[test]
fn plugin_check_refuses_the_directml_plugin_in_every_release_in_its_words() {
    let verdicts = verdicts();
    let skeleton: Value = serde_json::from_str(
        &std::fs::read_to_string(common::data(
            "plugins/directml-0.4.0.dev230202.skeleton.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let root = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("se-abi-directml-{}", std::process::id()));
    let plugins = root.join("tensorflow-plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    let plugin = plugins.join("libtfdml_plugin.so");
    rebuild_skeleton(&skeleton, &plugin);
    let ours = plugin_check(&plugin, false, None);
    assert_eq!(
        ours["entry_points"],
        serde_json::json!([
            "SE_InitPlugin",
            "TF_InitKernel",
            "TF_InitGraph",
            "TF_InitProfiler"
        ])
    );
    let mut failures = Vec::new();
    let cells = agree(
        "directml-0.4.0.dev230202",
        &ours,
        &verdicts,
        &plugins,
        &mut failures,
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(cells, 10);
    assert_eq!(ours["refused_by"].as_array().unwrap().len(), 10, "{ours}");
    let _ = std::fs::remove_dir_all(&root);
}
