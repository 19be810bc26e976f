//! What the expansions of [`versioned_struct!`](crate::versioned_struct) and
//! [`offset_of_end!`](crate::offset_of_end) call, in the user's crate. Public only because macro
//! expansions must reach it (as `se_abi::__private`); hidden from the docs and outside the semver
//! promise. Nothing here is a second path to a public item.
//!
//! The layout lock's compile-time checks are `const fn`s here, so that the macro stays a list of
//! assertions, each with its own message.

use crate::layout::{Versioned, struct_size_at};
use crate::member::{AbiMember, Deprecated, Field, Kind, Member};
use crate::version::Version;

/// Size of the field a projection closure points at (for `offset_of_end!`).
pub const fn field_size<T, F>(_project: fn(&T) -> &F) -> usize {
    size_of::<F>()
}

/// A bound check: fails to compile unless `F` is an [`AbiMember`].
pub const fn assert_member<F: AbiMember>() {}

/// The all-zero value of a versioned struct: `new()` starts from it.
pub const fn zeroed<T: Versioned>() -> T {
    // SAFETY: `mem::zeroed` is sound only for a type whose all-zero bit pattern is a valid value
    // (see <https://doc.rust-lang.org/core/mem/fn.zeroed.html>); `Versioned` promises exactly that
    // for `T`: every field is an `AbiMember`, valid when all-zero.
    unsafe { core::mem::zeroed() }
}

/// The handle on the member `name` of type `F` at `offset` in `T`.
///
/// # Safety
///
/// `T` must have a field of type exactly `F` at byte `offset`, ending at or before
/// `T::STRUCT_SIZE`. `versioned_struct!` calls this with `core::mem::offset_of!` on the field it
/// declared with that type; nothing else should.
pub const unsafe fn field<T, F: AbiMember, K: Kind<F>>(
    offset: usize,
    name: &'static str,
) -> Field<T, F, K> {
    // SAFETY: `Field::new_unchecked` has the same contract, forwarded from the caller.
    unsafe { Field::new_unchecked(offset, name) }
}

/// The write-only handle on the deprecated member `name` of type `F` at `offset` in `T`.
///
/// # Safety
///
/// As for [`field`]: `T` must have a field of type exactly `F` at byte `offset`, ending at or
/// before `T::STRUCT_SIZE`; `versioned_struct!` calls this with `core::mem::offset_of!`.
pub const unsafe fn deprecated<T, F: AbiMember>(
    offset: usize,
    name: &'static str,
) -> Deprecated<T, F> {
    // SAFETY: `Deprecated::new_unchecked` has the same contract, forwarded from the caller.
    unsafe { Deprecated::new_unchecked(offset, name) }
}

/// Writes `value` into `field`'s place in `target`, extending `target`'s `struct_size` to cover it
/// (the generated `set`).
pub fn set<T: Versioned, F: AbiMember, K: Kind<F>>(
    target: &mut T,
    field: Field<T, F, K>,
    value: F,
) {
    // SAFETY: `set_at` requires a member of type `F` at that offset of `T`: only
    // `versioned_struct!` makes `Field`s, from `offset_of!` on a field of type `F`.
    unsafe { set_at(target, field.offset(), value) }
}

/// Writes `value` into a deprecated member's place in `target`, extending `target`'s
/// `struct_size` to cover it (the generated `set_deprecated`).
pub fn set_deprecated<T: Versioned, F: AbiMember>(
    target: &mut T,
    member: Deprecated<T, F>,
    value: F,
) {
    // SAFETY: `set_at` requires a member of type `F` at that offset of `T`: only
    // `versioned_struct!` makes `Deprecated` handles, from `offset_of!` on a field of type `F`.
    unsafe { set_at(target, member.offset(), value) }
}

/// Writes `value` at `offset` in `target` and extends its `struct_size` to cover it.
///
/// # Safety
///
/// `T` must have a field of type exactly `F` at byte `offset`.
unsafe fn set_at<T: Versioned, F: AbiMember>(target: &mut T, offset: usize, value: F) {
    let base = core::ptr::from_mut(target).cast::<u8>();
    let end = offset + size_of::<F>();
    // SAFETY: `ptr::write_unaligned` requires `dst` valid for writes of an `F`, with no alignment
    // requirement (see <https://doc.rust-lang.org/core/ptr/fn.write_unaligned.html#safety>).
    // The caller vouches for a member of `T` of type `F` at that offset, and `target` is a live
    // `T`, exclusively borrowed, so the member's bytes are writable through `base`. An `F`
    // written over an `F` keeps `T` valid.
    unsafe { base.wrapping_add(offset).cast::<F>().write_unaligned(value) };
    let size_at = base.cast::<usize>();
    // SAFETY: `ptr::read` requires `src` valid for reads, aligned, and pointing to an initialized
    // `usize` (see <https://doc.rust-lang.org/core/ptr/fn.read.html#safety>). `Versioned` puts
    // `struct_size: usize` at offset 0 of the `#[repr(C)]` `T`, so it is aligned as `T` is (see
    // <https://doc.rust-lang.org/reference/type-layout.html#reprc-structs>), inside the live,
    // exclusively borrowed `target`.
    let current = unsafe { size_at.read() };
    if current < end {
        // SAFETY: `ptr::write` requires `dst` valid for writes and aligned (see
        // <https://doc.rust-lang.org/core/ptr/fn.write.html#safety>): the same field as above.
        unsafe { size_at.write(end) };
    }
}

/// Whether every member placed before `offset` was added no later than `since`.
pub const fn appended_in_order(members: &[Member], offset: usize, since: u16) -> bool {
    let mut i = 0;
    while i < members.len() {
        if members[i].offset < offset && members[i].since.get() > since {
            return false;
        }
        i += 1;
    }
    true
}

/// Whether the sizes computed from the members equal the locked sizes, version by version.
pub const fn sizes_match(members: &[Member], locked: &[usize]) -> bool {
    let mut v = 0;
    while v < locked.len() {
        if struct_size_at(members, build_version(v + 1)) != locked[v] {
            return false;
        }
        v += 1;
    }
    true
}

/// The version a literal number names; fails the build for 0 or a number past `u16::MAX`.
pub const fn version(n: u64) -> Version {
    if n > u16::MAX as u64 {
        panic!("se-abi: a version number must fit in u16");
    }
    match Version::new(n as u16) {
        Some(v) => v,
        None => panic!("se-abi: versions start at 1"),
    }
}

/// The version of a build with `count` locked sizes.
pub const fn build_version(count: usize) -> Version {
    version(count as u64)
}

/// Whether `sizes` holds `size` (a `const` `contains`).
pub const fn contains(sizes: &[usize], size: usize) -> bool {
    let mut i = 0;
    while i < sizes.len() {
        if sizes[i] == size {
            return true;
        }
        i += 1;
    }
    false
}

/// The parts of [`versioned_struct!`](crate::versioned_struct)'s expansion that depend on a
/// member's optional parts (its kind, its deprecation) or on the struct's header, one rule per
/// part.
#[doc(hidden)]
#[macro_export]
macro_rules! __versioned_struct_support {
    // The header: which fields follow `struct_size`, and their rows in the member table.
    (@header [] $($rest:tt)*) => {
        $crate::__versioned_struct_support! { @header [next] $($rest)* }
    };
    (@header [next] $($rest:tt)*) => {
        $crate::__versioned_struct_impl! {
            header = next,
            header_fields = [next: *mut ::core::ffi::c_void],
            header_rows = [$crate::Member::HEADER[1]],
            $($rest)*
        }
    };
    (@header [ext] $($rest:tt)*) => {
        $crate::__versioned_struct_impl! {
            header = ext,
            header_fields = [ext: *mut ::core::ffi::c_void],
            header_rows = [$crate::Member::EXT],
            $($rest)*
        }
    };
    (@header [none] $($rest:tt)*) => {
        $crate::__versioned_struct_impl! {
            header = none,
            header_fields = [],
            header_rows = [],
            $($rest)*
        }
    };
    (@header [$other:ident] $($rest:tt)*) => {
        ::core::compile_error!(::core::concat!(
            "se-abi: unknown `header = ", ::core::stringify!($other), "`: use `next`, `ext` or `none`"
        ));
    };
    // The handle on a free-form `ext`.
    (@header_handle next $name:ident) => {};
    (@header_handle none $name:ident) => {};
    (@header_handle ext $name:ident) => {
        /// The producer's free-form data (`ext`), a `value` member of the header.
        pub const ext: $crate::Field<$name, *mut ::core::ffi::c_void, $crate::Value> =
            // SAFETY: `__private::field` requires a field of type exactly `*mut c_void` at that
            // offset, ending within the struct's size: `offset_of!` gives the offset of the
            // header field `ext`, which the expansion declared with that type, and every member
            // ends after it.
            unsafe { $crate::__private::field(::core::mem::offset_of!($name, ext), "ext") };
    };

    // The `Kind` type of a member kind keyword.
    (@kind value) => {
        $crate::Value
    };
    (@kind nonzero) => {
        $crate::NonZero
    };
    (@kind $other:ident) => {
        ::core::compile_error!(::core::concat!(
            "se-abi: unknown member kind `",
            ::core::stringify!($other),
            "`: use `value` or `nonzero`"
        ))
    };

    // The member table's `deprecated` entry.
    (@deprecated) => {
        ::core::option::Option::None
    };
    (@deprecated $dep:literal) => {
        ::core::option::Option::Some($crate::__private::version($dep))
    };

    // The lock's check of a deprecation's version.
    (@check_deprecation $name:ident, $field:ident, $since:literal) => {};
    (@check_deprecation $name:ident, $field:ident, $since:literal, $dep:literal) => {
        ::core::assert!(
            $dep > $since && $dep as usize <= <$name as $crate::Versioned>::SIZES.len(),
            ::core::concat!(
                "se-abi layout lock: member `",
                ::core::stringify!($field),
                "` of `",
                ::core::stringify!($name),
                "` must be deprecated after the version that added it and no later than this build"
            )
        );
    };

    // A live member's handle: an associated constant named like the member.
    (@field $name:ident, $field:ident, $fty:ty, $kind:ident, [$(#[doc = $fdoc:literal])*]) => {
        $(#[doc = $fdoc])*
        #[doc = ""]
        #[doc = ::core::concat!("Handle on member `", ::core::stringify!($field), "` (`", ::core::stringify!($kind), "`).")]
        pub const $field: $crate::Field<$name, $fty, $crate::__versioned_struct_support!(@kind $kind)> =
            // SAFETY: `__private::field` requires a field of type exactly `$fty` at that offset,
            // ending within the struct's size: `offset_of!` gives the offset of the field
            // `$field`, which this expansion declared with type `$fty` (see
            // <https://doc.rust-lang.org/core/mem/macro.offset_of.html>), and the size constant is
            // the end of the last member, so no member ends past it.
            unsafe {
                $crate::__private::field(
                    ::core::mem::offset_of!($name, $field),
                    ::core::stringify!($field),
                )
            };
    };
    // A deprecated member keeps its place and gets a write-only handle, which no read accepts:
    // producers may keep setting it for older consumers (`set_deprecated`), readers cannot read it.
    (@field $name:ident, $field:ident, $fty:ty, $kind:ident, [$(#[doc = $fdoc:literal])*], $dep:literal) => {
        $(#[doc = $fdoc])*
        #[doc = ""]
        #[doc = ::core::concat!(
            "Deprecated in version ", ::core::stringify!($dep), ": write-only handle on member `",
            ::core::stringify!($field), "`, for [`set_deprecated`](Self::set_deprecated) only ",
            "(see [`Deprecated`](se_abi::Deprecated) for when to stop setting it)."
        )]
        pub const $field: $crate::Deprecated<$name, $fty> =
            // SAFETY: `__private::deprecated` requires a field of type exactly `$fty` at that
            // offset, ending within the struct's size: as for a live member's handle above.
            unsafe {
                $crate::__private::deprecated(
                    ::core::mem::offset_of!($name, $field),
                    ::core::stringify!($field),
                )
            };
    };
}
