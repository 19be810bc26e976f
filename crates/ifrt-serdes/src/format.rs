//! Each type's own formats: the versions at which *its* format changed.
//!
//! The global version is raised whenever any type gets a new format, but most types keep
//! theirs. As in IFRT (e.g. xla/python/ifrt/dtype.cc and array_spec.cc, whose `ToProto` records
//! `SerDesVersionNumber(0)` whatever version was requested, and
//! xla/python/ifrt/ir/sharding_param.cc, which records 1 from version 1 on), the number in the
//! bytes names the *format* that was written, not the version the caller asked for:
//!
//! - writing with requested version `R` writes the newest format `F <= R` and records `F`
//!   ([`Formats::to_write`]); nested values still get `R`;
//! - reading picks the parser for exactly the recorded `F`, and refuses an `F` that is not one
//!   of the type's formats, that is newer than the build's `current`, or that was superseded
//!   before the build's `minimum` ([`Formats::check_readable`]).
//!
//! So a type whose format did not change between two builds is read by both, whatever version
//! the writer requested; only the types whose format changed are refused.

use std::cell::{Cell, RefCell};

use crate::date::CivilDate;
use crate::error::{Error, Incompatible, WindowError};
use crate::version::{SerDesVersion, SerDesVersionNumber, SupportedVersions, WEEK_4_OLD_DAYS};

/// The formats of one type (or of one nested message): the version numbers at which its
/// format changed, oldest first.
///
/// A format `F` is written for every requested version from `F` up to (not including) the next
/// format's number: that is its *span*. A build with range `[minimum, current]` reads `F` when
/// `F`'s span meets its range: `F <= current`, and the next format (if any) is newer than
/// `minimum`. Removing a format is raising `minimum` to (at least) its successor.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Formats {
    what: &'static str,
    since: &'static [SerDesVersionNumber],
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
        Formats { what, since }
    }

    /// The type's name in errors.
    pub const fn what(&self) -> &'static str {
        self.what
    }

    /// The version numbers at which the format changed, oldest first.
    pub const fn versions(&self) -> &'static [SerDesVersionNumber] {
        self.since
    }

    /// The format written for `requested`: the newest one not newer than it. Fails with
    /// [`Incompatible::UnsupportedSerializationVersion`] only if every format is newer than
    /// the request.
    #[inline]
    pub fn to_write(&self, requested: SerDesVersion) -> Result<SerDesVersionNumber, Error> {
        let requested = requested.number();
        self.newest_at(requested)
            .ok_or_else(|| unsupported_serialization(requested, self.what))
    }

    /// The newest format not newer than `version`, if any.
    #[inline]
    fn newest_at(&self, version: SerDesVersionNumber) -> Option<SerDesVersionNumber> {
        self.since.iter().rev().copied().find(|f| *f <= version)
    }

    /// The format after `format`, if any: where `format`'s span ends.
    pub fn successor(&self, format: SerDesVersionNumber) -> Option<SerDesVersionNumber> {
        self.since.iter().copied().find(|f| *f > format)
    }

    /// Whether a build with `supported` reads format `format`: it is one of the formats, not
    /// newer than `current`, and not superseded at or before `minimum`.
    pub fn readable_by(&self, format: SerDesVersionNumber, supported: SupportedVersions) -> bool {
        self.since.contains(&format)
            && format <= supported.current().number()
            && self
                .successor(format)
                .is_none_or(|next| next > supported.minimum().number())
    }

    /// Checks the number recorded in the bytes against `supported`, and returns it as the
    /// format to parse. Refused in IFRT's words ("Unsupported IFRT SerDes version N for TYPE
    /// deserialization"), with the reader's range.
    #[inline]
    pub fn check_readable(
        &self,
        recorded: i32,
        supported: SupportedVersions,
    ) -> Result<SerDesVersionNumber, Error> {
        let format = SerDesVersionNumber::new(recorded);
        trace(RecordedFormat {
            formats: *self,
            format,
        });
        if self.readable_by(format, supported) {
            Ok(format)
        } else {
            Err(Incompatible::UnsupportedDeserializationVersion {
                version: format,
                what: self.what,
                minimum: supported.minimum().number(),
                current: supported.current().number(),
            }
            .into())
        }
    }
}

impl Formats {
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
        today: CivilDate,
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
        let from = introduced.add_days(WEEK_4_OLD_DAYS)?;
        if today < from {
            return Err(WindowError::SuccessorTooYoung {
                what: self.what,
                format,
                successor,
                introduced,
                today,
                from,
            }
            .into());
        }
        Ok(successor)
    }
}

fn unsupported_serialization(version: SerDesVersionNumber, what: &'static str) -> Error {
    Incompatible::UnsupportedSerializationVersion { version, what }.into()
}

/// One value found in serialized bytes: its type and the format recorded for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordedFormat {
    /// Which formats the value was checked against: its type's.
    pub formats: Formats,
    /// The number recorded in its bytes.
    pub format: SerDesVersionNumber,
}

impl RecordedFormat {
    /// The type's name (`DType`, `ShardingParam`...).
    pub fn what(&self) -> &'static str {
        self.formats.what
    }

    /// The versions in which a build reads this value on its own: from its format up to the
    /// version before its successor (`None` when the format has none yet: every later version
    /// reads it).
    pub fn readable_in(&self) -> (SerDesVersionNumber, Option<SerDesVersionNumber>) {
        let end = self
            .formats
            .successor(self.format)
            .map(|next| SerDesVersionNumber::new(next.value() - 1));
        (self.format, end)
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
        TRACE.with(|trace| trace.borrow_mut().push(recorded));
    }
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
