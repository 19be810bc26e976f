//! Versioned copies, with Linux `copy_struct_from_user` semantics, and writing a struct out into
//! memory of exactly its `struct_size`.
//!
//! From a producer's bytes and its `struct_size`, a versioned copy makes an owned struct of this
//! build: a smaller producer leaves the missing tail zero; a larger producer is accepted only if
//! every byte past this build's size is zero (else [`Error::TooBig`], Linux's `E2BIG`), unless
//! [`Tail::Ignore`] asks to ignore the tail as TensorFlow does.

use core::mem::MaybeUninit;
use core::ptr::NonNull;

use crate::error::Error;
use crate::layout::Versioned;
use crate::member::MemberKind;
use crate::view::{View, check_struct_size};

/// What to do with the bytes a newer producer has past this build's size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Tail {
    /// They must all be zero (`copy_struct_from_user`): a non-zero byte means the producer uses a
    /// member this build cannot honor, and the copy fails with [`Error::TooBig`].
    #[default]
    MustBeZero,
    /// They are ignored, as TensorFlow's core does with a newer plugin's extra members.
    Ignore,
}

/// Versioned copy from a foreign producer's struct.
///
/// The owned copy has this build's layout; members the producer did not have are zero, and its
/// `struct_size` is the smaller of the producer's and this build's, so checked reads on the copy
/// still tell a member the producer lacked from one it set to zero. Deprecated members are zeroed.
///
/// # Safety
///
/// As for [`View::from_ptr`]; in addition, the bytes past this build's size must be initialized
/// (producers zero-fill their structs) when `tail` is [`Tail::MustBeZero`].
pub unsafe fn copy_from_ptr<T: Versioned>(ptr: *const T, tail: Tail) -> Result<T, Error> {
    // SAFETY: forwarded from the caller.
    let view = unsafe { View::from_ptr(ptr) }?;
    view.versioned_copy(tail)
}

/// Versioned copy from bytes whose first `usize` (native endian) is the producer's claimed
/// `struct_size`. The claim is validated against the buffer: a buffer shorter than the claim is
/// [`Error::Truncated`]; bytes past the claim are not looked at.
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
pub fn copy_from_bytes<T: Versioned>(bytes: &[u8], tail: Tail) -> Result<T, Error> {
    let Some(head) = bytes.first_chunk::<{ size_of::<usize>() }>() else {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: size_of::<usize>(),
            available: bytes.len(),
        });
    };
    let struct_size = usize::from_ne_bytes(*head);
    check_struct_size::<T>(struct_size)?;
    if struct_size > bytes.len() {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: struct_size,
            available: bytes.len(),
        });
    }
    // SAFETY: `bytes` is readable and initialized for `struct_size <= bytes.len()` bytes for the
    // duration of this call.
    unsafe { copy_raw::<T>(NonNull::from(bytes).cast::<u8>(), struct_size, tail) }
}

/// The copy itself, for a `struct_size` that [`check_struct_size`] accepted.
///
/// # Safety
///
/// `base` must be readable for `struct_size` bytes, and the bytes past `T::STRUCT_SIZE` must be
/// initialized when `tail` is [`Tail::MustBeZero`].
pub(crate) unsafe fn copy_raw<T: Versioned>(
    base: NonNull<u8>,
    struct_size: usize,
    tail: Tail,
) -> Result<T, Error> {
    let ours = T::STRUCT_SIZE;
    if struct_size > ours && tail == Tail::MustBeZero {
        let extra_start = base.as_ptr().wrapping_add(ours).cast_const();
        // SAFETY: `ours < struct_size`, so the `struct_size - ours` bytes after `ours` are within
        // the readable, initialized bytes the caller vouches for; `u8` needs no alignment.
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
        // SAFETY: `kept <= struct_size` bytes are readable at `base`; `kept <= T::STRUCT_SIZE <=
        // size_of::<T>()` bytes are writable at `dst`; a local cannot overlap foreign memory. A
        // byte copy carries pointer provenance along.
        unsafe { core::ptr::copy_nonoverlapping(base.as_ptr().cast_const(), dst, kept) };
    }
    // SAFETY: `struct_size` is a `usize` at offset 0 of `T` (`Versioned`), inside `out`.
    unsafe { dst.cast::<usize>().write_unaligned(kept) };
    for member in T::MEMBERS
        .iter()
        .filter(|member| member.deprecated.is_some())
    {
        if member.kind != MemberKind::Header {
            // SAFETY: the member lies within `T` (`Versioned`), so within `out`.
            unsafe { dst.wrapping_add(member.offset).write_bytes(0, member.size) };
        }
    }
    // SAFETY: `out` started all-zero, which is valid for every member (`AbiMember`), and every
    // member's bytes were then overwritten with bytes of the same member from the producer, also
    // valid for any bit pattern.
    Ok(unsafe { out.assume_init() })
}

/// Writes `value` to `dst` as a producer does: exactly `value`'s `struct_size` bytes (for a value
/// made with `T::new()`, `T::STRUCT_SIZE`, which may be less than `size_of::<T>()`), zero-filled
/// first, then every live member the size reaches; deprecated members stay zero.
///
/// # Safety
///
/// `dst` must be writable for `value`'s `struct_size` bytes (see
/// [`View::struct_size`] of [`View::of`]) and must not overlap `value`.
pub unsafe fn write_to<T: Versioned>(value: &T, dst: NonNull<u8>) {
    let struct_size = View::of(value).struct_size();
    let src = core::ptr::from_ref(value).cast::<u8>();
    let dst = dst.as_ptr();
    // SAFETY: the caller vouches for `struct_size` writable bytes at `dst`.
    unsafe { dst.write_bytes(0, struct_size) };
    for member in T::MEMBERS {
        let live = member.deprecated.is_none() || member.kind == MemberKind::Header;
        if live && member.end() <= struct_size {
            // SAFETY: the member lies within `value` (`Versioned`) and within the
            // `struct_size` writable bytes at `dst`; the two do not overlap (caller). Members are
            // initialized (they are `AbiMember` fields of a live value), unlike padding, which
            // is never copied.
            unsafe {
                core::ptr::copy_nonoverlapping(
                    src.wrapping_add(member.offset),
                    dst.wrapping_add(member.offset),
                    member.size,
                );
            }
        }
    }
    // SAFETY: `struct_size` (a `usize` at offset 0) is within the writable bytes, which are at
    // least version 1's size.
    unsafe { dst.cast::<usize>().write_unaligned(struct_size) };
}

/// Writes `value` into `field`'s place in `target`, extending `target`'s `struct_size` to cover it.
pub fn set<T: Versioned, F: crate::AbiMember, K: crate::Kind<F>>(
    target: &mut T,
    field: crate::Field<T, F, K>,
    value: F,
) {
    let base = core::ptr::from_mut(target).cast::<u8>();
    let end = field.offset() + size_of::<F>();
    // SAFETY: `field` names a member of type `F` at that offset inside `T` (only
    // `versioned_struct!` makes `Field`s), and `target` is a live, exclusively borrowed `T`.
    unsafe {
        base.wrapping_add(field.offset())
            .cast::<F>()
            .write_unaligned(value)
    };
    let size_at = base.cast::<usize>();
    // SAFETY: `struct_size` is the `usize` at offset 0 of `T`, inside `target`.
    let current = unsafe { size_at.read() };
    if current < end {
        // SAFETY: as above.
        unsafe { size_at.write(end) };
    }
}

/// Writes `value` into `out` as a producer does (see [`write_to`]), returning how many bytes
/// that is: `value`'s `struct_size`. A buffer shorter than that is [`Error::Truncated`].
pub fn write_to_bytes<T: Versioned>(value: &T, out: &mut [u8]) -> Result<usize, Error> {
    let struct_size = View::of(value).struct_size();
    if out.len() < struct_size {
        return Err(Error::Truncated {
            name: T::NAME,
            claimed: struct_size,
            available: out.len(),
        });
    }
    // SAFETY: `out` is writable for at least `struct_size` bytes and, being a unique borrow,
    // cannot overlap `value`.
    unsafe { write_to(value, NonNull::from(out).cast::<u8>()) };
    Ok(struct_size)
}
