//! The registration-time check: a plugin built against one `SE_MAJOR` refuses a host built
//! against another, and accepts any minor difference, which `struct_size` absorbs member by member.
//!
//! Source of the rule and its wording: the StreamExecutor C API versioning RFC
//! (`tensorflow/community`, `rfcs/20200612-stream-executor-c-api/C_API_versioning_strategy.md`,
//! "By Comparing SE_MAJOR at Registration Time").

use crate::error::Error;
use crate::version::ApiVersion;

/// How the two sides of a registration relate once their major versions agree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agreement {
    /// Same major and minor version: both sides use the same struct layouts.
    SameMinor,
    /// The side that passed its version in (the host) is on a newer minor version: its structs
    /// may be longer; this side reads only the members its `struct_size` checks find.
    GivenIsNewer,
    /// The side that passed its version in is on an older minor version: its structs may be
    /// shorter; `struct_size` tells this side which members are missing.
    GivenIsOlder,
}

/// Checks the version `given` by the other side against the version this side was `built` with.
///
/// Only the major versions must match ("Unsupported major version. Given: X Expected: Y");
/// minor and patch differences are accepted, because every struct carries its own `struct_size`.
///
/// ```
/// use se_abi::{check_registration, Agreement, ApiVersion, Error};
///
/// let plugin = ApiVersion::new(0, 0, 1);
/// assert_eq!(check_registration(ApiVersion::new(0, 3, 0), plugin), Ok(Agreement::GivenIsNewer));
/// let err = check_registration(ApiVersion::new(1, 0, 0), plugin).unwrap_err();
/// assert_eq!(err.to_string(), "Unsupported major version. Given: 1 Expected: 0");
/// ```
pub fn check_registration(given: ApiVersion, built: ApiVersion) -> Result<Agreement, Error> {
    if given.major != built.major {
        return Err(Error::UnsupportedMajorVersion {
            given: given.major,
            expected: built.major,
        });
    }
    Ok(match given.minor.cmp(&built.minor) {
        core::cmp::Ordering::Equal => Agreement::SameMinor,
        core::cmp::Ordering::Greater => Agreement::GivenIsNewer,
        core::cmp::Ordering::Less => Agreement::GivenIsOlder,
    })
}
