//! What a member of a versioned struct may be, and how it is read.
//!
//! A member's type must be valid for every bit pattern ([`AbiMember`]): a foreign producer may put
//! anything in it, and a versioned copy zero-fills what an older producer did not have. Each member
//! is also declared with a [`Kind`]: [`Value`] members are meaningful whatever they hold, while
//! [`NonZero`] members use 0 / `NULL` for "not set" (the RFC's "NULL is no-op" / "0 is no-op"
//! comments), so their checked read yields `None` for zero as well as for a member the producer's
//! struct does not reach.

use core::marker::PhantomData;

use crate::shape::{CType, Shape};
use crate::version::Version;

/// A type that may be a member of a versioned C struct.
///
/// Implemented for the integers, `f32` and `f64`, raw pointers to a [`CType`], and
/// `Option<unsafe extern "C" fn(..) -> R>` (up to nine arguments, each a [`CType`]), the C
/// function pointers of a C API as bindgen writes them. Every member also has a
/// [`CType`] shape, recorded in the member table for `cargo xtask abi-check`. Safe
/// `extern "C" fn` pointers are not members: one read from a producer's bytes (which
/// [`copy_from_bytes`](crate::copy_from_bytes) takes from safe code) could then be called from
/// safe code.
///
/// # Safety
///
/// Implementors promise that the type is `#[repr(C)]`-compatible, has no padding and no drop glue,
/// and that **every** initialized bit pattern of its size (including all zeros) is a valid value
/// that safe code may use: a member is read from whatever bytes a foreign producer wrote.
/// Alignment above 8 bytes is rejected by the layout lock of
/// [`versioned_struct!`](crate::versioned_struct), not by this trait.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a member of a versioned struct",
    label = "not an `AbiMember`",
    note = "members are integers, raw pointers, `Option<unsafe extern \"C\" fn(..)>`, or types that implement `se_abi::AbiMember`: valid, and safe to use, for every bit pattern a foreign producer may write"
)]
pub unsafe trait AbiMember: CType + Copy + 'static {}

macro_rules! abi_member_ints {
    ($($t:ty),*) => {$(
        // SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit
        // pattern valid and safe. An integer's size is its alignment's multiple with no padding
        // (see <https://doc.rust-lang.org/reference/type-layout.html#r-layout.primitive.size>),
        // it has no drop glue, and initialization is its only validity requirement (see
        // <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.scalar>).
        unsafe impl AbiMember for $t {}

        impl NonZeroMember for $t {
            type Out = $t;
            fn non_zero(self) -> Option<$t> {
                if self == 0 { None } else { Some(self) }
            }
        }
    )*};
}
abi_member_ints!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

macro_rules! abi_member_floats {
    ($($t:ty),*) => {$(
        // SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit
        // pattern valid and safe. A float is its size with no padding, has no drop glue, and
        // every bit pattern is a valid value, NaNs included (see
        // <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.scalar>).
        unsafe impl AbiMember for $t {}
    )*};
}
abi_member_floats!(f32, f64);

// SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit pattern valid
// and safe. A raw pointer to a `Sized` `T` is thin, one `usize` with no padding (see
// <https://doc.rust-lang.org/reference/type-layout.html#r-layout.pointer.thin>); like an integer,
// it is valid when initialized (see
// <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.scalar>),
// dangling or null included, and only `unsafe` code can dereference it.
unsafe impl<T: CType> AbiMember for *const T {}
// SAFETY: as for `*const T`.
unsafe impl<T: CType> AbiMember for *mut T {}

macro_rules! abi_member_fns {
    ($(($($arg:ident),*)),*) => {$(
        // SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit
        // pattern valid and safe. `Option<unsafe extern "C" fn>` has the size and alignment of a
        // function pointer, and all-zero is `None` (see
        // <https://doc.rust-lang.org/core/option/index.html#representation>). Any other bit
        // pattern is `Some` of a non-null function pointer, which is a valid value (non-null is
        // a fn pointer's only validity requirement:
        // <https://doc.rust-lang.org/reference/behavior-considered-undefined.html#r-undefined.validity.fn-pointer>),
        // and calling an `unsafe fn` pointer is an `unsafe` act whose caller vouches for it.
        unsafe impl<R: CType, $($arg: CType),*> AbiMember for Option<unsafe extern "C" fn($($arg),*) -> R> {}
        impl<R: CType, $($arg: CType),*> NonZeroMember for Option<unsafe extern "C" fn($($arg),*) -> R> {
            type Out = unsafe extern "C" fn($($arg),*) -> R;
            fn non_zero(self) -> Option<Self::Out> { self }
        }
    )*};
}
abi_member_fns!(
    (),
    (A),
    (A, B),
    (A, B, C),
    (A, B, C, D),
    (A, B, C, D, E),
    (A, B, C, D, E, G),
    (A, B, C, D, E, G, H),
    (A, B, C, D, E, G, H, I)
);

/// A member type for which zero / `NULL` means "not set".
pub trait NonZeroMember: AbiMember {
    /// What a set member reads as (a function pointer member reads as the bare function pointer).
    type Out;
    /// `None` for zero / `NULL`.
    fn non_zero(self) -> Option<Self::Out>;
}

impl<T: CType> NonZeroMember for *const T {
    type Out = *const T;
    fn non_zero(self) -> Option<*const T> {
        if self.is_null() { None } else { Some(self) }
    }
}

impl<T: CType> NonZeroMember for *mut T {
    type Out = *mut T;
    fn non_zero(self) -> Option<*mut T> {
        if self.is_null() { None } else { Some(self) }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::Value {}
    impl Sealed for super::NonZero {}
}

/// How a member's checked read treats what it finds. Implemented by [`Value`] and [`NonZero`].
pub trait Kind<F: AbiMember>: sealed::Sealed {
    /// What the checked read yields.
    type Out;
    /// Which kind this is, for the member table.
    const KIND: MemberKind;
    /// Turns a read value into the checked read's answer.
    fn accept(value: F) -> Option<Self::Out>;
}

/// Marker for members whose every value is meaningful, 0 included.
#[derive(Debug)]
pub enum Value {}

/// Marker for members where 0 / `NULL` means "not set" and is validated away: pointers and
/// function pointers in the C API ("NULL is no-op"). Deprecating such a member by
/// zero-initialization is backwards compatible.
#[derive(Debug)]
pub enum NonZero {}

impl<F: AbiMember> Kind<F> for Value {
    type Out = F;
    const KIND: MemberKind = MemberKind::Value;
    #[inline(always)]
    fn accept(value: F) -> Option<F> {
        Some(value)
    }
}

impl<F: NonZeroMember> Kind<F> for NonZero {
    type Out = F::Out;
    const KIND: MemberKind = MemberKind::NonZero;
    #[inline(always)]
    fn accept(value: F) -> Option<F::Out> {
        value.non_zero()
    }
}

/// [`Value`] or [`NonZero`], as data.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemberKind {
    /// The header's `struct_size`.
    Header,
    /// The reserved `next` pointer after it: always written NULL, never read, never relayed.
    Reserved,
    /// See [`Value`].
    Value,
    /// See [`NonZero`].
    NonZero,
}

/// One row of a struct's member table: where a member lives and when it came and went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Member {
    /// The member's name.
    pub name: &'static str,
    /// The member's type as declared (`stringify!` of it, e.g. `*mut c_void`): recorded in the
    /// layout snapshots of `cargo xtask abi-check`, which catch a same-size type change that the
    /// layout lock cannot see.
    pub ty: &'static str,
    /// Byte offset (`offsetof`).
    pub offset: usize,
    /// Size in bytes (`sizeof` of the member's type).
    pub size: usize,
    /// Alignment of the member's type.
    pub align: usize,
    /// The version that added it (the header's two members exist from version 1).
    pub since: Version,
    /// The version that deprecated it, if any. A deprecated member keeps its place and is no
    /// longer read; it is zero unless a producer keeps setting it ([`Deprecated`]).
    pub deprecated: Option<Version>,
    /// How a checked read treats it.
    pub kind: MemberKind,
    /// What its type is at the ABI, through every alias: recorded in the layout snapshots of
    /// `cargo xtask abi-check`, which catch a same-size change of it (`u8` to `i8`, an enum's
    /// `c_int` to `c_uint`) even when the declared type's text is unchanged.
    pub shape: Shape,
}

impl Member {
    /// `offsetof + sizeof`: where the member ends.
    pub const fn end(&self) -> usize {
        self.offset + self.size
    }

    /// Whether a producer of `struct_size` bytes has this member: the RFC's
    /// `struct_size > offsetof(member)` rule.
    pub const fn reached_by(&self, struct_size: usize) -> bool {
        struct_size > self.offset
    }

    /// The two header members a versioned struct starts with by default: `struct_size` and the
    /// reserved `next` pointer.
    pub const HEADER: [Member; 2] = [
        Member {
            name: "struct_size",
            ty: "usize",
            offset: 0,
            size: size_of::<usize>(),
            align: align_of::<usize>(),
            since: Version::FIRST,
            deprecated: None,
            kind: MemberKind::Header,
            shape: usize::SHAPE,
        },
        Member {
            name: "next",
            ty: "*mut c_void",
            offset: size_of::<usize>(),
            size: size_of::<*mut core::ffi::c_void>(),
            align: align_of::<*mut core::ffi::c_void>(),
            since: Version::FIRST,
            deprecated: None,
            kind: MemberKind::Reserved,
            shape: <*mut core::ffi::c_void>::SHAPE,
        },
    ];

    /// The pointer after `struct_size` in a struct declared with `header = ext`: free-form data
    /// of the producer (TensorFlow's `ext` in `SP_Platform` and `SP_Device`, "free-form data set
    /// by plugin"), read and written like any [`Value`] member.
    pub const EXT: Member = Member {
        name: "ext",
        kind: MemberKind::Value,
        ..Member::HEADER[1]
    };
}

/// `fn() -> (T, F, K)`: ties a [`Field`] to its types without owning them (so `Field` is always
/// `Copy`, `Send` and `Sync`).
type FieldTypes<T, F, K> = fn() -> (T, F, K);

/// A typed handle on one live (not deprecated) member of struct `T`: its type `F`, its [`Kind`]
/// `K` and its offset. Declared by [`versioned_struct!`](crate::versioned_struct) as an associated
/// constant named like the member (`SE_Device::name`); the only way to read or write a member.
pub struct Field<T, F, K> {
    offset: usize,
    name: &'static str,
    _types: PhantomData<FieldTypes<T, F, K>>,
}

impl<T, F, K> Clone for Field<T, F, K> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, F, K> Copy for Field<T, F, K> {}

impl<T, F, K> core::fmt::Debug for Field<T, F, K> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Field")
            .field("name", &self.name)
            .field("offset", &self.offset)
            .finish()
    }
}

impl<T, F: AbiMember, K: Kind<F>> Field<T, F, K> {
    /// A handle on the member `name` of type `F` at `offset` in `T`.
    ///
    /// # Safety
    ///
    /// `T` must have a field of type exactly `F` at byte `offset`, ending at or before
    /// `T::STRUCT_SIZE`: [`View::get`](crate::View::get) reads an `F` there.
    pub(crate) const unsafe fn new_unchecked(offset: usize, name: &'static str) -> Self {
        Field {
            offset,
            name,
            _types: PhantomData,
        }
    }

    /// The member's byte offset.
    pub const fn offset(self) -> usize {
        self.offset
    }

    /// The member's name.
    pub const fn name(self) -> &'static str {
        self.name
    }
}

/// A write-only handle on a **deprecated** member of struct `T`, of type `F`: the seed's
/// forward-compatibility rule for producers.
///
/// [`versioned_struct!`](crate::versioned_struct) declares one for each member marked
/// `deprecated N`, as an associated constant named like the member (`SE_Device::data`). It is not a
/// [`Field`], so no checked read accepts it: code built against the version that deprecated the
/// member still cannot read it. It serves one call, the generated `set_deprecated`, with which a
/// producer **keeps setting** the member for older consumers:
///
/// ```
/// se_abi::versioned_struct! {
///     /// Version 4: `data` deprecated.
///     #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40, 40])]
///     pub struct Dev {
///         ordinal: u64 = value(since 1, at 16..24),
///         handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
///         data: *mut core::ffi::c_void = nonzero(since 3, deprecated 4, at 32..40),
///     }
/// }
///
/// let mut dev = Dev::new();
/// dev.set_deprecated(Dev::data, std::ptr::without_provenance_mut(0x40));
/// let mut wire = [0u8; 40];
/// se_abi::write_new_bytes(&dev, &mut wire)?;
/// assert_eq!(&wire[32..40], &0x40usize.to_ne_bytes()); // written for an older host
/// # Ok::<(), se_abi::Error>(())
/// ```
///
/// # Why, and when to stop
///
/// Deprecating a member zero-fills it from then on. A consumer built before the deprecation
/// that *validates* the member (`NULL is no-op`, a [`NonZero`] member) ignores the zero; one that
/// reads it without validating (TensorFlow's RFC: "Will crash on null pointer dereference") does
/// not. A producer that must still serve such consumers keeps setting the member, as the RFC
/// recommends, at the cost of keeping the deprecated implementation alive.
///
/// Stop, and let the member be zero, once **no consumer version you still support reads the
/// member without validating it**: every supported consumer either predates the member (its
/// `struct_size` checks never reach it), or deprecated it too (never reads it), or validates it.
/// A member whose zero is a meaningful value (a [`Value`] member) changes meaning when it is
/// zeroed, so keep setting it until no supported consumer reads it at all.
pub struct Deprecated<T, F> {
    /// Where the member lives; kept private, so that no read can be given it.
    place: Field<T, F, Value>,
}

impl<T, F> Clone for Deprecated<T, F> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, F> Copy for Deprecated<T, F> {}

impl<T, F> core::fmt::Debug for Deprecated<T, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_tuple("Deprecated").field(&self.place).finish()
    }
}

impl<T, F: AbiMember> Deprecated<T, F> {
    /// A handle on the deprecated member `name` of type `F` at `offset` in `T`.
    ///
    /// # Safety
    ///
    /// As for [`Field::new_unchecked`]: `T` must have a field of type exactly `F` at byte
    /// `offset`, ending at or before `T::STRUCT_SIZE`.
    pub(crate) const unsafe fn new_unchecked(offset: usize, name: &'static str) -> Self {
        Deprecated {
            // SAFETY: `Field::new_unchecked` has the same contract, forwarded from the caller.
            place: unsafe { Field::new_unchecked(offset, name) },
        }
    }

    /// The member's byte offset.
    pub const fn offset(self) -> usize {
        self.place.offset()
    }

    /// The member's name.
    pub const fn name(self) -> &'static str {
        self.place.name()
    }
}
