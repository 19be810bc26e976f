//! Versioned copy from arbitrary bytes with an arbitrary claimed `struct_size`: a value or a
//! typed error, never a panic, and never a read past the buffer (the copy only sees a slice).
#![no_main]

use std::ffi::{c_char, c_void};

use libfuzzer_sys::fuzz_target;
use se_abi::{Error, Tail, copy_from_bytes, versioned_struct};

versioned_struct! {
    /// The seed's `SE_Device` at version 5.
    #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48, 48, 56])]
    pub struct SE_Device {
        name: *const c_char = nonzero(since 1, at 16..24),
        name_len: usize = value(since 1, at 24..32),
        device_handle: *mut c_void = nonzero(since 2, at 32..40),
        data: *mut c_void = nonzero(since 3, deprecated 4, at 40..48),
        data2: *mut c_void = nonzero(since 5, at 48..56),
    }
}

versioned_struct! {
    /// Members of 1, 4 and 8 bytes with padding, ending before `sizeof` (like `SP_Platform`).
    #[abi(size = MIXED_STRUCT_SIZE, sizes = [17, 24, 33])]
    pub struct Mixed {
        a: u8 = value(since 1, at 16..17),
        b: u32 = nonzero(since 2, at 20..24),
        c: u64 = value(since 3, at 24..32),
        d: u8 = value(since 3, at 32..33),
    }
}

fuzz_target!(|input: &[u8]| {
    // The first two bytes pick a claimed size (so small, plausible sizes are common) and the
    // tail policy; the rest is the producer's struct, whose `struct_size` field gets the claim.
    let Some((&[lo, hi], rest)) = input.split_first_chunk::<2>() else {
        return;
    };
    let claim = usize::from(u16::from_le_bytes([lo, hi & 0x7f]));
    let tail = if hi & 0x80 == 0 {
        Tail::MustBeZero
    } else {
        Tail::Ignore
    };
    let mut bytes = rest.to_vec();
    if let Some(head) = bytes.first_chunk_mut::<8>() {
        *head = claim.to_ne_bytes();
    }
    check(
        copy_from_bytes::<SE_Device>(&bytes, tail).map(|d| d.struct_size()),
        &bytes,
        56,
    );
    check(
        copy_from_bytes::<Mixed>(&bytes, tail).map(|d| d.struct_size()),
        &bytes,
        33,
    );
    // The raw input as is, with whatever `struct_size` it carries.
    let _ = copy_from_bytes::<SE_Device>(rest, tail);
});

fn check(result: Result<usize, Error>, bytes: &[u8], ours: usize) {
    if let Ok(struct_size) = result {
        assert!(struct_size <= ours);
        assert!(struct_size <= bytes.len());
    }
}
