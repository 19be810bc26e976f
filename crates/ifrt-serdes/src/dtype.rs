//! Element types. One format so far, format 0: `{ kind = 1, version_number = 2 }`
//! (xla/python/ifrt/dtype.proto; `version_number` since jaxlib 0.6.2, absent before). IFRT's
//! `DType::ToProto` (xla/python/ifrt/dtype.cc) records `SerDesVersionNumber(0)` whatever
//! version is requested, and `FromProto` refuses every other number. A `DType` travels as a
//! plain `DTypeProto`, never in a SerDes envelope ([`ProtoCodec`]).

use crate::codec::SerializeOptions;
use crate::error::{DecodeError, Error};
use crate::format::Formats;
use crate::generated::xla::ifrt::DTypeProto;
use crate::proto_codec::ProtoCodec;
use crate::registry::Registry;
use crate::version::SerDesVersionNumber;

/// The element type of an array (IFRT's `DType::Kind`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum DType {
    Pred,
    S1,
    S2,
    S4,
    S8,
    S16,
    S32,
    S64,
    U1,
    U2,
    U4,
    U8,
    U16,
    U32,
    U64,
    F16,
    F32,
    F64,
    BF16,
    C64,
    C128,
    Token,
    Opaque,
    F8E3M4,
    F8E4M3,
    F8E4M3FN,
    F8E4M3B11FNUZ,
    F8E4M3FNUZ,
    F8E5M2,
    F8E5M2FNUZ,
    F8E8M0FNU,
    F4E2M1FN,
    String,
}

/// Each kind and its number on the wire (xla/python/ifrt/dtype.proto, `DTypeProto.Kind`; the
/// numbers are XLA's `PrimitiveType`).
pub const DTYPE_KINDS: &[(DType, i32)] = &[
    (DType::Pred, 1),
    (DType::S1, 32),
    (DType::S2, 26),
    (DType::S4, 21),
    (DType::S8, 2),
    (DType::S16, 3),
    (DType::S32, 4),
    (DType::S64, 5),
    (DType::U1, 33),
    (DType::U2, 27),
    (DType::U4, 22),
    (DType::U8, 6),
    (DType::U16, 7),
    (DType::U32, 8),
    (DType::U64, 9),
    (DType::F16, 10),
    (DType::F32, 11),
    (DType::F64, 12),
    (DType::BF16, 16),
    (DType::C64, 15),
    (DType::C128, 18),
    (DType::Token, 17),
    (DType::Opaque, 14),
    (DType::F8E3M4, 29),
    (DType::F8E4M3, 28),
    (DType::F8E4M3FN, 20),
    (DType::F8E4M3B11FNUZ, 23),
    (DType::F8E4M3FNUZ, 25),
    (DType::F8E5M2, 19),
    (DType::F8E5M2FNUZ, 24),
    (DType::F8E8M0FNU, 31),
    (DType::F4E2M1FN, 30),
    (DType::String, 99),
];

/// [`DTYPE_KINDS`] indexed by `DType`, built from it at compile time (a kind missing from the
/// table fails the build).
const NUMBERS: [i32; DTYPE_KINDS.len()] = {
    let mut numbers = [0; DTYPE_KINDS.len()];
    let mut i = 0;
    while i < DTYPE_KINDS.len() {
        let (dtype, number) = DTYPE_KINDS[i];
        numbers[dtype as usize] = number;
        i += 1;
    }
    numbers
};

/// [`DTYPE_KINDS`] indexed by wire number, built from it at compile time.
const BY_NUMBER: [Option<DType>; 100] = {
    let mut kinds = [None; 100];
    let mut i = 0;
    while i < DTYPE_KINDS.len() {
        let (dtype, number) = DTYPE_KINDS[i];
        kinds[number as usize] = Some(dtype);
        i += 1;
    }
    kinds
};

impl DType {
    /// Its wire number.
    pub fn kind_number(self) -> i32 {
        NUMBERS[self as usize]
    }

    /// The kind with wire number `number`, if any.
    pub fn from_kind_number(number: i32) -> Option<Self> {
        usize::try_from(number)
            .ok()
            .and_then(|number| BY_NUMBER.get(number).copied().flatten())
    }
}

impl ProtoCodec for DType {
    type Proto = DTypeProto;
    const PROTO_NAME: &'static str = "xla.ifrt.DTypeProto";
    const FORMATS: Formats = Formats::new("DType", &[SerDesVersionNumber::new(0)]);

    /// Format 0, the only one so far, for every version (IFRT's `DType::ToProto`).
    fn to_proto(&self, options: &SerializeOptions, _: &Registry) -> Result<DTypeProto, Error> {
        let format = Self::FORMATS.record(Self::FORMATS.oldest(), options.version())?;
        Ok(DTypeProto {
            version_number: format.value(),
            kind: self.kind_number(),
        })
    }

    /// IFRT's `DType::FromProto`. Where IFRT reads a kind it does not know as its `kInvalid`
    /// kind, this crate, which has no such kind, refuses it ([`DecodeError::UnknownDType`]).
    #[inline]
    fn from_proto(proto: DTypeProto, registry: &Registry) -> Result<Self, Error> {
        registry.read_format(&Self::FORMATS, proto.version_number)?;
        DType::from_kind_number(proto.kind)
            .ok_or_else(|| DecodeError::UnknownDType { kind: proto.kind }.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lookup_tables_agree_with_the_fact_table() {
        for &(dtype, number) in DTYPE_KINDS {
            assert_eq!(dtype.kind_number(), number);
            assert_eq!(DType::from_kind_number(number), Some(dtype));
        }
        let known = |n: i32| DTYPE_KINDS.iter().any(|(_, number)| *number == n);
        for n in (-3..130).filter(|n| !known(*n)) {
            assert_eq!(DType::from_kind_number(n), None, "{n}");
        }
        assert_eq!(DType::from_kind_number(i32::MIN), None);
        assert_eq!(DType::from_kind_number(i32::MAX), None);
    }
}
