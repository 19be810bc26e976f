//! Versioned copy from arbitrary bytes with an arbitrary claimed `struct_size`: a value or a
//! typed error, never a panic, and never a read past the buffer (the copy only sees a slice).
//!
//! The input is also a host's struct for a plugin to `fill_bytes`: it writes exactly
//! `min(host's struct_size, its own)` bytes, or refuses the host's size and writes nothing.
//!
//! Then the write paths, on every copy that succeeds: the copy written back out (`write_new_bytes`)
//! is exactly its `struct_size` bytes, never relays the producer's `next`, carries the deprecated
//! member only when the copy was asked to keep it, and reads back the same; and a value built with
//! `set` / `set_deprecated` from the input writes out and copies back unchanged.
#![no_main]

use std::ffi::{c_char, c_void};

use libfuzzer_sys::fuzz_target;
use se_abi::{
    CopyOptions, Error, Tail, copy_from_bytes, fill_bytes, versioned_struct, write_new_bytes,
};

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
    // The first two bytes pick a claimed size (so small, plausible sizes are common), the tail
    // policy and whether deprecated members are kept; the rest is the producer's struct, whose
    // `struct_size` field gets the claim.
    let Some((&[lo, hi], rest)) = input.split_first_chunk::<2>() else {
        return;
    };
    let claim = usize::from(u16::from_le_bytes([lo, hi & 0x3f]));
    let tail = if hi & 0x80 == 0 {
        Tail::MustBeZero
    } else {
        Tail::Ignore
    };
    let keep = hi & 0x40 != 0;
    let options = if keep {
        CopyOptions::from(tail).keep_deprecated()
    } else {
        CopyOptions::from(tail)
    };
    let mut bytes = rest.to_vec();
    if let Some(head) = bytes.first_chunk_mut::<8>() {
        *head = claim.to_ne_bytes();
    }
    let device = copy_from_bytes::<SE_Device>(&bytes, options);
    check(device.as_ref().map(|d| d.struct_size()), &bytes, 56);
    if let Ok(device) = &device {
        write_back_device(device, &bytes, keep);
    }
    let mixed = copy_from_bytes::<Mixed>(&bytes, options);
    check(mixed.as_ref().map(|d| d.struct_size()), &bytes, 33);
    if let Ok(mixed) = &mixed {
        write_back_mixed(mixed, &bytes);
    }
    // The raw input as is, with whatever `struct_size` it carries.
    let _ = copy_from_bytes::<SE_Device>(rest, options);
    // A producer that sets every member from the input, the deprecated one included.
    build_and_round_trip(rest);
    // The input as the host's struct, filled by a v5 plugin.
    fill_host(&bytes);
});

fn fill_host(host: &[u8]) {
    let mut plugin = SE_Device::new();
    plugin
        .set(SE_Device::name_len, 3)
        .set(SE_Device::data2, std::ptr::without_provenance_mut(0x50));
    let mut filled = host.to_vec();
    match fill_bytes(&plugin, &mut filled) {
        Ok(size) => {
            let claim = word(host, 0);
            assert_eq!(size, claim.min(56));
            assert_eq!(word(&filled, 0), size);
            assert_eq!(filled[size..], host[size..], "wrote past the host's struct");
        }
        Err(_) => assert_eq!(filled, host, "a refused host struct was written"),
    }
}

fn check(result: Result<usize, &Error>, bytes: &[u8], ours: usize) {
    if let Ok(struct_size) = result {
        assert!(struct_size <= ours);
        assert!(struct_size <= bytes.len());
    }
}

fn word(bytes: &[u8], offset: usize) -> usize {
    usize::from_ne_bytes(bytes[offset..offset + 8].try_into().unwrap())
}

/// Writes `value` into a buffer larger than any struct, pre-filled with 0xA5: the bytes past the
/// written length must be untouched.
fn written<T: se_abi::Versioned>(value: &T) -> Vec<u8> {
    let mut out = vec![0xA5u8; 80];
    let n = write_new_bytes(value, &mut out).expect("80 bytes hold any struct here");
    assert_eq!(n, se_abi::View::of(value).struct_size());
    assert!(
        out[n..].iter().all(|&b| b == 0xA5),
        "wrote past struct_size"
    );
    out.truncate(n);
    out
}

fn write_back_device(device: &SE_Device, producer: &[u8], keep: bool) {
    let out = written(device);
    let n = out.len();
    assert_eq!(word(&out, 0), n);
    // The producer's `next` is never relayed.
    assert_eq!(word(&out, 8), 0);
    // Every live member the size reaches is the producer's; the deprecated one only if kept.
    for offset in [16, 24, 32, 48] {
        if n >= offset + 8 {
            assert_eq!(
                word(&out, offset),
                word(producer, offset),
                "member at {offset}"
            );
        }
    }
    if n >= 48 {
        let want = if keep { word(producer, 40) } else { 0 };
        assert_eq!(word(&out, 40), want, "deprecated member");
    }
    // What was written copies back to the same value.
    let back: SE_Device = copy_from_bytes(&out, Tail::MustBeZero).expect("own output copies back");
    assert_eq!(back.struct_size(), n);
    assert_eq!(back.get(SE_Device::name), device.get(SE_Device::name));
    assert_eq!(
        back.get(SE_Device::name_len),
        device.get(SE_Device::name_len)
    );
    assert_eq!(
        back.get(SE_Device::device_handle),
        device.get(SE_Device::device_handle)
    );
    assert_eq!(back.get(SE_Device::data2), device.get(SE_Device::data2));
}

fn write_back_mixed(mixed: &Mixed, producer: &[u8]) {
    let out = written(mixed);
    let n = out.len();
    assert_eq!(word(&out, 8), 0);
    // Members are copied, padding (bytes 17..20 and 33..) is written as zero.
    for (offset, size) in [(16, 1), (20, 4), (24, 8), (32, 1)] {
        if n >= offset + size {
            assert_eq!(out[offset..offset + size], producer[offset..offset + size]);
        }
    }
    if n >= 20 {
        assert_eq!(out[17..20], [0, 0, 0]);
    }
    let back: Mixed = copy_from_bytes(&out, Tail::MustBeZero).expect("own output copies back");
    assert_eq!(back.get(Mixed::a), mixed.get(Mixed::a));
    assert_eq!(back.get(Mixed::b), mixed.get(Mixed::b));
    assert_eq!(back.get(Mixed::c), mixed.get(Mixed::c));
    assert_eq!(back.get(Mixed::d), mixed.get(Mixed::d));
}

fn build_and_round_trip(rest: &[u8]) {
    let Some((words, _)) = rest.split_first_chunk::<40>() else {
        return;
    };
    let w = |i: usize| usize::from_ne_bytes(words[i * 8..i * 8 + 8].try_into().unwrap());
    let mut device = SE_Device::new();
    device
        .set(SE_Device::name, std::ptr::without_provenance(w(0)))
        .set(SE_Device::name_len, w(1))
        .set(
            SE_Device::device_handle,
            std::ptr::without_provenance_mut(w(2)),
        )
        .set_deprecated(SE_Device::data, std::ptr::without_provenance_mut(w(3)))
        .set(SE_Device::data2, std::ptr::without_provenance_mut(w(4)));
    let out = written(&device);
    assert_eq!(out.len(), 56);
    assert_eq!(word(&out, 8), 0);
    for (i, offset) in [16, 24, 32, 40, 48].into_iter().enumerate() {
        assert_eq!(word(&out, offset), w(i), "member at {offset}");
    }
    // Kept through a keeping copy, dropped by a default one.
    let kept: SE_Device =
        copy_from_bytes(&out, CopyOptions::from(Tail::MustBeZero).keep_deprecated()).unwrap();
    assert_eq!(word(&written(&kept), 40), w(3));
    let dropped: SE_Device = copy_from_bytes(&out, Tail::MustBeZero).unwrap();
    assert_eq!(word(&written(&dropped), 40), 0);
}
