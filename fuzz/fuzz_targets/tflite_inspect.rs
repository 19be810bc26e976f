//! Everything `tflite-opver inspect` does, on arbitrary bytes: read and validate the model,
//! build every operator's signature, compute every version and the minimum runtime. Each step
//! returns a value or a typed error, never panics. Whatever reads is also re-stamped both
//! ways, and a stamped model must read back.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tflite_opver::{Model, StampMode, stamp};

fuzz_target!(|data: &[u8]| {
    let Ok(model) = Model::from_bytes(data) else {
        return;
    };
    let _ = model.stored_min_runtime_version();
    let _ = model.required_versions();
    let _ = model.required_min_runtime_version();
    for at in model.operators() {
        if let Ok(sig) = model.signature(at) {
            let _ = tflite_opver::op_version(&sig);
        }
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
