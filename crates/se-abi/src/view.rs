//! Reading a struct whose producer may have been built against another version of the header.
//!
//! A foreign producer's struct may be *shorter* than this build's type, so [`View`] never forms a
//! Rust reference to the whole struct: it keeps a raw base pointer and the producer's
//! `struct_size`, and reads one member at a time, only when `struct_size > offsetof(member)`.

use core::marker::PhantomData;
use core::ptr::NonNull;

use crate::copy::{CopyOptions, copy_raw};
use crate::error::Error;
use crate::header;
use crate::layout::{ProducerVersion, Versioned};
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
        View {
            base: NonNull::from(value).cast::<u8>(),
            // Never more than the memory behind `value`, whatever the field says.
            struct_size: header::of_owned(value),
            _borrow: PhantomData,
        }
    }

    /// A view of a struct a foreign producer handed over.
    ///
    /// The producer's `struct_size` is validated first: 0 gives TensorFlow's "Expected initialized
    /// ..." error, and a size below version 1's, above [`MAX_STRUCT_SIZE`](crate::MAX_STRUCT_SIZE)
    /// or ending inside a member this build knows is refused with a typed [`Error`].
    ///
    /// # Safety
    ///
    /// `ptr` must be null (refused), or valid for reads for `'a` of the `struct_size` field (the
    /// `usize` at offset 0) and then of as many bytes as that field says, and nothing may write
    /// those bytes during `'a`. Those bytes must be initialized, except padding between the
    /// members of `T`: a C producer that zero-fills its struct, as TensorFlow's
    /// `SE_Device device{SE_DEVICE_STRUCT_SIZE}` does, meets this. (A newer producer's bytes past
    /// this build's size are read, as bytes, by [`View::versioned_copy`] with
    /// [`Tail::MustBeZero`](crate::Tail::MustBeZero).) The memory need not be aligned nor as long as `T`.
    pub unsafe fn from_ptr(ptr: *const T) -> Result<View<'a, T>, Error> {
        // SAFETY: `read_foreign` needs `ptr` null or valid for reads of an initialized
        // `struct_size` field: part of this function's contract.
        let (base, struct_size) = unsafe { header::read_foreign(ptr) }?;
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
            // SAFETY: `ptr::read_unaligned` requires `src` valid for reads of an `F` and pointing
            // to an initialized, valid `F`, with no alignment requirement (see
            // <https://doc.rust-lang.org/core/ptr/fn.read_unaligned.html#safety>). `field` names
            // a member of `T` of type `F` at that offset (only `versioned_struct!` makes
            // `Field`s, from `offset_of!`). The producer's struct reaches it, and its
            // `struct_size` cuts no member of `T` (validated by `from_ptr`, or clamped to the
            // owned value by `of`), so the whole member lies within the bytes the view may read,
            // where members are initialized (`from_ptr`'s contract; a live `T` for `of`). `F` is
            // an `AbiMember`: every initialized bit pattern is a valid `F`.
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
    /// [`copy_from_ptr`](crate::copy_from_ptr)): `options` is a [`Tail`](crate::Tail) or
    /// [`CopyOptions`].
    pub fn versioned_copy(&self, options: impl Into<CopyOptions>) -> Result<T, Error> {
        // SAFETY: `copy_raw` needs `struct_size` bytes at `base`, readable, unchanged during the
        // call, initialized for every member and, with `Tail::MustBeZero`, past `T::STRUCT_SIZE`,
        // and a validated size: the view's invariant, which `from_ptr`'s contract (or, for `of`,
        // the borrow of a live `T`, whose size is clamped to `T::STRUCT_SIZE`) upholds for `'a`.
        unsafe { copy_raw::<T>(self.base, self.struct_size, options.into()) }
    }
}
