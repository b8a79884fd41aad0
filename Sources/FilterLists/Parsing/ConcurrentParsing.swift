import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension FilterListParser {
    /// One list of several to parse at once.
    public struct Input: Sendable {
        /// The list's bytes.
        public var data: Data
        /// The name used in reports.
        public var name: String
        /// Its syntax, or `nil` to detect it.
        public var format: FilterListFormat?
        /// For Tracker Radar and Disconnect lists: the categories to block (``FilterListParser/categories``;
        /// `nil` for the list's default).
        public var categories: [String]?

        /// An input with the given fields.
        public init(data: Data, name: String, format: FilterListFormat? = nil, categories: [String]? = nil) {
            self.data = data
            self.name = name
            self.format = format
            self.categories = categories
        }
    }

    /// How parsing one of several lists went.
    public struct Outcome: Sendable {
        /// The list, or why it could not be read.
        public var result: Result<ParsedFilterList, FilterListError>
        /// Seconds of work spent on it (over every core).
        public var seconds: Double
    }

    /// Lists of lines are parsed in pieces of about this many bytes.
    static let pieceSize = 192 * 1024

    /// Parses several lists at once on every core, and returns them in input order.
    ///
    /// A list of lines is cut into pieces at line ends, the pieces of every list are parsed side
    /// by side, and each list is joined back from its pieces in order: the result is what
    /// parsing each list whole gives (the same rules, line numbers, counts, header fields and
    /// skipped examples), but one large list no longer keeps a core busy while the other waits.
    public static func parseAll(_ inputs: [Input], maximumLineLength: Int = 65_536) -> [Outcome] {
        // What each list is, and its pieces: cheap, done first on this thread.
        var listPlans: [Result<Plan, FilterListError>] = []
        var pieceJobs: [Job] = []
        for (index, input) in inputs.enumerated() {
            let parser = FilterListParser(maximumLineLength: maximumLineLength, categories: input.categories)
            let plan = input.data.withUnsafeBytes { raw in
                Result { () throws(FilterListError) in
                    try parser.plan(bytes: raw.bindMemory(to: UInt8.self), name: input.name, format: input.format)
                }
            }
            listPlans.append(plan)
            switch plan {
            case .success(.json): pieceJobs.append(Job(input: index, range: 0..<0, firstLine: 0))
            case .success(.lines(_, let text)):
                input.data.withUnsafeBytes { raw in
                    for (range, firstLine) in lineRanges(of: raw.bindMemory(to: UInt8.self), in: text) {
                        pieceJobs.append(Job(input: index, range: range, firstLine: firstLine))
                    }
                }
            case .failure: break
            }
        }
        let (jobs, plans) = (pieceJobs, listPlans)

        let results = PieceSlots(count: jobs.count)
        DispatchQueue.concurrentPerform(iterations: jobs.count) { jobIndex in
            let job = jobs[jobIndex]
            let input = inputs[job.input]
            let parser = FilterListParser(maximumLineLength: maximumLineLength, categories: input.categories)
            let start = DispatchTime.now().uptimeNanoseconds
            let result = input.data.withUnsafeBytes { raw -> Result<ParsedFilterList, FilterListError> in
                let bytes = raw.bindMemory(to: UInt8.self)
                switch plans[job.input] {
                case .success(.json(let format, let json)):
                    return Result { () throws(FilterListError) in
                        try parser.convert(json: UnsafeBufferPointer(rebasing: bytes[json]), format: format, name: input.name)
                    }
                case .success(.lines(let format, _)):
                    var piece = ParsedFilterList(name: input.name, format: format)
                    piece.networkRules.reserveCapacity(job.range.count / 40)
                    parser.parseLines(
                        UnsafeBufferPointer(rebasing: bytes[job.range]), firstLine: job.firstLine, format: format, into: &piece)
                    return .success(piece)
                case .failure(let error):
                    return .failure(error)
                }
            }
            results.set(jobIndex, (result, Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9))
        }

        // Each list joined back from its pieces, in order.
        var pieces = Array(repeating: [Result<ParsedFilterList, FilterListError>](), count: inputs.count)
        var seconds = Array(repeating: 0.0, count: inputs.count)
        for (job, (result, duration)) in zip(jobs, results.takeAll()) {
            pieces[job.input].append(result)
            seconds[job.input] += duration
        }
        return plans.indices.map { index in
            if case .failure(let error) = plans[index] { return Outcome(result: .failure(error), seconds: 0) }
            let results = pieces[index]
            pieces[index] = []
            var parts: [ParsedFilterList]
            do throws(FilterListError) {
                parts = try results.map { result throws(FilterListError) in try result.get() }
            } catch {
                return Outcome(result: .failure(error), seconds: seconds[index])
            }
            // Room for every piece's rules at once, and each piece freed as soon as it is added:
            // at no time are two copies of a list's rules held.
            var list = parts[0]
            parts[0] = ParsedFilterList(name: list.name, format: list.format)
            list.networkRules.reserveCapacity(list.networkRules.count + parts.reduce(0) { $0 + $1.networkRules.count })
            list.cosmeticRules.reserveCapacity(list.cosmeticRules.count + parts.reduce(0) { $0 + $1.cosmeticRules.count })
            for part in parts.indices.dropFirst() {
                list.append(piece: parts[part])
                parts[part] = ParsedFilterList(name: list.name, format: list.format)
            }
            return Outcome(result: .success(list), seconds: seconds[index])
        }
    }

    /// Parses several lists at once (``parseAll(_:maximumLineLength:)``) with this parser's
    /// settings, and returns them in input order.
    public static func parseConcurrently(
        _ inputs: [(data: Data, name: String, format: FilterListFormat?)], parser: FilterListParser = FilterListParser()
    ) throws(FilterListError) -> [ParsedFilterList] {
        let outcomes = parseAll(
            inputs.map { Input(data: $0.data, name: $0.name, format: $0.format, categories: parser.categories) },
            maximumLineLength: parser.maximumLineLength)
        return try outcomes.map { outcome throws(FilterListError) in try outcome.result.get() }
    }

    /// Part of a list to parse: all of a JSON list, or a piece of one of lines.
    private struct Job: Sendable {
        var input: Int
        var range: Range<Int>
        var firstLine: Int
    }

    /// `text`'s pieces of about ``pieceSize`` bytes, each ending after a line break (or at the
    /// end), with the number of its first line; one empty piece for no text.
    static func lineRanges(of bytes: UnsafeBufferPointer<UInt8>, in text: Range<Int>) -> [(Range<Int>, Int)] {
        guard !text.isEmpty else { return [(text, 1)] }
        var pieces: [(Range<Int>, Int)] = []
        var start = text.lowerBound
        var firstLine = 1
        while start < text.upperBound {
            var end = text.upperBound
            if text.upperBound - start > pieceSize * 3 / 2, let base = bytes.baseAddress,
                let hit = memchr(base + start + pieceSize, 0x0A, text.upperBound - start - pieceSize)
            {
                end = base.distance(to: hit.assumingMemoryBound(to: UInt8.self)) + 1
            }
            pieces.append((start..<end, firstLine))
            firstLine += LineScanner.lineBreaks(in: UnsafeBufferPointer(rebasing: bytes[start..<end]))
            start = end
        }
        return pieces
    }
}

extension ParsedFilterList {
    /// Adds the piece of the same list that follows this one: its rules after these, its counts
    /// to these, its header fields over these (as a later header line wins), and its skipped
    /// examples while a reason has fewer than the examples kept per reason.
    mutating func append(piece: ParsedFilterList) {
        networkRules.append(contentsOf: piece.networkRules)
        cosmeticRules.append(contentsOf: piece.cosmeticRules)
        if piece.lineCount > 0 { lineCount = piece.lineCount }
        commentCount += piece.commentCount
        for example in piece.skippedExamples where skippedExamples.count(where: { $0.reason == example.reason }) < Self.examplesPerReason {
            skippedExamples.append(example)
        }
        skipped.merge(piece.skipped, uniquingKeysWith: +)
        metadata.title = piece.metadata.title ?? metadata.title
        metadata.version = piece.metadata.version ?? metadata.version
        metadata.expires = piece.metadata.expires ?? metadata.expires
        metadata.homepage = piece.metadata.homepage ?? metadata.homepage
        metadata.diffPath = piece.metadata.diffPath ?? metadata.diffPath
    }
}

/// Pieces' results written from concurrent iterations, each slot by one.
private final class PieceSlots: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [(Result<ParsedFilterList, FilterListError>, Double)?]

    init(count: Int) {
        storage = Array(repeating: nil, count: count)
    }

    func set(_ index: Int, _ value: (Result<ParsedFilterList, FilterListError>, Double)) {
        lock.withLock { storage[index] = value }
    }

    /// Every result, moved out of the slots.
    func takeAll() -> [(Result<ParsedFilterList, FilterListError>, Double)] {
        lock.withLock {
            defer { storage = [] }
            return storage.map { $0! }
        }
    }
}
