//! The clock that tells today's date.
//!
//! Versions carry their introduction date; [`SupportedVersions::week_4_old`] needs "today". The
//! clock is a parameter, so that tests and tools can ask "what would week-4-old have been on
//! that day?" without waiting for it.
//!
//! [`SupportedVersions::week_4_old`]: crate::SupportedVersions::week_4_old

use std::time::{SystemTime, UNIX_EPOCH};

use crate::date::CivilDate;

/// Tells today's date.
pub trait Clock {
    /// Today, as a civil date.
    fn today(&self) -> CivilDate;
}

/// The machine's clock, in UTC.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn today(&self) -> CivilDate {
        let seconds = match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(elapsed) => i64::try_from(elapsed.as_secs()).unwrap_or(i64::MAX),
            Err(before) => -i64::try_from(before.duration().as_secs()).unwrap_or(i64::MAX),
        };
        let days = seconds.div_euclid(86_400);
        // A clock outside years 1..=9999 is clamped to the nearest representable day.
        CivilDate::from_days_since_unix_epoch(days).unwrap_or(if days < 0 {
            CivilDate::known(1, 1, 1)
        } else {
            CivilDate::known(9999, 12, 31)
        })
    }
}

/// A clock stopped at one date: for tests, tools, and reproducible builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedClock(pub CivilDate);

impl Clock for FixedClock {
    fn today(&self) -> CivilDate {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_clock_is_after_the_first_version() {
        assert!(SystemClock.today() > CivilDate::known(2025, 5, 20));
    }

    #[test]
    fn a_fixed_clock_stays_put() {
        let day = CivilDate::known(2026, 2, 19);
        assert_eq!(FixedClock(day).today(), day);
    }
}
