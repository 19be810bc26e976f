//! Choosing the version two builds use to talk (IFRT Proxy's `ChooseIfrtSerdesVersionNumber`,
//! xla/python/ifrt_proxy/server/version.h and version.cc).
//!
//! Each side announces the `[min, max]` it supports. The agreed version is the smaller maximum,
//! provided neither side's minimum is above it. Both sides then turn the agreed number into a
//! [`SerDesVersion`] with their own range check ([`SupportedVersions::version`]) and serialize
//! everything they send with it; each side reads whatever it receives by the formats recorded
//! in the data.
//!
//! [`SupportedVersions::version`]: crate::version::SupportedVersions::version

use crate::error::{Error, Incompatible};
use crate::version::{SerDesVersion, SerDesVersionNumber, SupportedVersions};

/// A `[min, max]` pair as announced by a peer. Unlike [`SupportedVersions`] it is not checked
/// against this build's history: it describes the other build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct VersionRange {
    /// The oldest version the peer reads.
    pub min: SerDesVersionNumber,
    /// The newest version the peer reads and writes.
    pub max: SerDesVersionNumber,
}

impl From<SupportedVersions> for VersionRange {
    fn from(supported: SupportedVersions) -> Self {
        VersionRange {
            min: supported.minimum().number(),
            max: supported.current().number(),
        }
    }
}

/// The version client and server agree on: `min(client.max, server.max)` if it is at least both
/// minimums, else [`Incompatible::NegotiationFailed`] with IFRT Proxy's message.
pub fn negotiate(client: VersionRange, server: VersionRange) -> Result<SerDesVersionNumber, Error> {
    let version = client.max.min(server.max);
    if version < client.min || version < server.min {
        return Err(Incompatible::NegotiationFailed { client, server }.into());
    }
    Ok(version)
}

impl SupportedVersions {
    /// The version this build and a peer of the same history that announced `peer` agree on,
    /// as a version of this build's history, ready for [`SerializeOptions`](crate::SerializeOptions):
    /// [`negotiate`]'s choice, with an error that names the history
    /// ([`Incompatible::NoCommonVersion`]) for a protocol of your own.
    pub fn agree_with(&self, peer: VersionRange) -> Result<SerDesVersion, Error> {
        let ours = VersionRange::from(*self);
        match negotiate(ours, peer) {
            Ok(agreed) => self.version(agreed),
            Err(_) => Err(Incompatible::NoCommonVersion {
                history: self.whole_history().name(),
                ours,
                peer,
            }
            .into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(min: i32, max: i32) -> VersionRange {
        VersionRange {
            min: SerDesVersionNumber::new(min),
            max: SerDesVersionNumber::new(max),
        }
    }

    /// The compatible and incompatible cases of xla/python/ifrt_proxy/server/version_test.cc.
    #[test]
    fn ifrt_proxy_cases() {
        for (c, s, agreed) in [
            ((1, 1), (1, 1), 1),
            ((1, 2), (2, 2), 2),
            ((2, 2), (1, 2), 2),
            ((1, 3), (3, 4), 3),
        ] {
            assert_eq!(
                negotiate(range(c.0, c.1), range(s.0, s.1)),
                Ok(SerDesVersionNumber::new(agreed)),
                "{c:?} {s:?}"
            );
        }
        for (c, s) in [((1, 2), (3, 3)), ((1, 3), (4, 6)), ((1, 1), (2, 2))] {
            assert!(
                negotiate(range(c.0, c.1), range(s.0, s.1)).is_err(),
                "{c:?} {s:?}"
            );
        }
    }

    #[test]
    fn a_build_agrees_on_a_version_of_its_own_history() {
        let ifrt = SupportedVersions::BUILT_IN;
        let agreed = ifrt.agree_with(range(0, 1)).unwrap();
        assert_eq!(agreed.to_string(), "IFRT SerDes version 1");
        assert!(ifrt.owns(agreed));
        assert_eq!(
            ifrt.agree_with(range(7, 8)).unwrap_err().to_string(),
            "this build and its peer share no IFRT SerDes version: this build reads [0, 6], the \
             peer [7, 8]"
        );
    }

    #[test]
    fn the_error_names_both_ranges() {
        let error = negotiate(range(1, 2), range(3, 3)).unwrap_err();
        assert_eq!(
            error.to_string(),
            "IFRT Proxy client and server failed to agree on the IFRT SerDes version; supported \
             versions: client = [1, 2], server = [3, 3]"
        );
    }

    #[test]
    fn every_pair_of_small_ranges_agrees_on_a_version_both_support() {
        for cmin in 0..4 {
            for cmax in cmin..4 {
                for smin in 0..4 {
                    for smax in smin..4 {
                        let (c, s) = (range(cmin, cmax), range(smin, smax));
                        let overlap = cmin.max(smin) <= cmax.min(smax);
                        match negotiate(c, s) {
                            Ok(v) => {
                                assert!(overlap);
                                assert_eq!(v.value(), cmax.min(smax));
                                assert_eq!(negotiate(s, c), Ok(v), "symmetric");
                            }
                            Err(_) => assert!(!overlap, "{c:?} {s:?}"),
                        }
                    }
                }
            }
        }
    }
}
