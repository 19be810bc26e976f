// Version 3 as published had `handle` before `data`; here `data` was moved before `handle`.
se_abi::versioned_struct! {
    /// Version 3, `data` moved before `handle`.
    #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40])]
    pub struct Dev {
        ordinal: u64 = value(since 1, at 16..24),
        data: *mut core::ffi::c_void = nonzero(since 3, at 32..40),
        handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
    }
}

fn main() {}
