import Testing

@testable import CallFilter

@Suite("Call screening and look-alike examples")
struct CallScreeningTests {
    let parser = try! PhoneNumberParser(defaultRegion: "US")

    func number(_ text: String) -> PhoneNumber { try! parser.parse(text) }

    @Test func theBlockListComesFirstThenContactsThenTheSwitchThenLabels() {
        let contact = number("+1 425 555 0100")
        let stranger = number("+1 206 555 0142")
        var screening = CallScreening(contacts: [contact.e164])
        // Off: labels identify, everyone else rings.
        #expect(screening.decide(stranger, listing: .init(blocked: false)).action == .allow)
        #expect(screening.decide(stranger, listing: .init(blocked: false)).reason == .noRule)
        let labelled = screening.decide(stranger, listing: .init(blocked: false, label: "Pizza"))
        #expect(labelled.action == .identify && labelled.label == "Pizza" && labelled.reason.kind == "label")
        // A blocked range wins, even over a contact the person blocked on purpose.
        let blocked = screening.decide(contact, listing: .init(blocked: true, blockedPattern: "+142555501##"))
        #expect(blocked.action == .block && blocked.reason == .blockList(pattern: "+142555501##"))
        #expect(blocked.reason.description == "it is in the blocked range +142555501##")
        // On: only contacts ring; a labelled stranger is blocked too.
        screening.blockAllExceptContacts = true
        #expect(screening.decide(contact, listing: .init(blocked: false)).action == .allow)
        #expect(screening.decide(contact, listing: .init(blocked: false)).reason == .contact)
        let refused = screening.decide(stranger, listing: .init(blocked: false, label: "Pizza"))
        #expect(refused.action == .block && refused.reason == .notAContact && refused.reason.kind == "not-a-contact")
        // With no contact at all, nobody rings.
        #expect(CallScreening(blockAllExceptContacts: true).decide(contact, listing: .init(blocked: false)).action == .block)
    }

    @Test func everyLookAlikeExampleFoldsBackToTheWord() {
        for word in ["free", "won", "prize", "click here", "Verify", "xyz", "urgent"] {
            let examples = TextFolding.lookAlikeExamples(of: word)
            #expect(!examples.isEmpty, "\(word)")
            for example in examples {
                #expect(TextFolding.foldedWords(example.text) == TextFolding.foldedWords(word), "\(word): \(example)")
                #expect(example.text != word && example.text != word.lowercased(), "\(word): an example differs from the word")
            }
            #expect(Set(examples.map(\.text)).count == examples.count, "\(word): no example twice")
        }
        #expect(TextFolding.lookAlikeExamples(of: "free").map(\.text) == ["FR3E", "fr\u{435}\u{435}", "fréé"])
        #expect(TextFolding.lookAlikeExamples(of: "free")[1].text.unicodeScalars.contains { $0.value == 0x0435 }, "a Cyrillic е")
        #expect(TextFolding.lookAlikeExamples(of: "!!!").isEmpty)
        // And a message spelled that way is caught by the rule.
        let filter = MessageFilter(rules: MessageFilterRules(wordRules: [WordRule(word: "prize")]), parser: parser)
        for example in TextFolding.lookAlikeExamples(of: "prize") {
            #expect(filter.classify(sender: "+15550109999", body: "Claim your \(example.text) now").action == .junk, "\(example)")
        }
    }

    @Test func theSMSGuardSwitchedOffAllowsEverythingAndKeepsTheRules() {
        var rules = MessageFilterRules(
            blockedSenders: ["+12539501212"], wordRules: [WordRule(word: "won")], contactsOnly: true, enabled: false)
        let filter = MessageFilter(rules: rules, parser: parser)
        for (sender, text) in [("+12539501212", "hi"), ("+15550100000", "You won"), ("SHOP", "sale")] {
            let verdict = filter.classify(sender: sender, body: text)
            #expect(verdict.action == .allow && verdict.rule == .filterOff && verdict.rule.kind == "off", "\(sender)")
        }
        rules.enabled = true
        #expect(MessageFilter(rules: rules, parser: parser).classify(sender: "+12539501212", body: "hi").action == .junk)
    }
}
