//! The sharding family: [`SingleDeviceSharding`] and [`ShardingParamSharding`] (built on
//! [`ShardingParam`]), and the [`MemoryKind`] both carry.
//!
//! Formats, as IFRT writes and reads them:
//! - `ShardingParam` (xla/python/ifrt/ir/sharding_param.cc): format 0, `{ dim_shards,
//!   permutation, axis_sizes }`; format 1 adds `unreduced_axes`. `ToProto` records 1 only for a
//!   param that has unreduced axes (which needs requested version 1 or later), and 0 for any
//!   other whatever version was requested, so a build that knows only format 0 reads it.
//!   `FromProto` reads every number up to 2 (IFRT once wrote 2 where it meant 1, "we
//!   accidentally used version 2 instead of 1"): 1 and 2 with their unreduced axes, 0 and below
//!   without.
//! - `SingleDeviceSharding` and `ShardingParamSharding` (their serializers in IFRT's
//!   sharding serdes): format 0 only, the memory kind as its name, absent for the default one;
//!   a reader refuses any other number.
//! - the device list inside a `ShardingParamSharding` (xla/python/ifrt/device_list.cc): format
//!   0 only.

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding, decode_message,
    decode_message_into, encode_message,
};
use crate::device_list::{DeviceList, device_list_proto};
use crate::error::{DecodeError, Error, Incompatible, InvalidValue};
use crate::format::{AlsoReads, Formats};
use crate::generated::xla::ifrt::{
    DeviceListProto, ShardingParamProto, ShardingParamShardingProto, SingleDeviceShardingProto,
};
use crate::proto_codec::ProtoCodec;
use crate::registry::Registry;
use crate::spare::{Spare, refill};
use crate::version::{SerDesVersion, SerDesVersionNumber};
use std::any::Any;
use std::borrow::Cow;

/// The first version that writes `ShardingParamProto.unreduced_axes` (IFRT SerDes version 1,
/// xla/python/ifrt/serdes_version.h).
pub const UNREDUCED_AXES_SINCE: SerDesVersionNumber = SerDesVersionNumber::new(1);

/// The formats of both sharding kinds: IFRT's format 0, the only one.
const SHARDING_FORMATS: [SerDesVersionNumber; 1] = [SerDesVersionNumber::new(0)];

/// The device list nested in a sharding (IFRT's `DeviceList`): one format.
const DEVICE_LIST: Formats = <DeviceList as ProtoCodec>::FORMATS;

/// Where a sharding's buffers live: a memory kind's name, or none for the runtime's default
/// (IFRT's `MemoryKind`, xla/python/ifrt/memory.h: an optional name). PjRt's well-known names
/// are held without allocating.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Default)]
pub struct MemoryKind(Option<Cow<'static, str>>);

/// PjRt's memory space names, which most shardings use.
const WELL_KNOWN: [&str; 3] = ["device", "pinned_host", "unpinned_host"];

impl MemoryKind {
    /// No memory kind given: the runtime's default.
    pub fn unspecified() -> Self {
        MemoryKind(None)
    }

    /// Device memory (PjRt's `device`).
    pub fn device() -> Self {
        MemoryKind::from_name("device")
    }

    /// Pinned host memory (PjRt's `pinned_host`).
    pub fn pinned_host() -> Self {
        MemoryKind::from_name("pinned_host")
    }

    /// Unpinned host memory (PjRt's `unpinned_host`).
    pub fn unpinned_host() -> Self {
        MemoryKind::from_name("unpinned_host")
    }

    /// The memory kind called `name`.
    #[inline]
    pub fn from_name(name: &str) -> Self {
        let name = match WELL_KNOWN.iter().find(|known| **known == name) {
            Some(known) => Cow::Borrowed(*known),
            None => Cow::Owned(name.to_string()),
        };
        MemoryKind(Some(name))
    }

    /// The memory kind a decoded `memory_kind` field names (absent: unspecified).
    #[inline]
    pub(crate) fn from_field(field: Option<&str>) -> Self {
        field.map_or_else(MemoryKind::unspecified, MemoryKind::from_name)
    }

    /// Its name, or `None` when unspecified.
    pub fn name(&self) -> Option<&str> {
        self.0.as_deref()
    }

    /// Overwrites the `memory_kind` field with it, reusing the field's buffer.
    pub(crate) fn encode(&self, field: &mut Option<String>) {
        match self.name() {
            Some(name) => {
                let field = field.get_or_insert_with(String::new);
                field.clear();
                field.push_str(name);
            }
            None => *field = None,
        }
    }
}

/// How an array is cut into shards over a logical device mesh (IFRT's `ShardingParam`,
/// xla/python/ifrt/ir/sharding_param.h).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct ShardingParam {
    dim_shards: Vec<i64>,
    /// The three lists of mesh axes in one allocation: `permutation`, then `axis_sizes` (as
    /// many), then `unreduced_axes` (the rest). A param is read far more often than it is
    /// looked into, and one buffer instead of three halves what reading one allocates.
    axes: Vec<i32>,
    /// How many axes the mesh has: the length of `permutation` and of `axis_sizes`.
    mesh_axes: usize,
    /// How many devices the mesh has: the product of `axis_sizes`, at most `i32::MAX`.
    num_devices: i64,
}

impl std::fmt::Debug for ShardingParam {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ShardingParam")
            .field("dim_shards", &self.dim_shards)
            .field("permutation", &self.permutation())
            .field("axis_sizes", &self.axis_sizes())
            .field("unreduced_axes", &self.unreduced_axes())
            .finish()
    }
}

impl ShardingParam {
    /// Its formats: 0, and 1 with `unreduced_axes`. It also reads what IFRT's `FromProto`
    /// reads (xla/python/ifrt/ir/sharding_param.cc): 2 as format 1 (IFRT wrote 2 by mistake
    /// where it meant 1), and any negative number as format 0 (IFRT checks only `> 2`). Not a
    /// registered type: it is nested in a [`ShardingParamSharding`], and records its own format
    /// there.
    pub const FORMATS: Formats = Formats::new(
        "ShardingParam",
        &[SerDesVersionNumber::new(0), UNREDUCED_AXES_SINCE],
    )
    .reading(&[
        AlsoReads {
            first: i32::MIN,
            last: -1,
            format: SerDesVersionNumber::new(0),
        },
        AlsoReads {
            first: 2,
            last: 2,
            format: UNREDUCED_AXES_SINCE,
        },
    ]);

    /// A param with `dim_shards[i]` shards along dimension `i`, over a mesh of `axis_sizes`
    /// whose axes are ordered minor to major by `permutation`, with `unreduced_axes` (distinct
    /// mesh axes holding partial results, in any order, as IFRT allows) possibly empty. The
    /// rules are IFRT's `ShardingParam::verify`: a mesh of at least one axis, a permutation of
    /// its axes, shard counts whose product fits in an `int` and divides the device count.
    pub fn new(
        dim_shards: Vec<i64>,
        permutation: Vec<i32>,
        axis_sizes: Vec<i32>,
        unreduced_axes: Vec<i32>,
    ) -> Result<Self, Error> {
        Self::from_parts(dim_shards, &permutation, &axis_sizes, &unreduced_axes)
    }

    /// [`ShardingParam::new`] from the three axis lists as slices, copied into the param's
    /// one buffer once checked.
    #[inline]
    fn from_parts(
        dim_shards: Vec<i64>,
        permutation: &[i32],
        axis_sizes: &[i32],
        unreduced_axes: &[i32],
    ) -> Result<Self, Error> {
        if permutation.len() != axis_sizes.len() || axis_sizes.is_empty() {
            return Err(InvalidValue::AxisCountMismatch {
                permutation: permutation.len(),
                axis_sizes: axis_sizes.len(),
            }
            .into());
        }
        if !is_permutation(permutation) {
            return Err(not_a_permutation(permutation.to_vec(), axis_sizes.to_vec()).into());
        }
        let mut devices: i64 = 1;
        for &size in axis_sizes {
            if size <= 0 {
                return Err(InvalidValue::NonPositiveAxisSize { size }.into());
            }
            devices = devices
                .checked_mul(i64::from(size))
                .filter(|devices| *devices <= i64::from(i32::MAX))
                .ok_or(InvalidValue::TooManyDevices)?;
        }
        let mut shards: i64 = 1;
        for &count in &dim_shards {
            if count <= 0 {
                return Err(InvalidValue::NonPositiveDimShards { count }.into());
            }
            shards = shards
                .checked_mul(count)
                .filter(|shards| *shards <= i64::from(i32::MAX))
                .ok_or_else(|| InvalidValue::DimShardsOverflow {
                    dim_shards: dim_shards.clone(),
                })?;
        }
        if devices % shards != 0 {
            return Err(InvalidValue::ShardsDoNotDivideMesh { shards, devices }.into());
        }
        check_unreduced_axes(unreduced_axes, axis_sizes.len())?;
        let mut axes = Vec::with_capacity(2 * axis_sizes.len() + unreduced_axes.len());
        axes.extend_from_slice(permutation);
        axes.extend_from_slice(axis_sizes);
        axes.extend_from_slice(unreduced_axes);
        Ok(ShardingParam {
            dim_shards,
            axes,
            mesh_axes: axis_sizes.len(),
            num_devices: devices,
        })
    }

    /// Shards per dimension.
    pub fn dim_shards(&self) -> &[i64] {
        &self.dim_shards
    }

    /// Mesh axes, minor to major.
    pub fn permutation(&self) -> &[i32] {
        &self.axes[..self.mesh_axes]
    }

    /// Mesh axis sizes.
    pub fn axis_sizes(&self) -> &[i32] {
        &self.axes[self.mesh_axes..2 * self.mesh_axes]
    }

    /// Mesh axes whose results are not yet reduced (needs version 1 to be written).
    pub fn unreduced_axes(&self) -> &[i32] {
        &self.axes[2 * self.mesh_axes..]
    }

    /// Devices in the mesh.
    pub fn num_devices(&self) -> i64 {
        self.num_devices
    }

    /// The message for `version`, as IFRT's `ToProto` writes it: format 1 if the param has
    /// unreduced axes, else format 0; [`Incompatible::FeatureNeedsNewerVersion`] if it has
    /// some and `version` predates them.
    pub fn to_proto(&self, version: SerDesVersion) -> Result<ShardingParamProto, Error> {
        let mut proto = ShardingParamProto::default();
        self.fill_proto(version, &mut proto)?;
        Ok(proto)
    }

    /// [`ShardingParam::to_proto`], overwriting `proto` and reusing its buffers.
    fn fill_proto(
        &self,
        version: SerDesVersion,
        proto: &mut ShardingParamProto,
    ) -> Result<(), Error> {
        // The oldest format that holds the param: IFRT's `ToProto` records 0 unless there are
        // unreduced axes, "so any build that knows only format 0 can read it".
        let needed = if self.unreduced_axes().is_empty() {
            Self::FORMATS.oldest()
        } else {
            UNREDUCED_AXES_SINCE
        };
        if needed > version.number() {
            return Err(Incompatible::FeatureNeedsNewerVersion {
                history: version.history().name(),
                proto: "ShardingParamProto",
                version: version.number(),
                feature: "unreduced_axes",
                needed,
            }
            .into());
        }
        let format = Self::FORMATS.record(needed, version)?;
        proto.version_number = format.value();
        refill(&mut proto.dim_shards, &self.dim_shards);
        refill(&mut proto.permutation, self.permutation());
        refill(&mut proto.axis_sizes, self.axis_sizes());
        refill(&mut proto.unreduced_axes, self.unreduced_axes());
        Ok(())
    }

    /// [`ShardingParam::from_proto`] of a borrowed message, copying its lists at their exact
    /// sizes.
    #[inline]
    fn read(proto: &ShardingParamProto, registry: &Registry) -> Result<Self, Error> {
        let format = registry.read_format(&Self::FORMATS, proto.version_number)?;
        let unreduced_axes: &[i32] = if format >= UNREDUCED_AXES_SINCE {
            &proto.unreduced_axes
        } else {
            // Format 0 has no such field; IFRT's reader ignores it there too.
            &[]
        };
        ShardingParam::from_parts(
            proto.dim_shards.to_vec(),
            &proto.permutation,
            &proto.axis_sizes,
            unreduced_axes,
        )
    }

    /// Reads a message by its own recorded format.
    pub fn from_proto(proto: ShardingParamProto, registry: &Registry) -> Result<Self, Error> {
        Self::read(&proto, registry)
    }
}

/// Whether `axes` holds each of `0..axes.len()` once.
fn is_permutation(axes: &[i32]) -> bool {
    distinct_below(axes, axes.len()).unwrap_or_else(|| {
        let in_range = |a: &i32| usize::try_from(*a).is_ok_and(|a| a < axes.len());
        axes.iter().all(in_range) && repeated_value(axes).is_none()
    })
}

/// Whether every value of `values` is in `0..limit` and none repeats, checked with one bit per
/// value: `None` when `limit` is over 64 (meshes have a handful of axes).
fn distinct_below(values: &[i32], limit: usize) -> Option<bool> {
    if limit > 64 {
        return None;
    }
    let mut seen = 0u64;
    Some(values.iter().all(|&v| {
        let bit = match usize::try_from(v) {
            Ok(v) if v < limit => 1u64 << v,
            _ => 0,
        };
        let fresh = seen & bit == 0;
        seen |= bit;
        bit != 0 && fresh
    }))
}

/// Why `permutation`, as long as `axis_sizes` but not a permutation, is not one: in IFRT's
/// order of checks (xla/python/ifrt/ir/sharding_param.cc, `MinorToMajor::verify`), a repeated
/// axis first, then an axis outside the mesh. Distinct axes all inside a mesh of as many axes
/// would be a permutation, so one of the two is found.
fn not_a_permutation(permutation: Vec<i32>, axis_sizes: Vec<i32>) -> InvalidValue {
    if repeated_value(&permutation).is_some() {
        return InvalidValue::DuplicatePermutationAxis { permutation };
    }
    let outside = |a: &i32| usize::try_from(*a).map_or(true, |a| a >= axis_sizes.len());
    let axis = permutation
        .iter()
        .copied()
        .find(outside)
        .unwrap_or_default();
    InvalidValue::PermutationAxisOutOfRange {
        axis,
        permutation,
        axis_sizes,
    }
}

/// Checks that `axes` are distinct axes of a mesh of `mesh_axes` axes (in any order, as IFRT
/// allows). A failure names the first axis that repeats an earlier one or lies outside the
/// mesh, checked in that order as IFRT does (xla/python/ifrt/ir/sharding_param.cc,
/// `ShardingParam::verify`).
fn check_unreduced_axes(axes: &[i32], mesh_axes: usize) -> Result<(), InvalidValue> {
    let in_mesh = |a: i32| usize::try_from(a).is_ok_and(|a| a < mesh_axes);
    // The common case, checked without allocating.
    if distinct_below(axes, mesh_axes) == Some(true) {
        return Ok(());
    }
    let mut seen = std::collections::HashSet::with_capacity(axes.len());
    for &axis in axes {
        if !seen.insert(axis) {
            return Err(InvalidValue::DuplicateUnreducedAxis { axis });
        }
        if !in_mesh(axis) {
            return Err(InvalidValue::UnreducedAxisOutOfRange { axis, mesh_axes });
        }
    }
    Ok(())
}

/// Checks a sharding's device list: ids >= 0, each listed once.
pub(crate) fn check_devices(devices: &[i32]) -> Result<(), InvalidValue> {
    if let Some(&device_id) = devices.iter().find(|d| **d < 0) {
        return Err(InvalidValue::NegativeDeviceId { device_id });
    }
    if let Some(device_id) = repeated_value(devices) {
        return Err(InvalidValue::DuplicateDeviceId { device_id });
    }
    Ok(())
}

/// The device list of a sharding, read by its own recorded format as a [`DeviceList`]
/// (IFRT's `DeviceList::FromProto`), then checked as a sharding's list ([`check_devices`]); an
/// absent list reads as an empty one, as protobuf's default.
pub(crate) fn read_devices(
    proto: Option<DeviceListProto>,
    registry: &Registry,
) -> Result<Vec<i32>, Error> {
    let list = DeviceList::from_proto(proto.unwrap_or_default(), registry)?;
    check_devices(list.device_ids())?;
    Ok(list.into_device_ids())
}

/// The device list message of `devices` for the requested `version`, as a [`DeviceList`]
/// writes it (IFRT's `DeviceList::ToProto`).
pub(crate) fn devices_proto(
    devices: &[i32],
    version: SerDesVersion,
) -> Result<DeviceListProto, Error> {
    device_list_proto(devices, version)
}

/// A value that occurs more than once in `values`, if any. Increasing lists (the common case)
/// and small lists are checked without allocating; the first repeat in list order is found
/// except in long unsorted lists, where the smallest repeated value is.
fn repeated_value(values: &[i32]) -> Option<i32> {
    if values.windows(2).all(|w| w[0] < w[1]) {
        return None;
    }
    if values.len() <= 32 {
        return values
            .iter()
            .enumerate()
            .find(|(i, v)| values[..*i].contains(v))
            .map(|(_, v)| *v);
    }
    let mut sorted = values.to_vec();
    sorted.sort_unstable();
    sorted.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// A whole array on one device.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SingleDeviceSharding {
    device_id: i32,
    memory_kind: MemoryKind,
}

impl SingleDeviceSharding {
    /// On device `device_id` (>= 0) in `memory_kind`.
    pub fn new(device_id: i32, memory_kind: MemoryKind) -> Result<Self, Error> {
        if device_id < 0 {
            return Err(InvalidValue::NegativeDeviceId { device_id }.into());
        }
        Ok(SingleDeviceSharding {
            device_id,
            memory_kind,
        })
    }

    /// The device.
    pub fn device_id(&self) -> i32 {
        self.device_id
    }

    /// The memory kind.
    pub fn memory_kind(&self) -> &MemoryKind {
        &self.memory_kind
    }
}

impl Serializable for SingleDeviceSharding {}

impl Sharding for SingleDeviceSharding {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for SingleDeviceSharding {
    /// IFRT's name (xla/python/ifrt/sharding_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::SingleDeviceSharding";
    const FORMATS: Formats = Formats::new("SingleDeviceSharding", &SHARDING_FORMATS);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        let mut proto = SingleDeviceShardingProto {
            version_number: format.value(),
            device_id: self.device_id,
            memory_kind: None,
        };
        self.memory_kind.encode(&mut proto.memory_kind);
        encode_message(&proto, out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: SingleDeviceShardingProto =
            decode_message(data, options, "SingleDeviceShardingProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        let memory_kind = MemoryKind::from_field(proto.memory_kind.as_deref());
        SingleDeviceSharding::new(proto.device_id, memory_kind)
    }
}

/// An array cut by a [`ShardingParam`] over an explicit list of devices, one per mesh position.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct ShardingParamSharding {
    param: ShardingParam,
    devices: Vec<i32>,
    memory_kind: MemoryKind,
}

impl ShardingParamSharding {
    /// `param` over `devices` (distinct ids >= 0, as many as the mesh has positions).
    #[inline]
    pub fn new(
        param: ShardingParam,
        devices: Vec<i32>,
        memory_kind: MemoryKind,
    ) -> Result<Self, Error> {
        if i64::try_from(devices.len()).ok() != Some(param.num_devices()) {
            return Err(InvalidValue::DeviceCountMismatch {
                devices: devices.len(),
                mesh: param.num_devices(),
            }
            .into());
        }
        // Ids in increasing order from 0 or above (the usual list) are distinct and none is
        // negative: one pass. Any other list is checked for both.
        let increasing = devices.first().is_none_or(|first| *first >= 0)
            && devices.windows(2).all(|w| w[0] < w[1]);
        if !increasing {
            if let Some(&device_id) = devices.iter().find(|d| **d < 0) {
                return Err(InvalidValue::NegativeDeviceId { device_id }.into());
            }
            if let Some(device_id) = repeated_value(&devices) {
                return Err(InvalidValue::DuplicateDeviceId { device_id }.into());
            }
        }
        Ok(ShardingParamSharding {
            param,
            devices,
            memory_kind,
        })
    }

    /// The param.
    pub fn param(&self) -> &ShardingParam {
        &self.param
    }

    /// The devices, in mesh order.
    pub fn devices(&self) -> &[i32] {
        &self.devices
    }

    /// The memory kind.
    pub fn memory_kind(&self) -> &MemoryKind {
        &self.memory_kind
    }
}

impl Serializable for ShardingParamSharding {}

impl Sharding for ShardingParamSharding {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for ShardingParamSharding {
    /// IFRT's name (xla/python/ifrt/sharding_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::ShardingParamSharding";
    const FORMATS: Formats = Formats::new("ShardingParamSharding", &SHARDING_FORMATS);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let version = options.version();
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), version)?;
        let devices_format = DEVICE_LIST.record(DEVICE_LIST.oldest(), version)?;
        ShardingParamShardingProto::with_spare(|proto| {
            proto.version_number = format.value();
            // Nested values get the requested version, and record their own formats.
            self.param
                .fill_proto(version, proto.sharding_param.get_or_insert_default())?;
            let devices = proto.devices.get_or_insert_default();
            devices.version_number = devices_format.value();
            refill(&mut devices.device_ids, &self.devices);
            self.memory_kind.encode(&mut proto.memory_kind);
            encode_message(proto, out);
            Ok(())
        })
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        // Decoded into the thread's spare message, whose lists already have room (a fresh
        // message grows its device list one reallocation at a time); each list is then copied
        // out at its exact size.
        ShardingParamShardingProto::with_spare(|proto| {
            proto.version_number = 0;
            // The memory kind's buffer is kept (cleared), like the lists' below.
            match &mut proto.memory_kind {
                Some(name) => name.clear(),
                None => proto.memory_kind = Some(String::new()),
            }
            let param = proto.sharding_param.get_or_insert_default();
            param.version_number = 0;
            param.dim_shards.clear();
            param.permutation.clear();
            param.axis_sizes.clear();
            param.unreduced_axes.clear();
            let devices = proto.devices.get_or_insert_default();
            devices.version_number = 0;
            devices.device_ids.clear();
            decode_message_into(proto, data, options, "ShardingParamShardingProto")?;
            let empty_param = proto.sharding_param.as_ref() == Some(&ShardingParamProto::default());
            let empty_devices = proto.devices.as_ref() == Some(&DeviceListProto::default());
            let empty_memory_kind = proto.memory_kind.as_deref() == Some("");
            if empty_param || empty_devices || empty_memory_kind {
                // An empty part may also be an absent one, which the spare cannot tell apart:
                // decode afresh, to report exactly what is missing (or that no memory kind is
                // given).
                let proto: ShardingParamShardingProto =
                    decode_message(data, options, "ShardingParamShardingProto")?;
                return Self::read(&proto, registry);
            }
            Self::read(proto, registry)
        })
    }
}

impl ShardingParamSharding {
    /// Reads a decoded message by its recorded format, its parts by their own.
    #[inline]
    fn read(proto: &ShardingParamShardingProto, registry: &Registry) -> Result<Self, Error> {
        const WHAT: &str = "ShardingParamSharding";
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        // Nested values are read by their own recorded formats.
        let param = ShardingParam::read(
            proto
                .sharding_param
                .as_ref()
                .ok_or(DecodeError::MissingField {
                    what: WHAT,
                    field: "sharding_param",
                })?,
            registry,
        )?;
        let devices = proto.devices.as_ref().ok_or(DecodeError::MissingField {
            what: WHAT,
            field: "devices",
        })?;
        registry.read_format(&DEVICE_LIST, devices.version_number)?;
        let memory_kind = MemoryKind::from_field(proto.memory_kind.as_deref());
        ShardingParamSharding::new(param, devices.device_ids.to_vec(), memory_kind)
    }
}

#[cfg(test)]
mod spare_tests {
    use super::*;
    use crate::generated::xla::ifrt::DeviceListProto;
    use crate::version::SupportedVersions;
    use prost::Message;

    #[test]
    fn the_spare_reads_as_a_fresh_message_does() {
        let registry = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
        let options = DeserializeOptions::default();
        let fresh = |data: &[u8]| {
            let proto: ShardingParamShardingProto =
                decode_message(data, &options, "ShardingParamShardingProto")?;
            ShardingParamSharding::read(&proto, &registry)
        };
        let valid = ShardingParamShardingProto {
            version_number: 0,
            sharding_param: Some(ShardingParamProto {
                version_number: 1,
                dim_shards: vec![2, 1],
                permutation: vec![1, 0],
                axis_sizes: vec![2, 2],
                unreduced_axes: vec![0],
            }),
            devices: Some(DeviceListProto {
                version_number: 0,
                device_ids: vec![0, 1, 2, 3],
            }),
            memory_kind: Some("device".into()),
        };
        let one_device = ShardingParamShardingProto {
            sharding_param: Some(ShardingParamProto {
                version_number: 0,
                dim_shards: vec![],
                permutation: vec![0],
                axis_sizes: vec![1],
                unreduced_axes: vec![],
            }),
            devices: Some(DeviceListProto {
                version_number: 0,
                device_ids: vec![5],
            }),
            memory_kind: None,
            ..valid.clone()
        };
        let mut twice = valid.encode_to_vec();
        twice.extend(one_device.encode_to_vec());
        let cases = [
            valid.encode_to_vec(),
            one_device.encode_to_vec(),
            twice,
            ShardingParamShardingProto {
                sharding_param: None,
                ..valid.clone()
            }
            .encode_to_vec(),
            ShardingParamShardingProto {
                devices: None,
                ..valid.clone()
            }
            .encode_to_vec(),
            ShardingParamShardingProto {
                devices: Some(DeviceListProto::default()),
                ..one_device.clone()
            }
            .encode_to_vec(),
            ShardingParamShardingProto {
                memory_kind: Some("pinned_host".into()),
                ..valid.clone()
            }
            .encode_to_vec(),
            ShardingParamShardingProto {
                memory_kind: Some(String::new()),
                ..valid.clone()
            }
            .encode_to_vec(),
            ShardingParamShardingProto {
                sharding_param: Some(ShardingParamProto::default()),
                ..one_device.clone()
            }
            .encode_to_vec(),
            ShardingParamShardingProto::default().encode_to_vec(),
            vec![0xff],
        ];
        // Each case after every other, so the spare holds what any case left in it.
        for before in &cases {
            for case in &cases {
                let _ = ShardingParamSharding::deserialize(before, &options, &registry);
                let read = ShardingParamSharding::deserialize(case, &options, &registry);
                assert_eq!(read, fresh(case), "{case:?} after {before:?}");
            }
        }
        assert!(fresh(&cases[0]).is_ok() && fresh(&cases[1]).is_ok());
    }
}
