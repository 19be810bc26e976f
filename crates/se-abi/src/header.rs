//! The header every versioned struct starts with: `size_t struct_size`, then the reserved
//! `void* next`.
//!
//! `struct_size` is the one member read before anything is known about the producer, so it is
//! read and validated here, below both ways of reading the rest: [`View`](crate::View) and the
//! versioned copies of [`copy`](crate::copy_from_ptr).

use core::ptr::NonNull;

use crate::error::Error;
use crate::layout::{MAX_STRUCT_SIZE, Versioned};

/// Reads the `struct_size` a foreign producer claims at `ptr` and validates it for `T`: the
/// struct's base address and its size, ready for a view or a copy.
///
/// # Safety
///
/// `ptr` must be null (refused) or valid for reads of the `usize` at its offset 0; it need not
/// be aligned.
pub(crate) unsafe fn read_foreign<T: Versioned>(
    ptr: *const T,
) -> Result<(NonNull<u8>, usize), Error> {
    let Some(base) = NonNull::new(ptr.cast_mut().cast::<u8>()) else {
        return Err(Error::NullStruct { name: T::NAME });
    };
    // SAFETY: `NonNull::read_unaligned` requires `src` to be valid for reads of a `usize` and to
    // point to an initialized `usize`, with no alignment requirement (see
    // <https://doc.rust-lang.org/core/ptr/fn.read_unaligned.html#safety>). The caller vouches
    // that the `struct_size` field, the `usize` at offset 0, is readable; a C producer
    // initializes it (`SE_Device{SE_DEVICE_STRUCT_SIZE}`), and any initialized `usize` is valid.
    let struct_size = unsafe { base.cast::<usize>().read_unaligned() };
    validate::<T>(struct_size)?;
    Ok((base, struct_size))
}

/// The `struct_size` an owned `T` carries, never more than this build's size whatever the field
/// says (so it never claims more memory than `value` has).
#[inline(always)]
pub(crate) fn of_owned<T: Versioned>(value: &T) -> usize {
    let base = core::ptr::from_ref(value).cast::<usize>();
    // SAFETY: `ptr::read` requires `src` to be valid for reads, properly aligned, and to point to
    // an initialized `usize` (see <https://doc.rust-lang.org/core/ptr/fn.read.html#safety>).
    // `Versioned` puts `struct_size: usize` at offset 0 of the `#[repr(C)]` `T`, whose alignment
    // is therefore at least `usize`'s (see
    // <https://doc.rust-lang.org/reference/type-layout.html#reprc-structs>); `value` is a live,
    // aligned, initialized `T` borrowed for the whole read.
    let claimed = unsafe { base.read() };
    claimed.min(T::STRUCT_SIZE)
}

/// Validates a producer's `struct_size` for `T` before anything past it is read.
///
/// 0 is TensorFlow's "Expected initialized ..." error; a size below version 1's, above
/// [`MAX_STRUCT_SIZE`] or ending inside a member this build knows is refused with a typed
/// [`Error`]. A size that passes never cuts a member of `T` in two, so every member a view or a
/// copy reads lies wholly inside the producer's bytes or wholly outside them.
pub(crate) fn validate<T: Versioned>(struct_size: usize) -> Result<(), Error> {
    if struct_size == 0 {
        return Err(Error::Uninitialized {
            name: T::NAME,
            size_name: T::SIZE_NAME,
        });
    }
    if struct_size > MAX_STRUCT_SIZE {
        return Err(Error::Oversized {
            name: T::NAME,
            found: struct_size,
            limit: MAX_STRUCT_SIZE,
        });
    }
    if T::INCOMPATIBLE.contains(&struct_size) {
        return Err(Error::IncompatibleLayout {
            name: T::NAME,
            found: struct_size,
        });
    }
    let minimum = T::SIZES.first().copied().unwrap_or(T::STRUCT_SIZE);
    if struct_size < minimum {
        return Err(Error::TooSmall {
            name: T::NAME,
            found: struct_size,
            minimum,
        });
    }
    // A version's own size, or a size past every member of this build, cuts no member.
    if struct_size > T::STRUCT_SIZE || T::SIZES.contains(&struct_size) {
        return Ok(());
    }
    if let Some(member) = T::MEMBERS
        .iter()
        .find(|member| member.offset < struct_size && struct_size < member.end())
    {
        return Err(Error::Torn {
            name: T::NAME,
            found: struct_size,
            member: member.name,
            offset: member.offset,
            end: member.end(),
        });
    }
    Ok(())
}
