//! The registry: type names to codecs, and the `Serialized { type_name, data }` envelope.
//!
//! Serializing a value looks up its Rust type, checks that the requested version is of the
//! registry's history and in the build's range, asks the type's [`Codec`] for its bytes (which
//! record the oldest format that holds the value) and wraps them in a `Serialized { type_name, data }` envelope. Deserializing looks up
//! the envelope's type name and lets the type's codec read the format recorded in `data`.
//! Serialize options carry the requested version; deserialize options do not: the data says.
//!
//! A registry holds a handful of types (this crate's two shardings, plus whatever a program
//! adds), so
//! both lookups are a linear scan of one short list: with so few entries that beats hashing the
//! key, and it needs no hasher of our own.
//!
//! The registry knows no concrete type: IFRT's are listed in `builtin.rs`
//! ([`Registry::with_builtin_types`]). It belongs to one history (that of its
//! [`SupportedVersions`]), and refuses a version of another. It also writes and reads the types
//! IFRT sends as plain protos, outside any envelope (`proto_codec.rs`); an envelope that names
//! one of them is refused, saying so.

use std::any::{Any, TypeId};
use std::fmt::Debug;
use std::sync::Arc;

use crate::clock::{Clock, SystemClock};
use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding, check_size, decode_message,
};
use crate::error::{Error, Incompatible, RegistryError};
use crate::format::{Formats, RecordedFormat, WriteFloor, traced};
use crate::generated::xla::ifrt::Serialized;
use crate::version::{SerDesVersionNumber, SupportedVersions};
use jiff::civil::Date;

type SerializeFn =
    fn(&dyn Serializable, &SerializeOptions, &Registry, &mut Vec<u8>) -> Result<(), Error>;
type DeserializeFn =
    fn(&[u8], &DeserializeOptions, &Registry) -> Result<Box<dyn Serializable>, Error>;
type DeserializeShardingFn =
    fn(&[u8], &DeserializeOptions, &Registry) -> Result<Arc<dyn Sharding>, Error>;

/// How a registry reaches one type's codec: its name and its functions, built at compile time.
#[derive(Clone, Copy)]
pub(crate) struct Codecs {
    type_name: &'static str,
    formats: Formats,
    write_floor: WriteFloor,
    type_id: fn() -> TypeId,
    serialize: SerializeFn,
    deserialize: DeserializeFn,
    deserialize_sharding: Option<DeserializeShardingFn>,
}

impl Codecs {
    /// The codec of `T`.
    pub(crate) const fn of<T: Codec>() -> Self {
        Codecs {
            type_name: T::TYPE_NAME,
            formats: T::FORMATS,
            write_floor: T::WRITE_FLOOR,
            type_id: TypeId::of::<T>,
            serialize: serialize_as::<T>,
            deserialize: deserialize_as::<T>,
            deserialize_sharding: None,
        }
    }

    /// The codec of `T`, a member of the sharding family.
    pub(crate) const fn sharding<T: Codec + Sharding>() -> Self {
        Codecs {
            deserialize_sharding: Some(deserialize_sharding_as::<T>),
            ..Codecs::of::<T>()
        }
    }
}

/// Whether no two entries of `list` have the same type name.
pub(crate) const fn names_are_distinct(list: &[Codecs]) -> bool {
    let mut i = 0;
    while i < list.len() {
        let mut j = i + 1;
        while j < list.len() {
            if same_name(list[i].type_name, list[j].type_name) {
                return false;
            }
            j += 1;
        }
        i += 1;
    }
    true
}

/// `a == b`, in a `const fn`.
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// One registered type: its codecs, and its `TypeId` computed once.
#[derive(Clone, Copy)]
struct Registered {
    type_id: TypeId,
    codecs: Codecs,
}

/// Type names to codecs, for one build's [`SupportedVersions`].
#[derive(Clone)]
pub struct Registry {
    supported: SupportedVersions,
    types: Vec<Registered>,
    /// The day week-4-old floors are taken on; `None`: the system's clock (UTC).
    today: Option<Date>,
}

impl Debug for Registry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<_> = self.types.iter().map(|t| t.codecs.type_name).collect();
        names.sort_unstable();
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
            types: Vec::new(),
            today: None,
        }
    }

    /// A registry for `supported` with `list` registered, whose names the caller checked to be
    /// distinct at compile time ([`names_are_distinct`]).
    pub(crate) fn with_distinct(supported: SupportedVersions, list: &[Codecs]) -> Self {
        Registry {
            supported,
            types: list.iter().map(|&codecs| Registered::new(codecs)).collect(),
            today: None,
        }
    }

    /// Options that write this registry's default version: its range's `current` (see
    /// [`SupportedVersions::default_version`], which fails under the
    /// `testing-bad-default-version` feature). The default follows the registry's history.
    pub fn default_options(&self) -> Result<SerializeOptions, Error> {
        self.supported.default_version().map(SerializeOptions::new)
    }

    /// The versions this registry's build reads and writes.
    pub fn supported(&self) -> SupportedVersions {
        self.supported
    }

    /// Takes the week-4-old floors of types pinned to it ([`WriteFloor::Week4Old`]) on `today`
    /// instead of the system's day (UTC). Only a history whose week-4-old version follows the
    /// dates asks; IFRT's is kept by hand, the same on every day.
    pub fn set_today(&mut self, today: Date) {
        self.today = Some(today);
    }

    fn today(&self) -> Date {
        self.today.unwrap_or_else(|| SystemClock.today())
    }

    /// The oldest version this build writes the type registered as `type_name` at: the build's
    /// minimum, or the type's own floor ([`Codec::WRITE_FLOOR`]) if higher. `None` if the name
    /// is not registered, or the build writes the type at no version of its range.
    pub fn lowest_writable(&self, type_name: &str) -> Option<SerDesVersionNumber> {
        let codecs = self.by_name(type_name)?;
        codecs.write_floor.lowest(self.supported, self.today())
    }

    /// Registers `T`. Registering a type, or a type name, twice is
    /// [`RegistryError::AlreadyRegistered`].
    pub fn register<T: Codec>(&mut self) -> Result<(), Error> {
        self.insert(Codecs::of::<T>())
    }

    /// Registers `T` as a member of the sharding family.
    pub fn register_sharding<T: Codec + Sharding>(&mut self) -> Result<(), Error> {
        self.insert(Codecs::sharding::<T>())
    }

    fn insert(&mut self, codecs: Codecs) -> Result<(), Error> {
        let new = Registered::new(codecs);
        let taken =
            |t: &Registered| t.type_id == new.type_id || t.codecs.type_name == new.codecs.type_name;
        if self.types.iter().any(taken) {
            return Err(RegistryError::AlreadyRegistered {
                type_name: codecs.type_name,
            }
            .into());
        }
        self.types.push(new);
        Ok(())
    }

    /// Whether `type_name` is registered as a member of the sharding family.
    pub fn is_sharding(&self, type_name: &str) -> bool {
        self.by_name(type_name)
            .is_some_and(|codecs| codecs.deserialize_sharding.is_some())
    }

    /// Whether a type name is registered.
    pub fn knows(&self, type_name: &str) -> bool {
        self.by_name(type_name).is_some()
    }

    /// The formats of the type registered as `type_name`.
    pub fn formats_of(&self, type_name: &str) -> Option<Formats> {
        self.by_name(type_name).map(|codecs| codecs.formats)
    }

    /// Every registered type name with its formats, in registration order.
    pub fn registered(&self) -> impl Iterator<Item = (&'static str, Formats)> + '_ {
        self.types
            .iter()
            .map(|t| (t.codecs.type_name, t.codecs.formats))
    }

    /// Serializes `value` for the requested version (each part recording the oldest of its
    /// formats that holds it) into an envelope.
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
    #[inline]
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
    #[inline]
    fn serialize_data(
        &self,
        value: &dyn Serializable,
        options: &SerializeOptions,
        out: &mut Vec<u8>,
    ) -> Result<&'static str, Error> {
        let codecs = self.codecs_of(value)?;
        self.write_data(value, codecs, options, out)?;
        Ok(codecs.type_name)
    }

    /// The codecs `value`'s type is registered with.
    #[inline]
    fn codecs_of(&self, value: &dyn Serializable) -> Result<&Codecs, Error> {
        let type_id = (value as &dyn Any).type_id();
        self.types
            .iter()
            .find(|t| t.type_id == type_id)
            .map(|t| &t.codecs)
            .ok_or_else(|| RegistryError::NoSerDesForValue.into())
    }

    /// Whether the Rust type `T` is registered.
    fn has_type<T: Codec>(&self) -> bool {
        let type_id = TypeId::of::<T>();
        self.types.iter().any(|t| t.type_id == type_id)
    }

    /// Checks the requested version, then appends the data of `value` to `out`.
    #[inline]
    fn write_data(
        &self,
        value: &dyn Serializable,
        codecs: &Codecs,
        options: &SerializeOptions,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.check_version(options, codecs.type_name)?;
        if codecs.write_floor != WriteFloor::Minimum {
            let what = short_name(codecs.formats.what());
            let today = self.today();
            codecs
                .write_floor
                .check(what, options.version(), self.supported, today)?;
        }
        (codecs.serialize)(value, options, self, out)
    }

    /// Fails unless `options` request a version of this registry's history and range.
    #[inline]
    pub(crate) fn check_version(
        &self,
        options: &SerializeOptions,
        type_name: &'static str,
    ) -> Result<(), Error> {
        let version = options.version();
        if !self.supported.owns(version) {
            return Err(Incompatible::WrongHistory {
                expected: self.supported.whole_history().name(),
                found: version.history().name(),
            }
            .into());
        }
        if !self.supported.contains(version.number()) {
            // Errors name the type as IFRT does: without its namespace (`DType`).
            let what = short_name(type_name);
            return Err(Incompatible::UnsupportedSerializationVersion {
                history: version.history().name(),
                version: version.number(),
                what,
            }
            .into());
        }
        Ok(())
    }

    /// [`Registry::serialize`], then the envelope's protobuf bytes. The value is encoded
    /// straight into the returned buffer, after the envelope's header; a warm thread allocates
    /// nothing else.
    pub fn serialize_to_bytes(
        &self,
        value: &dyn Serializable,
        options: &SerializeOptions,
    ) -> Result<Vec<u8>, Error> {
        let codecs = self.codecs_of(value)?;
        crate::envelope::write_with(codecs.type_name, |out| {
            self.write_data(value, codecs, options, out)
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
        (self.codecs_named(type_name)?.deserialize)(data, options, self)
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
        if type_name != T::TYPE_NAME || !self.has_type::<T>() {
            // Say why: the reader lacks the named type, or the data holds another type.
            self.codecs_named(type_name)?;
            return Err(RegistryError::WrongType {
                expected: T::TYPE_NAME,
                found: type_name.to_string(),
            }
            .into());
        }
        T::deserialize(data, options, self)
    }

    /// Reads an envelope that must hold a registered kind of sharding.
    #[inline]
    pub fn deserialize_sharding(
        &self,
        serialized: &Serialized,
        options: &DeserializeOptions,
    ) -> Result<Arc<dyn Sharding>, Error> {
        let codecs = self.codecs_named(&serialized.type_name)?;
        let read = codecs
            .deserialize_sharding
            .ok_or_else(|| RegistryError::NotASharding {
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
        if type_name == T::TYPE_NAME.as_bytes() && self.has_type::<T>() {
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
            Err(Incompatible::UnsupportedSerializationVersion {
                history: self.supported.whole_history().name(),
                version,
                what,
            }
            .into())
        }
    }

    /// The format to parse a value by, given the number `recorded` in its bytes, if this build
    /// reads it: one of `formats` (or a number the type also reads as one), not newer than the
    /// build's current version, not superseded at or before its minimum
    /// ([`Formats::check_readable`]). A codec parses its bytes by the format returned.
    #[inline]
    pub fn read_format(
        &self,
        formats: &Formats,
        recorded: i32,
    ) -> Result<SerDesVersionNumber, Error> {
        formats.check_readable(recorded, self.supported)
    }

    /// Reads envelope bytes as [`Registry::deserialize_dyn_from_bytes`] does, and also returns
    /// every value met on the way, outer values first, each with its type and the format
    /// recorded for it (when reading stops at a refusal, the refused value is the last one).
    /// This is what the `ifrt-serdes inspect` tool reports.
    pub fn inspect_bytes(
        &self,
        bytes: &[u8],
        options: &DeserializeOptions,
    ) -> (Result<Box<dyn Serializable>, Error>, Vec<RecordedFormat>) {
        traced(|| self.deserialize_dyn_from_bytes(bytes, options))
    }

    /// The codecs registered under `type_name`. A name IFRT never puts in an envelope (its
    /// type travels as a plain proto) is refused saying so, unless registered.
    #[inline]
    fn codecs_named(&self, type_name: &str) -> Result<&Codecs, Error> {
        self.by_name(type_name).ok_or_else(|| {
            match crate::proto_codec::plain_proto_type(type_name) {
                Some(plain) => RegistryError::SentAsPlainProto {
                    type_name: plain.type_name,
                    what: plain.what,
                    proto: plain.proto,
                    kind: plain.kind,
                },
                None => RegistryError::NoSerDesForTypeName {
                    type_name: type_name.to_string(),
                },
            }
            .into()
        })
    }

    #[inline]
    fn by_name(&self, type_name: &str) -> Option<&Codecs> {
        self.types
            .iter()
            .find(|t| t.codecs.type_name == type_name)
            .map(|t| &t.codecs)
    }
}

/// A type name without its namespace, as IFRT's errors name types (`DType`).
fn short_name(type_name: &'static str) -> &'static str {
    type_name.rsplit("::").next().unwrap_or(type_name)
}

impl Registered {
    fn new(codecs: Codecs) -> Self {
        Registered {
            type_id: (codecs.type_id)(),
            codecs,
        }
    }
}

fn serialize_as<T: Codec>(
    value: &dyn Serializable,
    options: &SerializeOptions,
    registry: &Registry,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let value = (value as &dyn Any)
        .downcast_ref::<T>()
        .ok_or(RegistryError::NoSerDesForValue)?;
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
