//! The scheme for a project of its own: a plugin protocol with four dated versions and two
//! types, one nested in the other, using none of IFRT's types or history.
//!
//! Run it with `cargo run -p ifrt-serdes --example ifrt-serdes-plugin-protocol`.

mod protocol;

use ifrt_serdes::version::SerDesVersionNumber;
use ifrt_serdes::{CivilDate, DeserializeOptions, SerializeOptions, VersionRange, negotiate};
use protocol::{Limits, Manifest, PLUGIN_HISTORY, build, sample_manifest};

type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

fn main() -> Result {
    println!("1. The protocol's own dated history.\n");
    for entry in PLUGIN_HISTORY.versions() {
        println!(
            "   {}  {}  {}",
            entry.number.value(),
            entry.introduced,
            entry.change
        );
    }
    let host = PLUGIN_HISTORY.supported();
    match host.default_version() {
        Ok(version) => println!("\n   default: {}", version.number().value()),
        Err(error) => println!("\n   default: refused: {error}"),
    }
    for day in ["2025-01-20", "2025-03-30", "2025-10-13"] {
        let day: CivilDate = day.parse()?;
        match host.week_4_old(day) {
            Ok(version) => println!("   week-4-old on {day}: {}", version.number().value()),
            Err(error) => println!("   week-4-old on {day}: {error}"),
        }
    }

    println!("\n2. A host of versions [0, 3] writes a manifest; each value records its format.\n");
    let host = build(0, 3)?;
    let o = DeserializeOptions::default();
    for requested in 0..=3 {
        let options = SerializeOptions::new(
            host.supported()
                .version(SerDesVersionNumber::new(requested))?,
        );
        let bytes = host.serialize_to_bytes(&sample_manifest(requested), &options)?;
        let (_, formats) = host.inspect_bytes(&bytes, &o);
        let formats: Vec<String> = formats
            .iter()
            .map(|r| format!("{} {}", r.what(), r.format.value()))
            .collect();
        println!(
            "   requested {requested}: {} bytes, formats: {}",
            bytes.len(),
            formats.join(", ")
        );
    }

    println!("\n3. An older plugin [0, 2] negotiates with the host, and reads what it gets.\n");
    let plugin = build(0, 2)?;
    let agreed = negotiate(
        VersionRange::from(host.supported()),
        VersionRange::from(plugin.supported()),
    )?;
    let options = SerializeOptions::new(host.supported().version(agreed)?);
    let manifest = sample_manifest(agreed.value());
    let bytes = host.serialize_to_bytes(&manifest, &options)?;
    let back: Manifest = plugin.deserialize_from_bytes(&bytes, &o)?;
    println!(
        "   agreed on {}: read back equal = {}",
        agreed.value(),
        back == manifest
    );
    let newest = SerializeOptions::new(host.supported().current());
    let bytes = host.serialize_to_bytes(&sample_manifest(3), &newest)?;
    if let Err(error) = plugin.deserialize_from_bytes::<Manifest>(&bytes, &o) {
        println!("   without negotiating: {error}");
    }
    let limits_only = host.serialize_to_bytes(&protocol::sample_limits(1), &options)?;
    let limits: Limits = plugin.deserialize_from_bytes(&limits_only, &o)?;
    println!("   limits requested at {}: {limits:?}", agreed.value());

    println!("\n4. Removing Limits' format 1 (its successor, 3, came on 2025-09-15).\n");
    for day in ["2025-10-12", "2025-10-13"] {
        let day: CivilDate = day.parse()?;
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
