//! Version numbers: the revision of one struct's header, and the C API's semantic version.

use core::fmt;
use core::num::NonZeroU16;

/// A revision of a struct's C header: version 1 is the first published layout, and each later
/// version appends members or deprecates some in place.
///
/// Struct versions are what `struct_size` encodes: the size at version `n` is the end offset of
/// the last member that exists at version `n`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Version(NonZeroU16);

impl Version {
    /// The first version of every struct.
    pub const FIRST: Version = Version(NonZeroU16::MIN);

    /// Version `n`; `None` for 0 (versions start at 1).
    pub const fn new(n: u16) -> Option<Version> {
        match NonZeroU16::new(n) {
            Some(n) => Some(Version(n)),
            None => None,
        }
    }

    /// The version number.
    pub const fn get(self) -> u16 {
        self.0.get()
    }

    /// The next version, or `None` past `u16::MAX`.
    pub const fn next(self) -> Option<Version> {
        match self.0.checked_add(1) {
            Some(n) => Some(Version(n)),
            None => None,
        }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

macro_rules! api_number {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(pub u32);

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0, f)
            }
        }
    };
}

api_number!(
    /// `SE_MAJOR`: bumped only for backwards-incompatible changes; host and plugin must agree.
    Major
);
api_number!(
    /// `SE_MINOR`: bumped when members are appended or deprecated; differences are absorbed by
    /// `struct_size`.
    Minor
);
api_number!(
    /// `SE_PATCH`: backwards-compatible fixes.
    Patch
);

/// The C API's semantic version, `SE_MAJOR.SE_MINOR.SE_PATCH` in TensorFlow's
/// `tensorflow/c/experimental/stream_executor/stream_executor.h`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ApiVersion {
    /// `SE_MAJOR`.
    pub major: Major,
    /// `SE_MINOR`.
    pub minor: Minor,
    /// `SE_PATCH`.
    pub patch: Patch,
}

impl ApiVersion {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> ApiVersion {
        ApiVersion {
            major: Major(major),
            minor: Minor(minor),
            patch: Patch(patch),
        }
    }
}

impl fmt::Display for ApiVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}
