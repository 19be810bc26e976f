//! `tflite-opver runtimes`: which real runtimes load a model, its JSON, `--require` and exit codes.

use super::json_keys::{CHECK_NAMED_KEYS, UNREADABLE_KEYS, readme_keys, without_item_keys};
use super::*;

/// The keys of `runtimes --json`, exactly; the crate README lists the same.
const RUNTIMES_KEYS: &[&str] = &[
    "allocates_on",
    "allocation_refused_by",
    "file",
    "kernels",
    "kernels.measured",
    "kernels.not_measured",
    "kernels.not_measured[].name",
    "kernels.not_measured[].operator",
    "kernels.not_measured[].subgraph",
    "kernels.reference",
    "kernels.tolerance",
    "loads_on",
    "oldest",
    "oldest.ai-edge-litert",
    "oldest.tensorflow-cpu",
    "oldest.tflite-runtime",
    "required",
    "required[].allocates",
    "required[].loads",
    "required[].runs",
    "required[].runtime",
    "restamp_refused_by",
    "runtimes",
    "runtimes[].allocate_error",
    "runtimes[].allocate_node",
    "runtimes[].allocate_note",
    "runtimes[].allocate_op",
    "runtimes[].allocate_refused_by",
    "runtimes[].allocates",
    "runtimes[].blocking",
    "runtimes[].blocking[].builtin_code",
    "runtimes[].blocking[].cause",
    "runtimes[].blocking[].max_registered_version",
    "runtimes[].blocking[].name",
    "runtimes[].blocking[].operator_code",
    "runtimes[].blocking[].reason",
    "runtimes[].blocking[].required_version",
    "runtimes[].blocking[].version",
    "runtimes[].crashes",
    "runtimes[].error",
    "runtimes[].family",
    "runtimes[].kernel_gaps",
    "runtimes[].kernel_gaps[].builtin_code",
    "runtimes[].kernel_gaps[].name",
    "runtimes[].kernel_gaps[].nodes",
    "runtimes[].kernel_gaps[].operator",
    "runtimes[].kernel_gaps[].probe",
    "runtimes[].kernel_gaps[].stage",
    "runtimes[].kernel_gaps[].subgraph",
    "runtimes[].kernel_gaps[].text",
    "runtimes[].kernel_gaps[].types",
    "runtimes[].loads",
    "runtimes[].refused_by",
    "runtimes[].runs",
    "runtimes[].runtime",
    "runtimes[].version",
    "stored_too_low",
    "stored_too_low[].all_register_required",
    "stored_too_low[].name",
    "stored_too_low[].operator_code",
    "stored_too_low[].required_version",
    "stored_too_low[].stored_only",
    "stored_too_low[].stored_version",
    "unreadable",
    "warnings",
    "warnings[].kind",
    "warnings[].message",
    "warnings[].operator_code",
];

/// A float SQRT stamped version 2 (the version of its int8 and int16 kernels, which came in
/// TensorFlow 2.21 and ai-edge-litert 2.0.2): a model older runtimes refuse.
fn sqrt_v2(dir: &std::path::Path) -> PathBuf {
    float_op_stamped(dir, BuiltinOperator::SQRT, 2)
}

fn runtimes(model: &std::path::Path, extra: &[&str]) -> Output {
    let mut args: Vec<&std::ffi::OsStr> = vec!["runtimes".as_ref(), model.as_os_str()];
    args.extend(extra.iter().map(std::ffi::OsStr::new));
    run(&args)
}

#[test]
fn runtimes_json_has_the_documented_names() {
    assert_eq!(readme_keys("#### `runtimes --json`"), RUNTIMES_KEYS);
    let dir = scratch("runtimes-json");
    let model = sqrt_v2(&dir);
    let out = runtimes(
        &model,
        &[
            "--json",
            "--require",
            "ai-edge-litert 2.3.0",
            "--require",
            "tensorflow-cpu 2.20.0",
        ],
    );
    // A required runtime refuses it.
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stderr));
    let json = json_of(&out);
    // Every key, and no other (the model has no metadata: a stamp warning; no code is
    // stored too low).
    // A float SQRT: measured, and no runtime that loads it has a kernel gap for it.
    let keys = without_item_keys(RUNTIMES_KEYS, "stored_too_low[");
    let keys = without_item_keys(&keys, "runtimes[].kernel_gaps[");
    assert_eq!(
        sorted_keys(&json),
        without_item_keys(&keys, "kernels.not_measured[")
    );
    assert_eq!(json["warnings"][0]["kind"], "no_metadata");
    let all = json["runtimes"].as_array().unwrap();
    assert_eq!(all.len(), 30);
    assert_eq!(all[0]["runtime"], "tensorflow-cpu 2.12.1");
    assert_eq!(all[0]["family"], "tensorflow-cpu");
    assert_eq!(all[0]["version"], "2.12.1");
    assert_eq!(all[0]["loads"], false);
    assert_eq!(all[0]["crashes"], false);
    assert_eq!(all[0]["refused_by"], "operator");
    assert_eq!(
        all[0]["error"],
        "Didn't find op for builtin opcode 'SQRT' version '2'. An older version of this builtin \
         might be supported. Are you using an old TFLite binary with a newer model?\n\
         Registration failed.\n"
    );
    let blocking = &all[0]["blocking"][0];
    assert_eq!(blocking["operator_code"], 0);
    assert_eq!(blocking["name"], "SQRT");
    assert_eq!(blocking["builtin_code"], 75);
    assert_eq!(blocking["version"], 2);
    assert_eq!(blocking["max_registered_version"], 1);
    assert_eq!(blocking["cause"], "version_not_registered");
    assert_eq!(blocking["required_version"], 1);
    assert!(blocking["reason"].as_str().unwrap().starts_with("v1: "));
    assert_eq!(all[9]["runtime"], "tensorflow-cpu 2.21.0");
    assert_eq!(all[9]["loads"], true);
    assert_eq!(all[9]["error"], Value::Null);
    assert_eq!(all[9]["refused_by"], Value::Null);
    assert_eq!(all[9]["blocking"], json!([]));
    // A builtin's kernel prepares it at allocation: not replayed, so not judged.
    assert_eq!(all[9]["allocates"], Value::Null);
    assert_eq!(all[9]["runs"], Value::Null);
    assert_eq!(
        all[9]["allocate_note"],
        "a kernel's own checks are not replayed"
    );
    assert_eq!(all[0]["allocates"], false);
    assert_eq!(all[0]["allocate_error"], Value::Null);
    assert_eq!(json["oldest"]["tensorflow-cpu"], "2.21.0");
    assert_eq!(json["oldest"]["tflite-runtime"], Value::Null);
    assert_eq!(json["oldest"]["ai-edge-litert"], "2.0.2");
    assert_eq!(json["loads_on"].as_array().unwrap().len(), 12);
    assert_eq!(
        json["required"],
        json!([
            {"runtime": "ai-edge-litert 2.3.0", "loads": true, "allocates": null, "runs": null},
            {"runtime": "tensorflow-cpu 2.20.0", "loads": false, "allocates": false, "runs": false},
        ])
    );
    assert_eq!(json["file"], model.display().to_string());
    assert_eq!(json["unreadable"], false);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn runtimes_exits_1_only_when_no_runtime_or_a_required_one_refuses() {
    let dir = scratch("runtimes-exit");
    let model = sqrt_v2(&dir);
    // Some runtime loads it: 0, and the table on standard output.
    let out = runtimes(&model, &[]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.starts_with(&format!(
            "{}: loads on 12 of 30 runtimes (the interpreter is constructed); allocate_tensors() \
             refused on 0, succeeds on 0, not judged on 12\noldest that load it: tensorflow-cpu 2.21.0, no \
             tflite-runtime, ai-edge-litert 2.0.2\n",
            model.display()
        )),
        "{stdout}"
    );
    assert!(stdout.contains(
        "\n  tensorflow-cpu 2.20.0    Didn't find op for builtin opcode 'SQRT' version '2'. An \
         older version of this builtin might be supported. Are you using an old TFLite binary \
         with a newer model? Registration failed.\n                             operator code 0 \
         (SQRT v2): it registers up to v1; its operators need v1: "
    ));
    assert!(
        stdout.contains("`tflite-opver stamp --minimize` lowers it\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "\n  ai-edge-litert 2.3.0     loads; allocate_tensors() not judged: a kernel's own \
             checks are not replayed\n"
        ),
        "{stdout}"
    );
    // The summary, the kernels line (a float SQRT: measured, no gap), 30 runtimes, and 18
    // blocking lines.
    assert!(
        stdout.contains(
            "\nkernels: 1 operator form(s) measured (one-operator probes run on \
                         every runtime and compared with ai-edge-litert 2.3.0), 0 not measured\n"
        ),
        "{stdout}"
    );
    assert_eq!(stdout.lines().count(), 3 + 30 + 18);
    // The model has no metadata: the stamp warning, and nothing else.
    let warning = format!(
        "tflite-opver: warning: {}: the model has no metadata",
        model.display()
    );
    let only_the_warning = |out: &Output| {
        let stderr = text(&out.stderr);
        stderr.lines().count() == 1 && stderr.starts_with(&warning)
    };
    assert!(only_the_warning(&out), "{}", text(&out.stderr));

    // Every required runtime loads it: 0.
    let out = runtimes(
        &model,
        &[
            "--require",
            "ai-edge-litert 2.0.2",
            "--require",
            "tensorflow-cpu 2.21.0",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(only_the_warning(&out), "{}", text(&out.stderr));

    // One refuses it: 1, and why on standard error.
    let out = runtimes(&model, &["--require", "ai-edge-litert 1.4.0"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    let file = model.display();
    let (stderr, rest) = stderr.split_at(stderr.find(&warning).unwrap_or(stderr.len()));
    assert!(rest.starts_with(&warning), "{rest}");
    assert_eq!(
        stderr,
        format!(
            "tflite-opver: {file}: ai-edge-litert 1.4.0 refuses it (required): Didn't find op \
             for builtin opcode 'SQRT' version '2'. An older version of this builtin might be \
             supported. Are you using an old TFLite binary with a newer model? Registration \
             failed.\ntflite-opver: {file}: ai-edge-litert 1.4.0: operator code 0 (SQRT v2): it \
             registers up to v1; its operators need {}; `tflite-opver stamp --minimize` lowers \
             it\n",
            stderr
                .split("its operators need ")
                .nth(1)
                .and_then(|rest| rest.split(';').next())
                .unwrap_or("?")
        )
    );

    // No runtime loads it: 1.
    let out_of_range = dir.join("code_250.tflite");
    let t = TensorSpec::new(ElementType::Float32, &[4]);
    let mut builder = ModelBuilder::new();
    let code = builder.operator_code(BuiltinOperator::new(250), OpVersion::ONE);
    let (a, b) = (builder.tensor(&t), builder.tensor(&t));
    builder.operator(code, &[a], &[b], None);
    std::fs::write(&out_of_range, builder.finish()).unwrap();
    let out = runtimes(&out_of_range, &["--json"]);
    assert_eq!(out.status.code(), Some(1));
    let json = json_of(&out);
    assert_eq!(json["loads_on"], json!([]));
    assert_eq!(
        json["runtimes"][29]["error"],
        "Op builtin_code out of range: 250. Are you using old TFLite binary with newer model?\
         Registration failed.\n"
    );
    assert_eq!(
        json["runtimes"][29]["blocking"][0]["cause"],
        "code_out_of_range"
    );
    assert_eq!(
        json["runtimes"][29]["blocking"][0]["max_registered_version"],
        Value::Null
    );

    // A runtime that is not one of the thirty is a usage error; so is an unreadable model.
    let out = runtimes(&model, &["--require", "ai-edge-litert 9.9.9"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("unknown runtime \"ai-edge-litert 9.9.9\""));
    let garbage = dir.join("garbage.tflite");
    std::fs::write(&garbage, b"not a model at all").unwrap();
    let out = runtimes(&garbage, &["--json"]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(sorted_keys(&json_of(&out)), UNREADABLE_KEYS);
    std::fs::remove_dir_all(&dir).ok();
}

/// `runtimes --help` lists every name `--require` takes, each family on its line, and every
/// name it lists is one `--require` takes.
#[test]
fn runtimes_help_lists_the_names_require_takes() {
    let out = run(&["runtimes".as_ref(), "--help".as_ref()]);
    assert_eq!(out.status.code(), Some(0));
    let help = text(&out.stdout);
    let listed: Vec<String> = help
        .lines()
        .skip_while(|line| !line.starts_with("Runtimes --require takes"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .flat_map(|line| {
            let (family, releases) = line.trim().split_once(": ").unwrap();
            releases
                .split(' ')
                .map(|release| format!("{family} {release}"))
                .collect::<Vec<_>>()
        })
        .collect();
    let all: Vec<String> = tflite_opver::Runtime::all()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(listed, all, "{help}");
    assert_eq!(all.len(), 30);
}

/// `check --runtime NAME` and `runtimes` are one judgement: on every Flex and custom-op model,
/// `check`'s JSON is that runtime's entry of `runtimes --json`, and its exit is 1 exactly when
/// the entry's `runs` is false (construction or allocation refused).
#[test]
fn check_a_named_runtime_and_runtimes_agree_on_every_flex_and_custom_op_model() {
    let dir = data("runtimes/flex/tf-2.21.0");
    let mut models: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the flex models")
        .map(|e| e.expect("an entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "tflite"))
        .collect();
    models.sort();
    assert_eq!(models.len(), 12);
    let mut refused = 0;
    for model in &models {
        let all = json_of(&runtimes(model, &["--json"]));
        for entry in all["runtimes"].as_array().unwrap() {
            let name = entry["runtime"].as_str().unwrap();
            let out = check(model, name, true);
            let mut json = json_of(&out);
            // Every key (no blocking code, no stamp warning on these models).
            let keys = without_item_keys(CHECK_NAMED_KEYS, "blocking[");
            let keys = without_item_keys(&keys, "kernel_gaps[");
            assert_eq!(sorted_keys(&json), without_item_keys(&keys, "warnings["));
            let object = json.as_object_mut().unwrap();
            for key in ["file", "unreadable", "warnings"] {
                object.remove(key);
            }
            assert_eq!(&json, entry, "{} on {name}", model.display());
            let expected = if entry["runs"] == false { 1 } else { 0 };
            refused += expected;
            assert_eq!(
                out.status.code(),
                Some(expected),
                "{} on {name}",
                model.display()
            );
        }
    }
    // Flex models on the 23 runtimes without the Flex delegate, custom Erf everywhere.
    assert!(refused >= 4 * 23 + 4 * 30, "{refused}");

    // `--custom` registers a custom op in a TFLite release, never in a real runtime.
    let out = run(&[
        "check".as_ref(),
        dir.join("erf__custom.tflite").as_os_str(),
        "--runtime".as_ref(),
        "tflite-runtime 2.14.0".as_ref(),
        "--custom".as_ref(),
        "Erf".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).starts_with("tflite-opver: --custom adds a custom op"));
    let out = check_custom(&dir.join("erf__custom.tflite"), "2.14.0", "Erf");
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // The same model: `runtimes` names the refusal, `--require` gates on it.
    let flex = dir.join("erf__select.tflite");
    let out = runtimes(&flex, &["--require", "tflite-runtime 2.14.0"]);
    assert_eq!(out.status.code(), Some(1));
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "tflite-runtime 2.14.0 refuses it (required): loads, but allocate_tensors() fails: \
             Select TensorFlow op(s), included in the given model, is(are) not supported by this \
             interpreter."
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("Node number 0 (FlexErf) failed to prepare."),
        "{stderr}"
    );
    let out = runtimes(&flex, &["--require", "tensorflow-cpu 2.14.1"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));

    // A bare release is TFLite's own C++ at that release: no Flex delegate, and the custom
    // ops every default resolver registers.
    let out = check(&flex, "2.14.0", false);
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("FlexErf v1): Select TensorFlow op(s)"));
    let out = check(&dir.join("mfcc__custom.tflite"), "2.14.0", false);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let out = check(&dir.join("mfcc_erf__custom.tflite"), "2.14.0", true);
    assert_eq!(out.status.code(), Some(1));
    let json = json_of(&out);
    assert_eq!(json["unresolved"].as_array().unwrap().len(), 1);
    assert_eq!(json["unresolved"][0]["name"], "Erf");
}

fn check_custom(model: &std::path::Path, release: &str, custom: &str) -> Output {
    run(&[
        "check".as_ref(),
        model.as_os_str(),
        "--runtime".as_ref(),
        release.as_ref(),
        "--custom".as_ref(),
        custom.as_ref(),
    ])
}

/// A model that hits a measured kernel gap: `runtimes` names it per runtime, in text and JSON,
/// and `check --runtime NAME` gives the same entry.
#[test]
fn runtimes_names_the_kernel_gaps_a_model_hits() {
    let model = data("runtimes/converted/tf-2.21.0/gelu__int16x8.tflite");
    let json = json_of(&runtimes(&model, &["--json"]));
    assert_eq!(json["kernels"]["reference"], "ai-edge-litert 2.3.0");
    assert_eq!(json["kernels"]["measured"], 3);
    assert_eq!(json["kernels"]["not_measured"], serde_json::json!([]));
    let all = json["runtimes"].as_array().unwrap();
    let old = &all[7];
    assert_eq!(old["runtime"], "tensorflow-cpu 2.19.1");
    assert_eq!(
        old["kernel_gaps"],
        serde_json::json!([{
            "subgraph": 0,
            "operator": 1,
            "nodes": 1,
            "name": "GELU",
            "builtin_code": 150,
            "types": "int16 -> int16",
            "stage": "invoke",
            "text": "Only float32, int8 and uint8 supported currently, got INT16.Node number 1 \
                     (GELU) failed to invoke.",
            "probe": "GELU:int16/int16:",
        }])
    );
    // tensorflow-cpu 2.20.0 and 2.21.0 run it: measured, no gap.
    assert_eq!(all[8]["kernel_gaps"], serde_json::json!([]));
    assert_eq!(all[9]["kernel_gaps"], serde_json::json!([]));
    let check_json = json_of(&check(&model, "tensorflow-cpu 2.19.1", true));
    assert_eq!(check_json["kernel_gaps"], old["kernel_gaps"]);

    let out = runtimes(&model, &[]);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains(
            "\n  tensorflow-cpu 2.19.1    loads; allocate_tensors() not judged: a kernel's own \
             checks are not replayed\n                             kernel gap: GELU (int16 -> \
             int16) at subgraph 0 operator 1, invoke() raises: Only float32, int8 and uint8 \
             supported currently, got INT16.Node number 1 (GELU) failed to invoke.\n"
        ),
        "{stdout}"
    );
    let out = check(&model, "tensorflow-cpu 2.19.1", false);
    assert_eq!(out.status.code(), Some(0));
    assert!(text(&out.stdout).contains("\n  kernel gap: GELU (int16 -> int16)"));

    // A runtime that does not construct the interpreter reaches no kernel: null.
    let dir = scratch("runtimes-kernel-null");
    let sqrt = sqrt_v2(&dir);
    let json = json_of(&runtimes(&sqrt, &["--json"]));
    assert_eq!(json["runtimes"][0]["loads"], false);
    assert_eq!(json["runtimes"][0]["kernel_gaps"], Value::Null);
}
