//! The layout facts of a versioned struct: its member table, its size at every version, and the
//! [`Versioned`] trait that [`versioned_struct!`](crate::versioned_struct) implements.

use crate::member::Member;
use crate::version::Version;

/// The largest `struct_size` a reader accepts before touching anything past the `struct_size`
/// field: a larger value is taken for garbage (an uninitialized or foreign struct), not for a
/// newer producer. TensorFlow's largest struct, `SP_StreamExecutor`, is 288 bytes; Linux bounds
/// `copy_struct_from_user` sizes by a page the same way.
pub const MAX_STRUCT_SIZE: usize = 4096;

/// `offsetof(Type, field) + sizeof(field)`: where a member ends, usable in `const`.
///
/// The size constant of a versioned struct is the end offset of its last member, trailing padding
/// excluded (TensorFlow's `TF_OFFSET_OF_END`).
///
/// ```
/// #[repr(C)]
/// struct Platform {
///     struct_size: usize,
///     next: *mut core::ffi::c_void,
///     name: *const core::ffi::c_char,
///     flag: u8,
/// }
/// const PLATFORM_STRUCT_SIZE: usize = se_abi::offset_of_end!(Platform, flag);
/// assert_eq!(PLATFORM_STRUCT_SIZE, 25);
/// assert_eq!(size_of::<Platform>(), 32); // sizeof counts the trailing padding
/// ```
#[macro_export]
macro_rules! offset_of_end {
    ($ty:ty, $field:ident) => {
        ::core::mem::offset_of!($ty, $field)
            + $crate::__private::field_size::<$ty, _>(|value: &$ty| &value.$field)
    };
}

/// A `#[repr(C)]` struct versioned by `struct_size`. Implemented by
/// [`versioned_struct!`](crate::versioned_struct); do not implement it by hand.
///
/// # Safety
///
/// The implementor must be `#[repr(C)]`, start with `struct_size: usize` at offset 0, be valid
/// when all-zero, and `MEMBERS` must list every field with its true offset and size, each of an
/// [`AbiMember`](crate::AbiMember) type, in offset order, all ending at or before
/// `STRUCT_SIZE <= size_of::<Self>()`; a member of kind
/// [`Reserved`](crate::MemberKind::Reserved) must be a pointer.
pub unsafe trait Versioned: Copy + 'static {
    /// The struct's C name, used in error messages (`SE_Device`).
    const NAME: &'static str;
    /// The name of its size constant, used in error messages (`SE_DEVICE_STRUCT_SIZE`).
    const SIZE_NAME: &'static str;
    /// Every member, header included, in offset order.
    const MEMBERS: &'static [Member];
    /// The locked size at versions 1, 2, ... of this build; the last is `STRUCT_SIZE`.
    const SIZES: &'static [usize];
    /// Sizes of earlier layouts of the struct that are not prefixes of this one: refused by
    /// readers ([`Error::IncompatibleLayout`](crate::Error::IncompatibleLayout)).
    const INCOMPATIBLE: &'static [usize] = &[];
    /// This build's size: the end offset of its last member (not `sizeof`).
    const STRUCT_SIZE: usize = struct_size_of(Self::MEMBERS);
    /// This build's version: the number of entries in `SIZES`.
    const VERSION: Version;

    /// The size this struct had at `version`, or `None` for a version after this build's.
    fn struct_size_at(version: Version) -> Option<usize> {
        Self::SIZES.get(usize::from(version.get()) - 1).copied()
    }

    /// The oldest version whose size is `struct_size`, `Newer` for a size past this build's, or
    /// `None` for a size that is no version's.
    fn producer_version(struct_size: usize) -> Option<ProducerVersion> {
        if struct_size > Self::STRUCT_SIZE {
            return Some(ProducerVersion::Newer);
        }
        let index = Self::SIZES.iter().position(|&size| size == struct_size)?;
        let number = u16::try_from(index + 1).ok()?;
        Version::new(number).map(ProducerVersion::Known)
    }

    /// The member named `name`, header included (a member declared as a raw identifier,
    /// `r#type`, is found by its C name, `type`, too).
    fn member(name: &str) -> Option<&'static Member> {
        Self::MEMBERS
            .iter()
            .find(|member| member.name == name || member.name.strip_prefix("r#") == Some(name))
    }
}

/// What a producer's `struct_size` says about the header version it was built with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProducerVersion {
    /// The producer's struct is exactly this version's (the oldest version of that size; a version
    /// that only deprecates has its predecessor's size).
    Known(Version),
    /// The producer is newer than this build: its extra members are ignored.
    Newer,
}

impl core::fmt::Display for ProducerVersion {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            ProducerVersion::Known(version) => write!(f, "{version}"),
            ProducerVersion::Newer => f.write_str("newer than this build"),
        }
    }
}

/// The end offset of the last member of a table: the struct's size constant.
pub const fn struct_size_of(members: &[Member]) -> usize {
    let mut end = 0;
    let mut i = 0;
    while i < members.len() {
        if members[i].end() > end {
            end = members[i].end();
        }
        i += 1;
    }
    end
}

/// The size at `version`, computed from a member table: the end of the last member that exists at
/// that version (compare [`Versioned::struct_size_at`], which looks up the locked `sizes`).
pub const fn struct_size_at(members: &[Member], version: Version) -> usize {
    let mut end = 0;
    let mut i = 0;
    while i < members.len() {
        if members[i].since.get() <= version.get() && members[i].end() > end {
            end = members[i].end();
        }
        i += 1;
    }
    end
}
