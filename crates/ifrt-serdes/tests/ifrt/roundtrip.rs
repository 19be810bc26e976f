//! Property tests: every value round-trips through every version that can hold it; values a
//! version cannot hold fail clearly instead of losing data.

use crate::common::{built_in, options, strategies, versions};
use ifrt_serdes::{
    ArraySpec, Codec, DeserializeOptions, Error, Incompatible, ProtoCodec, Registry, Serializable,
    ShardingParamSharding, UNREDUCED_AXES_SINCE,
};
use proptest::prelude::*;

fn round_trip<T: Codec + PartialEq>(registry: &Registry, value: &T, needs_v1: bool) {
    for version in versions() {
        let written = registry.serialize_to_bytes(value as &dyn Serializable, &options(version));
        if needs_v1 && version.number() < UNREDUCED_AXES_SINCE {
            assert!(
                matches!(
                    written,
                    Err(Error::Incompatible(
                        Incompatible::FeatureNeedsNewerVersion { .. }
                    ))
                ),
                "{version}: {written:?}"
            );
            continue;
        }
        let bytes = written.unwrap_or_else(|e| panic!("{version}: {e}"));
        let back: T = registry
            .deserialize_from_bytes(&bytes, &DeserializeOptions::default())
            .unwrap_or_else(|e| panic!("{version}: {e}"));
        assert!(back == *value, "{version}: round trip changed the value");
    }
}

/// [`round_trip`] for a type IFRT sends as a plain message: its bare bytes, and its message.
fn round_trip_proto<T: ProtoCodec + PartialEq>(registry: &Registry, value: &T, needs_v1: bool) {
    for version in versions() {
        let written = registry.to_proto_bytes(value, &options(version));
        if needs_v1 && version.number() < UNREDUCED_AXES_SINCE {
            assert!(
                matches!(
                    written,
                    Err(Error::Incompatible(
                        Incompatible::FeatureNeedsNewerVersion { .. }
                    ))
                ),
                "{version}: {written:?}"
            );
            continue;
        }
        let bytes = written.unwrap_or_else(|e| panic!("{version}: {e}"));
        let back: T = registry
            .from_proto_bytes(&bytes, &DeserializeOptions::default())
            .unwrap_or_else(|e| panic!("{version}: {e}"));
        assert!(back == *value, "{version}: round trip changed the value");
        // The message, built afresh, is the same bytes and reads back the same.
        let proto = registry.to_proto(value, &options(version)).unwrap();
        assert_eq!(prost::Message::encode_to_vec(&proto), bytes, "{version}");
        assert!(registry.from_proto::<T>(proto).unwrap() == *value);
    }
}

fn param_needs_v1(sharding: &ShardingParamSharding) -> bool {
    !sharding.param().unreduced_axes().is_empty()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn dtypes_round_trip(dtype in strategies::dtype()) {
        round_trip_proto(&built_in(), &dtype, false);
    }

    #[test]
    fn shapes_round_trip(shape in strategies::shape()) {
        round_trip_proto(&built_in(), &shape, false);
    }

    #[test]
    fn device_lists_round_trip(devices in strategies::device_list()) {
        round_trip_proto(&built_in(), &devices, false);
    }

    #[test]
    fn single_device_shardings_round_trip(sharding in strategies::single_device()) {
        round_trip(&built_in(), &sharding, false);
    }

    #[test]
    fn sharding_param_shardings_round_trip(sharding in strategies::param_sharding()) {
        let needs_v1 = param_needs_v1(&sharding);
        round_trip(&built_in(), &sharding, needs_v1);
    }

    #[test]
    fn array_specs_round_trip(spec in strategies::array_spec()) {
        let sharding: &dyn std::any::Any = spec.sharding.as_ref();
        let needs_v1 = sharding
            .downcast_ref::<ShardingParamSharding>()
            .is_some_and(param_needs_v1);
        round_trip_proto(&built_in(), &spec, needs_v1);
    }

    /// A sharding read polymorphically is the same kind with the same contents.
    #[test]
    fn shardings_read_back_as_their_own_kind(spec in strategies::array_spec()) {
        let registry = built_in();
        let version = *versions().last().unwrap();
        let envelope = registry.serialize(spec.sharding.as_ref(), &options(version)).unwrap();
        let back = registry
            .deserialize_sharding(&envelope, &DeserializeOptions::default())
            .unwrap();
        prop_assert!(back.same_as(spec.sharding.as_ref()));
    }

    /// Whatever a build writes in a version, it reads back identically: serialization is a
    /// function of (value, version), so equal values give equal bytes.
    #[test]
    fn serialization_is_deterministic(spec in strategies::array_spec()) {
        let registry = built_in();
        for version in versions() {
            let first = registry.to_proto_bytes(&spec, &options(version));
            let second = registry.to_proto_bytes(&spec, &options(version));
            prop_assert_eq!(first, second);
        }
    }

    /// A thread reuses its spare messages from one call to the next; nothing of an earlier
    /// value leaks into a later one. Each value is written in sequence on one thread, in every
    /// version, and compared with the bytes a brand-new thread (no spares yet) writes for it.
    #[test]
    fn reused_spares_write_what_a_new_thread_writes(
        specs in proptest::collection::vec(strategies::array_spec(), 1..6),
    ) {
        let registry = built_in();
        let fresh = |spec: &ArraySpec, version| {
            std::thread::scope(|scope| {
                scope
                    .spawn(|| {
                        let sharding = registry.serialize(spec.sharding.as_ref(), &options(version));
                        (registry.to_proto_bytes(spec, &options(version)), sharding)
                    })
                    .join()
                    .unwrap()
            })
        };
        for version in versions().into_iter().rev() {
            for spec in &specs {
                let sharding = registry.serialize(spec.sharding.as_ref(), &options(version));
                let reused = (registry.to_proto_bytes(spec, &options(version)), sharding);
                prop_assert_eq!(reused, fresh(spec, version), "{}", version);
            }
        }
    }
}
