//! The global, dated serialization version.
//!
//! One number is raised whenever *any* type gets a new format. Each number has an introduction
//! date: IFRT's are [`HISTORY`] (the preset [`IFRT`]); a project can declare a [`History`] of
//! its own. A build supports a range of them, [`SupportedVersions`]: it can be asked to write
//! any version from `minimum` to `current`, and for each type it writes the newest of the
//! type's own formats not newer than that, recording the format
//! ([`Formats`](crate::Formats)). It reads every format still in force at `minimum` or later.
//!
//! A [`SerDesVersion`] cannot be built from a bare integer. It comes from an accessor, as in IFRT
//! (xla/python/ifrt/serdes_version.h and its three accessor headers):
//!
//! - [`DefaultVersionAccessor`]: the current version, for ordinary code. With the crate feature
//!   `testing-bad-default-version` it returns [`Error::DefaultVersionDisallowed`] instead, so a
//!   test suite run with the feature proves that no path silently falls back to the default.
//! - [`Week4OldVersionAccessor`] / [`SupportedVersions::week_4_old`]: the newest version
//!   introduced at least 28 days ago, for artifacts that builds up to four weeks old must read.
//! - [`AnyVersionAccessor`] / [`SupportedVersions::version`]: any number, checked against the
//!   build's range; for layers that choose the version themselves (e.g. after negotiating with
//!   a peer build, see [`crate::negotiate`]).
//!
//! The accessors are IFRT's build; for a range of any history the same three are
//! [`SupportedVersions::default_version`], [`SupportedVersions::week_4_old`] and
//! [`SupportedVersions::version`].
//!
//! # Adding a format
//!
//! 1. Append an entry to [`HISTORY`] with the next number, today's date and what changed.
//! 2. Add the number to the type's [`Formats`](crate::Formats) (`Codec::FORMATS`). Its
//!    serializer now writes the new format, and records the new number, when the requested
//!    version is at least the new number ([`Formats::to_write`](crate::Formats::to_write));
//!    nested values get the *requested* version, never the outer format nor a default.
//! 3. In its deserializer, parse the new format when the recorded number *equals* the new
//!    number ([`Registry::read_format`](crate::Registry::read_format) says which). Nested values
//!    are read by their own recorded formats. Other types are untouched: they keep recording
//!    their old formats, and builds older than the new version still read them.
//! 4. Add the new golden files (`IFRT_SERDES_WRITE_GOLDEN=1 cargo test -p ifrt-serdes --test
//!    golden`: one per type and format) and their checksum lines; existing files never change.
//!
//! `week_4_old` needs no edit: it is computed from the dates.
//!
//! # Removing a format
//!
//! A format `F` of a type can go once its successor `S` (the type's next format) was introduced
//! at least 28 days ago: every build inside the four-week window knows `S`. The window is
//! enforced, not only documented:
//!
//! - [`Formats::check_removal`](crate::Formats::check_removal)`(F, today)` refuses while `S` is
//!   younger than 28 days ([`WindowError::SuccessorTooYoung`], naming the first allowed day),
//!   and refuses the newest format outright;
//! - [`SupportedVersions::raise_minimum`]`(S, today)` refuses a minimum above
//!   [`SupportedVersions::week_4_old`] ([`WindowError::MinimumAboveWeek4Old`]);
//! - `week_4_old` never returns a version younger than 28 days, and fails with
//!   [`WindowError::NoWeek4OldVersion`] when the range has none.
//!
//! Then, in one change (the seed's "Removing an Old Format"):
//!
//! 1. Delete the serializer and parser branches of `F` and drop `F` from the type's formats.
//! 2. Raise [`MINIMUM`] to `S` (or later). `F` is then superseded at the minimum: every build
//!    reading bytes of `F` fails with "Unsupported IFRT SerDes version F for TYPE
//!    deserialization". Types whose format did not change keep being read: their only format
//!    is never superseded. `week_4_old` is computed from the dates and never goes below the
//!    minimum, so nothing new is written in `F`.
//! 3. Delete the golden files of `F` and their checksum lines, and turn the golden test for it
//!    into a test that the bytes are now rejected (see `tests/removal.rs`).

use std::fmt;
use std::str::FromStr;

use crate::clock::Clock;
use crate::date::CivilDate;
use crate::error::{Error, Incompatible, WindowError};

/// A bare version number, as recorded in serialized data. It can come from anywhere (including
/// hostile bytes); turning it into a [`SerDesVersion`] goes through a range check.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SerDesVersionNumber(i32);

impl SerDesVersionNumber {
    /// The number `value`.
    pub const fn new(value: i32) -> Self {
        SerDesVersionNumber(value)
    }

    /// The number as an integer.
    pub const fn value(self) -> i32 {
        self.0
    }
}

/// IFRT's spelling (xla/python/ifrt/serdes_version.h, `AbslStringify`).
impl fmt::Display for SerDesVersionNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "IFRT SerDes version {}", self.0)
    }
}

/// Reads a whole number (`2`, `-1`), or the number as it displays (`IFRT SerDes version 2`),
/// so that printing and parsing round-trip. Whether the build supports it is checked later, by
/// [`SupportedVersions::version`].
impl FromStr for SerDesVersionNumber {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let number = text.strip_prefix("IFRT SerDes version ").unwrap_or(text);
        number
            .parse()
            .map(SerDesVersionNumber)
            .map_err(|_| Error::InvalidVersionNumber {
                input: text.chars().take(32).collect(),
            })
    }
}

/// One entry of the version history.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VersionEntry {
    /// The version number.
    pub number: SerDesVersionNumber,
    /// The day the format was introduced.
    pub introduced: CivilDate,
    /// What changed in the format.
    pub change: &'static str,
}

impl VersionEntry {
    /// Version `number`, introduced on `year-month-day`, with `change`: for declaring a
    /// [`History`] in a `static`.
    ///
    /// # Panics
    ///
    /// If the day does not exist; in a `static` or `const`, that fails the build instead.
    pub const fn dated(
        number: i32,
        (year, month, day): (i32, u8, u8),
        change: &'static str,
    ) -> Self {
        VersionEntry {
            number: SerDesVersionNumber(number),
            introduced: CivilDate::known(year, month, day),
            change,
        }
    }
}

/// The version history of this crate's formats, oldest first. Numbers and dates strictly
/// increase (a test checks).
///
/// Versions 0 and 1 and their dates are IFRT's (xla/python/ifrt/serdes_version.h: "0:
/// 2025-05-20, initial version. 1: 2026-02-19, added support for unreduced axes in
/// ShardingParam."). IFRT's version 2 (2026-03-19) concerns StableHLO programs, which this crate
/// does not model; this crate's version 2 is its own representation change.
pub const HISTORY: &[VersionEntry] = &[
    VersionEntry {
        number: SerDesVersionNumber(0),
        introduced: CivilDate::known(2025, 5, 20),
        change: "initial formats of DType, Shape, ShardingParam, SingleDeviceSharding, \
                 ShardingParamSharding and ArraySpec",
    },
    VersionEntry {
        number: SerDesVersionNumber(1),
        introduced: CivilDate::known(2026, 2, 19),
        change: "ShardingParam gains `unreduced_axes`; version 0 cannot write a param that \
                 has any",
    },
    VersionEntry {
        number: SerDesVersionNumber(2),
        introduced: CivilDate::known(2026, 6, 16),
        change: "shardings write a well-known memory kind as a numeric id (`memory_kind_id`) \
                 instead of its name; only other memory kinds keep the name",
    },
];

/// The oldest version whose format this build can still read. Raise it to remove a format (see
/// the module documentation).
pub const MINIMUM: SerDesVersionNumber = SerDesVersionNumber(0);

/// IFRT's history, this crate's preset: [`HISTORY`] with this build's [`MINIMUM`].
pub static IFRT: History = History::new(HISTORY, MINIMUM);

/// A dated version history and the minimum a build of it still reads: the scheme's one global
/// version, for any project.
///
/// [`IFRT`] is this crate's preset. A project with its own protocol declares its own, with its
/// own dates, in a `static`, and gets the same machinery: the ranges of
/// [`History::supported`] and [`History::range`] give the default, week-4-old and any-version
/// accessors ([`SupportedVersions::default_version`], [`SupportedVersions::week_4_old`],
/// [`SupportedVersions::version`]), a [`Registry`](crate::Registry) for its own
/// [`Codec`](crate::Codec)s, nesting, [`negotiate`](crate::negotiate) and the removal window.
///
/// ```
/// use ifrt_serdes::CivilDate;
/// use ifrt_serdes::version::{History, SerDesVersionNumber, VersionEntry};
///
/// static PLUGINS: History = History::new(
///     &[
///         VersionEntry::dated(0, (2025, 1, 10), "initial formats"),
///         VersionEntry::dated(1, (2025, 3, 2), "limits gain max_threads"),
///     ],
///     SerDesVersionNumber::new(0),
/// );
/// let build = PLUGINS.supported();
/// let on = CivilDate::new(2025, 3, 29)?;
/// assert_eq!(build.week_4_old(on)?.number(), SerDesVersionNumber::new(0));
/// assert_eq!(build.week_4_old(on.add_days(1)?)?.number(), SerDesVersionNumber::new(1));
/// # Ok::<(), ifrt_serdes::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct History {
    versions: &'static [VersionEntry],
    minimum: SerDesVersionNumber,
}

impl History {
    /// The history `versions` (oldest first: numbers 0, 1, 2... and strictly increasing dates)
    /// of a build that reads from `minimum` on.
    ///
    /// # Panics
    ///
    /// If `versions` is empty, its numbers are not 0, 1, 2..., its dates do not strictly
    /// increase, or `minimum` is not listed. Declare a history in a `static` or `const`, and a
    /// bad one fails the build instead.
    pub const fn new(versions: &'static [VersionEntry], minimum: SerDesVersionNumber) -> Self {
        assert!(!versions.is_empty(), "a history has at least one version");
        let mut i = 0;
        while i < versions.len() {
            assert!(
                versions[i].number.0 == i as i32,
                "version numbers are 0, 1, 2..."
            );
            if i > 0 {
                let (before, after) = (versions[i - 1].introduced, versions[i].introduced);
                assert!(
                    before.days_since_unix_epoch() < after.days_since_unix_epoch(),
                    "introduction dates strictly increase"
                );
            }
            i += 1;
        }
        assert!(
            minimum.0 >= 0 && (minimum.0 as usize) < versions.len(),
            "the minimum is a listed version"
        );
        History { versions, minimum }
    }

    /// Every version, oldest first.
    pub const fn versions(&self) -> &'static [VersionEntry] {
        self.versions
    }

    /// The oldest version a build of this history still reads.
    pub const fn minimum(&self) -> SerDesVersionNumber {
        self.minimum
    }

    /// The newest version.
    pub const fn current(&self) -> SerDesVersionNumber {
        self.versions[self.versions.len() - 1].number
    }

    /// The build of this history: `[minimum, current]`.
    pub const fn supported(&'static self) -> SupportedVersions {
        SupportedVersions {
            history: self,
            minimum: self.minimum,
            current: self.current(),
        }
    }

    /// Another build of this history: `[minimum, current]`, both listed and in order (an older
    /// build stops before `current`; a future one raised its minimum).
    pub fn range(
        &'static self,
        minimum: SerDesVersionNumber,
        current: SerDesVersionNumber,
    ) -> Result<SupportedVersions, Error> {
        let listed = |n: SerDesVersionNumber| self.versions.iter().any(|entry| entry.number == n);
        if listed(minimum) && listed(current) && minimum <= current {
            Ok(SupportedVersions {
                history: self,
                minimum,
                current,
            })
        } else {
            Err(Error::InvalidRange { minimum, current })
        }
    }

    /// The day version `number` was introduced; [`WindowError::UnknownVersion`] if it is not
    /// listed.
    pub fn introduced(&self, number: SerDesVersionNumber) -> Result<CivilDate, Error> {
        self.versions
            .iter()
            .find(|entry| entry.number == number)
            .map(|entry| entry.introduced)
            .ok_or_else(|| WindowError::UnknownVersion { number }.into())
    }
}

/// The newest version: the last entry of [`HISTORY`].
pub const CURRENT: SerDesVersionNumber = HISTORY[HISTORY.len() - 1].number;

/// How old a version must be for [`SupportedVersions::week_4_old`]: four weeks.
pub const WEEK_4_OLD_DAYS: i64 = 28;

/// A serialization version that this build supports. Obtained only through the accessors;
/// never from a bare integer.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SerDesVersion(SerDesVersionNumber);

impl SerDesVersion {
    /// The newest version of this build. Ordinary code should ask
    /// [`DefaultVersionAccessor::get`] instead, so the testing feature can catch defaults.
    pub const fn current() -> Self {
        SerDesVersion(CURRENT)
    }

    /// Its number, e.g. to record in serialized data.
    pub const fn number(self) -> SerDesVersionNumber {
        self.0
    }
}

impl fmt::Display for SerDesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// The versions a build can read and write: every entry of its [`History`] from `minimum` to
/// `current`. [`SupportedVersions::BUILT_IN`] is this build of IFRT's history; other ranges
/// describe (or simulate) other builds: an older one that stops before `current`, or a future
/// one whose minimum was raised; ranges of other histories come from [`History::range`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SupportedVersions {
    history: &'static History,
    minimum: SerDesVersionNumber,
    current: SerDesVersionNumber,
}

impl SupportedVersions {
    /// This build: [`MINIMUM`] to [`CURRENT`] of IFRT's history ([`IFRT`]).
    pub const BUILT_IN: SupportedVersions = SupportedVersions {
        history: &IFRT,
        minimum: MINIMUM,
        current: CURRENT,
    };

    /// The range `[minimum, current]` of IFRT's history; both must be in [`HISTORY`] and in
    /// order. Other histories: [`History::range`].
    pub fn new(minimum: SerDesVersionNumber, current: SerDesVersionNumber) -> Result<Self, Error> {
        IFRT.range(minimum, current)
    }

    /// The history this range belongs to.
    pub fn whole_history(&self) -> &'static History {
        self.history
    }

    /// The default version for ordinary serialization: `current`; with the crate feature
    /// `testing-bad-default-version`, [`Error::DefaultVersionDisallowed`] instead (as
    /// [`DefaultVersionAccessor`] does for IFRT's build).
    pub fn default_version(&self) -> Result<SerDesVersion, Error> {
        if cfg!(feature = "testing-bad-default-version") {
            Err(Error::DefaultVersionDisallowed)
        } else {
            Ok(SerDesVersion(self.current))
        }
    }

    /// The oldest readable version.
    pub fn minimum(&self) -> SerDesVersion {
        SerDesVersion(self.minimum)
    }

    /// The newest version.
    pub fn current(&self) -> SerDesVersion {
        SerDesVersion(self.current)
    }

    /// Whether data recorded as `number` can be read (and written) by this build.
    pub fn contains(&self, number: SerDesVersionNumber) -> bool {
        self.minimum <= number && number <= self.current
    }

    /// The version `number`, if this build supports it; [`Incompatible::VersionOutOfRange`]
    /// otherwise.
    /// This is IFRT's `SerDesAnyVersionAccessor::Get`, with the range check IFRT leaves to the
    /// caller.
    pub fn version(&self, number: SerDesVersionNumber) -> Result<SerDesVersion, Error> {
        if self.contains(number) {
            Ok(SerDesVersion(number))
        } else {
            Err(Incompatible::VersionOutOfRange {
                number,
                minimum: self.minimum,
                current: self.current,
            }
            .into())
        }
    }

    /// The newest version of this range introduced at least 28 days before `today`: a build at
    /// most four weeks old can read what is written in it.
    ///
    /// It never returns a younger version. When the range has none that old (its minimum was
    /// introduced less than 28 days before `today`), it returns
    /// [`WindowError::NoWeek4OldVersion`], which says from which day there is one.
    pub fn week_4_old(&self, today: CivilDate) -> Result<SerDesVersion, Error> {
        let days = today.days_since_unix_epoch();
        if let Some(entry) = self
            .history()
            .rev()
            .find(|entry| entry.introduced.days_since_unix_epoch() + WEEK_4_OLD_DAYS <= days)
        {
            return Ok(SerDesVersion(entry.number));
        }
        let introduced = self.history.introduced(self.minimum)?;
        Err(WindowError::NoWeek4OldVersion {
            today,
            minimum: self.minimum,
            current: self.current,
            introduced,
            from: introduced.add_days(WEEK_4_OLD_DAYS)?,
        }
        .into())
    }

    /// This range with its minimum raised to `to`: the policy check of removing formats
    /// ("Removing an Old Format" in IFRT's serdes_version.md). The new minimum must be in the
    /// range and must not be newer than [`SupportedVersions::week_4_old`] on `today`; else
    /// [`WindowError::MinimumAboveWeek4Old`] says from which day it is allowed. Asking for a
    /// minimum at or below the present one changes nothing.
    pub fn raise_minimum(
        &self,
        to: SerDesVersionNumber,
        today: CivilDate,
    ) -> Result<SupportedVersions, Error> {
        if to <= self.minimum {
            return Ok(*self);
        }
        let raised = self.history.range(to, self.current)?;
        let week_4_old = self.week_4_old(today).ok().map(SerDesVersion::number);
        if week_4_old.is_some_and(|old| to <= old) {
            return Ok(raised);
        }
        Err(WindowError::MinimumAboveWeek4Old {
            minimum: to,
            week_4_old,
            today,
            from: self.history.introduced(to)?.add_days(WEEK_4_OLD_DAYS)?,
        }
        .into())
    }

    /// The history entries of this range, oldest first.
    pub fn history(&self) -> impl DoubleEndedIterator<Item = &'static VersionEntry> + use<> {
        let range = *self;
        self.history
            .versions
            .iter()
            .filter(move |entry| range.contains(entry.number))
    }
}

/// The default version for ordinary serialization (IFRT: `SerDesDefaultVersionAccessor`,
/// xla/python/ifrt/serdes_default_version_accessor.h).
#[derive(Debug)]
pub struct DefaultVersionAccessor;

impl DefaultVersionAccessor {
    /// The current version; with the `testing-bad-default-version` feature, always
    /// [`Error::DefaultVersionDisallowed`] (IFRT aborts there; a typed error is kinder and
    /// equally loud in a test).
    pub fn get() -> Result<SerDesVersion, Error> {
        SupportedVersions::BUILT_IN.default_version()
    }
}

/// A version at least four weeks old (IFRT: `SerDesWeek4OldVersionAccessor`,
/// xla/python/ifrt/serdes_week_4_old_version_accessor.h), computed from [`HISTORY`]'s dates.
#[derive(Debug)]
pub struct Week4OldVersionAccessor;

impl Week4OldVersionAccessor {
    /// The week-4-old version of this build, on `clock`'s today; an error if none is four
    /// weeks old yet (see [`SupportedVersions::week_4_old`]).
    pub fn get(clock: &dyn Clock) -> Result<SerDesVersion, Error> {
        SupportedVersions::BUILT_IN.week_4_old(clock.today())
    }
}

/// Any version in this build's range (IFRT: `SerDesAnyVersionAccessor`,
/// xla/python/ifrt/serdes_any_version_accessor.h).
#[derive(Debug)]
pub struct AnyVersionAccessor;

impl AnyVersionAccessor {
    /// The version `number`, range-checked against this build.
    pub fn get(number: SerDesVersionNumber) -> Result<SerDesVersion, Error> {
        SupportedVersions::BUILT_IN.version(number)
    }

    /// The oldest version this build reads.
    pub fn get_minimum() -> SerDesVersion {
        SupportedVersions::BUILT_IN.minimum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock::FixedClock;

    #[test]
    fn history_numbers_and_dates_strictly_increase() {
        assert!(!HISTORY.is_empty());
        assert_eq!(HISTORY[0].number, SerDesVersionNumber(0));
        for pair in HISTORY.windows(2) {
            assert_eq!(
                pair[1].number.value(),
                pair[0].number.value() + 1,
                "{pair:?}"
            );
            assert!(pair[0].introduced < pair[1].introduced, "{pair:?}");
        }
        assert!(HISTORY.iter().any(|entry| entry.number == MINIMUM));
        assert!(HISTORY.len() >= 3, "at least three formats in the history");
    }

    #[test]
    fn week_4_old_follows_the_dates() {
        let built_in = SupportedVersions::BUILT_IN;
        let on = |y, m, d| {
            built_in
                .week_4_old(CivilDate::new(y, m, d).unwrap())
                .unwrap()
                .number()
        };
        // Before anything is four weeks old there is no week-4-old version: an error that
        // says from when there is one, never a younger version.
        let error = built_in
            .week_4_old(CivilDate::new(2025, 5, 21).unwrap())
            .unwrap_err();
        assert_eq!(
            error,
            Error::Window(WindowError::NoWeek4OldVersion {
                today: CivilDate::known(2025, 5, 21),
                minimum: SerDesVersionNumber(0),
                current: CURRENT,
                introduced: CivilDate::known(2025, 5, 20),
                from: CivilDate::known(2025, 6, 17),
            })
        );
        assert!(built_in.week_4_old(CivilDate::known(2025, 6, 16)).is_err());
        assert_eq!(on(2025, 6, 17), SerDesVersionNumber(0));
        // Version 1 was introduced 2026-02-19; it becomes week-4-old exactly 28 days later.
        assert_eq!(on(2026, 3, 18), SerDesVersionNumber(0));
        assert_eq!(on(2026, 3, 19), SerDesVersionNumber(1));
        // Version 2 was introduced 2026-06-16.
        assert_eq!(on(2026, 7, 13), SerDesVersionNumber(1));
        assert_eq!(on(2026, 7, 14), SerDesVersionNumber(2));
        assert_eq!(on(2030, 1, 1), CURRENT);
        assert_eq!(
            Week4OldVersionAccessor::get(&FixedClock(CivilDate::new(2026, 3, 19).unwrap())),
            built_in.version(SerDesVersionNumber(1))
        );
        // Every day of the history: the answer is never younger than 28 days.
        let mut day = CivilDate::known(2025, 5, 1);
        while day < CivilDate::known(2026, 9, 1) {
            if let Ok(version) = built_in.week_4_old(day) {
                let introduced = IFRT.introduced(version.number()).unwrap();
                assert!(introduced.days_until(day) >= WEEK_4_OLD_DAYS, "{day}");
            }
            day = day.add_days(1).unwrap();
        }
    }

    #[test]
    fn week_4_old_respects_a_raised_minimum_and_an_older_current() {
        let raised = SupportedVersions::new(SerDesVersionNumber(1), CURRENT).unwrap();
        // Version 1 is younger than four weeks on these days: no week-4-old version.
        for (y, m, d) in [(2025, 6, 1), (2026, 2, 20), (2026, 3, 18)] {
            assert!(matches!(
                raised.week_4_old(CivilDate::known(y, m, d)),
                Err(Error::Window(WindowError::NoWeek4OldVersion { .. }))
            ));
        }
        let v1_old = raised.week_4_old(CivilDate::known(2026, 3, 19)).unwrap();
        assert_eq!(v1_old.number(), SerDesVersionNumber(1));
        let old_build =
            SupportedVersions::new(SerDesVersionNumber(0), SerDesVersionNumber(1)).unwrap();
        let later = CivilDate::new(2030, 1, 1).unwrap();
        assert_eq!(
            old_build.week_4_old(later).unwrap().number(),
            SerDesVersionNumber(1)
        );
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
        if cfg!(feature = "testing-bad-default-version") {
            let error = got.unwrap_err();
            assert_eq!(error, Error::DefaultVersionDisallowed);
            assert!(
                error
                    .to_string()
                    .starts_with("Using a default `SerDesVersion` is disallowed when ")
            );
        } else {
            assert_eq!(got, Ok(SerDesVersion::current()));
        }
    }

    #[test]
    fn the_ifrt_preset_is_this_builds_history() {
        assert_eq!(IFRT.versions(), HISTORY);
        assert_eq!(IFRT.minimum(), MINIMUM);
        assert_eq!(IFRT.current(), CURRENT);
        assert_eq!(IFRT.supported(), SupportedVersions::BUILT_IN);
        assert_eq!(
            IFRT.introduced(SerDesVersionNumber(1)),
            Ok(CivilDate::known(2026, 2, 19))
        );
        assert_eq!(
            IFRT.introduced(SerDesVersionNumber(9)),
            Err(Error::Window(WindowError::UnknownVersion {
                number: SerDesVersionNumber(9)
            }))
        );
    }

    #[test]
    #[should_panic(expected = "introduction dates strictly increase")]
    fn a_history_whose_dates_go_back_is_refused() {
        static BACKWARDS: &[VersionEntry] = &[
            VersionEntry::dated(0, (2025, 2, 1), "a"),
            VersionEntry::dated(1, (2025, 1, 1), "b"),
        ];
        let _ = History::new(BACKWARDS, SerDesVersionNumber(0));
    }

    #[test]
    #[should_panic(expected = "version numbers are 0, 1, 2...")]
    fn a_history_with_a_gap_is_refused() {
        static GAP: &[VersionEntry] = &[
            VersionEntry::dated(0, (2025, 1, 1), "a"),
            VersionEntry::dated(2, (2025, 2, 1), "b"),
        ];
        let _ = History::new(GAP, SerDesVersionNumber(0));
    }

    #[test]
    fn numbers_print_as_ifrt_does() {
        assert_eq!(SerDesVersionNumber(1).to_string(), "IFRT SerDes version 1");
    }

    #[test]
    fn numbers_parse_bare_or_as_they_print() {
        for n in [0, 2, -1, i32::MAX, i32::MIN] {
            let number = SerDesVersionNumber(n);
            assert_eq!(number.to_string().parse(), Ok(number));
            assert_eq!(n.to_string().parse(), Ok(number));
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
}
