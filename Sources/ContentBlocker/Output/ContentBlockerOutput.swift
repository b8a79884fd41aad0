import Crypto
import FilterLists
import Foundation

/// The files of a compiled content blocker: `blocker-1.json` … `blocker-K.json` and `manifest.json`.
public struct ContentBlockerOutput: Sendable {
    /// Where an input list came from, for the manifest.
    public struct SourceIdentity: Sendable, Hashable {
        /// The list's name.
        public var name: String
        /// Its URL or path.
        public var url: String
        /// Its HTTP ETag, if downloaded.
        public var etag: String?
        /// SHA-256 (hex) of its bytes.
        public var sha256: String

        /// An identity with the given fields.
        public init(name: String, url: String, etag: String? = nil, sha256: String) {
            self.name = name
            self.url = url
            self.etag = etag
            self.sha256 = sha256
        }

        /// The identity of a list given by its bytes.
        public init(name: String, url: String, etag: String? = nil, contents: Data) {
            self.init(name: name, url: url, etag: etag, sha256: Self.sha256Hex(contents))
        }

        /// SHA-256 of `data`, lower-case hex.
        public static func sha256Hex(_ data: some DataProtocol) -> String {
            SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        }
    }

    /// One rendered rule list.
    public struct RuleFile: Sendable {
        /// Its file name.
        public var name: String
        /// Its JSON.
        public var contents: [UInt8]
        /// Its rules (for callers that inspect them without re-reading JSON).
        public var rules: [WebKitRule]
    }

    /// The rule lists, in order.
    public var files: [RuleFile]
    /// The manifest describing them.
    public var manifest: Manifest

    /// Lays out `compiled` into lists of at most `maximumRules` rules and describes them.
    ///
    /// - Parameter generatedAt: The time to record; `nil` means now (or `SOURCE_DATE_EPOCH`).
    public init(
        compiled: CompiledRules, sources: [SourceIdentity], allowlist: [String], maximumRules: Int,
        generatedAt: Date? = nil
    ) throws(CompileError) {
        let lists = try compiled.ruleLists(maximumRules: maximumRules)
        // Each list is encoded on its own core.
        let encoded = EncodedLists(count: lists.count)
        DispatchQueue.concurrentPerform(iterations: lists.count) { index in
            encoded.set(index, WebKitRuleJSON.encode(lists[index]))
        }
        files = lists.enumerated().map { index, rules in
            RuleFile(name: "blocker-\(index + 1).json", contents: encoded.contents[index], rules: rules)
        }
        var hasher = SHA256()
        for file in files {
            hasher.update(data: Array(file.name.utf8) + [0])
            hasher.update(data: file.contents)
        }
        for source in sources {
            hasher.update(data: Array("\(source.name)\u{0}\(source.etag ?? "")\u{0}\(source.sha256)\n".utf8))
        }
        let identifier = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let reports = Dictionary(compiled.reports.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        manifest = Manifest(
            identifier: identifier,
            generatedAt: Self.timestamp(generatedAt ?? Self.defaultDate()),
            sources: sources.map { source in
                let report = reports[source.name]
                return Manifest.Source(
                    name: source.name, url: source.url, etag: source.etag, sha256: source.sha256,
                    rulesIn: report?.rulesIn ?? 0, rulesOut: report?.rulesOut ?? 0,
                    skipped: Dictionary(uniqueKeysWithValues: (report?.skipped ?? [:]).map { ($0.key.rawValue, $0.value) }))
            },
            files: files.map { Manifest.File(path: $0.name, rules: $0.rules.count) },
            allowlist: Array(Set(allowlist)).sorted())
    }

    /// Total rules over all lists (rules repeated in several lists count each time).
    public var totalRules: Int { files.reduce(0) { $0 + $1.rules.count } }

    /// Writes the lists and then the manifest into `directory`, each file atomically (temporary
    /// file, fsync, rename), and removes `blocker-N.json` files left from a larger earlier output.
    ///
    /// When `directory` already holds a manifest with the same identifier, nothing is rewritten and
    /// that manifest's `generatedAt` is kept, so unchanged inputs leave the output byte-identical.
    /// - Returns: `false` when the output was already up to date.
    @discardableResult
    public mutating func write(to directory: URL) throws -> Bool {
        let fileManager = FileManager.default
        try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
        let manifestURL = directory.appendingPathComponent("manifest.json")
        if let data = try? Data(contentsOf: manifestURL), let existing = try? Manifest.decode(data),
            existing.identifier == manifest.identifier,
            files.allSatisfy({ fileManager.fileExists(atPath: directory.appendingPathComponent($0.name).path) })
        {
            manifest.generatedAt = existing.generatedAt
            return false
        }
        for file in files {
            try AtomicFile.write(Data(file.contents), to: directory.appendingPathComponent(file.name))
        }
        try AtomicFile.write(try manifest.encoded(), to: manifestURL)
        // Stale lists from an earlier, longer output.
        var index = files.count + 1
        while true {
            let stale = directory.appendingPathComponent("blocker-\(index).json")
            guard fileManager.fileExists(atPath: stale.path) else { break }
            try fileManager.removeItem(at: stale)
            index += 1
        }
        return true
    }

    static func defaultDate() -> Date {
        if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let seconds = TimeInterval(epoch) {
            return Date(timeIntervalSince1970: seconds)
        }
        return Date()
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}

/// JSON of each rule list, filled concurrently.
private final class EncodedLists: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [[UInt8]]

    init(count: Int) {
        storage = Array(repeating: [], count: count)
    }

    func set(_ index: Int, _ bytes: [UInt8]) {
        lock.withLock { storage[index] = bytes }
    }

    var contents: [[UInt8]] { lock.withLock { storage } }
}
