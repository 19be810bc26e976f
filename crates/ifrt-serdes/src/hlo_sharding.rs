//! [`HloSharding`]: the sharding real IFRT clients send (jaxlib 0.5.3 and later), an XLA
//! `OpSharding` over an explicit device list.
//!
//! Format, as IFRT writes and reads it (xla/python/pjrt_ifrt/xla_sharding_serdes.cc): format 0
//! only, `{ devices, xla_op_sharding, memory_kind, version_number }`; the memory kind is its
//! name, absent for the default one; the device list records its own format. Releases before
//! jaxlib 0.6.2 have no `version_number` field, which reads as 0, the same bytes.
//!
//! The `OpSharding` is kept as XLA's message ([`schema::xla::OpSharding`](crate::schema::xla)),
//! so that what is read is written back byte for byte; it is checked by the rules of XLA's
//! `HloSharding::FromProto` (xla/hlo/ir/hlo_sharding.cc), not interpreted further.

use std::any::Any;

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, Sharding, decode_message,
    encode_message,
};
use crate::error::{Error, InvalidValue};
use crate::format::Formats;
use crate::generated::xla::ifrt::HloShardingProto;
use crate::generated::xla::{OpSharding, op_sharding};
use crate::registry::Registry;
use crate::sharding::{MemoryKind, check_devices, devices_proto, read_devices};
use crate::version::SerDesVersionNumber;

/// An array sharded as XLA shards an HLO value (IFRT's `HloSharding`,
/// xla/python/pjrt_ifrt/xla_sharding.h): an [`OpSharding`] whose tile assignment indexes into
/// `devices`.
#[derive(Clone, Debug, PartialEq)]
pub struct HloSharding {
    devices: Vec<i32>,
    memory_kind: MemoryKind,
    op_sharding: OpSharding,
}

impl HloSharding {
    /// `op_sharding` over `devices` (distinct ids >= 0) in `memory_kind`. The sharding must be
    /// one XLA's `HloSharding::FromProto` accepts ([`InvalidValue::OpSharding`] says which rule
    /// it breaks).
    pub fn new(
        devices: Vec<i32>,
        memory_kind: MemoryKind,
        op_sharding: OpSharding,
    ) -> Result<Self, Error> {
        check_devices(&devices)?;
        check_op_sharding(&op_sharding)?;
        Ok(HloSharding {
            devices,
            memory_kind,
            op_sharding,
        })
    }

    /// The devices, in the order the tile assignment indexes them.
    pub fn devices(&self) -> &[i32] {
        &self.devices
    }

    /// The memory kind.
    pub fn memory_kind(&self) -> &MemoryKind {
        &self.memory_kind
    }

    /// XLA's sharding, as it travels.
    pub fn op_sharding(&self) -> &OpSharding {
        &self.op_sharding
    }
}

impl Serializable for HloSharding {}

impl Sharding for HloSharding {
    fn same_as(&self, other: &dyn Sharding) -> bool {
        (other as &dyn Any).downcast_ref::<Self>() == Some(self)
    }
}

impl Codec for HloSharding {
    /// IFRT's name (xla/python/pjrt_ifrt/xla_sharding_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::HloSharding";
    const FORMATS: Formats = Formats::new("HloSharding", &[SerDesVersionNumber::new(0)]);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        // IFRT writes no named-mesh sharding (XLA's HloShardingV3).
        if uses_named_sharding(&self.op_sharding) {
            return Err(InvalidValue::HloShardingV3NotSerializable.into());
        }
        let version = options.version();
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), version)?;
        let mut proto = HloShardingProto {
            devices: Some(devices_proto(&self.devices, version)?),
            xla_op_sharding: Some(self.op_sharding.clone()),
            memory_kind: None,
            version_number: format.value(),
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
        let proto: HloShardingProto = decode_message(data, options, "HloShardingProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        let devices = read_devices(proto.devices, registry)?;
        let memory_kind = MemoryKind::from_field(proto.memory_kind.as_deref());
        HloSharding::new(
            devices,
            memory_kind,
            proto.xla_op_sharding.unwrap_or_default(),
        )
    }
}

/// Whether `sharding` (or a tuple element of it) is a named-mesh sharding.
fn uses_named_sharding(sharding: &OpSharding) -> bool {
    sharding.named_sharding.is_some() || sharding.tuple_shardings.iter().any(uses_named_sharding)
}

/// Checks `proto` by the rules of XLA's `HloSharding::FromProto` (xla/hlo/ir/hlo_sharding.cc).
/// Nesting is bounded by prost's decoding limit (100 levels), and checked iteratively.
fn check_op_sharding(proto: &OpSharding) -> Result<(), InvalidValue> {
    let mut pending = vec![proto];
    while let Some(sharding) = pending.pop() {
        check_one(sharding)?;
        pending.extend(&sharding.tuple_shardings);
    }
    Ok(())
}

fn refuse(reason: String) -> InvalidValue {
    InvalidValue::OpSharding { reason }
}

/// The rules for one sharding, not its tuple elements.
fn check_one(proto: &OpSharding) -> Result<(), InvalidValue> {
    use op_sharding::Type;
    let kind = Type::try_from(proto.r#type)
        .map_err(|_| refuse(format!("unknown OpSharding.Type {}", proto.r#type)))?;
    if let Some(&last) = proto
        .last_tile_dims
        .iter()
        .find(|t| Type::try_from(**t).is_err())
    {
        return Err(refuse(format!(
            "unknown OpSharding.Type {last} in last_tile_dims"
        )));
    }
    match kind {
        Type::Tuple => {
            if !proto.metadata.is_empty() {
                return Err(refuse(
                    "Tuple sharding is expected to have no metadata.".to_string(),
                ));
            }
            return Ok(());
        }
        Type::Replicated | Type::Manual | Type::Unknown | Type::Unreduced => return Ok(()),
        Type::Maximal | Type::Other => {}
    }
    // A named-mesh sharding (HloShardingV3) carries its own description; XLA reads it from
    // there, and this crate keeps it as it is.
    if proto.named_sharding.is_some() {
        return Ok(());
    }
    // One device, or an iota of ones: a sharding to one device.
    if proto.tile_assignment_devices.len() == 1
        || (!proto.iota_reshape_dims.is_empty() && proto.iota_reshape_dims.iter().all(|d| *d == 1))
    {
        return Ok(());
    }
    if kind == Type::Maximal {
        return Err(refuse(format!(
            "Maximal sharding is expected to have single device assignment, but {} has provided.",
            proto.tile_assignment_devices.len()
        )));
    }
    let iota = !proto.iota_reshape_dims.is_empty();
    if iota {
        if !proto.tile_assignment_devices.is_empty() {
            return Err(refuse(
                "an iota tile assignment (iota_reshape_dims) lists no tile_assignment_devices"
                    .to_string(),
            ));
        }
        if proto.iota_reshape_dims.len() != proto.iota_transpose_perm.len() {
            return Err(refuse(format!(
                "iota_reshape_dims has {} entries and iota_transpose_perm {}; they must match",
                proto.iota_reshape_dims.len(),
                proto.iota_transpose_perm.len()
            )));
        }
        if !is_permutation(&proto.iota_transpose_perm) {
            return Err(refuse(format!(
                "iota_transpose_perm {:?} is not a permutation of its dimensions",
                proto.iota_transpose_perm
            )));
        }
    } else if proto.tile_assignment_devices.len() <= 1 {
        return Err(refuse(
            "a tiled sharding (type OTHER) lists more than one tile_assignment_devices, or an \
             iota_reshape_dims"
                .to_string(),
        ));
    }
    if proto.tile_assignment_dimensions.is_empty() {
        return Err(refuse(
            "a tiled sharding has tile_assignment_dimensions".to_string(),
        ));
    }
    let tiles = positive_product(
        "tile_assignment_dimensions",
        &proto.tile_assignment_dimensions,
    )?;
    let devices = if iota {
        positive_product("iota_reshape_dims", &proto.iota_reshape_dims)?
    } else {
        proto.tile_assignment_devices.len() as i64
    };
    if tiles != devices {
        return Err(refuse(format!(
            "the tile assignment has {tiles} tiles (the product of tile_assignment_dimensions) \
             but {devices} devices"
        )));
    }
    if !proto.last_tile_dims.is_empty() {
        if proto.replicate_on_last_tile_dim {
            return Err(refuse(
                "last_tile_dims and replicate_on_last_tile_dim exclude each other".to_string(),
            ));
        }
        if proto.last_tile_dims.len() > proto.tile_assignment_dimensions.len() {
            return Err(refuse(format!(
                "{} last_tile_dims for {} tile assignment dimensions",
                proto.last_tile_dims.len(),
                proto.tile_assignment_dimensions.len()
            )));
        }
    }
    Ok(())
}

/// The product of `dims`, each of which must be positive, without overflow.
fn positive_product(field: &str, dims: &[i64]) -> Result<i64, InvalidValue> {
    dims.iter().try_fold(1i64, |product, &dim| {
        if dim <= 0 {
            return Err(refuse(format!(
                "{field} has a dimension {dim}; each must be > 0"
            )));
        }
        product
            .checked_mul(dim)
            .ok_or_else(|| refuse(format!("the product of {field} overflows an int64")))
    })
}

/// Whether `perm` holds each of `0..perm.len()` once.
fn is_permutation(perm: &[i32]) -> bool {
    let mut seen = vec![false; perm.len()];
    perm.iter().all(|&p| {
        usize::try_from(p)
            .ok()
            .and_then(|p| seen.get_mut(p))
            .is_some_and(|slot| !std::mem::replace(slot, true))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use op_sharding::Type;

    fn tiled(dims: Vec<i64>, devices: Vec<i64>) -> OpSharding {
        OpSharding {
            r#type: Type::Other as i32,
            tile_assignment_dimensions: dims,
            tile_assignment_devices: devices,
            ..OpSharding::default()
        }
    }

    #[test]
    fn xlas_rules_for_op_shardings() {
        let ok = [
            OpSharding::default(),
            OpSharding {
                r#type: Type::Maximal as i32,
                tile_assignment_devices: vec![3],
                ..OpSharding::default()
            },
            tiled(vec![2, 2], vec![0, 1, 2, 3]),
            OpSharding {
                r#type: Type::Other as i32,
                tile_assignment_dimensions: vec![2, 1, 2],
                replicate_on_last_tile_dim: true,
                iota_reshape_dims: vec![4],
                iota_transpose_perm: vec![0],
                ..OpSharding::default()
            },
            OpSharding {
                r#type: Type::Tuple as i32,
                tuple_shardings: vec![OpSharding::default(), tiled(vec![2], vec![1, 0])],
                ..OpSharding::default()
            },
        ];
        for sharding in &ok {
            assert_eq!(check_op_sharding(sharding), Ok(()), "{sharding:?}");
        }
        let bad = [
            (
                OpSharding {
                    r#type: 9,
                    ..OpSharding::default()
                },
                "unknown OpSharding.Type 9",
            ),
            (
                OpSharding {
                    r#type: Type::Maximal as i32,
                    tile_assignment_devices: vec![0, 1, 2],
                    ..OpSharding::default()
                },
                "Maximal sharding is expected to have single device assignment, but 3 has \
                 provided.",
            ),
            (
                tiled(vec![2, 2], vec![0, 1, 2]),
                "the tile assignment has 4 tiles",
            ),
            (tiled(vec![2, 0], vec![0, 1]), "has a dimension 0"),
            (tiled(vec![], vec![0, 1]), "has tile_assignment_dimensions"),
            (tiled(vec![i64::MAX, 4], vec![0, 1]), "overflows an int64"),
            (
                OpSharding {
                    iota_reshape_dims: vec![2, 2],
                    iota_transpose_perm: vec![1, 1],
                    ..tiled(vec![4], vec![])
                },
                "is not a permutation",
            ),
            (
                OpSharding {
                    r#type: Type::Tuple as i32,
                    tuple_shardings: vec![tiled(vec![3], vec![0, 1])],
                    ..OpSharding::default()
                },
                "the tile assignment has 3 tiles",
            ),
        ];
        for (sharding, says) in bad {
            let error = check_op_sharding(&sharding).unwrap_err().to_string();
            assert!(error.contains(says), "{error} / {says}");
            assert!(error.starts_with("invalid xla.OpSharding (XLA's HloSharding::FromProto"));
        }
    }
}
