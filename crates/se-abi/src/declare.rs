//! [`versioned_struct!`](crate::versioned_struct!): declare a versioned struct once, get its
//! layout, its lock and its checked accessors.

/// Declares a `#[repr(C)]` struct versioned by `struct_size`.
///
/// ```
/// use core::ffi::{c_char, c_void};
///
/// se_abi::versioned_struct! {
///     /// The seed's device, at version 5.
///     #[abi(size = SE_DEVICE_STRUCT_SIZE, sizes = [32, 40, 48, 48, 56])]
///     pub struct SE_Device {
///         /// The device's name (NULL is no-op).
///         name: *const c_char = nonzero(since 1, at 16..24),
///         /// Length of `name`.
///         name_len: usize = value(since 1, at 24..32),
///         /// The plugin's handle (NULL is no-op).
///         device_handle: *mut c_void = nonzero(since 2, at 32..40),
///         /// Deprecated in version 4: keeps its place, is no longer read.
///         data: *mut c_void = nonzero(since 3, deprecated 4, at 40..48),
///         /// Replaces `data`.
///         data2: *mut c_void = nonzero(since 5, at 48..56),
///     }
/// }
///
/// assert_eq!(SE_DEVICE_STRUCT_SIZE, 56);
/// let mut device = SE_Device::new(); // zero-filled, `struct_size` set
/// device.set(SE_Device::name_len, 3);
/// assert_eq!(device.get(SE_Device::name_len), Some(3));
/// assert_eq!(device.get(SE_Device::device_handle), None); // NULL: not set
/// ```
///
/// What one declaration gives:
/// - the `#[repr(C)]` struct, starting with the header `struct_size: usize` and a reserved
///   `next: *mut c_void` (always zero), then the members in declaration order; all fields are
///   private: a member is read or written only through its [`Field`](crate::Field) handle,
///   an associated constant named like it (`SE_Device::name`), with the checked
///   [`get`](crate::View::get) rule `struct_size > offsetof(member)`. A deprecated member gets a
///   write-only [`Deprecated`](crate::Deprecated) handle instead, which no read accepts, so code
///   built against that version cannot read it; producers may keep setting it
///   (`set_deprecated`);
/// - `const SIZE: usize`, the end offset of the last member (here `SE_DEVICE_STRUCT_SIZE`), and
///   [`Versioned`](crate::Versioned): the member table, the size at every version, the version;
/// - `new()` (zero-filled, `struct_size` set: the C `SE_Device{SE_DEVICE_STRUCT_SIZE}`), `get`,
///   `set`, `view` and `struct_size`;
/// - the **layout lock**, checked at compile time with messages that name the member: each
///   member's `at start..end` must be where the compiler placed it (so a member cannot be
///   reordered, removed or resized), each member's type must be an
///   [`AbiMember`](crate::AbiMember) aligned to at most 8 bytes, members must be appended in
///   version order, and the size at every version must equal the locked `sizes`.
///
/// # The layout lock at work
///
/// A v3 header as it was published; it compiles:
///
/// ```
/// se_abi::versioned_struct! {
///     /// Version 3.
///     #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40])]
///     pub struct Dev {
///         ordinal: u64 = value(since 1, at 16..24),
///         handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
///         data: *mut core::ffi::c_void = nonzero(since 3, at 32..40),
///     }
/// }
/// # fn main() { assert_eq!(DEV_STRUCT_SIZE, 40); }
/// ```
///
/// Reordering two members fails the build:
///
/// ```compile_fail,E0080
/// se_abi::versioned_struct! {
///     /// Version 3, `data` moved before `handle`.
///     #[abi(size = DEV_STRUCT_SIZE, sizes = [24, 32, 40])]
///     pub struct Dev {
///         ordinal: u64 = value(since 1, at 16..24),
///         data: *mut core::ffi::c_void = nonzero(since 3, at 32..40),
///         handle: *mut core::ffi::c_void = nonzero(since 2, at 24..32),
///     }
/// }
/// # fn main() {}
/// ```
///
/// ```text
/// error[E0080]: evaluation panicked: se-abi layout lock: member `data` of `Dev` no longer starts
///               at its locked offset 32: members are never removed, reordered or resized
/// ```
///
/// Each breaking edit gets a message naming the struct and the member (the compile-fail cases in `crates/se-abi/ui/tests/ui/`
/// pins every one of them with its exact compiler output):
///
/// | edit of the v3 header above | the lock says |
/// |---|---|
/// | reorder `handle` and `data`, or remove `handle` | member `data` of `Dev` no longer starts at its locked offset 32 |
/// | remove the last member, `data` | the size of `Dev` at some version differs from its locked `sizes` |
/// | re-type `ordinal` from `u64` to `u32` | member `ordinal` of `Dev` no longer ends at its locked offset 24: a member's type never changes; deprecate it and append a new member instead |
/// | insert a version-3 member before `handle` | member `handle` of `Dev` (since 2) comes after a member added in a later version: members are only ever appended |
/// | a member type aligned to 16 bytes | member `pair` of `Wide` is aligned to more than 8 bytes, the C API's maximum |
/// | a safe `extern "C" fn` member | `Option<extern "C" fn()>` cannot be a member of a versioned struct |
///
/// A 16-byte member aligned to 8 bytes is fine:
///
/// ```
/// #[repr(C, align(8))]
/// #[derive(Clone, Copy, Debug)]
/// pub struct Pair([u64; 2]);
/// // SAFETY: `AbiMember` requires no padding, no drop glue, and every initialized bit pattern
/// // valid: two integers filling the 16 bytes.
/// unsafe impl se_abi::AbiMember for Pair {}
/// impl se_abi::CType for Pair {
///     const SHAPE: se_abi::Shape = se_abi::Shape::Struct { name: "Pair" };
/// }
///
/// se_abi::versioned_struct! {
///     /// Version 1.
///     #[abi(size = WIDE_STRUCT_SIZE, sizes = [32])]
///     pub struct Wide {
///         pair: Pair = value(since 1, at 16..32),
///     }
/// }
/// # fn main() { assert_eq!(WIDE_STRUCT_SIZE, 32); }
/// ```
///
/// A deprecated member has no read handle, so a build that deprecated it cannot read it: in a
/// version-4 build `Dev::data` is a write-only [`Deprecated`](crate::Deprecated) handle, which
/// `get` refuses (`E0308`), while the same read compiles against version 3. A producer that must
/// still serve older consumers keeps setting it with `set_deprecated` (see
/// [`Deprecated`](crate::Deprecated) for when to stop).
///
/// Member kinds: `value` (every value meaningful) or `nonzero` (0 / NULL means not set; the read
/// yields `None`); see [`Value`](crate::Value) and [`NonZero`](crate::NonZero). A member pointer
/// or function pointer's types must be [`CType`](crate::CType)s, so that its [`Shape`](crate::Shape)
/// is recorded; every declared struct is one (`struct NAME`).
///
/// # Optional `#[abi(...)]` keys
///
/// - `header = next` (the default): `struct_size`, then the reserved `next` pointer, never read,
///   always written NULL, never relayed.
/// - `header = ext`: `struct_size`, then `ext`, free-form data of the producer (TensorFlow's
///   `SP_Platform` and `SP_Device`), a [`Value`](crate::Value) member with its own handle, read,
///   copied and written like any other.
/// - `header = none`: `struct_size` alone; the first member starts at 8 (TensorFlow's
///   `SP_AllocatorStats`).
/// - `incompatible = [264, ...]`: sizes of an earlier layout of the struct that is **not** a
///   prefix of this one (its header inserted or moved members, breaking the append-only rule).
///   A reader refuses such a `struct_size` with [`Error::IncompatibleLayout`](crate::Error)
///   instead of reading members at the wrong offsets.
///
/// ```
/// se_abi::versioned_struct! {
///     /// A struct whose pointer after `struct_size` is the producer's own data.
///     #[abi(size = TAGGED_STRUCT_SIZE, sizes = [24], header = ext)]
///     pub struct Tagged {
///         id: u64 = value(since 1, at 16..24),
///     }
/// }
/// let mut tagged = Tagged::new();
/// tagged.set(Tagged::ext, std::ptr::without_provenance_mut(0x10));
/// assert_eq!(tagged.get(Tagged::ext).map(|p| p.addr()), Some(0x10));
/// ```
#[macro_export]
macro_rules! versioned_struct {
    (
        $(#[doc = $doc:literal])*
        #[abi(
            size = $size:ident, sizes = [$($locked:literal),+ $(,)?]
            $(, header = $header:ident)?
            $(, incompatible = [$($incompatible:literal),* $(,)?])?
            $(,)?
        )]
        $vis:vis struct $name:ident { $($body:tt)* }
    ) => {
        $crate::__versioned_struct_support! {
            @header [$($header)?]
            incompatible = [$($($incompatible),*)?],
            $(#[doc = $doc])*
            #[abi(size = $size, sizes = [$($locked),+])]
            $vis struct $name { $($body)* }
        }
    };
}

/// The expansion of [`versioned_struct!`], once its header is chosen.
#[doc(hidden)]
#[macro_export]
macro_rules! __versioned_struct_impl {
    (
        header = $header:ident,
        header_fields = [$($hfield:ident : $hty:ty),*],
        header_rows = [$($hrow:expr),*],
        incompatible = [$($incompatible:literal),*],
        $(#[doc = $doc:literal])*
        #[abi(size = $size:ident, sizes = [$($locked:literal),+ $(,)?])]
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $fdoc:literal])*
                $field:ident : $fty:ty = $kind:ident(
                    since $since:literal $(, deprecated $dep:literal)?, at $start:literal .. $end:literal
                )
            ),+ $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[repr(C)]
        #[derive(Clone, Copy, Debug)]
        #[allow(non_camel_case_types, dead_code)]
        $vis struct $name {
            struct_size: usize,
            $( $hfield: $hty, )*
            $( $(#[doc = $fdoc])* $field: $fty, )+
        }

        impl $crate::CType for $name {
            const SHAPE: $crate::Shape = $crate::Shape::Struct { name: ::core::stringify!($name) };
        }

        #[doc = ::core::concat!(
            "`", ::core::stringify!($name), "`'s size in this build: the end offset of its last member ",
            "(trailing padding excluded)."
        )]
        $vis const $size: usize = <$name as $crate::Versioned>::STRUCT_SIZE;

        // SAFETY: `Versioned` requires a `#[repr(C)]` struct starting with `struct_size: usize`
        // and `next: *mut c_void`, valid when all-zero, and a member table of every field's true
        // offset and size, in offset order, each an `AbiMember`, ending by
        // `STRUCT_SIZE <= size_of::<Self>()`. The struct above is `#[repr(C)]` with those two
        // fields first, and `repr(C)` lays fields out in declaration order (see
        // <https://doc.rust-lang.org/reference/type-layout.html#reprc-structs>), so the table,
        // listed in declaration order, is in offset order. Its rows are `offset_of!` and
        // `size_of` of each declared field and type (see
        // <https://doc.rust-lang.org/core/mem/macro.offset_of.html>); the lock below checks the
        // two constant header rows against `offset_of!` too, and requires every member type to
        // be an `AbiMember` (`usize` and `*mut c_void` are), so all-zero is valid for every
        // field. `STRUCT_SIZE` is the largest member end, within the struct.
        unsafe impl $crate::Versioned for $name {
            const NAME: &'static str = ::core::stringify!($name);
            const SIZE_NAME: &'static str = ::core::stringify!($size);
            const MEMBERS: &'static [$crate::Member] = &[
                $crate::Member::HEADER[0],
                $($hrow,)*
                $(
                    $crate::Member {
                        name: ::core::stringify!($field),
                        ty: ::core::stringify!($fty),
                        offset: ::core::mem::offset_of!($name, $field),
                        size: ::core::mem::size_of::<$fty>(),
                        align: ::core::mem::align_of::<$fty>(),
                        since: $crate::__private::version($since),
                        deprecated: $crate::__versioned_struct_support!(@deprecated $($dep)?),
                        kind: <$crate::__versioned_struct_support!(@kind $kind) as $crate::Kind<$fty>>::KIND,
                        shape: <$fty as $crate::CType>::SHAPE,
                    },
                )+
            ];
            const SIZES: &'static [usize] = &[$($locked),+];
            const INCOMPATIBLE: &'static [usize] = &[$($incompatible),*];
            const VERSION: $crate::Version =
                $crate::__private::build_version([$($locked),+].len());
        }

        // The layout lock.
        const _: () = {
            $(
                $crate::__private::assert_member::<$fty>();
                ::core::assert!(
                    ::core::mem::align_of::<$fty>() <= 8,
                    ::core::concat!(
                        "se-abi layout lock: member `", ::core::stringify!($field), "` of `",
                        ::core::stringify!($name), "` is aligned to more than 8 bytes, the C API's maximum"
                    )
                );
                ::core::assert!(
                    ::core::mem::offset_of!($name, $field) == $start,
                    ::core::concat!(
                        "se-abi layout lock: member `", ::core::stringify!($field), "` of `",
                        ::core::stringify!($name), "` no longer starts at its locked offset ",
                        ::core::stringify!($start), ": members are never removed, reordered or resized"
                    )
                );
                ::core::assert!(
                    ::core::mem::offset_of!($name, $field) + ::core::mem::size_of::<$fty>() == $end,
                    ::core::concat!(
                        "se-abi layout lock: member `", ::core::stringify!($field), "` of `",
                        ::core::stringify!($name), "` no longer ends at its locked offset ",
                        ::core::stringify!($end), ": a member's type never changes; deprecate it and ",
                        "append a new member instead"
                    )
                );
                ::core::assert!(
                    $crate::__private::appended_in_order(
                        <$name as $crate::Versioned>::MEMBERS, $start, $since
                    ),
                    ::core::concat!(
                        "se-abi layout lock: member `", ::core::stringify!($field), "` of `",
                        ::core::stringify!($name), "` (since ", ::core::stringify!($since), ") comes after a ",
                        "member added in a later version: members are only ever appended"
                    )
                );
                ::core::assert!(
                    $since as usize <= <$name as $crate::Versioned>::SIZES.len(),
                    ::core::concat!(
                        "se-abi layout lock: member `", ::core::stringify!($field), "` of `",
                        ::core::stringify!($name), "` is added in a version after the last locked size; ",
                        "add that version's size to `sizes`"
                    )
                );
                $crate::__versioned_struct_support!(@check_deprecation $name, $field, $since $(, $dep)?);
            )+
            ::core::assert!(
                $crate::__private::sizes_match(
                    <$name as $crate::Versioned>::MEMBERS,
                    <$name as $crate::Versioned>::SIZES,
                ),
                ::core::concat!(
                    "se-abi layout lock: the size of `", ::core::stringify!($name), "` at some version ",
                    "differs from its locked `sizes`: a member was removed, resized or re-tagged"
                )
            );
            // The header rows of the member table are constants; `repr(C)` puts the fields
            // there, and this keeps the `Versioned` impl's claim checked rather than argued.
            ::core::assert!(
                ::core::mem::offset_of!($name, struct_size) == $crate::Member::HEADER[0].offset
                    $(&& ::core::mem::offset_of!($name, $hfield) == $crate::Member::HEADER[1].offset)*,
                ::core::concat!("se-abi: the header of `", ::core::stringify!($name), "` is not where `Member::HEADER` says")
            );
            $(
                ::core::assert!(
                    $incompatible < <$name as $crate::Versioned>::SIZES[0]
                        || !$crate::__private::contains(<$name as $crate::Versioned>::SIZES, $incompatible),
                    ::core::concat!(
                        "se-abi layout lock: `", ::core::stringify!($name), "` lists ",
                        ::core::stringify!($incompatible), " as incompatible, but it is one of its own sizes"
                    )
                );
            )*
            ::core::assert!(
                <$name as $crate::Versioned>::STRUCT_SIZE <= $crate::MAX_STRUCT_SIZE,
                ::core::concat!("se-abi: `", ::core::stringify!($name), "` is larger than MAX_STRUCT_SIZE")
            );
        };

        #[allow(non_upper_case_globals)]
        impl $name {
            $crate::__versioned_struct_support!(@header_handle $header $name);
            $(
                $crate::__versioned_struct_support!(
                    @field $name, $field, $fty, $kind, [$(#[doc = $fdoc])*] $(, $dep)?
                );
            )+

            /// The zero-filled struct of this build, with `struct_size` set to this build's size.
            pub const fn new() -> Self {
                let mut value: Self = $crate::__private::zeroed::<Self>();
                value.struct_size = <Self as $crate::Versioned>::STRUCT_SIZE;
                value
            }

            /// The checked read of a member (see [`View::get`](se_abi::View::get)).
            #[inline(always)]
            pub fn get<F: $crate::AbiMember, K: $crate::Kind<F>>(
                &self,
                field: $crate::Field<Self, F, K>,
            ) -> ::core::option::Option<K::Out> {
                $crate::View::of(self).get(field)
            }

            /// Sets a member, extending `struct_size` to cover it if needed.
            pub fn set<F: $crate::AbiMember, K: $crate::Kind<F>>(
                &mut self,
                field: $crate::Field<Self, F, K>,
                value: F,
            ) -> &mut Self {
                $crate::__private::set(self, field, value);
                self
            }

            /// Keeps setting a **deprecated** member, for older consumers that read it without
            /// validating it, and extends `struct_size` to cover it. Readers of this build still
            /// cannot read it. See [`Deprecated`](se_abi::Deprecated) for when to stop.
            pub fn set_deprecated<F: $crate::AbiMember>(
                &mut self,
                member: $crate::Deprecated<Self, F>,
                value: F,
            ) -> &mut Self {
                $crate::__private::set_deprecated(self, member, value);
                self
            }

            /// A [`View`](se_abi::View) of this value.
            pub fn view(&self) -> $crate::View<'_, Self> {
                $crate::View::of(self)
            }

            /// The `struct_size` this value carries: this build's size for `new()`, the smaller
            /// of the producer's and this build's for a versioned copy.
            pub fn struct_size(&self) -> usize {
                $crate::View::of(self).struct_size()
            }
        }

        impl ::core::default::Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }
    };
}
