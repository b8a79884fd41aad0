import Foundation

/// The fields of a submitted form: `application/x-www-form-urlencoded`, or
/// `multipart/form-data` with uploaded files.
struct FormData: Sendable {
    /// An uploaded file.
    struct File: Sendable {
        /// The name the browser gave it.
        var fileName: String
        /// Its bytes.
        var data: Data
    }

    /// Text fields, in order (a name may repeat: checkboxes).
    private(set) var fields: [(name: String, value: String)] = []
    /// Files by field name.
    private(set) var files: [String: File] = [:]

    /// The first value of `name`.
    subscript(_ name: String) -> String? { fields.first { $0.name == name }?.value }

    /// Every value of `name`.
    func all(_ name: String) -> [String] { fields.filter { $0.name == name }.map(\.value) }

    /// Why a body is not a form.
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// The fields of a query string (a GET form): `+` is a space, as browsers write it.
    init(query: String?) {
        fields = Self.urlEncoded(query ?? "")
    }

    /// Reads a body of the given content type.
    init(body: Data, contentType: String?) throws(Error) {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/form-data") {
            guard let boundary = Self.parameter("boundary", in: contentType ?? "") else {
                throw Error(description: "no multipart boundary")
            }
            try readMultipart(body, boundary: boundary)
        } else if type.isEmpty || type.hasPrefix("application/x-www-form-urlencoded") {
            fields = Self.urlEncoded(String(decoding: body, as: UTF8.self))
        } else {
            throw Error(description: "unsupported form type \(type)")
        }
    }

    /// Fields of a query string or urlencoded body.
    static func urlEncoded(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            func decode(_ part: Substring) -> String {
                let spaced = part.replacingOccurrences(of: "+", with: " ")
                return spaced.removingPercentEncoding ?? spaced
            }
            return (decode(parts[0]), parts.count > 1 ? decode(parts[1]) : "")
        }
    }

    private static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, pieces[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pieces[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    private mutating func readMultipart(_ body: Data, boundary: String) throws(Error) {
        let delimiter = Data(("--" + boundary).utf8)
        let bytes = body
        var parts: [Data] = []
        var searchStart = bytes.startIndex
        var partStart: Data.Index?
        while let range = bytes.range(of: delimiter, in: searchStart..<bytes.endIndex) {
            if let start = partStart {
                // A part ends with CRLF before the next delimiter.
                var end = range.lowerBound
                if end - start >= 2, bytes[end - 2] == 0x0D, bytes[end - 1] == 0x0A { end -= 2 }
                parts.append(bytes.subdata(in: start..<end))
            }
            var next = range.upperBound
            if next + 1 < bytes.endIndex, bytes[next] == UInt8(ascii: "-"), bytes[next + 1] == UInt8(ascii: "-") { break }
            if next + 1 < bytes.endIndex, bytes[next] == 0x0D, bytes[next + 1] == 0x0A { next += 2 }
            partStart = next
            searchStart = next
        }
        guard !parts.isEmpty || bytes.isEmpty else { throw Error(description: "malformed multipart body") }
        for part in parts {
            guard let split = part.range(of: Data("\r\n\r\n".utf8)) else { throw Error(description: "malformed multipart part") }
            let headerText = String(decoding: part.subdata(in: part.startIndex..<split.lowerBound), as: UTF8.self)
            let content = part.subdata(in: split.upperBound..<part.endIndex)
            var name: String?
            var fileName: String?
            for line in headerText.split(separator: "\r\n") where line.lowercased().hasPrefix("content-disposition:") {
                let value = String(line.dropFirst("content-disposition:".count))
                name = Self.parameter("name", in: value)
                fileName = Self.parameter("filename", in: value)
            }
            guard let name else { continue }
            if let fileName {
                if !fileName.isEmpty || !content.isEmpty { files[name] = File(fileName: fileName, data: content) }
            } else {
                fields.append((name, String(decoding: content, as: UTF8.self)))
            }
        }
    }
}
