import Foundation

/// A date's fields in UTC on the proleptic Gregorian calendar, computed by arithmetic.
///
/// Foundation's `DateFormatter`, `ISO8601DateFormatter` and `Calendar` are ICU's on Linux: a
/// formatter takes about 100 µs to make, and the first use of any of them maps two to five
/// megabytes of ICU's data into the process. Pepper's stored dates (Storage's `StoredDate`),
/// the times its faces show and the ISO 8601 texts it writes use these fields instead.
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

    /// The fields of a day and time, checked: `nil` when one is out of its range (the day
    /// against its month's length) or the year is outside 1583 to 9999.
    public init?(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0, millisecond: Int = 0) {
        guard (1_583...9_999).contains(year), (1...12).contains(month), (0...23).contains(hour), (0...59).contains(minute),
            (0...59).contains(second), (0...999).contains(millisecond)
        else { return nil }
        let days = Self.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        // A day past its month's end (31 April) would name another date: refused.
        guard Self.civilDate(daysSince1970: days) == (Int64(year), Int64(month), Int64(day)) else { return nil }
        (self.year, self.month, self.day) = (year, month, day)
        (self.hour, self.minute, self.second, self.millisecond) = (hour, minute, second, millisecond)
    }

    /// Seconds from 1970-01-01 00:00 UTC to the start of the second these fields name.
    public var secondsSince1970: Int64 {
        Self.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day)) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
    }

    /// The moment these fields name.
    public var date: Date {
        Date(timeIntervalSinceReferenceDate: Double(secondsSince1970 - 978_307_200) + Double(millisecond) / 1_000)
    }

    /// `yyyy-MM-dd`.
    public var dayText: String { Self.text([(year, 4), (month, 2), (day, 2)], separators: ["-", "-"]) }

    /// `HH:mm`.
    public var minuteText: String { Self.text([(hour, 2), (minute, 2)], separators: [":"]) }

    /// `HH:mm:ss`.
    public var secondText: String { Self.text([(hour, 2), (minute, 2), (second, 2)], separators: [":", ":"]) }

    /// `MM-dd`.
    public var monthDayText: String { Self.text([(month, 2), (day, 2)], separators: ["-"]) }

    /// `yyyy-MM-ddTHH:mm:ssZ`: RFC 3339 to the second, as `ISO8601DateFormatter` writes it
    /// with `.withInternetDateTime`.
    public var internetText: String { dayText + "T" + secondText + "Z" }

    /// `date` as ``internetText``, to the second it is in (Foundation's formatter outside the
    /// years 1583 to 9999).
    public static func internetText(_ date: Date) -> String {
        if let fields = UTCDateTime(truncating: date) { return fields.internetText }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }

    /// GRDB's stored text, `yyyy-MM-dd HH:mm:ss.SSS`.
    public var storageText: String { dayText + " " + secondText + "." + Self.text([(millisecond, 3)], separators: []) }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`: 400-year eras, years starting in March so that leap days come last).
    public static func civilDate(daysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let (era, dayOfEra) = floorDivision(shifted, by: 146_097)
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthFromMarch = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthFromMarch + 2) / 5 + 1
        let month = monthFromMarch < 10 ? monthFromMarch + 3 : monthFromMarch - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    /// The days from 1970-01-01 to a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`, the inverse of ``civilDate(daysSince1970:)``).
    public static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let marchYear = month <= 2 ? year - 1 : year
        let (era, yearOfEra) = floorDivision(marchYear, by: 400)
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
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
