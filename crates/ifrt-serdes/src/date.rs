//! Civil (proleptic Gregorian) dates and the clock that tells today's date.
//!
//! Versions carry their introduction date; [`SupportedVersions::week_4_old`] needs "today".
//! The clock is a parameter so that tests and tools can ask "what would week-4-old have been on
//! that day?" without waiting for it.
//!
//! [`SupportedVersions::week_4_old`]: crate::SupportedVersions::week_4_old

use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

use crate::error::Error;

/// A calendar day, without time or zone.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    year: i32,
    month: u32,
    day: u32,
}

impl CivilDate {
    /// The date `year-month-day`, or [`Error::InvalidDate`] if it does not exist.
    pub fn new(year: i32, month: u32, day: u32) -> Result<Self, Error> {
        if Self::is_valid(year, month, day) {
            Ok(CivilDate { year, month, day })
        } else {
            Err(Error::InvalidDate { year, month, day })
        }
    }

    /// For the crate's own `const` tables: a date checked at compile time.
    pub(crate) const fn known(year: i32, month: u32, day: u32) -> Self {
        assert!(
            Self::is_valid(year, month, day),
            "invalid date in a const table"
        );
        CivilDate { year, month, day }
    }

    const fn is_valid(year: i32, month: u32, day: u32) -> bool {
        year >= 1 && year <= 9999 && month >= 1 && month <= 12 && day >= 1 && {
            day <= days_in_month(year, month)
        }
    }

    /// The year.
    pub fn year(self) -> i32 {
        self.year
    }

    /// The month, 1 to 12.
    pub fn month(self) -> u32 {
        self.month
    }

    /// The day of the month, 1-based.
    pub fn day(self) -> u32 {
        self.day
    }

    /// Days since 1970-01-01 (negative before it).
    pub fn days_since_epoch(self) -> i64 {
        // Count in a calendar whose year starts on March 1st, so the leap day ends the year.
        let y = i64::from(self.year) - i64::from(self.month <= 2);
        let era = y.div_euclid(400);
        let year_of_era = y - era * 400;
        let month_from_march = (i64::from(self.month) + 9) % 12;
        let day_of_year = (153 * month_from_march + 2) / 5 + i64::from(self.day) - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `days` days after 1970-01-01, if it lies in years 1..=9999.
    pub fn from_days_since_epoch(days: i64) -> Option<Self> {
        let z = days.checked_add(719_468)?;
        let era = z.div_euclid(146_097);
        let day_of_era = z - era * 146_097;
        let year_of_era =
            (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
        let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
        let month_from_march = (5 * day_of_year + 2) / 153;
        let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
        let month = if month_from_march < 10 {
            month_from_march + 3
        } else {
            month_from_march - 9
        };
        let year = year_of_era + era * 400 + i64::from(month <= 2);
        let year = i32::try_from(year).ok()?;
        CivilDate::new(year, u32::try_from(month).ok()?, u32::try_from(day).ok()?).ok()
    }

    /// This date plus `days` (which may be negative), if it stays in years 1..=9999.
    pub fn add_days(self, days: i64) -> Option<Self> {
        Self::from_days_since_epoch(self.days_since_epoch().checked_add(days)?)
    }
}

const fn days_in_month(year: i32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Parses `YYYY-MM-DD`.
impl std::str::FromStr for CivilDate {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        let bad = || Error::DateSyntax {
            text: text.chars().take(32).collect(),
        };
        let mut parts = text.splitn(3, '-');
        let mut next = || parts.next().ok_or_else(bad);
        let (year, month, day) = (next()?, next()?, next()?);
        let digits =
            |part: &str, len: usize| part.len() == len && part.bytes().all(|b| b.is_ascii_digit());
        if !digits(year, 4) || !digits(month, 2) || !digits(day, 2) {
            return Err(bad());
        }
        let number = |part: &str| part.parse::<u32>().map_err(|_| bad());
        let year = i32::try_from(number(year)?).map_err(|_| bad())?;
        CivilDate::new(year, number(month)?, number(day)?)
    }
}

impl fmt::Display for CivilDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

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
        CivilDate::from_days_since_epoch(days).unwrap_or(if days < 0 {
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
    fn epoch_and_known_days() {
        assert_eq!(CivilDate::known(1970, 1, 1).days_since_epoch(), 0);
        assert_eq!(CivilDate::known(2000, 3, 1).days_since_epoch(), 11_017);
        assert_eq!(CivilDate::known(1969, 12, 31).days_since_epoch(), -1);
        // 2026-02-19 + 28 days crosses the end of a non-leap February.
        assert_eq!(
            CivilDate::known(2026, 2, 19).add_days(28),
            Some(CivilDate::known(2026, 3, 19))
        );
        assert_eq!(
            CivilDate::known(2024, 2, 28).add_days(1),
            Some(CivilDate::known(2024, 2, 29))
        );
    }

    #[test]
    fn every_day_round_trips_and_is_consecutive() {
        let first = CivilDate::known(1899, 1, 1).days_since_epoch();
        let last = CivilDate::known(2101, 12, 31).days_since_epoch();
        let mut previous: Option<CivilDate> = None;
        for days in first..=last {
            let date = CivilDate::from_days_since_epoch(days).unwrap();
            assert_eq!(date.days_since_epoch(), days);
            if let Some(previous) = previous {
                assert!(previous < date, "{previous} then {date}");
            }
            previous = Some(date);
        }
    }

    #[test]
    fn invalid_dates_are_errors() {
        assert!(CivilDate::new(2025, 2, 29).is_err());
        assert!(CivilDate::new(2024, 2, 29).is_ok());
        assert!(CivilDate::new(1900, 2, 29).is_err());
        assert!(CivilDate::new(2000, 2, 29).is_ok());
        assert!(CivilDate::new(2025, 13, 1).is_err());
        assert!(CivilDate::new(2025, 4, 31).is_err());
        assert!(CivilDate::new(0, 1, 1).is_err());
        assert_eq!(
            CivilDate::new(2025, 0, 1).unwrap_err().to_string(),
            "2025-00-01 is not a valid date (years 1..=9999)"
        );
        assert_eq!(CivilDate::from_days_since_epoch(i64::MAX), None);
    }

    #[test]
    fn dates_parse_from_iso_text() {
        assert_eq!("2026-02-19".parse(), Ok(CivilDate::known(2026, 2, 19)));
        assert_eq!(CivilDate::known(2026, 2, 19).to_string(), "2026-02-19");
        for bad in [
            "",
            "2026",
            "2026-2-19",
            "2026-02-19x",
            "+026-02-19",
            "2026/02/19",
        ] {
            assert!(
                matches!(bad.parse::<CivilDate>(), Err(Error::DateSyntax { .. })),
                "{bad:?}"
            );
        }
        assert!(matches!(
            "2026-02-30".parse::<CivilDate>(),
            Err(Error::InvalidDate { .. })
        ));
    }

    #[test]
    fn system_clock_is_after_the_first_version() {
        assert!(SystemClock.today() > CivilDate::known(2025, 5, 20));
    }
}
