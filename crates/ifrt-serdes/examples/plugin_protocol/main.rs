//! The scheme for a project of its own: a plugin protocol with five dated versions and three
//! types, one nested in another, using none of IFRT's history. Its versions are its own: a
//! registry of IFRT's history refuses them, and its defaults and messages are the protocol's.
//!
//! Run it with `cargo run -p ifrt-serdes --example ifrt-serdes-plugin-protocol`.

mod protocol;

use ifrt_serdes::version::{SerDesVersionNumber, SupportedVersions};
use ifrt_serdes::{Date, DeserializeOptions, Registry, SerializeOptions, VersionRange};
use protocol::{Limits, Manifest, PLUGIN_HISTORY, build, sample_manifest, sample_placement};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result {
    println!("1. The protocol's own dated history.\n");
    for entry in PLUGIN_HISTORY.versions() {
        println!(
            "   {}  {}  {}",
            entry.number().value(),
            entry.introduced(),
            entry.change()
        );
    }
    let host = PLUGIN_HISTORY.supported();
    match host.default_version() {
        Ok(version) => println!("\n   default: {version}"),
        Err(error) => println!("\n   default: refused: {error}"),
    }
    for day in ["2025-01-20", "2025-03-30", "2025-10-13"] {
        let day: Date = day.parse()?;
        match host.week_4_old(day) {
            Ok(version) => println!("   week-4-old on {day}: {}", version.number().value()),
            Err(error) => println!("   week-4-old on {day}: {error}"),
        }
    }

    println!("\n2. A host of versions [0, 4] writes a manifest; each value records its format.\n");
    let host = build(0, 4)?;
    let o = DeserializeOptions::default();
    for requested in 0..=4 {
        let options = SerializeOptions::new(
            host.supported()
                .version(SerDesVersionNumber::new(requested))?,
        );
        let bytes = host.serialize_to_bytes(&sample_manifest(requested), &options)?;
        let (_, formats) = host.inspect_bytes(&bytes, &o);
        let formats: Vec<String> = formats
            .iter()
            .map(|r| format!("{} {}", r.what(), r.recorded.value()))
            .collect();
        println!(
            "   requested {requested}: {} bytes, formats: {}",
            bytes.len(),
            formats.join(", ")
        );
    }

    println!("\n3. An older plugin [0, 2] negotiates with the host, and reads what it gets.\n");
    let plugin = build(0, 2)?;
    let agreed = host
        .supported()
        .agree_with(VersionRange::from(plugin.supported()))?;
    let options = SerializeOptions::new(agreed);
    let manifest = sample_manifest(agreed.number().value());
    let bytes = host.serialize_to_bytes(&manifest, &options)?;
    let back: Manifest = plugin.deserialize_from_bytes(&bytes, &o)?;
    println!(
        "   agreed on {agreed}: read back equal = {}",
        back == manifest
    );
    let newest = SerializeOptions::new(host.supported().current());
    let bytes = host.serialize_to_bytes(&sample_manifest(3), &newest)?;
    if let Err(error) = plugin.deserialize_from_bytes::<Manifest>(&bytes, &o) {
        println!("   without negotiating: {error}");
    }
    let limits_only = host.serialize_to_bytes(&protocol::sample_limits(1), &options)?;
    let limits: Limits = plugin.deserialize_from_bytes(&limits_only, &o)?;
    println!("   limits requested at {}: {limits:?}", agreed.number());

    println!("\n4. A placement: well-known memory kinds as ids from version 4 on.\n");
    for requested in [3, 4] {
        let options = SerializeOptions::new(
            host.supported()
                .version(SerDesVersionNumber::new(requested))?,
        );
        let bytes = host.serialize_to_bytes(&sample_placement(), &options)?;
        let (_, formats) = host.inspect_bytes(&bytes, &o);
        println!(
            "   requested {requested}: {} bytes, Placement format {}",
            bytes.len(),
            formats[0].recorded
        );
    }

    println!("\n5. Versions of two histories do not mix.\n");
    let ifrt = Registry::with_builtin_types(SupportedVersions::BUILT_IN);
    if let Err(error) = ifrt.to_proto_bytes(&ifrt_serdes::DType::F32, &options) {
        println!("   an IFRT registry given a {}: {error}", options.version());
    }

    println!("\n6. Removing Limits' format 1 (its successor, 3, came on 2025-09-15).\n");
    for day in ["2025-10-12", "2025-10-13"] {
        let day: Date = day.parse()?;
        let removal = <Limits as ifrt_serdes::Codec>::FORMATS.check_removal(
            SerDesVersionNumber::new(1),
            PLUGIN_HISTORY.supported(),
            day,
        );
        let raise = PLUGIN_HISTORY
            .supported()
            .raise_minimum(SerDesVersionNumber::new(3), day);
        match (removal, raise) {
            (Ok(successor), Ok(raised)) => println!(
                "   {day}: allowed; successor {}, new range [{}, {}]",
                successor.value(),
                raised.minimum().number().value(),
                raised.current().number().value()
            ),
            (Err(error), _) | (_, Err(error)) => println!("   {day}: {error}"),
        }
    }
    Ok(())
}
