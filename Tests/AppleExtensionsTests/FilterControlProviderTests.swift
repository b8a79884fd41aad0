#if !canImport(ObjectiveC)
import AppExtensionSupport
import AppleExtensions
@_spi(ShimTesting) import AppleShims
@_spi(ShimTesting) import AppleTestSupport
import Foundation
import PepperActions
import Picket
import PicketServer
import Storage
import Testing
import PicketTestSupport

/// The content filter's two providers together, as iOS runs them (`StrictFilterSystem`): the
/// data provider judges flows and hands questions over; the control provider asks, naming the
/// app, and keeps the Picket blocklist up to date from a real Picket server.
@Suite("Content-filter control extension")
struct FilterControlProviderTests {
    static func flow(to host: String, from app: String?) -> NEFilterSocketFlow {
        FilterDataProviderTests.socketFlow(to: host, from: app)
    }

    /// Both providers over `shared`, asking through `asker`; the data provider asks about an
    /// employer again after `askInterval`.
    /// `watchingWrites`: whether the system checks that the data provider writes nothing (not
    /// while the control provider writes all along: their writes could not be told apart).
    static func system(
        _ shared: SharedContainer, asker: RecordingAsker, askInterval: TimeInterval = 600, refreshInterval: TimeInterval = 900,
        watchingWrites: Bool = true, keys: MemoryKeys = MemoryKeys()
    ) -> StrictFilterSystem {
        let data = FilterDataProvider(
            judge: ContentFilterJudge(container: shared.container, ownBundleIdentifier: "org.example.pepper", askInterval: askInterval))
        let control = FilterControlProvider(
            control: FilterControl(
                container: shared.container, ownBundleIdentifier: "org.example.pepper", notifier: asker, picketKeys: keys,
                refreshInterval: refreshInterval))
        return StrictFilterSystem(data: data, control: control, watching: watchingWrites ? shared.container.url : nil)
    }

    @Test func underAskTheControlProviderAsksNamingTheAppAndTheFlowIsDropped() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .ask)
        let asker = RecordingAsker()
        let system = Self.system(shared, asker: asker)
        let started = await system.start()
        #expect(started.control == nil && started.data == nil)

        let first = await system.deliver(Self.flow(to: "www.acme.example", from: "ABCDE12345.com.apple.mobilesafari"))
        #expect(first == .init(kind: .drop, askedControl: true))
        let question = try #require(asker.asked.first)
        #expect(question.title == "Acme: strike in progress")
        #expect(question.body.contains(". Safari tried to connect. "))
        #expect(question.userInfo[PicketAskNotification.hostKey] == "www.acme.example")
        // What iOS is handed for it: the question's category carries Proceed and Block.
        let request = NotificationAsker.request(for: question)
        #expect(request.content.categoryIdentifier == PicketAskNotification.category && request.trigger == nil)

        // Asked already: the next flow to the employer is dropped by the data provider alone.
        let second = await system.deliver(Self.flow(to: "shop.acme.example", from: "ABCDE12345.com.example.shop"))
        #expect(second == .init(kind: .drop, askedControl: false))
        #expect(asker.asked.count == 1)
        #expect(
            await system.deliver(Self.flow(to: "example.org", from: "ABCDE12345.com.example.shop"))
                == .init(kind: .allow, askedControl: false))
        #expect(system.violations.isEmpty, "\(system.violations)")
        await system.stop()
        #expect(system.violations.isEmpty, "\(system.violations)")
    }

    @Test func whenIOSDoesNotSayWhichAppTheQuestionSaysSo() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .ask)
        let asker = RecordingAsker()
        let system = Self.system(shared, asker: asker, askInterval: 0)
        _ = await system.start()
        #expect(await system.deliver(Self.flow(to: "acme.example", from: nil)) == .init(kind: .drop, askedControl: true))
        #expect(await system.deliver(Self.flow(to: "acme.example", from: "ABCDE12345.com.example.shop")).askedControl)
        #expect(asker.asked.map(\.body).map { $0.contains("iOS did not say which app tried to connect.") } == [true, false])
        #expect(asker.asked.last?.body.contains("The app com.example.shop tried to connect.") == true)
        // Proceeding (the app allowlists the site): the control provider lets the next flow through.
        _ = try await shared.state.setBlocking(false, onPage: "https://acme.example/", until: Date().addingTimeInterval(86_400))
        #expect(await system.deliver(Self.flow(to: "acme.example", from: "ABCDE12345.com.example.shop")).kind == .allow)
        #expect(system.violations.isEmpty, "\(system.violations)")
    }

    @Test func aFlowHandedOverWithoutASharedStateStaysDropped() {
        let shared = SharedContainer()
        let control = FilterControl(
            container: shared.container, ownBundleIdentifier: "org.example.pepper", notifier: RecordingAsker(), picketKeys: nil)
        // The data provider judged it a struck employer's; the control cannot look again.
        #expect(control.decide(ContentFilterJudge.Flow(host: "acme.example", url: nil, sourceApp: nil)) == .drop)
    }

    @Test func underBlockNobodyIsAskedAndPeppersOwnFlowsPass() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let asker = RecordingAsker()
        let system = Self.system(shared, asker: asker)
        _ = await system.start()
        #expect(
            await system.deliver(Self.flow(to: "acme.example", from: "ABCDE12345.com.example.shop"))
                == .init(kind: .drop, askedControl: false))
        #expect(
            await system.deliver(Self.flow(to: "acme.example", from: "ABCDE12345.org.example.pepper"))
                == .init(kind: .allow, askedControl: false))
        #expect(asker.asked.isEmpty)
        #expect(system.violations.isEmpty, "\(system.violations)")
    }

    @Test func theControlProviderFetchesTheBlocklistAndTellsTheDataProvider() async throws {
        let server = try await PicketFixture.start()
        defer { Task { await server.stop() } }
        let shared = SharedContainer()
        try shared.container.home.prepare()
        let source = ListSource(name: "picket-live", location: "picket:http://127.0.0.1:\(server.port)", format: "picket")
        _ = try ListSourceStore(database: shared.state.database).insert(source)
        try PicketPolicyStore(database: shared.state.database).setPolicy(.block)
        // The list's key is where the app put it: in the key store (the Keychain on iOS), not the database.
        let keys = MemoryKeys()
        try keys.setKey(server.key, for: .listSource("picket-live"))
        let system = Self.system(shared, asker: RecordingAsker(), refreshInterval: 0.2, watchingWrites: false, keys: keys)
        _ = await system.start()
        // The first refresh fetches the list (the app never did) and tells the data provider.
        #expect(await system.waitForRulesChanged(1) == 1)
        #expect(FileManager.default.fileExists(atPath: shared.container.home.listsURL.appendingPathComponent("picket-live").path))
        let stored = try #require(try ListSourceStore(database: shared.state.database).source(named: "picket-live"))
        #expect(stored.etag?.count == 64 && stored.lastError == nil, "recorded as the app's updates record it")
        #expect(await system.deliver(Self.flow(to: "www.acme.example", from: "ABCDE12345.com.example.shop")).kind == .drop)
        // Later rounds find the list fresh (the server's interval): nothing new, nothing told.
        try await Task.sleep(for: .seconds(1))
        #expect(system.rulesChangedCount == 1)
        #expect(system.violations.isEmpty, "\(system.violations)")
        await system.stop()
    }

    @Test func theStrictSystemCatchesWhatNetworkExtensionForbids() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .ask)
        let control = TwiceAnsweringControl()
        let system = StrictFilterSystem(
            data: WritingDataProvider(folder: shared.container.url), control: control, watching: shared.container.url)
        _ = await system.start()
        _ = await system.deliver(Self.flow(to: "acme.example", from: nil))
        #expect(system.violations.contains { $0.hasPrefix("the data provider wrote to disk during handleNewFlow: seen-") })
        #expect(system.violations.contains("the control provider's handleNewFlow completion was called 2 times"))
    }

    @Test func withoutAnAppGroupTheControlProviderDoesNotStart() async {
        let started = TunnelStartCompletion()
        FilterControlProvider().startFilter(completionHandler: started.handler)
        let results = await started.waitForResult()
        #expect(results.count == 1)
        #expect(results.first??.isEmpty == false)
    }
}

/// Breaks the rules on purpose, for the strict system's own test: answers every flow twice.
private final class TwiceAnsweringControl: NEFilterControlProvider, @unchecked Sendable {
    override func startFilter(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    override func stopFilter(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) { completionHandler() }
    override func handleNewFlow(_ flow: NEFilterFlow, completionHandler: @escaping @Sendable (NEFilterControlVerdict) -> Void) {
        completionHandler(.drop(withUpdateRules: false))
        completionHandler(.drop(withUpdateRules: false))
    }
}

/// Breaks the rules on purpose: writes a file while judging, then asks for rules.
private final class WritingDataProvider: NEFilterDataProvider, @unchecked Sendable {
    let folder: URL
    init(folder: URL) {
        self.folder = folder
        super.init()
    }
    override func startFilter(completionHandler: @escaping @Sendable ((any Error)?) -> Void) { completionHandler(nil) }
    override func stopFilter(with reason: NEProviderStopReason, completionHandler: @escaping @Sendable () -> Void) { completionHandler() }
    override func handleNewFlow(_ flow: NEFilterFlow) -> NEFilterNewFlowVerdict {
        try? Data("seen".utf8).write(to: folder.appendingPathComponent("seen-\(UUID()).txt"))
        return .needRules()
    }
}

/// A Picket server on loopback (the real one, over SQLite) with Acme on strike, and a read key.
struct PicketFixture {
    let server: LoopbackPicketServer
    let key: String
    let folder: URL

    var port: Int { server.port }

    static func start() async throws -> PicketFixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-picket-server-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = SQLitePicketStore(database: try PepperDatabase(url: folder.appendingPathComponent("server.sqlite")))
        _ = try await store.importRecords(
            ImportRecords(
                employers: [EmployerRecord(id: "emp_a", name: "Acme", domains: ["acme.example"], status: .approved)],
                actions: [
                    ActionRecord(
                        id: "act_a", employerId: "emp_a", organization: "Acme Workers", actionType: "strike", location: "Here",
                        startDate: Date().addingTimeInterval(-86_400), description: "On strike for a contract", status: .approved,
                        origin: "import")
                ]))
        let key = try await APIKeys.create(scopes: [.readMobile], in: store).key
        return PicketFixture(server: try await LoopbackPicketServer.start(store: store), key: key, folder: folder)
    }

    func stop() async {
        await server.stop()
        try? FileManager.default.removeItem(at: folder)
    }
}
/// A key store in memory: the Keychain's part, for the control provider's list keys.
final class MemoryKeys: PicketKeyStore, @unchecked Sendable {
    private let lock = NSLock()
    private var keys: [PicketKeyAccount: String] = [:]

    func key(for account: PicketKeyAccount) throws -> String? { lock.withLock { keys[account] } }
    func setKey(_ key: String?, for account: PicketKeyAccount) throws { lock.withLock { keys[account] = key } }
}
#endif
