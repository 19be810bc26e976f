//! `se-abi pjrt-check` against what real JAX releases did with the probe plugins
//! (`releases/pjrt/jax/<jaxlib>.json.gz`, measured by `interop/pjrt/measure.py`): each probe is
//! compiled again here from `interop/pjrt/probe.c` with the flags it was measured with, checked
//! with `--run` under the setting it was measured under, and every verdict and every text must
//! agree. Without `--run` the tool never guesses a version. And the PJRT header facts
//! (`STRUCT_SIZES`) must agree with the args sizes each release was measured to pass.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use se_abi::pjrt::{JAX_RELEASES, args_size_at};
use serde_json::Value;

use crate::common::c_build::{cc, out_dir};

const PREFIX: &str = "Unable to initialize backend 'probe': ";

fn manifest() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every release's measured facts (gzip-compressed JSON, read with the system's `gzip`).
fn measured() -> Vec<Value> {
    let dir = manifest().join("releases/pjrt/jax");
    let mut out = Vec::new();
    for release in JAX_RELEASES {
        let path = dir.join(format!("{}.json.gz", release.jaxlib));
        let output = Command::new("gzip")
            .arg("-dc")
            .arg(&path)
            .output()
            .expect("gzip");
        assert!(output.status.success(), "{}", path.display());
        out.push(serde_json::from_slice(&output.stdout).expect("facts are JSON"));
    }
    out
}

/// Where the probe built with `flags` goes, and the compiler's arguments for it (as measure.py
/// builds it).
fn probe_build(flags: &BTreeMap<String, Value>) -> (PathBuf, Vec<String>) {
    let key = serde_json::to_string(flags).unwrap();
    // Named by its flags: the tests run at once, and each builds its own.
    let name: String = key
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    let out = out_dir().join(format!("pjrt-probe{name}.so"));
    let mut args: Vec<String> = ["-shared", "-fPIC", "-fvisibility=hidden", "-O1", "-Wall"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    for (k, v) in flags {
        match (k.as_str(), v) {
            ("no_export", v) if v.as_i64() == Some(1) || v.as_bool() == Some(true) => {
                args.push("-DPROBE_NO_EXPORT=1".into())
            }
            ("demand_name", Value::String(s)) => args.push(format!("-DPROBE_DEMAND_NAME=\"{s}\"")),
            (k, v) => args.push(format!("-DPROBE_{}={v}", k.to_uppercase())),
        }
    }
    args.push("-o".into());
    args.push(out.display().to_string());
    args.push(
        manifest()
            .join("interop/pjrt/probe.c")
            .display()
            .to_string(),
    );
    (out, args)
}

/// The probe built with `flags`, once per set of flags.
fn probe(flags: &BTreeMap<String, Value>, cache: &mut BTreeMap<String, PathBuf>) -> PathBuf {
    let key = serde_json::to_string(flags).unwrap();
    if let Some(p) = cache.get(&key) {
        return p.clone();
    }
    let (out, args) = probe_build(flags);
    cc(&args);
    cache.insert(key, out.clone());
    out
}

/// Builds every probe of `all` not yet in `cache`, one compiler per core at a time (the
/// measured runs need a few hundred probes, and compiling them dominates the test).
fn build_probes(all: &[BTreeMap<String, Value>], cache: &mut BTreeMap<String, PathBuf>) {
    let mut todo: Vec<(String, PathBuf, Vec<String>)> = Vec::new();
    for flags in all {
        let key = serde_json::to_string(flags).unwrap();
        if !cache.contains_key(&key) && !todo.iter().any(|(k, _, _)| *k == key) {
            let (out, args) = probe_build(flags);
            todo.push((key, out, args));
        }
    }
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    std::thread::scope(|scope| {
        for chunk in todo.chunks(todo.len().div_ceil(workers).max(1)) {
            scope.spawn(move || chunk.iter().for_each(|(_, _, args)| cc(args)));
        }
    });
    cache.extend(todo.into_iter().map(|(key, out, _)| (key, out)));
}

/// Whether the run's probe refuses more than a plugin of its version would: such probes
/// measure how the release passes a plugin's refusal on, which the predictions use as a
/// template, and are not predicted themselves.
fn refuses_more(run: &Value) -> bool {
    run["probe"]["what"]
        .as_str()
        .is_some_and(|what| what.ends_with("demands more"))
}

/// The build flags of the probe a measured run loaded.
fn probe_flags(run: &Value) -> BTreeMap<String, Value> {
    let mut flags: BTreeMap<String, Value> = run["probe"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    flags.remove("what");
    flags
}

fn pjrt_check(plugin: &Path, run: bool, setting: &str) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_se-abi"));
    command.arg("pjrt-check").arg(plugin).arg("--json");
    if run {
        command.arg("--run");
    }
    if setting != "unset" {
        command.args(["--compat", setting]);
    }
    let output = command.output().expect("run se-abi");
    assert!(
        matches!(output.status.code(), Some(0 | 1)),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON")
}

/// What the user saw, in the tool's terms: `(loads, error)`, the probe's path as `{path}`.
fn expected(run: &Value) -> (bool, Option<String>) {
    match run["outcome"].as_str() {
        Some("loaded") => (true, None),
        Some("signal") => (false, run["error"].as_str().map(str::to_string)),
        _ => {
            let error = run["error"].as_str().unwrap_or("");
            let error = error.strip_prefix(PREFIX).unwrap_or(error);
            (false, Some(without_path(error)))
        }
    }
}

fn without_path(text: &str) -> String {
    match (text.find('/'), text.find(".so")) {
        (Some(a), Some(b)) if a < b => format!("{}{{path}}{}", &text[..a], &text[b + 3..]),
        _ => text.to_string(),
    }
}

#[test]
fn pjrt_check_agrees_with_every_measured_probe_run() {
    let facts = measured();
    let mut cache = BTreeMap::new();
    build_probes(
        &facts
            .iter()
            .flat_map(|release| release["runs"].as_array().unwrap())
            .filter(|run| !refuses_more(run))
            .map(probe_flags)
            .collect::<Vec<_>>(),
        &mut cache,
    );
    // One tool run per (probe, setting) answers for every release.
    let mut answers: BTreeMap<(String, String), Value> = BTreeMap::new();
    let (mut agreed, mut runs) = (0, 0);
    let mut disagreements = Vec::new();
    for release in &facts {
        let jaxlib = release["jaxlib"].as_str().unwrap();
        for run in release["runs"].as_array().unwrap() {
            let what = run["probe"]["what"].as_str().unwrap_or("");
            if refuses_more(run) {
                continue;
            }
            let flags = probe_flags(run);
            let setting = run["setting"].as_str().unwrap().to_string();
            let plugin = probe(&flags, &mut cache);
            let key = (serde_json::to_string(&flags).unwrap(), setting.clone());
            let answer = answers
                .entry(key)
                .or_insert_with(|| pjrt_check(&plugin, true, &setting));
            let verdict = answer["releases"]
                .as_array()
                .unwrap()
                .iter()
                .find(|r| r["jaxlib"] == jaxlib)
                .unwrap_or_else(|| panic!("no verdict for {jaxlib}"));
            let (loads, error) = expected(run);
            let got_error = verdict["error"]
                .as_str()
                .map(without_path)
                .filter(|_| !loads);
            runs += 1;
            if verdict["loads"] == Value::Bool(loads) && got_error == error {
                agreed += 1;
            } else {
                disagreements.push(format!(
                    "{jaxlib} {setting} {what} {flags:?}: measured {loads} {error:?}, predicted {} {:?}",
                    verdict["loads"], verdict["error"]
                ));
            }
        }
    }
    assert!(runs > 300, "only {runs} measured runs");
    assert!(
        disagreements.is_empty(),
        "{agreed}/{runs} agree; disagreements:\n{}",
        disagreements.join("\n")
    );
}

#[test]
fn without_run_the_version_is_never_guessed() {
    let mut cache = BTreeMap::new();
    let mut flags = BTreeMap::new();
    flags.insert("minor".to_string(), Value::from(64));
    let plugin = probe(&flags, &mut cache);
    let answer = pjrt_check(&plugin, false, "unset");
    assert_eq!(answer["pjrt_api_version"], Value::Null);
    for verdict in answer["releases"].as_array().unwrap() {
        assert_eq!(verdict["loads"], Value::Null, "{verdict}");
    }
    // A library without GetPjrtApi is refused from the file alone, in register_plugin's words.
    flags.insert("no_export".to_string(), Value::from(1));
    let plugin = probe(&flags, &mut cache);
    let answer = pjrt_check(&plugin, false, "unset");
    for verdict in answer["releases"].as_array().unwrap() {
        assert_eq!(verdict["loads"], Value::Bool(false));
        let error = verdict["error"].as_str().unwrap();
        assert_eq!(
            error,
            format!("NOT_FOUND: GetPjrtApi not found in {}", plugin.display())
        );
    }
}

#[test]
fn header_sizes_agree_with_the_sizes_releases_pass() {
    // Each release passes the args sizes of its own header: where its PJRT minor is a header
    // read, exactly that size; between two headers, a size between theirs.
    let mut checked = 0;
    for release in JAX_RELEASES {
        let minor = release.framework.1;
        for &(slot, passed) in release.calls {
            let Some((name, size, exact)) = args_size_at(slot, minor) else {
                continue;
            };
            if exact {
                assert_eq!(passed, size, "{} {name}", release.jaxlib);
            } else {
                assert!(
                    passed >= size,
                    "{} {name}: {passed} < {size}",
                    release.jaxlib
                );
            }
            checked += 1;
        }
    }
    assert!(checked >= 20);
    // The sizes the issue quotes: PJRT_Client_Create_Args is 72 up to 0.54 and 88 by 0.67.
    assert_eq!(args_size_at(10, 54).map(|a| a.1), Some(72));
    assert_eq!(
        args_size_at(10, 67).map(|a| (a.0, a.1)),
        Some(("PJRT_Client_Create_Args", 88))
    );
    assert_eq!(args_size_at(10, 60).map(|a| a.2), Some(false));
}

#[test]
fn the_library_agrees_with_jax_on_the_real_plugins() {
    use se_abi::pjrt::{ApiFacts, Compat, PjrtPlugin, Wording, predict};
    let data: Value = serde_json::from_str(
        &std::fs::read_to_string(manifest().join("tests/data/pjrt_real_plugins.json")).unwrap(),
    )
    .unwrap();
    let (mut agreed, mut total, mut after_client) = (0, 0, 0);
    for plugin in data["plugins"].as_array().unwrap() {
        let name = plugin["name"].as_str().unwrap();
        let num = |v: &Value| usize::try_from(v.as_u64().unwrap()).unwrap();
        let api = ApiFacts {
            struct_size: num(&plugin["struct_size"]),
            version: (
                i32::try_from(plugin["version"][0].as_i64().unwrap()).unwrap(),
                i32::try_from(plugin["version"][1].as_i64().unwrap()).unwrap(),
            ),
            version_struct_size: 24,
            null_slots: Vec::new(),
            extensions: plugin["extensions"]
                .as_array()
                .unwrap()
                .iter()
                .map(|e| (u32::try_from(e[0].as_u64().unwrap()).unwrap(), num(&e[1])))
                .collect(),
        };
        let file = PjrtPlugin {
            path: PathBuf::from("xla_cuda_plugin.so"),
            exports_get_pjrt_api: true,
            wording: match plugin["wording"].as_str().unwrap() {
                "later-version" => Wording::LaterVersion { with_version: true },
                _ => Wording::CheckVersions,
            },
        };
        for release in JAX_RELEASES {
            let path = manifest().join(format!(
                "releases/pjrt/jax/{name}-{}.json.gz",
                release.jaxlib
            ));
            let output = Command::new("gzip").arg("-dc").arg(&path).output().unwrap();
            let facts: Value = serde_json::from_slice(&output.stdout).expect("measured");
            for run in facts["runs"].as_array().unwrap() {
                let compat = match run["setting"].as_str().unwrap() {
                    "0" => Compat::Off,
                    "1" => Compat::On,
                    _ => Compat::Unset,
                };
                let error = run["error"].as_str().unwrap_or("");
                // On a machine without the accelerator, "loads" is the missing device alone.
                let no_device = error.contains("No visible GPU devices")
                    || error.contains("TPU initialization failed");
                let loads = run["outcome"] == "loaded" || no_device;
                let error = error
                    .strip_prefix("Unable to initialize backend 'plugin': ")
                    .unwrap_or(error);
                let p = predict(&file, Some(&api), release, compat);
                total += 1;
                // An abort's glog line, when the release logged one, is what the note quotes.
                let fatal_quoted = run["fatal"].as_str().is_none_or(|f| {
                    let f = f.strip_prefix("Unexpected error status ").unwrap_or(f);
                    p.note.as_deref().is_some_and(|n| n.contains(f))
                });
                let agrees = if p.after_client_create.is_some() {
                    // A refusal after client creation: measured where the plugin needs no
                    // device (the abort, its F line quoted); where real loading stopped at the
                    // missing device, the prediction agrees by naming the struct refused.
                    (no_device || (run["outcome"] == "signal" && fatal_quoted))
                        && p.loads == Some(false)
                        && (no_device || p.error.as_deref() == Some(error))
                } else {
                    p.loads == Some(loads) && (loads || p.error.as_deref() == Some(error))
                };
                if agrees {
                    agreed += 1;
                    if p.after_client_create.is_some() {
                        after_client += 1;
                    }
                } else {
                    panic!(
                        "{name} on {} ({compat:?}): measured {loads} {error:?}, predicted {p:?}",
                        release.jaxlib
                    );
                }
            }
        }
    }
    assert_eq!((agreed, total), (198, 198));
    // xla-cpu-pjrt on 0.5.0, 0.5.3, 0.6.2 (unset, 1) aborts; the CUDA and TPU 0.116 plugins would
    // too, on a machine with the device.
    assert!(after_client >= 6, "{after_client}");
}

#[test]
fn pjrt_check_refuses_what_is_not_a_plugin_with_exit_2() {
    let dir = out_dir();
    let text = dir.join("not-a-plugin.so");
    std::fs::write(&text, "GetPjrtApi\n").unwrap();
    for (input, words) in [
        (
            text.as_path(),
            "not an ELF file: not a PJRT plugin JAX could load",
        ),
        (dir.as_path(), "is a directory, not a plugin file"),
        (
            Path::new("/nonexistent/plugin.so"),
            "cannot read /nonexistent/plugin.so",
        ),
    ] {
        let output = Command::new(env!("CARGO_BIN_EXE_se-abi"))
            .args(["pjrt-check", "--json", "--run"])
            .arg(input)
            .output()
            .unwrap();
        assert_eq!(output.status.code(), Some(2), "{}", input.display());
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(words), "{stderr}");
        let json: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(json["unreadable"], Value::Bool(true));
    }
    // A bad --compat is a usage error.
    let output = Command::new(env!("CARGO_BIN_EXE_se-abi"))
        .args(["pjrt-check", "--compat", "2"])
        .arg(&text)
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn a_get_pjrt_api_that_crashes_or_returns_null_is_judged_without_a_guess() {
    let dir = out_dir();
    let build = |name: &str, body: &str| {
        let source = dir.join(format!("{name}.c"));
        std::fs::write(
            &source,
            format!("__attribute__((visibility(\"default\"))) const void *GetPjrtApi(void) {{ {body} }}\n"),
        )
        .unwrap();
        let out = dir.join(format!("{name}.so"));
        cc(&[
            "-shared".into(),
            "-fPIC".into(),
            "-o".into(),
            out.display().to_string(),
            source.display().to_string(),
        ]);
        out
    };
    // The framework calls GetPjrtApi too: a crash there is every release's verdict.
    let crashing = build("pjrt-crash", "*(volatile int *)0 = 1; return 0;");
    let answer = pjrt_check(&crashing, true, "unset");
    assert_eq!(answer["pjrt_api_version"], Value::Null);
    for verdict in answer["releases"].as_array().unwrap() {
        assert_eq!(verdict["loads"], Value::Bool(false));
        assert_eq!(verdict["error"], Value::from("SIGSEGV"));
    }
    // NULL is not a PJRT_Api: nothing to read, no verdict.
    let null = build("pjrt-null", "return 0;");
    let answer = pjrt_check(&null, true, "unset");
    for verdict in answer["releases"].as_array().unwrap() {
        assert_eq!(verdict["loads"], Value::Null);
    }
}

/// A plugin whose needed library is absent (as ROCm's and oneAPI's are here): `dlopen` fails,
/// and every release's `register_plugin` says so in XLA's words, which the prediction gives
/// (measured with jax-rocm7-pjrt 0.12.0, jax-oneapi-pjrt 0.11.2 and intel-extension-for-openxla
/// 0.7.0 on two releases each: `INTERNAL: Failed to open <path>: <dlerror>`).
#[test]
fn a_plugin_the_loader_cannot_open_is_refused_in_register_plugins_words() {
    let dir = out_dir().join("unopenable");
    std::fs::create_dir_all(&dir).unwrap();
    let lib = dir.join("libse_abi_absent_runtime.so");
    let lib_c = dir.join("absent.c");
    std::fs::write(&lib_c, "int se_abi_absent_runtime(void) { return 1; }\n").unwrap();
    cc(&[
        "-shared".into(),
        "-fPIC".into(),
        "-o".into(),
        lib.display().to_string(),
        lib_c.display().to_string(),
    ]);
    let source = dir.join("plugin.c");
    std::fs::write(
        &source,
        "int se_abi_absent_runtime(void);\n\
         __attribute__((visibility(\"default\"))) const void *GetPjrtApi(void) {\n\
         return (const void *)(long)se_abi_absent_runtime(); }\n",
    )
    .unwrap();
    let plugin = dir.join("needs_absent.so");
    cc(&[
        "-shared".into(),
        "-fPIC".into(),
        "-o".into(),
        plugin.display().to_string(),
        source.display().to_string(),
        format!("-L{}", dir.display()),
        "-lse_abi_absent_runtime".into(),
    ]);
    std::fs::remove_file(&lib).unwrap();
    let json = pjrt_check(&plugin, true, "unset");
    let expected = format!(
        "INTERNAL: Failed to open {}: libse_abi_absent_runtime.so: cannot open shared object file: No such file or directory",
        plugin.display()
    );
    for release in json["releases"].as_array().unwrap() {
        assert_eq!(release["loads"], Value::Bool(false), "{release}");
        assert_eq!(
            release["error"].as_str(),
            Some(expected.as_str()),
            "{release}"
        );
    }
    // Without --run nothing is opened: the version is unknown, never a guess.
    let json = pjrt_check(&plugin, false, "unset");
    assert!(
        json["releases"]
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["loads"].is_null())
    );
}
