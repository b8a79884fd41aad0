import FilterLists
import Foundation
import ListSync
import Picket

/// Reads `SOURCE` arguments: file paths and http(s) URLs.
enum SourceLoader {
    /// Largest list accepted (real lists are a few MB).
    static let maximumSize = 64 * 1_024 * 1_024

    /// What `picket:` sources need: a key and the policy.
    struct PicketContext {
        var key: String?
        var policy: PicketPolicy
    }

    static func load(_ argument: String, format: FilterListFormat?, picket context: PicketContext? = nil) async throws -> ListInput {
        if argument.hasPrefix("http://") || argument.hasPrefix("https://") {
            return try await download(argument, format: format)
        }
        if argument.hasPrefix("picket:") {
            return try await picket(argument, context: context ?? PicketContext(key: nil, policy: .default))
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

    /// The Picket blocklist of a server, fetched now and turned into rules under the policy.
    private static func picket(_ argument: String, context: PicketContext) async throws -> ListInput {
        guard let server = PicketListSource.serverURL(argument) else { throw CLIError("\(argument): expected picket:https://SERVER") }
        guard let key = context.key else {
            throw CLIError("\(argument): needs an API key: `pepper lists add \(argument) --key KEY`, or set PEPPER_PICKET_KEY")
        }
        let fetched: PicketListSource.Fetched
        do {
            fetched = try await PicketListSource.fetch(server: server, key: key, lastHash: nil)
        } catch {
            throw CLIError("\(argument): \(error)")
        }
        guard case .new(let body, _, let hash, _) = fetched else { throw CLIError("\(argument): unexpected 304") }
        let (text, domains) = try PicketListSource.filterList(from: body, policy: context.policy, server: argument)
        if !context.policy.blocksInContentBlocker {
            Terminal.warning("\(argument): \(domains) domains, no rules: the Picket policy is allow (pepper picket policy)")
        }
        return ListInput(
            name: PicketListSource.defaultName(for: argument), location: argument, etag: hash, data: Data(text.utf8), format: .abp)
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
