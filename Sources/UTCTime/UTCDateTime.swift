import Foundation
import GRDB

/// A date's fields in UTC on the proleptic Gregorian calendar, computed by arithmetic.
///
/// Foundation's `DateFormatter` and a `Calendar` with a locale are ICU's on Linux: a formatter
/// takes about 100 µs to make and maps about a megabyte of ICU's data into the process. The
/// DNS query log's writes (``StoredDate``) and the console's times use these fields instead.
/// Only the years 1583 to 9999: Foundation's Gregorian calendar is Julian before October 1582,
/// and a fifth digit would change the texts' shape; other dates give `nil`, and the caller uses
/// Foundation.
public struct UTCDateTime: Sendable, Hashable {
    /// The year, 1583 to 9999.
    public var year: Int
    /// The month, 1 to 12.
    public var month: Int
    /// The day of the month, 1 to 31.
    public var day: Int
    /// The hour, 0 to 23.
    public var hour: Int
    /// The minute, 0 to 59.
    public var minute: Int
    /// The second, 0 to 59.
    public var second: Int
    /// The millisecond, 0 to 999.
    public var millisecond: Int

    /// The fields of `date` to the millisecond, rounded half up (as GRDB's stored text and
    /// `DateFormatter` show it); `nil` outside the years 1583 to 9999.
    public init?(_ date: Date) {
        let milliseconds = ((date.timeIntervalSinceReferenceDate + Date.timeIntervalBetween1970AndReferenceDate) * 1_000 + 0.5)
            .rounded(.down)
        guard let whole = Int64(exactly: milliseconds) else { return nil }
        self.init(millisecondsSince1970: whole)
    }

    /// The fields of `date` to the second, rounded down: the day and time a calendar gives.
    public init?(truncating date: Date) {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard let whole = Int64(exactly: seconds), whole < Int64.max / 1_000 else { return nil }
        self.init(millisecondsSince1970: whole * 1_000)
    }

    private init?(millisecondsSince1970 milliseconds: Int64) {
        let (days, inDay) = Self.floorDivision(milliseconds, by: 86_400_000)
        let (year, month, day) = Self.civilDate(daysSince1970: days)
        guard (1_583...9_999).contains(year) else { return nil }
        self.year = Int(year)
        self.month = Int(month)
        self.day = Int(day)
        hour = Int(inDay / 3_600_000)
        minute = Int(inDay / 60_000 % 60)
        second = Int(inDay / 1_000 % 60)
        millisecond = Int(inDay % 1_000)
    }

    /// `yyyy-MM-dd`.
    public var dayText: String { Self.text([(year, 4), (month, 2), (day, 2)], separators: ["-", "-"]) }

    /// `HH:mm`.
    public var minuteText: String { Self.text([(hour, 2), (minute, 2)], separators: [":"]) }

    /// `HH:mm:ss`.
    public var secondText: String { Self.text([(hour, 2), (minute, 2), (second, 2)], separators: [":", ":"]) }

    /// `MM-dd`.
    public var monthDayText: String { Self.text([(month, 2), (day, 2)], separators: ["-"]) }

    /// GRDB's stored text, `yyyy-MM-dd HH:mm:ss.SSS`.
    public var storageText: String { dayText + " " + secondText + "." + Self.text([(millisecond, 3)], separators: []) }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`: 400-year eras, years starting in March so that leap days come last).
    static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let (era, dayOfEra) = floorDivision(shifted, by: 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivision(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// Zero-padded numbers joined by the separators.
    private static func text(_ numbers: [(value: Int, digits: Int)], separators: [Character]) -> String {
        var text = ""
        text.reserveCapacity(24)
        for (index, number) in numbers.enumerated() {
            if index > 0 { text.append(separators[index - 1]) }
            let digits = String(number.value)
            text.append(String(repeating: "0", count: max(0, number.digits - digits.count)))
            text.append(digits)
        }
        return text
    }
}

/// Dates in GRDB's storage text (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), written by arithmetic.
///
/// GRDB makes that text with a `DateFormatter` (ICU's, on Linux). The DNS server writes up to
/// 5,000 dates a second into its query log, so it writes the same text made by ``UTCDateTime``
/// instead (`StoredDateTests` holds it to GRDB's, date for date); what reads the rows cannot tell.
enum StoredDate {
    /// `date` as GRDB stores it (GRDB's own text outside the years ``UTCDateTime`` covers).
    static func databaseValue(_ date: Date) -> DatabaseValue {
        UTCDateTime(date)?.storageText.databaseValue ?? date.databaseValue
    }

    /// The UTC day of `date`, `yyyy-MM-dd`, as Foundation's Gregorian calendar counts it.
    static func day(_ date: Date) -> String {
        if let fields = UTCDateTime(truncating: date) { return fields.dayText }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }
}
