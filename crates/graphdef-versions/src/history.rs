//! The history of GraphDef and checkpoint versions, and "which version did TensorFlow have on
//! a given date".
//!
//! Versions 0 to 29 were bumped by hand, each for a reason ([`GRAPH_DEF_HISTORY`]). Since
//! version 30 (2019-05-09) the GraphDef version is date based: TensorFlow's nightly build bumps
//! it by one every day, so the version of a day is `30 + days since 2019-05-09`
//! ([`graph_def_version_on`]), and the reasons for changes are no longer numbered.

use jiff::SignedDuration;
use jiff::civil::Date;

use crate::version::Version;

/// One line of a version history.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HistoryEntry {
    /// The version the change belongs to. For an unnumbered change (one that did not bump the
    /// version) this is the version in force when it happened.
    pub version: Version,
    /// Whether the change bumped the version to `version`.
    pub bumped: bool,
    /// When, if TensorFlow's comment gives an unambiguous date.
    pub date: Option<Date>,
    /// What changed, in our words.
    pub change: &'static str,
}

const fn entry(version: i32, date: Option<Date>, change: &'static str) -> HistoryEntry {
    HistoryEntry {
        version: Version::new(version),
        bumped: true,
        date,
        change,
    }
}

const fn unnumbered(version: i32, date: Date, change: &'static str) -> HistoryEntry {
    HistoryEntry {
        version: Version::new(version),
        bumped: false,
        date: Some(date),
        change,
    }
}

const fn on(year: i16, month: i8, day: i8) -> Option<Date> {
    Some(Date::constant(year, month, day))
}

/// The first date-based GraphDef version.
pub const FIRST_DATE_BASED_VERSION: Version = Version::new(30);

/// The day of [`FIRST_DATE_BASED_VERSION`]; every later day adds one.
pub const FIRST_DATE_BASED_DAY: Date = Date::constant(2019, 5, 9);

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
        Date::constant(2019, 2, 15),
        "FunctionDef.control_ret and OpDef.control_output added.",
    ),
    entry(
        29,
        on(2019, 3, 25),
        "StatefulStandardNormal deprecated in favour of StatefulStandardNormalV2.",
    ),
    unnumbered(
        29,
        Date::constant(2019, 4, 17),
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
pub fn graph_def_version_on(date: Date) -> Version {
    // Civil days are 24 hours each, so the duration between two dates is whole days.
    let days = date.duration_since(FIRST_DATE_BASED_DAY).as_hours() / 24;
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
/// versions before 30, whose dates are in [`GRAPH_DEF_HISTORY`], and for versions past the
/// last day the calendar has (9999-12-31).
pub fn graph_def_version_date(version: Version) -> Option<Date> {
    let days = version.get().checked_sub(FIRST_DATE_BASED_VERSION.get())?;
    if days < 0 {
        return None;
    }
    FIRST_DATE_BASED_DAY
        .checked_add(SignedDuration::from_hours(i64::from(days) * 24))
        .ok()
}
