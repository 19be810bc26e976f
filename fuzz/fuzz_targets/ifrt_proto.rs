//! Reading arbitrary bytes as each plain message IFRT sends outside any envelope (`DTypeProto`,
//! `ShapeProto`, `DeviceListProto`, and `ArraySpecProto` with its nested sharding envelope read
//! through the registry) returns a value or a typed error, never panics. Inspecting the bytes
//! agrees with reading them. Whatever reads back is written again in every version the build
//! supports: the bytes read back to an equal value, record no format newer than the requested
//! version, are stable under write, read, write, and are the bytes of the message built afresh.
#![no_main]

use ifrt_serdes::version::SupportedVersions;
use ifrt_serdes::{
    ArraySpec, DType, DeserializeOptions, DeviceList, ProtoCodec, Registry, SerializeOptions,
    Shape,
};
use libfuzzer_sys::fuzz_target;
use prost::Message;

fn check<T: ProtoCodec + PartialEq>(registry: &Registry, data: &[u8]) {
    let supported = registry.supported();
    let read = DeserializeOptions::default();
    let (inspected, formats) = registry.inspect_proto_bytes::<T>(data, &read);
    let Ok(value) = registry.from_proto_bytes::<T>(data, &read) else {
        assert!(inspected.is_err(), "inspect agrees with reading");
        return;
    };
    assert!(inspected.is_ok(), "inspect agrees with reading");
    for recorded in &formats {
        assert!(recorded.formats.readable_by(recorded.recorded, supported));
    }
    for entry in supported.history() {
        let Ok(version) = supported.version(entry.number()) else {
            continue;
        };
        let options = SerializeOptions::new(version);
        // Some values cannot be written in old versions; that is an error, not a panic.
        let Ok(bytes) = registry.to_proto_bytes(&value, &options) else {
            continue;
        };
        let (again, formats) = registry.inspect_proto_bytes::<T>(&bytes, &read);
        let again = again.expect("bytes the registry wrote read back");
        assert!(again == value, "read back equal at {version}");
        for recorded in &formats {
            assert!(recorded.recorded <= version.number(), "{recorded:?} for {version}");
            assert!(recorded.formats.readable_by(recorded.recorded, supported));
        }
        let rewritten = registry
            .to_proto_bytes(&again, &options)
            .expect("a value read back writes again");
        assert_eq!(rewritten, bytes, "write, read, write is stable");
        let message = registry.to_proto(&value, &options).expect("the message too");
        assert_eq!(message.encode_to_vec(), bytes, "the message's bytes");
    }
}

fuzz_target!(|data: &[u8]| {
    let registry = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
    check::<DType>(&registry, data);
    check::<Shape>(&registry, data);
    check::<DeviceList>(&registry, data);
    check::<ArraySpec>(&registry, data);
});
