//! The `se-abi` binary exports TensorFlow's status functions (`src/bin/se-abi/tf_status.rs`) so
//! that a plugin run in its emulated host finds them by name, as in TensorFlow. An executable
//! exports nothing unless asked: this asks the linker, for that binary only.

/// The functions `tf_status.rs` defines.
const EXPORTED: &[&str] = &[
    "TF_NewStatus",
    "TF_DeleteStatus",
    "TF_SetStatus",
    "TF_SetPayload",
    "TF_GetCode",
    "TF_Message",
];

fn main() {
    println!("cargo::rerun-if-changed=build.rs");
    for name in EXPORTED {
        println!("cargo::rustc-link-arg-bin=se-abi=-Wl,--export-dynamic-symbol={name}");
    }
}
