import Foundation
import GRDB
import UTCTime

/// A date as Pepper stores it: GRDB's text, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, written and read
/// by arithmetic (`UTCDateTime`).
///
/// GRDB writes a `Date` with a `DateFormatter` and reads one through a `Calendar`: on Linux both
/// are ICU's, which maps two to four megabytes of ICU's data into every process that stores or
/// reads a date, and a formatter costs about 100 µs to make. Every SQLite store binds its dates as
/// `StoredDate` and reads them back as `StoredDate`; the texts are GRDB's, so databases written
/// before read the same, and `UTCDateTimeTests` hold both directions to GRDB's date for date.
/// Dates outside the years 1583 to 9999, and texts with a time zone, go through GRDB's own code.
public struct StoredDate: Sendable, Hashable, DatabaseValueConvertible {
    /// The date.
    public var date: Date

    /// The stored form of `date`.
    public init(_ date: Date) {
        self.date = date
    }

    /// GRDB's stored text of the date.
    public var databaseValue: DatabaseValue {
        UTCDateTime(date)?.storageText.databaseValue ?? date.databaseValue
    }

    /// The date of any value GRDB reads as a date: its texts (`yyyy-MM-dd`, with `HH:mm`,
    /// `:ss`, `.SSS`, a `T`), or a number of seconds since 1970.
    public static func fromDatabaseValue(_ value: DatabaseValue) -> StoredDate? {
        if let components = DatabaseDateComponents.fromDatabaseValue(value) {
            return date(of: components.dateComponents).map(StoredDate.init) ?? Date.fromDatabaseValue(value).map(StoredDate.init)
        }
        return Date.fromDatabaseValue(value).map(StoredDate.init)
    }

    /// The moment parsed components name, by arithmetic; `nil` where GRDB's own reading is needed
    /// (a time zone in the text, a year out of range) or refuses (no day).
    static func date(of components: DateComponents) -> Date? {
        guard components.timeZone == nil, let year = components.year, let month = components.month, let day = components.day,
            let fields = UTCDateTime(
                year: year, month: month, day: day, hour: components.hour ?? 0, minute: components.minute ?? 0,
                second: components.second ?? 0)
        else { return nil }
        let nanoseconds = components.nanosecond ?? 0
        return Date(timeIntervalSinceReferenceDate: Double(fields.secondsSince1970 - 978_307_200) + Double(nanoseconds) / 1_000_000_000)
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

extension Optional where Wrapped == Date {
    /// The stored form of the date, or `nil` (SQL `NULL`).
    var stored: StoredDate? { map(StoredDate.init) }
}

extension Date {
    /// The stored form of the date, for binding in SQL arguments.
    var stored: StoredDate { StoredDate(self) }
}
