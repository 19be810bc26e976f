//! Which releases load each of the oracle's 215 cases, against what the ten real releases said
//! (`tests/data/release_cases/`: hand-built GraphDefs around what changed in each release, and
//! SavedModels saved by each release; `release_verdicts.json` holds each release's `str(e)`).
//!
//! Every case, every release: the verdict, the Python exception's class and the message to
//! the byte (the oracle's machine was called `vm`). A SavedModel is also checked as
//! `import_graph_def` imports its meta graph, which the oracle recorded too.

mod common;

use graphdef_versions::{ReleaseJudge, ReleaseReport};
use serde_json::Value;

use common::{data_bytes, data_json};

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
        if case["kind"] == "saved_model" {
            let graph = graphdef_versions::decode_graphs(&bytes)
                .unwrap()
                .1
                .remove(0);
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
    assert_eq!(cases.len(), 15);
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
