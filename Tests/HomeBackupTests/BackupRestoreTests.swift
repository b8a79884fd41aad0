import Crypto
import DeviceSync
import Foundation
import GRDB
import HomeBackup
import PepperActions
import PepperTestSupport
import Storage
import Testing
import UTCTime

/// Backup and restore through the actions, with real SQLite files and a list served over HTTP.
@Suite struct BackupRestoreTests {
    static let listA = "||ads.backup.test^\n||tracker.backup.test^\n"

    /// A home with one of each decision a backup must keep, and a console session and sync replica.
    struct Source {
        let home: URL
        let server: ListServer
        let numbering: String
    }

    static func makeSource() async throws -> Source {
        let server = try ListServer(routes: ["/a.txt": .init(body: listA, etag: true)])
        let home = TestPaths.temporaryDirectory("backup-source")
        let state = try PepperState(home: PepperHome(url: home))
        // Only the local list: the built-in ones would be downloaded from the internet.
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        _ = try await state.addList(ListRequest(source: server.url("/a.txt"), name: "a"), rebuild: false)
        _ = try await state.addUploadedList(Data("||uploaded.backup.test^\n".utf8), fileName: "mine.txt", name: "mine", rebuild: false)
        _ = try await state.addAllowlist("forever.backup.test", rebuild: false)
        _ = try await state.addAllowlist("soon.backup.test", for: 3600, rebuild: false)
        _ = try await state.addRule("||rule.backup.test^", rebuild: false)
        _ = try state.blockNumber("+1 253 950 1234", region: "US")
        _ = try state.addMessageWord("prize", action: .junk, region: "US")
        _ = try await state.setPicketPolicy(.block, rebuild: false)
        _ = try state.setPicketConnection(server: "https://picket.backup.test", key: "opl_" + String(repeating: "ab", count: 32))
        try await state.rebuild()
        try await ConsoleSessionStore(database: state.database).insert(
            .init(digest: "abc", method: "password", user: "me", createdAt: Date(), lastUsed: Date()), keep: 10,
            expiredBefore: .distantPast, createdBefore: .distantPast)
        var replica = SyncReplica(device: try DeviceID("laptop"), role: .serving)
        _ = replica.write(SyncRecordID(kind: .allowlistEntry, key: "forever.backup.test"), values: ["expires": ""], now: Date())
        try SyncStore(database: state.database).save(&replica, position: nil)
        return Source(home: home, server: server, numbering: replica.numbering)
    }

    /// Every file and its bytes under `folder`, to tell that a refused restore changed nothing.
    static func contents(_ folder: URL) -> [String: Data] {
        var out: [String: Data] = [:]
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return out }
        for case let url as URL in walker {
            if let data = try? Data(contentsOf: url) { out[String(url.path.dropFirst(folder.path.count))] = data }
        }
        return out
    }

    /// The names beside `folder` that a restore may leave (staging folders, replaced homes).
    static func siblings(_ folder: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.deletingLastPathComponent().path)) ?? []
        return names.filter { $0.contains(folder.lastPathComponent) && $0 != folder.lastPathComponent }
    }

    @Test func aRestoredHomeHasEveryDecisionItsListCopiesAndANewSyncNumbering() async throws {
        let source = try await Self.makeSource()
        let target = TestPaths.temporaryDirectory("backup-target").appendingPathComponent("home")
        let file = TestPaths.temporaryDirectory("backup-file").appendingPathComponent("home.pepper-backup")
        defer {
            for url in [source.home, target.deletingLastPathComponent(), file.deletingLastPathComponent()] {
                try? FileManager.default.removeItem(at: url)
            }
        }
        let original = try PepperState(home: PepperHome(url: source.home))
        let manifest = try await BackupActions.create(state: original, to: file, passphrase: nil, pepperVersion: "test")
        // The database first, then the copies (an uploaded list has one too) and the upload itself.
        #expect(manifest.entries.map(\.path) == ["pepper.sqlite", "lists/a", "lists/mine", "uploads/mine.txt"])
        #expect(manifest.stateSchema == PepperDatabase.schemaVersion)
        #expect(try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path) == [file.lastPathComponent])

        let outcome = try await BackupActions.restore(from: file, into: PepperHome(url: target), passphrase: nil, replace: false)
        #expect(outcome.rebuildProblem == nil)
        #expect(outcome.previousHome == nil)
        let restored = try PepperState(home: PepperHome(url: target))

        let before = try original.allowlistEntries()
        let after = try restored.allowlistEntries()
        #expect(after.map(\.domain) == before.map(\.domain))
        #expect(after.map(\.expiresAt) == before.map(\.expiresAt))
        #expect(after.first { $0.domain == "soon.backup.test" }?.expiresAt != nil, "the expiring entry keeps its expiry")
        #expect(try restored.userRules().map(\.text) == ["||rule.backup.test^"])
        let lists = try restored.lists().filter { !$0.builtIn }
        #expect(lists.map(\.name).sorted() == ["a", "mine"])
        #expect(try restored.list(named: "a").sha256 == original.list(named: "a").sha256)
        #expect(try Data(contentsOf: target.appendingPathComponent("lists/a")) == Data(Self.listA.utf8))
        // The uploaded list's path moved with the home.
        let uploaded = try restored.list(named: "mine").location
        #expect(uploaded == target.appendingPathComponent("uploads/mine.txt").path)
        #expect(FileManager.default.fileExists(atPath: uploaded))
        #expect(try restored.checkCall("+1 253 950 1234", region: "US", record: false).verdict.action == .block)
        #expect(try restored.messageRules().wordRules.contains { $0.word == "prize" && $0.action == .junk })
        #expect(try restored.picketPolicy() == .block)
        #expect(try restored.picketConnection()?.server.absoluteString == "https://picket.backup.test")
        #expect(try restored.picketConnection()?.key == "opl_" + String(repeating: "ab", count: 32), "the key kept in the state travels")
        // Compiled at once: the output names the list's rules and the allowlist.
        let compiled = try #require(outcome.rebuild)
        #expect(compiled.manifest.allowlist.sorted() == ["forever.backup.test", "soon.backup.test"])
        #expect(FileManager.default.fileExists(atPath: target.appendingPathComponent("out/manifest.json").path))
        // Left out: the console's sessions; the replica kept, with a new numbering.
        #expect(try await ConsoleSessionStore(database: restored.database).count() == 0)
        #expect(try await ConsoleSessionStore(database: original.database).count() == 1)
        let sync = try #require(try SyncStore(database: restored.database).load())
        #expect(sync.replica.numbering != source.numbering)
        #expect(sync.replica.records.keys.map(\.key) == ["forever.backup.test"])
        #expect(try SyncStore(database: original.database).load()?.replica.numbering == source.numbering)
        #expect(Self.siblings(target).isEmpty, "no staging folder is left: \(Self.siblings(target))")
    }

    @Test func anEncryptedBackupRestoresWithItsPassphraseOnly() async throws {
        let source = try await Self.makeSource()
        let folder = TestPaths.temporaryDirectory("backup-encrypted")
        defer {
            try? FileManager.default.removeItem(at: source.home)
            try? FileManager.default.removeItem(at: folder)
        }
        let file = folder.appendingPathComponent("home.pepper-backup")
        let passphrase = Data("correct horse battery staple".utf8)
        let state = try PepperState(home: PepperHome(url: source.home))
        _ = try await BackupActions.create(state: state, to: file, passphrase: passphrase, pepperVersion: "test")
        let bytes = try Data(contentsOf: file)
        #expect(try BackupActions.isEncrypted(file))
        // Nothing readable inside: neither the list nor the rule appear in the clear.
        #expect(bytes.range(of: Data("ads.backup.test".utf8)) == nil)
        #expect(bytes.range(of: Data("SQLite format 3".utf8)) == nil)
        let header = try #require(String(data: bytes.prefix(600), encoding: .isoLatin1))
        #expect(header.contains(#""kdf":"scrypt""#) && header.contains(#""n":131072"#) && header.contains(#""salt":"#), "\(header)")

        let target = folder.appendingPathComponent("home")
        await #expect(throws: BackupError.passphraseNeeded) {
            try await BackupActions.restore(from: file, into: PepperHome(url: target), passphrase: nil, replace: false)
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let outcome = try await BackupActions.restore(from: file, into: PepperHome(url: target), passphrase: passphrase, replace: false)
        #expect(outcome.rebuildProblem == nil)
        #expect(try PepperState(home: PepperHome(url: target)).userRules().map(\.text) == ["||rule.backup.test^"])

        // Two backups of one home with one passphrase: different salts, different bytes.
        let second = folder.appendingPathComponent("second.pepper-backup")
        _ = try await BackupActions.create(state: state, to: second, passphrase: passphrase, pepperVersion: "test")
        #expect(try Data(contentsOf: second).prefix(400) != bytes.prefix(400))
    }

    /// A backup that must be refused, and the error expected.
    struct Damage: Sendable, CustomTestStringConvertible {
        var name: String
        var encrypted: Bool
        var passphrase: String?
        var change: @Sendable (inout Data) -> Void
        var expected: @Sendable (BackupError) -> Bool
        var testDescription: String { name }
    }

    static let damages: [Damage] = [
        Damage(name: "wrong passphrase", encrypted: true, passphrase: "not the passphrase", change: { _ in }) { $0 == .wrongPassphrase },
        Damage(name: "encrypted, truncated", encrypted: true, passphrase: nil, change: { $0.removeLast(100) }) {
            if case .truncated = $0 { return true } else { return false }
        },
        Damage(name: "encrypted, a chunk dropped at its end", encrypted: true, passphrase: nil, change: { $0.removeLast($0.count / 3) }) {
            if case .truncated = $0 { return true } else { return false }
        },
        Damage(name: "encrypted, a byte flipped", encrypted: true, passphrase: nil, change: { $0[$0.count - 50] ^= 0x01 }) {
            if case .damaged = $0 { return true } else { return false }
        },
        Damage(name: "plain, truncated", encrypted: false, passphrase: nil, change: { $0.removeLast(1000) }) {
            if case .truncated = $0 { return true } else if case .damaged = $0 { return true } else { return false }
        },
        Damage(name: "plain, a byte of the database flipped", encrypted: false, passphrase: nil, change: { $0[$0.count / 2] ^= 0x20 }) {
            if case .damaged = $0 { return true } else { return false }
        },
        Damage(name: "plain, the digest at its end flipped", encrypted: false, passphrase: nil, change: { $0[$0.count - 1] ^= 0x01 }) {
            if case .damaged = $0 { return true } else { return false }
        },
        Damage(
            name: "a newer format", encrypted: true, passphrase: nil,
            change: { data in
                let range = data.range(of: Data(#""format":1"#.utf8))!
                data.replaceSubrange(range, with: Data(#""format":2"#.utf8))
            }
        ) { $0 == .newerFormat(found: 2, known: 1) },
        Damage(name: "not a backup", encrypted: false, passphrase: nil, change: { $0 = Data("SQLite format 3\0".utf8) + $0 }) {
            if case .notABackup = $0 { return true } else { return false }
        },
    ]

    @Test(arguments: damages)
    func aDamagedOrMisopenedBackupIsRefusedAndTheHomeIsUntouched(_ damage: Damage) async throws {
        let source = try await Self.makeSource()
        let folder = TestPaths.temporaryDirectory("backup-damaged")
        defer {
            try? FileManager.default.removeItem(at: source.home)
            try? FileManager.default.removeItem(at: folder)
        }
        let passphrase = Data("the passphrase".utf8)
        let file = folder.appendingPathComponent("home.pepper-backup")
        let state = try PepperState(home: PepperHome(url: source.home))
        _ = try await BackupActions.create(state: state, to: file, passphrase: damage.encrypted ? passphrase : nil, pepperVersion: "test")
        var bytes = try Data(contentsOf: file)
        damage.change(&bytes)
        try bytes.write(to: file)

        // An existing home, with --replace: nothing may change, nothing may be set aside.
        let home = folder.appendingPathComponent("existing")
        let existing = try PepperState(home: PepperHome(url: home))
        _ = try await existing.addRule("||existing.backup.test^", rebuild: false)
        try existing.database.writer.close()
        let before = Self.contents(home)
        do {
            _ = try await BackupActions.restore(
                from: file, into: PepperHome(url: home),
                passphrase: damage.encrypted ? Data((damage.passphrase ?? "the passphrase").utf8) : nil,
                replace: true)
            Issue.record("\(damage.name) was restored")
        } catch {
            #expect(damage.expected(error), "\(damage.name): \(error)")
        }
        #expect(Self.contents(home) == before)
        #expect(Self.siblings(home).isEmpty, "\(Self.siblings(home))")
    }

    @Test func aHomeThatHoldsFilesIsReplacedOnlyWhenAskedAndKeptAside() async throws {
        let source = try await Self.makeSource()
        let folder = TestPaths.temporaryDirectory("backup-replace")
        defer {
            try? FileManager.default.removeItem(at: source.home)
            try? FileManager.default.removeItem(at: folder)
        }
        let file = folder.appendingPathComponent("home.pepper-backup")
        _ = try await BackupActions.create(
            state: try PepperState(home: PepperHome(url: source.home)), to: file, passphrase: nil, pepperVersion: "test")
        let home = folder.appendingPathComponent("existing")
        let existing = try PepperState(home: PepperHome(url: home))
        _ = try await existing.addRule("||existing.backup.test^", rebuild: false)
        try existing.database.writer.close()
        let before = Self.contents(home)

        await #expect(throws: BackupError.homeNotEmpty(path: home.path)) {
            try await BackupActions.restore(from: file, into: PepperHome(url: home), passphrase: nil, replace: false)
        }
        #expect(Self.contents(home) == before)

        let outcome = try await BackupActions.restore(from: file, into: PepperHome(url: home), passphrase: nil, replace: true)
        let previous = try #require(outcome.previousHome)
        #expect(previous.lastPathComponent.hasPrefix("existing.replaced-"))
        #expect(Self.contents(previous) == before, "the replaced home is kept as it was")
        #expect(try PepperState(home: PepperHome(url: home)).userRules().map(\.text) == ["||rule.backup.test^"])
    }

    @Test func aBackupRestoresIntoAnOpenStateThatOtherProcessesSeeAndTheOldStateIsKeptAside() async throws {
        let source = try await Self.makeSource()
        let folder = TestPaths.temporaryDirectory("backup-in-place")
        defer {
            try? FileManager.default.removeItem(at: source.home)
            try? FileManager.default.removeItem(at: folder)
        }
        let file = folder.appendingPathComponent("home.pepper-backup")
        let passphrase = Data("the passphrase".utf8)
        _ = try await BackupActions.create(
            state: try PepperState(home: PepperHome(url: source.home)), to: file, passphrase: passphrase, pepperVersion: "test")
        // An open home with its own decisions, its lists and an upload, and a console session.
        let home = folder.appendingPathComponent("open")
        let state = try PepperState(home: PepperHome(url: home))
        _ = try await state.addRule("||open.backup.test^", rebuild: false)
        _ = try await state.addUploadedList(
            Data("||open-upload.backup.test^\n".utf8), fileName: "open.txt", name: "openlist", rebuild: false)
        try await ConsoleSessionStore(database: state.database).insert(
            .init(digest: "open", method: "token", user: "me", createdAt: Date(), lastUsed: Date()), keep: 10,
            expiredBefore: .distantPast, createdBefore: .distantPast)
        let before = Self.contents(home).filter { !$0.key.hasPrefix("/pepper.sqlite") }

        // Refused first (a wrong passphrase, then a damaged file): the open state is as it was.
        await #expect(throws: BackupError.wrongPassphrase) {
            try await BackupActions.restore(from: file, into: state, passphrase: Data("wrong".utf8))
        }
        var damaged = try Data(contentsOf: file)
        damaged[damaged.count - 40] ^= 1
        let damagedFile = folder.appendingPathComponent("damaged.pepper-backup")
        try damaged.write(to: damagedFile)
        await #expect(throws: BackupError.self) { try await BackupActions.restore(from: damagedFile, into: state, passphrase: passphrase) }
        #expect(try state.userRules().map(\.text) == ["||open.backup.test^"])
        #expect(Self.contents(home).filter { !$0.key.hasPrefix("/pepper.sqlite") } == before)
        #expect(Self.siblings(home).isEmpty, "\(Self.siblings(home))")

        let outcome = try await BackupActions.restore(from: file, into: state, passphrase: passphrase)
        #expect(outcome.rebuildProblem == nil && outcome.passphraseNotNeeded == false)
        // The open state's own connections read the restored state, and so does another process.
        #expect(try state.userRules().map(\.text) == ["||rule.backup.test^"])
        #expect(try state.lists().filter { !$0.builtIn }.map(\.name).sorted() == ["a", "mine"])
        #expect(try Data(contentsOf: home.appendingPathComponent("lists/a")) == Data(Self.listA.utf8))
        #expect(try state.list(named: "mine").location == home.appendingPathComponent("uploads/mine.txt").path)
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent("uploads/mine.txt").path))
        #expect(!FileManager.default.fileExists(atPath: home.appendingPathComponent("uploads/openlist.txt").path))
        #expect(try await ConsoleSessionStore(database: state.database).count() == 0, "sessions are not in backups")
        let listed = try await PepperProcess.run(["allowlist", "list"], home: home)
        #expect(listed.stdout.split(separator: "\n").map { $0.split(separator: "\t")[0] } == ["forever.backup.test", "soon.backup.test"])
        let compiled = try #require(outcome.rebuild)
        #expect(compiled.manifest.allowlist.sorted() == ["forever.backup.test", "soon.backup.test"])
        // What it replaced: kept beside the home, database, lists and uploads, and it opens.
        let previous = try #require(outcome.previousHome)
        #expect(previous.lastPathComponent.hasPrefix("open.replaced-"))
        #expect(Self.siblings(home) == [previous.lastPathComponent], "no staging folder is left")
        let replaced = try PepperState(home: PepperHome(url: previous))
        #expect(try replaced.userRules().map(\.text) == ["||open.backup.test^"])
        #expect(FileManager.default.fileExists(atPath: previous.appendingPathComponent("uploads/openlist.txt").path))
        // A passphrase given for a plain backup is reported as not needed.
        let plain = folder.appendingPathComponent("plain.pepper-backup")
        _ = try await BackupActions.create(state: state, to: plain, passphrase: nil, pepperVersion: "test")
        #expect(try await BackupActions.restore(from: plain, into: state, passphrase: passphrase).passphraseNotNeeded)
    }

    @Test func aBackupWithAnotherPageSizeRestoresIntoAnOpenState() async throws {
        // A home whose database was made with 8 kB pages (the open one has SQLite's 4 kB): SQLite
        // copies into a database in WAL mode only between equal page sizes.
        let folder = TestPaths.temporaryDirectory("backup-page-size")
        defer { try? FileManager.default.removeItem(at: folder) }
        let source = PepperHome(url: folder.appendingPathComponent("source"))
        try FileManager.default.createDirectory(at: source.url, withIntermediateDirectories: true)
        let empty = try DatabaseQueue(path: source.databaseURL.path)
        try await empty.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA page_size = 8192")
            try db.execute(sql: "VACUUM")
        }
        try empty.close()
        let original = try PepperState(home: source)
        _ = try await original.addRule("||eight-k.backup.test^", rebuild: false)
        #expect(try await original.database.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == 8192)
        let file = folder.appendingPathComponent("eight-k.pepper-backup")
        _ = try await BackupActions.create(state: original, to: file, passphrase: nil, pepperVersion: "test")

        let state = try PepperState(home: PepperHome(url: folder.appendingPathComponent("open")))
        _ = try await state.addRule("||four-k.backup.test^", rebuild: false)
        _ = try await BackupActions.restore(from: file, into: state, passphrase: nil)
        #expect(try state.userRules().map(\.text) == ["||eight-k.backup.test^"])
        #expect(try await state.database.writer.read { db in try Int.fetchOne(db, sql: "PRAGMA page_size") } == 4096)
        #expect(try await state.database.writer.read { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") } == "wal")
    }

    @Test func aBackupIsOfferedUnderANameThatSortsByTime() throws {
        let date = try #require(UTCDateTime(year: 2026, month: 5, day: 12, hour: 14, minute: 30, second: 59)).date
        #expect(BackupActions.suggestedFileName(at: date) == "pepper-backup-20260512-1430.pepperbackup")
    }

    /// Fixtures from the first state, the calls' change history and the sync records' migration.
    @Test(arguments: ["01-", "09-", "18-"])
    func aBackupOfAnOlderStateRestoresMigrated(_ prefix: String) async throws {
        let root = TestData.folder.appendingPathComponent("upgrade")
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: root.path).first { $0.hasPrefix(prefix) })
        let fixture = root.appendingPathComponent(name)
        let folder = TestPaths.temporaryDirectory("backup-older")
        defer { try? FileManager.default.removeItem(at: folder) }
        let copy = folder.appendingPathComponent("old-home")
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("home"), to: copy)
        // The old database as the old Pepper left it: opened with GRDB alone, which migrates nothing.
        let old = try DatabaseQueue(path: copy.appendingPathComponent("pepper.sqlite").path)
        let file = folder.appendingPathComponent("old.pepper-backup")
        let manifest = try await BackupActions.create(
            database: old, home: PepperHome(url: copy), to: file, passphrase: nil, pepperVersion: "old")
        try old.close()
        #expect(manifest.stateSchema < PepperDatabase.schemaVersion, "\(name): schema \(manifest.stateSchema)")

        let target = folder.appendingPathComponent("home")
        let outcome = try await BackupActions.restore(from: file, into: PepperHome(url: target), passphrase: nil, replace: false)
        let restored = try PepperState(home: PepperHome(url: target))
        let applied = try await restored.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM grdb_migrations") }
        #expect(applied == PepperDatabase.schemaVersion)
        // The records the old binary wrote read back.
        let records = try String(contentsOf: fixture.appendingPathComponent("records.tsv"), encoding: .utf8).split(separator: "\n")
        let fields = records.map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let domains = try restored.allowlistEntries().map(\.domain)
        for record in fields where record[0] == "allowlist" && record[2] != "expired" {
            #expect(domains.contains(record[1]), "\(name): \(record[1]) in \(domains)")
        }
        for record in fields where record[0] == "call-block" {
            let number = record[1].replacingOccurrences(of: "#", with: "0")
            #expect(try restored.checkCall(number, region: "US", record: false).verdict.action == .block, "\(name): \(number)")
        }
        let words = try restored.messageRules().wordRules
        for record in fields where record[0] == "sms-word" {
            #expect(words.contains { $0.word == record[1] && $0.action.rawValue == record[2] }, "\(name): \(record[1])")
        }
        #expect(outcome.rebuild != nil || outcome.rebuildProblem != nil)
        #expect(
            FileManager.default.fileExists(atPath: target.appendingPathComponent("out/manifest.json").path),
            "\(outcome.rebuildProblem ?? "")")
    }

    /// A backup taken while another writer keeps adding entries holds a moment of the state: the
    /// entries 0 to k for some k, never a later one without an earlier one.
    @Test func aBackupTakenWhileTheStateIsWrittenIsOneMomentOfIt() async throws {
        let folder = TestPaths.temporaryDirectory("backup-concurrent")
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("source")
        let state = try PepperState(home: PepperHome(url: home))
        let store = AllowlistStore(database: state.database)
        for index in 0..<2000 { _ = try store.add("before-\(index).backup.test") }
        let writer = Task.detached {
            var index = 0
            while !Task.isCancelled {
                _ = try store.add("during-\(index).backup.test")
                index += 1
            }
            return index
        }
        let file = folder.appendingPathComponent("home.pepper-backup")
        try await Task.sleep(for: .milliseconds(50))
        _ = try await BackupActions.create(state: state, to: file, passphrase: nil, pepperVersion: "test")
        writer.cancel()
        let written = try await writer.value
        let target = folder.appendingPathComponent("target")
        _ = try await BackupActions.restore(from: file, into: PepperHome(url: target), passphrase: nil, replace: false)
        let domains = Set(try PepperState(home: PepperHome(url: target)).allowlistEntries().map(\.domain))
        let during = (0..<written).filter { domains.contains("during-\($0).backup.test") }
        #expect(domains.filter { $0.hasPrefix("before-") }.count == 2000)
        #expect(during == Array(0..<during.count), "a prefix of the writes: \(during.count) of \(written)")
        #expect(written > during.count, "the writer went on after the copy (\(written) written, \(during.count) copied)")
    }

    /// A copy committed but not yet renamed into place (`lists/.NAME.pending` whose SHA-256 its
    /// record names) is backed up under its final name; a pending copy never committed is not.
    @Test func theCopyARecordNamesIsBackedUpEvenWhenItWasNotYetRenamed() async throws {
        let folder = TestPaths.temporaryDirectory("backup-pending")
        defer { try? FileManager.default.removeItem(at: folder) }
        let home = folder.appendingPathComponent("source")
        let state = try PepperState(home: PepperHome(url: home))
        for name in ["easylist", "easyprivacy"] { _ = try await state.disableList(name, rebuild: false) }
        for name in ["committed", "uncommitted"] {
            let list = folder.appendingPathComponent("\(name).txt")
            try Data("||\(name).backup.test^\n".utf8).write(to: list)
            _ = try await state.addList(ListRequest(source: list.path, name: name), rebuild: false)
        }
        let newer = Data("||newer.backup.test^\n".utf8)
        let lists = home.appendingPathComponent("lists")
        try newer.write(to: lists.appendingPathComponent(".committed.pending"))
        try Data("||never.backup.test^\n".utf8).write(to: lists.appendingPathComponent(".uncommitted.pending"))
        let digest = SHA256Hex.of(newer)
        try await state.database.writer.write { db in
            try db.execute(sql: "UPDATE listSource SET sha256 = ? WHERE name = 'committed'", arguments: [digest])
        }
        let file = folder.appendingPathComponent("home.pepper-backup")
        let manifest = try await BackupActions.create(state: state, to: file, passphrase: nil, pepperVersion: "test")
        #expect(manifest.entries.map(\.path) == ["pepper.sqlite", "lists/committed", "lists/uncommitted"])
        #expect(manifest.entries.first { $0.path == "lists/committed" }?.sha256 == digest)
        let target = folder.appendingPathComponent("target")
        _ = try await BackupActions.restore(from: file, into: PepperHome(url: target), passphrase: nil, replace: false)
        #expect(try Data(contentsOf: target.appendingPathComponent("lists/committed")) == newer)
        #expect(try Data(contentsOf: target.appendingPathComponent("lists/uncommitted")) == Data("||uncommitted.backup.test^\n".utf8))
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: target.appendingPathComponent("lists").path).sorted() == [
                "committed", "uncommitted",
            ])
    }
}

/// SHA-256 in lowercase hexadecimal, as the manifest and the list records write it.
enum SHA256Hex {
    static func of(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
