#if !canImport(ObjectiveC)
import AppExtensionSupport
import AppleExtensions
@_spi(ShimTesting) import AppleShims
import AppleTestSupport
import CallFilter
import Foundation
import Storage
import Testing

/// The call-directory extension, driven as CallKit drives it, against a strict context that
/// enforces CallKit's rules and refuses bad loads through the delegate as the system does.
@Suite("Call-directory extension")
struct CallDirectoryExtensionHandlerTests {
    /// The lists as stored, for comparing with what CallKit ends up holding.
    static func stored(_ shared: SharedContainer) throws -> (blocking: [Int64], identification: [Int64: String], version: Int64) {
        let store = CallListStore(database: shared.state.database)
        let entries = try store.entries()
        return (
            entries.filter { $0.kind == .blocking }.map(\.number),
            Dictionary(uniqueKeysWithValues: entries.filter { $0.kind == .identification }.map { ($0.number, $0.label ?? "") }),
            try store.version()
        )
    }

    @Test func aFullLoadGivesCallKitTheStoredListsAndMovesTheCheckpoint() throws {
        let shared = SharedContainer()
        _ = try shared.state.blockNumber("+1 206 555 0199", region: "US")
        _ = try shared.state.identifyNumber("+1 425 555 0100", label: "Pizza place", region: "US")
        let handler = CallDirectoryExtensionHandler(container: shared.container)
        let context = StrictCallDirectoryExtensionContext(isIncremental: false)
        handler.beginRequest(with: context)
        let stored = try Self.stored(shared)
        #expect(context.rules.violations.isEmpty, "\(context.rules.violations)")
        #expect(context.rules.completed)
        #expect(context.rules.cancelledWith == nil)
        #expect(context.reportedFailures.isEmpty)
        #expect(context.delegate === handler)
        #expect(context.rules.blocking == stored.blocking)
        #expect(context.rules.identification == stored.identification)
        #expect(context.rules.blocking.contains(12_065_550_199))
        #expect(CallDirectoryCheckpoint(url: shared.container.callDirectoryCheckpointURL).version() == stored.version)
    }

    @Test func anIncrementalLoadSendsOnlyTheChangesSinceTheCheckpoint() throws {
        let shared = SharedContainer()
        _ = try shared.state.blockNumber("+1 206 555 0101", region: "US")
        _ = try shared.state.blockNumber("+1 206 555 0102", region: "US")
        _ = try shared.state.identifyNumber("+1 425 555 0100", label: "Old label", region: "US")
        let first = StrictCallDirectoryExtensionContext(isIncremental: false)
        CallDirectoryExtensionHandler(container: shared.container).beginRequest(with: first)
        #expect(first.rules.violations.isEmpty)

        _ = try shared.state.unblockNumber("+1 206 555 0101", region: "US")
        _ = try shared.state.blockNumber("+1 206 555 0103", region: "US")
        _ = try shared.state.identifyNumber("+1 425 555 0100", label: "New label", region: "US")
        let second = StrictCallDirectoryExtensionContext(
            isIncremental: true, previous: (first.rules.blocking, first.rules.identification))
        CallDirectoryExtensionHandler(container: shared.container).beginRequest(with: second)
        let stored = try Self.stored(shared)
        #expect(second.rules.violations.isEmpty, "\(second.rules.violations)")
        #expect(second.rules.completed)
        #expect(second.rules.sortedBlocking == stored.blocking)
        #expect(second.rules.identification == stored.identification)
        #expect(CallDirectoryCheckpoint(url: shared.container.callDirectoryCheckpointURL).version() == stored.version)
    }

    @Test func tensOfThousandsOfEntriesStreamAscendingInChunks() throws {
        let shared = SharedContainer()
        _ = try shared.state.blockNumber("+1 206 555 ####", region: "US")
        _ = try shared.state.blockNumber("+1 206 556 ####", region: "US")
        _ = try shared.state.blockNumber("+1 206 557 01##", region: "US")
        let context = StrictCallDirectoryExtensionContext(isIncremental: false)
        CallDirectoryExtensionHandler(container: shared.container).beginRequest(with: context)
        #expect(context.rules.violations.isEmpty)
        #expect(context.rules.completed)
        #expect(context.rules.blocking == (try Self.stored(shared)).blocking)
        #expect(context.rules.blocking.count >= 20_100)
        #expect(context.rules.blocking == context.rules.blocking.sorted())
    }

    @Test func theSystemRefusingALoadForgetsTheCheckpointSoTheNextLoadStartsOver() throws {
        let shared = SharedContainer()
        _ = try shared.state.blockNumber("+1 206 555 0101", region: "US")
        let refused = StrictCallDirectoryExtensionContext(isIncremental: false)
        refused.refuseLoad = true
        CallDirectoryExtensionHandler(container: shared.container).beginRequest(with: refused)
        #expect(refused.reportedFailures.count == 1)
        #expect(CallDirectoryCheckpoint(url: shared.container.callDirectoryCheckpointURL).version() == nil)

        // The system kept its older entries (say, a number since unblocked): the next load, in an
        // incremental context, must clear them rather than send changes against an unknown base.
        let next = StrictCallDirectoryExtensionContext(isIncremental: true, previous: ([12_065_550_999], [:]))
        CallDirectoryExtensionHandler(container: shared.container).beginRequest(with: next)
        #expect(next.rules.violations.isEmpty)
        #expect(next.rules.sortedBlocking == (try Self.stored(shared)).blocking)
        #expect(!next.rules.blocking.contains(12_065_550_999))
    }

    @Test func aLoadThatCannotReadTheListsIsCancelledAndLeavesNoCheckpoint() throws {
        let shared = SharedContainer.empty()
        let checkpoint = CallDirectoryCheckpoint(url: shared.container.callDirectoryCheckpointURL)
        try checkpoint.save(3)
        let context = StrictCallDirectoryExtensionContext(isIncremental: true)
        CallDirectoryExtensionHandler(container: shared.container).beginRequest(with: context)
        #expect(context.rules.cancelledWith != nil)
        #expect(!context.rules.completed)
        #expect(context.rules.violations.isEmpty)
        #expect(checkpoint.version() == nil)
    }
}
#endif
