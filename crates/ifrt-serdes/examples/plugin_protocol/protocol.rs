//! A small plugin protocol with a dated version history of its own, unrelated to IFRT's: a
//! plugin's `Manifest` holds its resource `Limits`, serialized as a nested value, and a
//! `Placement` says on which device and in which memory kind a plugin's buffer lives.
//!
//! | version | introduced | change | formats |
//! |---|---|---|---|
//! | 0 | 2025-01-10 | initial formats | `Limits` 0, `Manifest` 0, `Placement` 0 |
//! | 1 | 2025-03-02 | `Limits` gains `max_threads` | `Limits` 1 |
//! | 2 | 2025-06-20 | `Manifest` gains `homepage` | `Manifest` 2 |
//! | 3 | 2025-09-15 | `Limits` writes memory in KiB instead of bytes | `Limits` 3 |
//! | 4 | 2025-09-15 | `Placement` writes a well-known memory kind as an id | `Placement` 4 |
//!
//! Each value records the oldest format whose reader reads the bytes written: limits without
//! `max_threads` written at version 1 or 2 record 0, a manifest without a homepage records 0,
//! a placement in a custom (or no) memory kind records 0 whatever the version. Versions 3 and 4
//! were introduced the same day, which a history allows. The week-4-old version follows the
//! dates ([`Week4Old::FromDates`]).
//!
//! Shared by `examples/plugin_protocol/main.rs` and `tests/plugin_history.rs`.
#![allow(dead_code)]

use ifrt_serdes::schema::Serialized;
use ifrt_serdes::version::{
    History, SerDesVersionNumber, SupportedVersions, VersionEntry, Week4Old,
};
use ifrt_serdes::{
    Codec, DecodeError, DeserializeOptions, Error, Formats, Incompatible, MemoryKind, Registry,
    Serializable, SerializeOptions,
};
use prost::Message;

/// The protocol's history, and the minimum this build of it reads.
pub static PLUGIN_HISTORY: History = History::new(
    "plugin protocol",
    &[
        VersionEntry::dated(
            0,
            (2025, 1, 10),
            "initial formats of Limits, Manifest and Placement",
        ),
        VersionEntry::dated(1, (2025, 3, 2), "Limits gains max_threads"),
        VersionEntry::dated(2, (2025, 6, 20), "Manifest gains homepage"),
        VersionEntry::dated(
            3,
            (2025, 9, 15),
            "Limits writes memory in KiB instead of bytes",
        ),
        VersionEntry::dated(
            4,
            (2025, 9, 15),
            "Placement writes a well-known memory kind as an id instead of its name",
        ),
    ],
    SerDesVersionNumber::new(0),
    Week4Old::FromDates,
);

const fn v(number: i32) -> SerDesVersionNumber {
    SerDesVersionNumber::new(number)
}

/// A registry of the protocol's three types for a build of `range`.
pub fn registry(range: SupportedVersions) -> Registry {
    let mut registry = Registry::new(range);
    // Three distinct new types in an empty registry: cannot clash.
    registry.register::<Limits>().expect("a fresh registry");
    registry.register::<Manifest>().expect("a fresh registry");
    registry.register::<Placement>().expect("a fresh registry");
    registry
}

/// The build `[minimum, current]` of the protocol.
pub fn build(minimum: i32, current: i32) -> Result<Registry, Error> {
    Ok(registry(PLUGIN_HISTORY.range(v(minimum), v(current))?))
}

/// Refuses input over the caller's limit, then decodes one message.
fn decode<M: Message + Default>(
    data: &[u8],
    options: &DeserializeOptions,
    what: &'static str,
) -> Result<M, Error> {
    if data.len() > options.max_bytes {
        return Err(DecodeError::TooLarge {
            len: data.len(),
            limit: options.max_bytes,
        }
        .into());
    }
    M::decode(data).map_err(|source| DecodeError::Malformed { what, source }.into())
}

/// Refuses to write a value that uses `feature` of `proto` (`used`) when the requested version
/// predates `needed`, the format that introduced it.
fn needs(
    used: bool,
    options: &SerializeOptions,
    (proto, feature): (&'static str, &'static str),
    needed: SerDesVersionNumber,
) -> Result<(), Error> {
    let version = options.version().number();
    if used && version < needed {
        return Err(Incompatible::FeatureNeedsNewerVersion {
            history: options.version().history().name(),
            proto,
            version,
            feature,
            needed,
        }
        .into());
    }
    Ok(())
}

#[derive(Clone, PartialEq, Message)]
struct LimitsProto {
    #[prost(int32, tag = "1")]
    version_number: i32,
    /// Formats 0 to 1: memory in bytes.
    #[prost(uint64, tag = "2")]
    max_memory_bytes: u64,
    /// From format 1.
    #[prost(uint32, optional, tag = "3")]
    max_threads: Option<u32>,
    /// From format 3: memory in KiB.
    #[prost(uint64, tag = "4")]
    max_memory_kib: u64,
}

#[derive(Clone, PartialEq, Message)]
struct ManifestProto {
    #[prost(int32, tag = "1")]
    version_number: i32,
    #[prost(string, tag = "2")]
    name: String,
    /// From format 2.
    #[prost(string, optional, tag = "3")]
    homepage: Option<String>,
    /// The limits, through the registry, written for the *requested* version.
    #[prost(message, optional, tag = "4")]
    limits: Option<Serialized>,
}

/// What a plugin may use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Memory, in KiB.
    pub max_memory_kib: u64,
    /// Threads, if limited (written from format 1 on).
    pub max_threads: Option<u32>,
}

impl Serializable for Limits {}

impl Codec for Limits {
    const TYPE_NAME: &'static str = "plugin::Limits";
    const FORMATS: Formats = Formats::new("Limits", &[v(0), v(1), v(3)]);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        needs(
            self.max_threads.is_some(),
            options,
            ("LimitsProto", "max_threads"),
            v(1),
        )?;
        let mut proto = LimitsProto {
            max_threads: self.max_threads,
            ..LimitsProto::default()
        };
        // The representation: KiB when the request allows format 3; else bytes, which format
        // 0 reads unless there is a thread limit.
        let kib = Self::FORMATS.newest_at(options.version()) >= Some(v(3));
        let needed = if kib {
            proto.max_memory_kib = self.max_memory_kib;
            v(3)
        } else {
            proto.max_memory_bytes = self.max_memory_kib.saturating_mul(1024);
            if self.max_threads.is_some() {
                v(1)
            } else {
                v(0)
            }
        };
        proto.version_number = Self::FORMATS.record(needed, options.version())?.value();
        // prost fails only when a fixed-size buffer is too small; a `Vec` grows instead.
        let _ = proto.encode(out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: LimitsProto = decode(data, options, "LimitsProto")?;
        // The parser of exactly the recorded format.
        let format = registry.read_format(&Self::FORMATS, proto.version_number)?;
        Ok(match format.value() {
            0 => Limits {
                max_memory_kib: proto.max_memory_bytes.div_ceil(1024),
                max_threads: None,
            },
            1 => Limits {
                max_memory_kib: proto.max_memory_bytes.div_ceil(1024),
                max_threads: proto.max_threads,
            },
            _ => Limits {
                max_memory_kib: proto.max_memory_kib,
                max_threads: proto.max_threads,
            },
        })
    }
}

/// A plugin's manifest: its name, an optional homepage, and its limits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Manifest {
    /// The plugin's name.
    pub name: String,
    /// Its homepage (written from format 2 on).
    pub homepage: Option<String>,
    /// Its limits: a nested value.
    pub limits: Limits,
}

impl Serializable for Manifest {}

impl Codec for Manifest {
    const TYPE_NAME: &'static str = "plugin::Manifest";
    const FORMATS: Formats = Formats::new("Manifest", &[v(0), v(2)]);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        registry: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        needs(
            self.homepage.is_some(),
            options,
            ("ManifestProto", "homepage"),
            v(2),
        )?;
        // Format 0 reads a manifest without a homepage.
        let needed = if self.homepage.is_some() { v(2) } else { v(0) };
        let proto = ManifestProto {
            version_number: Self::FORMATS.record(needed, options.version())?.value(),
            name: self.name.clone(),
            homepage: self.homepage.clone(),
            // The nested value gets the requested version, not this message's format.
            limits: Some(registry.serialize(&self.limits, options)?),
        };
        let _ = proto.encode(out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: ManifestProto = decode(data, options, "ManifestProto")?;
        let format = registry.read_format(&Self::FORMATS, proto.version_number)?;
        let limits = proto.limits.ok_or(DecodeError::MissingField {
            what: "Manifest",
            field: "limits",
        })?;
        Ok(Manifest {
            name: proto.name,
            homepage: if format >= v(2) { proto.homepage } else { None },
            // Read by its own recorded format.
            limits: registry.deserialize::<Limits>(&limits, options)?,
        })
    }
}

/// The richest manifest version `requested` can hold.
pub fn sample_manifest(requested: i32) -> Manifest {
    Manifest {
        name: "resize-images".to_string(),
        homepage: (requested >= 2).then(|| "https://example.org/resize".to_string()),
        limits: sample_limits(requested),
    }
}

/// The richest limits version `requested` can hold.
pub fn sample_limits(requested: i32) -> Limits {
    Limits {
        max_memory_kib: 512 * 1024,
        max_threads: (requested >= 1).then_some(8),
    }
}

/// Well-known memory kinds and their ids on the wire from format 4 of `Placement` on (0: none
/// given as an id).
const MEMORY_KIND_IDS: &[(i32, &str)] = &[(1, "device"), (2, "pinned_host"), (3, "unpinned_host")];

#[derive(Clone, PartialEq, Message)]
struct PlacementProto {
    #[prost(int32, tag = "1")]
    version_number: i32,
    #[prost(int32, tag = "2")]
    device_id: i32,
    /// The memory kind's name: every kind in format 0; in format 4 only kinds without an id.
    #[prost(string, optional, tag = "3")]
    memory_kind: Option<String>,
    /// From format 4: the id of a well-known memory kind.
    #[prost(int32, tag = "4")]
    memory_kind_id: i32,
}

/// Where a plugin's buffer lives: a device, and a memory kind (IFRT's [`MemoryKind`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Placement {
    /// The device.
    pub device_id: i32,
    /// The memory kind.
    pub memory_kind: MemoryKind,
}

impl Serializable for Placement {}

impl Codec for Placement {
    const TYPE_NAME: &'static str = "plugin::Placement";
    const FORMATS: Formats = Formats::new("Placement", &[v(0), v(4)]);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let mut proto = PlacementProto {
            device_id: self.device_id,
            ..PlacementProto::default()
        };
        // A well-known kind is written as its id when the request allows format 4; any other
        // kind, or an older request, writes the name, which format 0 reads: the bytes record 0.
        let id = MEMORY_KIND_IDS
            .iter()
            .find(|(_, name)| Some(*name) == self.memory_kind.name())
            .map(|(id, _)| *id)
            .filter(|_| Self::FORMATS.newest_at(options.version()) >= Some(v(4)));
        let needed = match id {
            Some(id) => {
                proto.memory_kind_id = id;
                v(4)
            }
            None => {
                proto.memory_kind = self.memory_kind.name().map(str::to_string);
                v(0)
            }
        };
        proto.version_number = Self::FORMATS.record(needed, options.version())?.value();
        let _ = proto.encode(out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: PlacementProto = decode(data, options, "PlacementProto")?;
        let format = registry.read_format(&Self::FORMATS, proto.version_number)?;
        let memory_kind = match (format.value(), proto.memory_kind_id, proto.memory_kind) {
            // Format 0 has no id field; a reader of that era never sees one.
            (0, _, name) | (_, 0, name) => {
                name.map_or_else(MemoryKind::unspecified, |name| MemoryKind::from_name(&name))
            }
            (_, id, None) => MEMORY_KIND_IDS
                .iter()
                .find(|(known, _)| *known == id)
                .map(|(_, name)| MemoryKind::from_name(name))
                .ok_or(DecodeError::MissingField {
                    what: "Placement",
                    field: "a known memory_kind_id",
                })?,
            (_, _, Some(_)) => {
                return Err(DecodeError::MissingField {
                    what: "Placement",
                    field: "one memory kind (both a name and an id are set)",
                }
                .into());
            }
        };
        Ok(Placement {
            device_id: proto.device_id,
            memory_kind,
        })
    }
}

/// A placement in pinned host memory, a well-known kind.
pub fn sample_placement() -> Placement {
    Placement {
        device_id: 3,
        memory_kind: MemoryKind::pinned_host(),
    }
}
