//! A type's own floor for writing, beside the build's range: every build x every requested
//! version x every kind of floor. IFRT pins its programs to the build's week-4-old version
//! (xla/python/ifrt/hlo/hlo_program_serdes.cc) and refuses lower requests with
//! "Unsupported IFRT SerDes version N for HloProgram serialization"; a floor never bounds
//! reading.

use crate::common::{all_builds, build};
use ifrt_serdes::version::{
    History, SerDesVersionNumber, SupportedVersions, VersionEntry, WEEK_4_OLD, Week4Old,
};
use ifrt_serdes::{
    Codec, Date, DeserializeOptions, Error, Formats, Incompatible, Registry, Serializable,
    SerializeOptions, WriteFloor,
};

/// A value of one byte whose type has the floor `FLOOR` (-1: none of its own; 100: the
/// week-4-old version; otherwise that version number).
#[derive(Debug, PartialEq)]
struct Floored<const FLOOR: i32>(u8);

impl<const FLOOR: i32> Serializable for Floored<FLOOR> {}

impl<const FLOOR: i32> Codec for Floored<FLOOR> {
    const TYPE_NAME: &'static str = "test::Floored";
    const FORMATS: Formats = Formats::new("Floored", &[SerDesVersionNumber::new(0)]);
    const WRITE_FLOOR: WriteFloor = match FLOOR {
        -1 => WriteFloor::Minimum,
        100 => WriteFloor::Week4Old,
        n => WriteFloor::Version(SerDesVersionNumber::new(n)),
    };

    fn serialize_into(
        &self,
        _: &SerializeOptions,
        _: &Registry,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        out.push(self.0);
        Ok(())
    }

    fn deserialize(data: &[u8], _: &DeserializeOptions, _: &Registry) -> Result<Self, Error> {
        Ok(Floored(data.first().copied().unwrap_or_default()))
    }
}

/// Writes `Floored::<FLOOR>` at every version of every build and checks the verdict against
/// the rule: written iff `requested >= max(floor, minimum)` and the floor is in the range.
fn check_floor<const FLOOR: i32>(floor_of: impl Fn((i32, i32)) -> Option<i32>) -> usize {
    let mut cells = 0;
    for (min, max) in all_builds() {
        let mut registry = build(min, max);
        registry.register::<Floored<FLOOR>>().unwrap();
        let lowest = floor_of((min, max))
            .map(|f| f.max(min))
            .filter(|f| *f <= max);
        assert_eq!(
            registry.lowest_writable("test::Floored").map(|v| v.value()),
            lowest,
            "floor {FLOOR} in [{min}, {max}]"
        );
        for requested in min..=max {
            let version = registry
                .supported()
                .version(SerDesVersionNumber::new(requested))
                .unwrap();
            let written =
                registry.serialize_to_bytes(&Floored::<FLOOR>(7), &SerializeOptions::new(version));
            let context = format!("floor {FLOOR}, [{min}, {max}], requested {requested}");
            cells += 1;
            if lowest.is_some_and(|lowest| requested >= lowest) {
                let bytes = written.expect(&context);
                // Reading is not bounded by the floor: every build reads it.
                for (rmin, rmax) in all_builds() {
                    let mut reader = build(rmin, rmax);
                    reader.register::<Floored<FLOOR>>().unwrap();
                    let back: Floored<FLOOR> = reader
                        .deserialize_from_bytes(&bytes, &DeserializeOptions::default())
                        .unwrap();
                    assert_eq!(back, Floored(7), "{context}, read by [{rmin}, {rmax}]");
                }
            } else {
                let error = written.expect_err(&context);
                assert_eq!(
                    error,
                    Error::Incompatible(Incompatible::BelowWriteFloor {
                        history: "IFRT SerDes",
                        version: SerDesVersionNumber::new(requested),
                        what: "Floored",
                        floor: <Floored<FLOOR> as Codec>::WRITE_FLOOR,
                        lowest: lowest.map(SerDesVersionNumber::new),
                    }),
                    "{context}"
                );
                assert!(
                    error.to_string().starts_with(&format!(
                        "Unsupported IFRT SerDes version {requested} for Floored serialization: "
                    )),
                    "{context}: {error}"
                );
            }
        }
    }
    cells
}

#[test]
fn every_build_by_every_requested_version_by_every_floor() {
    let week_4_old = WEEK_4_OLD.value();
    let mut cells = 0;
    cells += check_floor::<-1>(|_| Some(0));
    cells += check_floor::<0>(|_| Some(0));
    cells += check_floor::<1>(|_| Some(1));
    cells += check_floor::<2>(|_| Some(2));
    cells += check_floor::<3>(|_| Some(3));
    cells += check_floor::<4>(|_| Some(4));
    cells += check_floor::<5>(|_| Some(5));
    cells += check_floor::<6>(|_| Some(6));
    // IFRT's week-4-old version is kept by hand: a build whose range does not hold it has
    // none, and writes a type pinned to it at no version.
    cells +=
        check_floor::<100>(|(min, max)| (min..=max).contains(&week_4_old).then_some(week_4_old));
    // 9 floors x 84 (build, version) cells of IFRT's 7 versions.
    assert_eq!(cells, 9 * 84);
}

#[test]
fn the_message_is_ifrts_then_says_which_versions_write_the_type() {
    let registry = {
        let mut registry = Registry::new(SupportedVersions::BUILT_IN);
        registry.register::<Floored<100>>().unwrap();
        registry
    };
    let v1 = registry
        .supported()
        .version(SerDesVersionNumber::new(1))
        .unwrap();
    let error = registry
        .serialize_to_bytes(&Floored::<100>(1), &SerializeOptions::new(v1))
        .unwrap_err();
    assert_eq!(
        error.to_string(),
        "Unsupported IFRT SerDes version 1 for Floored serialization: Floored is written only at \
         version 3 or newer (this build's week-4-old version, to which IFRT pins every program it \
         writes); request version 3 or newer (negotiate a range that reaches it)"
    );
    // A build whose range stops below its week-4-old version writes the type at no version.
    let mut old = build(0, 1);
    old.register::<Floored<100>>().unwrap();
    let v0 = old
        .supported()
        .version(SerDesVersionNumber::new(0))
        .unwrap();
    let error = old
        .serialize_to_bytes(&Floored::<100>(1), &SerializeOptions::new(v0))
        .unwrap_err();
    assert!(
        error.to_string().ends_with(
            "Floored is written at no version of this build's range (this build's week-4-old \
             version, to which IFRT pins every program it writes: the build has none, or it is \
             above the range)"
        ),
        "{error}"
    );
}

/// Under a history whose week-4-old version follows the dates, the floor moves with the day
/// the registry is told.
#[test]
fn a_week_4_old_floor_follows_the_dates_of_such_a_history() {
    static DATED: History = History::new(
        "dated protocol",
        &[
            VersionEntry::dated(0, (2025, 1, 1), "a"),
            VersionEntry::dated(1, (2025, 3, 1), "b"),
        ],
        SerDesVersionNumber::new(0),
        Week4Old::FromDates,
    );
    let mut registry = Registry::new(DATED.supported());
    registry.register::<Floored<100>>().unwrap();
    let v0 = registry
        .supported()
        .version(SerDesVersionNumber::new(0))
        .unwrap();
    for (today, lowest, v0_written) in [
        (Date::constant(2025, 1, 10), None, false),
        (Date::constant(2025, 2, 1), Some(0), true),
        (Date::constant(2025, 3, 29), Some(1), false),
    ] {
        registry.set_today(today);
        assert_eq!(
            registry.lowest_writable("test::Floored").map(|v| v.value()),
            lowest,
            "{today}"
        );
        let written = registry.serialize_to_bytes(&Floored::<100>(1), &SerializeOptions::new(v0));
        assert_eq!(written.is_ok(), v0_written, "{today}: {written:?}");
        if let Err(error) = written {
            assert!(
                error
                    .to_string()
                    .starts_with("Unsupported dated protocol version 0 for Floored serialization"),
                "{error}"
            );
        }
    }
    assert_eq!(registry.lowest_writable("no::Such"), None);
}
