import FilterLists
import Foundation
import ListSync

/// Reads `SOURCE` arguments: file paths and http(s) URLs.
enum SourceLoader {
    /// Largest list accepted (real lists are a few MB).
    static let maximumSize = 64 * 1_024 * 1_024

    static func load(_ argument: String, format: FilterListFormat?) async throws -> ListInput {
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
            return ListInput(name: url.lastPathComponent, location: argument, data: data, format: format)
        } catch {
            throw CLIError("\(argument): cannot read: \(error.localizedDescription)")
        }
    }

    private static func download(_ address: String, format: FilterListFormat?) async throws -> ListInput {
        guard let url = URL(string: address) else { throw CLIError("\(address): not a valid URL") }
        let name = url.lastPathComponent.isEmpty ? (url.host ?? address) : url.lastPathComponent
        let bar = ProgressBar(label: name)
        do {
            let outcome = try await ListDownloader(policy: .init(maximumBytes: maximumSize)).fetch(url, progress: bar.update)
            bar.finish()
            guard case .downloaded(let data, let headers) = outcome else { throw CLIError("\(address): unexpected 304") }
            return ListInput(name: name, location: address, etag: headers.etag, data: data, format: format)
        } catch let error as DownloadError {
            bar.finish()
            throw CLIError("\(address): download failed: \(error)")
        }
    }
}
