//! Real third-party models, as a public package ships them (`tests/data/runtimes/wild/`: the
//! fourteen models of the `mediapipe` 0.10.14 wheel, fetched by `interop/runtimes/wild.py`),
//! against TFLite's own C++ (`wild_expected.json`, made by `interop/runtimes/wild_expected.py`
//! with `tflite::UpdateOpVersion` and `tflite::UpdateMinimumRuntimeVersionForModel` of the
//! `tensorflow-cpu` 2.21.0 wheel): every operator code's version, the minimum runtime, and what
//! TF's own stamping does to the model as shipped. Their runtime verdicts are in `runtimes.rs`.

use crate::common::{data, data_bytes, data_json, stored_versions};
use serde_json::Value;
use tflite_opver::{Model, OpVersion, StampMode, StampWarning, stamp, stamped_versions};

fn ints(value: &Value) -> Vec<i32> {
    value
        .as_array()
        .expect("an array of versions")
        .iter()
        .map(|v| i32::try_from(v.as_i64().expect("a version")).expect("a small version"))
        .collect()
}

/// Every `.tflite` under `tests/data/runtimes/wild/`, as `wild/<package>/<file>`.
fn wild_files() -> Vec<String> {
    let mut files = Vec::new();
    for package in std::fs::read_dir(data("runtimes/wild")).expect("the wild folder") {
        let package = package.expect("a folder entry").path();
        if !package.is_dir() {
            continue;
        }
        for file in std::fs::read_dir(&package).expect("a package folder") {
            let file = file.expect("a file entry").path();
            if file.extension().is_some_and(|e| e == "tflite") {
                let package = package.file_name().unwrap().to_string_lossy().into_owned();
                let name = file.file_name().unwrap().to_string_lossy().into_owned();
                files.push(format!("wild/{package}/{name}"));
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_wild_model_has_tflites_versions_and_minimum_runtime() {
    let expected = data_json("runtimes/wild_expected.json");
    let expected = expected.as_object().expect("models");
    let keys: Vec<String> = expected.keys().cloned().collect();
    assert_eq!(
        keys,
        wild_files(),
        "wild_expected.json judges every wild model"
    );
    let (mut builtin_codes, mut custom_codes, mut min_runtimes) = (0, 0, 0);
    let mut not_raised_by_tf = 0;
    let mut wrong = Vec::new();
    for (key, tf) in expected {
        let bytes = data_bytes(&format!("runtimes/{key}"));
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        let stored = stored_versions(&model);
        assert_eq!(stored, ints(&tf["stored"]), "{key}: stored versions");

        // What the operators need: TF's UpdateOpVersion on a copy with every version at 1 (and
        // every field written). TF versions no custom op (UpdateOpVersion skips CUSTOM codes);
        // the crate keeps a custom code's stored version, as UpdateOpVersion does.
        let required: Vec<i32> = model.required_versions().iter().map(|v| v.get()).collect();
        let cc = ints(&tf["op_version_cc"]);
        let raised = ints(&tf["update_op_version_present"]);
        for (i, code) in model.operator_codes().iter().enumerate() {
            if code.is_custom() {
                custom_codes += 1;
                if required[i] != stored[i] || raised[i] != stored[i] {
                    wrong.push(format!("{key}: custom code {i} not kept"));
                }
            } else {
                builtin_codes += 1;
                if required[i] != cc[i] {
                    wrong.push(format!(
                        "{key}: code {i} ({}): required v{}, TF's C++ v{}",
                        code.kind(),
                        required[i],
                        cc[i]
                    ));
                }
            }
        }

        // Re-stamping as TF's UpdateOpVersion does (raise only), then the minimum runtime.
        let ours: Vec<i32> = stamped_versions(&model, StampMode::Raise)
            .iter()
            .map(|v| v.get())
            .collect();
        if ours != raised {
            wrong.push(format!(
                "{key}: raised {ours:?}, TF's UpdateOpVersion {raised:?}"
            ));
        }
        let stamped = stamp(&bytes, StampMode::Raise).unwrap_or_else(|e| panic!("{key}: {e}"));
        let restamped = Model::from_bytes(&stamped.bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        assert_eq!(stored_versions(&restamped), ours, "{key}: stamped bytes");
        let tf_min = &tf["min_runtime_version"];
        let required_min = model
            .required_min_runtime_version()
            .map(|v| v.to_string())
            .unwrap_or_default();
        if required_min != tf_min["required"].as_str().expect("a version") {
            wrong.push(format!(
                "{key}: required minimum runtime {required_min:?}, TF {}",
                tf_min["required"]
            ));
        }
        let raised_min = tf_min["raised"].as_str().expect("a version");
        if stamped.min_runtime_after != raised_min
            || restamped.stored_min_runtime_version() != Some(raised_min)
        {
            wrong.push(format!(
                "{key}: stamped minimum runtime {:?}, TF {raised_min:?}",
                stamped.min_runtime_after
            ));
        }
        min_runtimes += 2;

        // TF's UpdateOpVersion on the bytes as shipped raises only versions stored in place
        // (op_version.cc: `mutate_version` fails on an absent field, the default 1, and TF
        // logs "Can't set operator ... to version ..."); the crate adds the field. So the two
        // differ exactly at the codes without the field that need more than 1, and the
        // minimum runtime TF writes then follows the version it could not raise.
        let as_shipped = ints(&tf["update_op_version"]);
        let absent = ints(&tf["version_absent"]);
        let unraisable: Vec<usize> = (0..stored.len())
            .filter(|&i| as_shipped[i] != ours[i])
            .collect();
        for &i in &unraisable {
            assert!(
                absent.contains(&i32::try_from(i).unwrap()),
                "{key}: code {i}"
            );
            assert_eq!((as_shipped[i], stored[i]), (1, 1), "{key}: code {i}");
            assert!(ours[i] > 1, "{key}: code {i}");
        }
        if unraisable.is_empty() {
            assert_eq!(tf_min["as_shipped"], tf_min["raised"], "{key}");
        } else {
            let at_tfs: Vec<_> = as_shipped.iter().map(|&v| OpVersion::new(v)).collect();
            assert_eq!(
                model
                    .min_runtime_version_with(&at_tfs)
                    .map(|v| v.to_string())
                    .as_deref(),
                tf_min["as_shipped"].as_str(),
                "{key}"
            );
            not_raised_by_tf += unraisable.len();
        }

        // What TF's UpdateMinimumRuntimeVersionForModel does to the model as shipped, and the
        // crate's warning for it.
        let warnings = model.stamp_warnings();
        let has = |f: fn(&StampWarning) -> bool| warnings.iter().any(f);
        match (tf["metadata"].as_str(), tf["umr_as_shipped"].as_str()) {
            (Some("none"), Some("crashes")) => {
                assert!(
                    has(|w| matches!(w, StampWarning::NoMetadata { .. })),
                    "{key}"
                )
            }
            (Some("no_entry"), Some("no_entry")) => assert!(
                has(|w| matches!(w, StampWarning::NoMinRuntimeVersion { .. })),
                "{key}"
            ),
            (Some("entry"), Some(written)) => {
                assert_eq!(Some(written), tf_min["as_shipped"].as_str(), "{key}");
                let stored = tf["stored_min_runtime_version"].as_str().expect("stored");
                assert_eq!(model.stored_min_runtime_version(), Some(stored), "{key}");
                assert_eq!(
                    has(|w| matches!(w, StampWarning::MinRuntimeVersionTooLow { .. })),
                    stored != written,
                    "{key}: {warnings:?}"
                );
            }
            other => panic!("{key}: TF's C++ did {other:?}"),
        }
        let too_low = raised.iter().zip(&stored).filter(|(r, s)| r > s).count();
        let warned = warnings
            .iter()
            .filter(|w| matches!(w, StampWarning::VersionTooLow { .. }))
            .count();
        assert_eq!(warned, too_low, "{key}: {warnings:?}");
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements with TFLite's C++:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // The comparison covered every model and code: 14 models, 123 builtin and 5 custom codes,
    // two minimum runtimes each; TF could not raise the RESIZE_BILINEAR (half-pixel, v3) of
    // the two selfie segmentation models, stored without a version field.
    assert!(expected.len() >= 14, "{} wild models", expected.len());
    assert!(
        builtin_codes >= 123,
        "{builtin_codes} builtin codes compared"
    );
    assert!(custom_codes >= 5, "{custom_codes} custom codes compared");
    assert_eq!(min_runtimes, 2 * expected.len());
    assert!(not_raised_by_tf >= 2, "{not_raised_by_tf}");
}
