// Version 3 as published, with its last member `data` removed: every remaining member is where
// it was, but the struct no longer has version 3's size.
se_abi::versioned_struct! {
    /// Version 3, `data` removed.
    #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40])]
    pub struct Dev {
        ordinal: u64 = value(since 1, at 16..24),
        handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
    }
}

fn main() {}
