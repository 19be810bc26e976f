// A build that deprecated `data` (version 4) has a write-only handle on it, which no read
// accepts: it cannot read it, nor `set` it as if it were live. Only `set_deprecated` takes it.
se_abi::versioned_struct! {
    /// Version 4: `data` deprecated.
    #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40, 40])]
    pub struct Dev {
        ordinal: u64 = value(since 1, at 16..24),
        handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
        data: *mut core::ffi::c_void = nonzero(since 3, deprecated 4, at 32..40),
    }
}

fn main() {
    let mut dev = Dev::new();
    dev.set_deprecated(Dev::data, core::ptr::null_mut());
    let _ = dev.get(Dev::data);
    let _ = dev.view().get(Dev::data);
}
