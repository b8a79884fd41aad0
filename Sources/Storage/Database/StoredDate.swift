import Foundation
import GRDB

/// Dates in GRDB's storage text (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), written by arithmetic.
///
/// GRDB makes that text with a `DateFormatter`, which on Linux is ICU's: it maps about a
/// megabyte of ICU's data into the process and costs microseconds a date. The DNS server writes
/// up to 5,000 dates a second into its query log, so it writes the same text made here instead
/// (`StoredDateTests` holds it to GRDB's, date for date); what reads the rows cannot tell.
enum StoredDate {
    /// The years whose text is made here: Foundation's Gregorian calendar is Julian before
    /// October 1582, and a fifth digit would change the text's shape. Other dates take GRDB's.
    static let years: ClosedRange<Int64> = 1_583...9_999

    /// `date` as GRDB stores it.
    static func databaseValue(_ date: Date) -> DatabaseValue {
        // Milliseconds since 1970, rounded half up, as GRDB's formatter shows them.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + Date.timeIntervalBetween1970AndReferenceDate) * 1_000 + 0.5)
            .rounded(.down)
        guard let whole = Int64(exactly: milliseconds) else { return date.databaseValue }
        let (days, inDay) = floorDivision(whole, by: 86_400_000)
        let (year, month, day) = civilDate(daysSince1970: days)
        guard years.contains(year) else { return date.databaseValue }
        var text = [UInt8]()
        text.reserveCapacity(23)
        append(year, digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &text)
        text.append(UInt8(ascii: " "))
        append(inDay / 3_600_000, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(inDay / 60_000 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: ":"))
        append(inDay / 1_000 % 60, digits: 2, to: &text)
        text.append(UInt8(ascii: "."))
        append(inDay % 1_000, digits: 3, to: &text)
        return String(decoding: text, as: UTF8.self).databaseValue
    }

    /// The UTC day of `date`, `yyyy-MM-dd`, as Foundation's Gregorian calendar counts it.
    static func day(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard let whole = Int64(exactly: seconds) else { return calendarDay(date) }
        let (days, _) = floorDivision(whole, by: 86_400)
        let (year, month, day) = civilDate(daysSince1970: days)
        guard years.contains(year) else { return calendarDay(date) }
        var text = [UInt8]()
        append(year, digits: 4, to: &text)
        text.append(UInt8(ascii: "-"))
        append(month, digits: 2, to: &text)
        text.append(UInt8(ascii: "-"))
        append(day, digits: 2, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    private static func calendarDay(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        return String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
    }

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

    private static func append(_ value: Int64, digits: Int, to text: inout [UInt8]) {
        var divisor: Int64 = 1
        for _ in 1..<digits { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            text.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}
