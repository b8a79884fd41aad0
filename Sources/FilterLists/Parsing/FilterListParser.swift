import Foundation

/// Reads a filter list in one pass: Adblock Plus / AdGuard / uBlock Origin syntax, hosts files
/// and plain domain lists.
///
/// Every rule keeps its line number. A line Pepper cannot use is skipped and counted under a
/// ``SkipReason``; nothing in a list makes the parser fail except content that is not text at all.
public struct FilterListParser: Sendable {
    /// Lines longer than this are skipped as `line-too-long` (real lists stay far below).
    public var maximumLineLength: Int
    /// The categories to block in a Tracker Radar or Disconnect list (case-insensitive; the
    /// list's ``TrackerCategory`` names); `nil` for the list's default: every Tracker Radar
    /// tracker, Disconnect's ``DisconnectConverter/defaultCategories``. Other formats have none.
    public var categories: [String]?

    /// A parser with the default limits.
    public init(maximumLineLength: Int = 65_536, categories: [String]? = nil) {
        self.maximumLineLength = maximumLineLength
        self.categories = categories
    }

    /// Parses a list held in memory.
    ///
    /// - Parameters:
    ///   - data: The list's bytes (UTF-8; a byte-order mark is ignored).
    ///   - name: The name used in reports.
    ///   - format: The syntax, or `nil` to detect it.
    /// - Throws: ``FilterListError/binaryContent(name:)`` when the data is not text.
    public func parse(_ data: Data, name: String, format: FilterListFormat? = nil) throws(FilterListError) -> ParsedFilterList {
        let result: Result<ParsedFilterList, FilterListError> = data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            return Result { () throws(FilterListError) in try parse(bytes: bytes, name: name, format: format) }
        }
        return try result.get()
    }

    /// Parses a list given as a string.
    public func parse(_ text: String, name: String, format: FilterListFormat? = nil) throws(FilterListError) -> ParsedFilterList {
        try parse(Data(text.utf8), name: name, format: format)
    }

    func parse(
        bytes allBytes: UnsafeBufferPointer<UInt8>, name: String, format: FilterListFormat?
    ) throws(FilterListError) -> ParsedFilterList {
        switch try plan(bytes: allBytes, name: name, format: format) {
        case .json(let format, let json):
            return try convert(json: UnsafeBufferPointer(rebasing: allBytes[json]), format: format, name: name)
        case .lines(let format, let text):
            var list = ParsedFilterList(name: name, format: format)
            list.networkRules.reserveCapacity(text.count / 40)
            parseLines(UnsafeBufferPointer(rebasing: allBytes[text]), firstLine: 1, format: format, into: &list)
            return list
        }
    }

    /// How a list is read, decided from its first bytes.
    enum Plan {
        /// A JSON document (TDS, Disconnect), converted whole: the byte range after any byte-order mark.
        case json(FilterListFormat, Range<Int>)
        /// Lines in `format`: the byte range after any byte-order mark.
        case lines(FilterListFormat, Range<Int>)
    }

    /// Checks that `allBytes` are text and finds their format.
    func plan(bytes allBytes: UnsafeBufferPointer<UInt8>, name: String, format: FilterListFormat?) throws(FilterListError) -> Plan {
        var bytes = allBytes
        var start = 0
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            bytes = UnsafeBufferPointer(rebasing: bytes[3...])
            start = 3
        }
        let probe = bytes.prefix(65_536)
        if probe.contains(0) { throw .binaryContent(name: name) }

        var requested = format
        if requested == nil, let first = bytes.first(where: { !LineScanner.isSpace($0) && $0 != 0x0A }),
            first == UInt8(ascii: "{")
        {
            guard let json = FilterListFormat.detectJSON(in: bytes) else { throw .unsupportedFormat(name: name, detected: "JSON") }
            requested = json
        }
        switch requested {
        case .tds?: return .json(.tds, start..<allBytes.count)
        case .disconnect?: return .json(.disconnect, start..<allBytes.count)
        default: return .lines(requested ?? FilterListFormat.detect(in: bytes), start..<allBytes.count)
        }
    }

    /// A JSON list (TDS or Disconnect), converted whole.
    func convert(json bytes: UnsafeBufferPointer<UInt8>, format: FilterListFormat, name: String) throws(FilterListError) -> ParsedFilterList
    {
        if format == .tds {
            return try TrackerRadarConverter.convert(json: UnsafeRawBufferPointer(bytes), name: name, categories: categories)
        }
        return try DisconnectConverter.convert(json: Data(buffer: bytes), name: name, categories: categories)
    }

    /// Reads the lines of `bytes`, numbering them from `firstLine`, into `list`: a whole list,
    /// or one piece of it that starts at a line.
    func parseLines(_ bytes: UnsafeBufferPointer<UInt8>, firstLine: Int, format: FilterListFormat, into list: inout ParsedFilterList) {
        LineScanner.forEachLine(in: bytes, firstNumber: firstLine) { rawLine, number in
            list.lineCount = number
            let line = LineScanner.trimmed(rawLine)
            if line.isEmpty {
                list.commentCount += 1
                return true
            }
            if line.count > maximumLineLength {
                list.skip(line: number, text: "(\(line.count) bytes)", reason: .lineTooLong)
                return true
            }
            guard let text = Self.decode(line) else {
                list.skip(line: number, text: LineScanner.string(line), reason: .invalidUTF8)
                return true
            }
            switch format {
            case .abp: parseFilterLine(text, number: number, into: &list)
            case .hosts, .domains: parseHostsLine(text, number: number, format: format, into: &list)
            case .tds, .disconnect: break  // JSON, converted whole
            }
            return true
        }
    }

    private static func decode(_ line: LineScanner.Line) -> String? {
        let buffer = UnsafeBufferPointer(rebasing: line)
        if buffer.allSatisfy({ $0 < 0x80 }) { return String(decoding: buffer, as: UTF8.self) }
        if #available(iOS 18, macOS 15, *) { return String(validating: buffer, as: UTF8.self) }
        return UTF8Text.validated(buffer)
    }

    private func parseFilterLine(_ text: String, number: Int, into list: inout ParsedFilterList) {
        let first = text.utf8.first!
        if first == UInt8(ascii: "!") {
            list.commentCount += 1
            if number < 100 { Self.readHeader(text, into: &list.metadata) }
            return
        }
        if first == UInt8(ascii: "[") && text.hasSuffix("]") && !text.hasPrefix("[$") {
            list.commentCount += 1  // "[Adblock Plus 2.0]"
            return
        }
        if first == UInt8(ascii: "[") && text.hasPrefix("[$") {
            list.skip(line: number, text: text, reason: .cosmeticModifier)
            return
        }
        if let (range, isCosmetic) = CosmeticRuleParser.markerRange(in: text) {
            guard isCosmetic else {
                list.skip(line: number, text: text, reason: .htmlFilter)
                return
            }
            switch CosmeticRuleParser.parse(text, marker: range, line: number) {
            case .success(let rule): list.cosmeticRules.append(rule)
            case .failure(let reason): list.skip(line: number, text: text, reason: reason)
            }
            return
        }
        if first == UInt8(ascii: "#") {
            list.commentCount += 1  // uBlock Origin's "# comment"
            return
        }
        switch NetworkRuleParser.parse(text, line: number) {
        case .success(let rule): list.networkRules.append(rule)
        case .failure(let reason): list.skip(line: number, text: text, reason: reason)
        }
    }

    private func parseHostsLine(_ text: String, number: Int, format: FilterListFormat, into list: inout ParsedFilterList) {
        let first = text.utf8.first!
        if first == UInt8(ascii: "#") || first == UInt8(ascii: "!") || first == UInt8(ascii: ";") {
            list.commentCount += 1
            return
        }
        if format == .hosts {
            HostsListParser.parseHostsLine(text, line: number, into: &list)
        } else {
            HostsListParser.parseDomainLine(text, line: number, into: &list)
        }
    }

    static func readHeader(_ text: String, into metadata: inout FilterListMetadata) {
        let body = text.dropFirst().trimmingPrefix(while: { $0 == " " })
        guard let colon = body.firstIndex(of: ":") else { return }
        let key = body[..<colon].lowercased()
        let value = body[body.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        switch key {
        case "title": metadata.title = value
        case "version": metadata.version = value
        case "expires": metadata.expires = FilterListMetadata.parseExpires(value)
        case "homepage": metadata.homepage = value
        case "diff-path": metadata.diffPath = value
        default: break
        }
    }
}
