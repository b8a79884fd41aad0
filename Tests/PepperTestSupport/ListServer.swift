import Foundation

/// The loopback HTTP server of `Server/list_server.py`, driven by rewriting its routes.
public final class ListServer {
    public struct Route: Encodable, Sendable {
        public var body: String?
        public var status: Int?
        public var contentType: String?
        public var headers: [String: String]?
        public var etag: Bool?
        public var lastModified: String?
        public var delay: Double?
        public var chunkDelay: Double?
        public var truncate: Bool?
        public var size: Int?

        enum CodingKeys: String, CodingKey {
            case body, status, headers, etag, delay, truncate, size
            case contentType = "content_type"
            case lastModified = "last_modified"
            case chunkDelay = "chunk_delay"
        }

        public init(
            body: String? = nil, status: Int? = nil, contentType: String? = nil, headers: [String: String]? = nil, etag: Bool? = nil,
            lastModified: String? = nil, delay: Double? = nil, chunkDelay: Double? = nil, truncate: Bool? = nil, size: Int? = nil
        ) {
            self.body = body
            self.status = status
            self.contentType = contentType
            self.headers = headers
            self.etag = etag
            self.lastModified = lastModified
            self.delay = delay
            self.chunkDelay = chunkDelay
            self.truncate = truncate
            self.size = size
        }
    }

    public struct LoggedRequest: Decodable, Sendable {
        public var path: String
        /// The query, without its `?`, when the request had one.
        public var query: String?
        public var ifNoneMatch: String?
        public var ifModifiedSince: String?

        enum CodingKeys: String, CodingKey {
            case path, query
            case ifNoneMatch = "if_none_match"
            case ifModifiedSince = "if_modified_since"
        }
    }

    public let directory: URL
    public let port: Int
    private let process: Process

    static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Server/list_server.py")

    public init(routes: [String: Route] = [:]) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-lists-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = [Self.script.path, directory.path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try Self.write(routes, to: directory)
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    deinit {
        // SIGKILL: the test runner's signal mask can leave SIGTERM blocked in children.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: directory)
    }

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

    public func set(_ routes: [String: Route]) throws {
        try Self.write(routes, to: directory)
    }

    private static func write(_ routes: [String: Route], to directory: URL) throws {
        let data = try JSONEncoder().encode(routes)
        let temporary = directory.appendingPathComponent("routes.json.tmp")
        try data.write(to: temporary)
        // rename(2) replaces the routes in one step: the server never reads half a file.
        guard rename(temporary.path, directory.appendingPathComponent("routes.json").path) == 0 else {
            throw CocoaError(.fileWriteUnknown)
        }
    }

    public var requests: [LoggedRequest] {
        guard let data = try? Data(contentsOf: directory.appendingPathComponent("requests.log")) else { return [] }
        return data.split(separator: 0x0A).compactMap { try? JSONDecoder().decode(LoggedRequest.self, from: Data($0)) }
    }

    public func clearLog() {
        try? FileManager.default.removeItem(at: directory.appendingPathComponent("requests.log"))
    }
}
