//! Each type's own formats: the versions at which *its* format changed.
//!
//! The global version is raised whenever any type gets a new format, but most types keep
//! theirs. As in IFRT, the number in the bytes names the *format* of the bytes, not the version
//! the caller asked for: xla/python/ifrt/dtype.cc, shape.cc, array_spec.cc and the sharding
//! serializers (xla/python/ifrt/sharding_serdes.cc) record `SerDesVersionNumber(0)` whatever
//! version was requested, and xla/python/ifrt/ir/sharding_param.cc records 1 only for a param
//! that has unreduced axes, 0 for any other ("the oldest format that can hold this value"):
//!
//! - writing with requested version `R`, a codec may use any representation its formats up to
//!   `R` allow ([`Formats::newest_at`]); it records the *oldest* format whose reader reads the
//!   bytes it wrote ([`Formats::record`]), so a value that uses nothing new stays readable by
//!   every older build; nested values still get `R`;
//! - reading picks the parser for the recorded number ([`Formats::check_readable`]), and
//!   refuses a number that names no format of the type, that is newer than the build's
//!   `current`, or whose format was superseded at or before the build's `minimum`. A type may
//!   also read numbers IFRT accepts though it never meant to write them ([`Formats::reading`]:
//!   IFRT's `ShardingParam::FromProto` reads 2 as 1, "we accidentally used version 2 instead of
//!   1").
//!
//! So a type whose format did not change between two builds is read by both, whatever version
//! the writer requested; only the values that use a changed format are refused.

use std::cell::{Cell, RefCell};

use jiff::civil::Date;

use crate::error::{Error, Incompatible, Unreadable, WindowError};
use crate::version::{
    SerDesVersion, SerDesVersionNumber, SupportedVersions, WEEK_4_OLD_DAYS, days_after,
};

/// Recorded numbers a type reads as one of its formats though it never writes them: every
/// number from `first` to `last` is read as `format`, by builds whose current version is at
/// least the number read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct AlsoReads {
    /// The first number so read.
    pub first: i32,
    /// The last number so read.
    pub last: i32,
    /// The format they are read as.
    pub format: SerDesVersionNumber,
}

/// The formats of one type (or of one nested message): the version numbers at which its
/// format changed, oldest first.
///
/// A format `F` can be written for every requested version from `F` on; it is *superseded* by
/// the next format (its successor), and a build with range `[minimum, current]` reads `F` when
/// `F <= current` and its successor (if any) is newer than `minimum`. Removing a format is
/// raising `minimum` to (at least) its successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Formats {
    what: &'static str,
    since: &'static [SerDesVersionNumber],
    also_reads: &'static [AlsoReads],
}

impl Formats {
    /// The formats of the type called `what` in errors (IFRT's short name: `DType`,
    /// `ShardingParam`...), introduced at the versions `since`.
    ///
    /// # Panics
    ///
    /// If `since` is empty or not strictly increasing. Declare formats in a `const`, as the
    /// codecs of this crate do, and a bad list fails the build instead.
    pub const fn new(what: &'static str, since: &'static [SerDesVersionNumber]) -> Self {
        assert!(!since.is_empty(), "a type has at least one format");
        let mut i = 1;
        while i < since.len() {
            assert!(
                since[i - 1].value() < since[i].value(),
                "formats must be strictly increasing"
            );
            i += 1;
        }
        Formats {
            what,
            since,
            also_reads: &[],
        }
    }

    /// These formats, also reading the recorded numbers of `also_reads` (numbers the type's
    /// writers never record on purpose, but that its reader accepts, as IFRT's does).
    ///
    /// # Panics
    ///
    /// If an entry reads a number as something that is not one of the formats.
    pub const fn reading(mut self, also_reads: &'static [AlsoReads]) -> Self {
        let mut i = 0;
        while i < also_reads.len() {
            let mut found = false;
            let mut j = 0;
            while j < self.since.len() {
                found |= self.since[j].value() == also_reads[i].format.value();
                j += 1;
            }
            assert!(found, "numbers are read as one of the type's formats");
            i += 1;
        }
        self.also_reads = also_reads;
        self
    }

    /// The type's name in errors.
    pub const fn what(&self) -> &'static str {
        self.what
    }

    /// The version numbers at which the format changed, oldest first.
    pub const fn versions(&self) -> &'static [SerDesVersionNumber] {
        self.since
    }

    /// The newest format a writer may use for `requested`: the newest one not newer than it.
    /// A codec with a choice of representations picks by it; what it records is
    /// [`Formats::record`]'s answer.
    #[inline]
    pub fn newest_at(&self, requested: SerDesVersion) -> Option<SerDesVersionNumber> {
        let requested = requested.number();
        self.since.iter().rev().copied().find(|f| *f <= requested)
    }

    /// The format to record for bytes written at `requested` whose oldest reader is format
    /// `needed` (the oldest of the type's formats that holds them): `needed` itself. Fails with
    /// [`Incompatible::UnsupportedSerializationVersion`] if `needed` is not one of the formats
    /// or is newer than the request (a codec checks the features it writes first, and says
    /// which one needs a newer version).
    #[inline]
    pub fn record(
        &self,
        needed: SerDesVersionNumber,
        requested: SerDesVersion,
    ) -> Result<SerDesVersionNumber, Error> {
        if needed <= requested.number() && self.since.contains(&needed) {
            Ok(needed)
        } else {
            Err(Incompatible::UnsupportedSerializationVersion {
                history: requested.history().name(),
                version: requested.number(),
                what: self.what,
            }
            .into())
        }
    }

    /// The type's oldest format: what a value that uses nothing newer records.
    pub const fn oldest(&self) -> SerDesVersionNumber {
        self.since[0]
    }

    /// The format after `format`, if any: the one that supersedes it.
    pub fn successor(&self, format: SerDesVersionNumber) -> Option<SerDesVersionNumber> {
        self.since.iter().copied().find(|f| *f > format)
    }

    /// The format a build of `supported` reads `recorded` as, or why it does not.
    #[inline]
    pub fn read_as(
        &self,
        recorded: SerDesVersionNumber,
        supported: SupportedVersions,
    ) -> Result<SerDesVersionNumber, Unreadable> {
        if recorded > supported.current().number() {
            return Err(Unreadable::TooNew);
        }
        let format = if self.since.contains(&recorded) {
            recorded
        } else {
            self.also_reads
                .iter()
                .find(|a| a.first <= recorded.value() && recorded.value() <= a.last)
                .map(|a| a.format)
                .ok_or(Unreadable::NotAFormat)?
        };
        match self.successor(format) {
            Some(successor) if successor <= supported.minimum().number() => {
                Err(Unreadable::Removed { format, successor })
            }
            _ => Ok(format),
        }
    }

    /// Whether a build with `supported` reads a value that recorded `recorded`.
    pub fn readable_by(&self, recorded: SerDesVersionNumber, supported: SupportedVersions) -> bool {
        self.read_as(recorded, supported).is_ok()
    }

    /// Checks the number recorded in the bytes against `supported`, and returns the format to
    /// parse. Refused in IFRT's words ("Unsupported IFRT SerDes version N for TYPE
    /// deserialization"), with the reason and the reader's range.
    #[inline]
    pub fn check_readable(
        &self,
        recorded: i32,
        supported: SupportedVersions,
    ) -> Result<SerDesVersionNumber, Error> {
        let recorded = SerDesVersionNumber::new(recorded);
        let read = self.read_as(recorded, supported);
        trace(RecordedFormat {
            formats: *self,
            recorded,
            format: read.unwrap_or(recorded),
        });
        match read {
            Ok(format) => Ok(format),
            Err(why) => Err(self.refusal(why, recorded, supported)),
        }
    }

    /// IFRT's refusal of `recorded` by a build of `supported`, for `why`. Out of line: every
    /// read checks formats, few are refused, and the reading code stays small.
    #[cold]
    #[inline(never)]
    fn refusal(
        &self,
        why: Unreadable,
        recorded: SerDesVersionNumber,
        supported: SupportedVersions,
    ) -> Error {
        Incompatible::UnsupportedDeserializationVersion {
            history: supported.whole_history().name(),
            why,
            version: recorded,
            what: self.what,
            minimum: supported.minimum().number(),
            current: supported.current().number(),
        }
        .into()
    }

    /// The policy check of removing format `format` (its serializer and parser) from a build
    /// of `supported`'s history on `today`: allowed once its successor was introduced at least
    /// 28 days before `today`, so that no build inside the four-week window knows only
    /// `format`. Returns the successor: raise the minimum to it
    /// ([`SupportedVersions::raise_minimum`], which checks the window too) in the same change.
    ///
    /// Refused with [`WindowError::SuccessorTooYoung`] (saying from which day it is allowed),
    /// or [`WindowError::NoSuccessor`] for the newest format, which current builds write.
    pub fn check_removal(
        &self,
        format: SerDesVersionNumber,
        supported: SupportedVersions,
        today: Date,
    ) -> Result<SerDesVersionNumber, Error> {
        let successor = self
            .since
            .contains(&format)
            .then(|| self.successor(format))
            .flatten()
            .ok_or(WindowError::NoSuccessor {
                what: self.what,
                format,
            })?;
        let introduced = supported.whole_history().introduced(successor)?;
        let from = days_after(introduced, WEEK_4_OLD_DAYS);
        if from.is_none_or(|from| today < from) {
            return Err(WindowError::SuccessorTooYoung {
                what: self.what,
                format,
                successor,
                introduced,
                today,
                from: from.unwrap_or(introduced),
            }
            .into());
        }
        Ok(successor)
    }
}

/// The oldest requested version at which a type may be written at all: its own floor, beside
/// the build's global minimum.
///
/// Most of IFRT's types are written at any version of the build's range ([`WriteFloor::Minimum`]).
/// IFRT pins its programs higher: xla/python/ifrt/hlo/hlo_program_serdes.cc refuses to
/// serialize an `HloProgram` (type name `xla::ifrt::XlaProgram`) at any version below the
/// build's week-4-old one, with `FAILED_PRECONDITION: Unsupported IFRT SerDes version N for
/// HloProgram serialization`, though the build reads from its minimum on. That is
/// [`WriteFloor::Week4Old`]. A floor bounds writing only: reading follows the recorded format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum WriteFloor {
    /// No floor of its own: every version of the build's range.
    #[default]
    Minimum,
    /// The build's week-4-old version and newer, as IFRT pins its programs
    /// ([`SupportedVersions::week_4_old`]).
    Week4Old,
    /// This version and newer.
    Version(SerDesVersionNumber),
}

impl WriteFloor {
    /// The oldest version a build of `supported` writes the type at, on `today` (asked only
    /// under [`WriteFloor::Week4Old`], and only by histories whose week-4-old version follows
    /// the dates). `None` when the type's floor is above the build's range, or the build has no
    /// week-4-old version: it then writes the type at no version.
    pub fn lowest(self, supported: SupportedVersions, today: Date) -> Option<SerDesVersionNumber> {
        let floor = match self {
            WriteFloor::Minimum => return Some(supported.minimum().number()),
            WriteFloor::Version(floor) => floor,
            WriteFloor::Week4Old => supported.week_4_old(today).ok()?.number(),
        };
        let floor = floor.max(supported.minimum().number());
        (floor <= supported.current().number()).then_some(floor)
    }

    /// Fails, in IFRT's words, if a type called `what` with this floor may not be written at
    /// `requested` by a build of `supported` on `today` ([`Incompatible::BelowWriteFloor`]).
    /// The requested version is assumed in the build's range (the registry checks that first).
    pub fn check(
        self,
        what: &'static str,
        requested: SerDesVersion,
        supported: SupportedVersions,
        today: Date,
    ) -> Result<(), Error> {
        if self == WriteFloor::Minimum {
            return Ok(());
        }
        let lowest = self.lowest(supported, today);
        if lowest.is_some_and(|lowest| requested.number() >= lowest) {
            return Ok(());
        }
        Err(Incompatible::BelowWriteFloor {
            history: requested.history().name(),
            version: requested.number(),
            what,
            floor: self,
            lowest,
        }
        .into())
    }
}

/// One value found in serialized bytes: its type, the number recorded for it, and the format
/// that number is read as.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordedFormat {
    /// Which formats the value was checked against: its type's.
    pub formats: Formats,
    /// The number recorded in its bytes.
    pub recorded: SerDesVersionNumber,
    /// The format the number is read as (the number itself, unless the type reads it as
    /// another, or does not read it at all).
    pub format: SerDesVersionNumber,
}

impl RecordedFormat {
    /// The type's name (`DType`, `ShardingParam`...).
    pub fn what(&self) -> &'static str {
        self.formats.what
    }

    /// The versions in which a build reads this value on its own: from its recorded number (or
    /// the format it is read as, if later) up to the version before the format's successor
    /// (`None` when the format has none yet: every later version reads it).
    pub fn readable_in(&self) -> (SerDesVersionNumber, Option<SerDesVersionNumber>) {
        let end = self
            .formats
            .successor(self.format)
            .map(|next| SerDesVersionNumber::new(next.value() - 1));
        (self.recorded.max(self.format), end)
    }
}

thread_local! {
    /// Whether [`traced`] runs on this thread. Checked on every read, so it is a plain flag:
    /// a thread local without a destructor costs one load, no lazy-registration check.
    static TRACING: Cell<bool> = const { Cell::new(false) };
    /// While [`traced`] runs: every format checked on this thread, in reading order.
    static TRACE: RefCell<Vec<RecordedFormat>> = const { RefCell::new(Vec::new()) };
}

/// Notes a checked format, if a trace is being taken on this thread.
#[inline]
fn trace(recorded: RecordedFormat) {
    if TRACING.with(Cell::get) {
        push_trace(recorded);
    }
}

/// [`trace`]'s work, out of line: only `inspect` takes a trace.
#[cold]
#[inline(never)]
fn push_trace(recorded: RecordedFormat) {
    TRACE.with(|trace| trace.borrow_mut().push(recorded));
}

/// Runs `read` and returns, beside its result, the type and recorded format of every value it
/// checked, outer values first, the refused one (if any) last.
pub(crate) fn traced<R>(read: impl FnOnce() -> R) -> (R, Vec<RecordedFormat>) {
    let outer_list = TRACE.with(|trace| trace.take());
    let was_tracing = TRACING.with(|tracing| tracing.replace(true));
    let result = read();
    TRACING.with(|tracing| tracing.set(was_tracing));
    let list = TRACE.with(|trace| trace.replace(outer_list));
    (result, list)
}
