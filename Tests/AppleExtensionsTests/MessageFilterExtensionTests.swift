#if !canImport(ObjectiveC)
import AppExtensionSupport
import AppleExtensions
@_spi(ShimTesting) import AppleShims
import AppleTestSupport
import CallFilter
import Foundation
import Storage
import Testing

/// The message-filter extension, asked as IdentityLookup asks, with every query's answer
/// checked once and against the filter's own verdict.
@Suite("Message-filter extension")
struct MessageFilterExtensionTests {
    @Test func everyQueryIsAnsweredOnceWithTheFiltersVerdict() throws {
        let shared = SharedContainer()
        _ = try shared.state.addMessageWord("sale", action: .promotion, subAction: .promotionalOffers, region: "US")
        _ = try shared.state.addMessageWord("your order", action: .transaction, subAction: .transactionalOrders, region: "US")
        _ = try shared.state.blockSender("+1 206 555 0100", region: "US")
        let reference = try MessageFilterHandler(rules: MessageRuleStore(database: shared.state.database).rules(), defaultRegion: "US")
        let messages: [(String?, String?, MessageAction)] = [
            ("+15551234567", "You have WON a fr3e cruise", .junk),
            ("+15551234567", "See you at six", .allow),
            ("SHOPCO", "Big sale this weekend", .promotion),
            ("72975", "Your order has shipped", .transaction),
            ("(206) 555-0100", "Hello from a blocked sender", .junk),
            (nil, nil, .allow),
        ]
        let filter = MessageFilterExtension(container: shared.container)
        for (sender, body, expected) in messages {
            let answer = StrictMessageFilterQueries.ask(filter, sender: sender, body: body, country: "US")
            #expect(answer.violations.isEmpty, "\(answer.violations)")
            let response = try #require(answer.response)
            #expect(response.action == expected, "\(sender ?? "nil"): \(body ?? "nil")")
            var verdict: MessageFilterResponse?
            reference.handle(MessageFilterQuery(sender: sender, messageBody: body, receiverISOCountryCode: "US")) { verdict = $0 }
            #expect(response == verdict)
        }
        #expect(
            StrictMessageFilterQueries.ask(filter, sender: "SHOPCO", body: "Big sale", country: "US").response?.subAction
                == .promotionalOffers)
    }

    @Test func theRulesAreOnlyRead() throws {
        let shared = SharedContainer()
        _ = try shared.state.addMessageWord("prize", action: .junk, region: "US")
        let decisions = try DecisionStore(database: shared.state.database).dailyCounts(.message, since: "0000-00-00")
        let before = shared.files()
        let filter = MessageFilterExtension(container: shared.container)
        for index in 0..<20 {
            #expect(
                StrictMessageFilterQueries.ask(filter, sender: "+1555000\(1000 + index)", body: "Claim your prize").response?.action
                    == .junk)
        }
        #expect(shared.files() == before, "the extension created or changed files in the shared container")
        #expect(try DecisionStore(database: shared.state.database).dailyCounts(.message, since: "0000-00-00") == decisions)
    }

    @Test func withoutReadableRulesMessagesAreLetThrough() {
        let filter = MessageFilterExtension(container: SharedContainer.empty().container)
        let answer = StrictMessageFilterQueries.ask(filter, sender: "+15551234567", body: "You have WON")
        #expect(answer.violations.isEmpty)
        #expect(answer.response?.action == .allow)
        let unconfigured = StrictMessageFilterQueries.ask(MessageFilterExtension(), sender: "+15551234567", body: "You have WON")
        #expect(unconfigured.response?.action == .allow)
    }

    @Test func theCapabilitiesNameEveryFolderPepperFilesIn() {
        let received = Locked<[ILMessageFilterCapabilitiesQueryResponse]>([])
        MessageFilterExtension(container: SharedContainer.empty().container).handle(
            ILMessageFilterCapabilitiesQueryRequest(), context: ILMessageFilterExtensionContext()
        ) { response in received.withLock { $0.append(response) } }
        let responses = received.current
        #expect(responses.count == 1)
        #expect(Set(responses.first?.transactionalSubActions.map(\.rawValue) ?? []) == Set(10_000...10_008))
        #expect(Set(responses.first?.promotionalSubActions.map(\.rawValue) ?? []) == Set(20_000...20_002))
    }
}
#endif
