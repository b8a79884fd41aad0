import DNSFilter
import Foundation
import Storage

/// One client group of `pepper dns serve --groups FILE`, checked: its clients by CIDR, the
/// lists that filter them and the domains never blocked for them.
///
/// The file is JSON (docs/dns.md):
///
/// ```json
/// {"groups": [
///   {"name": "kids", "clients": ["192.168.1.64/26"], "lists": ["easylist", "/etc/pepper/extra.txt"],
///    "allowlist": ["school.example"]},
///   {"name": "guests", "clients": ["192.168.2.0/24"], "lists": []}
/// ]}
/// ```
public struct DNSClientGroupSpec: Sendable, Hashable {
    /// Letters, digits, `-` and `_`: it names the group's engine file too.
    public var name: String
    /// The clients, narrowest block first wins across groups.
    public var clients: [CIDRBlock]
    /// The devices, by the name they ask with over DNS over TLS or HTTPS, wherever they are.
    public var devices: [DNSDeviceName]
    /// The lists: names of the state's lists (`pepper lists list`, enabled or not), file paths or
    /// URLs. `nil`: the lists every other client gets (with this group's allowlist added).
    public var lists: [String]?
    /// Domains (and their subdomains) never blocked for the group, besides `pepper allowlist`.
    public var allowlist: [String]

    /// A group with the given fields.
    public init(name: String, clients: [CIDRBlock], devices: [DNSDeviceName] = [], lists: [String]?, allowlist: [String]) {
        self.name = name
        self.clients = clients
        self.devices = devices
        self.lists = lists
        self.allowlist = allowlist
    }

    /// Whether the group is filtered by the default engine itself (the same object, not a copy):
    /// it names no lists of its own and adds nothing to the allowlist. The one test of it, for
    /// the engines a server starts with and those it reloads.
    public var sharesDefaultEngine: Bool { lists == nil && allowlist.isEmpty }

    /// Whether a `lists` entry is a path or URL (read like a SOURCE) rather than a list name.
    public static func isSource(_ entry: String) -> Bool {
        ListSource.isWeb(entry) || entry.contains("/")
    }
}

/// Reads a client-groups file (`pepper dns serve --groups FILE`).
public enum DNSClientGroupsFile {
    private struct File: Decodable {
        var groups: [Group]
    }

    private struct Group: Decodable {
        var name: String
        var clients: [String]?
        var devices: [String]?
        var lists: [String]?
        var allowlist: [String]?
    }

    /// The groups of the file at `path`.
    ///
    /// - Throws: ``ActionError/invalidGroups(path:problem:)`` naming the group and what is wrong.
    public static func load(_ path: String) throws(ActionError) -> [DNSClientGroupSpec] {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .invalidGroups(path: path, problem: .unreadable(error.localizedDescription))
        }
        return try parse(data, path: path)
    }

    /// The groups of the file at `path`, or none without a file.
    public static func load(optional path: String?) throws(ActionError) -> [DNSClientGroupSpec] {
        guard let path else { return [] }
        return try load(path)
    }

    /// The groups in `data`, read from `path`.
    public static func parse(_ data: Data, path: String) throws(ActionError) -> [DNSClientGroupSpec] {
        func fail(_ problem: GroupsFileProblem) -> ActionError { .invalidGroups(path: path, problem: problem) }
        let file: File
        do {
            file = try JSONDecoder().decode(File.self, from: data)
        } catch let error as DecodingError {
            throw fail(Self.describe(error))
        } catch {
            throw fail(.notJSON(error.localizedDescription))
        }
        var names = Set<String>()
        return try file.groups.enumerated().map { (index, group) throws(ActionError) -> DNSClientGroupSpec in
            let name = group.name
            guard !name.isEmpty, name.count <= 64,
                name.unicodeScalars.allSatisfy({ CharacterSet.alphanumerics.contains($0) && $0.isASCII || $0 == "-" || $0 == "_" })
            else {
                throw fail(.invalidName(index: index + 1, name: name))
            }
            guard names.insert(name).inserted else { throw fail(.duplicateName(name)) }
            guard !(group.clients ?? []).isEmpty || !(group.devices ?? []).isEmpty else { throw fail(.noClients(group: name)) }
            let clients = try (group.clients ?? []).map { (text) throws(ActionError) -> CIDRBlock in
                do {
                    return try CIDRBlock(text)
                } catch {
                    throw fail(.invalidClient(group: name, reason: "\(error)"))
                }
            }
            let allowlist = try (group.allowlist ?? []).map { (domain) throws(ActionError) -> String in
                let trimmed = domain.trimmingCharacters(in: .whitespaces).lowercased()
                guard UpstreamAddress.isHostName(trimmed) else {
                    throw fail(.invalidAllowlistEntry(group: name, entry: domain))
                }
                return trimmed
            }
            var devices: [DNSDeviceName] = []
            for text in group.devices ?? [] {
                do throws(DNSDeviceName.Problem) {
                    devices.append(try DNSDeviceName(text))
                } catch {
                    throw fail(.invalidDevice(group: name, reason: error.description))
                }
            }
            return DNSClientGroupSpec(name: name, clients: clients, devices: devices, lists: group.lists, allowlist: allowlist)
        }
    }

    /// A decoding error: where in the file, and what was expected there.
    private static func describe(_ error: DecodingError) -> GroupsFileProblem {
        func path(_ context: DecodingError.Context) -> String {
            var text = ""
            for key in context.codingPath {
                if let index = key.intValue { text += "[\(index + 1)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
            }
            return text.isEmpty ? "the file" : text
        }
        switch error {
        case .keyNotFound(let key, let context):
            return .unexpectedShape(
                at: path(context),
                "\"\(key.stringValue)\" is missing (expected {\"groups\": [{\"name\", \"clients\", \"devices\", \"lists\", \"allowlist\"}]})"
            )
        case .typeMismatch(let type, let context): return .unexpectedShape(at: path(context), "expected \(type)")
        case .valueNotFound(let type, let context): return .unexpectedShape(at: path(context), "expected \(type), found null")
        case .dataCorrupted(let context): return .unexpectedShape(at: path(context), context.debugDescription)
        @unknown default: return .notJSON("\(error)")
        }
    }
}
