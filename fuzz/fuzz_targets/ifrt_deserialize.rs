//! Deserializing arbitrary bytes through an ifrt-serdes registry (every built-in SerDes type:
//! the shardings, nested ones included, the layouts, a program and compile options; the plain
//! messages IFRT sends outside envelopes have `ifrt_proto`) returns a value or a typed error,
//! never panics. Whatever reads back is written again in every version the build supports, and
//! written-then-read must be stable. Inspecting the bytes agrees with reading them, and every
//! value written records a format no newer than the requested version, which the writing build
//! itself reads.
//!
//! The input is read twice: as envelope bytes (any type name), and as a payload under the type
//! name its first byte picks among the registered ones, so that every payload (an HloSharding's
//! OpSharding, a ConcreteSharding's shapes, a program's MLIR bytecode header, compile options,
//! layouts) is fuzzed without the fuzzer having to find the type names first.
#![no_main]

use ifrt_serdes::schema::Serialized;
use ifrt_serdes::version::SupportedVersions;
use ifrt_serdes::{DeserializeOptions, Registry, SerializeOptions};
use libfuzzer_sys::fuzz_target;
use prost::Message;

fuzz_target!(|data: &[u8]| {
    let registry = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
    check(&registry, data);
    if let Some((&pick, payload)) = data.split_first() {
        let names: Vec<&str> = registry.registered().map(|(name, _)| name).collect();
        let envelope = Serialized {
            type_name: names[usize::from(pick) % names.len()].to_string(),
            data: payload.to_vec(),
        };
        check(&registry, &envelope.encode_to_vec());
    }
});

fn check(registry: &Registry, data: &[u8]) {
    let supported = registry.supported();
    let read = DeserializeOptions::default();
    let (inspected, formats) = registry.inspect_bytes(data, &read);
    let Ok(value) = registry.deserialize_dyn_from_bytes(data, &read) else {
        assert!(inspected.is_err(), "inspect agrees with deserialize");
        return;
    };
    assert!(inspected.is_ok(), "inspect agrees with deserialize");
    for recorded in &formats {
        assert!(recorded.formats.readable_by(recorded.recorded, supported));
    }
    for entry in supported.history() {
        let Ok(version) = supported.version(entry.number()) else {
            continue;
        };
        // Some values cannot be written in old versions (a program below week-4-old, a param
        // with unreduced axes at 0) or at all (a named-mesh HloSharding): an error, not a
        // panic.
        if let Ok(bytes) =
            registry.serialize_to_bytes(value.as_ref(), &SerializeOptions::new(version))
        {
            let (again, formats) = registry.inspect_bytes(&bytes, &read);
            let again = again.expect("bytes the registry wrote read back");
            for recorded in &formats {
                assert!(recorded.recorded <= version.number(), "{recorded:?} for {version}");
                assert!(recorded.formats.readable_by(recorded.recorded, supported));
            }
            let rewritten = registry
                .serialize_to_bytes(again.as_ref(), &SerializeOptions::new(version))
                .expect("a value read back writes again");
            assert_eq!(rewritten, bytes, "write, read, write is stable");
        }
    }
}
