//! The one error type of the crate.
//!
//! Messages use TensorFlow's own words where TensorFlow has them:
//! - `TF_VALIDATE_STRUCT_SIZE` and `TF_VALIDATE_NOT_NULL` in `tensorflow/c/c_api_macros_internal.h`
//!   (`VALIDATE_STRUCT_SIZE` / `VALIDATE_MEMBER` in older
//!   `tensorflow/c/experimental/stream_executor/stream_executor.cc`);
//! - the major-version check of the StreamExecutor C API versioning RFC
//!   (`tensorflow/community`, `rfcs/20200612-stream-executor-c-api/C_API_versioning_strategy.md`).

use crate::version::Major;

/// Everything that can be wrong with a struct a foreign producer handed over, or with a plugin's
/// registration.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The producer never set `struct_size` (TensorFlow's `TF_VALIDATE_STRUCT_SIZE` wording).
    #[error(
        "Expected initialized `{name}` structure with `struct_size` field set to {size_name}. Found `struct_size` = 0."
    )]
    Uninitialized {
        /// The struct's C name.
        name: &'static str,
        /// The name of the struct's size constant, e.g. `SE_DEVICE_STRUCT_SIZE`.
        size_name: &'static str,
    },

    /// The pointer to the struct itself is null.
    #[error("Expected a `{name}` structure, found a null pointer: the producer must pass a struct")]
    NullStruct {
        /// The struct's C name.
        name: &'static str,
    },

    /// `struct_size` is smaller than the struct's first version, so it cannot be this struct.
    #[error(
        "`{name}` has `struct_size` = {found}, smaller than its first version's size {minimum}: the producer passed another struct or a corrupt one"
    )]
    TooSmall {
        /// The struct's C name.
        name: &'static str,
        /// The producer's `struct_size`.
        found: usize,
        /// The size of the struct's version 1.
        minimum: usize,
    },

    /// `struct_size` is beyond any sane struct size; it is refused before anything is read.
    #[error(
        "`{name}` has `struct_size` = {found}, above the limit of {limit} bytes: refusing to read it (corrupt or uninitialized struct?)"
    )]
    Oversized {
        /// The struct's C name.
        name: &'static str,
        /// The producer's `struct_size`.
        found: usize,
        /// [`crate::MAX_STRUCT_SIZE`].
        limit: usize,
    },

    /// `struct_size` ends in the middle of a member this build knows, which no version of the
    /// header can produce (each version's size is the end of its last member).
    #[error(
        "`{name}` has `struct_size` = {found}, which ends inside member `{member}` (bytes {offset}..{end}): no version of the header has that size; the producer's header is not this struct's"
    )]
    Torn {
        /// The struct's C name.
        name: &'static str,
        /// The producer's `struct_size`.
        found: usize,
        /// The member the size cuts through.
        member: &'static str,
        /// The member's offset.
        offset: usize,
        /// The member's end offset.
        end: usize,
    },

    /// `struct_size` is the size of an earlier layout of the struct that this one does not
    /// extend: the producer's header put members where this build has others (TensorFlow did
    /// it once, in 2.7's `SP_StreamExecutor`: see `se_abi::tensorflow`).
    #[error(
        "`{name}` has `struct_size` = {found}, the size of an earlier, incompatible layout of `{name}` (its header inserted or moved members): reading it with this build's layout would read members at the wrong offsets; the producer must be rebuilt against a header of this layout, or read with the earlier layout's declaration"
    )]
    IncompatibleLayout {
        /// The struct's C name.
        name: &'static str,
        /// The producer's `struct_size`.
        found: usize,
    },

    /// A newer producer set members this build does not know (Linux `copy_struct_from_user`'s
    /// `E2BIG`).
    #[error(
        "`{name}` from a newer producer is {found} bytes and byte {nonzero_at} past this build's {ours} is not zero (E2BIG): the producer uses members this build cannot honor; upgrade the consumer, or copy with `Tail::Ignore` to ignore them as TensorFlow does"
    )]
    TooBig {
        /// The struct's C name.
        name: &'static str,
        /// The producer's `struct_size`.
        found: usize,
        /// This build's `STRUCT_SIZE`.
        ours: usize,
        /// Offset of the first non-zero byte of the unknown tail.
        nonzero_at: usize,
    },

    /// A byte buffer is shorter than the struct it claims to hold.
    #[error(
        "`{name}` claims `struct_size` = {claimed} but only {available} bytes were given: the buffer is truncated"
    )]
    Truncated {
        /// The struct's C name.
        name: &'static str,
        /// How many bytes are needed (the claimed `struct_size`, or the size of the
        /// `struct_size` field itself).
        claimed: usize,
        /// How many bytes there are.
        available: usize,
    },

    /// A member that must be set is zero or null (TensorFlow's `TF_VALIDATE_NOT_NULL` wording).
    #[error("'{member}' field in {name} must be set.")]
    MemberNotSet {
        /// The struct's C name.
        name: &'static str,
        /// The member's name.
        member: &'static str,
    },

    /// A plugin file could not be read (`plugin-check`).
    #[cfg(feature = "plugin-check")]
    #[error("cannot read {}: {}", path.display(), std::io::Error::from(*kind))]
    PluginUnreadable {
        /// The file.
        path: std::path::PathBuf,
        /// What the operating system said.
        kind: std::io::ErrorKind,
    },

    /// A file is not a plugin TensorFlow's Linux wheels could load (`plugin-check`).
    #[cfg(feature = "plugin-check")]
    #[error("{} is {reason}: not a plugin TensorFlow could load", path.display())]
    NotAPlugin {
        /// The file.
        path: std::path::PathBuf,
        /// What it is instead.
        reason: &'static str,
    },

    /// A file is not a PJRT plugin JAX's Linux wheels could load (`pjrt-check`).
    #[cfg(feature = "plugin-check")]
    #[error("{} is {reason}: not a PJRT plugin JAX could load", path.display())]
    NotAPjrtPlugin {
        /// The file.
        path: std::path::PathBuf,
        /// What it is instead.
        reason: &'static str,
    },

    /// The dynamic loader cannot open a PJRT plugin (`dlopen` failed): JAX's
    /// `register_plugin` fails the same way (`INTERNAL: Failed to open <path>: <dlerror>`).
    #[cfg(feature = "plugin-check")]
    #[error("the dynamic loader cannot open {}: {reason}", path.display())]
    PjrtOpen {
        /// The file.
        path: std::path::PathBuf,
        /// What `dlopen` said (`dlerror`), e.g. a needed library that is not installed.
        reason: std::string::String,
    },

    /// A PJRT plugin could not be loaded, or its `GetPjrtApi` not called (`pjrt-check --run`).
    #[cfg(feature = "plugin-check")]
    #[error("cannot call GetPjrtApi of {}: {reason}", path.display())]
    PjrtLoad {
        /// The file.
        path: std::path::PathBuf,
        /// What the loader or the plugin said.
        reason: std::string::String,
    },

    /// Host and plugin were built against different major versions of the C API (the RFC's
    /// registration-time wording).
    #[error("Unsupported major version. Given: {given} Expected: {expected}")]
    UnsupportedMajorVersion {
        /// The major version the other side passed in.
        given: Major,
        /// The major version this side was built with.
        expected: Major,
    },
}
