//! How one type is written and read: the traits a type implements to go through a
//! [`Registry`], the options of each call, and the helpers codecs share to turn their protobuf
//! messages into bytes and back.
//!
//! A codec declares its [`Formats`]: the versions at which its own format changed. For the
//! version its [`SerializeOptions`] request it may use any representation its formats up to
//! that version allow, records the oldest format whose reader reads the bytes it wrote, and
//! hands the same options (the requested
//! version, not its own format) to every nested value it serializes. It reads by the number
//! recorded in the bytes, never by an option: [`DeserializeOptions`] carry only limits.

use std::any::Any;
use std::fmt::Debug;

use prost::Message;

use crate::error::{DecodeError, Error};
use crate::format::{Formats, WriteFloor};
use crate::registry::Registry;
use crate::version::{SerDesVersion, SupportedVersions};

/// A value that can go through a [`Registry`]: implement [`Codec`] for it and register it.
pub trait Serializable: Any + Debug + Send + Sync {}

/// How one type is written and read, version by version.
pub trait Codec: Serializable + Sized {
    /// The name recorded in the envelope; the reader's registry finds the codec by it.
    const TYPE_NAME: &'static str;

    /// The type's own formats: the versions at which its format changed. Nested values have
    /// formats of their own and are not counted here.
    const FORMATS: Formats;

    /// The oldest version the type may be written at, beside the build's range: none of its
    /// own by default. IFRT's programs are pinned to the build's week-4-old version
    /// ([`WriteFloor::Week4Old`]); the registry refuses a request below the floor with
    /// [`Incompatible::BelowWriteFloor`](crate::Incompatible::BelowWriteFloor).
    const WRITE_FLOOR: WriteFloor = WriteFloor::Minimum;

    /// Appends the bytes of `self` for the requested `options.version()`, recording in them the
    /// oldest of [`Codec::FORMATS`] whose reader reads them (see [`Formats::record`]), to `out`
    /// (which may already hold other bytes: they stay as they are). Nested
    /// values are serialized through `registry` with the same options. The registry always
    /// writes through this method, so a type encodes straight into the caller's buffer.
    fn serialize_into(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error>;

    /// The bytes of [`Codec::serialize_into`] in a buffer of their own.
    fn serialize(&self, options: &SerializeOptions, registry: &Registry) -> Result<Vec<u8>, Error> {
        let mut out = Vec::new();
        self.serialize_into(options, registry, &mut out)?;
        Ok(out)
    }

    /// Reads bytes written by [`Codec::serialize`] in any format `registry` supports, choosing
    /// the parser by the format recorded in them ([`Registry::read_format`]).
    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error>;
}

/// The sharding family: kinds are registered with [`Registry::register_sharding`] and read back
/// polymorphically with [`Registry::deserialize_sharding`].
pub trait Sharding: Serializable {
    /// Whether `other` is the same kind of sharding with the same contents.
    fn same_as(&self, other: &dyn Sharding) -> bool;
}

/// What a serialization call asks for: the version to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SerializeOptions {
    version: SerDesVersion,
}

impl SerializeOptions {
    /// Options that write `version`.
    pub fn new(version: SerDesVersion) -> Self {
        SerializeOptions { version }
    }

    /// Options with the default version of `supported` (its `current`, of its own history),
    /// which fails under the `testing-bad-default-version` feature. A registry's own:
    /// [`Registry::default_options`].
    pub fn with_default_version(supported: SupportedVersions) -> Result<Self, Error> {
        supported.default_version().map(Self::new)
    }

    /// The requested version.
    pub fn version(&self) -> SerDesVersion {
        self.version
    }
}

/// Limits for reading untrusted bytes. There is no version here: the data records it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeserializeOptions {
    /// Inputs longer than this are refused before anything is parsed.
    pub max_bytes: usize,
}

impl DeserializeOptions {
    /// The default limit on input size: 64 MiB. It is also the limit of the `ifrt-serdes` tool,
    /// which refuses a larger file before reading any of it.
    pub const DEFAULT_MAX_BYTES: usize = 64 << 20;
}

impl Default for DeserializeOptions {
    fn default() -> Self {
        DeserializeOptions {
            max_bytes: Self::DEFAULT_MAX_BYTES,
        }
    }
}

/// Decodes one protobuf message from untrusted bytes, after the size check.
pub(crate) fn decode_message<M: Message + Default>(
    bytes: &[u8],
    options: &DeserializeOptions,
    what: &'static str,
) -> Result<M, Error> {
    check_size(bytes, options)?;
    M::decode(bytes).map_err(|source| DecodeError::Malformed { what, source }.into())
}

/// [`decode_message`] into an existing message, which must hold the default values (its
/// buffers may keep their capacity): the same result and the same errors as decoding afresh.
pub(crate) fn decode_message_into<M: Message>(
    message: &mut M,
    bytes: &[u8],
    options: &DeserializeOptions,
    what: &'static str,
) -> Result<(), Error> {
    check_size(bytes, options)?;
    message
        .merge(bytes)
        .map_err(|source| DecodeError::Malformed { what, source }.into())
}

/// Refuses inputs over the caller's limit, before anything is parsed.
#[inline]
pub(crate) fn check_size(bytes: &[u8], options: &DeserializeOptions) -> Result<(), Error> {
    if bytes.len() > options.max_bytes {
        return Err(DecodeError::TooLarge {
            len: bytes.len(),
            limit: options.max_bytes,
        }
        .into());
    }
    Ok(())
}

/// Appends `message`'s protobuf bytes to `out`.
#[inline]
pub(crate) fn encode_message(message: &impl Message, out: &mut Vec<u8>) {
    if out.capacity() == 0 {
        // A new buffer (a plain message's bytes): prost sizes it once and encodes into it,
        // walking the tree for its length once. (Reserving here and then calling `encode`
        // would walk it twice: `encode` measures the message again to check the room.)
        *out = message.encode_to_vec();
        return;
    }
    // A used buffer (a spare, or one holding an envelope's header) usually has room already:
    // sizing it first would walk the whole message tree an extra time. prost fails only when a
    // fixed-size buffer is too small; a `Vec` grows instead.
    let _ = message.encode(out);
}
