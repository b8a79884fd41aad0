import FilterLists
import Foundation
import Storage

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The bytes of one list to compile, with where they came from.
struct LoadedSource: Sendable {
    var name: String
    var location: String
    var etag: String?
    var data: Data
    var format: FilterListFormat?
}

/// Reads `SOURCE` arguments: file paths and http(s) URLs.
enum SourceLoader {
    /// Largest list accepted (real lists are a few MB).
    static let maximumSize = 64 * 1_024 * 1_024

    static func load(_ argument: String, format: FilterListFormat?) async throws -> LoadedSource {
        if argument.hasPrefix("http://") || argument.hasPrefix("https://") {
            return try await download(argument, format: format)
        }
        if argument.hasPrefix("picket:") {
            throw CLIError("\(argument): Picket blocklist sources are not supported by this version of pepper compile")
        }
        let url = URL(fileURLWithPath: argument)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CLIError("\(argument): no such file")
        }
        guard !isDirectory.boolValue else { throw CLIError("\(argument): is a directory, not a list") }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        if let size = attributes?[.size] as? Int, size > maximumSize {
            throw CLIError("\(argument): \(Terminal.bytes(size)) is larger than the \(Terminal.bytes(maximumSize)) limit")
        }
        do {
            let data = try Data(contentsOf: url)
            return LoadedSource(name: url.lastPathComponent, location: argument, data: data, format: format)
        } catch {
            throw CLIError("\(argument): cannot read: \(error.localizedDescription)")
        }
    }

    private static func download(_ address: String, format: FilterListFormat?) async throws -> LoadedSource {
        guard let url = URL(string: address) else { throw CLIError("\(address): not a valid URL") }
        var request = URLRequest(url: url, timeoutInterval: 60)
        request.setValue("pepper/\(PepperVersion.current)", forHTTPHeaderField: "User-Agent")
        Terminal.status("Downloading \(address)…")
        let (data, response): (Data, URLResponse)
        do {
            (data, response) = try await URLSession.shared.data(for: request)
        } catch {
            throw CLIError("\(address): download failed: \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else { throw CLIError("\(address): not an HTTP response") }
        guard (200..<300).contains(http.statusCode) else { throw CLIError("\(address): HTTP \(http.statusCode)") }
        guard data.count <= maximumSize else { throw CLIError("\(address): larger than the \(Terminal.bytes(maximumSize)) limit") }
        let name = url.lastPathComponent.isEmpty ? (url.host ?? address) : url.lastPathComponent
        return LoadedSource(name: name, location: address, etag: http.value(forHTTPHeaderField: "ETag"), data: data, format: format)
    }
}
