//! The registry: type name to serializer and deserializer, and the `Serialized` envelope.
//!
//! Serializing a value looks up its Rust type, checks the requested version against the build's
//! range, asks the type's [`Codec`] for its bytes (which record the version) and wraps them in a
//! `Serialized { type_name, data }` envelope. Deserializing looks up the envelope's type name and
//! lets the type's codec read the version recorded in `data`. Serialize options carry the
//! requested version; deserialize options do not: the data says.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::Arc;

use prost::Message;

use crate::error::Error;
use crate::generated::xla::ifrt::Serialized;
use crate::version::{SerDesVersion, SerDesVersionNumber, SupportedVersions};

/// A value that can go through a [`Registry`]: implement [`Codec`] for it and register it.
pub trait Serializable: Any + Debug + Send + Sync {}

/// How one type is written and read, version by version.
pub trait Codec: Serializable + Sized {
    /// The name recorded in the envelope; the reader's registry finds the codec by it.
    const TYPE_NAME: &'static str;

    /// Appends the bytes of `self` in the format of `options.version()`, which must be recorded
    /// in them, to `out` (which may already hold other bytes: they stay as they are). Nested
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

    /// Reads bytes written by [`Codec::serialize`] of any version `registry` supports, choosing
    /// the parser by the version recorded in them.
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

    /// Options with [`DefaultVersionAccessor`](crate::DefaultVersionAccessor)'s version, which
    /// fails under the `testing-bad-default-version` feature.
    pub fn with_default_version() -> Result<Self, Error> {
        crate::version::DefaultVersionAccessor::get().map(Self::new)
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
    /// The default limit on input size: 64 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 64 << 20;
}

impl Default for DeserializeOptions {
    fn default() -> Self {
        DeserializeOptions {
            max_bytes: Self::DEFAULT_MAX_BYTES,
        }
    }
}

type SerializeFn =
    fn(&dyn Serializable, &SerializeOptions, &Registry, &mut Vec<u8>) -> Result<(), Error>;
type DeserializeFn =
    fn(&[u8], &DeserializeOptions, &Registry) -> Result<Box<dyn Serializable>, Error>;
type DeserializeShardingFn =
    fn(&[u8], &DeserializeOptions, &Registry) -> Result<Arc<dyn Sharding>, Error>;

#[derive(Clone, Copy)]
struct Entry {
    serialize: SerializeFn,
    deserialize: DeserializeFn,
    deserialize_sharding: Option<DeserializeShardingFn>,
}

/// Type names to codecs, for one build's [`SupportedVersions`].
#[derive(Clone)]
pub struct Registry {
    supported: SupportedVersions,
    by_name: HashMap<&'static str, Entry, Fnv>,
    by_type: HashMap<TypeId, (&'static str, Entry), Fnv>,
}

/// A fast hash for the registry's small maps. Keys are type names and type ids chosen by the
/// program, never by an attacker, so SipHash's flooding resistance buys nothing here while its
/// cost shows in every (nested) call. FNV-style mixing, eight bytes at a time.
#[derive(Clone, Copy, Default)]
struct Fnv;

#[derive(Clone, Copy)]
struct FnvHasher(u64);

const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

impl std::hash::BuildHasher for Fnv {
    type Hasher = FnvHasher;
    fn build_hasher(&self) -> FnvHasher {
        FnvHasher(0xcbf2_9ce4_8422_2325)
    }
}

impl std::hash::Hasher for FnvHasher {
    fn finish(&self) -> u64 {
        // Fold the high bits down: hashbrown uses both ends of the hash.
        self.0 ^ (self.0 >> 29)
    }

    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.write_u64(u64::from_le_bytes(word));
        }
        for byte in chunks.remainder() {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(FNV_PRIME);
        }
    }

    fn write_u64(&mut self, word: u64) {
        self.0 = (self.0 ^ word).wrapping_mul(FNV_PRIME).rotate_left(23);
    }
}

impl Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<_> = self.by_name.keys().collect();
        names.sort();
        f.debug_struct("Registry")
            .field("supported", &self.supported)
            .field("types", &names)
            .finish()
    }
}

impl Registry {
    /// An empty registry for a build that supports `supported`.
    pub fn new(supported: SupportedVersions) -> Self {
        Registry {
            supported,
            by_name: HashMap::default(),
            by_type: HashMap::default(),
        }
    }

    /// A registry for `supported` with every type of this crate registered: `DType`, `Shape`,
    /// `ArraySpec`, and the shardings `SingleDeviceSharding` and `ShardingParamSharding`.
    pub fn with_builtin_types(supported: SupportedVersions) -> Self {
        let mut registry = Registry::new(supported);
        // The names are distinct constants, so registration cannot fail here.
        let _ = crate::array_spec::register_builtin_types(&mut registry);
        registry
    }

    /// The versions this registry's build reads and writes.
    pub fn supported(&self) -> SupportedVersions {
        self.supported
    }

    /// Registers `T`. Registering a type, or a type name, twice is [`Error::AlreadyRegistered`].
    pub fn register<T: Codec>(&mut self) -> Result<(), Error> {
        self.insert::<T>(None)
    }

    /// Registers `T` as a member of the sharding family.
    pub fn register_sharding<T: Codec + Sharding>(&mut self) -> Result<(), Error> {
        self.insert::<T>(Some(deserialize_sharding_as::<T>))
    }

    fn insert<T: Codec>(&mut self, sharding: Option<DeserializeShardingFn>) -> Result<(), Error> {
        if self.by_name.contains_key(T::TYPE_NAME) || self.by_type.contains_key(&TypeId::of::<T>())
        {
            return Err(Error::AlreadyRegistered {
                type_name: T::TYPE_NAME,
            });
        }
        let entry = Entry {
            serialize: serialize_as::<T>,
            deserialize: deserialize_as::<T>,
            deserialize_sharding: sharding,
        };
        self.by_name.insert(T::TYPE_NAME, entry);
        self.by_type
            .insert(TypeId::of::<T>(), (T::TYPE_NAME, entry));
        Ok(())
    }

    /// Whether a type name is registered.
    pub fn knows(&self, type_name: &str) -> bool {
        self.by_name.contains_key(type_name)
    }

    /// Serializes `value` in the requested version into an envelope.
    pub fn serialize(
        &self,
        value: &dyn Serializable,
        options: &SerializeOptions,
    ) -> Result<Serialized, Error> {
        let mut data = Vec::new();
        let type_name = self.serialize_data(value, options, &mut data)?;
        Ok(Serialized {
            type_name: type_name.to_string(),
            data,
        })
    }

    /// [`Registry::serialize`] into an existing envelope, reusing its buffers.
    pub(crate) fn serialize_envelope_into(
        &self,
        value: &dyn Serializable,
        options: &SerializeOptions,
        envelope: &mut Serialized,
    ) -> Result<(), Error> {
        envelope.data.clear();
        let type_name = self.serialize_data(value, options, &mut envelope.data)?;
        envelope.type_name.clear();
        envelope.type_name.push_str(type_name);
        Ok(())
    }

    /// Appends the data of `value`'s envelope to `out`; returns the envelope's type name.
    fn serialize_data(
        &self,
        value: &dyn Serializable,
        options: &SerializeOptions,
        out: &mut Vec<u8>,
    ) -> Result<&'static str, Error> {
        let (type_name, entry) = self.codec_of(value)?;
        self.write_data(value, type_name, entry, options, out)?;
        Ok(type_name)
    }

    /// The type name and codec `value` is registered with.
    fn codec_of(&self, value: &dyn Serializable) -> Result<(&'static str, Entry), Error> {
        let type_id = (value as &dyn Any).type_id();
        self.by_type
            .get(&type_id)
            .copied()
            .ok_or(Error::NoSerDesForValue)
    }

    /// Checks the requested version, then appends the data of `value` to `out`.
    fn write_data(
        &self,
        value: &dyn Serializable,
        type_name: &'static str,
        entry: Entry,
        options: &SerializeOptions,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        if !self.supported.contains(options.version.number()) {
            // Errors name the type as IFRT does: without its namespace (`DType`).
            let what = type_name.rsplit("::").next().unwrap_or(type_name);
            return Err(Error::UnsupportedSerializationVersion {
                version: options.version.number(),
                what,
            });
        }
        (entry.serialize)(value, options, self, out)
    }

    /// [`Registry::serialize`], then the envelope's protobuf bytes. The value is encoded
    /// straight into the returned buffer, after the envelope's header; a warm thread allocates
    /// nothing else.
    pub fn serialize_to_bytes(
        &self,
        value: &dyn Serializable,
        options: &SerializeOptions,
    ) -> Result<Vec<u8>, Error> {
        let (type_name, entry) = self.codec_of(value)?;
        crate::envelope::write_with(type_name, |out| {
            self.write_data(value, type_name, entry, options, out)
        })
    }

    /// Reads an envelope as whatever registered type it names.
    pub fn deserialize_dyn(
        &self,
        serialized: &Serialized,
        options: &DeserializeOptions,
    ) -> Result<Box<dyn Serializable>, Error> {
        self.deserialize_dyn_parts(&serialized.type_name, &serialized.data, options)
    }

    fn deserialize_dyn_parts(
        &self,
        type_name: &str,
        data: &[u8],
        options: &DeserializeOptions,
    ) -> Result<Box<dyn Serializable>, Error> {
        (self.entry(type_name)?.deserialize)(data, options, self)
    }

    /// Reads an envelope that must hold a `T`.
    pub fn deserialize<T: Codec>(
        &self,
        serialized: &Serialized,
        options: &DeserializeOptions,
    ) -> Result<T, Error> {
        self.deserialize_parts(&serialized.type_name, &serialized.data, options)
    }

    fn deserialize_parts<T: Codec>(
        &self,
        type_name: &str,
        data: &[u8],
        options: &DeserializeOptions,
    ) -> Result<T, Error> {
        if type_name != T::TYPE_NAME || !self.by_type.contains_key(&TypeId::of::<T>()) {
            // Say why: the reader lacks the named type, or the data holds another type.
            self.entry(type_name)?;
            return Err(Error::WrongType {
                expected: T::TYPE_NAME,
                found: type_name.to_string(),
            });
        }
        T::deserialize(data, options, self)
    }

    /// Reads an envelope that must hold a registered kind of sharding.
    pub fn deserialize_sharding(
        &self,
        serialized: &Serialized,
        options: &DeserializeOptions,
    ) -> Result<Arc<dyn Sharding>, Error> {
        let entry = self.entry(&serialized.type_name)?;
        let read = entry
            .deserialize_sharding
            .ok_or_else(|| Error::NotASharding {
                type_name: serialized.type_name.clone(),
            })?;
        read(&serialized.data, options, self)
    }

    /// Parses envelope bytes, refusing inputs over `options.max_bytes` before parsing.
    pub fn envelope_from_bytes(
        &self,
        bytes: &[u8],
        options: &DeserializeOptions,
    ) -> Result<Serialized, Error> {
        decode_message::<Serialized>(bytes, options, "Serialized")
    }

    /// [`Registry::envelope_from_bytes`], then [`Registry::deserialize_dyn`].
    pub fn deserialize_dyn_from_bytes(
        &self,
        bytes: &[u8],
        options: &DeserializeOptions,
    ) -> Result<Box<dyn Serializable>, Error> {
        check_size(bytes, options)?;
        let (type_name, data) = crate::envelope::read(bytes)?;
        self.deserialize_dyn_parts(type_name, data, options)
    }

    /// [`Registry::envelope_from_bytes`], then [`Registry::deserialize`].
    pub fn deserialize_from_bytes<T: Codec>(
        &self,
        bytes: &[u8],
        options: &DeserializeOptions,
    ) -> Result<T, Error> {
        check_size(bytes, options)?;
        let (type_name, data) = crate::envelope::read_raw(bytes)?;
        if type_name == T::TYPE_NAME.as_bytes() && self.by_type.contains_key(&TypeId::of::<T>()) {
            // Equal to a `&str`, so the name is UTF-8 without checking it again.
            return T::deserialize(data, options, self);
        }
        let type_name = crate::envelope::type_name_str(type_name)?;
        self.deserialize_parts(type_name, data, options)
    }

    /// Fails unless this build can write `version`.
    pub fn check_writable(
        &self,
        version: SerDesVersionNumber,
        what: &'static str,
    ) -> Result<(), Error> {
        if self.supported.contains(version) {
            Ok(())
        } else {
            Err(Error::UnsupportedSerializationVersion { version, what })
        }
    }

    /// Fails unless this build can read data recorded as `version`.
    pub fn check_readable(
        &self,
        version: SerDesVersionNumber,
        what: &'static str,
    ) -> Result<(), Error> {
        if self.supported.contains(version) {
            Ok(())
        } else {
            Err(Error::UnsupportedDeserializationVersion { version, what })
        }
    }

    fn entry(&self, type_name: &str) -> Result<&Entry, Error> {
        self.by_name
            .get(type_name)
            .ok_or_else(|| Error::NoSerDesForTypeName {
                type_name: type_name.to_string(),
            })
    }
}

/// Decodes one protobuf message from untrusted bytes, after the size check.
pub(crate) fn decode_message<M: Message + Default>(
    bytes: &[u8],
    options: &DeserializeOptions,
    what: &'static str,
) -> Result<M, Error> {
    check_size(bytes, options)?;
    M::decode(bytes).map_err(|e| Error::Malformed {
        what,
        reason: e.to_string(),
    })
}

/// Refuses inputs over the caller's limit, before anything is parsed.
fn check_size(bytes: &[u8], options: &DeserializeOptions) -> Result<(), Error> {
    if bytes.len() > options.max_bytes {
        return Err(Error::TooLarge {
            len: bytes.len(),
            limit: options.max_bytes,
        });
    }
    Ok(())
}

/// Appends `message`'s protobuf bytes to `out`.
pub(crate) fn encode_message(message: &impl Message, out: &mut Vec<u8>) {
    if out.capacity() == 0 {
        // A new buffer is sized once. A used one (a spare) usually has room already: sizing
        // it first would walk the whole message tree an extra time.
        out.reserve_exact(message.encoded_len());
    }
    // prost fails only when a fixed-size buffer is too small; a `Vec` grows instead.
    let _ = message.encode(out);
}

fn serialize_as<T: Codec>(
    value: &dyn Serializable,
    options: &SerializeOptions,
    registry: &Registry,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let value = (value as &dyn Any)
        .downcast_ref::<T>()
        .ok_or(Error::NoSerDesForValue)?;
    value.serialize_into(options, registry, out)
}

fn deserialize_as<T: Codec>(
    data: &[u8],
    options: &DeserializeOptions,
    registry: &Registry,
) -> Result<Box<dyn Serializable>, Error> {
    Ok(Box::new(T::deserialize(data, options, registry)?))
}

fn deserialize_sharding_as<T: Codec + Sharding>(
    data: &[u8],
    options: &DeserializeOptions,
    registry: &Registry,
) -> Result<Arc<dyn Sharding>, Error> {
    Ok(Arc::new(T::deserialize(data, options, registry)?))
}
