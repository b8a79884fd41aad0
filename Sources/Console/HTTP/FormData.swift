import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// The fields of a submitted form: `application/x-www-form-urlencoded`, or
/// `multipart/form-data` with uploaded files.
///
/// Multipart bodies are read by MultipartKit's parser; what it leaves to its callers is checked
/// here: the boundary as RFC 2046 allows it (1 to 70 characters of its alphabet), a body that
/// ends with the closing delimiter, every part named by a `Content-Disposition: form-data`
/// header. Urlencoded bodies are decoded by Hummingbird's `URLEncodedFormDecoder`; a malformed
/// escape or text that is not UTF-8 is refused rather than guessed at. Every refusal is a ``FormData/Error``,
/// which the console answers with 400 before any handler runs, so nothing changes.
struct FormData: Sendable {
    /// An uploaded file.
    struct File: Sendable {
        /// The name the browser gave it.
        var fileName: String
        /// Its bytes.
        var data: Data
    }

    /// Text fields (a name repeats for checkboxes that share it, written `name[]` in the form).
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

    /// Most fields or parts in one form: the console's largest form has a few dozen.
    static let maximumFields = 1_000

    /// An empty form.
    init() {}

    /// A form of these text fields (read by ``StreamedUpload``).
    init(fields: [(name: String, value: String)]) {
        self.fields = fields
    }

    /// The fields of a query string (a GET form): `+` is a space, as browsers write it. A
    /// malformed query gives no fields (the page then shows its defaults).
    init(query: String?) {
        fields = (try? Self.urlEncoded(Array((query ?? "").utf8))) ?? []
    }

    /// Reads a body of the given content type.
    init(body: ByteBuffer, contentType: String?) throws(Error) {
        let type = contentType?.lowercased() ?? ""
        if type.hasPrefix("multipart/form-data") {
            guard let boundary = Self.parameter("boundary", in: contentType ?? "") else {
                throw Error(description: "no multipart boundary")
            }
            try readMultipart(body, boundary: boundary)
        } else if type.isEmpty || type.hasPrefix("application/x-www-form-urlencoded") {
            fields = try Self.urlEncoded(Array(body.readableBytesView))
        } else {
            throw Error(description: "unsupported form type \(type)")
        }
    }

    /// Fields of a query string or urlencoded body, decoded by Hummingbird's
    /// `URLEncodedFormDecoder`: a malformed escape or key, a name given twice (checkboxes that
    /// share a name are written `name[]`, and read back as `name`), or text that is not UTF-8
    /// is refused. The fields are counted before decoding, so a body of a million fields is
    /// refused without being taken apart.
    static func urlEncoded(_ bytes: [UInt8]) throws(Error) -> [(name: String, value: String)] {
        guard bytes.lazy.filter({ $0 == UInt8(ascii: "&") }).count < maximumFields else {
            throw Error(description: "more than \(maximumFields) fields")
        }
        // Checked here: decoding the body as a String would turn such bytes into U+FFFD.
        guard let text = utf8Text(bytes) else { throw Error(description: "a field is not UTF-8 text") }
        // Hummingbird's decoder reads an escaped byte that is not UTF-8 as U+FFFD; Foundation's
        // refuses it, and a malformed escape: the whole body is checked with it first.
        guard text.removingPercentEncoding != nil else {
            throw Error(description: "a malformed %-escape, or an escaped byte that is not UTF-8")
        }
        do {
            return try URLEncodedFormDecoder().decode(DecodedFields.self, from: text).fields
        } catch let error as URLEncodedFormError {
            throw Error(description: "a malformed form (\(error))")
        } catch {
            throw Error(description: "a field that is neither text nor a list of texts (\(error))")
        }
    }

    /// Any urlencoded form as fields: each name's text, or each of its texts (`name[]=a&name[]=b`).
    private struct DecodedFields: Decodable {
        struct Name: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        var fields: [(name: String, value: String)] = []

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Name.self)
            for name in container.allKeys {
                if let values = try? container.decode([String].self, forKey: name) {
                    fields += values.map { (name.stringValue, $0) }
                } else {
                    fields.append((name.stringValue, try container.decode(String.self, forKey: name)))
                }
            }
        }
    }

    /// `bytes` as text when they are valid UTF-8 (`nil` otherwise, rather than replacement characters).
    static func utf8Text(_ bytes: some Collection<UInt8>) -> String? {
        var iterator = bytes.makeIterator()
        var decoder = UTF8()
        var text = String.UnicodeScalarView()
        while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar): text.append(scalar)
            case .emptyInput: return String(text)
            case .error: return nil
            }
        }
    }

    /// A parameter of a header value (`boundary=…`, `name="…"`), unquoted.
    static func parameter(_ name: String, in header: String) -> String? {
        for part in header.split(separator: ";") {
            let pieces = part.split(separator: "=", maxSplits: 1)
            guard pieces.count == 2, pieces[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pieces[1].trimmingCharacters(in: .whitespaces)
            if value.hasPrefix("\"") && value.hasSuffix("\"") && value.count >= 2 { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }

    /// Whether `boundary` is one RFC 2046 allows: 1 to 70 of its characters, not ending in a space.
    static func isValidBoundary(_ boundary: String) -> Bool {
        let allowed = Set("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=? ".utf8)
        return (1...70).contains(boundary.utf8.count) && boundary.utf8.allSatisfy(allowed.contains) && boundary.utf8.last != 0x20
    }

    private mutating func readMultipart(_ body: ByteBuffer, boundary: String) throws(Error) {
        guard Self.isValidBoundary(boundary) else {
            throw Error(description: "the multipart boundary is not 1 to 70 characters of those RFC 2046 allows")
        }
        // The closing delimiter must be there: a body cut short is not a form. MultipartKit's
        // parser ignores what follows it (the epilogue) and does not say whether it saw it.
        let closing = Array("--\(boundary)--".utf8)
        let view = body.readableBytesView
        let atStart = view.starts(with: closing)
        guard atStart || Self.contains(view, Array("\r\n".utf8) + closing) else {
            throw Error(description: "the multipart body has no closing boundary")
        }
        var parts: [(headers: [(String, String)], body: ByteBuffer)] = []
        var headers: [(String, String)] = []
        var content = ByteBuffer()
        var tooMany = false
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers.append((name, value)) }
        parser.onBody = { chunk in content.writeBuffer(&chunk) }
        parser.onPartComplete = {
            if parts.count >= Self.maximumFields { tooMany = true }
            if !tooMany { parts.append((headers, content)) }
            headers = []
            content = ByteBuffer()
        }
        if !atStart {
            do {
                try parser.execute(body)
            } catch {
                throw Error(description: "a malformed multipart body")
            }
        }
        guard !tooMany else { throw Error(description: "more than \(Self.maximumFields) parts") }
        for part in parts {
            guard let disposition = part.headers.last(where: { $0.0.lowercased() == "content-disposition" })?.1,
                disposition.lowercased().hasPrefix("form-data"), let name = Self.parameter("name", in: disposition)
            else { throw Error(description: "a multipart part without a Content-Disposition: form-data name") }
            var bytes = part.body
            let data = bytes.readData(length: bytes.readableBytes) ?? Data()
            if let fileName = Self.parameter("filename", in: disposition) {
                if !fileName.isEmpty || !data.isEmpty { files[name] = File(fileName: fileName, data: data) }
            } else {
                guard let text = Self.utf8Text(data) else {
                    throw Error(description: "the field \(name) is not UTF-8 text")
                }
                guard fields.count < Self.maximumFields else { throw Error(description: "more than \(Self.maximumFields) fields") }
                // As in urlencoded forms: checkboxes that share a name are written `name[]`.
                fields.append((name.hasSuffix("[]") ? String(name.dropLast(2)) : name, text))
            }
        }
    }

    /// Whether `needle` occurs in `haystack`; linear for the short needles used here.
    private static func contains(_ haystack: ByteBufferView, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first, haystack.count >= needle.count else { return false }
        var index = haystack.startIndex
        let last = haystack.endIndex - needle.count
        while index <= last {
            guard let found = haystack[index...last].firstIndex(of: first) else { return false }
            if haystack[found..<found + needle.count].elementsEqual(needle) { return true }
            index = found + 1
        }
        return false
    }
}
