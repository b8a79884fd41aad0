import FilterLists
import Foundation
import ListSync
import Picket
import Storage

/// Reads list sources named on a command line or in a client-groups file: file paths, http(s)
/// URLs and `picket:https://SERVER`, as inputs to compile or to build an engine from (they are
/// not added to the state).
public enum ListInputLoader {
    /// Largest list accepted (real lists are a few MB).
    public static let maximumSize = 64 * 1_024 * 1_024

    /// What `picket:` sources need: a key and the policy.
    public struct PicketContext: Sendable {
        /// The API key (read:mobile).
        public var key: String?
        /// What struck employers' domains become.
        public var policy: PicketPolicy

        /// A context with the given key and policy.
        public init(key: String?, policy: PicketPolicy) {
            self.key = key
            self.policy = policy
        }
    }

    /// Reads one source; `progress` follows a download.
    public static func load(
        _ argument: String, format: FilterListFormat?, picket context: PicketContext? = nil,
        progress: ListDownloader.Progress? = nil
    ) async throws(ActionError) -> ListInput {
        if ListSource.isWeb(argument) {
            return try await download(argument, format: format, progress: progress)
        }
        if ListSource.isPicket(argument) {
            return try await picket(argument, context: context ?? PicketContext(key: nil, policy: .default))
        }
        let url = URL(fileURLWithPath: argument)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw .invalidSource(source: argument, problem: .noSuchFile)
        }
        guard !isDirectory.boolValue else { throw .invalidSource(source: argument, problem: .directory) }
        let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
        if let size = attributes?[.size] as? Int, size > maximumSize {
            throw .invalidSource(source: argument, problem: .tooLarge(bytes: size, limit: maximumSize))
        }
        do {
            let data = try Data(contentsOf: url)
            return ListInput(name: url.lastPathComponent, location: argument, data: data, format: format)
        } catch {
            throw .invalidSource(source: argument, problem: .unreadable(error.localizedDescription))
        }
    }

    /// Gives sources with the same file name distinct names (`easylist.txt`, `easylist.txt#2`).
    public static func uniquelyNamed(_ sources: [ListInput]) -> [ListInput] {
        var seen: [String: Int] = [:]
        return sources.map { source in
            var source = source
            let count = seen[source.name, default: 0] + 1
            seen[source.name] = count
            if count > 1 { source.name += "#\(count)" }
            return source
        }
    }

    /// The Picket blocklist of a server, fetched now and turned into rules under the policy.
    private static func picket(_ argument: String, context: PicketContext) async throws(ActionError) -> ListInput {
        guard let server = PicketListSource.serverURL(argument) else {
            throw .invalidSource(source: argument, problem: .notAPicketAddress)
        }
        guard let key = context.key else { throw .picketKeyMissing(source: argument) }
        let fetched: PicketListSource.Fetched
        do {
            fetched = try await PicketListSource.fetch(server: server, key: key, lastHash: nil)
        } catch {
            throw .invalidSource(source: argument, problem: .picketFailed("\(error)"))
        }
        guard case .new(let body, _, let hash, _) = fetched else {
            throw .invalidSource(source: argument, problem: .notModifiedOnFirstRequest)
        }
        let text: String
        do {
            text = try PicketListSource.filterList(from: body, policy: context.policy, server: argument).text
        } catch {
            throw .invalidSource(source: argument, problem: .picketFailed("\(error)"))
        }
        return ListInput(
            name: PicketListSource.defaultName(for: argument), location: argument, etag: hash, data: Data(text.utf8), format: .abp)
    }

    private static func download(
        _ address: String, format: FilterListFormat?, progress: ListDownloader.Progress?
    ) async throws(ActionError) -> ListInput {
        guard let url = URL(string: address) else { throw .invalidSource(source: address, problem: .invalidAddress) }
        let name = url.lastPathComponent.isEmpty ? (url.host ?? address) : url.lastPathComponent
        do {
            let outcome = try await ListDownloader(policy: .init(maximumBytes: maximumSize)).fetch(url, progress: progress)
            guard case .downloaded(let data, let headers) = outcome else {
                throw ActionError.invalidSource(source: address, problem: .notModifiedOnFirstRequest)
            }
            return ListInput(name: name, location: address, etag: headers.etag, data: data, format: format)
        } catch let error as ActionError {
            throw error
        } catch {
            throw .invalidSource(source: address, problem: .downloadFailed("\(error)"))
        }
    }
}
