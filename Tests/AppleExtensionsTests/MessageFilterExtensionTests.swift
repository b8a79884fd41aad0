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

    @Test func theDatabaseIsOnlyReadAndEachAnswerIsCountedInItsOwnFile() throws {
        let shared = SharedContainer()
        _ = try shared.state.addMessageWord("prize", action: .junk, region: "US")
        _ = try shared.state.blockNumber("+1 206 555 0199", region: "US")
        let decisions = try DecisionStore(database: shared.state.database).dailyCounts(.message, since: "0000-00-00")
        let before = shared.files()
        let filter = MessageFilterExtension(container: shared.container)
        for index in 0..<20 {
            #expect(
                StrictMessageFilterQueries.ask(filter, sender: "+1555000\(1000 + index)", body: "Claim your prize").response?.action
                    == .junk)
        }
        for _ in 0..<3 {
            #expect(StrictMessageFilterQueries.ask(filter, sender: "(206) 555-0199", body: "hello").response?.action == .junk)
        }
        for _ in 0..<5 {
            #expect(StrictMessageFilterQueries.ask(filter, sender: "+15551234567", body: "See you at six").response?.action == .allow)
        }
        // The database and everything else in the container are as they were; only the counts file is new.
        var after = shared.files()
        let countsPath = shared.container.messageFilterCountsURL.path
        #expect(after.removeValue(forKey: countsPath) != nil, "no counts file")
        after.removeValue(forKey: shared.container.extensionsURL.path)
        #expect(after == before, "the extension changed files other than its counts")
        #expect(try DecisionStore(database: shared.state.database).dailyCounts(.message, since: "0000-00-00") == decisions)
        let counts = try #require(try MessageFilterCounts.read(from: shared.container.messageFilterCountsURL))
        #expect(counts.actions == ["junk": 23, "allow": 5])
        #expect(counts.rules == ["word": 20, "call-block-list": 3, "none": 5])
        #expect(counts.filtered == 23 && counts.total == 28 && counts.unreadable == 0)
        let lines = MessageFilterCounts.infoLines(counts)
        #expect(lines.first == MessageFilterCounts.Line(label: "Messages filtered", value: "23 of 28"))
        #expect(lines.contains(MessageFilterCounts.Line(label: "Junk from numbers on the call block list", value: "3")))
        #expect(lines.last == MessageFilterCounts.Line(label: "Calls blocked or labelled", value: "not reported by iOS"))
    }

    @Test func theRulesArePreparedOncePerRevision() throws {
        let shared = SharedContainer()
        _ = try shared.state.addMessageWord("prize", action: .junk, region: "US")
        let rules = MessageRuleStore(database: shared.state.database)
        let filter = MessageFilterExtension(container: shared.container)
        let load = MessageFilterLoad.shared(shared.container)
        func ask(_ sender: String, _ body: String, country: String = "US") -> MessageAction? {
            StrictMessageFilterQueries.ask(filter, sender: sender, body: body, country: country).response?.action
        }
        for index in 0..<30 { #expect(ask("+1555000\(1000 + index)", "Claim your prize") == .junk) }
        #expect(load.preparations == 1)
        // A new word: prepared again once, and the next message sees it.
        var revision = try rules.revision()
        _ = try shared.state.addMessageWord("lottery", action: .junk, region: "US")
        #expect(try rules.revision() > revision)
        #expect(ask("+15551234567", "lottery results") == .junk)
        #expect(ask("+15551234567", "lottery again") == .junk)
        #expect(load.preparations == 2)
        // Changes that are not message rules leave the prepared rules as they are; a number blocked
        // for calls is junk at once (looked up for each message).
        revision = try rules.revision()
        _ = try shared.state.checkMessage(from: "+15551234567", text: "hi", region: "US")
        _ = try shared.state.blockNumber("+1 206 555 0199", region: "US")
        #expect(try rules.revision() == revision)
        #expect(ask("(206) 555-0199", "hello") == .junk)
        #expect(load.preparations == 2)
        // Each kind of rule change moves the revision: a blocked sender, the guard, the contacts, the region.
        var seen = [try rules.revision()]
        _ = try shared.state.blockSender("PROMO", region: "US")
        seen.append(try rules.revision())
        #expect(ask("PROMO", "hi") == .junk)
        try shared.state.setMessageFilter(enabled: false)
        seen.append(try rules.revision())
        #expect(ask("PROMO", "hi") == .allow)
        try shared.state.setMessageFilter(enabled: true)
        _ = try shared.state.importContacts(vCard: "BEGIN:VCARD\nTEL:+1 425 555 0100\nEND:VCARD\n", region: "US")
        seen.append(try rules.revision())
        #expect(ask("+1 425 555 0100", "your prize") == .allow)
        _ = try shared.state.blockSender("+44 20 7946 0000", region: "US")
        _ = try shared.state.setPhoneRegion("GB")
        seen.append(try rules.revision())
        // Read in the phone region when iOS gives no receiver country.
        #expect(StrictMessageFilterQueries.ask(filter, sender: "020 7946 0000", body: "hi", country: nil).response?.action == .junk)
        #expect(seen == seen.sorted() && Set(seen).count == seen.count, "\(seen)")
        #expect(load.preparations == 2 + 4, "one preparation per change asked about")
    }

    @Test func withoutReadableRulesMessagesAreLetThroughAndCountedAsSuch() throws {
        let empty = SharedContainer.empty()
        let filter = MessageFilterExtension(container: empty.container)
        let answer = StrictMessageFilterQueries.ask(filter, sender: "+15551234567", body: "You have WON")
        #expect(answer.violations.isEmpty)
        #expect(answer.response?.action == .allow)
        let counts = try #require(try MessageFilterCounts.read(from: empty.container.messageFilterCountsURL))
        #expect(counts.unreadable == 1 && counts.actions == ["allow": 1] && counts.filtered == 0)
        #expect(
            MessageFilterCounts.infoLines(counts).contains(MessageFilterCounts.Line(label: "Let through: rules unreadable", value: "1")))
        // A counts file that does not decode is an error to read, and counting starts again over it.
        try Data("{not json".utf8).write(to: empty.container.messageFilterCountsURL)
        #expect(throws: DecodingError.self) { try MessageFilterCounts.read(from: empty.container.messageFilterCountsURL) }
        _ = StrictMessageFilterQueries.ask(filter, sender: "+15551234567", body: "hi")
        #expect(try MessageFilterCounts.read(from: empty.container.messageFilterCountsURL)?.total == 1)
        #expect(MessageFilterCounts.infoLines(nil).first == MessageFilterCounts.Line(label: "Messages filtered", value: "none counted yet"))
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
