// Version 3 inserted `flags` between two older members (and moved `handle`'s locked offsets
// along with it) instead of appending it.
se_abi::versioned_struct! {
    /// Version 3, `flags` inserted.
    #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 40, 40])]
    pub struct Dev {
        ordinal: u64 = value(since 1, at 16..24),
        flags: u64 = value(since 3, at 24..32),
        handle: *mut core::ffi::c_void = nonzero(since 2, at 32..40),
    }
}

fn main() {}
