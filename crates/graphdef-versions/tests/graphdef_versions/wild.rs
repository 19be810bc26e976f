//! Real files from the wild, and specimens made for each step of `tf.saved_model.load`, against
//! what the ten real releases said of them.
//!
//! - `tests/data/wild/`: 64 kept cases (real SavedModels and GraphDefs that other projects ship,
//!   exports of third-party model code by the ten releases, and copies of them with variable
//!   files removed), their provenance and licences in its README;
//! - `tests/data/specimens/`: SavedModels made here, one per way a release refuses (or accepts)
//!   what `tf.saved_model.load` reads beside the graph: variables, revived objects, signatures.
//!
//! Each case is judged as its releases loaded it: a GraphDef with `import_graph_def`
//! ([`ReleaseJudge::judge`]), a SavedModel with `tf.saved_model.load(dir)`
//! ([`ReleaseJudge::judge_saved_model`], variables included), and a SavedModel's first meta
//! graph again with `import_graph_def`. For every release: the verdict, and for a refusal the
//! Python exception's class and its message; and the oldest release that loads the file.
//!
//! Messages are compared after removing what is not the file's doing, from both sides:
//!
//! 1. A TensorFlow 1 SavedModel whose variables cannot be restored fails while running a graph,
//!    and TensorFlow puts the Python stack of the code that called `tf.saved_model.load`
//!    between `Graph execution error:` and the reason (`Detected at node ... defined at (most
//!    recent call last):`, judge.py's frames, and in 2.12 and 2.13 a `Node: '...'` line). The
//!    crate leaves that block out; it is removed from TensorFlow's text.
//! 2. The number of a pruned function (`__inference_pruned_N`) counts every tensor Python made
//!    in the process before it; the crate writes `N`, and TensorFlow's number is read as `N`.
//! 3. Which signature of a TensorFlow 1 SavedModel is pruned first changes from one run of a
//!    release to the next, so a file with several failing signatures raises any of their
//!    errors: the crate lists each (in key order), and TensorFlow's must be one of them.
//! 4. The feeds of a pruned signature become placeholders in an order that changes from run to
//!    run, and placeholders for several outputs of one op are named `op`, `op_1`, `op_2`... in
//!    that order: in `TF_Output NAME:0 appears more than once in the input list`, a `_k`
//!    suffix of `NAME` is not compared. (`lift_to_graph`, `tensorflow/python/eager/
//!    lift_to_graph.py`, copies the sources `for s in sources`, an `ObjectIdentitySet` whose
//!    set hashes each tensor by its `id()`, `tensorflow/python/util/object_identity.py`: the
//!    order follows memory addresses. Six runs of 2.19.1 on `tfx_trainer_format_tfma` named
//!    `StatefulPartitionedCall_6_16`, `_6_5`, `_6_7`, `_6_16`, `_6_9` and `_6`.)
//! 5. Paths are the case's folder as each side was given it: the crate's are read from here.

use std::path::Path;

use graphdef_versions::{Loader, ReleaseJudge, ReleaseReport, decode_graphs};
use serde_json::Value;

use crate::common::{data, data_bytes, data_json};

/// A message with what is not the file's doing taken out (see the module's documentation).
fn normalized(message: &str) -> String {
    let mut lines: Vec<&str> = Vec::new();
    let mut in_stack = false;
    for line in message.split('\n') {
        if line.starts_with("Detected at node ") {
            in_stack = true;
            continue;
        }
        if in_stack {
            if line.is_empty() || line.starts_with(' ') || line.starts_with("Node: '") {
                continue;
            }
            in_stack = false;
        }
        lines.push(line);
    }
    let text = lines.join("\n");
    let text = replace_number_after(&text, "__inference_pruned_");
    match (
        text.strip_prefix("TF_Output "),
        text.find(":0 appears more than once"),
    ) {
        (Some(_), Some(end)) => {
            let name = &text["TF_Output ".len()..end];
            let base = name
                .rsplit_once('_')
                .filter(|(_, k)| !k.is_empty() && k.bytes().all(|b| b.is_ascii_digit()))
                .map_or(name, |(base, _)| base);
            format!("TF_Output {base}[_k]{}", &text[end..])
        }
        _ => text,
    }
}

/// `text` with the number after each `marker` (digits, or the crate's `N`) read as `N`.
fn replace_number_after(text: &str, marker: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let end = at + marker.len();
        out.push_str(&rest[..end]);
        let digits = rest[end..].bytes().take_while(u8::is_ascii_digit).count();
        let number = if digits == 0 && rest[end..].starts_with('N') {
            1
        } else {
            digits
        };
        out.push('N');
        rest = &rest[end + number..];
    }
    out.push_str(rest);
    out
}

/// What a comparison went through: the verdicts compared, and the refusals whose class and
/// message were compared (both sides refused).
#[derive(Default)]
struct Compared {
    verdicts: usize,
    refusals: usize,
}

/// Differences between a report and what the releases said (`entry` picks each release's
/// entry of a case's verdicts), with the crate's messages naming `root` removed from paths.
///
/// For every release: the verdict; when both refuse, the exception's class and the first
/// message (the crate lists several only for a TensorFlow 1 SavedModel with several failing
/// signatures, any of which TensorFlow may raise first, point 3 of the module's documentation:
/// then TensorFlow's must be one of them, and all must be of TensorFlow's class); and the
/// oldest release that loads the file. The report must judge exactly the releases the
/// verdicts hold, in the same order.
fn compare(
    case: &str,
    report: &ReleaseReport,
    verdicts: &Value,
    entry: impl Fn(&Value) -> &Value,
    root: &str,
    out: &mut Vec<String>,
    compared: &mut Compared,
) {
    let judged: Vec<&str> = report
        .verdicts()
        .iter()
        .map(|v| v.release().name())
        .collect();
    let said: Vec<&str> = verdicts
        .as_object()
        .expect("a case's verdicts are an object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        judged, said,
        "{case}: the releases judged and the releases that said"
    );
    let mut oldest = None;
    for verdict in report.verdicts() {
        let release = verdict.release().name();
        let expected = entry(&verdicts[release]);
        let ok = expected["ok"].as_bool().expect("ok is a bool");
        compared.verdicts += 1;
        if ok && oldest.is_none() {
            oldest = Some(release);
        }
        if verdict.accepted() != ok {
            let ours = verdict.errors().first().map(|e| e.message().to_string());
            out.push(format!(
                "{case} {release}: accepted {} ({ours:?}) but TF said ok={ok} ({})",
                verdict.accepted(),
                expected["error"]
            ));
            continue;
        }
        if ok {
            continue;
        }
        compared.refusals += 1;
        let class = expected["error_class"]
            .as_str()
            .unwrap_or_else(|| panic!("{case} {release}: a refusal without error_class"));
        let theirs = normalized(
            expected["error"]
                .as_str()
                .unwrap_or_else(|| panic!("{case} {release}: a refusal without error")),
        );
        let ours: Vec<String> = verdict
            .errors()
            .iter()
            .map(|error| normalized(&error.message().replace(root, "")))
            .collect();
        for error in verdict.errors() {
            if error.python_class() != class {
                out.push(format!(
                    "{case} {release}: class {} but TF raised {class}",
                    error.python_class()
                ));
            }
        }
        let agrees = match ours.as_slice() {
            [first] => *first == theirs,
            alternatives => alternatives.contains(&theirs),
        };
        if !agrees {
            out.push(format!(
                "{case} {release}: message differs\n  ours: {ours:?}\n  TF:   {theirs:?}"
            ));
        }
    }
    let ours = report.oldest_release().map(|release| release.name());
    if ours != oldest {
        out.push(format!("{case}: oldest release {ours:?}, TF's {oldest:?}"));
    }
}

/// Judges every case of `set` (a folder of `tests/data` with `cases.json`, `verdicts.json`
/// and `cases/`) that `cases.json` keeps, and returns how many were judged, what was compared,
/// and the differences.
fn judge_set(set: &str) -> (usize, Compared, Vec<String>) {
    let verdicts = data_json(&format!("{set}/verdicts.json"));
    let cases = data_json(&format!("{set}/cases.json"));
    let root_path = data(&format!("{set}/cases"));
    let root = format!("{}/", root_path.display());
    let judge = ReleaseJudge::with_host("vm");
    let mut differences = Vec::new();
    let mut compared = Compared::default();
    let mut judged = 0;
    for case in cases.as_array().expect("cases.json is a list") {
        if case["kept"] != true {
            continue;
        }
        let name = case["case"].as_str().unwrap();
        let expected = &verdicts[name];
        assert!(expected.is_object(), "{set}: no verdicts for {name}");
        judged += 1;
        if case["kind"] == "graph_def" {
            let bytes = data_bytes(&format!("{set}/cases/{name}"));
            let report = judge
                .judge(&bytes)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
            assert_eq!(report.loader(), Loader::ImportGraphDef, "{name}");
            compare(
                name,
                &report,
                expected,
                |v| v,
                &root,
                &mut differences,
                &mut compared,
            );
            continue;
        }
        let dir = root_path.join(name);
        let bytes = data_bytes(&format!("{set}/cases/{name}/saved_model.pb"));
        let report = judge
            .judge_saved_model(&bytes, &dir)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(report.loader(), Loader::SavedModelLoad, "{name}");
        compare(
            name,
            &report,
            expected,
            |v| v,
            &root,
            &mut differences,
            &mut compared,
        );
        let graph = decode_graphs(&bytes).unwrap().1.remove(0);
        let imported = judge.judge_graph_def(&graph);
        compare(
            &format!("{name} (import_graph_def)"),
            &imported,
            expected,
            |v| &v["import_graph_def"],
            &root,
            &mut differences,
            &mut compared,
        );
    }
    (judged, compared, differences)
}

/// Judges the set `set` and asserts it agrees with TensorFlow everywhere, having judged `cases`
/// cases and compared `verdicts` verdicts, `refusals` of them refusals (class and message).
fn assert_set_agrees(set: &str, cases: usize, verdicts: usize, refusals: usize) {
    let (judged, compared, differences) = judge_set(set);
    assert_eq!(judged, cases, "the cases of tests/data/{set}/cases.json");
    assert_eq!(compared.verdicts, verdicts, "{set}: verdicts compared");
    assert_eq!(compared.refusals, refusals, "{set}: refusals compared");
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

#[test]
fn every_wild_case_every_release_as_tensorflow_said() {
    // The 64 kept cases in ten releases, and the 33 SavedModels' meta graphs again with
    // import_graph_def; 120 of them refused by TensorFlow.
    assert_set_agrees("wild", 64, 970, 120);
}

#[test]
fn every_specimen_every_release_as_tensorflow_said() {
    assert_set_agrees("specimens", 27, 540, 183);
}

#[test]
fn what_is_not_the_files_doing_is_taken_out() {
    let tf_2_14 = "Graph execution error:\n\nDetected at node save/RestoreV2 defined at (most \
                   recent call last):\n  File \"judge.py\", line 329, in <module>\n\n  File \
                   \"judge.py\", line 67, in load_once\n\nKey b not found in checkpoint\n\t \
                   [[{{node save/RestoreV2}}]] [Op:__inference_pruned_58]";
    let tf_2_12 = "Graph execution error:\n\nDetected at node 'save/RestoreV2' defined at (most \
                   recent call last):\n    File \"judge.py\", line 329, in <module>\n      \
                   main()\nNode: 'save/RestoreV2'\nKey b not found in checkpoint\n\t \
                   [[{{node save/RestoreV2}}]] [Op:__inference_pruned_2638]";
    let ours = "Graph execution error:\n\nKey b not found in checkpoint\n\t [[{{node \
                save/RestoreV2}}]] [Op:__inference_pruned_N]";
    assert_eq!(normalized(tf_2_14), ours);
    assert_eq!(normalized(tf_2_12), ours);
    assert_eq!(normalized(ours), ours);
    assert_eq!(
        normalized(
            "TF_Output a/StatefulPartitionedCall_6_13:0 appears more than once in the input list"
        ),
        normalized(
            "TF_Output a/StatefulPartitionedCall_6_2:0 appears more than once in the input list"
        ),
    );
    assert_ne!(
        normalized("TF_Output i16:0 appears more than once in the input list"),
        normalized("TF_Output i8:0 appears more than once in the input list"),
    );
    // Nothing else is touched.
    let plain = "Op type not registered 'CheckPinned' in binary running on vm.";
    assert_eq!(normalized(plain), plain);
    assert!(Path::new(&data("wild/cases")).is_dir());
}
