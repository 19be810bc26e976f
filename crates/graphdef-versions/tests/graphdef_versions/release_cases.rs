//! Which releases load each of the oracle's 215 cases, against what the ten real releases said
//! (`tests/data/release_cases/`: hand-built GraphDefs around what changed in each release, and
//! SavedModels saved by each release; `release_verdicts.json` holds each release's `str(e)`).
//!
//! Every case, every release: the verdict, the Python exception's class and the message to
//! the byte (the oracle's machine was called `vm`). A SavedModel is also checked as
//! `import_graph_def` imports its meta graph, which the oracle recorded too.

use graphdef_versions::{ReleaseJudge, ReleaseReport};
use serde_json::Value;

use crate::common::{data_bytes, data_json};

fn cases() -> Vec<Value> {
    data_json("release_cases/release_cases.json")
        .as_array()
        .expect("release_cases.json is a list")
        .clone()
}

/// Differences between a report and the oracle's entries (`entry(release)` picks the entry).
fn compare(
    case: &str,
    report: &ReleaseReport,
    verdicts: &Value,
    entry: impl Fn(&Value) -> &Value,
    out: &mut Vec<String>,
) {
    for verdict in report.verdicts() {
        let name = verdict.release().name();
        let expected = entry(&verdicts[name]);
        let ok = expected["ok"].as_bool().expect("ok is a bool");
        if verdict.accepted() != ok {
            out.push(format!(
                "{case} {name}: accepted {} but TF said ok={ok} ({})",
                verdict.accepted(),
                expected["error"]
            ));
            continue;
        }
        if let Some(first) = verdict.errors().first() {
            let message = expected["error"].as_str().unwrap_or_default();
            if first.message() != message {
                out.push(format!(
                    "{case} {name}: message differs\n  ours: {:?}\n  TF:   {:?}",
                    first.message(),
                    message
                ));
            }
            let class = expected["error_class"].as_str().unwrap_or_default();
            if first.python_class() != class {
                out.push(format!(
                    "{case} {name}: class {} but TF raised {class}",
                    first.python_class()
                ));
            }
        }
    }
}

#[test]
fn every_case_every_release_as_tensorflow_said() {
    let verdicts = data_json("release_cases/release_verdicts.json");
    let judge = ReleaseJudge::with_host("vm");
    let mut differences = Vec::new();
    let cases = cases();
    assert_eq!(cases.len(), 215);
    for case in &cases {
        let file = case["file"].as_str().unwrap();
        let path = match case["kind"].as_str().unwrap() {
            "saved_model" => format!("release_cases/cases/{file}/saved_model.pb"),
            _ => format!("release_cases/cases/{file}"),
        };
        let bytes = data_bytes(&path);
        let report = judge
            .judge(&bytes)
            .unwrap_or_else(|e| panic!("{path}: {e}"));
        let expected = &verdicts[file];
        compare(file, &report, expected, |v| v, &mut differences);
        let graph = graphdef_versions::decode_graphs(&bytes)
            .unwrap()
            .1
            .remove(0);
        if case["kind"] == "graph_def" {
            // Read in place and decoded whole, the verdicts are the same.
            assert_eq!(report, judge.judge_graph_def(&graph), "{file}");
        }
        // Releases judged alike share a judgement: each release judged on its own says the
        // same.
        for verdict in report.verdicts() {
            let alone = match report.loader() {
                graphdef_versions::Loader::ImportGraphDef => {
                    judge.import_graph_def(&graph, verdict.release())
                }
                _ => judge.load_saved_model(&graph, verdict.release()),
            };
            assert_eq!(verdict.errors().first(), alone.as_ref(), "{file}");
        }
        if case["kind"] == "saved_model" {
            let imported = judge.judge_graph_def(&graph);
            compare(
                &format!("{file} (import_graph_def)"),
                &imported,
                expected,
                |v| &v["import_graph_def"],
                &mut differences,
            );
        }
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

/// Cases built here around each kind of refusal the importer makes (`tests/data/release_extra/`,
/// made by its `make_cases.py` and judged by the ten real releases with `run_release.py`).
#[test]
fn extra_cases_every_release_as_tensorflow_said() {
    let verdicts = data_json("release_extra/verdicts.json");
    let judge = ReleaseJudge::with_host("vm");
    let mut differences = Vec::new();
    let cases = verdicts.as_object().expect("verdicts.json is an object");
    assert_eq!(cases.len(), 20);
    for (file, expected) in cases {
        let bytes = data_bytes(&format!("release_extra/cases/{file}"));
        let report = judge
            .judge(&bytes)
            .unwrap_or_else(|e| panic!("{file}: {e}"));
        compare(file, &report, expected, |v| v, &mut differences);
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}

mod hostile {
    use super::*;
    use proptest::prelude::*;

    fn seeds() -> Vec<Vec<u8>> {
        [
            "release_cases/cases/f_2.13.1_fn_nested_XlaLaunchV2.pb",
            "release_cases/cases/b_2.21.0_attr_TensorListGetItem_Tshape_nondefault_in_function.pb",
            "release_cases/cases/e_2.13.1_control_flow/saved_model.pb",
            "release_extra/cases/cycle.pb",
            "release_cases/cases/g_2.16.2_allowed__FusedConv3D_T_DT_HALF.pb",
            "release_extra/cases/if_branch_with_new_op.pb",
            "graphdef/medium.pb",
        ]
        .iter()
        .map(|path| data_bytes(path))
        .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Damaged graphs and SavedModels: every release gives a verdict or the bytes a typed
        /// error, never a panic.
        #[test]
        fn damaged_files_get_verdicts_or_typed_errors(
            seed in 0usize..7,
            edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..8),
        ) {
            let mut bytes = seeds()[seed].clone();
            for (at, value) in edits {
                let i = at.index(bytes.len());
                bytes[i] = value;
            }
            let judge = ReleaseJudge::with_host("vm");
            let report = judge.judge(&bytes);
            if let Ok(report) = &report {
                prop_assert_eq!(report.verdicts().len(), 10);
                // A file read before its kind is told is one whose kind is told.
                prop_assert!(graphdef_versions::Kind::detect(&bytes).is_ok());
            }
            // A GraphDef is read in place; that reading must agree with decoding it whole.
            if graphdef_versions::Kind::detect(&bytes) == Ok(graphdef_versions::Kind::GraphDef) {
                match graphdef_versions::decode_graphs(&bytes) {
                    Ok((_, graphs)) => {
                        prop_assert_eq!(report.ok(), Some(judge.judge_graph_def(&graphs[0])));
                    }
                    Err(_) => prop_assert!(report.is_err()),
                }
            }
            if let Ok((_, graphs)) = graphdef_versions::decode_graphs(&bytes) {
                for graph in &graphs {
                    let _ = judge.judge_saved_model_graph(graph);
                }
            }
        }
    }
}

/// SavedModels saved here by TensorFlow 2.21 (`tests/data/release_extra/saved_models/`, made by
/// `make_saved_models.py`): nested functions, and two problems in two functions, loaded with
/// `tf.saved_model.load` by the ten releases (`run_release_saved_models.py`).
#[test]
fn extra_saved_models_every_release_as_tensorflow_said() {
    let verdicts = data_json("release_extra/saved_model_verdicts.json");
    let judge = ReleaseJudge::with_host("vm");
    let mut differences = Vec::new();
    let cases = verdicts
        .as_object()
        .expect("saved_model_verdicts.json is an object");
    assert_eq!(cases.len(), 3);
    for (name, expected) in cases {
        let bytes = data_bytes(&format!("release_extra/saved_models/{name}/saved_model.pb"));
        let report = judge
            .judge(&bytes)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        compare(name, &report, expected, |v| v, &mut differences);
    }
    assert!(
        differences.is_empty(),
        "{} differences:\n{}",
        differences.len(),
        differences.join("\n")
    );
}
