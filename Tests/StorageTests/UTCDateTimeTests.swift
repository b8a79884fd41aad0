import Foundation
import GRDB
import Testing
import UTCTime

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
            let ours = String.fromDatabaseValue(StoredDate(date).databaseValue)
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

    /// Every text GRDB reads as a date reads as the same moment through `StoredDate`: the stored
    /// texts of random dates, their shorter forms, a `T`, a time zone, a number, and days that
    /// do not exist (which both leave to GRDB's calendar).
    @Test func storedTextsReadAsGRDBReadsThem() throws {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<20_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -17_987_443_200...10_413_792_000, using: &generator))
        }
        var values: [DatabaseValue] = []
        for date in Self.edges + random {
            guard let text = String.fromDatabaseValue(date.databaseValue) else { continue }
            values.append(text.databaseValue)
            values.append(String(text.prefix(10)).databaseValue)
            values.append(String(text.prefix(16)).databaseValue)
            values.append(String(text.replacingOccurrences(of: " ", with: "T").prefix(19)).databaseValue)
        }
        values += [
            "2026-11-27 03:04:05.678Z", "2026-11-27T03:04:05+02:00", "2026-02-30 12:00:00.000", "2026-13-01", "2026-11-27 24:00",
            "1582-10-10 00:00:00.000", "not a date", "", "12:30",
        ].map(\.databaseValue)
        values += [(1_790_000_000.25 as Double).databaseValue, (0 as Int).databaseValue, DatabaseValue.null]
        var differences: [String] = []
        var byArithmetic = 0
        for value in values {
            // Read without GRDB's calendar: most values, all but the zones, odd days and years.
            if DatabaseDateComponents.fromDatabaseValue(value).flatMap({ StoredDate.date(of: $0.dateComponents) }) != nil {
                byArithmetic += 1
            }
            let ours = StoredDate.fromDatabaseValue(value)?.date
            let grdb = Date.fromDatabaseValue(value)
            // The same moment: within a microsecond (GRDB's calendar can land a last bit away,
            // as in 2000-12-22 23:40:20.261) and stored again as the same text.
            let same =
                switch (ours, grdb) {
                case (nil, nil): true
                case (let ours?, let grdb?):
                    abs(ours.timeIntervalSince(grdb)) < 1e-6 && StoredDate(ours).databaseValue == grdb.databaseValue
                default: false
                }
            if !same {
                differences.append(
                    "\(value): \(ours.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil") against \(grdb.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "nil")"
                )
            }
        }
        #expect(values.count > 80_000)
        #expect(byArithmetic > 60_000, "\(byArithmetic) of \(values.count) read by arithmetic")
        #expect(differences.count == 0, "\(differences.count) differ, such as \(differences.prefix(3))")
    }

    /// Fields made from a day and time name that day and time; impossible ones are refused.
    @Test func fieldsMadeFromADayAndTimeRoundTrip() throws {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<5_000 {
            let date = Date(timeIntervalSince1970: Double.random(in: -12_000_000_000...10_413_792_000, using: &generator).rounded(.down))
            guard let fields = UTCDateTime(truncating: date) else { continue }
            let made = try #require(
                UTCDateTime(
                    year: fields.year, month: fields.month, day: fields.day, hour: fields.hour, minute: fields.minute, second: fields.second
                ))
            #expect(made == fields)
            #expect(made.date == date, "\(fields) names \(made.date.timeIntervalSince1970), not \(date.timeIntervalSince1970)")
        }
        #expect(UTCDateTime(year: 2026, month: 2, day: 29) == nil, "2026 has no leap day")
        #expect(UTCDateTime(year: 2024, month: 2, day: 29) != nil)
        #expect(UTCDateTime(year: 2026, month: 4, day: 31) == nil)
        #expect(UTCDateTime(year: 2026, month: 11, day: 27, hour: 24) == nil)
        #expect(UTCDateTime(year: 1_582, month: 12, day: 1) == nil, "before 1583 is Foundation's")
    }

    /// The ISO 8601 texts Pepper writes (manifests, the CLI, the screens) are what
    /// `ISO8601DateFormatter` with `.withInternetDateTime` wrote before.
    @Test func internetTextsAreISO8601DateFormattersForEveryDate() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        var generator = SystemRandomNumberGenerator()
        let random = (0..<5_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -12_000_000_000...10_413_792_000, using: &generator))
        }
        var differences: [String] = []
        for date in Self.edges + random {
            // The formatter's second is the one the date is in; compare on whole seconds as shown.
            let whole = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
            let expected = formatter.string(from: whole)
            if UTCDateTime.internetText(date) != expected {
                differences.append("\(date.timeIntervalSince1970): \(UTCDateTime.internetText(date)) against \(expected)")
            }
        }
        #expect(differences.count == 0, "\(differences.count) differ, such as \(differences.prefix(3))")
    }

    /// JSON dates (the running services' status files, the CLI's `--json`) are written as
    /// `.iso8601` writes them and read back; other ISO 8601 forms still read.
    @Test func jsonDatesAreISO8601s() throws {
        struct Stamp: Codable, Equatable { var at: Date }
        var generator = SystemRandomNumberGenerator()
        let ours = JSONEncoder()
        ours.dateEncodingStrategy = .internetDateTime
        let foundation = JSONEncoder()
        foundation.dateEncodingStrategy = .iso8601
        let reader = JSONDecoder()
        reader.dateDecodingStrategy = .internetDateTime
        var differences: [String] = []
        for _ in 0..<2_000 {
            let stamp = Stamp(
                at: Date(timeIntervalSince1970: Double.random(in: -12_000_000_000...10_413_792_000, using: &generator).rounded(.down)))
            let text = String(decoding: try ours.encode(stamp), as: UTF8.self)
            let expected = String(decoding: try foundation.encode(stamp), as: UTF8.self)
            if text != expected { differences.append("\(text) against \(expected)") }
            if try reader.decode(Stamp.self, from: Data(text.utf8)) != stamp { differences.append("\(text) read back differently") }
        }
        #expect(differences.isEmpty, "\(differences.count) differ, such as \(differences.prefix(3))")
        let offset = try reader.decode(Stamp.self, from: Data(#"{"at":"2026-11-27T07:00:00+02:00"}"#.utf8))
        #expect(offset.at == Date(timeIntervalSince1970: 1_795_755_600))
        #expect(ISO8601.parse("2026-11-27T05:00:00Z") == Date(timeIntervalSince1970: 1_795_755_600))
        #expect(ISO8601.parse("2026-02-30T05:00:00Z") == nil)
        #expect(throws: DecodingError.self) { try reader.decode(Stamp.self, from: Data(#"{"at":"yesterday"}"#.utf8)) }
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
