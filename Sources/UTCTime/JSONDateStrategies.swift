import Foundation

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
    /// Dates written as ``UTCDateTime/internetText``, or any other form ``ISO8601`` reads.
    public static var internetDateTime: Self {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = ISO8601.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
    }
}
