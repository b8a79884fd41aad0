import ContentBlocker
import FilterLists
import Foundation
import Picket
import PicketServer
import PicketTestSupport
import Testing

@testable import ListSync
@testable import Storage

/// The Picket blocklist as a list source, against a real Picket server on loopback.
@Suite("Picket list source", .serialized)
struct PicketListSourceTests {
    struct Fixture {
        let home: PepperHome
        let database: PepperDatabase
        let server: SQLitePicketStore
        let picket: LoopbackPicketServer
        let key: String
        /// The key the updater's key store gives the source (the source's settings hold none).
        let keys = KeyBox()

        static func make() async throws -> Fixture {
            let home = PepperHome(
                url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-picket-list-\(UUID().uuidString.prefix(8))"))
            try home.prepare()
            let database = try PepperDatabase(home: home)
            // The server's data in its own file, as a remote server would have it.
            let store = SQLitePicketStore(database: try PepperDatabase(url: home.url.appendingPathComponent("server.sqlite")))
            let now = Date()
            _ = try await store.importRecords(
                ImportRecords(
                    employers: [
                        EmployerRecord(id: "emp_a", name: "Acme", domains: ["acme.example", "www.acme-shop.example"], status: .approved)
                    ],
                    actions: [
                        ActionRecord(
                            id: "act_a", employerId: "emp_a", organization: "Acme Workers", actionType: "strike", location: "Here",
                            startDate: now.addingTimeInterval(-86_400), description: "On strike for a contract", status: .approved,
                            origin: "import")
                    ]))
            let key = try await APIKeys.create(scopes: [.readMobile], in: store).key
            let picket = try await LoopbackPicketServer.start(store: store)
            return Fixture(home: home, database: database, server: store, picket: picket, key: key)
        }

        var location: String { "picket:" + picket.address }

        func addSource(key: String? = nil) throws -> ListSource {
            keys.value = key ?? self.key
            return try ListSourceStore(database: database).insert(
                ListSource(name: "picket-test", location: location, format: PicketListSource.format))
        }

        func source() throws -> ListSource { try #require(try ListSourceStore(database: database).source(named: "picket-test")) }

        func updater() -> ListUpdater {
            ListUpdater(
                home: home, database: database,
                downloader: ListDownloader(
                    policy: .init(maximumBytes: 1_000_000, idleTimeout: 30, totalTimeout: 60, attempts: 1, initialBackoff: 0.05)),
                picketKey: { [keys] source in source.name == "picket-test" ? keys.value : nil })
        }

        func stop() async { await picket.stop() }
    }

    @Test("update: 200 stores the payload and strikes; unchanged is a 304; an approval brings new rules")
    func updates() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.stop() } }
        let first = try await fixture.updater().update(try fixture.addSource(), force: true)
        guard case .updated = first.status else {
            Issue.record("expected an update, got \(first.status)")
            return
        }
        #expect(first.rules == 2)
        let stored = try fixture.source()
        #expect(stored.etag?.count == 64, "the content hash is kept as the ETag")
        #expect(stored.lastError == nil)
        let expires = try #require(stored.expiresAt)
        #expect(abs(expires.timeIntervalSinceNow - 3_600) < 60, "fresh for the server's suggested hour")
        let copy = try Data(contentsOf: fixture.home.listsURL.appendingPathComponent("picket-test"))
        #expect(try JSONDecoder().decode(MobileData.self, from: copy).blocklist.totalUrls == 2, "the payload as the server sent it")
        let strikes = try JSONDecoder().decode(
            ActiveStrikes.self, from: Data(contentsOf: PicketListSource.strikesURL(home: fixture.home, name: "picket-test")))
        #expect(strikes.strikes.map(\.id) == ["act_a"])

        #expect(try await fixture.updater().update(stored, force: false).status == .fresh(until: expires))
        #expect(try await fixture.updater().update(stored, force: true).status == .notModified)

        var inputs = try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database)
        #expect(inputs.count == 1)
        let text = String(decoding: try #require(inputs.first).data, as: UTF8.self)
        #expect(text.contains("||acme.example^\n") && text.contains("||acme-shop.example^\n"))

        let receipt = try await fixture.server.insertStrikeSubmission(
            employer: EmployerRecord(id: "emp_b", name: "Bolt", website: "https://bolt.example", status: .pending),
            action: ActionRecord(
                id: "act_b", employerId: "emp_b", actionType: "boycott", startDate: Date().addingTimeInterval(-60), status: .pending,
                origin: "submission"))
        #expect(receipt == "emp_b")
        _ = try await fixture.server.moderate(id: "act_b", decision: .approve, at: Date(), by: "test", reason: nil)
        let third = try await fixture.updater().update(try fixture.source(), force: true)
        #expect(third.status == .updated(bytes: third.status.bytes, viaPatch: false))
        #expect(third.rules == 3)
        #expect(try fixture.source().etag != stored.etag)
        inputs = try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database)
        #expect(String(decoding: inputs[0].data, as: UTF8.self).contains("||bolt.example^"))
        let (output, _, _) = try BlockerBuilder.rebuild(home: fixture.home, database: fixture.database)
        #expect(output.manifest.sources.map(\.name) == ["picket-test"])
        #expect(output.totalRules == 3)
    }

    @Test("policy: block and ask compile rules, allow compiles none")
    func policy() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.stop() } }
        _ = try await fixture.updater().update(try fixture.addSource(), force: true)
        let policies = PicketPolicyStore(database: fixture.database)
        #expect(try policies.policy() == .ask)
        #expect(try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database).count == 1)
        try policies.setPolicy(.allow)
        #expect(try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database).isEmpty)
        try policies.setPolicy(.block)
        let inputs = try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database)
        let parsed = BlockerBuilder.parse(inputs)
        guard case .success(let list) = parsed.first?.result else {
            Issue.record("the Picket input must parse")
            return
        }
        #expect(list.ruleCount == 2)
    }

    @Test("the index the DNS filter and browser read: host → employer, action, policy")
    func index() async throws {
        let fixture = try await Fixture.make()
        defer { Task { await fixture.stop() } }
        _ = try await fixture.updater().update(try fixture.addSource(), force: true)
        try PicketPolicyStore(database: fixture.database).setPolicy(.ask)
        let index = try PicketBlocklistIndex.load(home: fixture.home, database: fixture.database)
        #expect(index.policy == .ask)
        #expect(index.sources == ["picket-test"])
        #expect(index.domains == ["acme-shop.example", "acme.example"])
        let match = try #require(index.lookup("www.shop.acme.example"))
        #expect(match.entry.employer == "Acme")
        #expect(match.entry.actionId == "act_a")
        #expect(match.action?.description == "On strike for a contract")
        #expect(match.action?.organization == "Acme Workers")
        #expect(match.source == "picket-test")
        #expect(index.lookup("https://acme-shop.example/cart")?.entry.employerId == "emp_a")
        #expect(index.lookup("notacme.example") == nil)
        // Disabled sources are not read.
        var source = try fixture.source()
        source.enabled = false
        try ListSourceStore(database: fixture.database).update(source)
        #expect(try PicketBlocklistIndex.load(home: fixture.home, database: fixture.database).lookup("acme.example") == nil)
    }

    @Test("failures keep the last good copy: wrong key, no key, server gone")
    func failures() async throws {
        let fixture = try await Fixture.make()
        _ = try await fixture.updater().update(try fixture.addSource(), force: true)
        let good = try Data(contentsOf: fixture.home.listsURL.appendingPathComponent("picket-test"))

        let source = try fixture.source()
        fixture.keys.value = APIKeys.generate()
        let wrong = try await fixture.updater().update(source, force: true)
        guard case .failed(let reason) = wrong.status else {
            Issue.record("a wrong key must fail")
            return
        }
        #expect(reason.contains("unknown API key"))
        #expect(try fixture.source().lastError?.contains("unknown API key") == true)

        fixture.keys.value = nil
        guard case .failed(let missing) = try await fixture.updater().update(source, force: true).status else {
            Issue.record("no key must fail")
            return
        }
        #expect(missing.contains("no API key") && !missing.contains("pepper "), "the face adds how to give a key")
        #expect(try await fixture.updater().update(source, force: true).picketProblem == .missingKey(source.name))

        await fixture.stop()
        fixture.keys.value = fixture.key
        guard case .failed(let gone) = try await fixture.updater().update(source, force: true).status else {
            Issue.record("an unreachable server must fail")
            return
        }
        #expect(gone.contains("connection failed"))
        #expect(try Data(contentsOf: fixture.home.listsURL.appendingPathComponent("picket-test")) == good)
        #expect(
            try BlockerBuilder.storedInputs(home: fixture.home, database: fixture.database).count == 1, "the last good copy still compiles")
    }

    @Test("locations and names")
    func locations() {
        #expect(PicketListSource.serverURL("picket:https://opl.example/base")?.absoluteString == "https://opl.example/base")
        #expect(PicketListSource.serverURL("picket:opl.example") == nil)
        #expect(PicketListSource.serverURL("https://opl.example") == nil)
        #expect(PicketListSource.defaultName(for: "picket:https://OPL.Example:8443") == "picket-opl.example")
    }
}

/// A key the tests change while updaters read it.
final class KeyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var key: String?

    var value: String? {
        get { lock.withLock { key } }
        set { lock.withLock { key = newValue } }
    }
}

extension ListUpdater.Status {
    /// The byte count of an update (0 otherwise), for comparisons.
    var bytes: Int {
        if case .updated(let bytes, _) = self { return bytes }
        return 0
    }
}
