//! Reading a struct whose producer may have been built against another version of the header.
//!
//! A foreign producer's struct may be *shorter* than this build's type, so [`View`] never forms a
//! Rust reference to the whole struct: it keeps a raw base pointer and the producer's
//! `struct_size`, and reads one member at a time, only when `struct_size > offsetof(member)`.

use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::copy::{Tail, copy_raw};
use crate::error::Error;
use crate::layout::{MAX_STRUCT_SIZE, ProducerVersion, Versioned};
use crate::member::{AbiMember, Field, Kind};

/// A read-only view of a `T` as its producer wrote it: a base pointer and the producer's
/// `struct_size`. Every read goes through [`View::get`], which checks the member against the
/// producer's size first.
pub struct View<'a, T> {
    base: NonNull<u8>,
    struct_size: usize,
    _borrow: PhantomData<&'a T>,
}

impl<T> Clone for View<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for View<'_, T> {}

impl<T: Versioned> core::fmt::Debug for View<'_, T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("View")
            .field("struct", &T::NAME)
            .field("struct_size", &self.struct_size)
            .finish()
    }
}

impl<'a, T: Versioned> View<'a, T> {
    /// A view of a Rust-owned value (one built with `T::new()` or a versioned copy).
    #[inline(always)]
    pub fn of(value: &'a T) -> View<'a, T> {
        let base = NonNull::from(value).cast::<u8>();
        // SAFETY: `Versioned` puts `struct_size: usize` at offset 0 of `T`, and `value` is a live,
        // aligned `T`.
        let claimed = unsafe { base.cast::<usize>().read() };
        View {
            base,
            // Never more than the memory behind `value`, whatever the field says.
            struct_size: claimed.min(T::STRUCT_SIZE),
            _borrow: PhantomData,
        }
    }

    /// A view of a struct a foreign producer handed over.
    ///
    /// The producer's `struct_size` is validated first: 0 gives TensorFlow's "Expected initialized
    /// ..." error, and a size below version 1's, above [`MAX_STRUCT_SIZE`] or ending inside a
    /// member this build knows is refused with a typed [`Error`].
    ///
    /// # Safety
    ///
    /// `ptr` must be null (refused) or point to memory that stays readable and unmodified for
    /// `'a`: at least the `struct_size` field, and then as many bytes as that field says. The
    /// memory need not be aligned nor as long as `T`.
    pub unsafe fn from_ptr(ptr: *const T) -> Result<View<'a, T>, Error> {
        let Some(base) = NonNull::new(ptr.cast_mut().cast::<u8>()) else {
            return Err(Error::NullStruct { name: T::NAME });
        };
        // SAFETY: the caller guarantees the `struct_size` field (a `usize` at offset 0) is
        // readable; `read_unaligned` needs no alignment.
        let struct_size = unsafe { base.cast::<usize>().read_unaligned() };
        // SAFETY: forwarded from the caller: `struct_size` bytes are readable for `'a`.
        unsafe { View::from_raw_parts(base, struct_size) }
    }

    /// A view of `struct_size` bytes at `base`, after validating the size.
    ///
    /// # Safety
    ///
    /// `base` must be readable for `struct_size` bytes for `'a` (only once the size is valid).
    pub(crate) unsafe fn from_raw_parts(
        base: NonNull<u8>,
        struct_size: usize,
    ) -> Result<View<'a, T>, Error> {
        check_struct_size::<T>(struct_size)?;
        Ok(View {
            base,
            struct_size,
            _borrow: PhantomData,
        })
    }

    /// The producer's `struct_size`.
    #[inline]
    pub fn struct_size(&self) -> usize {
        self.struct_size
    }

    /// Which version of the header the producer was built with, as far as its size tells.
    pub fn producer_version(&self) -> Option<ProducerVersion> {
        T::producer_version(self.struct_size)
    }

    /// Whether the producer's struct reaches `field` (`struct_size > offsetof(field)`).
    #[inline(always)]
    pub fn has<F: AbiMember, K: Kind<F>>(&self, field: Field<T, F, K>) -> bool {
        self.struct_size > field.offset()
    }

    /// The checked read: `None` unless the producer's struct reaches the member, and, for a
    /// [`NonZero`](crate::NonZero) member, `None` for zero / `NULL` as well.
    #[inline(always)]
    pub fn get<F: AbiMember, K: Kind<F>>(&self, field: Field<T, F, K>) -> Option<K::Out> {
        if self.struct_size > field.offset() {
            let at = self.base.as_ptr().wrapping_add(field.offset()).cast::<F>();
            // SAFETY: `field` is a member of `T` at that offset with type `F` (only
            // `versioned_struct!` makes `Field`s). The producer's struct reaches it, and since
            // the size was validated not to end inside any member of `T` (or is clamped to the
            // owned value), the whole member lies within the readable bytes. `F` is an
            // `AbiMember`, valid for any bit pattern; `read_unaligned` needs no alignment.
            let value = unsafe { at.read_unaligned() };
            K::accept(value)
        } else {
            None
        }
    }

    /// Like [`View::get`], but an absent or unset member is TensorFlow's
    /// "'member' field in Struct must be set." error.
    pub fn require<F: AbiMember, K: Kind<F>>(
        &self,
        field: Field<T, F, K>,
    ) -> Result<K::Out, Error> {
        self.get(field).ok_or(Error::MemberNotSet {
            name: T::NAME,
            member: field.name(),
        })
    }

    /// A versioned copy of the viewed struct into an owned `T` of this build (see
    /// [`copy_from_ptr`](crate::copy_from_ptr)).
    pub fn versioned_copy(&self, tail: Tail) -> Result<T, Error> {
        // SAFETY: the view's invariant: `struct_size` bytes at `base` are readable for `'a`.
        unsafe { copy_raw::<T>(self.base, self.struct_size, tail) }
    }
}

/// Validates a producer's `struct_size` for `T` before anything past it is read.
pub(crate) fn check_struct_size<T: Versioned>(struct_size: usize) -> Result<(), Error> {
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
