//! The history of GraphDef and checkpoint versions, and "which version did TensorFlow have on
//! a given date".
//!
//! Versions 0 to 29 were bumped by hand, each for a reason ([`GRAPH_DEF_HISTORY`]). Since
//! version 30 (2019-05-09) the GraphDef version is date based: TensorFlow's nightly build bumps
//! it by one every day, so the version of a day is `30 + days since 2019-05-09`
//! ([`graph_def_version_on`]), and the reasons for changes are no longer numbered.

use std::fmt;
use std::str::FromStr;

use crate::error::Error;
use crate::version::Version;

/// A day of the proleptic Gregorian calendar. Just enough calendar for version dates: no time
/// zones, no times of day.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    year: i32,
    month: u8,
    day: u8,
}

impl CivilDate {
    /// The date `year-month-day`, if it exists.
    pub fn new(year: i32, month: u8, day: u8) -> Result<Self, Error> {
        let invalid = |reason| Error::InvalidDate {
            input: format!("{year:04}-{month:02}-{day:02}"),
            reason,
        };
        if !(1..=9999).contains(&year) {
            return Err(invalid("the year must be between 1 and 9999"));
        }
        if !(1..=12).contains(&month) {
            return Err(invalid("the month must be between 1 and 12"));
        }
        if day == 0 || day > days_in_month(year, month) {
            return Err(invalid("that month has no such day"));
        }
        Ok(CivilDate { year, month, day })
    }

    /// For constant tables: panics at compile time on a date that does not exist.
    const fn known(year: i32, month: u8, day: u8) -> Self {
        assert!(month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month));
        CivilDate { year, month, day }
    }

    /// The year.
    pub fn year(self) -> i32 {
        self.year
    }

    /// The month, 1 to 12.
    pub fn month(self) -> u8 {
        self.month
    }

    /// The day of the month, from 1.
    pub fn day(self) -> u8 {
        self.day
    }

    /// Days since 1970-01-01 (negative before it).
    pub fn days_since_unix_epoch(self) -> i64 {
        // Count in "March years" so that the leap day is the last day of the year: the days
        // before a date are then whole 400-year eras, whole years, and days within the year.
        let (month, day) = (i64::from(self.month), i64::from(self.day));
        let year = i64::from(self.year) - i64::from(month <= 2);
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month_from_march = (month + 9) % 12;
        let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `days` after 1970-01-01, if it lies between years 1 and 9999.
    pub fn from_days_since_unix_epoch(days: i64) -> Result<Self, Error> {
        let shifted = days.checked_add(719_468).ok_or(Error::InvalidDate {
            input: days.to_string(),
            reason: "too far from 1970",
        })?;
        let era = shifted.div_euclid(146_097);
        let day_of_era = shifted - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_from_march = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
        let month = if month_from_march < 10 {
            month_from_march + 3
        } else {
            month_from_march - 9
        };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        let out_of_range = || Error::InvalidDate {
            input: days.to_string(),
            reason: "the date falls outside years 1 to 9999",
        };
        let year = i32::try_from(year).map_err(|_| out_of_range())?;
        // month and day come out of the arithmetic within 1..=12 and 1..=31.
        CivilDate::new(year, month as u8, day as u8).map_err(|_| out_of_range())
    }

    /// The date `days` days later (earlier when negative).
    pub fn add_days(self, days: i64) -> Result<Self, Error> {
        let total = self
            .days_since_unix_epoch()
            .checked_add(days)
            .ok_or(Error::InvalidDate {
                input: format!("{self} + {days} days"),
                reason: "too far from 1970",
            })?;
        CivilDate::from_days_since_unix_epoch(total)
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub fn days_until(self, later: CivilDate) -> i64 {
        later.days_since_unix_epoch() - self.days_since_unix_epoch()
    }
}

const fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

const fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

impl fmt::Display for CivilDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl FromStr for CivilDate {
    type Err = Error;

    /// Parses `YYYY-MM-DD`.
    fn from_str(text: &str) -> Result<Self, Error> {
        let invalid = |reason| Error::InvalidDate {
            input: text.to_string(),
            reason,
        };
        let mut parts = text.split('-');
        let (Some(year), Some(month), Some(day), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(invalid("expected three numbers separated by '-'"));
        };
        let all_digits =
            |s: &str, len: usize| s.len() == len && s.bytes().all(|b| b.is_ascii_digit());
        if !(all_digits(year, 4) && all_digits(month, 2) && all_digits(day, 2)) {
            return Err(invalid("expected four digits, two digits, two digits"));
        }
        // The digit checks above make these parses infallible.
        let year = year.parse().map_err(|_| invalid("bad year"))?;
        let month = month.parse().map_err(|_| invalid("bad month"))?;
        let day = day.parse().map_err(|_| invalid("bad day"))?;
        CivilDate::new(year, month, day)
    }
}

/// One line of a version history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// The version the change belongs to. For an unnumbered change (one that did not bump the
    /// version) this is the version in force when it happened.
    pub version: Version,
    /// Whether the change bumped the version to `version`.
    pub bumped: bool,
    /// When, if TensorFlow's comment gives an unambiguous date.
    pub date: Option<CivilDate>,
    /// What changed, in our words.
    pub change: &'static str,
}

const fn entry(version: i32, date: Option<CivilDate>, change: &'static str) -> HistoryEntry {
    HistoryEntry {
        version: Version::new(version),
        bumped: true,
        date,
        change,
    }
}

const fn unnumbered(version: i32, date: CivilDate, change: &'static str) -> HistoryEntry {
    HistoryEntry {
        version: Version::new(version),
        bumped: false,
        date: Some(date),
        change,
    }
}

const fn on(year: i32, month: u8, day: u8) -> Option<CivilDate> {
    Some(CivilDate::known(year, month, day))
}

/// The first date-based GraphDef version.
pub const FIRST_DATE_BASED_VERSION: Version = Version::new(30);

/// The day of [`FIRST_DATE_BASED_VERSION`]; every later day adds one.
pub const FIRST_DATE_BASED_DAY: CivilDate = CivilDate::known(2019, 5, 9);

/// GraphDef version history, 0 to 30.
///
/// From the "Version history" comment in `tensorflow/core/public/version.h`; the wording is
/// ours. TensorFlow's comment numbers some versions twice (17 and 25 each got two changes),
/// gives version 22 the date "04/10/2016" (out of order, so not recorded here), and gives 23 no
/// date. After 30 the version follows the calendar ([`graph_def_version_on`]).
pub const GRAPH_DEF_HISTORY: &[HistoryEntry] = &[
    entry(0, None, "Graphs created before GraphDef versioning."),
    entry(1, on(2015, 12, 2), "First real version."),
    entry(
        2,
        on(2015, 12, 11),
        "AdjustContrast only takes float and no longer clamps.",
    ),
    entry(
        3,
        on(2015, 12, 30),
        "TileGrad removed: it was equivalent to reduce_sum.",
    ),
    entry(
        4,
        on(2016, 1, 7),
        "Marker for stricter parsing of empty list attribute values once support for it is dropped.",
    ),
    entry(
        5,
        on(2016, 1, 7),
        "Graphs are validated as a whole when a session is created.",
    ),
    entry(6, on(2016, 1, 27), "TensorFlow is scalar strict."),
    entry(7, on(2016, 2, 5), "TopK removed in favour of TopKV2."),
    entry(
        8,
        on(2016, 2, 5),
        "RandomCrop moved from C++ to pure Python.",
    ),
    entry(
        9,
        on(2016, 2, 16),
        "BatchNormWithGlobalNormalization deprecated.",
    ),
    entry(
        10,
        on(2016, 6, 10),
        "Conv3DBackpropFilter and Conv3DBackpropInput deprecated.",
    ),
    entry(
        11,
        on(2016, 8, 3),
        "SelfAdjointEig and BatchSelfAdjointEig deprecated.",
    ),
    entry(
        12,
        on(2016, 8, 22),
        "Consumers understand FunctionDef.node_def.",
    ),
    entry(
        13,
        on(2016, 9, 9),
        "Several batch linear algebra ops deprecated.",
    ),
    entry(14, on(2016, 9, 10), "BatchMatrix* ops deprecated."),
    entry(15, on(2016, 9, 14), "BatchFFT* ops deprecated."),
    entry(
        16,
        on(2016, 11, 10),
        "TensorArray (v1) ops deprecated in favour of v2.",
    ),
    entry(17, on(2016, 11, 11), "Inv deprecated."),
    entry(17, on(2016, 11, 10), "ReverseV2 exposed."),
    entry(18, on(2016, 11, 30), "VariableV2 added."),
    entry(
        19,
        on(2016, 12, 8),
        "Ops of models moved out of core (Skipgram, NegTrain) deprecated.",
    ),
    entry(
        20,
        on(2016, 12, 12),
        "TensorFlow 1.0 Python API changes: SplitV, ReverseV2, ConcatV2, flooring division and mod, TensorArrayV3; reduction indices must be scalar or vector.",
    ),
    entry(
        21,
        on(2017, 1, 11),
        "FunctionDef.Node dropped in favour of node_def (version 12).",
    ),
    entry(
        22,
        None,
        "Placeholder can specify and enforce scalar and partial shapes when a graph is restored.",
    ),
    entry(
        23,
        None,
        "NonMaxSuppression removed in favour of NonMaxSuppressionV2.",
    ),
    entry(
        24,
        on(2017, 5, 30),
        "Lookup (v1) ops deprecated in favour of v2.",
    ),
    entry(
        25,
        on(2017, 6, 15),
        "Stack (v1) ops deprecated in favour of v2.",
    ),
    entry(
        25,
        on(2017, 10, 25),
        "RandomPoisson (v1) deprecated in favour of v2.",
    ),
    entry(
        26,
        on(2017, 12, 7),
        "MetaInfoDef.stripped_default_attrs added.",
    ),
    entry(
        27,
        on(2018, 1, 23),
        "TensorArray v2 ops deprecated in favour of v3; reader ops deprecated in favour of their V2.",
    ),
    entry(
        28,
        on(2018, 8, 21),
        "MatrixExponential deprecated in favour of a Python implementation.",
    ),
    unnumbered(
        28,
        CivilDate::known(2019, 2, 15),
        "FunctionDef.control_ret and OpDef.control_output added.",
    ),
    entry(
        29,
        on(2019, 3, 25),
        "StatefulStandardNormal deprecated in favour of StatefulStandardNormalV2.",
    ),
    unnumbered(
        29,
        CivilDate::known(2019, 4, 17),
        "FunctionDef.arg_attr added.",
    ),
    entry(
        30,
        on(2019, 5, 9),
        "First date-based version: from here on the version advances by one every day.",
    ),
];

/// Checkpoint version history.
///
/// From the checkpoint "Version history" comment in `tensorflow/core/public/version.h`.
pub const CHECKPOINT_HISTORY: &[HistoryEntry] = &[
    entry(0, None, "Checkpoints saved before checkpoint versioning."),
    entry(1, on(2015, 2, 10), "First real version."),
];

/// The history entries of one GraphDef version (several when TensorFlow numbered two changes
/// alike); empty for date-based versions after 30 and for versions that never existed.
pub fn graph_def_entries(version: Version) -> impl Iterator<Item = &'static HistoryEntry> {
    GRAPH_DEF_HISTORY
        .iter()
        .filter(move |e| e.version == version)
}

/// The GraphDef version TensorFlow's nightly build had on `date`.
///
/// From 2019-05-09 on this is `30 + days since 2019-05-09`. Before that it is the newest
/// numbered version whose recorded date is on or before `date` (undated entries are skipped),
/// and 0 before versioning began on 2015-12-02. A release branch freezes the version of the day
/// it was cut, so a release's version is the version of its branch cut, some weeks before the
/// release date.
pub fn graph_def_version_on(date: CivilDate) -> Version {
    let days = FIRST_DATE_BASED_DAY.days_until(date);
    if days >= 0 {
        // Dates stop at 9999-12-31, far below i32::MAX days.
        let days = i32::try_from(days).unwrap_or(i32::MAX);
        return Version::new(FIRST_DATE_BASED_VERSION.get().saturating_add(days));
    }
    GRAPH_DEF_HISTORY
        .iter()
        .filter(|e| e.bumped && e.date.is_some_and(|d| d <= date))
        .map(|e| e.version)
        .max()
        .unwrap_or(Version::new(0))
}

/// The day a date-based GraphDef version (30 or later) was current; `None` for the hand-bumped
/// versions before 30, whose dates are in [`GRAPH_DEF_HISTORY`].
pub fn graph_def_version_date(version: Version) -> Option<CivilDate> {
    let days = version.get().checked_sub(FIRST_DATE_BASED_VERSION.get())?;
    if days < 0 {
        return None;
    }
    FIRST_DATE_BASED_DAY.add_days(i64::from(days)).ok()
}
