import CallFilter
import CallFilterTestSupport
import Foundation
import Testing

/// The numbers a call block list was asked about.
private final class AskedNumbers: @unchecked Sendable {
    private let lock = NSLock()
    private var asked: [Int64] = []

    func append(_ number: Int64) { lock.withLock { asked.append(number) } }
    func removeAll() { lock.withLock { asked.removeAll() } }
    var numbers: [Int64] { lock.withLock { asked } }
}

@Suite("Message filter")
struct MessageFilterTests {
    let parser = try! PhoneNumberParser(defaultRegion: "US")

    func filter(_ rules: MessageFilterRules) -> MessageFilter { MessageFilter(rules: rules, parser: parser) }
    var defaults: MessageFilterRules { MessageFilterRules(wordRules: MessageFilterRules.defaultWords.map { WordRule(word: $0) }) }

    @Test func acceptanceSentenceIsJunkByTheWordRule() {
        let verdict = filter(defaults).classify(sender: "+15551234567", body: "You have WON a fr3e cruise")
        #expect(verdict.action == .junk)
        #expect(verdict.rule == .word(word: "won", matched: "WON"))
        #expect(verdict.rule.description == "word rule \"won\" matched \"WON\"")
    }

    @Test(arguments: [
        ("Get it FREE today", "FREE"), ("get it fr3e", "fr3e"), ("get it frее", "frее"), ("get it ｆｒｅｅ", "ｆｒｅｅ"),
        ("get it 𝐟𝐫𝐞𝐞", "𝐟𝐫𝐞𝐞"), ("get it fr\u{200B}ee", "fr\u{200B}ee"), ("get it fréé!", "fréé"), ("get it F-R-E-E? no: free.", "free"),
        ("Get it φree", nil), ("get it frεε", "frεε"), ("you w0n", "w0n"), ("y0u h@ve w0n", "w0n"),
    ])
    func foldsLookAlikes(body: String, matched: String?) {
        let verdict = filter(defaults).classify(sender: "+15551234567", body: body)
        if let matched {
            #expect(verdict.action == .junk, "\(body)")
            if case .word(_, let text) = verdict.rule { #expect(text == matched) } else { Issue.record("\(verdict.rule)") }
        } else {
            #expect(verdict.action == .allow, "\(body)")
        }
    }

    @Test(arguments: ["Freedom is near", "a carefree day", "I won't go", "the wonton soup", "free-range? no", "WONDERFUL"])
    func matchesWholeWordsOnly(body: String) {
        let verdict = filter(defaults).classify(sender: nil, body: body)
        if body == "free-range? no" {
            #expect(verdict.action == .junk)  // "free" is a whole word before the hyphen
        } else {
            #expect(verdict.action == .allow, "\(body): \(verdict.rule)")
        }
    }

    @Test func phrasesAndManyWords() {
        var rules = MessageFilterRules(wordRules: (0..<2_000).map { WordRule(word: "word\($0)x") })
        rules.wordRules.append(WordRule(word: "click here"))
        rules.wordRules.append(WordRule(word: "limited offer", action: .promotion, subAction: .promotionalOffers))
        let filter = filter(rules)
        #expect(filter.classify(sender: nil, body: "please CLICK  here!").rule == .word(word: "click here", matched: "CLICK  here"))
        #expect(filter.classify(sender: nil, body: "click there").action == .allow)
        #expect(filter.classify(sender: nil, body: "about word1999x").rule == .word(word: "word1999x", matched: "word1999x"))
        let promotion = filter.classify(sender: nil, body: "A Limited Offer for you")
        #expect(promotion.action == .promotion)
        #expect(promotion.subAction == .promotionalOffers)
    }

    @Test func strongestActionWinsThenEarliest() {
        let rules = MessageFilterRules(wordRules: [
            WordRule(word: "code", action: .transaction, subAction: .transactionalFinance), WordRule(word: "sale", action: .promotion),
            WordRule(word: "prize"), WordRule(word: "winner"),
        ])
        let filter = filter(rules)
        #expect(filter.classify(sender: nil, body: "Your code is 1234").action == .transaction)
        #expect(filter.classify(sender: nil, body: "sale: your code").action == .promotion)
        #expect(filter.classify(sender: nil, body: "sale winner prize").rule == .word(word: "winner", matched: "winner"))
    }

    @Test func senderRulesContactsAndCombinations() {
        let contacts = VCardContacts.senderKeys(
            """
            BEGIN:VCARD
            VERSION:3.0
            FN:Mum
            TEL;TYPE=CELL:(425) 555-0100
            item1.TEL;type=pref:tel:+44-20-7946-
             0000
            END:VCARD
            BEGIN:VCARD
            VERSION:4.0
            FN:Bank
            TEL;VALUE=uri:tel:+1-800-555-0199
            END:VCARD
            """, parser: parser)
        #expect(contacts == ["+14255550100", "+442079460000", "+18005550199"])
        let rules = MessageFilterRules(
            blockedSenders: ["+12539501212", "spammer"],
            wordRules: [WordRule(word: "free"), WordRule(word: "verify", action: .junk, sender: "+18885550123")],
            contacts: contacts, contactsOnly: true)
        let filter = filter(rules)
        #expect(filter.classify(sender: "4255550100", body: "free pizza").rule == .contact(sender: "+14255550100"))
        #expect(filter.classify(sender: "(253) 950-1212", body: "hi").rule == .blockedSender(sender: "+12539501212"))
        #expect(filter.classify(sender: "SPAMMER", body: "hi").rule == .blockedSender(sender: "spammer"))
        #expect(
            filter.classify(sender: "+1 888 555 0123", body: "Please verify your FREE account").rule
                == .senderWord(sender: "+18885550123", word: "verify", matched: "verify"))
        #expect(filter.classify(sender: "+1 888 555 0124", body: "Please verify").rule == .unknownSender(sender: "+18885550124"))
        #expect(filter.classify(sender: "+1 888 555 0124", body: "free").rule == .word(word: "free", matched: "free"))
        var open = rules
        open.contactsOnly = false
        #expect(self.filter(open).classify(sender: "+1 888 555 0124", body: "Please verify").action == .allow)
    }

    @Test func sendersOnTheCallBlockListAreJunkAfterContactsAndBeforeWords() throws {
        let asked = AskedNumbers()
        let blockList = CallBlockList { number in
            asked.append(number)
            return number == 12_539_501_212 || number == 442_079_460_000
        }
        let rules = MessageFilterRules(
            blockedSenders: ["spammer"], wordRules: [WordRule(word: "order", action: .transaction)], contacts: ["+14255550100"])
        let filter = MessageFilter(rules: rules, parser: parser, callBlockList: blockList)
        let blocked = filter.classify(sender: "(253) 950-1212", body: "your order")
        #expect(blocked.action == .junk)
        #expect(blocked.rule == .callBlockList(sender: "+12539501212"))
        #expect(blocked.rule.kind == "call-block-list")
        #expect(blocked.rule.description == "+12539501212 is on the call block list")
        // A contact's messages stay allowed (the message filter's order), and an unlisted number
        // goes on to the word rules.
        #expect(filter.classify(sender: "+1 425 555 0100", body: "hi").rule == .contact(sender: "+14255550100"))
        #expect(filter.classify(sender: "+1 206 555 0100", body: "your order").action == .transaction)
        // Sender IDs are not numbers: the block list is not asked about them.
        asked.removeAll()
        #expect(filter.classify(sender: "SPAMMER", body: "hi").rule == .blockedSender(sender: "spammer"))
        #expect(filter.classify(sender: "BANK", body: "hi").action == .allow)
        #expect(asked.numbers.isEmpty)
        // The same filter read in the receiver's country finds national numbers there.
        let handler = try MessageFilterHandler(rules: rules, defaultRegion: "US", callBlockList: blockList)
        #expect(
            handler.verdict(for: MessageFilterQuery(sender: "020 7946 0000", messageBody: "", receiverISOCountryCode: "GB")).rule
                == .callBlockList(sender: "+442079460000"))
        #expect(handler.verdict(for: MessageFilterQuery(sender: "020 7946 0000", messageBody: "your order")).action == .transaction)
        #expect(MessageFilter(rules: rules, parser: parser).classify(sender: "(253) 950-1212", body: "hi").action == .allow)
    }

    @Test func handlerAnswersExactlyOnceWithAMatchingSubAction() throws {
        let rules = MessageFilterRules(wordRules: [
            WordRule(word: "free"), WordRule(word: "order", action: .transaction, subAction: .transactionalOrders),
            // A mismatched sub-action (promotional on a transaction) must not reach IdentityLookup.
            WordRule(word: "shipped", action: .transaction, subAction: .promotionalCoupons),
        ])
        let handler = try MessageFilterHandler(rules: rules)
        var recorded: [MessageVerdict] = []
        for (body, expected) in [
            ("free", MessageFilterResponse(action: .junk)),
            ("your order", MessageFilterResponse(action: .transaction, subAction: .transactionalOrders)),
            ("shipped", MessageFilterResponse(action: .transaction)), ("hello", MessageFilterResponse(action: .allow)),
        ] {
            let strict = StrictMessageFilterCompletion()
            handler.handle(
                MessageFilterQuery(sender: "+15551234567", messageBody: body), record: { recorded.append($1) }, completion: strict.complete)
            strict.finish()
            #expect(strict.violations.isEmpty, "\(body): \(strict.violations)")
            #expect(strict.responses == [expected], "\(body)")
        }
        // The fake itself catches what IdentityLookup rejects.
        let broken = StrictMessageFilterCompletion()
        broken.complete(MessageFilterResponse(action: .junk, subAction: .promotionalOffers))
        broken.complete(MessageFilterResponse(action: .allow))
        #expect(broken.violations.count == 2)
        let silent = StrictMessageFilterCompletion()
        silent.finish()
        #expect(silent.violations == ["completion never called"])
        #expect(recorded.map(\.action) == [.junk, .transaction, .transaction, .allow])
        // The receiver's country reads national sender numbers.
        let blocking = try MessageFilterHandler(rules: MessageFilterRules(blockedSenders: ["+442079460000"]))
        #expect(
            blocking.verdict(for: MessageFilterQuery(sender: "020 7946 0000", messageBody: "", receiverISOCountryCode: "gb")).action
                == .junk)
        #expect(blocking.verdict(for: MessageFilterQuery(sender: "020 7946 0000", messageBody: "")).action == .allow)
    }

    @Test func foldedWordsForDisplay() {
        #expect(TextFolding.foldedWords("You have W0N!") == "you have won")
        #expect(TextFolding.foldedWords("  Ｃｌｉｃｋ  HERE ") == "ciick here")
    }
}
