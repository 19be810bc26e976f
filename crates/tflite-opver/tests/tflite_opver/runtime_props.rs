//! Properties of runtime versions: the ordered type agrees with TF's string comparison, parsing
//! and printing round-trip, the model minimum is TF's fold, and the metadata buffer round-trips.

use proptest::prelude::*;
use tflite_opver::{
    BuiltinOperator, OpVersion, RuntimeVersion, compare_runtime_version, metadata_text,
    min_runtime_version_for_model, min_runtime_version_for_op, runtime_table,
};

fn version_text() -> impl Strategy<Value = String> {
    prop::collection::vec(0u32..30, 1..=5).prop_map(|parts| {
        parts
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(".")
    })
}

proptest! {
    #[test]
    fn ordering_matches_tf_on_well_formed_versions(a in version_text(), b in version_text()) {
        let x: RuntimeVersion = a.parse().unwrap();
        let y: RuntimeVersion = b.parse().unwrap();
        prop_assert_eq!(x < y, compare_runtime_version(&a, &b));
        prop_assert_eq!(y < x, compare_runtime_version(&b, &a));
        prop_assert_eq!(x == y, a == b);
    }

    #[test]
    fn parse_and_display_round_trip(a in version_text()) {
        let x: RuntimeVersion = a.parse().unwrap();
        prop_assert_eq!(x.to_string(), a.clone());
        prop_assert_eq!(x.components().len(), a.split('.').count());
    }

    #[test]
    fn parse_never_panics(text in "\\PC{0,24}") {
        let _ = RuntimeVersion::parse(&text);
        let _ = compare_runtime_version(&text, "2.3.0");
        let _ = compare_runtime_version("2.3.0", &text);
    }

    #[test]
    fn metadata_round_trips(a in version_text()) {
        let x: RuntimeVersion = a.parse().unwrap();
        match x.to_metadata_bytes() {
            Ok(bytes) => {
                prop_assert!(a.len() < 16);
                prop_assert_eq!(metadata_text(&bytes), Some(a.as_str()));
                prop_assert!(bytes[a.len()..].iter().all(|&b| b == 0));
            }
            Err(_) => prop_assert!(a.len() >= 16),
        }
    }

    #[test]
    fn model_minimum_is_tf_fold(
        picks in prop::collection::vec((0usize..412, any::<bool>()), 0..40)
    ) {
        let rows: Vec<_> = runtime_table().collect();
        // Half the picks use a version with no row, which both sides skip.
        let pairs: Vec<(BuiltinOperator, OpVersion)> = picks
            .iter()
            .map(|&(i, real)| {
                let row = rows[i];
                let version = if real { row.version } else { OpVersion::new(row.version.get() + 100) };
                (row.op, version)
            })
            .collect();
        let mut tf = String::new();
        for &(op, version) in &pairs {
            if let Some(found) = min_runtime_version_for_op(op, version) {
                let found = found.to_string();
                if compare_runtime_version(&tf, &found) {
                    tf = found;
                }
            }
        }
        let ours = min_runtime_version_for_model(pairs.iter().copied())
            .map(|r| r.to_string())
            .unwrap_or_default();
        prop_assert_eq!(ours, tf);
    }
}

#[test]
fn prefixes_sort_first() {
    let v = |s: &str| s.parse::<RuntimeVersion>().unwrap();
    assert!(v("1.14") < v("1.14.1"));
    assert!(v("2.3") < v("2.3.0"));
    assert_ne!(v("2.3"), v("2.3.0"));
    assert!(v("1.9.0") < v("1.10.0"));
    assert!(v("1.10.1") > v("1.10.0"));
    assert_eq!(v("2.3.0"), RuntimeVersion::new(2, 3, 0));
}

#[test]
fn every_table_row_fits_the_metadata_buffer() {
    for row in runtime_table() {
        let bytes = row.min_runtime.to_metadata_bytes().unwrap();
        assert_eq!(
            metadata_text(&bytes).map(str::to_owned),
            Some(row.min_runtime.to_string())
        );
    }
}
