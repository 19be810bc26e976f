//! The version history, and "the version of a day" on jiff's calendar.

use graphdef_versions::TF_DEPRECATED_OPS;
use graphdef_versions::history::{
    self, CHECKPOINT_HISTORY, FIRST_DATE_BASED_DAY, GRAPH_DEF_HISTORY, graph_def_entries,
    graph_def_version_date, graph_def_version_on,
};
use graphdef_versions::{Date, GRAPH_DEF, Version};
use proptest::prelude::*;

fn date(text: &str) -> Date {
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

#[test]
fn each_day_after_the_first_date_based_one_is_one_version_more() {
    // Day by day through leap years and a century that is not one (2100), against the
    // calendar's own next day.
    let mut day = FIRST_DATE_BASED_DAY;
    let mut version = 30;
    while day < date("2101-03-01") {
        assert_eq!(graph_def_version_on(day), Version::new(version), "{day}");
        assert_eq!(graph_def_version_date(Version::new(version)), Some(day));
        day = day.tomorrow().unwrap();
        version += 1;
    }
    // The calendar's last day still has a version; the versions after it have no day.
    let last = graph_def_version_on(Date::MAX);
    assert_eq!(graph_def_version_date(last), Some(Date::MAX));
    assert_eq!(graph_def_version_date(Version::new(last.get() + 1)), None);
    assert_eq!(graph_def_version_date(Version::new(i32::MAX)), None);
    // Before versioning began, and long before: 0.
    assert_eq!(graph_def_version_on(Date::MIN), Version::new(0));
}

proptest! {
    #[test]
    fn version_of_a_day_and_day_of_a_version_agree(version in 30i32..1_000_000) {
        let day = graph_def_version_date(Version::new(version)).unwrap();
        prop_assert_eq!(graph_def_version_on(day), Version::new(version));
    }
}
