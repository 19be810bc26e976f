//! Removing a format: once the minimum rises to a format's successor, bytes of that format fail
//! with the unsupported-version error while newer formats (and unchanged types) still read, and
//! nothing new is written in it. The four-week window decides when that may happen: the seed's
//! "Removing an Old Format" procedure is walked before, during and after it.
//!
//! IFRT keeps its week-4-old version by hand (version 2 in the preset), so IFRT's own build
//! refuses to raise its minimum past it on any day until a person moves it on. The procedure is walked with IFRT's
//! history under the other rule, week-4-old from the dates ([`by_dates`]): the build IFRT would
//! be if it moved week-4-old on the day the window allows.

use std::fs;
use std::path::Path;

use crate::common::{self, GOLDEN_DIR, all_goldens, build, expected_read, golden_name};
use ifrt_serdes::version::{
    HISTORY, History, MINIMUM, SerDesVersionNumber, SupportedVersions, Week4Old,
};
use ifrt_serdes::{Clock, Date};
use ifrt_serdes::{
    Codec, DType, DeserializeOptions, Error, FixedClock, Incompatible, ProtoCodec, Registry,
    SerializeOptions, ShardingParam, SingleDeviceSharding, WindowError,
};

/// IFRT's history with week-4-old computed from the dates.
static IFRT_BY_DATES: History = History::new("IFRT SerDes", HISTORY, MINIMUM, Week4Old::FromDates);

/// The build `[minimum, current]` of [`IFRT_BY_DATES`].
fn by_dates(minimum: i32, current: i32) -> SupportedVersions {
    IFRT_BY_DATES
        .range(
            SerDesVersionNumber::new(minimum),
            SerDesVersionNumber::new(current),
        )
        .unwrap()
}

fn day(y: i16, m: i8, d: i8) -> Date {
    Date::constant(y, m, d)
}

#[test]
fn ifrts_own_build_raises_its_minimum_no_further_than_its_week_4_old_version() {
    for today in [day(2026, 3, 19), day(2040, 1, 1)] {
        // Up to the fixed week-4-old version (3), on any day: it is kept by hand.
        for to in [1, 2, 3] {
            let raised = SupportedVersions::BUILT_IN
                .raise_minimum(SerDesVersionNumber::new(to), today)
                .unwrap();
            assert_eq!(raised.minimum().number().value(), to);
        }
        // The preset's week-4-old version is its newest, so only a build that stops below it (a
        // simulated older IFRT build, [0, 2]) meets the refusal: it has no week-4-old version,
        // and may not raise its minimum at all.
        let older =
            SupportedVersions::new(SerDesVersionNumber::new(0), SerDesVersionNumber::new(2))
                .unwrap();
        let error = older
            .raise_minimum(SerDesVersionNumber::new(1), today)
            .unwrap_err();
        assert_eq!(
            error,
            Error::Window(WindowError::MinimumAboveWeek4Old {
                history: "IFRT SerDes",
                minimum: SerDesVersionNumber::new(1),
                week_4_old: None,
                today,
                from: None,
            })
        );
        assert!(
            error
                .to_string()
                .ends_with("or first move the week-4-old version on (it is kept by hand)")
        );
    }
}

#[test]
fn raising_the_minimum_rejects_only_the_superseded_formats_golden_bytes() {
    for minimum in 1..=2 {
        let raised = build(minimum, 2);
        // The goldens of formats this build knows (a newer one is refused as newer).
        for (short, format) in all_goldens().into_iter().filter(|(_, f)| *f <= 2) {
            let name = golden_name(short, format);
            let bytes = fs::read(Path::new(GOLDEN_DIR).join(&name)).unwrap();
            let result =
                common::decodes_to_sample(&raised, short, SerDesVersionNumber::new(format), &bytes);
            match expected_read(short, format, (minimum, 2)) {
                Ok(()) => assert_eq!(result, Ok(true), "{name} with minimum {minimum}"),
                Err((what, recorded)) => {
                    // A format is removed once its successor is at or below the minimum.
                    let error = result.unwrap_err();
                    assert!(
                        error.to_string().starts_with(&format!(
                            "Unsupported IFRT SerDes version {recorded} for {what} \
                             deserialization: this build reads IFRT SerDes versions \
                             [{minimum}, 2], and {what} format {recorded} was superseded"
                        )),
                        "{name} with minimum {minimum}: {error}"
                    );
                }
            }
        }
    }
    // Format 0 of DType is its only one: no minimum removes it.
    let dtype = fs::read(Path::new(GOLDEN_DIR).join("dtype_proto_v0.pb")).unwrap();
    assert_eq!(
        common::decodes_to_sample(
            &build(2, 2),
            "dtype_proto",
            SerDesVersionNumber::new(0),
            &dtype
        ),
        Ok(true)
    );
    // The param's format 0 is superseded at 1; the shardings' only format never is.
    let param = fs::read(Path::new(GOLDEN_DIR).join("sharding_param_sharding_v0.pb")).unwrap();
    let o = ifrt_serdes::DeserializeOptions::default();
    for minimum in [1, 2] {
        let (read, seen) = build(minimum, 2).inspect_bytes(&param, &o);
        assert!(read.is_err());
        assert_eq!(
            seen.last().map(|r| (r.what(), r.recorded.value())),
            Some(("ShardingParam", 0))
        );
    }
}

#[test]
fn a_raised_minimum_never_writes_the_removed_format() {
    let raised =
        SupportedVersions::new(SerDesVersionNumber::new(1), SerDesVersionNumber::new(2)).unwrap();
    // Not through the any-version accessor...
    assert!(matches!(
        raised.version(SerDesVersionNumber::new(0)),
        Err(Error::Incompatible(Incompatible::VersionOutOfRange { .. }))
    ));
    // ...nor as week-4-old: on a day when version 1 is not yet four weeks old there is no
    // week-4-old version at all (never a younger one, never the removed one)...
    let day_after_v1 = day(2026, 2, 20);
    assert!(matches!(
        by_dates(1, 2).week_4_old(day_after_v1),
        Err(Error::Window(WindowError::NoWeek4OldVersion { .. }))
    ));
    // (IFRT's own fixed week-4-old, 3, is inside the whole range [1, 3], and is not the
    // removed format.)
    let raised_to_current =
        SupportedVersions::new(SerDesVersionNumber::new(1), SerDesVersionNumber::new(3)).unwrap();
    assert_eq!(
        raised_to_current
            .week_4_old(day_after_v1)
            .map(|v| v.number()),
        Ok(SerDesVersionNumber::new(3))
    );
    // ...nor by a registry handed a version of an older range.
    let v0 = SupportedVersions::BUILT_IN
        .version(SerDesVersionNumber::new(0))
        .unwrap();
    let registry = build(1, 2);
    let error = common::serialize_sample(&registry, "dtype_proto", v0).unwrap_err();
    assert_eq!(
        error.to_string(),
        "Unsupported IFRT SerDes version 0 for DType serialization"
    );
}

/// One day of the procedure for removing `ShardingParam`'s format 0, whose successor, format 1,
/// was introduced with version 1 on 2026-02-19. The window closes 28 days later, on 2026-03-19.
struct Day {
    clock: FixedClock,
}

impl Day {
    fn on(y: i16, m: i8, d: i8) -> Self {
        Day {
            clock: FixedClock(day(y, m, d)),
        }
    }

    fn today(&self) -> Date {
        self.clock.today()
    }

    /// Step 1 of the seed: remove the serializer and parser of the old format.
    fn remove_format_0(&self) -> Result<SerDesVersionNumber, Error> {
        ShardingParam::FORMATS.check_removal(
            SerDesVersionNumber::new(0),
            by_dates(0, 2),
            self.today(),
        )
    }

    /// Steps 2 and 3: week-4-old and the minimum move past the removed format.
    fn raise_minimum_to_1(&self) -> Result<SupportedVersions, Error> {
        by_dates(0, 2).raise_minimum(SerDesVersionNumber::new(1), self.today())
    }
}

#[test]
fn the_removal_procedure_before_during_and_after_the_window() {
    let o = DeserializeOptions::default();
    let old_build = build(0, 0); // a build from before version 1
    let registry_of = |range| Registry::with_builtin_types(range);
    let param_v0 = fs::read(Path::new(GOLDEN_DIR).join("sharding_param_sharding_v0.pb")).unwrap();

    // Before the window: the successor does not exist yet (2026-02-18): week-4-old is 0, and
    // nothing may be removed.
    let before = Day::on(2026, 2, 18);
    let week_4_old = by_dates(0, 2).week_4_old(before.today()).unwrap();
    assert_eq!(week_4_old.number().value(), 0);
    assert!(matches!(
        before.remove_format_0(),
        Err(Error::Window(WindowError::SuccessorTooYoung { .. }))
    ));
    assert!(matches!(
        before.raise_minimum_to_1(),
        Err(Error::Window(WindowError::MinimumAboveWeek4Old { .. }))
    ));

    // During the window: from the day version 1 is introduced to the 27th day after, both
    // steps are refused, saying from which day they are allowed; week-4-old stays 0, so what
    // is written still reads in a build from before version 1.
    let mut today = day(2026, 2, 19);
    while today < day(2026, 3, 19) {
        let day = today;
        let during = Day {
            clock: FixedClock(day),
        };
        let week_4_old = by_dates(0, 2).week_4_old(day).unwrap();
        assert_eq!(week_4_old.number().value(), 0, "{day}");
        let bytes = registry_of(by_dates(0, 2))
            .serialize_to_bytes(
                &common::sample_param_sharding(week_4_old.number()),
                &SerializeOptions::new(week_4_old),
            )
            .unwrap();
        assert!(
            old_build.deserialize_dyn_from_bytes(&bytes, &o).is_ok(),
            "{day}"
        );
        assert_eq!(
            during.remove_format_0().unwrap_err().to_string(),
            format!(
                "cannot remove format 0 of ShardingParam on {day}: its successor, format 1, was \
                 introduced on 2026-02-19, less than 28 days ago; remove it on 2026-03-19 or later"
            )
        );
        assert_eq!(
            during.raise_minimum_to_1().unwrap_err(),
            Error::Window(WindowError::MinimumAboveWeek4Old {
                history: "IFRT SerDes",
                minimum: SerDesVersionNumber::new(1),
                week_4_old: Some(SerDesVersionNumber::new(0)),
                today: day,
                from: Some(Date::constant(2026, 3, 19)),
            })
        );
        today = today.tomorrow().unwrap();
    }

    // After the window (2026-03-19 and later): both steps are allowed.
    for after in [Day::on(2026, 3, 19), Day::on(2026, 6, 1)] {
        assert_eq!(after.remove_format_0(), Ok(SerDesVersionNumber::new(1)));
        let raised = after.raise_minimum_to_1().unwrap();
        assert_eq!(raised, by_dates(1, 2));
        // Week-4-old of the raised build is at least the new minimum (2 once version 2 is
        // four weeks old, from 2026-05-04).
        let week_4_old = raised.week_4_old(after.today()).unwrap();
        let expected = if after.today() >= day(2026, 5, 4) {
            2
        } else {
            1
        };
        assert_eq!(week_4_old.number().value(), expected);
        // The raised build refuses the removed format, in IFRT's words...
        let registry = registry_of(raised);
        let error = registry
            .deserialize_dyn_from_bytes(&param_v0, &o)
            .unwrap_err();
        assert!(
            error
                .to_string()
                .starts_with("Unsupported IFRT SerDes version 0 for ShardingParam deserialization"),
            "{error}"
        );
        // ...still reads every type whose format 0 was not superseded...
        let dtype = fs::read(Path::new(GOLDEN_DIR).join("dtype_proto_v0.pb")).unwrap();
        assert_eq!(
            registry.from_proto_bytes::<DType>(&dtype, &o),
            Ok(common::sample_dtype())
        );
        let single = fs::read(Path::new(GOLDEN_DIR).join("single_device_sharding_v0.pb")).unwrap();
        assert!(
            registry
                .deserialize_from_bytes::<SingleDeviceSharding>(&single, &o)
                .is_ok()
        );
        // ...and what it writes at week-4-old is read by every build of the window (those that
        // know version 1), though not by one from before it.
        let bytes = registry
            .serialize_to_bytes(
                &common::sample_param_sharding(week_4_old.number()),
                &SerializeOptions::new(week_4_old),
            )
            .unwrap();
        assert!(build(0, 1).deserialize_dyn_from_bytes(&bytes, &o).is_ok());
        assert!(old_build.deserialize_dyn_from_bytes(&bytes, &o).is_err());
    }

    // The minimum can never pass week-4-old, whatever the day: version 2 (2026-04-06) waits
    // for 2026-05-04.
    for (y, m, d) in [(2026, 5, 3), (2026, 5, 4)] {
        let today = day(y, m, d);
        let result = by_dates(0, 2).raise_minimum(SerDesVersionNumber::new(2), today);
        assert_eq!(result.is_ok(), (y, m, d) == (2026, 5, 4), "{today}");
    }
}

#[test]
fn the_newest_format_and_unknown_formats_are_never_removed() {
    let far = day(2040, 1, 1);
    for (formats, format) in [
        (DType::FORMATS, 0),
        (ShardingParam::FORMATS, 1),
        (ShardingParam::FORMATS, 2),
        (SingleDeviceSharding::FORMATS, 0),
        (SingleDeviceSharding::FORMATS, 1),
        (DType::FORMATS, -1),
    ] {
        assert_eq!(
            formats.check_removal(
                SerDesVersionNumber::new(format),
                SupportedVersions::BUILT_IN,
                far
            ),
            Err(Error::Window(WindowError::NoSuccessor {
                what: formats.what(),
                format: SerDesVersionNumber::new(format),
            }))
        );
    }
    // Lowering the minimum is no raise: nothing changes.
    let raised =
        SupportedVersions::new(SerDesVersionNumber::new(1), SerDesVersionNumber::new(2)).unwrap();
    assert_eq!(
        raised.raise_minimum(SerDesVersionNumber::new(0), far),
        Ok(raised)
    );
    // A minimum past current is no range.
    assert!(matches!(
        SupportedVersions::BUILT_IN.raise_minimum(SerDesVersionNumber::new(7), far),
        Err(Error::InvalidRange { .. })
    ));
}

/// This build keeps the rule it enforces: its minimum is not above week-4-old today.
#[test]
fn this_builds_minimum_respects_the_window_today() {
    let today = ifrt_serdes::SystemClock.today();
    let minimum = SupportedVersions::BUILT_IN.minimum().number();
    assert_eq!(
        SupportedVersions::BUILT_IN.raise_minimum(minimum, today),
        Ok(SupportedVersions::BUILT_IN)
    );
    let week_4_old = SupportedVersions::BUILT_IN.week_4_old(today).unwrap();
    assert!(minimum <= week_4_old.number());
}
