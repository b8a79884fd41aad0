import AppExtensionSupport
import AppSupport
import Browsing
import DNSFilter
import Foundation
import ListSync
import PepperActions
import Picket
import Storage
import Testing

/// The app's one state per process, and what its parts do with it.
@Suite("App context")
struct AppContextTests {
    /// A container with Acme's domains under `policy`, with its state opened as the app opens it.
    /// (Keep the container: it removes its folder when it goes.)
    static func context(policy: PicketPolicy) throws -> (AppContext, TemporaryContainer) {
        let temporary = try DNSTunnelTests.container(policy: policy)
        return (try AppContext(container: temporary.container), temporary)
    }

    @Test func everyPartOfTheAppWorksOnOneConnectionPool() async throws {
        let temporary = TemporaryContainer()
        let context = try AppContext(container: temporary.container)
        let database = temporary.container.databaseURL
        #expect(PepperDatabase.openPools(at: database) == 1)
        // The launch compile, the next background update's date, the tunnel's answer, geofencing:
        // none opens the database again.
        #expect(await context.compileIfNeeded() == nil)
        #expect(context.state.manifest() != nil, "a first launch compiles the starter list")
        _ = context.nextListUpdate(after: Date())
        _ = try await context.answer(.proceed(site: "acme.example", for: 60))
        _ = await context.geofenceMove(
            to: GeoCoordinate(latitude: 47.6, longitude: -122.3), at: Date(), monitoring: [], maximumRadius: 1_000)
        #expect(PepperDatabase.openPools(at: database) == 1)
        // What the count would show if a part opened its own state, as the app's parts once did.
        let second = try PepperState(home: temporary.container.home)
        #expect(PepperDatabase.openPools(at: database) == 2)
        withExtendedLifetime(second) {}
    }

    @Test func aSecondCompileAtLaunchIsNotNeeded() async throws {
        let temporary = TemporaryContainer()
        let context = try AppContext(container: temporary.container)
        #expect(await context.compileIfNeeded() == nil)
        let identifier = context.state.manifest()?.identifier
        #expect(await context.compileIfNeeded() == nil)
        #expect(context.state.manifest()?.identifier == identifier)
    }

    @Test func aFailedLaunchCompileIsSaidNotDropped() async throws {
        let temporary = TemporaryContainer()
        let context = try AppContext(container: temporary.container)
        // `out` cannot be written: a file where the folder goes.
        try FileManager.default.createDirectory(at: temporary.container.home.url, withIntermediateDirectories: true)
        try? FileManager.default.removeItem(at: temporary.container.outputURL)
        try Data("not a folder".utf8).write(to: temporary.container.outputURL)
        let notice = try #require(await context.compileIfNeeded())
        #expect(notice.isError)
        #expect(notice.text.hasPrefix("Pepper could not compile its lists"))
    }

    @Test func proceedingFromTheTunnelsQuestionLetsTheSiteThroughForADay() async throws {
        let (context, container) = try Self.context(policy: .ask)
        let now = Date()
        #expect(try await context.answer(.proceed(site: "www.acme.example", for: 86_400), now: now))
        let entries = try context.state.allowlistEntries()
        #expect(entries.map(\.domain) == ["acme.example"], "the site without www, as the browsers' Proceed stores it")
        let expiry = try #require(entries.first?.expiresAt)
        #expect(abs(expiry.timeIntervalSince(now) - PicketNotice.proceedDuration) < 1)
        #expect(try await context.answer(.keepBlocked) == false)
        withExtendedLifetime(container) {}
    }

    @Test func proceedingIsRefusedOnceThePolicyBlocks() async throws {
        let (context, container) = try Self.context(policy: .ask)
        // The person switched to block after the tunnel asked.
        _ = try await context.state.setPicketPolicy(.block, rebuild: false)
        await #expect(throws: BrowsingError.cannotProceed("Acme")) {
            _ = try await context.answer(.proceed(site: "acme.example", for: 86_400))
        }
        #expect(try context.state.allowlistEntries().isEmpty)
        withExtendedLifetime(container) {}
    }

    @Test func aSiteNoLongerStruckNeedsNoException() async throws {
        let (context, container) = try Self.context(policy: .ask)
        #expect(try await context.answer(.proceed(site: "example.org", for: 86_400)) == false)
        #expect(try context.state.allowlistEntries().isEmpty)
        withExtendedLifetime(container) {}
    }

    @Test func geofencingWithoutAServerKeepsItsSessionAndAsksForNothing() async throws {
        let temporary = TemporaryContainer()
        let context = try AppContext(container: temporary.container)
        let update = await context.geofenceMove(
            to: GeoCoordinate(latitude: 47.6, longitude: -122.3), at: Date(), monitoring: [], maximumRadius: 1_000)
        #expect(update.events.isEmpty && update.notifications.isEmpty && update.regions.start.isEmpty)
        #expect(FileManager.default.fileExists(atPath: context.geofenceSessionURL.path), "the session is saved for the next event")
    }

    @Test func theContentFilterProtectsWhenDeviceManagementInstalledIt() {
        #expect(NetworkProtection.choose(filter: nil) == .packetTunnel)
        #expect(NetworkProtection.packetTunnel.offersTunnelSwitch)
        let installed = NetworkProtection.choose(filter: .init(enabled: true))
        #expect(installed == .contentFilter(enabled: true))
        #expect(!installed.offersTunnelSwitch, "never both: only the tunnel can ask the person")
        #expect(NetworkProtection.choose(filter: .init(enabled: false)) == .contentFilter(enabled: false))
        #expect(NetworkProtection.contentFilter(enabled: false).explanation.contains("turned it off"))
    }
}

/// The network extensions' work: bounded, and reading the shared state only when it changed.
@Suite("Network extensions' work")
struct ExtensionWorkTests {
    /// An upstream that answers after `delay`, counting how many queries wait on it at once.
    final class SlowUpstream: DNSUpstream, @unchecked Sendable {
        private let lock = NSLock()
        private var waiting = 0
        private(set) var mostWaiting = 0
        let delay: Duration

        init(delay: Duration) {
            self.delay = delay
        }

        func resolve(_ query: [UInt8]) async throws -> [UInt8] {
            lock.withLock {
                waiting += 1
                mostWaiting = max(mostWaiting, waiting)
            }
            try? await Task.sleep(for: delay)
            lock.withLock { waiting -= 1 }
            var response = DNSMessage.response(to: try DNSMessage(decoding: query))
            response.answers = [.a(response.questions[0].name, IPAddress("192.0.2.80")!, ttl: 60)]
            return response.encoded()
        }
    }

    /// Packets handed out in batches, then the end of the interface.
    final class Batches: @unchecked Sendable {
        private let lock = NSLock()
        private var remaining: [[Data]]
        private var written: [UDPPacket] = []

        init(_ batches: [[Data]]) {
            remaining = batches
        }

        func read() async -> [Data]? { lock.withLock { remaining.isEmpty ? nil : remaining.removeFirst() } }
        func write(_ packet: UDPPacket) { lock.withLock { written.append(packet) } }
        var replies: [UDPPacket] { lock.withLock { written } }
    }

    @Test func thePumpAnswersEveryPacketWithBoundedWork() async throws {
        let upstream = SlowUpstream(delay: .milliseconds(20))
        let tunnel = DNSTunnel(
            container: TemporaryContainer().container, configuration: .init(upstream: upstream), notifier: RecordingAsker())
        let queries = try (0..<400).map { Data(try DNSTunnelTests.query("host\($0).example", id: UInt16($0))) }
        let batches = Batches(stride(from: 0, to: queries.count, by: 50).map { Array(queries[$0..<min($0 + 50, queries.count)]) })
        let read = await TunnelPacketPump(maximumInFlight: 16).run(
            tunnel: tunnel, read: { await batches.read() }, write: { batches.write($0) })
        #expect(read == 400)
        #expect(batches.replies.count == 400, "nothing is lost: the pump stops reading instead")
        let ids = Set(try batches.replies.map { try DNSMessage(decoding: $0.payload).header.id })
        #expect(ids == Set((0..<400).map(UInt16.init)))
        #expect(upstream.mostWaiting <= 16, "at most 16 queries wait on the upstream at once, not 400")
        #expect(upstream.mostWaiting > 1, "but they do wait together: a slow answer holds up no other")
    }

    @Test func theTunnelReadsTheSharedStateOnlyWhenItChanged() async throws {
        let temporary = try DNSTunnelTests.container(policy: .ask)
        let clock = TestClock()
        let tunnel = DNSTunnel(
            container: temporary.container, configuration: .init(upstream: ScriptedUpstream.address(), reloadInterval: 30),
            notifier: RecordingAsker(), clock: clock.read)
        for id in 0..<200 {
            _ = await tunnel.handle(try DNSTunnelTests.query(id.isMultiple(of: 2) ? "acme.example" : "example.org", id: UInt16(id)))
            clock.advance(1)  // several reload intervals pass
        }
        #expect(await tunnel.allowlistReads == 1, "100 queries about a struck employer, one read of the allowlist")
        #expect(await tunnel.blocklistReads == 1, "the matchers are built once while nothing changes")

        // "Proceed" in the app: the allowlist changes; the tunnel is told and reads it, not the lists.
        try AllowlistStore(database: temporary.state.database).add("acme.example", expiresAt: clock.read().addingTimeInterval(86_400))
        await tunnel.reloadNow()
        #expect(await tunnel.handle(try DNSTunnelTests.query("acme.example")).answer == .forwarded)
        #expect(await tunnel.allowlistReads == 2)
        #expect(await tunnel.blocklistReads == 1)

        // A new copy of the Picket list: the matchers are built again.
        let list = temporary.container.home.listsURL.appendingPathComponent("picket-a")
        let data = try Data(contentsOf: list)
        try (data + Data(" ".utf8)).write(to: list)
        await tunnel.reloadNow()
        _ = await tunnel.handle(try DNSTunnelTests.query("example.org"))
        #expect(await tunnel.blocklistReads == 2)
    }

    @Test func theContentFilterDropsStruckEmployersFlowsFromOtherApps() throws {
        let temporary = try DNSTunnelTests.container(policy: .ask)
        let judge = ContentFilterJudge(container: temporary.container, ownBundleIdentifier: "org.example.pepper")
        let safari = "ABCDE12345.com.apple.mobilesafari"
        #expect(
            judge.verdict(for: .init(host: "shop.acme.example", url: nil, sourceApp: safari)) == .ask(employerId: "emp_acme"),
            "under ask, the first flow to the employer goes to the control provider, which asks")
        #expect(
            judge.verdict(for: .init(host: nil, url: "https://WWW.Acme.Example./jobs", sourceApp: "ABCDE12345.org.example.news"))
                == .drop(employerId: "emp_acme"), "a browser flow is judged by its URL's host; asked already: dropped")
        #expect(judge.verdict(for: .init(host: "example.org", url: nil, sourceApp: safari)) == .allow)
        #expect(judge.verdict(for: .init(host: nil, url: nil, sourceApp: safari)) == .allow, "no host: nothing to judge")
        #expect(
            judge.verdict(for: .init(host: "acme.example", url: nil, sourceApp: "ABCDE12345.org.example.pepper.PacketTunnel")) == .allow,
            "Pepper's own flows are never filtered")
        #expect(judge.dropsByApp == [safari: 1, "ABCDE12345.org.example.news": 1])
    }

    @Test func theContentFilterFollowsPolicyAndAllowlist() async throws {
        let temporary = try DNSTunnelTests.container(policy: .block)
        let clock = TestClock()
        let judge = ContentFilterJudge(
            container: temporary.container, ownBundleIdentifier: "org.example.pepper", reloadInterval: 30, clock: clock.read)
        let flow = ContentFilterJudge.Flow(host: "acme.example", url: nil, sourceApp: "T.com.example.app")
        #expect(judge.verdict(for: flow) == .drop(employerId: "emp_acme"))
        try AllowlistStore(database: temporary.state.database).add("acme.example", expiresAt: clock.read().addingTimeInterval(3_600))
        #expect(judge.verdict(for: flow) == .drop(employerId: "emp_acme"), "read again only after the interval")
        clock.advance(31)
        #expect(judge.verdict(for: flow) == .allow)
        clock.advance(3_600)
        #expect(judge.verdict(for: flow) == .drop(employerId: "emp_acme"), "the entry lapsed")
        _ = try await temporary.state.setPicketPolicy(.allow, rebuild: false)
        judge.reloadNow()
        #expect(judge.verdict(for: flow) == .allow)
    }

    @Test func withoutTheSharedStateTheContentFilterDropsNothing() {
        let judge = ContentFilterJudge(container: TemporaryContainer().container, ownBundleIdentifier: "org.example.pepper")
        #expect(judge.verdict(for: .init(host: "acme.example", url: nil, sourceApp: nil)) == .allow)
    }
}

/// The app's notifications name an action type in words, as every other face does.
@Suite("Action types in notifications")
struct ActionTypeWordingTests {
    @Test func everyTypeReadsAsWordsInTheTunnelsQuestion() {
        for type in ActionType.allCases {
            let notice = PicketNotice(
                url: "acme.example", employer: "Acme", employerId: "emp", actionType: type.rawValue, organization: "Acme Workers",
                location: nil, startDate: nil, endDate: nil, details: nil, source: "s", canProceed: true)
            let question = PicketAskNotification(host: "acme.example", notice: notice, app: .dnsLookup)
            #expect(question.title == "Acme: \(type.noun) in progress")
            #expect(!question.title.contains("_") && !question.body.contains("_"), "\(type)")
            #expect(question.body.contains("(\(type.noun) by Acme Workers)"))
        }
    }
}
