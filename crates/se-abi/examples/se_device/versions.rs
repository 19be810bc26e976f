// The seed's `SE_Device` at header versions 1 to 5, each as its own build would declare it:
// {struct_size, next, name, name_len} = 32 bytes at v1; + device_handle = 40 (v2); + data = 48
// (v3); data deprecated in place (v4, still 48); + data2 = 56 (v5).
//
// Shared by the `rust_plugin` example and the tests (which `include!` this file), with the
// unvalidated version-3 header of the documented hazard, which only the tests use.

/// Version 1: {struct_size, next, name, name_len} = 32 bytes.
pub mod v1 {
    use core::ffi::c_char;
    se_abi::versioned_struct! {
        /// `SE_Device` v1.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
        }
    }
}

/// Version 2: + device_handle = 40 bytes.
pub mod v2 {
    use core::ffi::{c_char, c_void};
    se_abi::versioned_struct! {
        /// `SE_Device` v2.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
        }
    }
}

/// Version 3: + data = 48 bytes.
pub mod v3 {
    use core::ffi::{c_char, c_void};
    se_abi::versioned_struct! {
        /// `SE_Device` v3.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
            data: *mut c_void = nonzero(since 3, at 40..48),
        }
    }
}

/// Version 4: data deprecated in place (still 48 bytes).
pub mod v4 {
    use core::ffi::{c_char, c_void};
    se_abi::versioned_struct! {
        /// `SE_Device` v4.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48, 48])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
            data: *mut c_void = nonzero(since 3, deprecated 4, at 40..48),
        }
    }
}

/// Version 5: + data2 = 56 bytes.
pub mod v5 {
    use core::ffi::{c_char, c_void};
    se_abi::versioned_struct! {
        /// `SE_Device` v5.
        #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48, 48, 56])]
        pub struct SE_Device {
            name: *const c_char = nonzero(since 1, at 16..24),
            name_len: usize = value(since 1, at 24..32),
            device_handle: *mut c_void = nonzero(since 2, at 32..40),
            data: *mut c_void = nonzero(since 3, deprecated 4, at 40..48),
            data2: *mut c_void = nonzero(since 5, at 48..56),
        }
    }
}

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
