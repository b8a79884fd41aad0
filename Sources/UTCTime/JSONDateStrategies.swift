import Foundation

extension UTCDateTime {
    /// The fields of an RFC 3339 text to the second in UTC, `yyyy-MM-ddTHH:mm:ssZ` (what
    /// ``internetText`` writes); `nil` for any other shape.
    public init?(internetText text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard (0x30...0x39).contains(bytes[index]) else { return nil }
                value = value * 10 + Int(bytes[index] - 0x30)
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19)
        else { return nil }
        self.init(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// Dates as ``UTCDateTime/internetText``: what `.iso8601` writes, without ICU's calendar.
    public static var internetDateTime: Self {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(UTCDateTime.internetText(date))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Dates written as ``UTCDateTime/internetText`` (other ISO 8601 forms through Foundation).
    public static var internetDateTime: Self {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            if let fields = UTCDateTime(internetText: text) { return fields.date }
            guard let date = ISO8601DateFormatter().date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
    }
}
