//! `se-abi plugin-check` agrees with real TensorFlow loading the plugins.
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
//!   each package is rebuilt here with the C compiler from `tests/data/plugins/*.json` (the
//!   libraries' paths, sonames, `DT_NEEDED`, run paths, and the TensorFlow functions they import
//!   and export, extracted from the wheels by `interop/plugin_check/extract.py`), and checked
//!   statically (it has no `SE_InitPlugin`).
//!
//! For every plugin and release: the tool says it loads exactly when TensorFlow loaded it; when
//! it does not, the library or function the tool names is the one the loader named, and a
//! refusal by the emulated host is a process TensorFlow aborted.

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

/// The library or function a refusal names: what the loader's words must name too.
fn named(message: &str) -> &str {
    if let Some((name, _)) = message.split_once(": cannot open shared object file") {
        return name;
    }
    if let Some((_, rest)) = message.split_once("undefined symbol: ") {
        return rest.split_whitespace().next().unwrap_or(rest);
    }
    message
}

/// Compares the tool's output for `name` with the judge's verdicts; returns the cells compared.
fn agree(name: &str, ours: &Value, verdicts: &Value, failures: &mut Vec<String>) -> usize {
    let judged = &verdicts[name]["releases"];
    let mut cells = 0;
    for release in ours["releases"].as_array().expect("releases") {
        let version = release["release"].as_str().expect("release");
        let real = &judged[version];
        assert!(real.is_object(), "no verdict for {name} in {version}");
        let loads = release["loads"].as_bool().expect("loads");
        let loaded = real["loaded"].as_bool().expect("loaded");
        cells += 1;
        if loads != loaded {
            failures.push(format!(
                "{name} in {version}: se-abi says loads={loads}, TensorFlow loaded={loaded} ({real})"
            ));
            continue;
        }
        if loads {
            continue;
        }
        let first = &release["refusals"][0];
        let message = first["message"].as_str().expect("message");
        let said: String = ["error", "fatal", "loader"]
            .iter()
            .filter_map(|k| real[*k].as_str())
            .collect::<Vec<_>>()
            .join("\n");
        match first["kind"].as_str() {
            // The emulated host's refusal: TensorFlow aborted the process (its validation is a
            // CHECK), whatever the plugin's own status said.
            Some("init") => {
                if real["signal"] != "SIGABRT" {
                    failures.push(format!("{name} in {version}: {message}, but {real}"));
                }
            }
            _ => {
                if !said.contains(named(message)) {
                    failures.push(format!(
                        "{name} in {version}: se-abi names `{}`, TensorFlow said {said:?}",
                        named(message)
                    ));
                }
            }
        }
    }
    cells
}

fn verdicts() -> Value {
    let path = common::data("plugin_verdicts.json");
    serde_json::from_str(&std::fs::read_to_string(path).expect("read")).expect("JSON")
}

/// Builds the `tf_plugin` example's builds (in the target directory the tests build examples in).
fn tf_plugin_builds() -> PathBuf {
    let target_dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("se-abi-examples");
    let output = Command::new(env!("CARGO"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(["build", "--quiet", "--offline", "--package", "se-abi"])
        .args(["--example", "tf-plugin", "--example", "tf-plugin-older"])
        .args([
            "--example",
            "tf-plugin-newer",
            "--example",
            "tf-plugin-unset",
        ])
        .arg("--target-dir")
        .arg(&target_dir)
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo");
    assert!(
        output.status.success(),
        "building the tf_plugin examples failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    target_dir.join("debug").join("examples")
}

#[test]
fn plugin_check_agrees_with_tensorflow_on_the_example_plugin() {
    let verdicts = verdicts();
    let dir = tf_plugin_builds();
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
        cells += agree(name, &ours, &verdicts, &mut failures);
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
        })
        .collect()
}

/// Rebuilds a stand-in of a plugin package in `root`: one shared library per library of the
/// extract, with its soname, `DT_NEEDED`, run path, imports and exports. A needed library that
/// neither the package nor the system has (TensorFlow's) is linked against a stub made in a
/// folder of its own, which is not there when the plugin is checked.
fn rebuild(extract: &Value, root: &Path) {
    let libs = libraries(extract);
    let link_only = root.join("link-only");
    std::fs::create_dir_all(&link_only).unwrap();
    let compiler = std::env::var("CC").unwrap_or_else(|_| "cc".to_owned());
    let cc = |args: &[String]| {
        let output = Command::new(&compiler)
            .args(args)
            .output()
            .unwrap_or_else(|e| panic!("cannot run the C compiler `{compiler}`: {e}"));
        assert!(
            output.status.success(),
            "{compiler} {args:?}:\n{}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let basename = |p: &str| p.rsplit('/').next().unwrap_or(p).to_string();
    let system = |name: &str| {
        [
            "/lib/x86_64-linux-gnu",
            "/usr/lib/x86_64-linux-gnu",
            "/lib64",
        ]
        .iter()
        .any(|d| Path::new(d).join(name).exists())
    };
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
                } else if !system(name) {
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
        cells += agree(&format!("itex-{version}"), &ours, &verdicts, &mut failures);
        let _ = std::fs::remove_dir_all(&root);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert_eq!(cells, 30);
}
