//! Agreement with real TensorFlow 2.21: `FindMinimumRuntimeVersionForOp` for every probed
//! `(op, version)` and `CompareRuntimeVersion` for every pair of 20 strings
//! (`tests/data/runtime_version_table.json`). Missing oracle data fails the test.

use std::collections::BTreeMap;

use crate::common::data_json;
use serde_json::Value;
use tflite_opver::{
    BuiltinOperator, OpVersion, Resolver, RuntimeVersion, compare_runtime_version,
    min_runtime_version_for_model, min_runtime_version_for_op, runtime_table,
};

fn oracle() -> Value {
    data_json("runtime_version_table.json")
}

/// `(builtin code, version) -> minimum runtime` as TF 2.21 answered, plus the op names.
fn oracle_table(oracle: &Value) -> (BTreeMap<(i32, i32), String>, BTreeMap<i32, String>) {
    let mut table = BTreeMap::new();
    let mut names = BTreeMap::new();
    for (name, op) in oracle["ops"].as_object().expect("ops object") {
        let code = i32::try_from(op["builtin_code"].as_i64().unwrap()).unwrap();
        names.insert(code, name.clone());
        for (version, runtime) in op["versions"].as_object().unwrap() {
            let version: i32 = version.parse().unwrap();
            table.insert((code, version), runtime.as_str().unwrap().to_owned());
        }
    }
    (table, names)
}

#[test]
fn every_entry_and_every_absent_probe_agrees() {
    let oracle = oracle();
    assert_eq!(oracle["_meta"]["schema_max_builtin_code"], 209);
    let (table, names) = oracle_table(&oracle);
    assert_eq!(names.len(), 210);
    assert_eq!(table.len(), 412);

    // The oracle probed builtin codes -1..=214 and versions 0..=40; absent means "".
    let mut present = 0;
    let mut absent = 0;
    for code in -1..=214 {
        for version in 0..=40 {
            let ours =
                min_runtime_version_for_op(BuiltinOperator::new(code), OpVersion::new(version))
                    .map(|r| r.to_string());
            let theirs = table.get(&(code, version)).cloned();
            assert_eq!(ours, theirs, "code {code} version {version}");
            if theirs.is_some() {
                present += 1;
            } else {
                absent += 1;
            }
        }
    }
    assert_eq!(present, 412);
    assert_eq!(absent, 216 * 41 - 412);

    // Our table has exactly the oracle's rows, no more.
    assert_eq!(runtime_table().len(), 412);
    for entry in runtime_table() {
        assert_eq!(
            table.get(&(entry.op.code(), entry.version.get())),
            Some(&entry.min_runtime.to_string())
        );
    }
}

#[test]
fn operator_names_agree_with_the_schema() {
    let (_, names) = oracle_table(&oracle());
    for (code, name) in names {
        let op = BuiltinOperator::new(code);
        assert_eq!(op.name(), Some(name.as_str()));
        assert_eq!(BuiltinOperator::from_name(&name), Some(op));
    }
}

#[test]
fn compare_runtime_version_agrees_on_all_400_pairs() {
    let oracle = oracle();
    let strings: Vec<&str> = oracle["compare_strings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s.as_str().unwrap())
        .collect();
    assert_eq!(strings.len(), 20);
    let cases = oracle["compare_runtime_version"].as_array().unwrap();
    assert_eq!(cases.len(), 400);
    for case in cases {
        let a = case["a"].as_str().unwrap();
        let b = case["b"].as_str().unwrap();
        let expected = case["a_less_than_b"].as_bool().unwrap();
        assert_eq!(compare_runtime_version(a, b), expected, "{a:?} < {b:?}");

        // Where both are well-formed versions, our ordered type says the same thing.
        if let (Ok(x), Ok(y)) = (a.parse::<RuntimeVersion>(), b.parse::<RuntimeVersion>()) {
            assert_eq!(x < y, expected, "RuntimeVersion {a:?} < {b:?}");
        }
    }
}

#[test]
fn model_minimum_follows_tf_fold() {
    // UpdateMinimumRuntimeVersionForModel: start at "", bump whenever CompareRuntimeVersion says
    // the current value is older; here over every table row of each op, and over all rows.
    let oracle = oracle();
    let (table, _) = oracle_table(&oracle);
    let fold = |pairs: &[(i32, i32)]| -> String {
        let mut current = String::new();
        for pair in pairs {
            if let Some(found) = table.get(pair)
                && compare_runtime_version(&current, found)
            {
                current = found.clone();
            }
        }
        current
    };
    let mut by_op: BTreeMap<i32, Vec<(i32, i32)>> = BTreeMap::new();
    for &(code, version) in table.keys() {
        by_op.entry(code).or_default().push((code, version));
    }
    let as_ours = |pairs: &[(i32, i32)]| {
        min_runtime_version_for_model(
            pairs
                .iter()
                .map(|&(c, v)| (BuiltinOperator::new(c), OpVersion::new(v))),
        )
        .map(|r| r.to_string())
        .unwrap_or_default()
    };
    for pairs in by_op.values() {
        // Also with an absent pair mixed in, which both skip.
        let mut with_absent = pairs.clone();
        with_absent.push((32, 1));
        assert_eq!(as_ours(pairs), fold(pairs));
        assert_eq!(as_ours(&with_absent), fold(&with_absent));
    }
    let all: Vec<(i32, i32)> = table.keys().copied().collect();
    assert_eq!(as_ours(&all), fold(&all));
    assert_eq!(as_ours(&all), "2.21.0");
    assert_eq!(as_ours(&[(32, 1), (-1, 1)]), "");
}

#[test]
fn presets_agree_with_the_oracle_table() {
    let (table, _) = oracle_table(&oracle());
    for release in [
        "1.5.0", "1.13.1", "1.14.0", "2.3.0", "2.8.0", "2.14.3", "2.14.4", "2.20.0",
    ] {
        let resolver = Resolver::for_runtime(&release.parse().unwrap());
        for (&(code, version), min) in &table {
            // "runs on `release`" means min <= release in TF's order: not release < min.
            let expected = !compare_runtime_version(release, min);
            let found = resolver
                .find_builtin(BuiltinOperator::new(code), OpVersion::new(version))
                .is_some();
            assert_eq!(
                found, expected,
                "{release}: code {code} v{version} (min {min})"
            );
        }
    }
}
