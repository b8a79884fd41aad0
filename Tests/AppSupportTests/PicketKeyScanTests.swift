import AppExtensionSupport
import AppSupport
import Foundation
import GRDB
import ListSync
import PepperActions
import Picket
import PicketServer
import PicketTestSupport
import Screens
import Storage
import Testing

/// Design 003's "API keys encrypted at rest using iOS Keychain Services": with the app's key
/// store (here a stand-in for the Keychain, outside the app group), no store of the shared
/// state holds key material after everything a person does with a key — not a table's text, not
/// a byte of any file in the container (the database, its write-ahead log, the lists, the
/// output). And an app upgraded from a state whose Picket list kept its key in its settings
/// moves the key out, erases it from the files, and keeps updating the list.
@Suite("Picket keys stay out of the shared state", .serialized)
struct PicketKeyScanTests {
    /// The Keychain's stand-in: items by account, in memory (outside the container).
    final class MemoryKeychain: PicketKeyStore, @unchecked Sendable {
        private let lock = NSLock()
        private var items: [String: String] = [:]

        func key(for account: PicketKeyAccount) throws -> String? { lock.withLock { items[KeychainItem.account(for: account)] } }

        func setKey(_ key: String?, for account: PicketKeyAccount) throws {
            lock.withLock { items[KeychainItem.account(for: account)] = key }
        }

        var accounts: [String] { lock.withLock { items.keys.sorted() } }
    }

    /// A Picket server on loopback whose store lives outside the container, as a remote one.
    struct Server {
        let server: LoopbackPicketServer
        let store: SQLitePicketStore
        let folder: URL

        var url: URL { server.url }

        static func start() async throws -> Server {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-keyscan-server-\(UUID())")
            let store = SQLitePicketStore(database: try PepperDatabase(url: folder.appendingPathComponent("server.sqlite")))
            let now = Date()
            _ = try await store.importRecords(
                ImportRecords(
                    employers: [EmployerRecord(id: "emp_a", name: "Acme", domains: ["acme.example"], status: .approved)],
                    actions: [
                        ActionRecord(
                            id: "act_a", employerId: "emp_a", organization: "Acme Workers", actionType: "strike", location: "Tacoma, WA",
                            startDate: now.addingTimeInterval(-86_400), description: "On strike",
                            coordinate: GeoCoordinate(latitude: 47.2529, longitude: -122.4443), status: .approved, origin: "import")
                    ]))
            return Server(server: try await LoopbackPicketServer.start(store: store), store: store, folder: folder)
        }

        func key() async throws -> String { try await APIKeys.create(scopes: APIScope.allCases, in: store).key }

        func stop() async {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Where `key` shows in `container`: every text column of every table of the shared
    /// database (through SQLite), and every file's bytes (the database, its WAL, the lists, the
    /// output, the extensions' files). Key material: the key, its 64 hex digits, or any 16 of
    /// them in a row (a key cut or re-encoded in part).
    static func sightings(of key: String, in container: AppGroupContainer, database: PepperDatabase) throws -> [String] {
        let digits = String(key.dropFirst(APIKeyFormat.prefix.count))
        let pieces =
            [key, digits]
            + (0...(digits.count - 16)).map { start in
                let from = digits.index(digits.startIndex, offsetBy: start)
                return String(digits[from..<digits.index(from, offsetBy: 16)])
            }
        var found: [String] = []
        try database.writer.read { db in
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'")
            for table in tables {
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.quotedDatabaseIdentifier))").map { $0["name"] as String }
                for column in columns {
                    let sql = "SELECT CAST(\(column.quotedDatabaseIdentifier) AS TEXT) FROM \(table.quotedDatabaseIdentifier)"
                    for value in try String?.fetchAll(db, sql: sql).compactMap({ $0 })
                    where pieces.contains(where: { value.localizedCaseInsensitiveContains($0) }) {
                        found.append("\(table).\(column)")
                    }
                }
            }
        }
        let files = FileManager.default.enumerator(at: container.url, includingPropertiesForKeys: [.isRegularFileKey])!
        var scanned: [String] = []
        for case let file as URL in files where (try? file.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true {
            let bytes = try Data(contentsOf: file)
            scanned.append(file.path)
            let lowered = Data(bytes.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 })
            if pieces.contains(where: { lowered.range(of: Data($0.lowercased().utf8)) != nil }) { found.append(file.path) }
        }
        #expect(
            scanned.contains(container.databaseURL.path) && scanned.contains(container.databaseURL.path + "-wal"),
            "the scan read the database and its write-ahead log: \(scanned)")
        return found
    }

    @Test func noStoreOfTheSharedStateHoldsTheKeyAfterEverythingAPersonDoesWithIt() async throws {
        let server = try await Server.start()
        let key = try await server.key()
        let temporary = TemporaryContainer()
        let keychain = MemoryKeychain()
        let context = try AppContext(container: temporary.container, picketKeys: keychain)
        let state = context.state

        // The server and key; the server's blocklist as a list; updates and a rebuild; a
        // snapshot and a strike report sent with the key.
        let saved = await LaborActionsScreen(state: state).setServer(address: server.url.absoluteString, key: key)
        #expect(saved.kind == .success, "\(saved)")
        let added = await LaborActionsScreen(state: state).useServerBlocklist()
        #expect(added.kind == .success, "\(added)")
        let update = await context.updateLists()
        #expect(!update.notice.isError, "\(update.notice)")
        let (chosen, draft) = await SnapshotScreen(state: state).choose(
            GeoCoordinate(latitude: 47.2531, longitude: -122.4440), origin: .map,
            {
                var draft = GPSSnapshotDraft(); draft.actionId = "act_a"; return draft
            }())
        #expect(!chosen.isError, "\(chosen)")
        let (sent, snapshot) = await SnapshotScreen(state: state).submit(draft)
        #expect(sent.kind == .success && snapshot.receipt != nil, "\(sent)")
        var report = StrikeReport()
        report.employer.name = "Bolt"
        report.action.organization = "Bolt Workers"
        report.action.location = "Seattle, WA"
        report.action.startDate = String(ISO8601DateFormatter().string(from: Date()).prefix(10))
        report.action.description = "For a contract"
        let (reported, _) = await StrikeReportScreen(state: state).submit(report)
        #expect(reported.kind == .success, "\(reported)")

        // The key is where the app keeps it, and nowhere in the container.
        let list = try #require(try state.lists().first { $0.format == PicketListSource.format })
        #expect(keychain.accounts == ["api-key", "list:\(list.name)"])
        #expect(try keychain.key(for: .listSource(list.name)) == key && list.settings == nil)
        #expect(list.lastSuccess != nil && list.lastError == nil, "the list was fetched with the key from the key store")
        #expect(try Self.sightings(of: key, in: temporary.container, database: state.database) == [])
        // The scan sees a key where one is: the Linux default keeps it in the preferences.
        try PreferencePicketKeyStore(database: state.database).setKey(key)
        #expect(try Self.sightings(of: key, in: temporary.container, database: state.database).contains("preference.value"))
        try PreferencePicketKeyStore(database: state.database).setKey(nil)
        await server.stop()
    }

    @Test func anOldStateWithAKeyInItsListSettingsMovesItOutAndStillUpdates() async throws {
        let server = try await Server.start()
        let key = try await server.key()
        let temporary = TemporaryContainer()
        let location = "picket:" + server.url.absoluteString
        // The state an earlier Pepper left: the list's key in its settings, as it wrote them.
        do {
            let old = try PepperState(home: temporary.container.home)
            let settings = String(
                decoding: try JSONSerialization.data(withJSONObject: ["key": key], options: [.sortedKeys]), as: UTF8.self)
            try ListSourceStore(database: old.database).insert(
                ListSource(name: "picket-old", location: location, format: PicketListSource.format, settings: settings))
            try PreferenceStore(database: old.database).set(.picketServer, server.url.absoluteString)
            #expect(try Self.sightings(of: key, in: temporary.container, database: old.database).contains("listSource.settings"))
        }

        // The upgraded app opens it: the key moves to the key store and leaves the files.
        let keychain = MemoryKeychain()
        let context = try AppContext(container: temporary.container, picketKeys: keychain)
        #expect(try keychain.key(for: .listSource("picket-old")) == key)
        #expect(try ListSourceStore(database: context.state.database).source(named: "picket-old")?.settings == nil)
        #expect(try Self.sightings(of: key, in: temporary.container, database: context.state.database) == [])
        #expect(try context.state.moveListKeysToKeyStore() == [], "once moved, nothing is left to move")

        // And the list still updates, with the key from the key store.
        let update = await context.updateLists()
        #expect(!update.notice.isError, "\(update.notice)")
        let list = try #require(try context.state.lists().first { $0.name == "picket-old" })
        #expect(list.lastSuccess != nil && list.lastError == nil && list.etag?.count == 64)
        #expect(try PicketBlocklistIndex.load(home: context.state.home, database: context.state.database).lookup("acme.example") != nil)
        await server.stop()
    }

    @Test func aKeyTheKeyStoreDoesNotKeepStaysWhereItWas() async throws {
        /// A key store that forgets what it is given (a Keychain that refused silently).
        struct Forgetful: PicketKeyStore {
            func key(for account: PicketKeyAccount) throws -> String? { nil }
            func setKey(_ key: String?, for account: PicketKeyAccount) throws {}
        }
        let temporary = TemporaryContainer()
        let key = APIKeys.generate()
        let settings = #"{"key":"\#(key)"}"#
        try ListSourceStore(database: temporary.state.database).insert(
            ListSource(name: "picket-old", location: "picket:https://opl.example", format: PicketListSource.format, settings: settings))
        let state = PepperState(
            home: temporary.container.home, database: temporary.state.database, configuration: .init(picketKeys: Forgetful()))
        #expect(throws: ActionError.self) { try state.moveListKeysToKeyStore() }
        #expect(try ListSourceStore(database: state.database).source(named: "picket-old")?.legacyPicketKey == key, "nothing is lost")
    }
}
