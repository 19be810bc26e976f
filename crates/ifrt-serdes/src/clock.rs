//! The clock that tells today's date.
//!
//! Versions carry their introduction date; [`SupportedVersions::week_4_old`] needs "today". The
//! clock is a parameter, so that tests and tools can ask "what would week-4-old have been on
//! that day?" without waiting for it.
//!
//! [`SupportedVersions::week_4_old`]: crate::version::SupportedVersions::week_4_old

use jiff::civil::Date;
use jiff::tz::TimeZone;

/// Tells today's date.
pub trait Clock {
    /// Today, as a civil date.
    fn today(&self) -> Date;
}

/// The machine's clock, in UTC.
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn today(&self) -> Date {
        TimeZone::UTC.to_datetime(jiff::Timestamp::now()).date()
    }
}

/// A clock stopped at one date: for tests, tools, and reproducible builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FixedClock(pub Date);

impl Clock for FixedClock {
    fn today(&self) -> Date {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_system_clock_is_after_the_first_version() {
        assert!(SystemClock.today() > Date::constant(2025, 5, 20));
    }

    #[test]
    fn a_fixed_clock_stays_put() {
        let day = Date::constant(2026, 2, 19);
        assert_eq!(FixedClock(day).today(), day);
    }
}
