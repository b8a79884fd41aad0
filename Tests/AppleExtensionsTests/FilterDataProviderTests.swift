#if !canImport(ObjectiveC)
import AppExtensionSupport
@_spi(ShimTesting) import AppleShims
import AppleExtensions
@_spi(ShimTesting) import AppleTestSupport
import Foundation
import Picket
import Testing

/// The content-filter extension, started and handed flows as iOS does.
@Suite("Content-filter extension")
struct FilterDataProviderTests {
    static func socketFlow(to host: String?, from app: String?) -> NEFilterSocketFlow {
        let flow = NEFilterSocketFlow()
        flow.shimRemoteHostname = host
        flow.shimSourceAppIdentifier = app
        return flow
    }

    static func browserFlow(_ url: String, from app: String?) -> NEFilterFlow {
        let flow = NEFilterFlow()
        flow.shimURL = URL(string: url)
        flow.shimSourceAppIdentifier = app
        return flow
    }

    /// Starts the provider as iOS does (the completion-handler form) and waits for it.
    static func start(_ provider: FilterDataProvider) async -> [String?] {
        let started = TunnelStartCompletion()
        provider.startFilter(completionHandler: started.handler)
        return await started.waitForResult()
    }

    @Test func flowsToStruckEmployersSitesAreDroppedForEveryApp() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let provider = FilterDataProvider(
            judge: ContentFilterJudge(container: shared.container, ownBundleIdentifier: "org.example.pepper"))
        #expect(await Self.start(provider) == [nil])
        #expect(provider.handleNewFlow(Self.socketFlow(to: "www.acme.example", from: "T.com.example.mail")).shimKind == .drop)
        #expect(
            provider.handleNewFlow(Self.browserFlow("https://shop.acme.example/cart", from: "T.com.apple.mobilesafari")).shimKind == .drop)
        #expect(provider.handleNewFlow(Self.socketFlow(to: "example.org", from: "T.com.example.mail")).shimKind == .allow)
        #expect(
            provider.handleNewFlow(Self.socketFlow(to: nil, from: "T.com.example.mail")).shimKind == .allow, "an address without a name")
        #expect(
            provider.handleNewFlow(Self.socketFlow(to: "acme.example", from: "T.org.example.pepper")).shimKind == .allow,
            "Pepper itself is never filtered")
    }

    @Test func underAskTheFirstFlowGoesToTheControlProviderAndTheRestAreDropped() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .ask)
        let provider = FilterDataProvider(
            judge: ContentFilterJudge(container: shared.container, ownBundleIdentifier: "org.example.pepper"))
        _ = await Self.start(provider)
        let before = shared.files()
        #expect(
            provider.handleNewFlow(Self.socketFlow(to: "acme.example", from: "T.com.example.app")).shimKind == .needRules,
            "the data provider cannot notify: its control provider asks")
        #expect(provider.handleNewFlow(Self.socketFlow(to: "www.acme.example", from: "T.com.example.other")).shimKind == .drop)
        provider.handleRulesChanged()
        #expect(
            provider.handleNewFlow(Self.socketFlow(to: "acme.example", from: "T.com.example.app")).shimKind == .drop,
            "asked within the last 10 minutes: rules read again, no second question")
        #expect(shared.files() == before, "the data provider writes nothing")
    }

    @Test func beforeStartingAndAfterStoppingNothingIsDropped() async throws {
        let shared = SharedContainer()
        try shared.addPicketBlocklist(policy: .block)
        let provider = FilterDataProvider(
            judge: ContentFilterJudge(container: shared.container, ownBundleIdentifier: "org.example.pepper"))
        #expect(provider.handleNewFlow(Self.socketFlow(to: "acme.example", from: nil)).shimKind == .allow)
        _ = await Self.start(provider)
        #expect(provider.handleNewFlow(Self.socketFlow(to: "acme.example", from: nil)).shimKind == .drop)
        let stopped = Locked(false)
        provider.stopFilter(with: .userInitiated) { stopped.withLock { $0 = true } }
        let deadline = ContinuousClock.now.advanced(by: .seconds(10))
        while !stopped.current, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(2)) }
        #expect(stopped.current)
        #expect(provider.handleNewFlow(Self.socketFlow(to: "acme.example", from: nil)).shimKind == .allow)
    }

    @Test func withoutAnAppGroupTheFilterDoesNotStart() async {
        let results = await Self.start(FilterDataProvider())
        #expect(results.count == 1)
        #expect(results.first??.isEmpty == false)
    }
}
#endif
