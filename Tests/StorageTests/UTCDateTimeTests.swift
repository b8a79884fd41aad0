import Foundation
import GRDB
import Testing

@testable import Storage

/// Dates' fields by arithmetic (`UTCDateTime`): the query log's stored text must be GRDB's,
/// date for date, so that every reader reads them alike, and the console's times what a
/// `DateFormatter` would show.
@Suite("UTC dates by arithmetic")
struct UTCDateTimeTests {
    /// Dates a formatter could get wrong: leap days, the turn of centuries, 1970 itself and the
    /// moments just before, milliseconds about to round, the first and last year of four digits,
    /// the days around the Gregorian reform (Foundation's calendar is Julian before it).
    static let edges: [Date] = {
        var dates: [Date] = [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.0004), Date()]
        for text in [
            "2000-02-29T23:59:59.999Z", "1900-03-01T00:00:00.000Z", "2100-02-28T12:00:00.500Z", "1969-12-31T23:59:59.999Z",
            "2024-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z", "9999-12-31T23:59:59.999Z", "1600-02-29T01:02:03.004Z",
            "1582-10-15T00:00:00.000Z", "1583-01-01T00:00:00.000Z", "1582-10-04T23:59:59.999Z",
        ] {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            if let date = formatter.date(from: text) { dates.append(date) }
        }
        return dates + dates.flatMap { [$0.addingTimeInterval(0.0009999), $0.addingTimeInterval(-0.0000001)] }
    }()

    @Test func theTextIsGRDBsForEveryDate() throws {
        #expect(Self.edges.count >= 30, "the edge dates were made")
        var generator = SystemRandomNumberGenerator()
        // Random moments from 1400 to 2300, with random fractions of a millisecond.
        let random = (0..<20_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -17_987_443_200...10_413_792_000, using: &generator))
        }
        var differences: [String] = []
        for date in Self.edges + random {
            let ours = String.fromDatabaseValue(StoredDate.databaseValue(date))
            let grdb = String.fromDatabaseValue(date.databaseValue)
            if ours != grdb { differences.append("\(date.timeIntervalSince1970): \(ours ?? "nil") against \(grdb ?? "nil")") }
        }
        #expect(differences.count == 0, "\(differences.count) differ, such as \(differences.prefix(3))")
    }

    @Test func theDayIsTheGregorianUTCDay() {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var generator = SystemRandomNumberGenerator()
        let random = (0..<5_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -17_987_443_200...10_413_792_000, using: &generator))
        }
        var differences: [String] = []
        for date in Self.edges + random {
            let parts = calendar.dateComponents([.year, .month, .day], from: date)
            let expected = String(format: "%04d-%02d-%02d", parts.year ?? 0, parts.month ?? 0, parts.day ?? 0)
            if DNSQueryLogStore.day(of: date) != expected {
                differences.append("\(date.timeIntervalSince1970): \(DNSQueryLogStore.day(of: date)) against \(expected)")
            }
        }
        #expect(differences.count == 0, "\(differences.count) differ, such as \(differences.prefix(3))")
    }

    /// The texts the console shows (day, minute, second, month and day) are a `DateFormatter`'s.
    @Test func theDisplayTextsAreAFormattersForEveryDate() throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd|HH:mm|HH:mm:ss|MM-dd"
        var generator = SystemRandomNumberGenerator()
        let random = (0..<5_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -12_000_000_000...10_413_792_000, using: &generator))
        }
        var differences: [String] = []
        var covered = 0
        for date in Self.edges + random {
            // The console shows times to the second: the fields of the second the date is in.
            guard let fields = UTCDateTime(truncating: date) else { continue }
            covered += 1
            let ours = [fields.dayText, fields.minuteText, fields.secondText, fields.monthDayText].joined(separator: "|")
            let expected = formatter.string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
            if ours != expected { differences.append("\(date.timeIntervalSince1970): \(ours) against \(expected)") }
        }
        #expect(covered > 5_000, "most dates are in the years covered")
        #expect(differences.count == 0, "\(differences.count) differ, such as \(differences.prefix(3))")
        #expect(UTCDateTime(Date(timeIntervalSince1970: -12_300_000_000)) == nil, "1580 is left to Foundation")
    }

    /// Rows written with the text read back as the dates written (to GRDB's millisecond).
    @Test func logRowsReadBackTheirDates() throws {
        let home = PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-dates-\(UUID())"))
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = DNSQueryLogStore(database: try PepperDatabase(home: home))
        let now = Date()
        let at = now.addingTimeInterval(-3_600.1234)
        try store.record(
            counts: [],
            entries: [.init(at: at, client: "127.0.0.1", name: "a.test", type: "A", outcome: .blocked, responseCode: "NXDOMAIN")],
            now: now)
        let read = try #require(try store.recent().first?.at)
        #expect(abs(read.timeIntervalSince(at)) < 0.001)
    }
}
