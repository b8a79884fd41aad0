import CallFilter
import Foundation
import Testing

@testable import Storage

/// Records what a call-directory load sends, checking ascending order per list as CallKit does.
final class RecordingContext: CallDirectoryContext {
    let isIncremental: Bool
    var blocking: Set<Int64>
    var identification: [Int64: String]
    var problems: [String] = []
    var completed = false
    private var lastBlock: Int64 = 0
    private var lastIdentify: Int64 = 0

    init(isIncremental: Bool, blocking: Set<Int64> = [], identification: [Int64: String] = [:]) {
        self.isIncremental = isIncremental
        self.blocking = isIncremental ? blocking : []
        self.identification = isIncremental ? identification : [:]
    }

    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        if phoneNumber <= lastBlock { problems.append("block \(phoneNumber) after \(lastBlock)") }
        if blocking.contains(phoneNumber) { problems.append("duplicate block \(phoneNumber)") }
        lastBlock = phoneNumber
        blocking.insert(phoneNumber)
    }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) {
        if !isIncremental { problems.append("removal in full load") }
        if blocking.remove(phoneNumber) == nil { problems.append("removing absent \(phoneNumber)") }
    }
    func removeAllBlockingEntries() { blocking.removeAll() }
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        if phoneNumber <= lastIdentify { problems.append("identify \(phoneNumber) after \(lastIdentify)") }
        if identification[phoneNumber] != nil { problems.append("duplicate identify \(phoneNumber)") }
        lastIdentify = phoneNumber
        identification[phoneNumber] = label
    }
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) {
        if !isIncremental { problems.append("removal in full load") }
        if identification.removeValue(forKey: phoneNumber) == nil { problems.append("removing absent label \(phoneNumber)") }
    }
    func removeAllIdentificationEntries() { identification.removeAll() }
    func completeRequest() { completed = true }
    func cancelRequest(withError error: any Error) { problems.append("cancelled: \(error)") }
}

@Suite("Call and message state")
struct CallsStorageTests {
    func temporaryHome() -> PepperHome {
        PepperHome(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-calls-\(UUID())"))
    }

    @Test func freshStateHasTheDefaults() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let store = CallListStore(database: database)
        #expect(try store.version() == 1)
        #expect(
            try store.entries() == [
                .init(kind: .blocking, number: 12_539_501_212, label: nil, pattern: nil),
                .init(kind: .identification, number: 14_259_501_212, label: "Suspicious", pattern: nil),
            ])
        #expect(try MessageRuleStore(database: database).words().map(\.word) == ["free", "won"])
        let applied = try database.writer.read { db in try PepperDatabase.migrator.appliedIdentifiers(db) }
        #expect(applied.contains("v-calls-1-lists-messages-decisions"))
    }

    @Test func incrementalChangesMatchAFullReload() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = CallListStore(database: try PepperDatabase(home: home))
        let first = RecordingContext(isIncremental: false)
        let loaded = try CallDirectoryHandler(source: store).beginRequest(with: first, lastLoadedVersion: nil)
        #expect(first.problems.isEmpty)

        // Add, remove, re-add, relabel, add-then-remove: only the net effect may reach CallKit.
        try store.add(.blocking, [300, 100, 200].map { CallDirectoryEntry(number: $0) })
        try store.remove(.blocking, [12_539_501_212, 200])
        try store.add(.blocking, [CallDirectoryEntry(number: 12_539_501_212)])
        try store.add(.identification, [CallDirectoryEntry(number: 14_259_501_212, label: "Scam")])
        try store.add(.identification, [CallDirectoryEntry(number: 500, label: "Temp")])
        try store.remove(.identification, [500])
        #expect(try store.add(.blocking, [CallDirectoryEntry(number: 100)]).added == 0)

        let incremental = RecordingContext(isIncremental: true, blocking: first.blocking, identification: first.identification)
        let outcome = try CallDirectoryHandler(source: store).beginRequest(with: incremental, lastLoadedVersion: loaded.version)
        #expect(incremental.problems.isEmpty, "\(incremental.problems)")
        #expect(outcome.incremental)
        #expect(outcome.added == [.blocking: 2, .identification: 1])
        #expect(outcome.removed == [.blocking: 0, .identification: 1])

        let full = RecordingContext(isIncremental: false)
        try CallDirectoryHandler(source: store).beginRequest(with: full, lastLoadedVersion: nil)
        #expect(incremental.blocking == full.blocking)
        #expect(incremental.identification == full.identification)
        #expect(full.blocking == [100, 300, 12_539_501_212])
        #expect(full.identification == [14_259_501_212: "Scam"])
        #expect(throws: CallDirectoryError.unknownVersion(99)) {
            try store.withSnapshot { snapshot in try snapshot.withChanges(.blocking, since: 99) { _, _ in } }
        }
    }

    @Test func compactedHistoryGivesTheSameIncrementalLoadsAndOlderOnesBecomeFull() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let store = CallListStore(database: database)
        func fullState() throws -> RecordingContext {
            let context = RecordingContext(isIncremental: false)
            try CallDirectoryHandler(source: store).beginRequest(with: context, lastLoadedVersion: nil)
            return context
        }
        // Churn over many versions: numbers added, removed, re-added and relabelled; the lists
        // as a device would hold them after loading each version.
        var states: [Int64: RecordingContext] = [try store.version(): try fullState()]
        var random = SystemRandomNumberGenerator()
        for step in 0..<80 {
            let number = Int64.random(in: 1_000...1_020, using: &random)
            switch step % 4 {
            case 0, 1: try store.add(.blocking, [CallDirectoryEntry(number: number)])
            case 2: try store.remove(.blocking, [number, number + 1])
            default: try store.add(.identification, [CallDirectoryEntry(number: number, label: "L\(step % 3)")])
            }
            states[try store.version()] = try fullState()
        }
        let now = try fullState()
        func load(since old: Int64) throws -> (context: RecordingContext, incremental: Bool) {
            let held = try #require(states[old])
            let context = RecordingContext(isIncremental: true, blocking: held.blocking, identification: held.identification)
            let outcome = try CallDirectoryHandler(source: store).beginRequest(with: context, lastLoadedVersion: old)
            #expect(context.problems.isEmpty, "\(context.problems)")
            return (context, outcome.incremental)
        }
        func records() throws -> Int {
            try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM callChange") ?? 0 }
        }

        let versions = states.keys.sorted()
        let floor = versions[versions.count / 2]
        let before = try records()
        let removed = try store.compactChanges(through: floor)
        let after = try records()
        #expect(removed > 0 && after == before - removed)
        #expect(try store.oldestIncrementalVersion() == floor)
        #expect(try store.compactChanges(through: floor) == 0, "nothing more to drop")

        for old in versions {
            let (context, incremental) = try load(since: old)
            // From the kept history: only the changes; from before it: everything again.
            #expect(incremental == (old >= floor), "from version \(old)")
            #expect(context.blocking == now.blocking && context.identification == now.identification, "from version \(old)")
        }
        #expect(throws: CallDirectoryError.unknownVersion(floor - 1)) {
            try store.withSnapshot { snapshot in try snapshot.withChanges(.blocking, since: floor - 1) { _, _ in } }
        }

        // Every hundredth version compacts by itself, keeping the last thousand versions.
        var version = try store.version()
        while version % 100 != 0 || version < CallListStore.retainedVersions + 100 {
            version = try store.add(.blocking, [CallDirectoryEntry(number: 2_000 + version)]).version
        }
        #expect(try store.oldestIncrementalVersion() == version - CallListStore.retainedVersions)
    }

    @Test func replaceWritesOnlyTheDifference() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = CallListStore(database: try PepperDatabase(home: home))
        let before = try store.version()
        let change = try store.replace(.blocking, with: (1...1_000).map { CallDirectoryEntry(number: Int64($0)) })
        #expect(change.added == 1_000)
        #expect(change.removed == 1)  // the default entry
        let again = try store.replace(.blocking, with: (2...1_001).map { CallDirectoryEntry(number: Int64($0)) })
        #expect(again.added == 1)
        #expect(again.removed == 1)
        #expect(again.version == before + 2)
        #expect(try store.replace(.blocking, with: (2...1_001).map { CallDirectoryEntry(number: Int64($0)) }).version == before + 2)
        let relabel = try store.replace(.identification, with: [CallDirectoryEntry(number: 14_259_501_212, label: "Fraud")])
        #expect(relabel.added == 1 && relabel.removed == 0)
        #expect(try store.lookup(14_259_501_212).label == "Fraud")
        let context = RecordingContext(isIncremental: true)
        try CallDirectoryHandler(source: store).beginRequest(with: context, lastLoadedVersion: again.version)
        #expect(context.identification == [14_259_501_212: "Fraud"])
        // Both lists in one transaction: one version for the pair.
        let both = try store.replace([
            .blocking: [CallDirectoryEntry(number: 5_000)], .identification: [CallDirectoryEntry(number: 8, label: "Eight")],
        ])
        #expect(both.version == relabel.version + 1)
        #expect(both.added == 2, "\(both)")
        #expect(both.removed == 1_000 + 1, "\(both)")
        let afterBoth = try store.entries()
        #expect(afterBoth.map(\.number) == [5_000, 8], "\(afterBoth)")
    }

    @Test func groupsListRangesWithoutTheirNumbers() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let store = CallListStore(database: try PepperDatabase(home: home))
        let parser = try PhoneNumberParser(defaultRegion: "US")
        let range = try NumberInput("+1 206 555 01##", parser: parser)
        try store.add(.blocking, range.entries, pattern: range.pattern)
        let labelled = try NumberInput("+1 206 555 02##", label: "Office", parser: parser)
        try store.add(.identification, labelled.entries, pattern: labelled.pattern)
        let (groups, total) = try store.groups(limit: 10)
        #expect(total == 4, "the defaults (one number per list) and the two ranges")
        #expect(groups.map(\.kind) == [.blocking, .blocking, .identification, .identification])
        #expect(groups[0].pattern == "+120655501##" && groups[0].count == 100 && groups[0].first == 12_065_550_100)
        #expect(groups[1].pattern == nil && groups[1].count == 1 && groups[1].first == 12_539_501_212)
        #expect(groups[2].label == "Office" && groups[2].count == 100)
        #expect(try store.groups(limit: 1).groups.count == 1 && (try store.groups(limit: 1).total) == 4)
        #expect(try store.listing(12_065_550_142) == .init(blocked: true, blockedPattern: "+120655501##", label: nil))
        #expect(try store.listing(14_259_501_212) == .init(blocked: false, label: "Suspicious"))
    }

    @Test func messageRulesAndDecisions() throws {
        let home = temporaryHome()
        defer { try? FileManager.default.removeItem(at: home.url) }
        let database = try PepperDatabase(home: home)
        let rules = MessageRuleStore(database: database)
        #expect(try rules.addWord(WordRule(word: "Click HERE", action: .promotion)))
        #expect(try rules.addWord(WordRule(word: "c1ick here", action: .junk)) == false)  // same folded word: updated
        #expect(try rules.words().first { $0.word == "c1ick here" }?.action == .junk)
        #expect(try rules.addWord(WordRule(word: "verify", sender: "+18885550123")))
        #expect(try rules.removeWord("FREE"))
        #expect(try rules.removeWord("free") == false)
        #expect(try rules.blockSender("+12539501212"))
        #expect(try rules.blockSender("+12539501212") == false)
        try ContactStore(database: database).replace(["+14255550100", "+14255550101"])
        try ContactStore(database: database).replace(["+14255550100"])
        #expect(try ContactStore(database: database).count() == 1, "an import replaces the contacts")
        try rules.setContactsOnly(true)
        #expect(try rules.rules().enabled, "the SMS guard is on in a fresh state")
        try rules.setEnabled(false)
        let loaded = try rules.rules()
        #expect(loaded.blockedSenders == ["+12539501212"])
        #expect(loaded.contacts == ["+14255550100"], "the message filter reads the shared contacts")
        #expect(loaded.contactsOnly)
        #expect(!loaded.enabled)
        #expect(loaded.wordRules.map(\.word) == ["c1ick here", "verify", "won"])

        let decisions = DecisionStore(database: database)
        let many = (0..<(DecisionStore.historyLimit + 50)).map {
            DecisionStore.Decision(
                domain: .message, subject: "+1555000\($0)", action: $0 % 2 == 0 ? .junk : .allow, ruleKind: "word", rule: "won")
        }
        try decisions.record(many)
        try decisions.record([.init(domain: .call, subject: "+12539501212", action: .block, ruleKind: "list", rule: nil)])
        let counts = try decisions.counts(.message)
        #expect(counts.map(\.count).reduce(0, +) == DecisionStore.historyLimit + 50)
        #expect(counts.first { $0.action == .junk }?.count == (DecisionStore.historyLimit + 50 + 1) / 2)
        let recent = try decisions.recent(.message, limit: 5_000)
        #expect(recent.count == DecisionStore.historyLimit)
        #expect(recent.first?.subject == many.last?.subject)
        #expect(try decisions.counts(.call).map(\.count) == [1])
    }
}
