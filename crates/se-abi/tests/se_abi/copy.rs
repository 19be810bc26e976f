//! Versioned copies and views against an independent model of the rules, plus every error's text.

use crate::common::seed::{v3, v4, v5};
use proptest::prelude::*;
use se_abi::{
    CopyOptions, DeprecatedMembers, Error, MAX_STRUCT_SIZE, Tail, Versioned, View, copy_from_bytes,
    write_new_bytes,
};

type D = v5::SE_Device;

/// The rules, written out for `SE_Device` v5 (header + five 8-byte members, 56 bytes).
fn model(bytes: &[u8], tail: Tail) -> Result<usize, &'static str> {
    if bytes.len() < 8 {
        return Err("truncated");
    }
    let claim = usize::from_ne_bytes(bytes[..8].try_into().unwrap());
    if claim == 0 {
        return Err("uninitialized");
    }
    if claim > 4096 {
        return Err("oversized");
    }
    if claim < 32 {
        return Err("too small");
    }
    if claim < 56 && claim % 8 != 0 {
        return Err("torn");
    }
    if claim > bytes.len() {
        return Err("truncated");
    }
    if claim > 56 && tail == Tail::MustBeZero && bytes[56..claim].iter().any(|&b| b != 0) {
        return Err("too big");
    }
    Ok(claim)
}

fn kind(err: &Error) -> &'static str {
    match err {
        Error::Truncated { .. } => "truncated",
        Error::Uninitialized { .. } => "uninitialized",
        Error::Oversized { .. } => "oversized",
        Error::TooSmall { .. } => "too small",
        Error::Torn { .. } => "torn",
        Error::TooBig { .. } => "too big",
        _ => "other",
    }
}

fn word(bytes: &[u8], offset: usize) -> usize {
    usize::from_ne_bytes(bytes[offset..offset + 8].try_into().unwrap())
}

/// Builds bytes with a chosen claim: the claim is either a plausible size or anything.
fn input() -> impl Strategy<Value = (Vec<u8>, Tail)> {
    let claim = prop_oneof![
        prop::sample::select(vec![
            0usize, 8, 31, 32, 33, 40, 44, 48, 56, 57, 64, 4096, 4097
        ]),
        0usize..128,
        any::<usize>(),
    ];
    let tail = prop_oneof![Just(Tail::MustBeZero), Just(Tail::Ignore)];
    let sparse = prop::collection::vec(prop_oneof![3 => Just(0u8), 1 => any::<u8>()], 0..160);
    (claim, sparse, tail).prop_map(|(claim, mut bytes, tail)| {
        if bytes.len() >= 8 {
            bytes[..8].copy_from_slice(&claim.to_ne_bytes());
        }
        (bytes, tail)
    })
}

proptest! {
    // 2000 cases, unless PROPTEST_CASES says otherwise (CI runs fewer under valgrind).
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|n| n.parse().ok()).unwrap_or(2000),
        ..ProptestConfig::default()
    })]

    #[test]
    fn copy_from_bytes_follows_the_model((bytes, tail) in input()) {
        let got = copy_from_bytes::<D>(&bytes, tail);
        match (model(&bytes, tail), got) {
            (Ok(claim), Ok(copy)) => {
                prop_assert_eq!(copy.struct_size(), claim.min(56));
                // Present iff struct_size > offset; NULL reads as absent for nonzero members.
                let nonzero = |offset: usize| {
                    (claim > offset && word(&bytes, offset) != 0).then(|| word(&bytes, offset))
                };
                prop_assert_eq!(copy.get(D::name).map(|p| p as usize), nonzero(16));
                prop_assert_eq!(copy.get(D::name_len), (claim > 24).then(|| word(&bytes, 24)));
                prop_assert_eq!(copy.get(D::device_handle).map(|p| p as usize), nonzero(32));
                prop_assert_eq!(copy.get(D::data2).map(|p| p as usize), nonzero(48));
            }
            (Err(want), Err(err)) => prop_assert_eq!(want, kind(&err), "{}", err),
            (want, got) => prop_assert!(false, "model {:?}, copy {:?}", want, got.map(|c| c.struct_size())),
        }
    }

    /// A view over exactly `struct_size` heap bytes reads what the copy reads.
    #[test]
    fn view_over_exact_bytes_agrees_with_copy((bytes, _) in input()) {
        if let Ok(claim) = model(&bytes, Tail::Ignore) {
            let exact: Box<[u8]> = bytes[..claim].into();
            // SAFETY: `View::from_ptr` (see its `# Safety`) requires the pointer to be valid for
            // reads of the `struct_size` bytes it claims, initialized, and unchanged while the view
            // lives. `exact` is a heap block of exactly `claim` initialized bytes, the claimed
            // size, and outlives `view` unchanged; alignment does not matter.
            let view = unsafe { View::<D>::from_ptr(exact.as_ptr().cast()) }.unwrap();
            let copy = view.versioned_copy(Tail::Ignore).unwrap();
            prop_assert_eq!(view.struct_size(), claim);
            prop_assert_eq!(view.get(D::name), copy.get(D::name));
            prop_assert_eq!(view.get(D::name_len), copy.get(D::name_len));
            prop_assert_eq!(view.get(D::device_handle), copy.get(D::device_handle));
            prop_assert_eq!(view.get(D::data2), copy.get(D::data2));
        }
    }

    /// Writing a value out and copying it back is the identity on every live member.
    #[test]
    fn write_then_copy_round_trips(len in any::<usize>(), handle in any::<usize>(), data2 in any::<usize>()) {
        let mut device = D::new();
        device
            .set(D::name_len, len)
            .set(D::device_handle, std::ptr::without_provenance_mut(handle))
            .set(D::data2, std::ptr::without_provenance_mut(data2));
        let mut out = vec![0xAAu8; 56];
        // SAFETY: `se_abi::write_new` (see its `# Safety`) requires `dst` valid for writes of
        // `value`'s `struct_size` bytes and disjoint from it: `out` is a separate heap block of
        // 56 bytes, `device`'s `struct_size`.
        unsafe { se_abi::write_new(&device, std::ptr::NonNull::new(out.as_mut_ptr()).unwrap()) };
        let back: D = copy_from_bytes(&out, Tail::MustBeZero).unwrap();
        prop_assert_eq!(back.get(D::name_len), Some(len));
        prop_assert_eq!(back.get(D::device_handle), device.get(D::device_handle));
        prop_assert_eq!(back.get(D::data2), device.get(D::data2));
        prop_assert_eq!(word(&out, 0), 56);
        prop_assert_eq!(word(&out, 8), 0); // `next` stays zero
        prop_assert_eq!(word(&out, 40), 0); // deprecated `data` is written as zero
    }
}

fn device_bytes(claim: usize, fill: &[(usize, usize)]) -> Vec<u8> {
    let mut bytes = vec![0u8; claim.max(8)];
    bytes[..8].copy_from_slice(&claim.to_ne_bytes());
    for &(offset, value) in fill {
        bytes[offset..offset + 8].copy_from_slice(&value.to_ne_bytes());
    }
    bytes
}

#[test]
fn older_producer_tail_is_zero_and_absent() {
    let bytes = device_bytes(40, &[(24, 5), (32, 0x99)]);
    let copy: D = copy_from_bytes(&bytes, Tail::MustBeZero).unwrap();
    assert_eq!(copy.struct_size(), 40);
    assert_eq!(copy.get(D::name_len), Some(5));
    assert_eq!(copy.get(D::device_handle).map(|p| p as usize), Some(0x99));
    assert_eq!(copy.get(D::data2), None);
    assert!(!copy.view().has(D::data2));
    assert!(copy.view().has(D::device_handle));
}

#[test]
fn deprecated_member_is_zeroed_in_a_copy() {
    // A v3 producer set `data`; a v5 copy keeps the place but not the value.
    let bytes = device_bytes(48, &[(40, 0x77)]);
    let v5_copy: D = copy_from_bytes(&bytes, Tail::MustBeZero).unwrap();
    let mut out = vec![0xFFu8; 48];
    // SAFETY: `se_abi::write_new` (see its `# Safety`) requires `dst` valid for writes of
    // `value`'s `struct_size` bytes and disjoint from it: `out` is a separate heap block of 48
    // bytes, the copy's `struct_size`.
    unsafe { se_abi::write_new(&v5_copy, std::ptr::NonNull::new(out.as_mut_ptr()).unwrap()) };
    assert_eq!(word(&out, 40), 0);
    // A v3 build still reads it.
    let v3_copy: v3::SE_Device = copy_from_bytes(&bytes, Tail::MustBeZero).unwrap();
    assert_eq!(
        v3_copy.get(v3::SE_Device::data).map(|p| p as usize),
        Some(0x77)
    );
}

#[test]
fn newer_producer_tail_strict_and_lenient() {
    let bytes = device_bytes(64, &[(56, 0x1_00)]);
    let err = copy_from_bytes::<D>(&bytes, Tail::MustBeZero).unwrap_err();
    assert_eq!(
        err,
        Error::TooBig {
            name: "SE_Device",
            found: 64,
            ours: 56,
            nonzero_at: 57
        }
    );
    assert_eq!(
        err.to_string(),
        "`SE_Device` from a newer producer is 64 bytes and byte 57 past this build's 56 is not \
         zero (E2BIG): the producer uses members this build cannot honor; upgrade the consumer, \
         or copy with `Tail::Ignore` to ignore them as TensorFlow does"
    );
    let copy: D = copy_from_bytes(&bytes, Tail::Ignore).unwrap();
    assert_eq!(copy.struct_size(), 56);
    let zero_tail = device_bytes(64, &[]);
    assert!(copy_from_bytes::<D>(&zero_tail, Tail::MustBeZero).is_ok());
}

#[test]
fn every_error_says_what_is_wrong() {
    let cases: [(Vec<u8>, &str); 6] = [
        (
            device_bytes(0, &[]),
            "Expected initialized `SE_Device` structure with `struct_size` field set to \
             SE_DEVICE_STRUCT_SIZE. Found `struct_size` = 0.",
        ),
        (
            device_bytes(24, &[]),
            "`SE_Device` has `struct_size` = 24, smaller than its first version's size 32: the \
             producer passed another struct or a corrupt one",
        ),
        (
            device_bytes(44, &[]),
            "`SE_Device` has `struct_size` = 44, which ends inside member `data` (bytes 40..48): \
             no version of the header has that size; the producer's header is not this struct's",
        ),
        (
            device_bytes(MAX_STRUCT_SIZE + 1, &[]),
            "`SE_Device` has `struct_size` = 4097, above the limit of 4096 bytes: refusing to \
             read it (corrupt or uninitialized struct?)",
        ),
        (
            device_bytes(56, &[])[..50].to_vec(),
            "`SE_Device` claims `struct_size` = 56 but only 50 bytes were given: the buffer is \
             truncated",
        ),
        (
            vec![1, 2, 3],
            "`SE_Device` claims `struct_size` = 8 but only 3 bytes were given: the buffer is \
             truncated",
        ),
    ];
    for (bytes, message) in cases {
        let err = copy_from_bytes::<D>(&bytes, Tail::Ignore).unwrap_err();
        assert_eq!(err.to_string(), message);
    }
    // SAFETY: `View::from_ptr` (see its `# Safety`) accepts a null pointer, which it refuses
    // before reading anything.
    let err = unsafe { View::<D>::from_ptr(std::ptr::null()) }.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Expected a `SE_Device` structure, found a null pointer: the producer must pass a struct"
    );
}

/// Sizes that end in padding are not torn; sizes inside a member are.
#[test]
fn torn_sizes_with_mixed_member_sizes() {
    se_abi::versioned_struct! {
        /// Members of 1, 4 and 8 bytes, with padding between the first two.
        #[abi(size = MIXED_STRUCT_SIZE, sizes = [17, 24, 32])]
        pub struct Mixed {
            a: u8 = value(since 1, at 16..17),
            b: u32 = value(since 2, at 20..24),
            c: u64 = value(since 3, at 24..32),
        }
    }
    assert_eq!(MIXED_STRUCT_SIZE, 32);
    assert_eq!(size_of::<Mixed>(), 32);
    for claim in 17..=40usize {
        let mut bytes = vec![0u8; 40];
        bytes[..8].copy_from_slice(&claim.to_ne_bytes());
        bytes[16] = 7;
        let result = copy_from_bytes::<Mixed>(&bytes, Tail::MustBeZero);
        let torn = (21..24).contains(&claim) || (25..32).contains(&claim);
        match result {
            Err(Error::Torn { member, .. }) => {
                assert!(torn, "claim {claim} called torn");
                assert_eq!(member, if claim < 24 { "b" } else { "c" });
            }
            Ok(copy) => {
                assert!(!torn, "claim {claim} accepted");
                assert_eq!(copy.get(Mixed::a), Some(7));
                assert_eq!(copy.get(Mixed::b).is_some(), claim > 20);
                assert_eq!(copy.get(Mixed::c).is_some(), claim > 24);
            }
            Err(other) => panic!("claim {claim}: {other}"),
        }
    }
    assert_eq!(Mixed::SIZES, &[17, 24, 32]);
}

/// An all-zero value, valid for every `Versioned` type, carries `struct_size` 0: written out, it
/// is zero bytes long and touches nothing, not even the first 8 bytes of a larger buffer.
#[test]
fn all_zero_value_writes_nothing() {
    // SAFETY: `mem::zeroed` needs the all-zero bit pattern to be a valid `D` (see
    // <https://doc.rust-lang.org/core/mem/fn.zeroed.html>): `Versioned` promises it.
    let zeroed: D = unsafe { std::mem::zeroed() };
    assert_eq!(zeroed.struct_size(), 0);
    assert_eq!(zeroed.get(D::name_len), None);
    let mut buffer = [0xAAu8; 16];
    assert_eq!(se_abi::write_new_bytes(&zeroed, &mut buffer), Ok(0));
    assert_eq!(buffer, [0xAA; 16]);
    assert_eq!(se_abi::write_new_bytes(&zeroed, &mut []), Ok(0));
}

/// The bytes a value writes out (`write_new_bytes` into a buffer that starts out all 0xAA).
fn written<T: Versioned>(value: &T) -> Vec<u8> {
    let mut out = vec![0xAAu8; 64];
    let n = write_new_bytes(value, &mut out).unwrap();
    out.truncate(n);
    out
}

/// TensorFlow's validation checks only `struct_size`, never `next` (`ext`): a producer's non-NULL
/// `next` is accepted, by views and by every kind of copy, and never written out again.
#[test]
fn foreign_next_is_accepted_and_never_relayed() {
    let bytes = device_bytes(56, &[(8, 0xDEAD_BEE0), (24, 3), (40, 0x77), (48, 0x55)]);
    let exact: Box<[u8]> = bytes.clone().into();
    // SAFETY: `View::from_ptr` (see its `# Safety`) requires the pointer to be valid for reads of
    // the `struct_size` bytes it claims, initialized, and unchanged while the view lives: `exact`
    // is a heap block of exactly those 56 initialized bytes and outlives `view` unchanged.
    let view = unsafe { View::<D>::from_ptr(exact.as_ptr().cast()) }.unwrap();
    assert_eq!(view.get(D::name_len), Some(3));
    let options = [
        CopyOptions::from(Tail::MustBeZero),
        CopyOptions::from(Tail::Ignore),
        CopyOptions::from(Tail::MustBeZero).keep_deprecated(),
    ];
    for options in options {
        let from_bytes: D = copy_from_bytes(&bytes, options).unwrap();
        let from_view = view.versioned_copy(options).unwrap();
        for copy in [from_bytes, from_view] {
            let out = written(&copy);
            assert_eq!(word(&out, 8), 0, "{options:?}: `next` relayed");
            assert_eq!(word(&out, 24), 3);
            assert_eq!(word(&out, 48), 0x55);
        }
    }
    // An older build's copy does not relay it either.
    let v3_copy: v3::SE_Device = copy_from_bytes(&bytes, Tail::Ignore).unwrap();
    assert_eq!(word(&written(&v3_copy), 8), 0);
}

/// A copy zeroes a member this build deprecated, unless asked to keep it; kept, it is written
/// back out for older consumers, and this build still has no way to read it.
#[test]
fn deprecated_member_is_kept_in_a_copy_when_asked() {
    // A v3 or a keeping v4 producer set `data`.
    let bytes = device_bytes(48, &[(24, 9), (40, 0x77)]);
    let dropped: v4::SE_Device = copy_from_bytes(&bytes, Tail::MustBeZero).unwrap();
    assert_eq!(word(&written(&dropped), 40), 0);
    let options = CopyOptions {
        tail: Tail::MustBeZero,
        deprecated: DeprecatedMembers::Keep,
    };
    let kept: v4::SE_Device = copy_from_bytes(&bytes, options).unwrap();
    let out = written(&kept);
    assert_eq!((out.len(), word(&out, 24), word(&out, 40)), (48, 9, 0x77));
    // What an older host that reads `data` gets from the struct this side wrote.
    let old_host: v3::SE_Device = copy_from_bytes(&out, Tail::MustBeZero).unwrap();
    assert_eq!(
        old_host.get(v3::SE_Device::data).map(|p| p.addr()),
        Some(0x77)
    );
    // A producer whose struct does not reach `data` has nothing to keep.
    let short = device_bytes(40, &[(32, 0x99)]);
    let kept: D = copy_from_bytes(&short, options).unwrap();
    assert_eq!(written(&kept).len(), 40);
}

/// `set_deprecated` writes a deprecated member, extending `struct_size` to cover it like `set`.
#[test]
fn set_deprecated_keeps_writing_for_older_consumers() {
    let mut device = v5::SE_Device::new();
    device
        .set(D::name_len, 4)
        .set_deprecated(D::data, std::ptr::without_provenance_mut(0x1234))
        .set(D::data2, std::ptr::without_provenance_mut(0x5678));
    let out = written(&device);
    assert_eq!(out.len(), 56);
    assert_eq!((word(&out, 40), word(&out, 48)), (0x1234, 0x5678));
    let old_host: v3::SE_Device = copy_from_bytes(&out, Tail::Ignore).unwrap();
    assert_eq!(
        old_host.get(v3::SE_Device::data).map(|p| p.addr()),
        Some(0x1234)
    );
    // From a copy of a 40-byte producer, setting `data` makes the struct reach it.
    let mut short: D = copy_from_bytes(&device_bytes(40, &[]), Tail::MustBeZero).unwrap();
    assert_eq!(short.struct_size(), 40);
    short.set_deprecated(D::data, std::ptr::without_provenance_mut(0x42));
    assert_eq!(short.struct_size(), 48);
    assert_eq!(word(&written(&short), 40), 0x42);
    assert_eq!((D::data.name(), D::data.offset()), ("data", 40));
}

/// The model of `fill`: the host's claimed size is validated like a producer's; the plugin writes
/// `min(host, plugin)` bytes and nothing else.
fn fill_model(host_claim: usize, available: usize) -> Result<usize, &'static str> {
    match host_claim {
        0 => Err("uninitialized"),
        c if c > 4096 => Err("oversized"),
        c if c < 32 => Err("too small"),
        c if c < 56 && c % 8 != 0 => Err("torn"),
        c if c > available => Err("truncated"),
        c => Ok(c.min(56)),
    }
}

proptest! {
    /// Filling a host's struct never writes a byte past the host's `struct_size` (nor, for a
    /// refused size, any byte at all), and what it writes reads back as the plugin's value.
    #[test]
    fn fill_never_writes_past_the_host_struct(
        host_claim in prop_oneof![
            prop::sample::select(vec![0usize, 8, 16, 24, 31, 32, 36, 40, 48, 52, 56, 64, 4096, 4097]),
            any::<usize>(),
        ],
        extra in 0usize..24,
        len in any::<usize>(),
        data2 in any::<usize>(),
    ) {
        let available = host_claim.clamp(8, 200) + extra;
        let mut host = vec![0xA5u8; available];
        host[..8].copy_from_slice(&host_claim.to_ne_bytes());
        let before = host.clone();
        let mut plugin = D::new();
        plugin.set(D::name_len, len).set(D::data2, std::ptr::without_provenance_mut(data2));
        let got = se_abi::fill_bytes(&plugin, &mut host);
        match (fill_model(host_claim, available), got) {
            (Ok(size), Ok(written)) => {
                prop_assert_eq!(written, size);
                prop_assert_eq!(&host[size..], &before[size..]);
                prop_assert_eq!(word(&host, 0), size);
                let back: D = copy_from_bytes(&host, Tail::Ignore).unwrap();
                prop_assert_eq!(back.get(D::name_len), Some(len));
                prop_assert_eq!(back.get(D::data2), (size == 56).then_some(data2).filter(|&d| d != 0).map(std::ptr::without_provenance_mut));
            }
            (Err(want), Err(err)) => {
                prop_assert_eq!(want, kind(&err));
                prop_assert_eq!(&host, &before);
            }
            (want, got) => prop_assert!(false, "want {want:?}, got {got:?}"),
        }
    }
}

/// A plugin built against version 5 fills the host's struct of every older version through a
/// raw pointer into a heap block of exactly the host's size (under valgrind in CI, a byte past it
/// is an invalid write), and an older plugin fills a newer host's struct, leaving its zeros.
#[test]
fn fill_through_a_pointer_into_exact_host_blocks() {
    let mut plugin = D::new();
    plugin
        .set(D::name_len, 5)
        .set(D::device_handle, std::ptr::without_provenance_mut(0x20))
        .set(D::data2, std::ptr::without_provenance_mut(0x50));
    for host_size in [32usize, 40, 48, 56] {
        let mut block = vec![0u8; host_size].into_boxed_slice();
        block[..8].copy_from_slice(&host_size.to_ne_bytes());
        // SAFETY: `se_abi::fill` (see its `# Safety`) requires the host's struct with its
        // `struct_size` initialized, writable for that many bytes, not overlapping the value:
        // `block` is a separate heap block of exactly `host_size` bytes, which it claims.
        let written = unsafe { se_abi::fill(&plugin, block.as_mut_ptr().cast::<D>()) };
        assert_eq!(written, Ok(host_size));
        assert_eq!(word(&block, 0), host_size);
        assert_eq!(word(&block, 24), 5);
        if host_size >= 40 {
            assert_eq!(word(&block, 32), 0x20);
        }
        if host_size == 56 {
            assert_eq!(word(&block, 48), 0x50);
        }
    }
    // An older plugin (v3: 48 bytes) fills a v5 host's 56-byte struct: it says 48, and the
    // host's own bytes past it stay as the host left them.
    let mut old = v3::SE_Device::new();
    old.set(v3::SE_Device::name_len, 3);
    let mut block = vec![0u8; 56].into_boxed_slice();
    block[..8].copy_from_slice(&56usize.to_ne_bytes());
    block[48..].copy_from_slice(&0x77usize.to_ne_bytes());
    // SAFETY: as above: a separate block of exactly the 56 bytes it claims.
    let written = unsafe { se_abi::fill(&old, block.as_mut_ptr().cast::<v3::SE_Device>()) };
    assert_eq!(written, Ok(48));
    assert_eq!(word(&block, 48), 0x77);
    let host: D = copy_from_bytes(&block, Tail::MustBeZero).unwrap();
    assert_eq!(host.struct_size(), 48);
    assert_eq!(host.get(D::data2), None);
}

/// A host struct whose size was never set is refused in TensorFlow's words, and nothing is
/// written; a NULL host struct too.
#[test]
fn fill_refuses_a_host_struct_without_size_and_null() {
    let mut block = [0u8; 56];
    let err = se_abi::fill_bytes(&D::new(), &mut block).unwrap_err();
    assert_eq!(
        err.to_string(),
        "Expected initialized `SE_Device` structure with `struct_size` field set to \
         SE_DEVICE_STRUCT_SIZE. Found `struct_size` = 0."
    );
    assert_eq!(block, [0; 56]);
    // SAFETY: `se_abi::fill` accepts NULL and refuses it before touching anything.
    let err = unsafe { se_abi::fill(&D::new(), std::ptr::null_mut()) }.unwrap_err();
    assert_eq!(err, Error::NullStruct { name: "SE_Device" });
    assert_eq!(
        se_abi::fill_bytes(&D::new(), &mut [0u8; 4]).unwrap_err(),
        Error::Truncated {
            name: "SE_Device",
            claimed: 8,
            available: 4
        }
    );
}
