import BlockingWork
import Crypto
import Foundation
import GRDB
import PepperActions
import Storage
import UTCTime

/// How far a backup or a restore is, for a progress line.
public struct BackupProgress: Sendable, Hashable {
    /// The file being written or read (an entry's path).
    public var entry: String
    /// Payload bytes done.
    public var done: Int64
    /// Payload bytes in all.
    public var total: Int64
}

/// What a restore did.
public struct RestoreOutcome: Sendable {
    /// The backup's manifest.
    public var manifest: BackupManifest
    /// Where the home that was replaced is kept (`--replace`), if there was one.
    public var previousHome: URL?
    /// The compiled output of the restored home; `nil` when compiling failed (see
    /// ``rebuildProblem``).
    public var rebuild: RebuildOutcome?
    /// Why compiling the restored home failed; the restored state is in place all the same.
    public var rebuildProblem: String?
    /// Whether a passphrase was given for a backup that is not encrypted: it was not needed,
    /// which the person may want to know (they may have believed the file protected).
    public var passphraseNotNeeded = false
}

/// Backup and restore of a home (`docs/sync.md`, "Backup and restore"): the command line calls
/// these, and the console and the app can call the same.
///
/// A backup holds the database, copied with SQLite's online backup from the state's own pool
/// (one read transaction: a consistent copy while servers keep writing), the downloaded list
/// copies (`lists/`) and the uploaded lists (`uploads/`), with a manifest of their sizes and
/// SHA-256. Left out: what is rebuilt (`out/`, engines, caches), what belongs to the running
/// machine (`run/`, locks, the browser's compiled filters, the app's extension files) and the
/// console's sessions (a restored home asks to sign in again).
public enum BackupActions {
    /// Backs up the home of `state` to `file`, encrypted with `passphrase` when one is given.
    ///
    /// The file is written beside `file` under a temporary name and renamed when complete, so an
    /// interrupted backup leaves no partial file under `file`.
    public static func create(
        state: PepperState, to file: URL, passphrase: Data?, pepperVersion: String,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws(BackupError) -> BackupManifest {
        try await create(
            database: state.database.writer, home: state.home, to: file, passphrase: passphrase, pepperVersion: pepperVersion,
            progress: progress)
    }

    /// Backs up `home` with its database read through `database`: for a state not opened by a
    /// ``PepperState`` (an older Pepper's database as it was, which opening would migrate).
    public static func create(
        database: any DatabaseReader, home: PepperHome, to file: URL, passphrase: Data?, pepperVersion: String,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws(BackupError) -> BackupManifest {
        try await LongBlockingWork.run { () throws(BackupError) -> BackupManifest in
            try createNow(
                database: database, home: home, to: file, passphrase: passphrase, pepperVersion: pepperVersion, progress: progress)
        }
    }

    /// Restores the backup `file` into `home`.
    ///
    /// Everything is checked before the home is touched: the format, the passphrase, every
    /// entry's size and SHA-256, the end of the file, and the database (migrated to this Pepper's
    /// schema, its sync numbering started again) in a folder beside the home. Only then is the
    /// folder put in place; with `replace`, a home that holds files is first renamed
    /// `NAME.replaced-TIME` beside itself. The restored home is compiled at once.
    ///
    /// - Throws: ``BackupError/homeNotEmpty(path:)`` when `home` holds files and `replace` is
    ///   false; any other ``BackupError`` when the file cannot be restored (the home unchanged).
    public static func restore(
        from file: URL, into home: PepperHome, passphrase: Data?, replace: Bool,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws(BackupError) -> RestoreOutcome {
        let (manifest, previous) = try await LongBlockingWork.run { () throws(BackupError) -> (BackupManifest, URL?) in
            try restoreNow(from: file, into: home, passphrase: passphrase, replace: replace, progress: progress)
        }
        var outcome = RestoreOutcome(manifest: manifest, previousHome: previous)
        outcome.passphraseNotNeeded = passphrase != nil && (try? isEncrypted(file)) == false
        do {
            let state = try PepperState(home: home)
            outcome.rebuild = try await state.rebuild()
        } catch {
            outcome.rebuildProblem = "\(error)"
        }
        return outcome
    }

    /// Restores the backup `file` into the home of `state`, which stays open: for a face that
    /// holds the state while it runs (the console, the app), whose database connections a
    /// folder moved into place would leave on the replaced files.
    ///
    /// The same checks as ``restore(from:into:passphrase:replace:progress:)`` come first, in a
    /// folder beside the home. Then, holding the home's build lock: the state as it is is kept in
    /// `NAME.replaced-TIME` beside the home (a copy of the database through SQLite's online
    /// backup, and its `lists/` and `uploads/` moved there), the restored `lists/` and `uploads/`
    /// take their place, and the restored database is copied into the open one through SQLite's
    /// online backup, in one write transaction: every connection to it, this process's and other
    /// processes' (a running `pepper dns serve`), reads the old state or the restored one, never
    /// a mix. Compiled output, engines, caches and `run/` stay: the restored home is compiled at
    /// once, and servers that follow the output take it up.
    ///
    /// The console's sessions are not in a backup: the restored database has none. A face that
    /// keeps someone signed in stores their session again.
    ///
    /// The home's sync state must not be held in memory meanwhile: a process that holds it
    /// (`sync.lock`: a console that serves sync to devices, `pepper sync follow`) would write the
    /// replaced replica back over the restored one. The lock is taken for the whole restore, and
    /// the restore is refused when another holds it.
    ///
    /// - Throws: ``BackupError/syncInUse`` when the home's sync state is held;
    ///   any other ``BackupError`` when the file cannot be restored. The state is then as it was.
    public static func restore(
        from file: URL, into state: PepperState, passphrase: Data?,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async throws(BackupError) -> RestoreOutcome {
        let home = state.home
        // The lock `HomeSync` and `SyncServer` hold while they keep the replica in memory.
        let syncLockPath = home.syncLockURL.path
        func takeSyncLock() throws(BackupError) -> FileLock {
            do {
                return try FileLock(path: syncLockPath, wait: false)
            } catch {
                throw .syncInUse
            }
        }
        // Refused before the long checks when a process holds it (the file exists then); let go
        // at once, so a refused restore leaves no file behind.
        if FileManager.default.fileExists(atPath: syncLockPath) { _ = try takeSyncLock() }
        let (staging, manifest) = try await LongBlockingWork.run { () throws(BackupError) -> (URL, BackupManifest) in
            try stage(file, home: home, passphrase: passphrase, progress: progress)
        }
        defer { try? FileManager.default.removeItem(at: staging) }
        // Held from here to the end: no process loads the replica while it is replaced.
        let syncLock = try takeSyncLock()
        defer { withExtendedLifetime(syncLock) {} }
        let previous: URL
        do {
            previous = try await state.withBuildLock { () throws -> URL in try replaceInPlace(state, with: staging) }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .io("cannot replace the state of \(home.url.path): \(error)")
        }
        var outcome = RestoreOutcome(manifest: manifest, previousHome: previous)
        outcome.passphraseNotNeeded = passphrase != nil && (try? isEncrypted(file)) == false
        do {
            outcome.rebuild = try await state.rebuild()
        } catch {
            outcome.rebuildProblem = "\(error)"
        }
        return outcome
    }

    /// Why a backup form cannot go on: its two passphrase fields differ.
    public struct PassphraseMismatch: Error, Sendable, Hashable {
        /// The sentence shown under the passphrase fields.
        public var text = "The two passphrases differ: type the same one twice."

        /// The mismatch's one sentence.
        public init() {}
    }

    /// The passphrase a backup is encrypted with, from a form's two fields (the console's and the
    /// app's): `nil` when both are empty (an unencrypted file).
    ///
    /// - Throws: ``PassphraseMismatch`` when the two fields differ.
    public static func chosenPassphrase(_ passphrase: String, again: String) throws(PassphraseMismatch) -> Data? {
        guard passphrase == again else { throw PassphraseMismatch() }
        return passphrase.isEmpty ? nil : Data(passphrase.utf8)
    }

    /// The name a backup made at `date` is offered under: `pepper-backup-20260512-1430.pepperbackup`
    /// (UTC), so that backups sort by time.
    public static func suggestedFileName(at date: Date = Date()) -> String {
        let stamp = UTCDateTime(truncating: date).map { $0.dayText.filter { $0 != "-" } + "-" + $0.minuteText.filter { $0 != ":" } }
        return "pepper-backup-\(stamp ?? "undated").\(BackupFormat.fileExtension)"
    }

    /// Whether `file` is an encrypted backup (read from its header), so a face asks for the
    /// passphrase only when needed.
    public static func isEncrypted(_ file: URL) throws(BackupError) -> Bool {
        try BackupFileReader.isEncrypted(file)
    }

    // MARK: Creating

    private static func createNow(
        database: any DatabaseReader, home: PepperHome, to file: URL, passphrase: Data?, pepperVersion: String,
        progress: (BackupProgress) -> Void
    ) throws(BackupError) -> BackupManifest {
        let fileManager = FileManager.default
        let folder = file.deletingLastPathComponent()
        let partial = folder.appendingPathComponent(".\(file.lastPathComponent).partial-\(UUID().uuidString.prefix(8))")
        let snapshot = folder.appendingPathComponent(".\(file.lastPathComponent).database-\(UUID().uuidString.prefix(8))")
        defer {
            try? fileManager.removeItem(at: partial)
            try? fileManager.removeItem(at: snapshot)
        }
        let stateSchema: Int
        do {
            stateSchema = try snapshotDatabase(database, to: snapshot)
        } catch {
            throw .io("cannot copy the database with SQLite's online backup to \(snapshot.path): \(error)")
        }
        // Each file is opened once: the hashes and the bytes written come from the same open
        // file, even if an update renames a new copy into place meanwhile.
        var sources: [(path: String, handle: FileHandle)] = []
        defer { for source in sources { try? source.handle.close() } }
        do {
            sources.append((BackupFormat.databaseEntry, try FileHandle(forReadingFrom: snapshot)))
            for (path, url) in try homeFiles(home, database: snapshot) {
                sources.append((path, try FileHandle(forReadingFrom: url)))
            }
        } catch {
            throw .io("cannot read the home \(home.url.path): \(error)")
        }
        var entries: [BackupManifest.Entry] = []
        do {
            for source in sources {
                var hash = SHA256()
                var size: Int64 = 0
                while let chunk = try source.handle.read(upToCount: 1 << 20), !chunk.isEmpty {
                    hash.update(data: chunk)
                    size += Int64(chunk.count)
                }
                entries.append(.init(path: source.path, size: size, sha256: hex(hash.finalize())))
            }
        } catch {
            throw .io("cannot read the home \(home.url.path): \(error)")
        }
        let manifest = BackupManifest(
            format: BackupFormat.version, pepperVersion: pepperVersion, stateSchema: stateSchema, createdAt: Date(),
            home: home.url.path, entries: entries)
        let key: BackupKey?
        do {
            key = try passphrase.map { try BackupKey.new(passphrase: $0) }
        } catch {
            throw .io("cannot derive a key from the passphrase: \(error)")
        }
        do {
            guard fileManager.createFile(atPath: partial.path, contents: nil) else {
                throw BackupError.io("cannot create \(partial.path)")
            }
            let output = try FileHandle(forWritingTo: partial)
            defer { try? output.close() }
            let writer = try BackupFileWriter(handle: output, key: key)
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
            encoder.dateEncodingStrategy = .internetDateTime
            let manifestData = try encoder.encode(manifest)
            var length = UInt32(manifestData.count).bigEndian
            try writer.write(Data(bytes: &length, count: 4))
            try writer.write(manifestData)
            let total = entries.reduce(0) { $0 + $1.size }
            var done: Int64 = 0
            for (source, entry) in zip(sources, entries) {
                try source.handle.seek(toOffset: 0)
                var left = entry.size
                while left > 0 {
                    guard let chunk = try source.handle.read(upToCount: Int(min(1 << 20, left))), !chunk.isEmpty else {
                        throw BackupError.io("\(entry.path) became shorter while it was backed up")
                    }
                    try writer.write(chunk)
                    left -= Int64(chunk.count)
                    done += Int64(chunk.count)
                    progress(BackupProgress(entry: entry.path, done: done, total: total))
                }
            }
            try writer.finish()
            try output.synchronize()
            try output.close()
            // rename(2): one step that also replaces an older FILE (FileManager's replaceItemAt
            // fails on Linux for two names in one folder).
            guard rename(partial.path, file.path) == 0 else {
                throw BackupError.io("cannot rename \(partial.path) to \(file.path): \(String(cString: strerror(errno)))")
            }
        } catch let error as BackupError {
            throw error
        } catch {
            throw .io("cannot write \(file.path): \(error)")
        }
        return manifest
    }

    /// Copies the database through SQLite's online backup (one read transaction of the live
    /// pool), then drops the console's sessions from the copy.
    ///
    /// - Returns: The copy's state schema (the migrations it had).
    private static func snapshotDatabase(_ database: any DatabaseReader, to url: URL) throws -> Int {
        let copy = try DatabaseQueue(path: url.path)
        try database.backup(to: copy)
        let schema = try copy.write { db -> Int in
            if try db.tableExists("consoleSession") { try db.execute(sql: "DELETE FROM consoleSession") }
            guard try db.tableExists("grdb_migrations") else { return 0 }
            return try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") ?? 0
        }
        // One file: the copy leaves write-ahead logging, so no -wal file is needed beside it.
        try copy.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "VACUUM")
        }
        try copy.close()
        return schema
    }

    /// The files of the home that a backup holds besides the database: the list copies (a copy
    /// committed but not yet renamed into place is taken under its final name) and the uploaded
    /// lists. Sorted, so two backups of one home list them in the same order.
    private static func homeFiles(_ home: PepperHome, database: URL) throws -> [(String, URL)] {
        let fileManager = FileManager.default
        var files: [(String, URL)] = []
        let listNames = (try? fileManager.contentsOfDirectory(atPath: home.listsURL.path)) ?? []
        var sha256ByName: [String: String] = [:]
        let queue = try DatabaseQueue(path: database.path, configuration: readOnly())
        try queue.read { db in
            guard try db.tableExists("listSource") else { return }
            for row in try Row.fetchAll(db, sql: "SELECT name, sha256 FROM listSource WHERE sha256 IS NOT NULL") {
                sha256ByName[row["name"]] = row["sha256"]
            }
        }
        try queue.close()
        var taken: Set<String> = []
        for name in listNames.sorted() where name.hasPrefix(".") && name.hasSuffix(".pending") {
            let list = String(name.dropFirst().dropLast(".pending".count))
            let url = home.listsURL.appendingPathComponent(name)
            guard let expected = sha256ByName[list], let data = try? Data(contentsOf: url), hex(SHA256.hash(data: data)) == expected else {
                continue
            }
            files.append(("lists/\(list)", url))
            taken.insert(list)
        }
        for name in listNames.sorted() where !name.hasSuffix(".pending") && !taken.contains(name) {
            let url = home.listsURL.appendingPathComponent(name)
            if isRegularFile(url) { files.append(("lists/\(name)", url)) }
        }
        let uploads = home.url.appendingPathComponent("uploads", isDirectory: true)
        if let walker = fileManager.enumerator(at: uploads, includingPropertiesForKeys: [.isRegularFileKey]) {
            var found: [(String, URL)] = []
            for case let url as URL in walker {
                let relative = String(url.standardizedFileURL.path.dropFirst(uploads.standardizedFileURL.path.count + 1))
                // `incoming/`: files the app is still importing, not yet lists.
                if relative.hasPrefix("incoming/") || relative == "incoming" { continue }
                if isRegularFile(url) { found.append(("uploads/\(relative)", url)) }
            }
            files += found.sorted { $0.0 < $1.0 }
        }
        return files.sorted { $0.0 < $1.0 }
    }

    // MARK: Restoring

    private static func restoreNow(
        from file: URL, into home: PepperHome, passphrase: Data?, replace: Bool, progress: (BackupProgress) -> Void
    ) throws(BackupError) -> (BackupManifest, URL?) {
        let fileManager = FileManager.default
        let occupied = !((try? fileManager.contentsOfDirectory(atPath: home.url.path)) ?? []).isEmpty
        if occupied && !replace { throw .homeNotEmpty(path: home.url.path) }
        let (staging, manifest) = try stage(file, home: home, passphrase: passphrase, progress: progress)
        var placed = false
        defer { if !placed { try? fileManager.removeItem(at: staging) } }

        // Everything checked: the folder takes the home's place.
        var previous: URL?
        do {
            if occupied {
                let aside = asideURL(home)
                try fileManager.moveItem(at: home.url, to: aside)
                previous = aside
            } else if fileManager.fileExists(atPath: home.url.path) {
                try fileManager.removeItem(at: home.url)
            }
            do {
                try fileManager.moveItem(at: staging, to: home.url)
            } catch {
                if let previous { try? fileManager.moveItem(at: previous, to: home.url) }
                throw error
            }
            placed = true
        } catch {
            throw .io("cannot put the restored home in place at \(home.url.path): \(error)")
        }
        return (manifest, previous)
    }

    /// Reads and checks the backup `file` into a new folder beside `home` (every entry, the end
    /// of the file, the database opened and migrated: ``prepareDatabase(in:manifest:home:)``).
    /// Nothing of the home is touched; the folder is removed when this throws.
    private static func stage(
        _ file: URL, home: PepperHome, passphrase: Data?, progress: (BackupProgress) -> Void
    ) throws(BackupError) -> (URL, BackupManifest) {
        let fileManager = FileManager.default
        let reader = try BackupFileReader(url: file, passphrase: passphrase)
        let parent = home.url.deletingLastPathComponent()
        let staging = parent.appendingPathComponent(".\(home.url.lastPathComponent).restoring-\(UUID().uuidString.prefix(8))")
        do {
            try fileManager.createDirectory(at: staging, withIntermediateDirectories: true)
        } catch {
            throw .io("cannot create \(staging.path): \(error)")
        }
        do throws(BackupError) {
            let manifest = try readEntries(reader, into: staging, path: file.path, progress: progress)
            try prepareDatabase(in: staging, manifest: manifest, home: home)
            return (staging, manifest)
        } catch {
            try? fileManager.removeItem(at: staging)
            throw error
        }
    }

    /// Where a replaced home is kept: `NAME.replaced-20261128T133724Z` beside it (sorts by time;
    /// no colon, which is awkward in a folder name).
    private static func asideURL(_ home: PepperHome) -> URL {
        let stamp = UTCDateTime.internetText(Date()).filter { $0 != "-" && $0 != ":" }
        let base = "\(home.url.lastPathComponent).replaced-\(stamp)"
        let parent = home.url.deletingLastPathComponent()
        // Two restores in one second: the second gets `-2`.
        var url = parent.appendingPathComponent(base)
        var count = 1
        while FileManager.default.fileExists(atPath: url.path) {
            count += 1
            url = parent.appendingPathComponent("\(base)-\(count)")
        }
        return url
    }

    /// The state of an open home replaced by the checked one in `staging`, under the build lock
    /// (see ``restore(from:into:passphrase:progress:)``).
    ///
    /// - Returns: The folder the state it replaced is kept in.
    private static func replaceInPlace(_ state: PepperState, with staging: URL) throws(BackupError) -> URL {
        let fileManager = FileManager.default
        let home = state.home
        let aside = asideURL(home)
        let folders = ["lists", "uploads"]
        // The state as it is, kept aside first: when that fails, nothing has changed.
        do {
            try fileManager.createDirectory(at: aside, withIntermediateDirectories: false)
            let copy = try DatabaseQueue(path: aside.appendingPathComponent(BackupFormat.databaseEntry).path)
            try state.database.writer.backup(to: copy)
            try copy.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try copy.close()
        } catch {
            try? fileManager.removeItem(at: aside)
            throw .io("cannot keep the current state aside in \(aside.path): \(error)")
        }
        // The folders swapped: the current ones aside, the restored ones in (an empty `lists/`
        // when the backup has no list copies).
        var moved: [String] = []
        func undoFolders() {
            for name in moved.reversed() {
                let url = home.url.appendingPathComponent(name)
                try? fileManager.moveItem(at: url, to: staging.appendingPathComponent(name))
                try? fileManager.moveItem(at: aside.appendingPathComponent(name), to: url)
            }
        }
        // The aside folder goes once it holds only the database's copy (the folders went back);
        // anything else in it is the person's and stays.
        func discardAside() {
            let left = (try? fileManager.contentsOfDirectory(atPath: aside.path)) ?? []
            if left.allSatisfy({ $0.hasPrefix(BackupFormat.databaseEntry) }) { try? fileManager.removeItem(at: aside) }
        }
        do {
            for name in folders {
                let current = home.url.appendingPathComponent(name)
                let restored = staging.appendingPathComponent(name)
                if fileManager.fileExists(atPath: current.path) {
                    try fileManager.moveItem(at: current, to: aside.appendingPathComponent(name))
                }
                moved.append(name)
                if fileManager.fileExists(atPath: restored.path) {
                    try fileManager.moveItem(at: restored, to: current)
                } else if name == "lists" {
                    try fileManager.createDirectory(at: current, withIntermediateDirectories: true)
                }
            }
        } catch {
            undoFolders()
            discardAside()
            throw .io("cannot put the restored lists in place in \(home.url.path): \(error)")
        }
        // The database last, in one write transaction of the open pool.
        do {
            let restored = try DatabaseQueue(path: staging.appendingPathComponent(BackupFormat.databaseEntry).path)
            defer { try? restored.close() }
            // SQLite copies into a database in WAL mode only between equal page sizes: a backup
            // made with another one is rewritten with the open database's first.
            let pageSize = try state.database.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") ?? 4096 }
            if try restored.read({ db in try Int.fetchOne(db, sql: "PRAGMA page_size") }) != pageSize {
                try restored.writeWithoutTransaction { db in
                    try db.execute(sql: "PRAGMA journal_mode = DELETE")
                    try db.execute(sql: "PRAGMA page_size = \(pageSize)")
                    try db.execute(sql: "VACUUM")
                }
            }
            try restored.backup(to: state.database.writer)
        } catch {
            undoFolders()
            discardAside()
            throw .io("cannot copy the restored database into \(home.databaseURL.path): \(error)")
        }
        return aside
    }

    /// Reads the manifest and every entry into `staging`, checking sizes, digests and the file's
    /// end.
    private static func readEntries(
        _ reader: BackupFileReader, into staging: URL, path: String, progress: (BackupProgress) -> Void
    ) throws(BackupError) -> BackupManifest {
        let lengthBytes = try reader.read(4)
        let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
        guard length > 0, length <= BackupFormat.maximumManifestBytes else { throw .damaged("its manifest has a wrong length") }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .internetDateTime
        let manifest: BackupManifest
        do {
            manifest = try decoder.decode(BackupManifest.self, from: try reader.read(length))
        } catch let error as BackupError {
            throw error
        } catch {
            throw .damaged("its manifest does not read: \(error)")
        }
        guard manifest.format <= BackupFormat.version else { throw .newerFormat(found: manifest.format, known: BackupFormat.version) }
        var seen: Set<String> = []
        for entry in manifest.entries {
            guard BackupManifest.isAllowed(entry.path), entry.size >= 0, seen.insert(entry.path).inserted else {
                throw .damaged("its manifest names an entry Pepper does not restore: \(entry.path)")
            }
        }
        guard seen.contains(BackupFormat.databaseEntry) else { throw .damaged("it holds no \(BackupFormat.databaseEntry)") }
        let total = manifest.entries.reduce(0) { $0 + $1.size }
        var done: Int64 = 0
        for entry in manifest.entries {
            let url = staging.appendingPathComponent(entry.path)
            do {
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
                    throw BackupError.io("cannot create \(url.path)")
                }
                let output = try FileHandle(forWritingTo: url)
                defer { try? output.close() }
                var hash = SHA256()
                var left = entry.size
                while left > 0 {
                    let chunk = try reader.read(Int(min(1 << 20, left)))
                    hash.update(data: chunk)
                    try output.write(contentsOf: chunk)
                    left -= Int64(chunk.count)
                    done += Int64(chunk.count)
                    progress(BackupProgress(entry: entry.path, done: done, total: total))
                }
                guard hex(hash.finalize()) == entry.sha256 else {
                    throw BackupError.damaged("\(entry.path) does not have the SHA-256 its manifest gives")
                }
                try output.synchronize()
            } catch let error as BackupError {
                throw error
            } catch {
                throw .io("cannot write \(url.path): \(error)")
            }
        }
        try reader.finish()
        return manifest
    }

    /// Opens the restored database in `staging`: runs the migrations it lacks (a backup of an
    /// older Pepper), moves the paths of uploaded lists to the new home, and starts the sync
    /// replica's numbering again (`docs/sync.md`: followers must not take the restored home's
    /// next numbers for ones they already saw).
    private static func prepareDatabase(in staging: URL, manifest: BackupManifest, home: PepperHome) throws(BackupError) {
        do {
            let database = try PepperDatabase(url: staging.appendingPathComponent(BackupFormat.databaseEntry))
            let oldUploads = URL(fileURLWithPath: manifest.home).appendingPathComponent("uploads").path + "/"
            let newUploads = home.url.appendingPathComponent("uploads").path + "/"
            if oldUploads != newUploads {
                try database.write { db in
                    try db.execute(
                        sql:
                            "UPDATE listSource SET location = ? || substr(location, length(?) + 1) WHERE substr(location, 1, length(?)) = ?",
                        arguments: [newUploads, oldUploads, oldUploads, oldUploads])
                }
            }
            try SyncStore(database: database).renumber()
            try database.writer.close()
        } catch let error as PepperDatabaseError {
            throw .unusableState(error.description)
        } catch {
            throw .unusableState("\(error)")
        }
    }

    // MARK: Helpers

    private static func readOnly() -> Configuration {
        var configuration = Configuration()
        configuration.readonly = true
        return configuration
    }

    private static func isRegularFile(_ url: URL) -> Bool {
        (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
    }

    private static func hex<D: Sequence>(_ digest: D) -> String where D.Element == UInt8 {
        digest.map { String(format: "%02x", $0) }.joined()
    }
}
