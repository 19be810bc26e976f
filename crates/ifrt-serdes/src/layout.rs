//! The array layouts IFRT serializes (jaxlib 0.9 and later): [`CompactLayout`], a dimension
//! order, and [`PjRtLayout`], an XLA layout.
//!
//! Formats, as IFRT writes and reads them (xla/python/ifrt/layout_serdes.cc,
//! xla/python/pjrt_ifrt/pjrt_layout_serdes.cc): format 0 only for each. A `PjRtLayout` keeps
//! XLA's `LayoutProto` as it travels ([`schema::xla::LayoutProto`](crate::schema::xla)), so that
//! what is read is written back byte for byte.

use crate::codec::{
    Codec, DeserializeOptions, Serializable, SerializeOptions, decode_message, encode_message,
};
use crate::error::{Error, InvalidValue};
use crate::format::Formats;
use crate::generated::xla::LayoutProto;
use crate::generated::xla::ifrt::{CompactLayoutProto, PjRtLayoutProto};
use crate::registry::Registry;
use crate::version::SerDesVersionNumber;

/// Format 0, the only one of each layout.
const ONLY_FORMAT: &[SerDesVersionNumber] = &[SerDesVersionNumber::new(0)];

/// Checks that `order` holds each of `0..order.len()` once.
fn check_order(what: &'static str, field: &'static str, order: &[i64]) -> Result<(), Error> {
    let mut seen = vec![false; order.len()];
    let fine = order.iter().all(|&dim| {
        usize::try_from(dim)
            .ok()
            .and_then(|dim| seen.get_mut(dim))
            .is_some_and(|slot| !std::mem::replace(slot, true))
    });
    if fine {
        Ok(())
    } else {
        Err(InvalidValue::NotADimensionOrder {
            what,
            field,
            order: order.to_vec(),
        }
        .into())
    }
}

/// A dense layout given by its dimension order, major to minor (IFRT's `CompactLayout`,
/// xla/python/ifrt/layout.h).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct CompactLayout {
    major_to_minor: Vec<i32>,
}

impl CompactLayout {
    /// The layout whose dimensions are ordered `major_to_minor`: a permutation of `0..n`.
    pub fn new(major_to_minor: Vec<i32>) -> Result<Self, Error> {
        let order: Vec<i64> = major_to_minor.iter().map(|d| i64::from(*d)).collect();
        check_order("CompactLayout", "major_to_minor", &order)?;
        Ok(CompactLayout { major_to_minor })
    }

    /// The dimensions, major to minor.
    pub fn major_to_minor(&self) -> &[i32] {
        &self.major_to_minor
    }
}

impl Serializable for CompactLayout {}

impl Codec for CompactLayout {
    /// IFRT's name (xla/python/ifrt/layout_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::CompactLayout";
    const FORMATS: Formats = Formats::new("CompactLayout", ONLY_FORMAT);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        let proto = CompactLayoutProto {
            major_to_minor: self.major_to_minor.clone(),
            version_number: format.value(),
        };
        encode_message(&proto, out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: CompactLayoutProto = decode_message(data, options, "CompactLayoutProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        CompactLayout::new(proto.major_to_minor)
    }
}

/// A layout as PjRt describes it: an XLA layout (IFRT's `PjRtLayout`,
/// xla/python/pjrt_ifrt/pjrt_layout.h).
#[derive(Clone, Debug, PartialEq)]
pub struct PjRtLayout {
    xla_layout: LayoutProto,
}

impl PjRtLayout {
    /// The layout `xla_layout`, whose `minor_to_major` is a permutation of `0..n`.
    pub fn new(xla_layout: LayoutProto) -> Result<Self, Error> {
        check_order("PjRtLayout", "minor_to_major", &xla_layout.minor_to_major)?;
        Ok(PjRtLayout { xla_layout })
    }

    /// XLA's layout, as it travels.
    pub fn xla_layout(&self) -> &LayoutProto {
        &self.xla_layout
    }
}

impl Serializable for PjRtLayout {}

impl Codec for PjRtLayout {
    /// IFRT's name (xla/python/pjrt_ifrt/pjrt_layout_serdes.cc).
    const TYPE_NAME: &'static str = "xla::ifrt::PjRtLayout";
    const FORMATS: Formats = Formats::new("PjRtLayout", ONLY_FORMAT);

    fn serialize_into(
        &self,
        options: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        let proto = PjRtLayoutProto {
            xla_layout: Some(self.xla_layout.clone()),
            version_number: format.value(),
        };
        encode_message(&proto, out);
        Ok(())
    }

    fn deserialize(
        data: &[u8],
        options: &DeserializeOptions,
        registry: &Registry,
    ) -> Result<Self, Error> {
        let proto: PjRtLayoutProto = decode_message(data, options, "PjRtLayoutProto")?;
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        PjRtLayout::new(proto.xla_layout.unwrap_or_default())
    }
}
