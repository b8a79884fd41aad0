import CallFilter
import Foundation
import PepperActions
import Storage
import Testing

@testable import Screens

@Suite("Calls screen")
struct CallsScreenTests {
    @Test func aRangeIsShownNormalisedBeforeItIsSavedThenListedAsOneLine() async throws {
        let temporary = TemporaryState()
        let screen = CallsScreen(state: temporary.state)
        let preview = try await screen.preview("+1 (206) 555-01##").get()
        #expect(preview.value == "+120655501##" && preview.numbers == 100)
        #expect(preview.first == "+12065550100" && preview.last == "+12065550199")
        #expect(try await screen.load().export.blocking == 1, "a preview saves nothing")
        let single = try await screen.preview("253-950-1299").get()
        #expect(single.value == "+12539501299" && single.numbers == 1)
        guard case .failure(let refused) = await screen.preview("call me") else { Issue.record("letters are not a number"); return }
        #expect(refused.field == "number" && refused.text.contains("not a phone number"))

        let blocked = await screen.block(preview.value)
        #expect(blocked.kind == .success && blocked.text.contains("+120655501## (100 numbers)"), "\(blocked)")
        #expect(await screen.block(preview.value).kind == .info, "blocking twice changes nothing")
        let loaded = try await screen.load()
        #expect(loaded.blocked.map(\.shown) == ["+120655501## (100 numbers)", "+12539501212"])
        #expect(loaded.blocked.first?.value == "+120655501##")
        #expect(loaded.export.blocking == 101 && loaded.export.version == 2)
        #expect(loaded.regions.contains("GB") && loaded.region == "US")
        #expect(await screen.unblock("+120655501##").kind == .success)
        #expect(try await screen.load().export.blocking == 1)
        #expect(await screen.unblock("+120655501##").isError)
    }

    @Test func labelsAreAddedEditedAndRemoved() async throws {
        let temporary = TemporaryState()
        let screen = CallsScreen(state: temporary.state)
        #expect(await screen.identify("425 555 0100", label: "  ").field == "label")
        #expect(await screen.identify("425 555 0100", label: String(repeating: "x", count: 65)).field == "label")
        #expect(await screen.identify("425 555 0100", label: "Pizza place").kind == .success)
        #expect(await screen.identify("+14255550100", label: "Pizza Palace").kind == .success)
        #expect(try await screen.load().identified.first { $0.value == "+14255550100" }?.label == "Pizza Palace")
        #expect(await screen.identify("+14255550100", label: "Pizza Palace").kind == .info)
        #expect(await screen.unidentify("+14255550100").kind == .success)
        #expect(try await screen.load().identified.map(\.value) == ["+14259501212"])
    }

    @Test func blockAllExceptContactsLetsOnlyContactsRingAndTriesAreNotCounted() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let screen = CallsScreen(state: state)
        let warning = await screen.setBlockAllExceptContacts(true)
        #expect(warning.kind == .warning && warning.text.contains("no contact is imported"))
        #expect(await screen.importContacts(vCard: "nothing here").field == "contacts")
        #expect(await screen.importContacts(vCard: "BEGIN:VCARD\nFN:x\nEND:VCARD\n").text == "The contact in it has no phone number.")
        let vcard = "BEGIN:VCARD\nVERSION:3.0\nFN:Mum\nTEL:+1 425 555 0100\nTEL:(425) 555-0101\nEND:VCARD\n"
        #expect(await screen.importContacts(vCard: vcard).text == "Imported 2 numbers of 1 contact; calls and messages use them now.")
        #expect(try state.messageRules().contacts == ["+14255550100", "+14255550101"], "messages share the contacts")
        let withContacts = try await screen.load()
        #expect(withContacts.contacts == 2 && withContacts.blockAllExceptContacts)
        let stranger = try await screen.tryCall("206 555 0142").get()
        #expect(stranger.action == "block" && stranger.explanation.contains("not one of your contacts"))
        let mum = try await screen.tryCall("+1 425 555 0101").get()
        #expect(mum.action == "allow" && mum.explanation == "Rings: it is one of your contacts.")
        #expect(try DecisionStore(database: state.database).counts(.call).isEmpty)
        #expect(await screen.setBlockAllExceptContacts(false).kind == .success)
        let labelled = try await screen.tryCall("+1 425 950 1212").get()
        #expect(labelled.action == "identify" && labelled.label == "Suspicious")
        guard case .failure(let bad) = await screen.tryCall("hello") else { Issue.record("not a number"); return }
        #expect(bad.field == "try-number")
    }

    @Test func countsComeFromRecordedCallsAndTheRegionIsShared() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        _ = try state.checkCall("+1 253 950 1212", region: "US")
        _ = try state.checkCall("+1 425 950 1212", region: "US")
        _ = try state.checkCall("+1 206 555 0100", region: "US")
        let counts = try await CallsScreen(state: state).load().counts
        #expect(counts.map(\.label) == ["Calls blocked", "Calls identified", "Calls allowed"])
        #expect(counts.map(\.today) == [1, 1, 1] && counts.map(\.week) == [1, 1, 1])
        let screen = CallsScreen(state: state)
        #expect(await screen.setRegion("zz").field == "region")
        #expect(await screen.setRegion("gb").kind == .success)
        #expect(try state.phoneRegion() == "GB")
        #expect(try await screen.preview("020 7946 0000").get().value == "+442079460000", "national numbers are read in the region")
    }
}

@Suite("Messages screen")
struct MessagesScreenTests {
    @Test func wordsAreAddedWithTheirLookAlikesAndMessagesTried() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let screen = MessagesScreen(state: state)
        #expect(await screen.addWord("prize", action: "allow").field == "action")
        #expect(await screen.addWord("!!!", action: "junk").field == "word")
        let added = await screen.addWord("prize", action: "promotion")
        #expect(added.kind == .success && added.text.contains(#""PR1ZE" (capitals, a digit for a letter)"#), "\(added)")
        let word = try #require(try await await screen.load().words.first { $0.word == "prize" })
        #expect(word.action == "promotion" && word.lookAlikes.map(\.text) == ["PR1ZE", "\u{440}r\u{456}ze", "prízé"], "Cyrillic р and і")
        #expect(
            await screen.addWord("PRIZE", action: "junk").text.contains("now sends messages to junk"), "the same folded word is updated")

        let trial = try await screen.tryMessage(from: "+1 555 010 9999", text: "Your prіze awaits").get()
        #expect(trial.action == "junk" && trial.ruleKind == "word" && trial.explanation.contains(#"matched "prіze""#))
        #expect(try DecisionStore(database: state.database).counts(.message).isEmpty, "trying is not counted")
        guard case .failure(let missing) = await screen.tryMessage(from: " ", text: "x") else { Issue.record("no sender"); return }
        #expect(missing.field == "try-sender")

        #expect(await screen.setEnabled(false).kind == .success)
        #expect(try await screen.tryMessage(from: "+1 555 010 9999", text: "Your prize").get().ruleKind == "off")
        #expect(try await !screen.load().enabled)
        #expect(await screen.setEnabled(true).kind == .success)
        #expect(await screen.removeWord("prize").kind == .success)
        #expect(await screen.removeWord("prize").isError)
    }

    @Test func sendersAndUnknownSenders() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let screen = MessagesScreen(state: state)
        #expect(await screen.blockSender("(253) 950-1212").text == "Messages from +12539501212 go to junk.")
        #expect(await screen.blockSender("+12539501212").kind == .info)
        #expect(await screen.blockSender("!!").field == "sender")
        #expect(try await screen.load().blockedSenders == ["+12539501212"])
        #expect(await screen.unblockSender("253 950 1212").kind == .success)
        #expect(await screen.unblockSender("253 950 1212").isError)
        #expect(await screen.setUnknownSendersAreJunk(true).kind == .warning, "no contacts yet: everything would be junk")
        _ = try state.importContacts(vCard: "BEGIN:VCARD\nTEL:+1 425 555 0100\nEND:VCARD\n", region: "US")
        #expect(try await screen.tryMessage(from: "+1 425 555 0100", text: "hi").get().ruleKind == "contact")
        #expect(try await screen.tryMessage(from: "+1 206 555 0100", text: "hi").get().ruleKind == "unknown-sender")
        let junkOn = try await screen.load()
        #expect(junkOn.unknownSendersAreJunk && junkOn.contacts == 1)

        _ = try state.checkMessage(from: "+1 206 555 0100", text: "hi", region: "US")
        _ = try state.checkMessage(from: "+1 425 555 0100", text: "hi", region: "US")
        let counts = try await screen.load().counts
        #expect(counts.map(\.today) == [1, 0, 0, 1], "\(counts)")
    }

    @Test func messagesFromNumbersBlockedForCallsAreJunkOnEveryFace() async throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let calls = CallsScreen(state: state)
        let messages = MessagesScreen(state: state)
        #expect(await calls.block("(206) 555-0199").kind == .success)
        let trial = try await messages.tryMessage(from: "206 555 0199", text: "hello").get()
        #expect(trial.action == "junk" && trial.ruleKind == "call-block-list", "\(trial)")
        #expect(trial.explanation.contains("+12065550199 is on the call block list"), "\(trial.explanation)")
        // The region the calls screen sets reads the senders too.
        #expect(await calls.setRegion("GB").kind == .success)
        #expect(await calls.block("020 7946 0000").kind == .success)
        #expect(try await messages.tryMessage(from: "020 7946 0000", text: "hi").get().ruleKind == "call-block-list")
        #expect(await calls.unblock("+12065550199").kind == .success)
        #expect(try await messages.tryMessage(from: "+1 206 555 0199", text: "hello").get().action == "allow")
    }
}
