//! What `allocate_tensors()` does (issue 33): every allocation verdict of the crate against
//! what the thirty real runtimes did (`tests/data/runtimes/allocations.json`, made by
//! `interop/runtimes/allocations.py`): models converted by each TensorFlow release, Flex and
//! custom-op models converted by TensorFlow 2.21.0 and 2.16.2 (`runtimes/flex/`), the
//! hand-made specimens, and the real third-party models as shipped and re-stamped.

use std::collections::BTreeMap;

use crate::common::{VerdictTable, data_bytes, verdict_table};
use tflite_opver::{Allocation, AllocationRefusal, Model, NotJudged, Runtime, StampMode, stamp};

/// `allocations.json` ([`VerdictTable`]): per model one entry per runtime: -1 allocated, -2
/// crashed, -3 not constructed, else a text.
type Table = VerdictTable;

fn table() -> Table {
    table_of("runtimes/allocations.json")
}

fn table_of(name: &str) -> Table {
    verdict_table(name)
}

fn model_bytes(key: &str) -> Vec<u8> {
    match key.strip_suffix("@raise") {
        Some(model) => {
            stamp(&data_bytes(&format!("runtimes/{model}")), StampMode::Raise)
                .unwrap_or_else(|e| panic!("{key}: {e}"))
                .bytes
        }
        None => data_bytes(&format!("runtimes/{key}")),
    }
}

/// Every verdict of `true` or `false` agrees with the real runtime, text included; `null` is
/// counted. The tool never says `true` where a real runtime failed to allocate.
#[test]
fn every_judged_allocation_agrees_with_the_real_runtimes() {
    let table = table();
    let ours: Vec<String> = Runtime::all().map(|r| r.to_string()).collect();
    assert_eq!(table.runtimes, ours);
    let mut wrong = Vec::new();
    // (ours, real) counts: ours true/false/null, real allocated/refused/not constructed/crash.
    let mut counts: BTreeMap<(&str, &str), usize> = BTreeMap::new();
    for (key, row) in &table.models {
        let bytes = model_bytes(key);
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        let verdicts = model.runtime_verdicts();
        for (name, &entry) in table.runtimes.iter().zip(row) {
            let runtime: Runtime = name.parse().expect("a known runtime");
            let verdict = verdicts.verdict(runtime);
            let real = match entry {
                -1 => "allocated",
                -2 => "crashed",
                -3 => "not constructed",
                _ => "refused",
            };
            let ours = match verdict.allocates() {
                Some(true) => "true",
                Some(false) => "false",
                None => "null",
            };
            *counts.entry((ours, real)).or_default() += 1;
            let agrees = match (&verdict.allocation, entry) {
                (Allocation::Allocates, e) => e == -1,
                (Allocation::NotConstructed, e) => e == -3 || e == -2,
                (Allocation::Refused { message, .. }, e) if e >= 0 => {
                    let (class, text) = &table.texts[e as usize];
                    class == "RuntimeError" && text == message
                }
                (Allocation::Refused { .. }, _) => false,
                (_, _) => true,
            };
            if !agrees {
                let real = if entry >= 0 {
                    format!("{:?}", table.texts[entry as usize])
                } else {
                    real.to_owned()
                };
                wrong.push(format!(
                    "{key} on {name}: real {real}, ours {:?}",
                    verdict.allocation
                ));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "{} disagreements:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    // The figures, for `cargo test allocations -- --nocapture`.
    eprintln!("allocation verdicts (ours, real): {counts:?}");
    let count = |ours, real| counts.get(&(ours, real)).copied().unwrap_or(0);
    // What the set proves: refusals named in the runtime's words, allocations of models
    // without operators, and nothing said of a model that crashed or failed otherwise.
    assert!(count("false", "refused") >= 300, "{counts:?}");
    assert!(count("true", "allocated") >= 30, "{counts:?}");
    assert_eq!(count("true", "refused") + count("true", "crashed"), 0);
    assert!(count("null", "allocated") > 0, "{counts:?}");
}

/// The Flex models: TensorFlow ops kept by `SELECT_TF_OPS` construct everywhere, allocate in
/// the tensorflow-cpu releases whose interpreter applies the Flex delegate (2.12 to 2.18), and
/// are refused by every other runtime at the Flex node.
#[test]
fn flex_models_are_refused_at_allocation_where_the_flex_delegate_is_not_applied() {
    let table = table();
    let row = &table.models["flex/tf-2.21.0/add_erf__select.tflite"];
    let model_bytes = model_bytes("flex/tf-2.21.0/add_erf__select.tflite");
    let model = Model::from_bytes(&model_bytes).unwrap();
    let mut refused = 0;
    for (runtime, &entry) in Runtime::all().zip(row) {
        let verdict = runtime.load(&model);
        assert!(verdict.loads(), "{runtime}");
        let flex = runtime.applies_flex();
        assert_eq!(
            flex,
            runtime.to_string().starts_with("tensorflow-cpu 2.1") && runtime.version() <= "2.18.1",
            "{runtime}"
        );
        if flex {
            assert_eq!(entry, -1, "{runtime} allocates it for real");
            assert!(matches!(verdict.allocation, Allocation::NotJudged { .. }));
        } else {
            refused += 1;
            let Allocation::Refused {
                cause,
                node,
                op,
                message,
            } = &verdict.allocation
            else {
                panic!("{runtime}: {:?}", verdict.allocation);
            };
            assert_eq!(*cause, AllocationRefusal::FlexNotApplied);
            assert_eq!((*node, op.as_str()), (1, "FlexErf"));
            assert!(
                message.starts_with("Select TensorFlow op(s), included in the given model")
                    && message.contains("Node number 1 (FlexErf) failed to prepare."),
                "{message}"
            );
            assert_eq!(table.texts[entry as usize].1, *message, "{runtime}");
        }
    }
    assert_eq!(refused, 23);
}

/// A custom op no resolver registers is refused by every runtime, Flex delegate or not; the
/// custom ops the default resolvers register (`AudioSpectrogram`, `Mfcc`) are not.
#[test]
fn unresolved_custom_ops_are_refused_and_registered_ones_are_not() {
    let erf = model_bytes("flex/tf-2.16.2/mfcc_erf__custom.tflite");
    let erf = Model::from_bytes(&erf).unwrap();
    let mfcc = model_bytes("flex/tf-2.16.2/mfcc__custom.tflite");
    let mfcc = Model::from_bytes(&mfcc).unwrap();
    for runtime in Runtime::all() {
        let verdict = runtime.load(&erf);
        let Allocation::Refused {
            cause,
            node,
            op,
            message,
        } = &verdict.allocation
        else {
            panic!("{runtime}: {:?}", verdict.allocation);
        };
        assert_eq!(*cause, AllocationRefusal::UnresolvedCustomOp);
        assert_eq!((*node, op.as_str()), (2, "Erf"));
        assert!(message.starts_with("Encountered unresolved custom op: Erf."));
        assert!(runtime.registers_custom("Mfcc", tflite_opver::OpVersion::ONE));
        assert!(runtime.registers_custom("AudioSpectrogram", tflite_opver::OpVersion::ONE));
        assert!(!runtime.registers_custom("Erf", tflite_opver::OpVersion::ONE));
        assert_eq!(
            runtime.load(&mfcc).allocation,
            Allocation::NotJudged {
                reason: NotJudged::KernelChecks
            },
            "{runtime}"
        );
    }
}

/// Re-stamping (issue 33, part 2): `restamp_refused_by` is exactly the runtimes that construct a
/// converter model stored too low (TF 2.21's in `tflite/`, each release's in
/// `runtimes/converted/`) as it is and refuse the copy `tflite-opver stamp` writes
/// (`tests/data/runtimes/restamped.json`, made with the thirty real runtimes); they are the
/// runtimes `stored_too_low` names as registering the stored version but not the required one.
#[test]
fn restamp_refused_by_is_what_the_real_runtimes_do_with_the_stamped_copy() {
    let table = table_of("runtimes/restamped.json");
    let ours: Vec<String> = Runtime::all().map(|r| r.to_string()).collect();
    assert_eq!(table.runtimes, ours);
    let mut flagged = 0;
    let mut excluding = 0;
    let mut conv_v8 = 0;
    for (key, stored) in table.models.iter().filter(|(k, _)| !k.ends_with("@raise")) {
        let stamped = &table.models[&format!("{key}@raise")];
        let real: Vec<&str> = table
            .runtimes
            .iter()
            .zip(stored.iter().zip(stamped))
            .filter(|(_, (s, a))| **s == -1 && **a != -1)
            .map(|(name, _)| name.as_str())
            .collect();
        let bytes = data_bytes(key);
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        let low = model.stored_too_low();
        assert!(!low.is_empty(), "{key}");
        flagged += 1;
        let refused: Vec<String> = model
            .restamp_refused_by()
            .unwrap_or_else(|e| panic!("{key}: {e}"))
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(refused, real, "{key}");
        // The same runtimes, read from the registrations alone.
        let mut stored_only: Vec<String> = low
            .iter()
            .flat_map(|l| l.stored_only.iter().map(|r| r.to_string()))
            .collect();
        stored_only.sort_by_key(|name| ours.iter().position(|o| o == name));
        stored_only.dedup();
        assert_eq!(stored_only, real, "{key}");
        if !real.is_empty() {
            excluding += 1;
            for name in &real {
                let i = ours.iter().position(|o| o == name).unwrap();
                let text = &table.texts[stamped[i] as usize].1;
                assert!(
                    text.starts_with("Didn't find op for builtin opcode '"),
                    "{key} on {name}: {text}"
                );
                conv_v8 += usize::from(
                    text.starts_with("Didn't find op for builtin opcode 'CONV_2D' version '8'"),
                );
            }
        }
    }
    // 260 models stored too low (54 of TF 2.21's own converter in `tests/data/tflite/`, 206
    // converted by the ten releases); re-stamping excludes some runtime for 54 of them (CONV_2D
    // v8, FULLY_CONNECTED v11, MIRROR_PAD v3, RSQRT v3...), most often with CONV_2D v8 on
    // tensorflow-cpu 2.12 to 2.14 and tflite-runtime 2.14.0, and none for the other 206.
    assert_eq!(flagged, 260);
    assert_eq!(excluding, 54);
    assert_eq!(conv_v8, 88);
}

/// The real third-party models (`runtimes/wild/`), as shipped and re-stamped, judged by the
/// thirty runtimes (`verdicts.json`): `restamp_refused_by` is the runtimes that construct the
/// shipped model and refuse the re-stamped one.
#[test]
fn restamp_refused_by_agrees_on_the_real_third_party_models() {
    let table = table_of("runtimes/verdicts.json");
    let mut judged = 0;
    for (key, shipped) in table
        .models
        .iter()
        .filter(|(k, _)| k.starts_with("wild/") && !k.ends_with("@raise"))
    {
        let stamped = &table.models[&format!("{key}@raise")];
        let real: Vec<&str> = table
            .runtimes
            .iter()
            .zip(shipped.iter().zip(stamped))
            .filter(|(_, (s, a))| **s == -1 && **a != -1)
            .map(|(name, _)| name.as_str())
            .collect();
        let bytes = data_bytes(&format!("runtimes/{key}"));
        let model = Model::from_bytes(&bytes).unwrap_or_else(|e| panic!("{key}: {e}"));
        let ours: Vec<String> = model
            .restamp_refused_by()
            .unwrap_or_else(|e| panic!("{key}: {e}"))
            .iter()
            .map(|r| r.to_string())
            .collect();
        assert_eq!(ours, real, "{key}");
        judged += 1;
    }
    assert_eq!(judged, 14);
}
