//! A tour of IFRT's serialization-version scheme, end to end.
//!
//! Run it with `cargo run -p ifrt-serdes --example ifrt-serdes-tour` (or `cargo xtask demo`).

use std::sync::Arc;

use ifrt_serdes::schema::{ArraySpecProto, Serialized};
use ifrt_serdes::version::{
    DefaultVersionAccessor, HISTORY, SerDesVersionNumber, SupportedVersions,
    Week4OldVersionAccessor,
};
use ifrt_serdes::{
    ArraySpec, Codec, DType, Date, DeserializeOptions, DeviceList, FixedClock, MemoryKind,
    ProtoCodec, Registry, SerializeOptions, Shape, ShardingParam, ShardingParamSharding,
    SystemClock, VersionRange, XlaProgram, negotiate,
};
use prost::Message;

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result {
    println!("1. One global version number, raised whenever any type gets a new format.\n");
    for entry in HISTORY {
        println!(
            "   {:>2}  {}  {}",
            entry.number().value(),
            entry.introduced(),
            entry.change()
        );
    }

    println!("\n2. Versions come from accessors, never from bare integers.\n");
    match DefaultVersionAccessor::get() {
        Ok(version) => println!("   default      -> {version} (the current one)"),
        Err(error) => println!("   default      -> refused: {error}"),
    }
    // IFRT keeps its week-4-old version by hand (serdes_version.h): the same on every day.
    for today in [Date::constant(2026, 3, 18), Date::constant(2026, 7, 14)] {
        let version = Week4OldVersionAccessor::get(&FixedClock(today))?;
        println!("   week-4-old on {today} -> {version} (kept by hand)");
    }
    println!(
        "   week-4-old today ({}) -> {}",
        ifrt_serdes::Clock::today(&SystemClock),
        Week4OldVersionAccessor::get(&SystemClock)?
    );
    let built_in = SupportedVersions::BUILT_IN;
    if let Err(error) = built_in.version(SerDesVersionNumber::new(7)) {
        println!("   any(7)       -> {error}");
    }

    println!(
        "\n3. The writer writes for the requested version; each part records its own format.\n   \
         An ArraySpec travels as a plain ArraySpecProto (IFRT's ToProto), its sharding inside\n   \
         in a `Serialized` envelope (IFRT's SerDes), as IFRT Proxy's requests carry them.\n"
    );
    let registry = Registry::with_builtin_types(built_in);
    let param = ShardingParam::new(vec![2, 1], vec![1, 0], vec![2, 2], vec![1])?;
    let spec = ArraySpec {
        dtype: DType::BF16,
        shape: Shape::new(vec![1024, 512])?,
        sharding: Arc::new(ShardingParamSharding::new(
            param,
            vec![0, 1, 2, 3],
            MemoryKind::device(),
        )?),
        layout: None,
    };
    let o = DeserializeOptions::default();
    for number in [3, 1] {
        let options = SerializeOptions::new(built_in.version(SerDesVersionNumber::new(number))?);
        let bytes = registry.to_proto_bytes(&spec, &options)?;
        let proto = ArraySpecProto::decode(bytes.as_slice())?;
        let inner = proto
            .sharding
            .and_then(|s| s.serialized_sharding)
            .unwrap_or_default();
        println!(
            "   requested v{number}: {} bytes of {}, recorded as format {}, its sharding a {} \
             envelope inside",
            bytes.len(),
            ArraySpec::PROTO_NAME,
            proto.version_number,
            inner.type_name
        );
        // Each part records its own format: the oldest that holds it (the param needs 1 for
        // its unreduced axis).
        let (_, formats) = registry.inspect_proto_bytes::<ArraySpec>(&bytes, &o);
        let formats: Vec<String> = formats
            .iter()
            .map(|r| format!("{} {}", r.what(), r.recorded.value()))
            .collect();
        println!("       formats: {}", formats.join(", "));
        let back: ArraySpec = registry.from_proto_bytes(&bytes, &o)?;
        println!(
            "       read back without being told the version: equal = {}",
            back == spec
        );
    }
    let v0 = SerializeOptions::new(built_in.version(SerDesVersionNumber::new(0))?);
    if let Err(error) = registry.to_proto_bytes(&spec, &v0) {
        println!("   v0: {error}");
    }

    println!(
        "\n4. DType, Shape, ArraySpec and DeviceList are never in an envelope: IFRT registers no\n   \
         SerDes for them. Each plain message records its own format in `version_number`.\n"
    );
    let devices = DeviceList::new(vec![0, 1, 2, 3])?;
    let v2 = SerializeOptions::new(built_in.current());
    for (what, bytes) in [
        ("DType::F32", registry.to_proto_bytes(&DType::F32, &v2)?),
        (
            "Shape [4, 6]",
            registry.to_proto_bytes(&Shape::new(vec![4, 6])?, &v2)?,
        ),
        ("DeviceList [0..4]", registry.to_proto_bytes(&devices, &v2)?),
    ] {
        let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        println!("   {what:<18} -> {hex} (format 0 is proto3's default: no field on the wire)");
    }
    // What ifrt-serdes once wrote, and real IFRT never did, is refused with the way out.
    let invented = Serialized {
        type_name: "xla::ifrt::DType".to_string(),
        data: registry.to_proto_bytes(&DType::F32, &v2)?,
    };
    if let Err(error) = registry.deserialize_dyn(&invented, &o) {
        println!("   an `xla::ifrt::DType` envelope: {error}");
    }

    println!("\n5. Two builds negotiate, then exchange ArraySpecs as bytes (IFRT Proxy).\n");
    let old_range =
        SupportedVersions::new(SerDesVersionNumber::new(0), SerDesVersionNumber::new(1))?;
    let old = Registry::with_builtin_types(old_range);
    let agreed = negotiate(VersionRange::from(built_in), VersionRange::from(old_range))?;
    println!("   client [0, 3], server [0, 1] -> agreed on v{agreed}");
    let options = SerializeOptions::new(built_in.version(agreed)?);
    let bytes = registry.to_proto_bytes(&spec, &options)?;
    let at_server: ArraySpec = old.from_proto_bytes(&bytes, &o)?;
    println!(
        "   the old server reads the new client's spec: equal = {}",
        at_server == spec
    );
    let current = SerializeOptions::new(built_in.current());
    let too_new = registry.to_proto_bytes(&spec, &current)?;
    // Versions 2 and 3 changed no format of these types (they concern IFRT IR and StableHLO
    // programs): the bytes written at 3 record the same formats, and the old server reads them.
    match old.from_proto_bytes::<ArraySpec>(&too_new, &o) {
        Ok(back) => println!(
            "   written at v3 without negotiating, read by [0, 1]: equal = {}",
            back == spec
        ),
        Err(error) => println!("   without negotiating: {error}"),
    }
    let ancient = VersionRange {
        min: SerDesVersionNumber::new(0),
        max: SerDesVersionNumber::new(0),
    };
    let future = VersionRange {
        min: SerDesVersionNumber::new(1),
        max: SerDesVersionNumber::new(2),
    };
    if let Err(error) = negotiate(ancient, future) {
        println!("   {error}");
    }

    println!(
        "\n6. Removing a format: raise the minimum past it; bytes of the format it superseded\n   \
         stop reading. A param without unreduced axes records format 0 at any version, so a\n   \
         build of minimum 1 refuses it: IFRT will write 1 once its minimum is 1.\n"
    );
    let raised = Registry::with_builtin_types(SupportedVersions::new(
        SerDesVersionNumber::new(1),
        SerDesVersionNumber::new(2),
    )?);
    let plain = ShardingParamSharding::new(
        ShardingParam::new(vec![2], vec![0], vec![2], vec![])?,
        vec![0, 1],
        MemoryKind::device(),
    )?;
    let written_v0 = registry.serialize_to_bytes(&plain, &v0)?;
    let written_v1 = registry.serialize_to_bytes(&plain, &options)?;
    for (name, bytes) in [
        ("sharding requested at v0", &written_v0),
        (
            "sharding requested at v1 (its param: format 0)",
            &written_v1,
        ),
    ] {
        match raised.deserialize_dyn_from_bytes(bytes, &o) {
            Ok(value) => println!("   [1, 2] reads the {name}: {value:?}"),
            Err(error) => println!("   [1, 2] refuses the {name}: {error}"),
        }
    }
    let dtype_v0 = registry.to_proto_bytes(&DType::F32, &v0)?;
    match raised.from_proto_bytes::<DType>(&dtype_v0, &o) {
        Ok(value) => println!("   [1, 2] reads the DType requested at v0: {value:?}"),
        Err(error) => println!("   [1, 2] refuses the DType requested at v0: {error}"),
    }

    println!(
        "\n6. A type can have a floor of its own: IFRT writes a program only from its build's\n   \
         week-4-old version on, though it reads every version from its minimum.\n"
    );
    // The header of a StableHLO portable artifact (MLIR bytecode); the crate reads no further.
    let program = XlaProgram::new(b"ML\xefR\x0dStableHLO_v1.13.4\0\x01\x1f".to_vec())?;
    match registry.lowest_writable(XlaProgram::TYPE_NAME) {
        Some(floor) => println!(
            "   program by {}, written from IFRT SerDes version {floor} on",
            program.producer()
        ),
        None => println!("   this build writes no program at any version of its range"),
    }
    for number in [1, 3] {
        let options = SerializeOptions::new(built_in.version(SerDesVersionNumber::new(number))?);
        match registry.serialize_to_bytes(&program, &options) {
            Ok(bytes) => println!("   v{number}: {} bytes", bytes.len()),
            Err(error) => println!("   v{number}: {error}"),
        }
    }
    Ok(())
}
