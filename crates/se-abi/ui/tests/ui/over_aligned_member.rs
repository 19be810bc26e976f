// A 16-byte member aligned to 16 bytes: the C API's maximum alignment is 8.
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug)]
pub struct Pair([u64; 2]);
// SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit pattern valid:
// two integers filling the 16 bytes.
unsafe impl se_abi::AbiMember for Pair {}
impl se_abi::CType for Pair {
    const SHAPE: se_abi::Shape = se_abi::Shape::Struct { name: "Pair" };
}

se_abi::versioned_struct! {
    /// Version 1.
    #[abi(size = WIDE_STRUCT_SIZE, sizes = [32])]
    pub struct Wide {
        pair: Pair = value(since 1, at 16..32),
    }
}

fn main() {}
