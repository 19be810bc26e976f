//! Warnings about a model's stamps and its tables: versions stored too low, a missing or
//! understated `min_runtime_version`, more tables than TFLite's verifier accepts.

use super::delegate::{check_delegate, int8_adds};
use super::json_keys::{CHECK_KEYS, INSPECT_KEYS, without_item_keys};
use super::*;

#[test]
fn inspect_warns_above_the_verifiers_table_limit() {
    let dir = scratch("max_tables");
    // 100,000 operators: 1,000,004 tables (with the model, its operator code, subgraph and
    // empty buffer 0), just above flatbuffers' default max_tables.
    let path = dir.join("adds.tflite");
    std::fs::write(&path, int8_adds(100_000)).unwrap();
    let out = run(&["inspect".as_ref(), path.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_prefixed(&out.stderr);
    let stderr = text(&out.stderr);
    assert!(
        stderr.contains(
            "adds.tflite: the model has 1000004 FlatBuffer tables, above the 1000000 TFLite's \
             verifier accepts"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("flatbuffers/verifier.h"), "{stderr}");
    assert!(
        stderr.contains("\"The model is not a valid Flatbuffer buffer\""),
        "{stderr}"
    );

    let out = run(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0));
    let json = json_alone(&out);
    assert_eq!(sorted_keys(&json), INSPECT_KEYS);
    assert_eq!(json["verifier_tables"], 1_000_004);
    let warnings = json["loader_warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(warnings[0]["limit"], "max_tables");
    assert_eq!(warnings[0]["value"], 1_000_004);
    assert_eq!(warnings[0]["max"], 1_000_000);
    std::fs::remove_dir_all(&dir).ok();
}

/// A float16 DEQUANTIZE (needs v3) stored at v2 and a half-pixel RESIZE_BILINEAR (needs v3)
/// stored at v1, as models in public wheels ship; with `metadata`, its entries.
fn stamped_too_low(metadata: Option<(&str, &[u8])>) -> Vec<u8> {
    let x = TensorSpec::new(ElementType::Float32, &[1, 4, 4, 2]);
    let dequantize = OpSignature::new(
        BuiltinOperator::DEQUANTIZE,
        vec![TensorSpec::new(ElementType::Float16, &[1, 4, 4, 2]).constant()],
        vec![x.clone()],
        Params::None,
    );
    let resize = OpSignature::new(
        BuiltinOperator::RESIZE_BILINEAR,
        vec![x, TensorSpec::new(ElementType::Int32, &[2]).constant()],
        vec![TensorSpec::new(ElementType::Float32, &[1, 8, 8, 2])],
        Params::ResizeBilinear(tflite_opver::params::ResizeBilinearParams {
            align_corners: false,
            half_pixel_centers: true,
        }),
    );
    let mut builder = ModelBuilder::new();
    builder
        .signature(&dequantize, OpVersion::new(2))
        .signature(&resize, OpVersion::ONE);
    if let Some((name, data)) = metadata {
        builder.metadata(name, data);
    }
    builder.finish()
}

#[test]
fn stamp_warnings_everywhere() {
    let dir = scratch("stamp_warnings");
    for (file, metadata, runtime_kind) in [
        ("no_metadata.tflite", None, "no_metadata"),
        (
            "no_entry.tflite",
            Some(("CONVERSION_METADATA", &b"\x0c\x00\x00\x00"[..])),
            "no_min_runtime_version",
        ),
    ] {
        let path = dir.join(file);
        std::fs::write(&path, stamped_too_low(metadata)).unwrap();

        // inspect: the table flags both codes, and stderr has one warning per finding.
        let out = run(&["inspect".as_ref(), path.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let stdout = text(&out.stdout);
        assert_eq!(stdout.matches("<- stamped too low").count(), 2, "{stdout}");
        assert!(
            stdout.contains("stored (none), required \"2.2.0\""),
            "{stdout}"
        );
        assert_prefixed(&out.stderr);
        let stderr = text(&out.stderr);
        assert_eq!(stderr.lines().count(), 3, "{stderr}");
        assert!(
            stderr.contains(&format!(
                "tflite-opver: warning: {}: operator code 0 (DEQUANTIZE) is stored as version 2, \
                 but its operators need version 3 (float16 input)",
                path.display()
            )),
            "{stderr}"
        );
        assert!(
            stderr.contains("operator code 1 (RESIZE_BILINEAR) is stored as version 1"),
            "{stderr}"
        );
        assert!(stderr.contains("runtime_version.cc"), "{stderr}");

        // inspect --json: the same, as `warnings`.
        let out = run(&["inspect".as_ref(), path.as_os_str(), "--json".as_ref()]);
        let json = json_alone(&out);
        assert_eq!(
            sorted_keys(&json),
            without_item_keys(INSPECT_KEYS, "loader_warnings[")
        );
        let warnings = json["warnings"].as_array().unwrap();
        let kinds: Vec<_> = warnings.iter().map(|w| w["kind"].clone()).collect();
        assert_eq!(
            kinds,
            ["version_too_low", "version_too_low", runtime_kind],
            "{file}"
        );
        assert_eq!(warnings[1]["operator_code"], 1);
        assert_eq!(warnings[2]["operator_code"], Value::Null);
        assert_eq!(json["min_runtime_version"]["stored"], Value::Null);

        // check: the stored versions resolve on 2.2.0, and the warnings say what is wrong.
        let out = check(&path, "2.2.0", false);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        assert_prefixed(&out.stderr);
        assert_eq!(text(&out.stderr).lines().count(), 3);
        let out = check(&path, "2.2.0", true);
        let json = json_of(&out);
        assert_eq!(
            sorted_keys(&json),
            without_item_keys(CHECK_KEYS, "unresolved[")
        );
        assert_eq!(json["warnings"].as_array().unwrap().len(), 3);
        let out = check_delegate(&path, "gpu", true);
        assert_eq!(json_of(&out)["warnings"].as_array().unwrap().len(), 3);

        // stamp: says what it found beside each change, and leaves nothing to warn about.
        let stamped = dir.join(format!("stamped_{file}"));
        let out = run(&[
            "stamp".as_ref(),
            path.as_os_str(),
            "-o".as_ref(),
            stamped.as_os_str(),
        ]);
        assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
        let report = text(&out.stdout);
        assert!(
            report.contains(
                "DEQUANTIZE: v2 -> v3 (stored lower than its operators need: v3: float16 input)"
            ),
            "{report}"
        );
        assert!(
            report.contains("RESIZE_BILINEAR: v1 -> v3 (stored lower than its operators need"),
            "{report}"
        );
        assert!(
            report.contains("min_runtime_version: (none) -> \"2.2.0\" (added: the model"),
            "{report}"
        );
        let out = run(&["inspect".as_ref(), stamped.as_os_str(), "--json".as_ref()]);
        let json = json_of(&out);
        assert_eq!(json["warnings"], serde_json::json!([]), "{file}");
        assert_eq!(json["min_runtime_version"]["stored"], "2.2.0");
        let out = run(&["inspect".as_ref(), stamped.as_os_str()]);
        assert!(out.stderr.is_empty(), "{}", text(&out.stderr));
    }
    std::fs::remove_dir_all(&dir).ok();
}
