//! The seed's `SE_Device` at header versions 1 to 5 (shared with the `rust_plugin` example),
//! plus the unvalidated version-3 header of the documented hazard.

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/examples/se_device/versions.rs"
));

/// Version 3 as a host that does not validate `data`: it treats every value, NULL included, as
/// meaningful (declared `value` instead of `nonzero`). The documented hazard.
pub mod v3_unvalidated {
    use core::ffi::{c_char, c_void};
    se_abi::versioned_struct! {
        /// `SE_Device` v3, `data` unvalidated.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
            data: *mut c_void = value(since 3, at 40..48),
        }
    }
}
