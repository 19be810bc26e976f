//! Is a move from one release's constants to the next allowed?
//!
//! TensorFlow's playbooks for evolving data (`tensorflow/core/public/version.h` and the
//! "TensorFlow version compatibility" guide) become rules here:
//!
//! - a scheme's current version never goes back;
//! - `min_producer` may rise only at a major release: it drops support for old data;
//! - `min_consumer` must not rise within a patch line (same major.minor): new data would no
//!   longer load in the releases of that line;
//! - a release reads its own data: both minimums stay at or below its current version;
//! - a new deprecation needs a version above every earlier deprecation and above the previous
//!   release's current version (graphs it wrote stay valid), and a deprecation, once released,
//!   is never changed, nor withdrawn while graphs that may use the op are still read: only
//!   once `min_producer` has reached its version can the op go entirely (the seed's step 4 of
//!   "removing an op": every graph still read was written after the op was banned);
//! - banning a consumer adds it to the `bad_consumers` the producer stamps, and needs a new
//!   GraphDef version (the seed: "bump the binary version and add the bad version to
//!   bad_consumers"), so that the fixed consumers are told apart from the banned one; a ban,
//!   once released, stays, and only an existing consumer version can be banned.
//!
//! [`check_release_move`] applies them to two [`ReleaseVersioning`]s and says, rule by rule, what is allowed and
//! why.

use std::fmt;
use std::str::FromStr;

use crate::deprecation::Registry;
use crate::error::Error;
use crate::version::{CHECKPOINT, Constants, GRAPH_DEF, Scheme, TF_VERSION, Version};

/// A TensorFlow release number, `MAJOR.MINOR.PATCH`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ReleaseNumber {
    /// Major release.
    pub major: u32,
    /// Minor release.
    pub minor: u32,
    /// Patch release.
    pub patch: u32,
}

impl ReleaseNumber {
    /// `major.minor.patch`.
    pub const fn new(major: u32, minor: u32, patch: u32) -> Self {
        ReleaseNumber {
            major,
            minor,
            patch,
        }
    }
}

impl FromStr for ReleaseNumber {
    type Err = Error;

    /// Parses `MAJOR.MINOR.PATCH`; a pre-release suffix (`2.21.0-rc1`) is ignored.
    fn from_str(text: &str) -> Result<Self, Error> {
        let invalid = || Error::InvalidRelease {
            input: text.chars().take(32).collect(),
        };
        let core = text.split('-').next().unwrap_or(text);
        let mut numbers = core.split('.').map(|part| {
            if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
                return Err(invalid());
            }
            part.parse::<u32>().map_err(|_| invalid())
        });
        match (
            numbers.next(),
            numbers.next(),
            numbers.next(),
            numbers.next(),
        ) {
            (Some(major), Some(minor), Some(patch), None) => {
                Ok(ReleaseNumber::new(major?, minor?, patch?))
            }
            _ => Err(invalid()),
        }
    }
}

impl fmt::Display for ReleaseNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.major, self.minor, self.patch)
    }
}

/// Everything a release fixes about data versioning: its number, its constants, the ops it
/// has deprecated and the consumers its producers ban. [`check_release_move`] judges a move
/// from one to the next; [`TfRelease`](crate::TfRelease) is a real release, with its ops.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReleaseVersioning {
    /// The release number.
    pub number: ReleaseNumber,
    /// Its GraphDef constants.
    pub graph_def: Constants,
    /// Its checkpoint constants.
    pub checkpoint: Constants,
    /// Its deprecated ops.
    pub deprecations: Registry,
    /// GraphDef consumer versions its producers ban.
    pub banned_consumers: Vec<Version>,
}

impl ReleaseVersioning {
    /// TensorFlow 2.21 as this crate ships it.
    pub fn tensorflow() -> Self {
        ReleaseVersioning {
            // TF_VERSION is a valid release number.
            number: TF_VERSION.parse().unwrap_or(ReleaseNumber::new(2, 21, 0)),
            graph_def: GRAPH_DEF,
            checkpoint: CHECKPOINT,
            deprecations: Registry::tensorflow(),
            banned_consumers: Vec::new(),
        }
    }
}

/// Which rule a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PolicyRule {
    /// The new release comes after the old one.
    ReleaseOrder,
    /// A scheme's current version never decreases.
    CurrentNeverDecreases,
    /// `min_producer` rises only at a major release.
    MinProducerAtMajor,
    /// `min_consumer` does not rise within a patch line.
    MinConsumerWithinPatchLine,
    /// A release reads its own data.
    ReadsOwnData,
    /// A new deprecation's version is above every earlier one.
    DeprecationVersion,
    /// A released deprecation is never changed, nor withdrawn before `min_producer` reaches
    /// its version.
    DeprecationKept,
    /// A new ban comes with a new GraphDef version; banned consumers stay banned; only
    /// existing consumers can be banned.
    ConsumerBan,
}

/// One rule applied to one change.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PolicyFinding {
    /// The rule.
    pub rule: PolicyRule,
    /// The scheme the change is in, when it is about one.
    pub scheme: Option<Scheme>,
    /// Whether the change is allowed.
    pub allowed: bool,
    /// Why, in words.
    pub reason: String,
}

/// What [`check_release_move`] found: every change it looked at, allowed or not.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct PolicyReport {
    /// One finding per change.
    pub findings: Vec<PolicyFinding>,
}

impl PolicyReport {
    /// Whether every change is allowed.
    pub fn allowed(&self) -> bool {
        self.findings.iter().all(|finding| finding.allowed)
    }

    /// The changes that are not allowed.
    pub fn violations(&self) -> impl Iterator<Item = &PolicyFinding> {
        self.findings.iter().filter(|finding| !finding.allowed)
    }

    fn push(&mut self, rule: PolicyRule, scheme: Option<Scheme>, allowed: bool, reason: String) {
        self.findings.push(PolicyFinding {
            rule,
            scheme,
            allowed,
            reason,
        });
    }
}

/// Applies the compatibility rules to the move from release `from` to release `to`.
pub fn check_release_move(from: &ReleaseVersioning, to: &ReleaseVersioning) -> PolicyReport {
    let mut report = PolicyReport::default();
    let (old, new) = (from.number, to.number);
    if new <= old {
        report.push(
            PolicyRule::ReleaseOrder,
            None,
            false,
            format!("release {new} does not come after {old}"),
        );
    }
    check_scheme(&mut report, old, new, &from.graph_def, &to.graph_def);
    check_scheme(&mut report, old, new, &from.checkpoint, &to.checkpoint);
    check_deprecations(&mut report, from, to);
    check_bans(&mut report, from, to);
    report
}

fn check_scheme(
    report: &mut PolicyReport,
    old: ReleaseNumber,
    new: ReleaseNumber,
    from: &Constants,
    to: &Constants,
) {
    let scheme = Some(to.scheme);
    let name = to.scheme.upper_name();
    if to.current < from.current {
        report.push(
            PolicyRule::CurrentNeverDecreases,
            scheme,
            false,
            format!(
                "{name} version goes back from {} to {}",
                from.current, to.current
            ),
        );
    }
    if to.min_producer > from.min_producer {
        let major = new.major > old.major;
        report.push(
            PolicyRule::MinProducerAtMajor,
            scheme,
            major,
            if major {
                format!(
                    "{name} min_producer rises from {} to {} at major release {new}: data older than {} is no longer read",
                    from.min_producer, to.min_producer, to.min_producer
                )
            } else {
                format!(
                    "{name} min_producer rises from {} to {} in {new}, which is not a major release: only a major release may drop support for old data",
                    from.min_producer, to.min_producer
                )
            },
        );
    }
    if to.min_consumer > from.min_consumer {
        let same_line = new.major == old.major && new.minor == old.minor;
        report.push(
            PolicyRule::MinConsumerWithinPatchLine,
            scheme,
            !same_line,
            if same_line {
                format!(
                    "{name} min_consumer rises from {} to {} within the {}.{} patch line: data written by {new} would not load in {old}",
                    from.min_consumer, to.min_consumer, new.major, new.minor
                )
            } else {
                format!(
                    "{name} min_consumer rises from {} to {}: data written by {new} needs a consumer of version {} or later",
                    from.min_consumer, to.min_consumer, to.min_consumer
                )
            },
        );
    }
    for (what, minimum) in [
        ("min_producer", to.min_producer),
        ("min_consumer", to.min_consumer),
    ] {
        if minimum > to.current {
            report.push(
                PolicyRule::ReadsOwnData,
                scheme,
                false,
                format!("{name} {what} {minimum} is above the current version {}: {new} could not read its own data", to.current),
            );
        }
    }
}

fn check_deprecations(report: &mut PolicyReport, from: &ReleaseVersioning, to: &ReleaseVersioning) {
    let scheme = Some(Scheme::GraphDef);
    let earlier = from
        .deprecations
        .latest_version()
        .unwrap_or(Version::new(0));
    let released = from.graph_def.current;
    for op in to.deprecations.iter() {
        match from.deprecations.get(&op.name) {
            None => {
                let above_all = op.version > earlier;
                let after_release = op.version > released;
                let allowed = above_all && after_release;
                let reason = if !above_all {
                    format!(
                        "new deprecation of {} at version {} is not above the latest earlier deprecation ({earlier})",
                        op.name, op.version
                    )
                } else if !after_release {
                    format!(
                        "new deprecation of {} at version {} would break graphs {} already writes at version {released}",
                        op.name, op.version, from.number
                    )
                } else if op.version > to.graph_def.current {
                    format!(
                        "{} deprecated at version {}; it takes effect once the GraphDef version reaches it (now {})",
                        op.name, op.version, to.graph_def.current
                    )
                } else {
                    format!(
                        "{} deprecated at version {}: graphs from then on may not use it, older graphs warn",
                        op.name, op.version
                    )
                };
                report.push(PolicyRule::DeprecationVersion, scheme, allowed, reason);
            }
            Some(old) if old.version != op.version => report.push(
                PolicyRule::DeprecationKept,
                scheme,
                false,
                format!(
                    "deprecation of {} moves from version {} to {}: released consumers already judge graphs by {}",
                    op.name, old.version, op.version, old.version
                ),
            ),
            Some(_) => {}
        }
    }
    let min_producer = to.graph_def.min_producer;
    for old in from.deprecations.iter() {
        if to.deprecations.get(&old.name).is_some() {
            continue;
        }
        let gone = min_producer >= old.version;
        report.push(
            PolicyRule::DeprecationKept,
            scheme,
            gone,
            if gone {
                format!(
                    "{} (deprecated at version {}) is removed entirely: min_producer {min_producer} refuses every graph older than that, and newer ones may not use it",
                    old.name, old.version
                )
            } else {
                format!(
                    "deprecation of {} (version {}) is withdrawn while min_producer is {min_producer}: graphs from {min_producer} to {} may still use it and warn; raise min_producer to {} at a major release first",
                    old.name,
                    old.version,
                    old.version.get().saturating_sub(1),
                    old.version
                )
            },
        );
    }
}

fn check_bans(report: &mut PolicyReport, from: &ReleaseVersioning, to: &ReleaseVersioning) {
    let scheme = Some(Scheme::GraphDef);
    for banned in &from.banned_consumers {
        if !to.banned_consumers.contains(banned) {
            report.push(
                PolicyRule::ConsumerBan,
                scheme,
                false,
                format!(
                    "consumer {banned} is no longer banned, but it is still buggy with the data"
                ),
            );
        }
    }
    let (released, current) = (from.graph_def.current, to.graph_def.current);
    for banned in &to.banned_consumers {
        if from.banned_consumers.contains(banned) {
            continue;
        }
        let exists = *banned <= released;
        let bumped = current > released;
        report.push(
            PolicyRule::ConsumerBan,
            scheme,
            exists && bumped,
            if !exists {
                format!(
                    "consumer {banned} does not exist yet (the latest released version is {released}); only a released consumer can be banned"
                )
            } else if !bumped {
                format!(
                    "consumer {banned} is banned but the GraphDef version stays at {current}: bump it, so that the fixed consumers (from {}) are told apart from the banned ones",
                    released.get().saturating_add(1)
                )
            } else {
                format!(
                    "consumer {banned} is banned at GraphDef version {current}: new data lists it in bad_consumers"
                )
            },
        );
    }
}
