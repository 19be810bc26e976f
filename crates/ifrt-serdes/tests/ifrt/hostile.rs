//! Hostile bytes: truncated, unknown type names, future versions, huge lengths, garbage. Every
//! one gives a typed error, never a panic.

use std::fs;
use std::path::Path;

use crate::common::{self, GOLDEN_DIR, GOLDEN_TYPES, Wire, all_goldens, built_in, golden_name};
use ifrt_serdes::schema::{ArraySpecProto, DTypeProto, Serialized, ShardingProto};
use ifrt_serdes::version::SerDesVersionNumber;
use ifrt_serdes::{
    ArraySpec, Codec, DType, DecodeError, DeserializeOptions, DeviceList, Error, ProtoCodec,
    Registry, RegistryError, Shape, SingleDeviceSharding,
};
use proptest::prelude::*;
use prost::Message;

fn envelope(type_name: &str, data: Vec<u8>) -> Vec<u8> {
    Serialized {
        type_name: type_name.to_string(),
        data,
    }
    .encode_to_vec()
}

#[test]
fn every_truncation_of_every_golden_file_is_refused_or_different() {
    let registry = built_in();
    for (short, format) in all_goldens() {
        let name = golden_name(short, format);
        let bytes = fs::read(Path::new(GOLDEN_DIR).join(&name)).unwrap();
        let version = SerDesVersionNumber::new(format);
        let mut refused = 0;
        for len in 0..bytes.len() {
            match common::decodes_to_sample(&registry, short, version, &bytes[..len]) {
                Err(_) => refused += 1,
                Ok(same) => assert!(!same, "{name} truncated to {len} still decodes equal"),
            }
        }
        assert!(refused > 0, "{name}");
    }
}

#[test]
fn unknown_type_names_are_refused_in_ifrts_words() {
    let registry = built_in();
    let bytes = envelope("xla::ifrt::Nope", vec![1, 2, 3]);
    let error = registry
        .deserialize_dyn_from_bytes(&bytes, &DeserializeOptions::default())
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Deserialize call failed. Serializable has no associated SerDes implementation. \
         type_name: xla::ifrt::Nope"
    );
}

#[test]
fn future_and_negative_versions_are_refused() {
    let registry = built_in();
    // DType has one format, 0: 1 ... 6 are versions of the history but not DType formats.
    for version in [1, 2, 3, 4, 5, 6, 7, 99, i32::MAX, -1, i32::MIN] {
        let data = DTypeProto {
            version_number: version,
            kind: 11,
        }
        .encode_to_vec();
        let error = registry
            .from_proto_bytes::<DType>(&data, &DeserializeOptions::default())
            .unwrap_err();
        // Above the build's current version: newer; else no format of DType (its only one
        // is 0).
        let why = if version > 6 {
            format!(
                "this build reads IFRT SerDes versions [0, 6], and {version} is newer, written \
                 by a newer build; the writer must request a version both builds support \
                 (negotiate one)"
            )
        } else {
            format!(
                "DType has no format {version} (this build reads IFRT SerDes versions [0, 6]): \
                 the data is damaged or was not written by a codec of DType"
            )
        };
        assert_eq!(
            error.to_string(),
            format!("Unsupported IFRT SerDes version {version} for DType deserialization: {why}")
        );
    }
}

/// Every plain message records its format the same way: a number other than 0 is refused, in
/// IFRT's words, naming the type (IFRT's `FromProto` of each, xla/python/ifrt/shape.cc,
/// device_list.cc, array_spec.cc).
#[test]
fn every_plain_message_refuses_a_format_it_does_not_have() {
    use ifrt_serdes::schema::{DeviceListProto, ShapeProto};
    let registry = built_in();
    let o = DeserializeOptions::default();
    let shape = ShapeProto {
        version_number: 1,
        dims: vec![2],
    }
    .encode_to_vec();
    let devices = DeviceListProto {
        version_number: 5,
        device_ids: vec![0],
    }
    .encode_to_vec();
    let spec = ArraySpecProto {
        version_number: -1,
        ..Default::default()
    }
    .encode_to_vec();
    for (error, what, version) in [
        (registry.from_proto_bytes::<Shape>(&shape, &o), "Shape", 1),
        (
            registry
                .from_proto_bytes::<DeviceList>(&devices, &o)
                .map(|_| Shape::default()),
            "DeviceList",
            5,
        ),
        (
            registry
                .from_proto_bytes::<ArraySpec>(&spec, &o)
                .map(|_| Shape::default()),
            "ArraySpec",
            -1,
        ),
    ] {
        let error = error.unwrap_err().to_string();
        assert!(
            error.starts_with(&format!(
                "Unsupported IFRT SerDes version {version} for {what} deserialization: "
            )),
            "{error}"
        );
    }
}

#[test]
fn huge_lengths_are_refused_before_allocating() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    // Field 2 (data), length-delimited, claiming 2^62 bytes.
    let mut bytes = vec![0x12];
    let mut len: u64 = 1 << 62;
    while len >= 0x80 {
        bytes.push((len as u8) | 0x80);
        len >>= 7;
    }
    bytes.push(len as u8);
    assert!(matches!(
        registry.deserialize_dyn_from_bytes(&bytes, &o),
        Err(Error::Decode(DecodeError::Truncated {
            what: "Serialized",
            field: 2,
            len: 0x4000_0000_0000_0000,
            ..
        }))
    ));
    // A packed `dims` field claiming more elements than the input holds, in a plain
    // ShapeProto, and a packed `device_ids` in a DeviceListProto.
    for (read, what) in [
        (
            read_plain::<Shape> as fn(&Registry, &[u8], &DeserializeOptions) -> Result<(), Error>,
            "xla.ifrt.ShapeProto",
        ),
        (read_plain::<DeviceList>, "xla.ifrt.DeviceListProto"),
    ] {
        let mut data = vec![0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f];
        data.extend([1u8; 16]);
        let error = read(&registry, &data, &o).unwrap_err();
        assert!(
            matches!(error, Error::Decode(DecodeError::Malformed { what: w, .. }) if w == what),
            "{error:?}"
        );
    }
    // Inputs over the caller's limit are refused unread: envelopes and plain messages.
    let small = DeserializeOptions { max_bytes: 8 };
    let bytes = envelope(SingleDeviceSharding::TYPE_NAME, vec![0; 16]);
    assert_eq!(
        registry
            .deserialize_dyn_from_bytes(&bytes, &small)
            .unwrap_err(),
        Error::Decode(DecodeError::TooLarge {
            len: bytes.len(),
            limit: 8
        })
    );
    let shape = [0x0a, 0x09, 1, 2, 3, 4, 5, 6, 7, 8, 9];
    assert_eq!(
        registry.from_proto_bytes::<Shape>(&shape, &small),
        Err(Error::Decode(DecodeError::TooLarge { len: 11, limit: 8 }))
    );
}

/// `T`'s plain message, read and dropped.
fn read_plain<T: ProtoCodec>(
    registry: &Registry,
    bytes: &[u8],
    options: &DeserializeOptions,
) -> Result<(), Error> {
    registry.from_proto_bytes::<T>(bytes, options).map(|_| ())
}

#[test]
fn structurally_wrong_messages_are_refused() {
    let registry = built_in();
    let o = DeserializeOptions::default();
    // An ArraySpec without its parts (empty bytes: every field absent).
    assert_eq!(
        registry.from_proto_bytes::<ArraySpec>(&[], &o).unwrap_err(),
        Error::Decode(DecodeError::MissingField {
            what: "ArraySpec",
            field: "dtype"
        })
    );
    // An ArraySpec whose "sharding" is a DType, or an ArraySpec: no recursion, a typed error
    // (IFRT has no SerDes for either), and one whose sharding is registered but no sharding.
    let mut with_label = built_in();
    with_label.register::<Label>().unwrap();
    for (inner, registry) in [
        ("xla::ifrt::DType", &registry),
        ("xla::ifrt::ArraySpec", &registry),
        (Label::TYPE_NAME, &with_label),
    ] {
        let proto = ArraySpecProto {
            version_number: 0,
            dtype: Some(DTypeProto {
                version_number: 0,
                kind: 11,
            }),
            shape: Some(Default::default()),
            sharding: Some(ShardingProto {
                serialized_sharding: Some(Serialized {
                    type_name: inner.to_string(),
                    data: vec![],
                }),
            }),
            layout: None,
        };
        let result = registry.from_proto_bytes::<ArraySpec>(&proto.encode_to_vec(), &o);
        let error = result.unwrap_err();
        match inner {
            "example::Label" => assert!(
                matches!(error, Error::Registry(RegistryError::NotASharding { .. })),
                "{error:?}"
            ),
            _ => assert!(
                matches!(
                    error,
                    Error::Registry(RegistryError::SentAsPlainProto { .. })
                ),
                "{error:?}"
            ),
        }
    }
    // An unknown dtype kind, and the unspecified one (IFRT reads both as its `kInvalid` kind,
    // which this crate does not have).
    for kind in [1000, 0] {
        let bad_kind = DTypeProto {
            version_number: 0,
            kind,
        };
        assert_eq!(
            registry.from_proto_bytes::<DType>(&bad_kind.encode_to_vec(), &o),
            Err(Error::Decode(DecodeError::UnknownDType { kind }))
        );
    }
    // A negative device id: no client has such a device.
    let devices = ifrt_serdes::schema::DeviceListProto {
        version_number: 0,
        device_ids: vec![0, -2],
    };
    assert_eq!(
        registry.from_proto_bytes::<DeviceList>(&devices.encode_to_vec(), &o),
        Err(Error::Invalid(
            ifrt_serdes::InvalidValue::NegativeDeviceId { device_id: -2 }
        ))
    );
}

/// A registered type that is no sharding.
#[derive(Debug, PartialEq)]
struct Label;

impl ifrt_serdes::Serializable for Label {}

impl Codec for Label {
    const TYPE_NAME: &'static str = "example::Label";
    const FORMATS: ifrt_serdes::Formats =
        ifrt_serdes::Formats::new("Label", &[SerDesVersionNumber::new(0)]);

    fn serialize_into(
        &self,
        _: &ifrt_serdes::SerializeOptions,
        _: &Registry,
        _: &mut Vec<u8>,
    ) -> Result<(), Error> {
        Ok(())
    }

    fn deserialize(_: &[u8], _: &DeserializeOptions, _: &Registry) -> Result<Self, Error> {
        Ok(Label)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn garbage_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..256)) {
        let registry = built_in();
        let _ = registry.deserialize_dyn_from_bytes(&bytes, &DeserializeOptions::default());
    }

    #[test]
    fn garbage_data_under_every_type_name_never_panics(
        pick in any::<usize>(),
        data in proptest::collection::vec(any::<u8>(), 0..128),
    ) {
        let registry = built_in();
        let o = DeserializeOptions::default();
        let (short, wire) = GOLDEN_TYPES[pick % GOLDEN_TYPES.len()];
        match wire {
            Wire::Envelope(type_name) => {
                let _ = registry.deserialize_dyn_from_bytes(&envelope(type_name, data), &o);
            }
            // A plain message's bytes are the data itself.
            Wire::Proto(_) => {
                let _ = common::decodes_to_sample(&registry, short, SerDesVersionNumber::new(0), &data);
            }
        }
    }

    #[test]
    fn flipped_bytes_in_goldens_never_panic(pick in any::<usize>(), at in any::<usize>(), to in any::<u8>()) {
        let registry = built_in();
        let goldens = all_goldens();
        let (short, format) = goldens[pick % goldens.len()];
        let name = golden_name(short, format);
        let mut bytes = fs::read(Path::new(GOLDEN_DIR).join(name)).unwrap();
        let at = at % bytes.len();
        bytes[at] = to;
        let _ = common::decodes_to_sample(&registry, short, SerDesVersionNumber::new(format), &bytes);
        let _ = registry.deserialize_dyn_from_bytes(&bytes, &DeserializeOptions::default());
    }
}

/// The new payloads under hostile input: deep nesting, lengths past the end, a program header
/// without its terminator; each is a typed error, and the program's bytecode after its header
/// is never parsed.
#[test]
fn hostile_payloads_of_the_new_types_are_typed_errors() {
    use ifrt_serdes::XlaProgram;
    use ifrt_serdes::schema::xla::OpSharding;
    let registry = built_in();
    let o = DeserializeOptions::default();
    // An OpSharding nested deeper than protobuf's recursion limit: refused while decoding,
    // without recursing that deep.
    // `field` length-delimited, holding `inner`.
    let wrap = |field: u8, inner: &[u8]| {
        let mut out = vec![field << 3 | 2];
        let mut n = inner.len();
        while n >= 0x80 {
            out.push((n as u8 & 0x7f) | 0x80);
            n >>= 7;
        }
        out.push(n as u8);
        out.extend_from_slice(inner);
        out
    };
    let mut nested = Vec::new();
    for _ in 0..5000 {
        nested = wrap(5, &nested); // OpSharding.tuple_shardings
    }
    let _ = OpSharding::decode(nested.as_slice()).unwrap_err();
    let hlo = wrap(2, &nested); // HloShardingProto.xla_op_sharding
    let error = registry
        .deserialize_dyn_from_bytes(&envelope("xla::ifrt::HloSharding", hlo), &o)
        .unwrap_err();
    assert!(
        matches!(error, Error::Decode(DecodeError::Malformed { .. })),
        "{error:?}"
    );
    // A program is its header and opaque bytecode: anything after a valid header is kept.
    let mut program = b"ML\xefR\x0dStableHLO_v1.13.4\0".to_vec();
    program.extend([0xff; 64]);
    let read: XlaProgram = registry
        .deserialize_from_bytes(&envelope("xla::ifrt::XlaProgram", program.clone()), &o)
        .unwrap();
    assert_eq!(read.producer(), "StableHLO_v1.13.4");
    assert_eq!(read.bytecode(), program);
    // A producer without its terminator is refused after at most 1024 bytes of looking.
    let mut unterminated = b"ML\xefR\x0d".to_vec();
    unterminated.extend(vec![b'a'; 1 << 20]);
    let error = registry
        .deserialize_dyn_from_bytes(&envelope("xla::ifrt::XlaProgram", unterminated), &o)
        .unwrap_err();
    assert!(
        error
            .to_string()
            .starts_with("XlaProgram payload is not MLIR bytecode: "),
        "{error}"
    );
    // Compile options whose field 1 claims more bytes than there are.
    let error = registry
        .deserialize_dyn_from_bytes(
            &envelope(
                "xla::ifrt::XlaCompileOptions",
                vec![0x0a, 0xff, 0xff, 0x03, 1],
            ),
            &o,
        )
        .unwrap_err();
    assert!(
        matches!(
            error,
            Error::Decode(DecodeError::Truncated { field: 1, .. })
        ),
        "{error:?}"
    );
    // A concrete sharding with a billion shard shapes claimed but not there.
    let error = registry
        .deserialize_dyn_from_bytes(
            &envelope(
                "xla::ifrt::ConcreteSharding",
                vec![0x1a, 0xff, 0xff, 0xff, 0xff, 0x0f],
            ),
            &o,
        )
        .unwrap_err();
    assert!(
        matches!(error, Error::Decode(DecodeError::Malformed { .. })),
        "{error:?}"
    );
}
