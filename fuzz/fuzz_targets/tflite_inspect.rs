//! Everything `tflite-opver inspect` does, on arbitrary bytes: read and validate the model,
//! build every operator's signature, compute every version and the minimum runtime. Each step
//! returns a value or a typed error, never panics. Its loader limits are measured (at least one
//! table per operator code, subgraph and operator, and the model itself) and every delegate
//! preset judges every operator. Every one of the thirty runtimes judges it (`tflite-opver
//! runtimes`): a refusal has the runtime's text, the verdicts of all runtimes at once are each
//! runtime's own, and a runtime blocked by an operator code names it. Whatever reads is also
//! re-stamped both ways, and a stamped model must read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tflite_opver::{
    Delegate, LoadOutcome, Model, RefusedBy, Runtime, StampMode, loader_limits, stamp,
};

fuzz_target!(|data: &[u8]| {
    let Ok(model) = Model::from_bytes(data) else {
        return;
    };
    let _ = model.stored_min_runtime_version();
    let _ = model.required_versions();
    let _ = model.required_min_runtime_version();
    let limits = loader_limits(&model);
    let least = 1 + model.operator_codes().len() + model.subgraph_count() + model.operator_count();
    assert!(limits.tables >= least, "{limits:?} counts every table");
    let _ = limits.warnings();
    let delegates = [Delegate::gpu(), Delegate::nnapi(), Delegate::xnnpack()];
    for at in model.operators() {
        if let Ok(sig) = model.signature(at) {
            let _ = tflite_opver::op_version(&sig);
            if let Ok(code) = model.opcode_index(at) {
                let version = model.operator_codes()[code].version;
                for delegate in &delegates {
                    let _ = delegate.place(&sig, version);
                }
            }
        }
    }
    let verdicts = model.runtime_verdicts();
    assert_eq!(verdicts.iter().len(), Runtime::all().len());
    for (verdict, runtime) in verdicts.iter().zip(Runtime::all()) {
        assert_eq!(verdict.runtime, runtime);
        if let LoadOutcome::Refused { by, message } = &verdict.outcome {
            assert!(!message.is_empty(), "{runtime} refuses in its words");
            if *by == RefusedBy::Operator {
                assert!(
                    !verdict.blocking.is_empty(),
                    "{runtime} names what blocks it"
                );
            }
        }
        for blocking in &verdict.blocking {
            assert!(blocking.code < model.operator_codes().len());
        }
    }
    if let Some(runtime) = Runtime::all().nth(data.len() % Runtime::all().len()) {
        assert_eq!(&runtime.load(&model), verdicts.verdict(runtime));
    }
    for mode in [StampMode::Raise, StampMode::Minimize] {
        if let Ok(stamped) = stamp(data, mode) {
            assert!(
                Model::from_bytes(&stamped.bytes).is_ok(),
                "a stamped model reads back"
            );
        }
    }
});
