// A safe `extern "C" fn` read from a producer's bytes could be called from safe code: only
// `Option<unsafe extern "C" fn(..)>` may be a member.
se_abi::versioned_struct! {
    /// Version 1.
    #[abi(size = HOOKS_STRUCT_SIZE, sizes = [24])]
    pub struct Hooks {
        callback: Option<extern "C" fn()> = value(since 1, at 16..24),
    }
}

fn main() {}
