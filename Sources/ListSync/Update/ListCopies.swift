import ContentBlocker
import Foundation
import Storage

/// The downloaded copy of each list (`lists/NAME`), kept in step with its record in the
/// database (its digest, ETag and time of the last success).
///
/// A file and a database row cannot change in one step, so the database's commit decides: a new
/// copy is first written beside the old one (`lists/.NAME.pending`, flushed to disk), then its
/// record is committed, then the copy takes the old one's place with one `rename`. A process
/// killed before the commit leaves the old copy with the old record (and a pending file that
/// nothing reads, replaced by the next download); killed after it, the record names the pending copy, which
/// ``read(_:home:)`` returns and the next update puts in place (``settle(_:home:)``). Either way
/// the copy Pepper uses is the one its record describes.
public enum ListCopies {
    /// `lists/NAME`: the copy in use.
    public static func url(_ name: String, home: PepperHome) -> URL {
        home.listsURL.appendingPathComponent(name)
    }

    /// `lists/.NAME.pending`: a new copy whose record may not be committed yet.
    static func pendingURL(_ name: String, home: PepperHome) -> URL {
        home.listsURL.appendingPathComponent(".\(name).pending")
    }

    /// The copy of `source` that its record describes: `lists/NAME`, or the pending copy when
    /// its record was committed by a process that did not live to put it in place. `nil` when
    /// there is no copy yet.
    public static func read(_ source: ListSource, home: PepperHome) -> Data? {
        if let pending = committedPendingCopy(source, home: home) { return pending }
        return try? Data(contentsOf: url(source.name, home: home))
    }

    /// The pending copy, when there is one and it is the one the record names (only after a
    /// kill between the commit and the move); the usual case costs one failed open.
    private static func committedPendingCopy(_ source: ListSource, home: PepperHome) -> Data? {
        guard let expected = source.sha256, let pending = try? Data(contentsOf: pendingURL(source.name, home: home)),
            ContentBlockerOutput.SourceIdentity.sha256Hex(pending) == expected
        else { return nil }
        return pending
    }

    /// ``read(_:home:)`` with the copy's SHA-256 (hex). The digest of a copy whose file is
    /// unchanged since this process last hashed it (same inode, size and modification time: a
    /// new copy always arrives by `rename`, so as a new inode) is not computed again: the Start
    /// page asks whether the output is current on every view, and hashing 3 MB of lists cost
    /// it 2 ms each time.
    static func readWithDigest(_ source: ListSource, home: PepperHome) -> (data: Data, sha256: String)? {
        if let pending = committedPendingCopy(source, home: home), let expected = source.sha256 { return (pending, expected) }
        let file = url(source.name, home: home)
        let before = FileFingerprint(file)
        guard let data = try? Data(contentsOf: file) else { return nil }
        // A file replaced or changed while it was read: hash what was read, remember nothing.
        guard let before, before == FileFingerprint(file), data.count == before.size else {
            return (data, ContentBlockerOutput.SourceIdentity.sha256Hex(data))
        }
        if let known = digests.digest(of: file.path, fingerprint: before) { return (data, known) }
        let digest = ContentBlockerOutput.SourceIdentity.sha256Hex(data)
        digests.remember(digest, of: file.path, fingerprint: before)
        return (data, digest)
    }

    /// The digests ``readWithDigest(_:home:)`` computed.
    private static let digests = KnownDigests()

    /// Stores `data` as the copy of `name`: written beside the old copy, then `record` commits
    /// its record, then the new copy replaces the old one. When writing or `record` fails,
    /// the old copy and its record stay as they were and the error is rethrown.
    static func store(_ data: Data, name: String, home: PepperHome, record: () throws -> Void) throws {
        let pending = pendingURL(name, home: home)
        try AtomicFile.write(data, to: pending)
        do {
            try record()
        } catch {
            unlink(pending.path)
            throw error
        }
        // The record is committed: from here on the new copy is the one in use. Were this
        // rename to fail, readers would still find it as the pending copy.
        try AtomicFile.rename(pending, to: url(name, home: home))
    }

    /// Finishes what a killed update left: a pending copy whose record names it takes its
    /// place. Any other pending copy is left alone (another process may be about to commit
    /// it); the next copy stored for that list replaces it.
    public static func settle(_ sources: [ListSource], home: PepperHome) {
        for source in sources {
            let pending = pendingURL(source.name, home: home)
            guard let expected = source.sha256, let data = try? Data(contentsOf: pending),
                ContentBlockerOutput.SourceIdentity.sha256Hex(data) == expected
            else { continue }
            try? AtomicFile.rename(pending, to: url(source.name, home: home))
        }
    }

    /// Removes the copy of `name` and any pending one (a list that is removed).
    public static func remove(_ name: String, home: PepperHome) {
        unlink(url(name, home: home).path)
        unlink(pendingURL(name, home: home).path)
    }
}

/// What identifies a file's contents without reading them: its inode, size and modification time.
struct FileFingerprint: Equatable, Sendable {
    var inode: UInt64
    var size: Int
    var modified: Date

    init?(_ url: URL) {
        guard let attributes = try? FileManager.default.attributesOfItem(atPath: url.path),
            let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value,
            let size = (attributes[.size] as? NSNumber)?.intValue, let modified = attributes[.modificationDate] as? Date
        else { return nil }
        self.inode = inode
        self.size = size
        self.modified = modified
    }
}

/// Digests of files by path, each with the fingerprint of the file it was computed from.
/// (`NSLock` rather than `Mutex`: this module also builds for iOS 17.)
private final class KnownDigests: @unchecked Sendable {
    private let lock = NSLock()
    private var known: [String: (fingerprint: FileFingerprint, sha256: String)] = [:]

    func digest(of path: String, fingerprint: FileFingerprint) -> String? {
        lock.withLock { known[path].flatMap { $0.fingerprint == fingerprint ? $0.sha256 : nil } }
    }

    func remember(_ sha256: String, of path: String, fingerprint: FileFingerprint) {
        lock.withLock { known[path] = (fingerprint, sha256) }
    }
}
