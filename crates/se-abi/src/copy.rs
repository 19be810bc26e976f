//! Versioned copies, with Linux `copy_struct_from_user` semantics, and the two ways a producer
//! writes a struct out: into memory of its own ([`write_new`]), or into the struct the other side
//! allocated, never past the size the other side set ([`fill`]).
//!
//! From a producer's bytes and its `struct_size`, a versioned copy makes an owned struct of this
//! build: a smaller producer leaves the missing tail zero; a larger producer's members past this
//! build's size are not read, as the seed says of an older side and as TensorFlow does
//! ([`Tail::Ignore`], the default), or, in the strict mode of Linux's `copy_struct_from_user`
//! ([`Tail::MustBeZero`]), accepted only if every byte of them is zero (else
//! [`Error::TooBig`], `E2BIG`).

use core::mem::MaybeUninit;
use core::ptr::NonNull;

use crate::error::Error;
use crate::header;
use crate::layout::Versioned;
use crate::member::MemberKind;

/// What to do with the bytes a newer producer has past this build's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tail {
    /// They must all be zero (Linux's `copy_struct_from_user`, the strict mode): a non-zero byte
    /// means the producer uses a member this build cannot honor, and the copy fails with
    /// [`Error::TooBig`].
    MustBeZero,
    /// They are not read (the default): the seed's rule, "the older side simply does not know
    /// them", and what TensorFlow's core does with a newer plugin's extra members.
    #[default]
    Ignore,
}

/// What a versioned copy does with members this build deprecated.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DeprecatedMembers {
    /// Zero them: this build no longer reads them, and a struct written from the copy does not
    /// carry them on.
    #[default]
    Zero,
    /// Keep the producer's values, so that a struct written from the copy
    /// ([`fill`], [`write_new`]) still carries them to older consumers that read them: the copy-side form of
    /// [`Deprecated`](crate::Deprecated)'s `set_deprecated`, with the same rule for when to stop.
    /// This build still cannot read them.
    Keep,
}

/// How a versioned copy treats the producer's bytes: a newer producer's [`Tail`], and members
/// this build deprecated ([`DeprecatedMembers`]). A bare [`Tail`] converts into the default
/// options with that tail.
///
/// The reserved `next` member is never carried over, whatever the options: see [`copy_from_ptr`].
///
/// ```
/// use se_abi::{CopyOptions, DeprecatedMembers, Tail};
///
/// let options = CopyOptions::from(Tail::Ignore).keep_deprecated();
/// assert_eq!(options.tail, Tail::Ignore);
/// assert_eq!(options.deprecated, DeprecatedMembers::Keep);
/// // The default follows the seed: a newer producer's extra members are not read.
/// assert_eq!(CopyOptions::default(), CopyOptions::from(Tail::Ignore));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CopyOptions {
    /// What to do with a newer producer's bytes past this build's size.
    pub tail: Tail,
    /// What to do with members this build deprecated.
    pub deprecated: DeprecatedMembers,
}

impl CopyOptions {
    /// The options with `tail`, zeroing deprecated members.
    pub const fn new(tail: Tail) -> CopyOptions {
        CopyOptions {
            tail,
            deprecated: DeprecatedMembers::Zero,
        }
    }

    /// The same options, keeping the producer's deprecated members ([`DeprecatedMembers::Keep`]).
    pub const fn keep_deprecated(self) -> CopyOptions {
        CopyOptions {
            tail: self.tail,
            deprecated: DeprecatedMembers::Keep,
        }
    }
}

impl From<Tail> for CopyOptions {
    fn from(tail: Tail) -> CopyOptions {
        CopyOptions::new(tail)
    }
}

/// Versioned copy from a foreign producer's struct.
///
/// The owned copy has this build's layout; members the producer did not have are zero, and its
/// `struct_size` is the smaller of the producer's and this build's, so checked reads on the copy
/// still tell a member the producer lacked from one it set to zero. Deprecated members are zeroed
/// unless `options` asks to keep them ([`DeprecatedMembers::Keep`]).
///
/// The reserved `next` member is never copied: the copy's `next` is NULL (a struct declared with
/// `header = ext` has a free-form `ext` instead, copied like any member). A non-NULL `next` is
/// accepted and ignored, as TensorFlow's validation does (`TF_VALIDATE_STRUCT_SIZE` and
/// `VALIDATE_STRUCT_SIZE` in `tensorflow/c/experimental/stream_executor/stream_executor.cc`
/// check only `struct_size`, never `ext`/`next`), but it is the producer's pointer, into an
/// extension chain this side does not know: relaying it into a struct this side writes would
/// hand a third party a pointer nobody vouches for. TensorFlow likewise sets `ext = nullptr` in
/// the structs it fills (`SE_CreateDeviceParams` in `CPlatform::GetUncachedExecutor`).
///
/// # Safety
///
/// As for [`View::from_ptr`](crate::View::from_ptr), for the duration of the call.
pub unsafe fn copy_from_ptr<T: Versioned>(
    ptr: *const T,
    options: impl Into<CopyOptions>,
) -> Result<T, Error> {
    // SAFETY: `read_foreign` needs `ptr` null or valid for reads of an initialized
    // `struct_size` field: part of this function's contract (`View::from_ptr`'s).
    let (base, struct_size) = unsafe { header::read_foreign(ptr) }?;
    // SAFETY: `copy_raw` needs `struct_size` bytes at `base`, readable and unchanged during the
    // call, initialized for every member and past `T::STRUCT_SIZE`, and a validated size: the
    // caller's contract covers the bytes, and `read_foreign` validated the size.
    unsafe { copy_raw::<T>(base, struct_size, options.into()) }
}

/// Versioned copy from bytes whose first `usize` (native endian) is the producer's claimed
/// `struct_size`. The claim is validated against the buffer: a buffer shorter than the claim is
/// [`Error::Truncated`]; bytes past the claim are not looked at. `options` and `next` as for
/// [`copy_from_ptr`].
///
/// ```
/// use se_abi::{Tail, copy_from_bytes, versioned_struct};
///
/// versioned_struct! {
///     /// A two-version struct.
///     #[abi(size = THING_STRUCT_SIZE, sizes = [24, 32])]
///     pub struct Thing {
///         a: u64 = value(since 1, at 16..24),
///         b: u64 = value(since 2, at 24..32),
///     }
/// }
///
/// // A version-1 producer: 24 bytes, `b` missing.
/// let mut v1 = [0u8; 24];
/// v1[..8].copy_from_slice(&24usize.to_ne_bytes());
/// v1[16..].copy_from_slice(&7u64.to_ne_bytes());
/// let thing: Thing = copy_from_bytes(&v1, Tail::MustBeZero)?;
/// assert_eq!(thing.get(Thing::a), Some(7));
/// assert_eq!(thing.get(Thing::b), None);
/// # Ok::<(), se_abi::Error>(())
/// ```
pub fn copy_from_bytes<T: Versioned>(
    bytes: &[u8],
    options: impl Into<CopyOptions>,
) -> Result<T, Error> {
    let Some(head) = bytes.first_chunk::<{ size_of::<usize>() }>() else {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: size_of::<usize>(),
            available: bytes.len(),
        });
    };
    let struct_size = usize::from_ne_bytes(*head);
    header::validate::<T>(struct_size)?;
    if struct_size > bytes.len() {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: struct_size,
            available: bytes.len(),
        });
    }
    // SAFETY: `copy_raw` needs `struct_size` bytes readable and initialized at `base` for the
    // call, and a validated size. A `&[u8]` is valid for reads of its whole length and every byte
    // of it is initialized (see <https://doc.rust-lang.org/core/primitive.slice.html> and
    // <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.scalar>),
    // `struct_size <= bytes.len()` was checked just above, and `validate` accepted the size.
    unsafe {
        copy_raw::<T>(
            NonNull::from(bytes).cast::<u8>(),
            struct_size,
            options.into(),
        )
    }
}

/// The copy itself, for a `struct_size` that [`header::validate`] accepted.
///
/// # Safety
///
/// For the duration of the call, `base` must be valid for reads of `struct_size` bytes, which
/// nobody writes meanwhile; the bytes of every member of `T` below `struct_size` must be
/// initialized, and so must every byte past `T::STRUCT_SIZE` when the tail is
/// [`Tail::MustBeZero`]. `struct_size` must have passed [`header::validate`] for `T`.
pub(crate) unsafe fn copy_raw<T: Versioned>(
    base: NonNull<u8>,
    struct_size: usize,
    options: CopyOptions,
) -> Result<T, Error> {
    let ours = T::STRUCT_SIZE;
    if struct_size > ours && options.tail == Tail::MustBeZero {
        let extra_start = base.as_ptr().wrapping_add(ours).cast_const();
        // SAFETY: `slice::from_raw_parts` requires `data` to be non-null, aligned and valid for
        // reads of `len` bytes inside one allocation, `len` initialized values, no mutation for
        // the slice's lifetime, and `len <= isize::MAX` (see
        // <https://doc.rust-lang.org/core/slice/fn.from_raw_parts.html#safety>). `ours <
        // struct_size`, so these `struct_size - ours` bytes are the tail of the `struct_size`
        // bytes at `base` that the caller vouches are readable (a range valid for reads lies in
        // one allocation: <https://doc.rust-lang.org/core/ptr/index.html#safety>), initialized
        // (`Tail::MustBeZero`) and unchanged during this call; the slice does not outlive it.
        // `u8` has alignment 1, and `len < MAX_STRUCT_SIZE` is far below `isize::MAX`.
        let extra = unsafe { core::slice::from_raw_parts(extra_start, struct_size - ours) };
        // Or-ing every byte (no early exit) vectorizes; the position is looked up only on error.
        let any_set = extra.iter().fold(0u8, |acc, &byte| acc | byte) != 0;
        if any_set {
            let at = extra.iter().position(|&byte| byte != 0).unwrap_or(0);
            return Err(Error::TooBig {
                name: T::NAME,
                found: struct_size,
                ours,
                nonzero_at: ours + at,
            });
        }
    }
    let kept = struct_size.min(ours);
    let mut out = MaybeUninit::<T>::zeroed();
    let dst = out.as_mut_ptr().cast::<u8>();
    if kept == ours {
        // The common case, split out so that the copy has a constant length and is inlined.
        // SAFETY: as below, with `kept == ours`.
        unsafe { core::ptr::copy_nonoverlapping(base.as_ptr().cast_const(), dst, ours) };
    } else {
        // SAFETY: `ptr::copy_nonoverlapping` requires `src` valid for reads and `dst` valid for
        // writes of `count` bytes, both aligned, and the two ranges disjoint (see
        // <https://doc.rust-lang.org/core/ptr/fn.copy_nonoverlapping.html#safety>). `kept <=
        // struct_size` bytes at `base` are readable (caller); `kept <= T::STRUCT_SIZE <=
        // size_of::<T>()` (`Versioned`) bytes at `dst` are writable, as `out` is a local `T`;
        // `u8` has alignment 1; and `out`, a new local, is no part of memory the caller handed
        // over. The copy is untyped: it carries padding and pointer bytes over as they are.
        unsafe { core::ptr::copy_nonoverlapping(base.as_ptr().cast_const(), dst, kept) };
    }
    // SAFETY: `ptr::write_unaligned` requires `dst` valid for writes of a `usize` (see
    // <https://doc.rust-lang.org/core/ptr/fn.write_unaligned.html#safety>). `Versioned` puts the
    // `struct_size: usize` field at offset 0 of `T`, so those bytes lie inside `out`.
    unsafe { dst.cast::<usize>().write_unaligned(kept) };
    // The producer's reserved `next` is never carried over (see `copy_from_ptr`). `MEMBERS` is a
    // constant, so this test and the write's place are resolved at compile time.
    if let Some(next) = T::MEMBERS
        .get(1)
        .filter(|member| member.kind == MemberKind::Reserved)
    {
        // SAFETY: `ptr::write_unaligned` requires `dst` valid for writes of a pointer (see
        // <https://doc.rust-lang.org/core/ptr/fn.write_unaligned.html#safety>). `Versioned` lists
        // every member with its true offset and size, and a `Reserved` member is a pointer, so
        // those bytes lie inside `out`; NULL is a valid pointer value.
        unsafe {
            dst.wrapping_add(next.offset)
                .cast::<*mut core::ffi::c_void>()
                .write_unaligned(core::ptr::null_mut())
        };
    }
    let zero_deprecated = options.deprecated == DeprecatedMembers::Zero;
    for member in T::MEMBERS
        .iter()
        .filter(|member| zero_deprecated && member.deprecated.is_some())
    {
        // SAFETY: `zero` requires `size` writable bytes at `at`: `Versioned` lists every member
        // with its true offset and size inside `T`, so the member's bytes lie inside `out`. Zero
        // is a valid value of the member (`AbiMember`).
        unsafe { zero(dst.wrapping_add(member.offset), member.size) };
    }
    // SAFETY: `MaybeUninit::assume_init` requires the value to be initialized and valid for `T`
    // (see <https://doc.rust-lang.org/core/mem/union.MaybeUninit.html#method.assume_init>); a
    // struct is valid when every field is (see
    // <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.struct>).
    // `out` started all-zero, valid for `T` (`Versioned`). Each member's bytes then either stayed
    // zero or were overwritten, whole (the validated `struct_size` cuts no member), with the
    // producer's initialized bytes of the same member, and every initialized bit pattern is a
    // valid `AbiMember`. Only padding may have received uninitialized bytes, which padding may
    // hold (<https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.undef>).
    Ok(unsafe { out.assume_init() })
}

/// Writes `size` zero bytes at `at`: one store of the member's width when it is 1, 2, 4 or 8
/// bytes. (A run-time-sized fill was written byte by byte, and the struct's next read, 16 bytes
/// at a time, then waited on those stores: the versioned copy took twice as long.)
///
/// # Safety
///
/// `at` must be valid for writes of `size` bytes; no alignment is required.
#[inline(always)]
unsafe fn zero(at: *mut u8, size: usize) {
    match size {
        // SAFETY: `ptr::write_unaligned` requires `at` valid for writes of the type's size, with
        // no alignment requirement (see
        // <https://doc.rust-lang.org/core/ptr/fn.write_unaligned.html#safety>): 8 bytes, `size`,
        // the caller's contract.
        8 => unsafe { at.cast::<u64>().write_unaligned(0) },
        // SAFETY: as above, 4 bytes.
        4 => unsafe { at.cast::<u32>().write_unaligned(0) },
        // SAFETY: as above, 2 bytes.
        2 => unsafe { at.cast::<u16>().write_unaligned(0) },
        // SAFETY: `ptr::write_bytes` requires `at` valid for writes of `size` bytes (see
        // <https://doc.rust-lang.org/core/ptr/fn.write_bytes.html#safety>), the caller's
        // contract; `u8` has alignment 1.
        _ => unsafe { at.write_bytes(0, size) },
    }
}

/// Writes `value` into memory **this side allocated** for it, as a producer that allocates its
/// own struct does (the seed's `new SE_Device{SE_DEVICE_STRUCT_SIZE}`): exactly `value`'s
/// `struct_size` bytes (for a value made with `T::new()`, `T::STRUCT_SIZE`, which may be less
/// than `size_of::<T>()`), zero-filled first, then every member the size reaches.
///
/// **Not for a struct the other side allocated.** When the host allocates the struct and sets its
/// `struct_size` (TensorFlow does, for every struct a plugin fills), an older host's allocation
/// may be shorter than this build's struct: use [`fill`], which reads the host's size first.
///
/// A deprecated member is written as `value` holds it: zero, unless the producer keeps setting
/// it (`set_deprecated`, see [`Deprecated`](crate::Deprecated)) or `value` is a copy that kept
/// it ([`DeprecatedMembers::Keep`]). The reserved `next` member is always written as NULL, so a
/// foreign `next` pointer is never relayed (see [`copy_from_ptr`]).
///
/// # Safety
///
/// `dst` must be valid for writes of `value`'s `struct_size` bytes (its
/// [`struct_size`](crate::View::struct_size), at most `T::STRUCT_SIZE`) and must not overlap
/// `value`.
pub unsafe fn write_new<T: Versioned>(value: &T, dst: NonNull<u8>) {
    let struct_size = header::of_owned(value);
    // SAFETY: `write_raw` needs `struct_size` writable bytes at `dst`, disjoint from `value`, and
    // a size that is `value`'s own or smaller: the caller's contract, with `value`'s own size.
    unsafe { write_raw(value, dst, struct_size) };
}

/// Writes `value` into `out`, a buffer of this side's own, as [`write_new`] does, returning how
/// many bytes that is: `value`'s `struct_size`. A buffer shorter than that is
/// [`Error::Truncated`]. To fill a struct the other side allocated, use [`fill_bytes`].
pub fn write_new_bytes<T: Versioned>(value: &T, out: &mut [u8]) -> Result<usize, Error> {
    let struct_size = header::of_owned(value);
    if out.len() < struct_size {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: struct_size,
            available: out.len(),
        });
    }
    // SAFETY: `write_raw` needs `struct_size` writable bytes at `dst`, disjoint from `value`, and
    // a size no larger than `value`'s own. A `&mut [u8]` is valid for writes of its whole
    // length, at least `struct_size` (checked above), and, being a unique borrow, cannot alias
    // the shared borrow `value` (see
    // <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.alias>).
    unsafe { write_raw(value, NonNull::from(out).cast::<u8>(), struct_size) };
    Ok(struct_size)
}

/// Fills a struct **the other side allocated**, as a plugin fills the structs TensorFlow hands
/// it: reads the `struct_size` the host put there first, writes only the members that fit inside
/// it, and sets `struct_size` to the smaller of the host's and `value`'s. Returns that size.
///
/// This is the scheme's central promise on the producer's side. TensorFlow allocates each struct
/// a plugin fills, zero-filled, with its own size set (`SP_Platform platform{SP_PLATFORM_STRUCT_SIZE}`
/// in `tensorflow/c/experimental/stream_executor/stream_executor.cc`), and the header says
/// "struct_size set by TF for plugin to read". A plugin built against a newer header, with more
/// members, must not write them into an older host's shorter allocation; and an older plugin
/// writes fewer bytes than the host has, leaving the host's zeros (its "not set") past them.
///
/// The host's size is validated as a read is ([`View::from_ptr`](crate::View::from_ptr)): 0 is
/// TensorFlow's "Expected initialized ..." error (the host did not set it, so how much memory it
/// has is unknown: nothing is written), and a size below version 1's, above
/// [`MAX_STRUCT_SIZE`](crate::MAX_STRUCT_SIZE) or ending inside a member of `T` is refused; a
/// host newer than this build is fine (its extra bytes are left as they are). Within the size
/// written, the bytes are zero-filled first, then every member is copied; the reserved `next` is
/// written NULL, as by [`write_new`].
///
/// ```
/// use se_abi::{fill_bytes, versioned_struct};
///
/// versioned_struct! {
///     /// What the plugin was compiled with: two members.
///     #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32])]
///     pub struct Dev {
///         ordinal: u64 = value(since 1, at 16..24),
///         flags: u64 = value(since 2, at 24..32),
///     }
/// }
///
/// // An older host allocated 24 bytes and said so ...
/// let mut host = [0u8; 24];
/// host[..8].copy_from_slice(&24usize.to_ne_bytes());
/// // ... and the plugin fills what fits: `flags` is not written past the host's struct.
/// let mut dev = Dev::new();
/// dev.set(Dev::ordinal, 7).set(Dev::flags, 1);
/// assert_eq!(fill_bytes(&dev, &mut host)?, 24);
/// assert_eq!(&host[16..24], &7u64.to_ne_bytes());
/// # Ok::<(), se_abi::Error>(())
/// ```
///
/// # Safety
///
/// `dst` must be null (refused with [`Error::NullStruct`]) or point to a struct the other side
/// allocated, whose `struct_size` field (the `usize` at offset 0) it initialized: valid for reads
/// of that field, then for writes of as many bytes as it says (or of `T::STRUCT_SIZE` bytes, if
/// fewer), and not accessed by anyone else during the call. It need not be aligned, and must not
/// overlap `value`.
pub unsafe fn fill<T: Versioned>(value: &T, dst: *mut T) -> Result<usize, Error> {
    // SAFETY: `read_foreign` needs `dst` null or valid for reads of an initialized `struct_size`
    // field: part of this function's contract.
    let (base, host_size) = unsafe { header::read_foreign(dst.cast_const()) }?;
    let size = host_size.min(header::of_owned(value));
    // SAFETY: `write_raw` needs `size` writable bytes at `base`, disjoint from `value`, and a size
    // no larger than `value`'s own. The caller vouches for `host_size >= size` writable bytes at
    // `dst` that do not overlap `value`.
    unsafe { write_raw(value, base, size) };
    Ok(size)
}

/// Fills the struct the other side allocated in `dst`, as [`fill`] does, with the host's
/// `struct_size` read from the first `usize` of `dst` (native endian): a `dst` shorter than that
/// field, or than the size it claims, is [`Error::Truncated`] and nothing is written.
pub fn fill_bytes<T: Versioned>(value: &T, dst: &mut [u8]) -> Result<usize, Error> {
    let Some(head) = dst.first_chunk::<{ size_of::<usize>() }>() else {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: size_of::<usize>(),
            available: dst.len(),
        });
    };
    let host_size = usize::from_ne_bytes(*head);
    header::validate::<T>(host_size)?;
    if host_size > dst.len() {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: host_size,
            available: dst.len(),
        });
    }
    let size = host_size.min(header::of_owned(value));
    // SAFETY: `write_raw` needs `size` writable bytes at `dst`, disjoint from `value`, and a size
    // no larger than `value`'s own. `size <= host_size <= dst.len()` (checked above), a
    // `&mut [u8]` is valid for writes of its whole length, and a unique borrow cannot alias the
    // shared borrow `value`.
    unsafe { write_raw(value, NonNull::from(dst).cast::<u8>(), size) };
    Ok(size)
}

/// Writes the first `size` bytes of `value` as a producer does: zero-filled, then every member
/// that ends within `size` (the reserved `next` stays NULL), then `struct_size = size`.
///
/// # Safety
///
/// `dst` must be valid for writes of `size` bytes and must not overlap `value`; `size` must be at
/// most `value`'s `struct_size` (so at most `T::STRUCT_SIZE`).
unsafe fn write_raw<T: Versioned>(value: &T, dst: NonNull<u8>, size: usize) {
    let src = core::ptr::from_ref(value).cast::<u8>();
    let dst = dst.as_ptr();
    // SAFETY: `ptr::write_bytes` requires `dst` valid for writes of `count` bytes and aligned (see
    // <https://doc.rust-lang.org/core/ptr/fn.write_bytes.html#safety>): the caller vouches for
    // `size` writable bytes at `dst`, and `u8` has alignment 1.
    unsafe { dst.write_bytes(0, size) };
    for member in T::MEMBERS {
        if member.kind != MemberKind::Reserved && member.end() <= size {
            // SAFETY: `ptr::copy_nonoverlapping` requires `src` valid for reads and `dst` valid
            // for writes of `count` bytes, both aligned, and the ranges disjoint (see
            // <https://doc.rust-lang.org/core/ptr/fn.copy_nonoverlapping.html#safety>). The
            // member lies inside `value` (`Versioned` lists true offsets and sizes), which is
            // borrowed for the call, and it ends within the `size` writable bytes at `dst`; `u8`
            // has alignment 1; `dst` does not overlap `value` (caller). Only member bytes are
            // copied, never padding, so `dst` receives only initialized bytes.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    src.wrapping_add(member.offset),
                    dst.wrapping_add(member.offset),
                    member.size,
                );
            }
        }
    }
    // A value whose `struct_size` is below the field's own end (an all-zero `T`, which
    // `Versioned` allows) wrote nothing above and gets nothing here.
    if size >= size_of::<usize>() {
        // SAFETY: `ptr::write_unaligned` requires `dst` valid for writes of a `usize` (see
        // <https://doc.rust-lang.org/core/ptr/fn.write_unaligned.html#safety>): the field is the
        // first `size_of::<usize>() <= size` of the bytes the caller vouches for.
        unsafe { dst.cast::<usize>().write_unaligned(size) };
    }
}
