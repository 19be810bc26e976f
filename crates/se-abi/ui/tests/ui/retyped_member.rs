// Version 3 as published, with `ordinal` re-typed from u64 to u32: a deprecation plus a new
// member, never an edit in place.
se_abi::versioned_struct! {
    /// Version 3, `ordinal` re-typed to u32.
    #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40])]
    pub struct Dev {
        ordinal: u32 = value(since 1, at 16..24),
        handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
        data: *mut core::ffi::c_void = nonzero(since 3, at 32..40),
    }
}

fn main() {}
