import ContentBlocker
import Crypto
import FilterLists
import Foundation

/// The identity of everything a compiled result is made from: each list's name, format,
/// categories (Tracker Radar's, Disconnect's) and bytes, in order; the program that compiles them; and, where the
/// result depends on it, the allowlist.
///
/// Every cache of compiled work keys on it — the incremental compile (``CompileCache``), the
/// saved filter engine (``EngineCache``) and the DNS filter's engines (`DNSEngines`) — so what
/// counts as "the same inputs" is decided once. ``compare(to:)`` says what changed, for logs and
/// tests. (DuckDuckGo's `ContentBlockerRulesIdentifier` is the model.)
public struct InputsIdentity: Sendable, Hashable {
    /// One list, as far as its compiled result is concerned.
    public struct Input: Sendable, Hashable {
        /// The list's name (reports and explanations name it).
        public var name: String
        /// Its format (`auto` when detected from the bytes).
        public var format: String
        /// The categories chosen for it (none for other formats, or the list's default).
        public var categories: [String]
        /// The SHA-256 of its bytes, in hex.
        public var sha256: String
    }

    /// What changed between two identities.
    public enum Difference: Sendable, Hashable, CustomStringConvertible {
        /// Another program compiled it.
        case compiler
        /// A list is there now that was not.
        case added(String)
        /// A list is gone.
        case removed(String)
        /// The lists are the same but in another order (the conversion keeps the first of duplicates).
        case order
        /// A list's bytes changed.
        case bytes(String)
        /// A list's format changed.
        case format(String)
        /// A list's chosen categories changed.
        case categories(String)
        /// The allowlist changed.
        case allowlist

        public var description: String {
            switch self {
            case .compiler: return "another compiler"
            case .added(let name): return "\(name) added"
            case .removed(let name): return "\(name) removed"
            case .order: return "the lists' order"
            case .bytes(let name): return "\(name)'s contents"
            case .format(let name): return "\(name)'s format"
            case .categories(let name): return "\(name)'s categories"
            case .allowlist: return "the allowlist"
            }
        }
    }

    /// The lists, in order.
    public var inputs: [Input]
    /// The program that compiles them (``compilerIdentity``).
    public var compiler: String
    /// The allowlist, sorted, when the result depends on it; `nil` when it is applied later.
    public var allowlist: [String]?

    /// The identity of `lists`; `sha256` gives each list's digest when it is already known.
    public init(lists: [ListInput], sha256: [String]? = nil, allowlist: [String]? = nil, compiler: String = InputsIdentity.compilerIdentity)
    {
        let digests = sha256 ?? lists.map(\.digest)
        precondition(digests.count == lists.count, "one digest per list")
        inputs = zip(lists, digests).map { list, digest in
            Input(name: list.name, format: list.format?.rawValue ?? "auto", categories: list.categories ?? [], sha256: digest)
        }
        self.compiler = compiler
        self.allowlist = allowlist?.sorted()
    }

    /// The identity as one SHA-256 (hex): equal exactly when every part is equal.
    public var digest: String {
        var hasher = SHA256()
        // Each part ends in a byte no text contains, and lists of parts carry their length, so no
        // two different identities run together into the same bytes.
        func add(_ text: String) { hasher.update(data: Array(text.utf8) + [0]) }
        add(compiler)
        add(String(inputs.count))
        for input in inputs {
            add(input.name)
            add(input.format)
            add(String(input.categories.count))
            input.categories.forEach(add)
            add(input.sha256)
        }
        if let allowlist {
            add(String(allowlist.count))
            allowlist.forEach(add)
        } else {
            add("-")
        }
        return hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// What changed from `other` to this identity; empty when they are equal.
    public func compare(to other: InputsIdentity) -> [Difference] {
        var differences: [Difference] = []
        if compiler != other.compiler { differences.append(.compiler) }
        let mine = Dictionary(inputs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        let theirs = Dictionary(other.inputs.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for input in other.inputs where mine[input.name] == nil { differences.append(.removed(input.name)) }
        for input in inputs {
            guard let before = theirs[input.name] else {
                differences.append(.added(input.name))
                continue
            }
            if input.sha256 != before.sha256 { differences.append(.bytes(input.name)) }
            if input.format != before.format { differences.append(.format(input.name)) }
            if input.categories != before.categories { differences.append(.categories(input.name)) }
        }
        let shared = inputs.map(\.name).filter { theirs[$0] != nil }
        if shared != other.inputs.map(\.name).filter({ mine[$0] != nil }) { differences.append(.order) }
        if allowlist != other.allowlist { differences.append(.allowlist) }
        return differences
    }

    /// The program that compiles: its executable's size and modification time. Any change to
    /// the parsing or the conversion is a new build, so no cached result outlives the code that
    /// made it — nothing to remember to bump by hand. The `pepper` beside the running program
    /// is taken when there is one (`pepper-browser` compiles with the same code as the `pepper`
    /// it is installed with, so the two share entries).
    public static let compilerIdentity: String = {
        // A program that cannot tell what it is shares no entry with another process.
        let unknown = "unknown:\(UUID().uuidString)"
        guard let path = Bundle.main.executablePath else { return unknown }
        let sibling = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("pepper").path
        let program = FileManager.default.isExecutableFile(atPath: sibling) ? sibling : path
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: program) else { return unknown }
        let modified = (attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
        return "program:\(attributes[.size] as? Int ?? 0):\(modified)"
    }()
}
