//! The version history and the calendar arithmetic behind "the version of a day".

use graphdef_versions::TF_DEPRECATED_OPS;
use graphdef_versions::history::{
    self, CHECKPOINT_HISTORY, FIRST_DATE_BASED_DAY, GRAPH_DEF_HISTORY, graph_def_entries,
    graph_def_version_date, graph_def_version_on,
};
use graphdef_versions::{CivilDate, DateError, Error, GRAPH_DEF, Version};
use proptest::prelude::*;

fn date(text: &str) -> CivilDate {
    text.parse().unwrap()
}

#[test]
fn date_based_versions_match_tensorflows_own_stamps() {
    // version.h of July 2022: "#define TF_GRAPH_DEF_VERSION 1183  // Updated: 2022/7/5".
    assert_eq!(graph_def_version_on(date("2022-07-05")), Version::new(1183));
    assert_eq!(
        graph_def_version_date(Version::new(1183)),
        Some(date("2022-07-05"))
    );
    // The first date-based version.
    assert_eq!(graph_def_version_on(date("2019-05-09")), Version::new(30));
    assert_eq!(graph_def_version_on(date("2019-05-10")), Version::new(31));
    // TensorFlow 2.21's 2474 is the version of 2026-01-16: the day its release branch froze,
    // the weeks before the v2.21.0 release candidates.
    assert_eq!(
        graph_def_version_date(GRAPH_DEF.current),
        Some(date("2026-01-16"))
    );
    assert_eq!(graph_def_version_on(date("2026-01-16")), GRAPH_DEF.current);
    // Leap days count: 2020-02-29 exists and is one version.
    assert_eq!(
        graph_def_version_on(date("2020-03-01")).get()
            - graph_def_version_on(date("2020-02-28")).get(),
        2
    );
    assert_eq!(graph_def_version_date(Version::new(29)), None);
    assert_eq!(graph_def_version_date(Version::new(-4)), None);
}

#[test]
fn before_2019_the_table_decides() {
    assert_eq!(graph_def_version_on(date("2015-12-01")), Version::new(0));
    assert_eq!(graph_def_version_on(date("2015-12-02")), Version::new(1));
    assert_eq!(graph_def_version_on(date("2016-02-05")), Version::new(8));
    assert_eq!(graph_def_version_on(date("2018-01-23")), Version::new(27));
    assert_eq!(graph_def_version_on(date("2019-05-08")), Version::new(29));
    // 22 and 23 carry no usable date in TensorFlow's comment, so spring 2017 reads as 21.
    assert_eq!(graph_def_version_on(date("2017-04-15")), Version::new(21));
}

#[test]
fn the_table_covers_every_hand_bumped_version() {
    for number in 0..=30 {
        let entries: Vec<_> = graph_def_entries(Version::new(number)).collect();
        assert!(
            entries.iter().any(|e| e.bumped),
            "version {number} has no entry"
        );
    }
    assert_eq!(graph_def_entries(Version::new(17)).count(), 2);
    assert_eq!(graph_def_entries(Version::new(31)).count(), 0);
    let numbers: Vec<i32> = GRAPH_DEF_HISTORY.iter().map(|e| e.version.get()).collect();
    assert!(
        numbers.windows(2).all(|w| w[0] <= w[1]),
        "history is in version order"
    );
    assert_eq!(GRAPH_DEF_HISTORY.iter().filter(|e| !e.bumped).count(), 2);
    assert_eq!(CHECKPOINT_HISTORY.len(), 2);
    assert_eq!(CHECKPOINT_HISTORY[1].date, Some(date("2015-02-10")));
    // Every deprecation of the shipped op table happened at a hand-bumped version, each of
    // which has its history line.
    for op in TF_DEPRECATED_OPS {
        assert!(op.version.get() <= 29, "{}", op.name);
        assert!(
            graph_def_entries(op.version).next().is_some(),
            "{}",
            op.name
        );
    }
    assert_eq!(history::FIRST_DATE_BASED_VERSION, Version::new(30));
    assert_eq!(FIRST_DATE_BASED_DAY, date("2019-05-09"));
}

/// The next day, the slow and obvious way: an independent check of the day arithmetic.
fn next_day(d: CivilDate) -> CivilDate {
    let (y, m, day) = (d.year(), d.month(), d.day());
    CivilDate::new(y, m, day + 1)
        .or_else(|_| CivilDate::new(y, m + 1, 1))
        .or_else(|_| CivilDate::new(y + 1, 1, 1))
        .unwrap()
}

#[test]
fn day_counting_agrees_with_walking_the_calendar() {
    let mut day = date("1900-01-01");
    let mut count = day.days_since_unix_epoch();
    assert_eq!(count, -25_567);
    while day < date("2101-01-01") {
        assert_eq!(day.days_since_unix_epoch(), count, "{day}");
        assert_eq!(CivilDate::from_days_since_unix_epoch(count).unwrap(), day);
        day = next_day(day);
        count += 1;
    }
    assert_eq!(date("1970-01-01").days_since_unix_epoch(), 0);
    assert_eq!(date("2000-03-01").days_since_unix_epoch(), 11_017);
}

#[test]
fn bad_dates_are_refused_with_a_reason() {
    for bad in [
        "2022-02-30",
        "2023-02-29",
        "2022-13-01",
        "2022-00-10",
        "0000-01-01",
        "2022-2-3",
        "20220101",
        "",
        "2022-01-01-01",
        "2022-0a-01",
    ] {
        let error = bad.parse::<CivilDate>().unwrap_err();
        let expected = match error {
            DateError::NoSuchDay { .. } => "is not a date: years run 1 to 9999",
            DateError::Syntax { .. } => "write it as YYYY-MM-DD",
            other => panic!("{bad}: {other:?}"),
        };
        assert!(error.to_string().contains(expected), "{error}");
        // The crate's error carries it unchanged.
        assert_eq!(Error::from(error.clone()).to_string(), error.to_string());
    }
    assert!(date("2024-02-29").add_days(365).is_ok());
    assert!(CivilDate::from_days_since_unix_epoch(i64::MAX).is_err());
    assert!(CivilDate::from_days_since_unix_epoch(-800_000).is_err());
    assert!(date("9999-12-31").add_days(1).is_err());
    assert!(date("2019-05-09").add_days(i64::MAX).is_err());
    assert_eq!(date("2019-05-09").to_string(), "2019-05-09");
    assert_eq!(
        graph_def_version_on(date("9999-12-31")).get(),
        30 + FIRST_DATE_BASED_DAY.days_until(date("9999-12-31")) as i32
    );
}

proptest! {
    #[test]
    fn days_round_trip(days in -719_162i64..2_932_896) {
        let d = CivilDate::from_days_since_unix_epoch(days).unwrap();
        prop_assert_eq!(d.days_since_unix_epoch(), days);
        prop_assert_eq!(d.to_string().parse::<CivilDate>().unwrap(), d);
    }

    #[test]
    fn version_of_a_day_and_day_of_a_version_agree(version in 30i32..1_000_000) {
        let day = graph_def_version_date(Version::new(version)).unwrap();
        prop_assert_eq!(graph_def_version_on(day), Version::new(version));
    }
}
