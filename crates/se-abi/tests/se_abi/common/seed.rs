//! The seed's `SE_Device` at header versions 1 to 5 (shared with the `rust_plugin` example),
//! plus the unvalidated version-3 header of the documented hazard.

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/se_device/versions.rs"
));
