import Crypto
import FilterLists
import Foundation
import UTCTime

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
        /// Its JSON, piece after piece (written to the file as they are, never joined).
        public var pieces: [ArraySlice<UInt8>]
        /// How many rules it holds.
        public var ruleCount: Int

        /// Its JSON in one buffer.
        public var contents: [UInt8] { pieces.reduce(into: [UInt8]()) { $0.append(contentsOf: $1) } }

        /// Its size in bytes.
        public var byteCount: Int { pieces.reduce(0) { $0 + $1.count } }
    }

    /// The rule lists, in order.
    public var files: [RuleFile]
    /// The manifest describing them.
    public var manifest: Manifest

    /// Lays out `compiled` into lists of at most `maximumRules` rules and describes them.
    ///
    /// - Parameters:
    ///   - compiled: The rules.
    ///   - sources: The lists they were compiled from, in order, for the manifest.
    ///   - allowlist: The allowlist they were compiled with, for the manifest.
    ///   - maximumRules: Most rules per list (WebKit accepts 150,000).
    ///   - generatedAt: The time to record; `nil` means now (or `SOURCE_DATE_EPOCH`).
    /// - Throws: ``CompileError`` when `maximumRules` leaves no room beside the rules every list
    ///   must repeat.
    public init(
        compiled: CompiledRules, sources: [SourceIdentity], allowlist: [String], maximumRules: Int,
        generatedAt: Date? = nil
    ) throws(CompileError) {
        try self.init(
            encoded: EncodedCompiledRules(compiled), sources: sources, allowlist: allowlist, maximumRules: maximumRules,
            generatedAt: generatedAt)
    }

    /// Lays out rules already encoded (kept by an earlier build of the same lists) into lists of
    /// at most `maximumRules` rules and describes them: the bytes are those a build from the
    /// rules gives.
    ///
    /// - Parameters:
    ///   - encoded: The encoded rules.
    ///   - sources: The lists they were compiled from, in order, for the manifest.
    ///   - allowlist: The allowlist they were compiled with, for the manifest.
    ///   - maximumRules: Most rules per list (WebKit accepts 150,000).
    ///   - inputs: A digest of what the rules were compiled from, recorded in the manifest.
    ///   - generatedAt: The time to record; `nil` means now (or `SOURCE_DATE_EPOCH`).
    /// - Throws: ``CompileError`` when `maximumRules` leaves no room beside the rules every list
    ///   must repeat.
    public init(
        encoded: EncodedCompiledRules, sources: [SourceIdentity], allowlist: [String], maximumRules: Int, inputs: String? = nil,
        generatedAt: Date? = nil
    ) throws(CompileError) {
        let lists = try encoded.ruleLists(maximumRules: maximumRules)
        files = lists.enumerated().map { index, list in
            RuleFile(name: "blocker-\(index + 1).json", pieces: list.pieces, ruleCount: list.rules)
        }
        var hasher = SHA256()
        for (file, list) in zip(files, lists) {
            hasher.update(data: Array(file.name.utf8) + [0])
            hasher.update(data: list.contentDigest)
        }
        for source in sources {
            hasher.update(data: Array("\(source.name)\u{0}\(source.etag ?? "")\u{0}\(source.sha256)\n".utf8))
        }
        let identifier = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        let reports = Dictionary(encoded.reports.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
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
            files: files.map { Manifest.File(path: $0.name, rules: $0.ruleCount) },
            allowlist: Array(Set(allowlist)).sorted(), inputs: inputs)
    }

    /// Total rules over all lists (rules repeated in several lists count each time).
    public var totalRules: Int { files.reduce(0) { $0 + $1.ruleCount } }

    /// Publishes the lists and the manifest at `directory`, atomically as a whole.
    ///
    /// The files are written (and fsynced) into a new generation folder beside `directory`
    /// (`.NAME.<identifier>`), then `directory` — a symbolic link — is switched to it with one
    /// `rename`. A reader, or a process killed at any moment, sees either the previous complete
    /// output or the new one, never a mix. The previous generation is kept for readers still using
    /// it; older ones are removed. A plain folder left by an earlier version is adopted once.
    ///
    /// When `directory` already holds a manifest with the same identifier, nothing is rewritten and
    /// that manifest's `generatedAt` is kept, so unchanged inputs leave the output byte-identical.
    /// - Returns: `false` when the output was already up to date.
    @discardableResult
    public mutating func write(to directory: URL) throws -> Bool {
        let fileManager = FileManager.default
        let directory = directory.standardizedFileURL
        let parent = directory.deletingLastPathComponent()
        let name = directory.lastPathComponent
        try fileManager.createDirectory(at: parent, withIntermediateDirectories: true)
        let manifestURL = directory.appendingPathComponent("manifest.json")
        if let data = try? Data(contentsOf: manifestURL), let existing = try? Manifest.decode(data),
            existing.identifier == manifest.identifier,
            files.allSatisfy({ fileManager.fileExists(atPath: directory.appendingPathComponent($0.name).path) })
        {
            manifest.generatedAt = existing.generatedAt
            // Nothing to publish, but a writer killed since the last publish may have left its
            // staging folder: without this, it would stay until the output next changes.
            OutputGenerations.removeDeadWriters(in: parent, name: name)
            return false
        }

        let previousTarget = try? fileManager.destinationOfSymbolicLink(atPath: directory.path)
        if previousTarget == nil, fileManager.fileExists(atPath: directory.path) {
            try OutputGenerations.adoptPlainFolder(directory)
        }

        let generationName = ".\(name).\(manifest.identifier.prefix(16))"
        let generation = parent.appendingPathComponent(generationName)
        let staging = parent.appendingPathComponent(".\(name).staging-\(ProcessMark.current)")
        try? fileManager.removeItem(at: staging)
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: false)
            for file in files {
                try AtomicFile.writeDurably(pieces: file.pieces, to: staging.appendingPathComponent(file.name))
            }
            try AtomicFile.writeDurably(try manifest.encoded(), to: staging.appendingPathComponent("manifest.json"))
            AtomicFile.syncDirectory(staging)
            if fileManager.fileExists(atPath: generation.path) { try fileManager.removeItem(at: generation) }
            try AtomicFile.rename(staging, to: generation)
            try AtomicFile.replaceSymbolicLink(at: directory, destination: generationName)
        } catch {
            // A full disk (or any other failure) leaves the published output as it was: the
            // half-written folder goes at once, so that it does not hold the space the next
            // attempt needs. The generation is never the one in use here (the link still names
            // the previous one).
            try? fileManager.removeItem(at: staging)
            if generationName != previousTarget { try? fileManager.removeItem(at: generation) }
            throw error
        }
        OutputGenerations.removeStale(in: parent, name: name, keeping: [generationName, previousTarget].compactMap { $0 })
        return true
    }

    static func defaultDate() -> Date {
        if let epoch = ProcessInfo.processInfo.environment["SOURCE_DATE_EPOCH"], let seconds = TimeInterval(epoch) {
            return Date(timeIntervalSince1970: seconds)
        }
        return Date()
    }

    static func timestamp(_ date: Date) -> String {
        UTCDateTime.internetText(date)
    }
}

extension ContentBlockerOutput {
    /// A rule list of this output without its user allowlist: what a browser that applies the
    /// allowlist itself, site by site, loads (it then needs no new compile when the allowlist
    /// changes). The allowlist rule is the last rule of every list; `nil` when `json` does not
    /// end with the rule for `allowlist`, or when nothing is left without it.
    public static func removingAllowlist(from json: [UInt8], allowlist: [String]) -> [UInt8]? {
        let rule = EncodedRules(ContentRuleCompiler.allowlistRules(for: allowlist))
        guard rule.count == 1 else { return allowlist.isEmpty ? json : nil }
        // `,\n{rule}\n]\n` after other rules.
        let tail = Array(rule.bytes) + [0x0A, UInt8(ascii: "]"), 0x0A]
        guard json.count > tail.count + 1, json.suffix(tail.count).elementsEqual(tail) else { return nil }
        return Array(json.dropLast(tail.count)) + [0x0A, UInt8(ascii: "]"), 0x0A]
    }
}
