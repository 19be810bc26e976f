//! Civil dates: days of the proleptic Gregorian calendar, just enough calendar for dated
//! versions. No time zones, no times of day.
//!
//! graphdef-versions and ifrt-serdes each carry this same file (the crates of the workspace never
//! depend on each other), so a user of both meets one `CivilDate` API.

use std::fmt;
use std::str::FromStr;

/// A day of the proleptic Gregorian calendar, between years 1 and 9999. It parses from and
/// prints as `YYYY-MM-DD`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct CivilDate {
    year: i32,
    month: u8,
    day: u8,
}

/// Why a date was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DateError {
    /// The numbers name no day: a month outside 1..=12, a day the month does not have, or a
    /// year outside 1..=9999.
    #[error(
        "{year:04}-{month:02}-{day:02} is not a date: years run 1 to 9999, months 1 to 12, and \
         days to the end of their month"
    )]
    NoSuchDay {
        /// The year given.
        year: i32,
        /// The month given.
        month: u8,
        /// The day given.
        day: u8,
    },
    /// Text that is not `YYYY-MM-DD` (four digits, two digits, two digits).
    #[error("{text:?} is not a date: write it as YYYY-MM-DD, for example 2026-02-19")]
    Syntax {
        /// The text (at most its first 32 characters).
        text: String,
    },
    /// Day arithmetic left the calendar (years 1 to 9999).
    #[error("{days} days from 1970-01-01 falls outside years 1 to 9999")]
    OutOfRange {
        /// The offset from 1970-01-01 that was asked for.
        days: i128,
    },
}

impl CivilDate {
    /// The date `year-month-day`, if it exists.
    pub const fn new(year: i32, month: u8, day: u8) -> Result<Self, DateError> {
        if is_valid(year, month, day) {
            Ok(CivilDate { year, month, day })
        } else {
            Err(DateError::NoSuchDay { year, month, day })
        }
    }

    /// For the crate's own constant tables: a date checked at compile time.
    pub(crate) const fn known(year: i32, month: u8, day: u8) -> Self {
        assert!(is_valid(year, month, day), "no such day in a const table");
        CivilDate { year, month, day }
    }

    /// The year, 1 to 9999.
    pub const fn year(self) -> i32 {
        self.year
    }

    /// The month, 1 to 12.
    pub const fn month(self) -> u8 {
        self.month
    }

    /// The day of the month, from 1.
    pub const fn day(self) -> u8 {
        self.day
    }

    /// Days since 1970-01-01 (negative before it).
    pub const fn days_since_unix_epoch(self) -> i64 {
        // Count in "March years", so that the leap day is the last day of its year: the days
        // before a date are then whole 400-year eras, whole years and days within the year.
        let (month, day) = (self.month as i64, self.day as i64);
        let year = self.year as i64 - if month <= 2 { 1 } else { 0 };
        let era = year.div_euclid(400);
        let year_of_era = year - era * 400;
        let month_from_march = (month + 9) % 12;
        let day_of_year = (153 * month_from_march + 2) / 5 + day - 1;
        let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
        era * 146_097 + day_of_era - 719_468
    }

    /// The date `days` after 1970-01-01 (before it when negative).
    pub fn from_days_since_unix_epoch(days: i64) -> Result<Self, DateError> {
        let out_of_range = || DateError::OutOfRange {
            days: i128::from(days),
        };
        // Years 1 to 9999 are days -719_162 to 2_932_896; outside them no arithmetic is needed.
        if !(MIN_DAYS..=MAX_DAYS).contains(&days) {
            return Err(out_of_range());
        }
        let shifted = days + 719_468;
        let era = shifted.div_euclid(146_097);
        let day_of_era = shifted - era * 146_097;
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
        // Within MIN_DAYS..=MAX_DAYS the arithmetic gives a year in 1..=9999, a month in 1..=12
        // and a day in 1..=31, so the conversions cannot fail.
        let (Ok(year), Ok(month), Ok(day)) =
            (i32::try_from(year), u8::try_from(month), u8::try_from(day))
        else {
            return Err(out_of_range());
        };
        CivilDate::new(year, month, day).map_err(|_| out_of_range())
    }

    /// The date `days` days later (earlier when negative).
    pub fn add_days(self, days: i64) -> Result<Self, DateError> {
        let total = i128::from(self.days_since_unix_epoch()) + i128::from(days);
        i64::try_from(total)
            .map_err(|_| DateError::OutOfRange { days: total })
            .and_then(CivilDate::from_days_since_unix_epoch)
    }

    /// Days from `self` to `later` (negative when `later` is earlier).
    pub const fn days_until(self, later: CivilDate) -> i64 {
        later.days_since_unix_epoch() - self.days_since_unix_epoch()
    }
}

/// 0001-01-01 and 9999-12-31, as days since 1970-01-01.
const MIN_DAYS: i64 = -719_162;
const MAX_DAYS: i64 = 2_932_896;

const fn is_leap(year: i32) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

const fn days_in_month(year: i32, month: u8) -> u8 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if is_leap(year) => 29,
        2 => 28,
        _ => 0,
    }
}

const fn is_valid(year: i32, month: u8, day: u8) -> bool {
    1 <= year && year <= 9999 && 1 <= day && day <= days_in_month(year, month)
}

impl fmt::Display for CivilDate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:04}-{:02}-{:02}", self.year, self.month, self.day)
    }
}

impl FromStr for CivilDate {
    type Err = DateError;

    /// Parses `YYYY-MM-DD`: four digits, two digits, two digits.
    fn from_str(text: &str) -> Result<Self, DateError> {
        let syntax = || DateError::Syntax {
            text: text.chars().take(32).collect(),
        };
        let bytes = text.as_bytes();
        let digits = |range: std::ops::Range<usize>| {
            bytes[range].iter().try_fold(0u16, |n, &b| {
                b.is_ascii_digit().then(|| n * 10 + u16::from(b - b'0'))
            })
        };
        if bytes.len() != 10 || bytes[4] != b'-' || bytes[7] != b'-' {
            return Err(syntax());
        }
        let (Some(year), Some(month), Some(day)) = (digits(0..4), digits(5..7), digits(8..10))
        else {
            return Err(syntax());
        };
        // Two digits are at most 99, so month and day fit a u8.
        CivilDate::new(i32::from(year), month as u8, day as u8)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_epoch_and_known_days() {
        assert_eq!(CivilDate::known(1970, 1, 1).days_since_unix_epoch(), 0);
        assert_eq!(CivilDate::known(2000, 3, 1).days_since_unix_epoch(), 11_017);
        assert_eq!(CivilDate::known(1969, 12, 31).days_since_unix_epoch(), -1);
        assert_eq!(CivilDate::known(1, 1, 1).days_since_unix_epoch(), MIN_DAYS);
        assert_eq!(
            CivilDate::known(9999, 12, 31).days_since_unix_epoch(),
            MAX_DAYS
        );
        // 2026-02-19 + 28 days crosses the end of a common-year February.
        assert_eq!(
            CivilDate::known(2026, 2, 19).add_days(28),
            Ok(CivilDate::known(2026, 3, 19))
        );
        assert_eq!(
            CivilDate::known(2024, 2, 28).add_days(1),
            Ok(CivilDate::known(2024, 2, 29))
        );
        assert_eq!(
            CivilDate::known(2026, 2, 19).days_until(CivilDate::known(2026, 3, 19)),
            28
        );
    }

    #[test]
    fn every_day_of_the_calendar_round_trips_and_follows_the_one_before() {
        let mut previous: Option<CivilDate> = None;
        for days in MIN_DAYS..=MAX_DAYS {
            let date = CivilDate::from_days_since_unix_epoch(days).unwrap();
            assert_eq!(date.days_since_unix_epoch(), days);
            if let Some(previous) = previous {
                assert!(previous < date, "{previous} then {date}");
            }
            previous = Some(date);
        }
    }

    #[test]
    fn days_outside_the_calendar_are_errors() {
        for days in [MIN_DAYS - 1, MAX_DAYS + 1, i64::MIN, i64::MAX] {
            assert_eq!(
                CivilDate::from_days_since_unix_epoch(days),
                Err(DateError::OutOfRange {
                    days: i128::from(days)
                })
            );
        }
        let last = CivilDate::known(9999, 12, 31);
        assert!(last.add_days(1).is_err());
        assert!(last.add_days(i64::MAX).is_err());
        assert!(CivilDate::known(1, 1, 1).add_days(i64::MIN).is_err());
    }

    #[test]
    fn days_that_do_not_exist_are_errors() {
        assert!(CivilDate::new(2025, 2, 29).is_err());
        assert!(CivilDate::new(2024, 2, 29).is_ok());
        assert!(CivilDate::new(1900, 2, 29).is_err());
        assert!(CivilDate::new(2000, 2, 29).is_ok());
        assert!(CivilDate::new(2025, 13, 1).is_err());
        assert!(CivilDate::new(2025, 4, 31).is_err());
        assert!(CivilDate::new(0, 1, 1).is_err());
        assert!(CivilDate::new(10_000, 1, 1).is_err());
        assert_eq!(
            CivilDate::new(2025, 0, 1).unwrap_err().to_string(),
            "2025-00-01 is not a date: years run 1 to 9999, months 1 to 12, and days to the end \
             of their month"
        );
    }

    #[test]
    fn dates_parse_from_and_print_as_iso_text() {
        assert_eq!("2026-02-19".parse(), Ok(CivilDate::known(2026, 2, 19)));
        assert_eq!(CivilDate::known(2026, 2, 19).to_string(), "2026-02-19");
        assert_eq!(CivilDate::known(7, 1, 9).to_string(), "0007-01-09");
        for bad in [
            "",
            "2026",
            "2026-2-19",
            "2026-02-19x",
            "+026-02-19",
            "2026/02/19",
            "2026-02-1é",
            "20260-2-19",
        ] {
            assert!(
                matches!(bad.parse::<CivilDate>(), Err(DateError::Syntax { .. })),
                "{bad:?}"
            );
        }
        assert_eq!(
            "2026-02-30".parse::<CivilDate>(),
            Err(DateError::NoSuchDay {
                year: 2026,
                month: 2,
                day: 30
            })
        );
    }
}
