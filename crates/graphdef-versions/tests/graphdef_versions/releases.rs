//! The ten TensorFlow releases compiled into the crate, against the facts dumped independently
//! from the same wheels (`tests/data/tf_releases/`: each release's constants, and what changed
//! between consecutive releases).

use std::collections::BTreeSet;

use graphdef_versions::schema::OpDef;
use graphdef_versions::{CHECKPOINT, GRAPH_DEF, ReleaseNumber, Scheme, TF_VERSION, TfRelease};
use serde_json::Value;

use crate::common::{data_bytes, data_json};

/// `diffs.json` as Python's `json` wrote it: float defaults of `-inf` appear as the bare token
/// `-Infinity` (and could as `Infinity` or `NaN`), which is not JSON; they become strings.
fn python_json(name: &str) -> Value {
    let text = String::from_utf8(data_bytes(name)).unwrap();
    let text = text
        .replace(": -Infinity", ": \"-Infinity\"")
        .replace(": Infinity", ": \"Infinity\"")
        .replace(": NaN", ": \"NaN\"");
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("tests/data/{name}: {e}"))
}

const NAMES: [&str; 10] = [
    "2.12.1", "2.13.1", "2.14.1", "2.15.1", "2.16.2", "2.17.1", "2.18.1", "2.19.1", "2.20.0",
    "2.21.0",
];

#[test]
fn the_ten_releases_oldest_first() {
    let names: Vec<&str> = TfRelease::all().map(|r| r.name()).collect();
    assert_eq!(names, NAMES);
    assert!(TfRelease::get("2.11.0").is_none());
}

#[test]
fn every_release_has_a_number() {
    let numbers: Vec<ReleaseNumber> = TfRelease::all().map(|r| r.number()).collect();
    let parsed: Vec<ReleaseNumber> = NAMES.iter().map(|n| n.parse().unwrap()).collect();
    assert_eq!(numbers, parsed);
    assert!(numbers.windows(2).all(|w| w[0] < w[1]), "oldest first");
}

#[test]
fn constants_and_op_counts_agree_with_each_wheel() {
    for release in TfRelease::all() {
        let facts = data_json(&format!("tf_releases/{}/constants.json", release.name()));
        let macros = &facts["version_h_macros"];
        let number = |key: &str| macros[key].as_i64().unwrap() as i32;
        let graph_def = release.graph_def();
        assert_eq!(
            (
                graph_def.current.get(),
                graph_def.min_producer.get(),
                graph_def.min_consumer.get()
            ),
            (
                number("TF_GRAPH_DEF_VERSION"),
                number("TF_GRAPH_DEF_VERSION_MIN_PRODUCER"),
                number("TF_GRAPH_DEF_VERSION_MIN_CONSUMER")
            ),
            "{}",
            release.name()
        );
        let checkpoint = release.checkpoint();
        assert_eq!(
            (
                checkpoint.current.get(),
                checkpoint.min_producer.get(),
                checkpoint.min_consumer.get()
            ),
            (
                number("TF_CHECKPOINT_VERSION"),
                number("TF_CHECKPOINT_VERSION_MIN_PRODUCER"),
                number("TF_CHECKPOINT_VERSION_MIN_CONSUMER")
            ),
            "{}",
            release.name()
        );
        assert_eq!(
            release.git_version(),
            facts["git_version"],
            "{}",
            release.name()
        );
        assert_eq!(
            release.op_count() as u64,
            facts["op_count"].as_u64().unwrap(),
            "{}",
            release.name()
        );
        let deprecated = release.ops().filter(|op| op.deprecation.is_some()).count();
        assert_eq!(
            deprecated as u64,
            facts["deprecated_op_count"].as_u64().unwrap(),
            "{}",
            release.name()
        );
        // Every op decoded, and each is found by its name.
        for op in release.ops() {
            assert!(!op.name.is_empty());
            assert!(std::ptr::eq(release.op(&op.name).unwrap(), op));
        }
    }
}

#[test]
fn the_newest_release_is_the_crates_own_constants() {
    let newest = TfRelease::all().next_back().unwrap();
    assert_eq!(newest.name(), TF_VERSION);
    assert_eq!(newest.graph_def(), GRAPH_DEF);
    assert_eq!(newest.checkpoint(), CHECKPOINT);
    assert_eq!(
        newest.consumer(Scheme::GraphDef).version(),
        GRAPH_DEF.current
    );
    assert_eq!(newest.consumer(Scheme::Checkpoint).tf_version(), "2.21.0");
}

fn names(release: &TfRelease) -> BTreeSet<String> {
    release.ops().map(|op| op.name.clone()).collect()
}

fn attr_names(op: &OpDef) -> BTreeSet<&str> {
    op.attr.iter().map(|a| a.name.as_str()).collect()
}

fn strings(value: &Value) -> BTreeSet<String> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            v.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| v["op"].as_str().unwrap().to_owned())
        })
        .collect()
}

fn op_attr_pairs(value: &Value) -> BTreeSet<(String, String)> {
    value
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["op"].as_str().unwrap().to_owned(),
                v["attr"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

#[test]
fn what_changed_between_releases_agrees_with_the_independent_diff() {
    let diffs = python_json("tf_releases/diffs.json");
    let diffs = diffs["diffs"].as_array().unwrap();
    assert_eq!(diffs.len(), 9);
    let releases: Vec<TfRelease> = TfRelease::all().collect();
    for (pair, diff) in releases.windows(2).zip(diffs) {
        let (old, new) = (&pair[0], &pair[1]);
        assert_eq!(
            (old.name(), new.name()),
            (diff["from"].as_str().unwrap(), diff["to"].as_str().unwrap())
        );
        let (before, after) = (names(old), names(new));
        let added: BTreeSet<String> = after.difference(&before).cloned().collect();
        let removed: BTreeSet<String> = before.difference(&after).cloned().collect();
        assert_eq!(
            added,
            strings(&diff["ops_added"]),
            "ops added in {}",
            new.name()
        );
        assert_eq!(
            removed,
            strings(&diff["ops_removed"]),
            "ops removed in {}",
            new.name()
        );

        let mut attrs_added = BTreeSet::new();
        let mut attrs_removed = BTreeSet::new();
        let mut allowed_changed = BTreeSet::new();
        let mut minimum_changed = BTreeSet::new();
        let mut default_changed = BTreeSet::new();
        let mut args_changed = BTreeSet::new();
        for name in before.intersection(&after) {
            let (a, b) = (old.op(name).unwrap(), new.op(name).unwrap());
            for attr in attr_names(b).difference(&attr_names(a)) {
                attrs_added.insert((name.clone(), attr.to_string()));
            }
            for attr in attr_names(a).difference(&attr_names(b)) {
                attrs_removed.insert((name.clone(), attr.to_string()));
            }
            for x in &a.attr {
                let Some(y) = b.attr.iter().find(|y| y.name == x.name) else {
                    continue;
                };
                if x.allowed_values != y.allowed_values {
                    allowed_changed.insert((name.clone(), x.name.clone()));
                }
                if (x.has_minimum, x.minimum) != (y.has_minimum, y.minimum) {
                    minimum_changed.insert((name.clone(), x.name.clone()));
                }
                if x.default_value != y.default_value {
                    default_changed.insert((name.clone(), x.name.clone()));
                }
            }
            let strip = |args: &[graphdef_versions::schema::op_def::ArgDef]| {
                args.iter()
                    .map(|arg| {
                        (
                            arg.name.clone(),
                            arg.r#type,
                            arg.type_attr.clone(),
                            arg.number_attr.clone(),
                            arg.type_list_attr.clone(),
                            arg.is_ref,
                        )
                    })
                    .collect::<Vec<_>>()
            };
            if strip(&a.input_arg) != strip(&b.input_arg)
                || strip(&a.output_arg) != strip(&b.output_arg)
            {
                args_changed.insert(name.clone());
            }
        }
        let at = new.name();
        assert_eq!(
            attrs_added,
            op_attr_pairs(&diff["attrs_added"]),
            "attrs added in {at}"
        );
        assert_eq!(
            attrs_removed,
            op_attr_pairs(&diff["attrs_removed"]),
            "attrs removed in {at}"
        );
        assert_eq!(
            allowed_changed,
            op_attr_pairs(&diff["attr_allowed_values_changed"]),
            "allowed values changed in {at}"
        );
        assert_eq!(
            minimum_changed,
            op_attr_pairs(&diff["attr_minimum_changed"]),
            "minimums changed in {at}"
        );
        assert_eq!(
            default_changed,
            op_attr_pairs(&diff["attr_default_changed"]),
            "defaults changed in {at}"
        );
        assert_eq!(
            args_changed,
            strings(&diff["args_changed"]),
            "args changed in {at}"
        );
    }
}
