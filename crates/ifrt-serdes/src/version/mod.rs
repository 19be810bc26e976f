//! The global, dated serialization version, and the histories it belongs to.
//!
//! One number is raised whenever *any* type gets a new format. Each number has an introduction
//! date. The numbers and dates of one protocol are its [`History`]: IFRT's is the preset
//! [`IFRT`] (exactly xla/python/ifrt/serdes_version.h); a project declares its own in a
//! `static`. Every [`SerDesVersion`] carries its history, so a version of one history is refused
//! by a registry of another ([`Incompatible::WrongHistory`]) instead of being taken for a number
//! that happens to be in range, and every message names the history ("IFRT SerDes version 2",
//! "plugin protocol version 3").
//!
//! A build supports a range of its history, [`SupportedVersions`]: it can be asked to write any
//! version from `minimum` to `current`. For each value it writes the *oldest* of its type's
//! formats that holds the bytes written, and records that format
//! ([`Formats`](crate::Formats)); it reads every format still in force at `minimum` or later.
//!
//! A [`SerDesVersion`] cannot be built from a bare integer. It comes from an accessor, as in IFRT
//! (xla/python/ifrt/serdes_version.h and its three accessor headers):
//!
//! - the default: [`SupportedVersions::default_version`] (`current`), for ordinary code. With
//!   the crate feature `testing-bad-default-version` it returns
//!   [`Error::DefaultVersionDisallowed`] instead, so a test suite run with the feature proves
//!   that no path silently falls back to the default.
//! - week-4-old: [`SupportedVersions::week_4_old`], for artifacts that builds up to four weeks
//!   old must read. IFRT keeps it by hand ([`Week4Old::Fixed`]: version 3 in the preset, see
//!   [`WEEK_4_OLD`]); a history of your own may let the dates decide ([`Week4Old::FromDates`]).
//! - any version: [`SupportedVersions::version`], range-checked; for layers that choose the
//!   version themselves (e.g. after negotiating with a peer build, see [`crate::negotiate`]).
//!
//! [`DefaultVersionAccessor`], [`Week4OldVersionAccessor`] and [`AnyVersionAccessor`] are the
//! same three for IFRT's build, under IFRT's names.
//!
//! # Adding a format
//!
//! 1. Append an entry to your history with the next number, today's date and what changed.
//!    Under [`Week4Old::Fixed`], move the week-4-old version on by hand when the time comes (as
//!    IFRT does); under [`Week4Old::FromDates`] there is nothing to do.
//! 2. Add the number to the type's [`Formats`](crate::Formats) (`Codec::FORMATS`). When the
//!    requested version allows it (`Formats::newest_at`), the serializer may write the new
//!    representation; it records the oldest format whose reader reads the bytes it wrote
//!    (`Formats::record`), so a value that does not use the new feature stays readable by older
//!    builds. (IFRT's compile options are the exception real clients show: they record the
//!    newest format the requested version allows; see [`XlaCompileOptions`](crate::XlaCompileOptions).) Nested values get the *requested* version, never the outer format nor a default.
//! 3. In its deserializer, parse the new format when the recorded number is the new number
//!    ([`Registry::read_format`](crate::Registry::read_format) says which). Nested values are
//!    read by their own recorded formats.
//! 4. Add the new golden files (`IFRT_SERDES_WRITE_GOLDEN=1 cargo test -p ifrt-serdes --test
//!    ifrt golden`) and their checksum lines; existing files never change.
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
//!   [`SupportedVersions::week_4_old`] ([`WindowError::MinimumAboveWeek4Old`]).
//!
//! Then, in one change (the seed's "Removing an Old Format"):
//!
//! 1. Delete the serializer and parser branches of `F` and drop `F` from the type's formats.
//! 2. Raise the history's minimum to `S` (or later). `F` is then superseded at the minimum:
//!    every build reading bytes of `F` fails with "Unsupported IFRT SerDes version F for TYPE
//!    deserialization". Types whose format did not change keep being read: their only format
//!    is never superseded.
//! 3. Delete the golden files of `F` and their checksum lines, and turn the golden test for it
//!    into a test that the bytes are now rejected (see `tests/ifrt/removal.rs`).

use std::fmt;
use std::str::FromStr;

use jiff::Span;
use jiff::civil::Date;

use crate::error::{Error, Incompatible, WindowError};

mod preset;
pub use preset::*;

/// A bare version number, as recorded in serialized data. It can come from anywhere (including
/// hostile bytes) and belongs to no history; turning it into a [`SerDesVersion`] goes through a
/// range check of one.
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

/// The bare number (`2`): a number names no history. A [`SerDesVersion`] displays with its
/// history's name ("IFRT SerDes version 2").
impl fmt::Display for SerDesVersionNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// Reads a whole number (`2`, `-1`), or a number as IFRT prints one (`IFRT SerDes version 2`).
/// Whether a build supports it is checked later, by [`SupportedVersions::version`].
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

/// One entry of a version history: its number, the day it was introduced, and what changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VersionEntry {
    number: SerDesVersionNumber,
    introduced: Date,
    change: &'static str,
    /// `introduced` as one number that orders like the date, for the checks of
    /// [`History::new`] (a `const fn`, where dates cannot be compared).
    day_order: i32,
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
        (year, month, day): (i16, i8, i8),
        change: &'static str,
    ) -> Self {
        VersionEntry {
            number: SerDesVersionNumber(number),
            introduced: jiff::civil::date(year, month, day),
            change,
            day_order: year as i32 * 512 + month as i32 * 32 + day as i32,
        }
    }

    /// The version number.
    pub const fn number(&self) -> SerDesVersionNumber {
        self.number
    }

    /// The day the version was introduced.
    pub const fn introduced(&self) -> Date {
        self.introduced
    }

    /// What changed in it.
    pub const fn change(&self) -> &'static str {
        self.change
    }
}

/// How a history's week-4-old version is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Week4Old {
    /// A version kept by hand, as IFRT keeps `SerDesVersion::week_4_old()`
    /// (xla/python/ifrt/serdes_version.h): "recent but not more recent than 4 weeks", moved on
    /// by a person. Whatever day it is asked on, it is this version.
    Fixed(SerDesVersionNumber),
    /// Computed from the dates: the newest version of the build's range introduced at least 28
    /// days before the day asked about; an error while none is that old.
    FromDates,
}

/// A dated version history, the minimum a build of it still reads, and how its week-4-old
/// version is chosen: the scheme's one global version, for one protocol.
///
/// [`IFRT`] is IFRT's. A project with its own protocol declares its own in a `static`, and gets
/// the same machinery: the ranges of [`History::supported`] and [`History::range`] give the
/// default, week-4-old and any-version accessors ([`SupportedVersions::default_version`],
/// [`SupportedVersions::week_4_old`], [`SupportedVersions::version`]), a
/// [`Registry`](crate::Registry) for its own [`Codec`](crate::Codec)s, nesting, negotiation and
/// the removal window. Its versions are its own: a registry of another history refuses them.
///
/// ```
/// use ifrt_serdes::Date;
/// use ifrt_serdes::version::{History, SerDesVersionNumber, VersionEntry, Week4Old};
///
/// static PLUGINS: History = History::new(
///     "plugin protocol",
///     &[
///         VersionEntry::dated(0, (2025, 1, 10), "initial formats"),
///         VersionEntry::dated(1, (2025, 3, 2), "limits gain max_threads"),
///     ],
///     SerDesVersionNumber::new(0),
///     Week4Old::FromDates,
/// );
/// let build = PLUGINS.supported();
/// assert_eq!(build.current().to_string(), "plugin protocol version 1");
/// let on = Date::constant(2025, 3, 29);
/// assert_eq!(build.week_4_old(on)?.number(), SerDesVersionNumber::new(0));
/// assert_eq!(build.week_4_old(on.tomorrow()?)?.number(), SerDesVersionNumber::new(1));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct History {
    name: &'static str,
    versions: &'static [VersionEntry],
    minimum: SerDesVersionNumber,
    week_4_old: Week4Old,
}

impl History {
    /// The history called `name` (messages say "`name` version N"), of `versions` (oldest
    /// first: numbers 0, 1, 2..., dates that never go back; two versions may share a day), of a
    /// build that reads from `minimum` on, with its week-4-old version chosen by `week_4_old`.
    ///
    /// # Panics
    ///
    /// If `versions` is empty, its numbers are not 0, 1, 2..., its dates go back, or `minimum`
    /// (or a fixed week-4-old version) is not listed. Declare a history in a `static` or
    /// `const`, and a bad one fails the build instead.
    pub const fn new(
        name: &'static str,
        versions: &'static [VersionEntry],
        minimum: SerDesVersionNumber,
        week_4_old: Week4Old,
    ) -> Self {
        assert!(!versions.is_empty(), "a history has at least one version");
        let mut i = 0;
        while i < versions.len() {
            assert!(
                versions[i].number.0 == i as i32,
                "version numbers are 0, 1, 2..."
            );
            if i > 0 {
                assert!(
                    versions[i - 1].day_order <= versions[i].day_order,
                    "introduction dates never go back"
                );
            }
            i += 1;
        }
        let count = versions.len() as i32;
        assert!(
            minimum.0 >= 0 && minimum.0 < count,
            "the minimum is a listed version"
        );
        if let Week4Old::Fixed(fixed) = week_4_old {
            assert!(
                fixed.0 < count && fixed.0 >= minimum.0,
                "a fixed week-4-old version is listed, and not below the minimum"
            );
        }
        History {
            name,
            versions,
            minimum,
            week_4_old,
        }
    }

    /// Its name, as messages use it: "`name` version N".
    pub const fn name(&self) -> &'static str {
        self.name
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

    /// How its week-4-old version is chosen.
    pub const fn week_4_old_rule(&self) -> Week4Old {
        self.week_4_old
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
        let listed = |n: SerDesVersionNumber| self.entry(n).is_some();
        if listed(minimum) && listed(current) && minimum <= current {
            Ok(SupportedVersions {
                history: self,
                minimum,
                current,
            })
        } else {
            Err(Error::InvalidRange {
                history: self.name,
                minimum,
                current,
            })
        }
    }

    /// The day version `number` was introduced; [`WindowError::UnknownVersion`] if it is not
    /// listed.
    pub fn introduced(&self, number: SerDesVersionNumber) -> Result<Date, Error> {
        self.entry(number)
            .map(|entry| entry.introduced)
            .ok_or_else(|| {
                WindowError::UnknownVersion {
                    history: self.name,
                    number,
                }
                .into()
            })
    }

    fn entry(&self, number: SerDesVersionNumber) -> Option<&'static VersionEntry> {
        usize::try_from(number.0)
            .ok()
            .and_then(|i| self.versions.get(i))
    }

    /// Whether `other` is this history: the same one, or one declared alike.
    #[inline]
    fn is(&self, other: &History) -> bool {
        std::ptr::eq(self, other) || self == other
    }
}

/// How old a version must be to be week-4-old: four weeks.
pub const WEEK_4_OLD_DAYS: i64 = 28;

/// `date` plus `days`, or `None` past the end of jiff's calendar (year 9999).
pub(crate) fn days_after(date: Date, days: i64) -> Option<Date> {
    date.checked_add(Span::new().days(days)).ok()
}

/// A serialization version of one [`History`], that a build of it supports. Obtained only
/// through the accessors, never from a bare integer; it carries its history, and displays with
/// its name ("IFRT SerDes version 2").
#[derive(Clone, Copy, Debug)]
pub struct SerDesVersion {
    history: &'static History,
    number: SerDesVersionNumber,
}

impl SerDesVersion {
    /// Its number, e.g. to record in serialized data.
    pub const fn number(self) -> SerDesVersionNumber {
        self.number
    }

    /// The history it belongs to.
    pub const fn history(self) -> &'static History {
        self.history
    }
}

impl PartialEq for SerDesVersion {
    fn eq(&self, other: &Self) -> bool {
        self.number == other.number && self.history.is(other.history)
    }
}

impl Eq for SerDesVersion {}

/// Consistent with `==`: histories declared alike hash alike.
impl std::hash::Hash for SerDesVersion {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.history.hash(state);
        self.number.hash(state);
    }
}

impl fmt::Display for SerDesVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} version {}", self.history.name, self.number.0)
    }
}

/// The versions a build can read and write: every entry of its [`History`] from `minimum` to
/// `current`. [`SupportedVersions::BUILT_IN`] is this build of IFRT; other ranges describe (or
/// simulate) other builds: an older one that stops before `current`, or a future one whose
/// minimum was raised; ranges of other histories come from [`History::range`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SupportedVersions {
    history: &'static History,
    minimum: SerDesVersionNumber,
    current: SerDesVersionNumber,
}

impl SupportedVersions {
    /// This build of IFRT: [`MINIMUM`] to [`CURRENT`] of [`IFRT`].
    pub const BUILT_IN: SupportedVersions = IFRT.supported();

    /// The range `[minimum, current]` of IFRT's history; both must be in [`HISTORY`] and in
    /// order. Other histories: [`History::range`].
    pub fn new(minimum: SerDesVersionNumber, current: SerDesVersionNumber) -> Result<Self, Error> {
        IFRT.range(minimum, current)
    }

    /// The history this range belongs to.
    pub fn whole_history(&self) -> &'static History {
        self.history
    }

    fn at(&self, number: SerDesVersionNumber) -> SerDesVersion {
        SerDesVersion {
            history: self.history,
            number,
        }
    }

    /// The default version for ordinary serialization: `current`; with the crate feature
    /// `testing-bad-default-version`, [`Error::DefaultVersionDisallowed`] instead (IFRT's
    /// `SerDesDefaultVersionAccessor`).
    pub fn default_version(&self) -> Result<SerDesVersion, Error> {
        if cfg!(feature = "testing-bad-default-version") {
            Err(Error::DefaultVersionDisallowed)
        } else {
            Ok(self.at(self.current))
        }
    }

    /// The oldest readable version.
    pub fn minimum(&self) -> SerDesVersion {
        self.at(self.minimum)
    }

    /// The newest version.
    pub fn current(&self) -> SerDesVersion {
        self.at(self.current)
    }

    /// Whether data recorded as `number` can be read (and written) by this build.
    pub fn contains(&self, number: SerDesVersionNumber) -> bool {
        self.minimum <= number && number <= self.current
    }

    /// The version `number`, if this build supports it; [`Incompatible::VersionOutOfRange`]
    /// otherwise. This is IFRT's `SerDesAnyVersionAccessor::Get`, with the range check IFRT
    /// leaves to the caller.
    pub fn version(&self, number: SerDesVersionNumber) -> Result<SerDesVersion, Error> {
        if self.contains(number) {
            Ok(self.at(number))
        } else {
            Err(Incompatible::VersionOutOfRange {
                history: self.history.name,
                number,
                minimum: self.minimum,
                current: self.current,
            }
            .into())
        }
    }

    /// The version to write artifacts in that builds up to four weeks old must read.
    ///
    /// Under [`Week4Old::Fixed`] (IFRT), the fixed version whatever `today` is, as IFRT's
    /// `SerDesWeek4OldVersionAccessor::Get` returns `SerDesVersion::week_4_old()`; if this
    /// range does not contain it, [`Incompatible::VersionOutOfRange`].
    ///
    /// Under [`Week4Old::FromDates`], the newest version of this range introduced at least 28
    /// days before `today`. It never returns a younger version: when the range has none that
    /// old, it returns [`WindowError::NoWeek4OldVersion`], which says from which day there is
    /// one.
    pub fn week_4_old(&self, today: Date) -> Result<SerDesVersion, Error> {
        if let Week4Old::Fixed(fixed) = self.history.week_4_old {
            return self.version(fixed);
        }
        if let Some(entry) = self.history().rev().find(|entry| {
            days_after(entry.introduced, WEEK_4_OLD_DAYS).is_some_and(|old| old <= today)
        }) {
            return Ok(self.at(entry.number));
        }
        let introduced = self.history.introduced(self.minimum)?;
        Err(WindowError::NoWeek4OldVersion {
            history: self.history.name,
            today,
            minimum: self.minimum,
            current: self.current,
            introduced,
            from: days_after(introduced, WEEK_4_OLD_DAYS),
        }
        .into())
    }

    /// This range with its minimum raised to `to`: the policy check of removing formats
    /// ("Removing an Old Format" in IFRT's serdes_version.md). The new minimum must be in the
    /// range and must not be newer than [`SupportedVersions::week_4_old`] on `today`; else
    /// [`WindowError::MinimumAboveWeek4Old`] says from which day it is allowed (under
    /// [`Week4Old::Fixed`], once the week-4-old version is moved on by hand). Asking for a
    /// minimum at or below the present one changes nothing.
    pub fn raise_minimum(
        &self,
        to: SerDesVersionNumber,
        today: Date,
    ) -> Result<SupportedVersions, Error> {
        if to <= self.minimum {
            return Ok(*self);
        }
        let raised = self.history.range(to, self.current)?;
        let week_4_old = self.week_4_old(today).ok().map(SerDesVersion::number);
        if week_4_old.is_some_and(|old| to <= old) {
            return Ok(raised);
        }
        let from = match self.history.week_4_old {
            Week4Old::Fixed(_) => None,
            Week4Old::FromDates => days_after(self.history.introduced(to)?, WEEK_4_OLD_DAYS),
        };
        Err(WindowError::MinimumAboveWeek4Old {
            history: self.history.name,
            minimum: to,
            week_4_old,
            today,
            from,
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

    /// Whether `version` belongs to this range's history (not only to its range of numbers).
    #[inline]
    pub fn owns(&self, version: SerDesVersion) -> bool {
        self.history.is(version.history)
    }
}

#[cfg(test)]
mod tests;
