import Foundation
import ListSync
import Picket
import Storage

/// What the extensions' ``PicketDNSGate`` is made of — the struck employers' matchers, the
/// policy and the allowlist — read from the shared state and kept in memory, so that a query or
/// a flow never reads the database.
///
/// ``gate(clock:)`` looks at the files' sizes and dates first and reads again only what changed:
/// the allowlist and the policy when the database changed (a commit changes the write-ahead
/// log's size or date, or the file's after a checkpoint), the matchers when the Picket lists
/// did. Both network extensions (the packet tunnel and the content filter) use it.
public struct PicketGateInputs: Sendable {
    private let container: AppGroupContainer
    private var database: PepperDatabase?
    private var index = PicketDNSGate.open.index
    private var allowlist = AllowlistSnapshot(entries: [])
    private var databaseStamp: [FileStamp?] = []
    private var picketStamp: PicketInputs?
    /// How often the struck employers' matchers were built (the costliest read).
    public private(set) var blocklistReads = 0
    /// How often the allowlist was read from the database.
    public private(set) var allowlistReads = 0

    /// The inputs of the shared state in `container`, not read yet.
    public init(container: AppGroupContainer) {
        self.container = container
    }

    /// The inputs of the shared state in `container`, read through `database` (a process that
    /// writes the state too opens it once: one connection pool per file per process).
    public init(container: AppGroupContainer, database: PepperDatabase) {
        self.container = container
        self.database = database
    }

    /// The gate as the shared state stands now, reading only what changed since the last call.
    /// Without a readable state (the app never ran) every name is let through, and the next
    /// call tries again.
    public mutating func gate(clock: @escaping @Sendable () -> Date) -> PicketDNSGate {
        do {
            let database = try self.database ?? PepperDatabase(readingOnly: container.databaseURL)
            self.database = database
            let stamp = [FileStamp(container.databaseURL), FileStamp(URL(fileURLWithPath: container.databaseURL.path + "-wal"))]
            var picket = picketStamp
            if stamp != databaseStamp {
                allowlist = try AllowlistStore(database: database).snapshot()
                allowlistReads += 1
                picket = try PicketInputs(home: container.home, database: database)
                databaseStamp = stamp
            } else if let known = picketStamp {
                picket = known.restamped(home: container.home)
            }
            if picket != picketStamp {
                index = try PicketBlocklistIndex.load(home: container.home, database: database)
                blocklistReads += 1
                picketStamp = picket
            }
            let allowlist = self.allowlist
            return PicketDNSGate(index: index) { host in allowlist.covers(host, at: clock()) }
        } catch {
            databaseStamp = []
            picketStamp = nil
            return .open
        }
    }
}

/// A file's size and modification date: changed when the file is written.
struct FileStamp: Hashable, Sendable {
    let size: Int
    let modified: Date

    /// The stamp of the file at `url`, or `nil` when there is none.
    init?(_ url: URL) {
        guard let values = try? FileManager.default.attributesOfItem(atPath: url.path),
            let size = values[.size] as? Int, let modified = values[.modificationDate] as? Date
        else { return nil }
        self.size = size
        self.modified = modified
    }
}

/// What the struck employers' matchers are built from: the policy, the enabled Picket sources,
/// and their stored lists' stamps.
struct PicketInputs: Hashable, Sendable {
    let policy: PicketPolicy
    let sources: [String]
    let stamps: [FileStamp?]

    /// The inputs as the database and the files say now.
    init(home: PepperHome, database: PepperDatabase) throws {
        policy = try PicketPolicyStore(database: database).policy()
        sources = try ListSourceStore(database: database).enabled().filter { $0.format == PicketListSource.format }.map(\.name)
        stamps = Self.stamps(home: home, sources: sources)
    }

    private init(policy: PicketPolicy, sources: [String], stamps: [FileStamp?]) {
        self.policy = policy
        self.sources = sources
        self.stamps = stamps
    }

    /// The same policy and sources, with their files' stamps as they are now.
    func restamped(home: PepperHome) -> PicketInputs {
        PicketInputs(policy: policy, sources: sources, stamps: Self.stamps(home: home, sources: sources))
    }

    private static func stamps(home: PepperHome, sources: [String]) -> [FileStamp?] {
        sources.flatMap { name in
            [FileStamp(home.listsURL.appendingPathComponent(name)), FileStamp(PicketListSource.strikesURL(home: home, name: name))]
        }
    }
}
