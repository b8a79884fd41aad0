import AppExtensionSupport
import CallFilter
import ContentBlocker
import Foundation
import GRDB
import PepperActions
import Storage
import Testing

/// A fresh folder standing for the app group's container, removed at the end of the test.
final class TemporaryContainer: @unchecked Sendable {
    let container = AppGroupContainer(url: FileManager.default.temporaryDirectory.appendingPathComponent("pepper-group-\(UUID())"))
    private(set) lazy var state = try! PepperState(home: container.home)

    deinit { try? FileManager.default.removeItem(at: container.url) }
}

@Suite("App-group container")
struct ContainerTests {
    @Test func everythingLivesInOnePepperHomeInTheContainer() {
        let container = AppGroupContainer(url: URL(fileURLWithPath: "/group"))
        #expect(container.databaseURL.path == "/group/Pepper/pepper.sqlite")
        #expect(container.outputURL.path == "/group/Pepper/out")
        #expect(container.callDirectoryCheckpointURL.path == "/group/Pepper/extensions/call-directory.json")
        #expect(container.unusedSlotListURL.path == "/group/Pepper/extensions/unused-content-blocker.json")
    }

    @Test func theAppGroupIsNamedOnceInTheInfoPlist() throws {
        #expect(
            try AppGroupContainer.groupIdentifier(infoDictionary: ["PepperAppGroup": "group.org.example.pepper"])
                == "group.org.example.pepper")
        #expect(throws: AppGroupError.missingInfoKey) { try AppGroupContainer.groupIdentifier(infoDictionary: [:]) }
        #expect(throws: AppGroupError.missingInfoKey) { try AppGroupContainer.groupIdentifier(infoDictionary: ["PepperAppGroup": ""]) }
        #expect(throws: AppGroupError.missingInfoKey) { try AppGroupContainer.current() }
    }

    @Test func contentBlockerSlotsFollowTheirBundleIdentifiers() throws {
        #expect(ContentBlockerSlot.count == 3)
        #expect(ContentBlockerSlot.all.map(\.number) == [1, 2, 3])
        #expect(ContentBlockerSlot(bundleIdentifier: "org.example.Pepper.ContentBlocker2")?.number == 2)
        #expect(ContentBlockerSlot(bundleIdentifier: "org.example.Pepper.ContentBlocker4") == nil)
        #expect(ContentBlockerSlot(bundleIdentifier: "org.example.Pepper.ContentBlocker") == nil)
        #expect(ContentBlockerSlot(bundleIdentifier: "org.example.Pepper.CallDirectory") == nil)
        #expect(ContentBlockerSlot(number: 0) == nil)
        let slot = try #require(ContentBlockerSlot(number: 3))
        #expect(slot.bundleIdentifier(inApp: "org.example.Pepper") == "org.example.Pepper.ContentBlocker3")
        #expect(ContentBlockerSlot(bundleIdentifier: slot.bundleIdentifier(inApp: "a.b")) == slot)
        #expect(throws: ContentBlockerSlotError.self) { try ContentBlockerSlot.current() }
    }

    @Test func listsBeyondTheSlotsAreReportedNotServed() throws {
        let files = (1...5).map { Manifest.File(path: "blocker-\($0).json", rules: 10) }
        let manifest = Manifest(identifier: "abc", generatedAt: "now", sources: [], files: files, allowlist: [])
        #expect(ContentBlockerSlot.all.map { $0.list(in: manifest)?.path } == ["blocker-1.json", "blocker-2.json", "blocker-3.json"])
        #expect(ContentBlockerSlot.unservedLists(of: manifest).map(\.path) == ["blocker-4.json", "blocker-5.json"])
    }

    @Test func theCheckpointRemembersTheLastLoadedVersionUntilCleared() throws {
        let temporary = TemporaryContainer()
        let checkpoint = CallDirectoryCheckpoint(url: temporary.container.callDirectoryCheckpointURL)
        #expect(checkpoint.version() == nil)
        try checkpoint.save(41)
        try checkpoint.save(42)
        #expect(checkpoint.version() == 42)
        checkpoint.clear()
        #expect(checkpoint.version() == nil)
        try Data("not json".utf8).write(to: checkpoint.url)
        #expect(checkpoint.version() == nil, "an unreadable checkpoint means a full load")
    }

    @Test func messageActionsMapToIdentityLookupsRawValues() {
        // ILMessageFilterAction.h: none 0, allow 1, junk 2, promotion 3, transaction 4; sub-actions
        // 10000… (transactional) and 20000… (promotional).
        #expect(MessageAction.allCases.map(\.identityLookupRawValue) == [1, 2, 3, 4])
        #expect(MessageSubAction.none.identityLookupRawValue == 0)
        #expect(MessageFilterLoad.transactionalSubActions.map(\.identityLookupRawValue) == Array(10_000...10_008))
        #expect(MessageFilterLoad.promotionalSubActions.map(\.identityLookupRawValue) == Array(20_000...20_002))
    }
}

@Suite("Shared database")
struct SharedDatabaseTests {
    @Test func aReaderNeedsADatabaseTheAppCreated() {
        let temporary = TemporaryContainer()
        #expect(throws: PepperDatabaseError.self) { try PepperDatabase(readingOnly: temporary.container.databaseURL) }
    }

    @Test func aReaderCannotWrite() throws {
        let temporary = TemporaryContainer()
        _ = try temporary.state.blockNumber("+1 206 555 0100", region: "US")
        let reader = try PepperDatabase(readingOnly: temporary.container.databaseURL)
        #expect(try CallListStore(database: reader).counts()[.blocking] == 2)
        #expect(throws: (any Error).self) {
            try CallListStore(database: reader).add(.blocking, [CallDirectoryEntry(number: 12_065_550_101)])
        }
        #expect(try CallListStore(database: temporary.state.database).counts()[.blocking] == 2)
    }

    @Test func theWALFilesOutliveTheWriterSoAReaderCanStillOpen() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-wal-\(UUID())")
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = folder.appendingPathComponent("pepper.sqlite")
        do {
            let writer = try PepperDatabase(url: url)
            try MessageRuleStore(database: writer).blockSender("+12065550100")
        }
        // The writer is closed: persistent WAL keeps the files a read-only reader needs.
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        #expect(FileManager.default.fileExists(atPath: url.path + "-shm"))
        let reader = try PepperDatabase(readingOnly: url)
        #expect(try MessageRuleStore(database: reader).blockedSenders() == ["+12065550100"])
    }
}
