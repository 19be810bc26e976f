// Version 3 as published, with `handle` (version 2) removed from the middle.
se_abi::versioned_struct! {
    /// Version 3, `handle` removed.
    #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40])]
    pub struct Dev {
        ordinal: u64 = value(since 1, at 16..24),
        data: *mut core::ffi::c_void = nonzero(since 3, at 32..40),
    }
}

fn main() {}
