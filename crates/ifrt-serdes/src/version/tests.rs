//! The scheme's tests: entries, histories, ranges, and IFRT's preset.

use super::*;
use crate::clock::FixedClock;

static PLUGINS: History = History::new(
    "plugin protocol",
    &[
        VersionEntry::dated(0, (2025, 1, 10), "a"),
        VersionEntry::dated(1, (2025, 3, 2), "b"),
        VersionEntry::dated(2, (2025, 3, 2), "c, the same day"),
    ],
    SerDesVersionNumber(0),
    Week4Old::FromDates,
);

fn day(y: i16, m: i8, d: i8) -> Date {
    Date::constant(y, m, d)
}

#[test]
fn the_ifrt_preset_is_serdes_version_h() {
    let listed: Vec<_> = HISTORY
        .iter()
        .map(|e| (e.number().value(), e.introduced().to_string(), e.change()))
        .collect();
    assert_eq!(
        listed,
        [
            (0, "2025-05-20".to_string(), "initial version"),
            (
                1,
                "2026-02-19".to_string(),
                "added support for unreduced axes in ShardingParam"
            ),
            (
                2,
                "2026-04-06".to_string(),
                "ShardingParamSharding is not created anymore by IFRT IR"
            ),
            (
                3,
                "2026-04-09".to_string(),
                "Allowed mixed serialization for stablehlo dialects"
            ),
            (
                4,
                "2026-07-16".to_string(),
                "XlaCompileOptions records format 4, which may carry outputs_bundle_slice_sizes"
            ),
            (
                5,
                "2026-08-17".to_string(),
                "AbstractArraySpec is introduced, written only at 5 or newer"
            ),
            (
                6,
                "2026-09-17".to_string(),
                "RemapPlan records format 6, without the mappings list older formats carry"
            ),
        ]
    );
    assert_eq!((IFRT.minimum(), IFRT.current()), (MINIMUM, CURRENT));
    assert_eq!(CURRENT, SerDesVersionNumber(6));
    assert_eq!(
        IFRT.week_4_old_rule(),
        Week4Old::Fixed(SerDesVersionNumber(3))
    );
    assert_eq!(IFRT.supported(), SupportedVersions::BUILT_IN);
    assert_eq!(
        SupportedVersions::BUILT_IN.current().to_string(),
        "IFRT SerDes version 6"
    );
}

#[test]
fn ifrts_week_4_old_is_fixed_whatever_the_day() {
    for today in [
        day(2025, 5, 20),
        day(2026, 3, 19),
        day(2026, 4, 30),
        day(2040, 1, 1),
    ] {
        assert_eq!(
            Week4OldVersionAccessor::get(&FixedClock(today)).map(SerDesVersion::number),
            Ok(WEEK_4_OLD),
            "{today}"
        );
    }
    // A simulated IFRT build whose range does not hold the fixed version has none: one that
    // stops below it, or one whose minimum is above it.
    for (min, max) in [(0, 1), (0, 2), (4, 4)] {
        let range = SupportedVersions::new(SerDesVersionNumber(min), SerDesVersionNumber(max));
        assert!(
            matches!(
                range.unwrap().week_4_old(day(2030, 1, 1)),
                Err(Error::Incompatible(Incompatible::VersionOutOfRange { .. }))
            ),
            "[{min}, {max}]"
        );
    }
    let only_it = SupportedVersions::new(WEEK_4_OLD, WEEK_4_OLD).unwrap();
    assert_eq!(
        only_it
            .week_4_old(day(2030, 1, 1))
            .map(SerDesVersion::number),
        Ok(WEEK_4_OLD)
    );
}

#[test]
fn week_4_old_from_the_dates() {
    let build = PLUGINS.supported();
    let on = |d: Date| build.week_4_old(d).map(SerDesVersion::number);
    let error = on(day(2025, 1, 11)).unwrap_err();
    assert_eq!(
        error,
        Error::Window(WindowError::NoWeek4OldVersion {
            history: "plugin protocol",
            today: day(2025, 1, 11),
            minimum: SerDesVersionNumber(0),
            current: SerDesVersionNumber(2),
            introduced: day(2025, 1, 10),
            from: Some(day(2025, 2, 7)),
        })
    );
    assert!(on(day(2025, 2, 6)).is_err());
    assert_eq!(on(day(2025, 2, 7)), Ok(SerDesVersionNumber(0)));
    assert_eq!(on(day(2025, 3, 29)), Ok(SerDesVersionNumber(0)));
    // Versions 1 and 2 share a day: both become four weeks old together, and the newer is
    // the answer.
    assert_eq!(on(day(2025, 3, 30)), Ok(SerDesVersionNumber(2)));
    // Every day: the answer is never younger than 28 days.
    let mut today = day(2025, 1, 1);
    while today < day(2025, 6, 1) {
        if let Ok(version) = build.week_4_old(today) {
            let introduced = PLUGINS.introduced(version.number()).unwrap();
            assert!(days_after(introduced, WEEK_4_OLD_DAYS).unwrap() <= today);
        }
        today = today.tomorrow().unwrap();
    }
}

#[test]
fn versions_carry_their_history() {
    let ours = PLUGINS.supported().version(SerDesVersionNumber(1)).unwrap();
    let ifrts = AnyVersionAccessor::get(SerDesVersionNumber(1)).unwrap();
    assert_ne!(ours, ifrts, "the same number of two histories");
    assert_eq!(ours.to_string(), "plugin protocol version 1");
    assert_eq!(ifrts.to_string(), "IFRT SerDes version 1");
    assert!(PLUGINS.supported().owns(ours));
    assert!(!PLUGINS.supported().owns(ifrts));
    assert!(SupportedVersions::BUILT_IN.owns(ifrts));
}

#[test]
fn any_version_is_range_checked() {
    for entry in HISTORY {
        assert_eq!(
            AnyVersionAccessor::get(entry.number).unwrap().number(),
            entry.number
        );
    }
    let too_new = SerDesVersionNumber(CURRENT.value() + 1);
    assert_eq!(
        AnyVersionAccessor::get(too_new),
        Err(Error::Incompatible(Incompatible::VersionOutOfRange {
            history: "IFRT SerDes",
            number: too_new,
            minimum: MINIMUM,
            current: CURRENT
        }))
    );
    assert!(AnyVersionAccessor::get(SerDesVersionNumber(-1)).is_err());
    assert_eq!(AnyVersionAccessor::get_minimum().number(), MINIMUM);
    let raised = SupportedVersions::new(SerDesVersionNumber(1), CURRENT).unwrap();
    assert!(raised.version(SerDesVersionNumber(0)).is_err());
}

#[test]
fn invalid_ranges_are_rejected() {
    assert!(SupportedVersions::new(SerDesVersionNumber(2), SerDesVersionNumber(1)).is_err());
    assert!(SupportedVersions::new(SerDesVersionNumber(0), SerDesVersionNumber(9)).is_err());
    assert!(SupportedVersions::new(SerDesVersionNumber(-1), SerDesVersionNumber(0)).is_err());
}

#[test]
fn default_accessor_is_current_or_fails_loudly_under_the_feature() {
    let got = DefaultVersionAccessor::get();
    let plugin_default = PLUGINS.supported().default_version();
    if cfg!(feature = "testing-bad-default-version") {
        let error = got.unwrap_err();
        assert_eq!(error, Error::DefaultVersionDisallowed);
        assert!(
            error
                .to_string()
                .starts_with("Using a default `SerDesVersion` is disallowed when ")
        );
        assert!(plugin_default.is_err());
    } else {
        assert_eq!(got, Ok(SupportedVersions::BUILT_IN.current()));
        // The default of a history is its own current version.
        assert_eq!(
            plugin_default.unwrap().to_string(),
            "plugin protocol version 2"
        );
    }
}

#[test]
fn introduction_dates() {
    assert_eq!(
        IFRT.introduced(SerDesVersionNumber(1)),
        Ok(day(2026, 2, 19))
    );
    assert_eq!(
        IFRT.introduced(SerDesVersionNumber(9)),
        Err(Error::Window(WindowError::UnknownVersion {
            history: "IFRT SerDes",
            number: SerDesVersionNumber(9)
        }))
    );
}

#[test]
#[should_panic(expected = "introduction dates never go back")]
fn a_history_whose_dates_go_back_is_refused() {
    static BACKWARDS: &[VersionEntry] = &[
        VersionEntry::dated(0, (2025, 2, 1), "a"),
        VersionEntry::dated(1, (2025, 1, 31), "b"),
    ];
    let _ = History::new("x", BACKWARDS, SerDesVersionNumber(0), Week4Old::FromDates);
}

#[test]
#[should_panic(expected = "version numbers are 0, 1, 2...")]
fn a_history_with_a_gap_is_refused() {
    static GAP: &[VersionEntry] = &[
        VersionEntry::dated(0, (2025, 1, 1), "a"),
        VersionEntry::dated(2, (2025, 2, 1), "b"),
    ];
    let _ = History::new("x", GAP, SerDesVersionNumber(0), Week4Old::FromDates);
}

#[test]
#[should_panic(expected = "a fixed week-4-old version is listed")]
fn a_fixed_week_4_old_below_the_minimum_is_refused() {
    static TWO: &[VersionEntry] = &[
        VersionEntry::dated(0, (2025, 1, 1), "a"),
        VersionEntry::dated(1, (2025, 2, 1), "b"),
    ];
    let fixed = Week4Old::Fixed(SerDesVersionNumber(0));
    let _ = History::new("x", TWO, SerDesVersionNumber(1), fixed);
}

#[test]
fn numbers_parse_bare_or_as_ifrt_prints_them() {
    for n in [0, 2, -1, i32::MAX, i32::MIN] {
        let number = SerDesVersionNumber(n);
        assert_eq!(number.to_string().parse(), Ok(number));
        assert_eq!(format!("IFRT SerDes version {n}").parse(), Ok(number));
    }
    for bad in [
        "",
        "two",
        "1.5",
        "IFRT SerDes version ",
        "version 2",
        "4294967296",
    ] {
        assert_eq!(
            bad.parse::<SerDesVersionNumber>(),
            Err(Error::InvalidVersionNumber {
                input: bad.to_string()
            }),
            "{bad:?}"
        );
    }
    let long = "9".repeat(40);
    assert_eq!(
        long.parse::<SerDesVersionNumber>(),
        Err(Error::InvalidVersionNumber {
            input: "9".repeat(32)
        })
    );
}
