//! IFRT's own history, as this crate presets it ([`IFRT`]: xla/python/ifrt/serdes_version.h and
//! the versions measured in released jaxlib binaries), and IFRT's three version accessors for
//! its build.

use super::{
    Error, History, SerDesVersion, SerDesVersionNumber, SupportedVersions, VersionEntry, Week4Old,
};
use crate::clock::Clock;

/// IFRT's version history (xla/python/ifrt/serdes_version.h, "List of SerDes version literals
/// and introduction dates"), word for word in what changed, as of the newest header this crate
/// has read: openxla/xla's file at commit 3f7a926de0133f194deaeb53e57707c0ac6198da (read from
/// its mirror qnx-ports/xla), whose current version is 3, the range real jaxlib 0.10.2's IFRT
/// Proxy client offers (`[0, 3]`).
///
/// XLA renumbered version 2. An older header (openxla/xla 49534d8b) ended at
/// `2: 2026-03-19, Allow mixed serialization for stablehlo dialects`; the newer one replaced that
/// entry: 2 is now "ShardingParamSharding is not created anymore by IFRT IR" (2026-04-06) and
/// mixed serialization moved to 3 (2026-04-09; xla/python/ifrt/hlo/hlo_program_serdes.cc writes
/// it only at `>= SerDesVersionNumber(3)`). Builds of the withdrawn numbering offered `[0, 2]`
/// with a different meaning of 2; no released jaxlib is known to have shipped it (0.9.2 offers
/// `[0, 1]`, 0.10.2 `[0, 3]`). This crate follows the newest header.
///
/// Versions 4 to 6 are not in any header this crate has read. Each day below is an upper bound:
/// the upload to PyPI of the first jaxlib whose IFRT Proxy client offers the version (0.10.2,
/// uploaded 2026-06-17, offers `[0, 3]`; 0.11.0, 2026-07-16, `[0, 4]`; 0.11.1, 2026-08-17,
/// `[0, 5]`; 0.11.2, 2026-09-17, `[0, 6]`).
///
/// - **4** comes from what the clients send. From 0.11.0 on `XlaCompileOptionsProto` has
///   `version_number` and `outputs_bundle_slice_sizes`, and a client at a negotiated 4 or newer
///   records format 4 in it (jaxlib 0.11.2 and 0.12.0.1 measured at 3, 4, 5 and 6; at 3 it
///   records none). The 0.11.2 binary also names the slice sizes' floor for IFRT IR and
///   custom-call compile options.
/// - **5** introduces `AbstractArraySpec`: XLA's xla/python/ifrt/abstract_array_spec.cc
///   (openxla/xla 80c095fc) writes its message only at 5 or newer, records 5, and reads nothing
///   else. jaxlib 0.11.1 is the first binary holding `AbstractArraySpecProto` (0.11.0 has none).
/// - **6** gives `RemapPlan` format 6: XLA's xla/python/ifrt/remap_plan.cc (openxla/xla
///   3db140b1) writes the plan from its per-output input devices alone at 6 or newer, and below
///   6 records format 0 with the older `mappings` list derived from them. jaxlib 0.11.2 is the
///   first binary whose `RemapPlan` constructor no longer takes mappings.
///
/// Neither `AbstractArraySpec` nor `RemapPlan` is a type of this crate, so the values it writes
/// are the same at 4, 5 and 6 (as real clients' are). jaxlib 0.12.0 raises its minimum to 2.
pub const HISTORY: &[VersionEntry] = &[
    VersionEntry::dated(0, (2025, 5, 20), "initial version"),
    VersionEntry::dated(
        1,
        (2026, 2, 19),
        "added support for unreduced axes in ShardingParam",
    ),
    VersionEntry::dated(
        2,
        (2026, 4, 6),
        "ShardingParamSharding is not created anymore by IFRT IR",
    ),
    VersionEntry::dated(
        3,
        (2026, 4, 9),
        "Allowed mixed serialization for stablehlo dialects",
    ),
    // Not from a header (see above). Each day is the last it can be.
    VersionEntry::dated(
        4,
        (2026, 7, 16),
        "XlaCompileOptions records format 4, which may carry outputs_bundle_slice_sizes",
    ),
    VersionEntry::dated(
        5,
        (2026, 8, 17),
        "AbstractArraySpec is introduced, written only at 5 or newer",
    ),
    VersionEntry::dated(
        6,
        (2026, 9, 17),
        "RemapPlan records format 6, without the mappings list older formats carry",
    ),
];

/// IFRT's oldest readable version (xla/python/ifrt/serdes_version.h, `SerDesVersion::minimum()`:
/// 0 in every header so far).
pub const MINIMUM: SerDesVersionNumber = SerDesVersionNumber::new(0);

/// IFRT's week-4-old version, kept by hand (xla/python/ifrt/serdes_version.h,
/// `SerDesVersion::week_4_old()`): 2, whatever the day.
///
/// The one number of the preset that is not read from the header, so it is this one constant:
///
/// - the newest header read (openxla/xla 3f7a926d, current 3) says **1**;
/// - real jaxlib 0.10.2, a release of the same history (it offers `[0, 3]`), refuses to write a
///   program at a negotiated 0, 1 **and 2**: `FAILED_PRECONDITION: Unsupported IFRT SerDes
///   version 2 for HloProgram serialization`, and writes it at 3 (measured with its real IFRT
///   Proxy client against a server capped at each version, `interop/jaxlib/`). XLA's program
///   serializer refuses exactly the versions below the build's week-4-old version
///   (xla/python/ifrt/hlo/hlo_program_serdes.cc), so 0.10.2 was built after week-4-old had moved
///   on to **3** (version 3 turned four weeks old on 2026-05-07).
///
/// The preset follows the released binary: 3.
pub const WEEK_4_OLD: SerDesVersionNumber = SerDesVersionNumber::new(3);

/// IFRT's newest version (xla/python/ifrt/serdes_version.h, `SerDesVersion::current()`).
pub const CURRENT: SerDesVersionNumber = HISTORY[HISTORY.len() - 1].number;

/// IFRT's history: [`HISTORY`], read from [`MINIMUM`], week-4-old fixed at [`WEEK_4_OLD`].
/// Its versions display as IFRT prints them: "IFRT SerDes version 2".
pub static IFRT: History =
    History::new("IFRT SerDes", HISTORY, MINIMUM, Week4Old::Fixed(WEEK_4_OLD));

/// The default version for ordinary serialization in IFRT's build (IFRT:
/// `SerDesDefaultVersionAccessor`, xla/python/ifrt/serdes_default_version_accessor.h). A
/// registry of another history takes its default from its own range:
/// [`SupportedVersions::default_version`], or [`Registry::default_options`](crate::Registry::default_options).
#[derive(Debug)]
pub struct DefaultVersionAccessor;

impl DefaultVersionAccessor {
    /// IFRT's current version; with the `testing-bad-default-version` feature, always
    /// [`Error::DefaultVersionDisallowed`] (IFRT aborts there; a typed error is kinder and
    /// equally loud in a test).
    pub fn get() -> Result<SerDesVersion, Error> {
        SupportedVersions::BUILT_IN.default_version()
    }
}

/// IFRT's week-4-old version (IFRT: `SerDesWeek4OldVersionAccessor`,
/// xla/python/ifrt/serdes_week_4_old_version_accessor.h): fixed by hand at [`WEEK_4_OLD`].
#[derive(Debug)]
pub struct Week4OldVersionAccessor;

impl Week4OldVersionAccessor {
    /// IFRT's week-4-old version. `clock` is asked only by histories whose week-4-old version
    /// follows the dates; IFRT's does not, so it is [`WEEK_4_OLD`] on any day.
    pub fn get(clock: &dyn Clock) -> Result<SerDesVersion, Error> {
        SupportedVersions::BUILT_IN.week_4_old(clock.today())
    }
}

/// Any version in IFRT's range (IFRT: `SerDesAnyVersionAccessor`,
/// xla/python/ifrt/serdes_any_version_accessor.h).
#[derive(Debug)]
pub struct AnyVersionAccessor;

impl AnyVersionAccessor {
    /// The version `number`, range-checked against this build.
    pub fn get(number: SerDesVersionNumber) -> Result<SerDesVersion, Error> {
        SupportedVersions::BUILT_IN.version(number)
    }

    /// The oldest version this build reads (IFRT: `GetMinimum`).
    pub fn get_minimum() -> SerDesVersion {
        SupportedVersions::BUILT_IN.minimum()
    }
}
