//! IFRT's SerDes types, registered together: [`Registry::with_builtin_types`].
//!
//! Kept out of `registry.rs`, so that the registry knows no concrete type (and the types, which
//! serialize their nested values through a registry, do not sit in an import cycle with it).
//! `DType`, `Shape`, `ArraySpec` and `DeviceList` are not here: IFRT registers no SerDes for
//! them, they travel as plain protos (`proto_codec.rs`).

use crate::concrete_sharding::{ConcreteEvenSharding, ConcreteSharding, OpaqueSharding};
use crate::hlo_sharding::HloSharding;
use crate::layout::{CompactLayout, PjRtLayout};
use crate::program::{XlaCompileOptions, XlaProgram};
use crate::registry::{Codecs, Registry, names_are_distinct};
use crate::sharding::{ShardingParamSharding, SingleDeviceSharding};
use crate::version::SupportedVersions;

/// IFRT's SerDes types, in the order [`Registry::with_builtin_types`] registers them. The names
/// are the SerDes names compiled into jaxlib 0.10.2.
const BUILT_IN: [Codecs; 10] = [
    Codecs::sharding::<SingleDeviceSharding>(),
    Codecs::sharding::<ShardingParamSharding>(),
    Codecs::sharding::<HloSharding>(),
    Codecs::sharding::<ConcreteSharding>(),
    Codecs::sharding::<ConcreteEvenSharding>(),
    Codecs::sharding::<OpaqueSharding>(),
    Codecs::of::<CompactLayout>(),
    Codecs::of::<PjRtLayout>(),
    Codecs::of::<XlaProgram>(),
    Codecs::of::<XlaCompileOptions>(),
];

// Registering the built-in types can fail only if two of them share a name (a type's name is
// its identity on the wire, so two entries for one type share it too): checked here, when the
// crate is compiled, rather than when a registry is made.
const _: () = assert!(
    names_are_distinct(&BUILT_IN),
    "two built-in types share a TYPE_NAME"
);

impl Registry {
    /// A registry for `supported` with IFRT's SerDes types registered: the shardings
    /// `SingleDeviceSharding`, `ShardingParamSharding`, `HloSharding`, `ConcreteSharding`,
    /// `ConcreteEvenSharding` and `OpaqueSharding`, the layouts `CompactLayout` and
    /// `PjRtLayout`, and a compile request's `XlaProgram` and `XlaCompileOptions`. Their formats
    /// are IFRT's, so `supported` is normally a range of [`IFRT`](crate::version::IFRT)'s
    /// history. The same registry writes and reads the types IFRT sends as plain protos
    /// ([`ProtoCodec`](crate::ProtoCodec): `DType`, `Shape`, `ArraySpec`, `DeviceList`), an
    /// `ArraySpec`'s sharding through it.
    ///
    /// This cannot fail: the built-in types' names are distinct, which the crate checks when it
    /// is compiled.
    pub fn with_builtin_types(supported: SupportedVersions) -> Self {
        Registry::with_distinct(supported, &BUILT_IN)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The built-in list, registered one by one through the public, checked path, gives the
    /// same registry as `with_builtin_types`.
    #[test]
    fn the_built_in_types_register_through_the_checked_path_too() {
        let supported = SupportedVersions::BUILT_IN;
        let mut checked = Registry::new(supported);
        checked.register_sharding::<SingleDeviceSharding>().unwrap();
        checked
            .register_sharding::<ShardingParamSharding>()
            .unwrap();
        checked.register_sharding::<HloSharding>().unwrap();
        checked.register_sharding::<ConcreteSharding>().unwrap();
        checked.register_sharding::<ConcreteEvenSharding>().unwrap();
        checked.register_sharding::<OpaqueSharding>().unwrap();
        checked.register::<CompactLayout>().unwrap();
        checked.register::<PjRtLayout>().unwrap();
        checked.register::<XlaProgram>().unwrap();
        checked.register::<XlaCompileOptions>().unwrap();
        let built_in = Registry::with_builtin_types(supported);
        assert_eq!(format!("{checked:?}"), format!("{built_in:?}"));
        let kinds = |registry: &Registry| -> Vec<_> {
            registry
                .registered()
                .map(|(name, formats)| (name, formats, registry.is_sharding(name)))
                .collect()
        };
        assert_eq!(kinds(&checked), kinds(&built_in));
    }

    /// The registry knows no concrete type: only this module names IFRT's types beside it, so
    /// the types (which reach their nested values through a registry) and the registry are in
    /// no import cycle.
    #[test]
    fn the_registry_names_no_concrete_type() {
        let registry = include_str!("registry.rs");
        for module in [
            "array_spec",
            "dtype",
            "shape",
            "device_list",
            "sharding::",
            "builtin",
            "hlo_sharding",
            "concrete_sharding",
            "layout",
            "program",
        ] {
            assert!(
                !registry.contains(&format!("crate::{module}")),
                "registry.rs uses crate::{module}"
            );
        }
    }

    #[test]
    fn names_are_compared_in_const_context() {
        assert!(names_are_distinct(&BUILT_IN));
        let twice = [
            Codecs::of::<SingleDeviceSharding>(),
            Codecs::of::<ShardingParamSharding>(),
            Codecs::sharding::<SingleDeviceSharding>(),
        ];
        assert!(!names_are_distinct(&twice));
    }
}
