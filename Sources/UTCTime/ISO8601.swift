import Foundation

/// ISO 8601 texts by arithmetic: the Picket API's form, in UTC with milliseconds
/// (`2026-03-01T08:00:00.000Z`, what JavaScript's `toISOString()` gives), and the one reader of
/// every form Pepper meets (the API's, ``UTCDateTime/internetText``, a zone's offset).
public enum ISO8601 {
    /// `2026-03-01T08:00:00.000Z`.
    public static func format(_ date: Date) -> String {
        // Whole milliseconds, rounded down, so formatting then parsing is stable.
        let milliseconds = (date.timeIntervalSince1970 * 1_000).rounded(.down)
        let seconds = Int64((milliseconds / 1_000).rounded(.down))
        let fraction = Int(milliseconds - Double(seconds) * 1_000)
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", Int(parts.tm_year) + 1_900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
            Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec), fraction)
    }

    /// Reads `YYYY-MM-DD` (midnight UTC) or an ISO 8601 date and time with a zone (`Z` or
    /// `±hh:mm`), with or without fractional seconds.
    public static func parse(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        let days = UTCDateTime.daysSince1970(year: Int64(year), month: Int64(month), day: Int64(day))
        // A day past its month's end (30 February) would name another date: refused.
        guard UTCDateTime.civilDate(daysSince1970: days) == (Int64(year), Int64(month), Int64(day)) else { return nil }
        var seconds = Double(days) * 86_400
        if bytes.count == 10 { return Date(timeIntervalSince1970: seconds) }
        guard bytes.count >= 17, bytes[10] == UInt8(ascii: "T") || bytes[10] == UInt8(ascii: " "), bytes[13] == UInt8(ascii: ":"),
            let hour = number(11..<13), let minute = number(14..<16), hour < 24, minute < 60
        else { return nil }
        var index = 16
        var second = 0.0
        if index < bytes.count, bytes[index] == UInt8(ascii: ":") {
            guard let whole = number(17..<19), whole < 61 else { return nil }
            second = Double(whole)
            index = 19
            if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
                index += 1
                var scale = 0.1
                let start = index
                while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                    second += Double(bytes[index] - 0x30) * scale
                    scale /= 10
                    index += 1
                }
                guard index > start else { return nil }
            }
        }
        seconds += Double(hour * 3_600 + minute * 60) + second
        guard index < bytes.count else { return nil }  // a zone is required: local times are ambiguous
        if bytes[index] == UInt8(ascii: "Z") || bytes[index] == UInt8(ascii: "z") {
            guard index + 1 == bytes.count else { return nil }
            return Date(timeIntervalSince1970: seconds)
        }
        guard bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-"), let zoneHour = number(index + 1..<index + 3),
            zoneHour < 24
        else { return nil }
        var zoneMinute = 0
        if index + 3 == bytes.count {
            zoneMinute = 0
        } else if bytes.count == index + 6, bytes[index + 3] == UInt8(ascii: ":"), let minutes = number(index + 4..<index + 6) {
            zoneMinute = minutes
        } else if bytes.count == index + 5, let minutes = number(index + 3..<index + 5) {
            zoneMinute = minutes
        } else {
            return nil
        }
        let offset = Double(zoneHour * 3_600 + zoneMinute * 60)
        return Date(timeIntervalSince1970: bytes[index] == UInt8(ascii: "+") ? seconds - offset : seconds + offset)
    }
}
