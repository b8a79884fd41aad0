import Foundation

/// `manifest.json`: what a compiled blocker contains and where it came from (`docs/architecture.md`).
public struct Manifest: Codable, Hashable, Sendable {
    /// One input list.
    public struct Source: Codable, Hashable, Sendable {
        /// The list's name.
        public var name: String
        /// Where it came from: a URL, a file path, or `embedded:pepper-starter`.
        public var url: String
        /// The HTTP ETag of the copy used, if any.
        public var etag: String?
        /// SHA-256 (hex) of the list's bytes.
        public var sha256: String
        /// Rule lines read.
        public var rulesIn: Int
        /// WebKit rules produced from it.
        public var rulesOut: Int
        /// Lines and rules not converted, by reason.
        public var skipped: [String: Int]

        /// A source entry.
        public init(name: String, url: String, etag: String?, sha256: String, rulesIn: Int, rulesOut: Int, skipped: [String: Int]) {
            self.name = name
            self.url = url
            self.etag = etag
            self.sha256 = sha256
            self.rulesIn = rulesIn
            self.rulesOut = rulesOut
            self.skipped = skipped
        }
    }

    /// One output rule list.
    public struct File: Codable, Hashable, Sendable {
        /// The file name, relative to the manifest (`blocker-1.json`).
        public var path: String
        /// Number of rules in it.
        public var rules: Int

        /// A file entry.
        public init(path: String, rules: Int) {
            self.path = path
            self.rules = rules
        }
    }

    /// SHA-256 (hex) over the output files' contents (each file as digests of its runs of rules,
    /// which determine its bytes) and the sources' ETags: equal inputs give equal identifiers.
    public var identifier: String
    /// When the output was generated (ISO 8601), kept unchanged when the identifier is unchanged.
    public var generatedAt: String
    /// The input lists, in order.
    public var sources: [Source]
    /// The output lists, in order.
    public var files: [File]
    /// The allowlisted domains.
    public var allowlist: [String]
    /// A digest of what the rules were compiled from (the lists' bytes and formats, the
    /// compiler's version), when the state compiled them: the key of the incremental compile and
    /// of the saved filter engine. Absent for `pepper compile SOURCE…` and older outputs.
    public var inputs: String?

    /// A manifest with the given fields.
    public init(
        identifier: String, generatedAt: String, sources: [Source], files: [File], allowlist: [String], inputs: String? = nil
    ) {
        self.identifier = identifier
        self.generatedAt = generatedAt
        self.sources = sources
        self.files = files
        self.allowlist = allowlist
        self.inputs = inputs
    }

    /// The manifest as stable, human-readable JSON.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        return data
    }

    /// Reads a manifest.
    public static func decode(_ data: Data) throws -> Manifest {
        try JSONDecoder().decode(Manifest.self, from: data)
    }
}
