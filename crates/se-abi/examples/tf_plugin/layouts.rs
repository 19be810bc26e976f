//! The struct declarations of the plugin's `older` and `newer` builds: TensorFlow's structs as a
//! plugin compiled against an older (shorter) or a newer (longer) header would declare them.
//! Kept apart from the plugin's code, so that `cargo xtask abi-check` can lock them like every
//! other declared struct.

/// Shorter versions of four structs: what a plugin compiled against a header in which these
/// structs ended earlier declares. TensorFlow accepts them (it validates only a non-zero
/// `struct_size` and its required function pointers) and reads its own zeros past them.
pub mod older {
    use std::ffi::c_char;

    use se_abi::tensorflow::SP_Device as Device;
    use se_abi::versioned_struct;

    versioned_struct! {
        /// `SP_Platform` without `use_bfc_allocator` and `force_memory_growth`: 33 bytes.
        #[abi(size = SP_PLATFORM_STRUCT_SIZE, sizes = [33])]
        pub struct SP_Platform {
            /// As in TensorFlow's.
            name: *const c_char = nonzero(since 1, at 16..24),
            /// As in TensorFlow's.
            r#type: *const c_char = nonzero(since 1, at 24..32),
            /// As in TensorFlow's.
            supports_unified_memory: u8 = value(since 1, at 32..33),
        }
    }

    versioned_struct! {
        /// `SP_Device` without the three optional names: 32 bytes.
        #[abi(size = SP_DEVICE_STRUCT_SIZE, sizes = [32])]
        pub struct SP_Device {
            /// As in TensorFlow's.
            ordinal: i32 = value(since 1, at 16..20),
            /// As in TensorFlow's.
            device_handle: *mut core::ffi::c_void = value(since 1, at 24..32),
        }
    }

    versioned_struct! {
        /// `SP_DeviceMemoryBase` without `payload`: 32 bytes.
        #[abi(size = SP_DEVICE_MEMORY_BASE_STRUCT_SIZE, sizes = [32])]
        pub struct SP_DeviceMemoryBase {
            /// As in TensorFlow's.
            opaque: *mut core::ffi::c_void = value(since 1, at 16..24),
            /// As in TensorFlow's.
            size: u64 = value(since 1, at 24..32),
        }
    }

    versioned_struct! {
        /// `SP_DeviceFns` with only `get_numa_node`: 24 bytes.
        #[abi(size = SP_DEVICE_FNS_STRUCT_SIZE, sizes = [24])]
        pub struct SP_DeviceFns {
            /// As in TensorFlow's.
            get_numa_node: Option<unsafe extern "C" fn(*const Device) -> i32> =
                nonzero(since 1, at 16..24),
        }
    }
}

/// Longer versions of two structs: what a plugin compiled against a newer header, in which these
/// structs gained a member, declares. Filling TensorFlow's shorter structs with them writes
/// nothing past TensorFlow's `struct_size`.
pub mod newer {
    use std::ffi::{c_char, c_void};

    use se_abi::versioned_struct;

    versioned_struct! {
        /// `SP_Platform` with a 1-byte member appended: 36 bytes.
        #[abi(size = SP_PLATFORM_STRUCT_SIZE, sizes = [35, 36])]
        pub struct SP_Platform {
            /// As in TensorFlow's.
            name: *const c_char = nonzero(since 1, at 16..24),
            /// As in TensorFlow's.
            r#type: *const c_char = nonzero(since 1, at 24..32),
            /// As in TensorFlow's.
            supports_unified_memory: u8 = value(since 1, at 32..33),
            /// As in TensorFlow's.
            use_bfc_allocator: u8 = value(since 1, at 33..34),
            /// As in TensorFlow's.
            force_memory_growth: u8 = value(since 1, at 34..35),
            /// A member TensorFlow's header does not have (yet).
            future_flag: u8 = value(since 2, at 35..36),
        }
    }

    versioned_struct! {
        /// `SP_Device` with a pointer appended: 64 bytes.
        #[abi(size = SP_DEVICE_STRUCT_SIZE, sizes = [56, 64])]
        pub struct SP_Device {
            /// As in TensorFlow's.
            ordinal: i32 = value(since 1, at 16..20),
            /// As in TensorFlow's.
            device_handle: *mut c_void = value(since 1, at 24..32),
            /// As in TensorFlow's.
            hardware_name: *const c_char = nonzero(since 1, at 32..40),
            /// As in TensorFlow's.
            device_vendor: *const c_char = nonzero(since 1, at 40..48),
            /// As in TensorFlow's.
            pci_bus_id: *const c_char = nonzero(since 1, at 48..56),
            /// A member TensorFlow's header does not have (yet).
            future_data: *mut c_void = nonzero(since 2, at 56..64),
        }
    }
}
