//! Re-stamping the 241 real converter models: minimize gives exactly what TF's own C++
//! computes (`op_version_cc`), raise never lowers, a stamped model reads back identically
//! except the changed fields, unchanged bytes stay unchanged, and stamping is idempotent.

use crate::common::{data_bytes, data_json};
use tflite_opver::{Model, StampMode, stamp};

fn models() -> Vec<(String, Vec<u8>, serde_json::Value)> {
    let json = data_json("tflite_expected.json");
    let map = json.as_object().expect("object keyed by model file");
    assert_eq!(map.len(), 241);
    map.iter()
        .map(|(name, want)| {
            let bytes = data_bytes(&format!("tflite/{name}"));
            (name.clone(), bytes, want.clone())
        })
        .collect()
}

/// Everything a reader sees, except operator code versions and the stored min runtime.
fn reading(model: &Model<'_>) -> String {
    let mut out = String::new();
    for code in model.operator_codes() {
        out += &format!(
            "{:?} {} {:?}\n",
            code.builtin, code.builtin_code, code.custom_code
        );
    }
    for at in model.operators() {
        out += &format!("{at:?} {:?}\n", model.signature(at).unwrap());
    }
    out
}

#[test]
fn minimize_stamps_what_tensorflow_computes() {
    let mut changed_models = 0;
    let mut extended = 0;
    for (name, bytes, want) in models() {
        let stamped = stamp(&bytes, StampMode::Minimize).unwrap_or_else(|e| panic!("{name}: {e}"));
        let before = Model::from_bytes(&bytes).unwrap();
        let after = Model::from_bytes(&stamped.bytes).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (code, theirs) in after
            .operator_codes()
            .iter()
            .zip(want["operator_codes"].as_array().unwrap())
        {
            assert_eq!(
                i64::from(code.version.get()),
                theirs["op_version_cc"].as_i64().unwrap(),
                "{name}"
            );
        }
        assert_eq!(
            after.stored_min_runtime_version(),
            want["op_version_cc"]["min_runtime_version"].as_str(),
            "{name}"
        );
        assert_eq!(
            reading(&before),
            reading(&after),
            "{name}: reads differently"
        );
        if !stamped.changes.is_empty() {
            changed_models += 1;
        }
        // The original bytes follow any new tables unchanged, except version fields and the
        // metadata buffer patched in place.
        if stamped.extended {
            extended += 1;
            assert!(stamped.bytes.len() > bytes.len(), "{name}");
        } else {
            assert_eq!(stamped.bytes.len(), bytes.len(), "{name}");
        }
        let tail = &stamped.bytes[stamped.bytes.len() - bytes.len()..];
        let differing = bytes.iter().zip(tail).filter(|(a, b)| a != b).count();
        assert!(
            differing <= 4 * stamped.changes.len() + 16,
            "{name}: {differing} bytes changed"
        );
        // Idempotent.
        let again = stamp(&stamped.bytes, StampMode::Minimize).unwrap();
        assert_eq!(again.bytes, stamped.bytes, "{name}");
        assert!(again.changes.is_empty(), "{name}");
    }
    // The int16x8 models are stamped from an older table: minimize changes them.
    assert!(changed_models > 20, "{changed_models}");
    // Some int16x8 models omit a `version` field (default 1) that must now say more.
    assert!(extended > 0, "the extension path was exercised");
}

#[test]
fn raise_never_lowers_and_leaves_correct_models_byte_identical() {
    let mut identical = 0;
    for (name, bytes, want) in models() {
        let stamped = stamp(&bytes, StampMode::Raise).unwrap_or_else(|e| panic!("{name}: {e}"));
        let after = Model::from_bytes(&stamped.bytes).unwrap();
        for (code, theirs) in after
            .operator_codes()
            .iter()
            .zip(want["operator_codes"].as_array().unwrap())
        {
            let stored = theirs["version"].as_i64().unwrap();
            let needed = theirs["op_version_cc"].as_i64().unwrap();
            assert_eq!(i64::from(code.version.get()), stored.max(needed), "{name}");
        }
        for change in &stamped.changes {
            assert!(change.to > change.from, "{name}: {change:?}");
        }
        let mode = want["source"]["mode"].as_str().unwrap();
        if !mode.starts_with("int16x8") {
            // The converter already stamped these exactly as TF's versioning does.
            assert_eq!(stamped.bytes, bytes, "{name}");
            identical += 1;
        }
    }
    assert!(identical > 150, "{identical}");
}
