import CallFilter
import DNSFilter
import FilterEngine
import FilterLists
import Foundation
import ListSync
import Storage
import Testing

@testable import PepperActions

/// The decisions every face once made for itself, now made here once: what importing a file of
/// numbers does, how the call lists are grouped, a message check with other contacts, which
/// group shares the default DNS engine, the onboarding's answers, and how a source's failure is
/// told apart without reading its message.
@Suite("Decisions made once")
struct OneDecisionTests {
    @Test func importingNumbersAddsBlocksAndLabelsAndReportsTheLinesSkipped() throws {
        let temporary = TemporaryState()
        let state = temporary.state
        let text = "# my list\n+1 206 555 0100\n\n206 555 01##\t  Office  \nnot a number\n(425) 555-0199\tPizza\n"
        let imported = try state.importCallList(text, region: "US")
        #expect(imported.blocking == 1 && imported.identification == 101)
        #expect(imported.skipped.map(\.line) == [5])
        #expect(imported.skipped.first?.problem == .invalidNumber(input: "not a number", problem: .notANumber(.number(.notANumber))))
        #expect(imported.added == 102 && imported.removed == 0)
        let counts = try CallListStore(database: state.database).counts()
        #expect(counts[.blocking] == 2 && counts[.identification] == 102, "added to the lists there were (a fresh state has one of each)")

        // Replacing: both lists become the file's, in one version.
        let replaced = try state.importCallList("+1 206 555 0111\n", region: "US", replace: true)
        #expect(replaced.blocking == 1 && replaced.identification == 0 && replaced.removed == 104 && replaced.added == 1)
        #expect(try CallListStore(database: state.database).version() == replaced.version)
        #expect(try CallListStore(database: state.database).counts() == [.blocking: 1, .identification: 0])
        #expect(throws: ActionError.self) { try state.importCallList("+1 206 555 0100", region: "XX") }
    }

    @Test func aRangeIsOneLineOfTheCallListsAndANumberIsItsOwn() throws {
        let temporary = TemporaryState()
        let state = temporary.state
        _ = try state.blockNumber("+1 206 555 01##", region: "US")
        _ = try state.identifyNumber("425 555 0100", label: "Pizza", region: "US")
        let all = try state.callListLines()
        // The fresh state's own entries (+1 253-950-1212 blocked, +1 425-950-1212 "Suspicious") come too.
        #expect(all.total == 4 && all.lines.count == 4)
        let blocked = all.lines.filter { $0.kind == .blocking }
        #expect(blocked.map(\.numbers) == [100, 1], "block list first, by first number")
        #expect(blocked[0].pattern == "+120655501##" && blocked[0].number == "+12065550100" && blocked[0].value == "+120655501##")
        #expect(blocked[1].pattern == nil && blocked[1].number == "+12539501212" && blocked[1].value == "+12539501212")
        let labelled = all.lines.filter { $0.kind == .identification }
        #expect(labelled.map(\.label) == ["Pizza", "Suspicious"])
        let cut = try state.callListLines(limit: 1)
        #expect(cut.lines.count == 1 && cut.total == 4)
    }

    @Test func contactsGivenForOneMessageCheckDecideItAndAreNotKept() throws {
        let temporary = TemporaryState()
        let state = temporary.state
        try state.setContactsOnly(true)
        let vCard = "BEGIN:VCARD\nVERSION:3.0\nFN:Mum\nTEL:+1 206 555 0100\nEND:VCARD\n"
        let withContacts = try state.checkMessage(from: "(206) 555-0100", text: "you won", region: "US", contacts: vCard)
        #expect(withContacts.verdict.action == .allow && withContacts.sender == "+12065550100")
        let without = try state.checkMessage(from: "(206) 555-0100", text: "you won", region: "US", record: false)
        #expect(without.verdict.action == .junk, "the stored contacts are unchanged")
        #expect(try state.messageRules().contacts.isEmpty)
        // Counted as every message check is counted: the sender as rules see it.
        let recent = try DecisionStore(database: state.database).recent(.message)
        #expect(recent.map(\.subject) == ["+12065550100"] && recent.map(\.action) == [.allow])

        // Decisions made by the extension's handler elsewhere (`sms classify`) count the same way.
        try state.recordMessageDecisions([("+1 425 555 0100", without.verdict), ("(206) 555-0100", without.verdict)], region: "US")
        let counted = try DecisionStore(database: state.database).recent(.message)
        #expect(counted.map(\.subject) == ["+12065550100", "+14255550100", "+12065550100"])
        #expect(counted.prefix(2).allSatisfy { $0.action == .junk })
    }

    @Test func aRequestIsJudgedTheSameWithTheStatesEngineOrAnother() throws {
        let temporary = TemporaryState()
        let list = try FilterListParser().parse("||ads.example^\n", name: "mine.txt")
        let engine = FilterEngine(lists: [list])
        let verdict = try PepperState.check("https://ads.example/a.js", page: "https://news.example/", in: engine)
        #expect(verdict.decision == .blocked && verdict.rule?.text == "||ads.example^")
        #expect(try temporary.state.check("https://ads.example/a.js", page: "https://news.example/", engine: engine) == verdict)
        #expect(throws: ActionError.self) { try PepperState.check("not a url", in: engine) }
    }

    @Test(arguments: [
        (nil as [String]?, [] as [String], true), (nil, ["school.example"], false), ([], [], false), (["easylist"], [], false),
    ])
    func aGroupSharesTheDefaultEngineOnlyWhenItAddsNothing(lists: [String]?, allowlist: [String], shares: Bool) throws {
        let group = DNSClientGroupSpec(name: "kids", clients: [try CIDRBlockFixture.block()], lists: lists, allowlist: allowlist)
        #expect(group.sharesDefaultEngine == shares)
    }

    @Test func aSharingGroupGetsTheDefaultEngineItself() throws {
        let temporary = TemporaryState()
        let engines = DNSEngines(state: temporary.state)
        let sharing = DNSClientGroupSpec(name: "all", clients: [try CIDRBlockFixture.block()], lists: nil, allowlist: [])
        #expect(try engines.engine(for: sharing, loaded: [:]).identifier == (try engines.engine()).identifier)
        // A list the state does not have is said as such, typed: the DNS command adds how to fix it.
        let missing = DNSClientGroupSpec(name: "kids", clients: [try CIDRBlockFixture.block()], lists: ["nosuch"], allowlist: [])
        #expect(throws: ActionError.groupListUnavailable(group: "kids", list: UnknownListError(name: "nosuch", downloaded: false))) {
            try engines.engine(for: missing, loaded: [:])
        }
        #expect(
            ActionError.groupListUnavailable(group: "kids", list: UnknownListError(name: "nosuch", downloaded: false)).description
                == "nosuch: group 'kids': there is no list named 'nosuch'")
    }

    @Test func aPicketSourceWithoutAKeyIsToldApartByItsCase() async throws {
        await #expect(throws: ActionError.picketKeyMissing(source: "picket:https://picket.example")) {
            try await ListInputLoader.load("picket:https://picket.example", format: nil)
        }
        #expect(
            ActionError.picketKeyMissing(source: "picket:https://p.example").description
                == "picket:https://p.example: needs an API key (read:mobile)")
    }

    @Test func theOnboardingsAnswersAreKeptForEveryFace() throws {
        let temporary = TemporaryState()
        let state = temporary.state
        #expect(try state.onboardingProgress() == OnboardingProgress(done: false, searchSuggestion: nil, browserFiltersKept: false))
        try state.answerSearchSuggestion(.dismissed)
        try state.keepBrowserFiltersCurrent(true)
        try state.finishOnboarding()
        #expect(try state.onboardingProgress() == OnboardingProgress(done: true, searchSuggestion: .dismissed, browserFiltersKept: true))
        // Pepper's own browser reads the same answer and suggests nothing again.
        #expect(try BrowserStateStore(database: state.database).setting(BrowserStateStore.searchSuggestionAnsweredKey) != nil)
        // Stored as the texts every earlier version wrote.
        let preferences = PreferenceStore(database: state.database)
        #expect(try preferences.value(.searchSuggestion) == "dismissed" && preferences.value(.onboarding) == "done")
        #expect(try preferences.value(.gnomeWebFilters) == "on")
        try state.keepBrowserFiltersCurrent(false)
        #expect(try !state.onboardingProgress().browserFiltersKept)
        // An answer an older version stored as text reads typed.
        try preferences.set(.searchSuggestion, "accepted")
        #expect(try state.onboardingProgress().searchSuggestion == .accepted)
    }

    /// Message rules and contacts refused for a reason a face can tell apart (their own cases,
    /// not one "invalid request" sentence each).
    @Test func messageRulesAndContactsAreRefusedWithTypedReasons() throws {
        let temporary = TemporaryState()
        let state = temporary.state
        #expect(throws: ActionError.invalidMessageRule(.nothingToMatch(word: "!!!"))) {
            try state.addMessageWord("!!!", action: .junk, region: "US")
        }
        #expect(throws: ActionError.invalidMessageRule(.allowIsNotAFolder)) {
            try state.addMessageWord("hello", action: .allow, region: "US")
        }
        #expect(throws: ActionError.invalidMessageRule(.folderOfAnotherAction(folder: "transactionalOrders", action: "junk"))) {
            try state.addMessageWord("hello", action: .junk, subAction: .transactionalOrders, region: "US")
        }
        #expect(throws: ActionError.invalidMessageRule(.notAWordRule(word: "prize", sender: nil))) {
            try state.removeMessageWord("prize", region: "US")
        }
        #expect(throws: ActionError.invalidMessageRule(.senderNotBlocked("+12065550100"))) {
            try state.unblockSender("+1 206 555 0100", region: "US")
        }
        #expect(throws: ActionError.noContactNumbers(.noContact)) { try state.importContacts(vCard: "nothing here", region: "US") }
        #expect(throws: ActionError.noContactNumbers(.noPhoneNumber(contacts: 1))) {
            try state.importContacts(vCard: "BEGIN:VCARD\nFN:x\nEND:VCARD\n", region: "US")
        }
        #expect(ActionError.noContactNumbers(.noPhoneNumber(contacts: 3)).description == "none of the 3 contacts has a phone number")
    }

    /// A client-groups file's problems are typed: a face tells them apart without reading words.
    @Test func aGroupsFileSaysWhatIsWrongWithIt() throws {
        func problem(_ json: String) -> GroupsFileProblem? {
            do {
                _ = try DNSClientGroupsFile.parse(Data(json.utf8), path: "g.json")
                return nil
            } catch {
                guard case .invalidGroups(let path, let problem) = error, path == "g.json" else { return nil }
                return problem
            }
        }
        let client = #"["10.0.0.0/8"]"#
        #expect(problem(#"{"groups": [{"name": "a b", "clients": \#(client)}]}"#) == .invalidName(index: 1, name: "a b"))
        #expect(
            problem(#"{"groups": [{"name": "a", "clients": \#(client)}, {"name": "a", "clients": \#(client)}]}"#) == .duplicateName("a"))
        #expect(problem(#"{"groups": [{"name": "a", "clients": []}]}"#) == .noClients(group: "a"))
        #expect(
            problem(#"{"groups": [{"name": "a", "clients": \#(client), "allowlist": ["not a domain"]}]}"#)
                == .invalidAllowlistEntry(group: "a", entry: "not a domain"))
        guard case .invalidClient(group: "a", _)? = problem(#"{"groups": [{"name": "a", "clients": ["10.0.0.0/99"]}]}"#) else {
            Issue.record("a bad CIDR block is an invalid client")
            return
        }
        guard case .unexpectedShape(at: let place, _)? = problem(#"{"groups": [{"clients": \#(client)}]}"#) else {
            Issue.record("a missing name is the wrong shape")
            return
        }
        #expect(place == "groups[1]")
        #expect(problem(#"{"groups": [{"name": "a", "clients": \#(client)}]}"#) == nil)
    }
}

/// A client block for groups in these tests.
enum CIDRBlockFixture {
    static func block() throws -> CIDRBlock { try CIDRBlock("192.168.1.0/24") }
}
