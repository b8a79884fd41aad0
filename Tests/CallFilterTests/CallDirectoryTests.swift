import CallFilter
import Testing

@Suite("Call directory entries and handler")
struct CallDirectoryTests {
    func entries(_ numbers: [Int64]) -> SequenceEntryCursor<IndexingIterator<[CallDirectoryEntry]>> {
        SequenceEntryCursor(numbers.map { CallDirectoryEntry(number: $0) })
    }

    @Test func streamsAscendingAndDropsDuplicates() throws {
        var stream = CallDirectoryEntries(entries([1, 2, 2, 2, 5, 9, 9]))
        var seen: [Int64] = []
        #expect(try stream.forEach { seen.append($0.number) } == 4)
        #expect(seen == [1, 2, 5, 9])
        #expect(stream.duplicatesRemoved == 3)
    }

    @Test func namesCallKitErrors() throws {
        var outOfOrder = CallDirectoryEntries(entries([1, 5, 3]))
        #expect(throws: CallDirectoryError.entriesOutOfOrder(previous: 5, next: 3)) { try outOfOrder.forEach { _ in } }
        var duplicates = CallDirectoryEntries(entries([1, 1]), duplicates: .reject)
        #expect(throws: CallDirectoryError.duplicateEntries(1)) { try duplicates.forEach { _ in } }
        var capped = CallDirectoryEntries(entries([1, 2, 3]), maximumCount: 2)
        #expect(throws: CallDirectoryError.maximumEntriesExceeded(maximum: 2)) { try capped.forEach { _ in } }
        var negative = CallDirectoryEntries(entries([-4]))
        #expect(throws: CallDirectoryError.invalidNumber(-4)) { try negative.forEach { _ in } }
        #expect(CallDirectoryError.entriesOutOfOrder(previous: 5, next: 3).code == "entriesOutOfOrder")
    }

    @Test func fullLoadObeysTheStrictContext() throws {
        let source = MemoryCallDirectorySource(blocking: [14_255_550_100, 12_539_501_212], identification: [14_259_501_212: "Suspicious"])
        let context = StrictCallDirectoryContext(isIncremental: false)
        let outcome = try CallDirectoryHandler(source: source).beginRequest(with: context, lastLoadedVersion: nil)
        #expect(context.violations.isEmpty)
        #expect(context.completed)
        #expect(context.blocking == [12_539_501_212, 14_255_550_100])
        #expect(context.identification == [14_259_501_212: "Suspicious"])
        #expect(outcome.incremental == false)
        #expect(outcome.added == [.blocking: 2, .identification: 1])
    }

    @Test func incrementalLoadSendsOnlyChanges() throws {
        var source = MemoryCallDirectorySource(blocking: [100, 200, 300], identification: [400: "Old"])
        let first = StrictCallDirectoryContext(isIncremental: false)
        let loaded = try CallDirectoryHandler(source: source).beginRequest(with: first, lastLoadedVersion: nil)
        source.commit(blocking: [100, 300, 350], identification: [400: "New", 500: "Pizza"])

        let second = StrictCallDirectoryContext(isIncremental: true, previous: (first.blocking, first.identification))
        let outcome = try CallDirectoryHandler(source: source).beginRequest(with: second, lastLoadedVersion: loaded.version)
        #expect(second.violations.isEmpty, "\(second.violations)")
        #expect(outcome.incremental)
        #expect(outcome.removed == [.blocking: 1, .identification: 1])
        #expect(outcome.added == [.blocking: 1, .identification: 2])
        #expect(second.sortedBlocking == [100, 300, 350])
        #expect(second.identification == [400: "New", 500: "Pizza"])
    }

    @Test func incrementalContextWithoutCheckpointStartsOver() throws {
        let source = MemoryCallDirectorySource(blocking: [7, 8])
        let context = StrictCallDirectoryContext(isIncremental: true, previous: ([1, 2, 3], [9: "Stale"]))
        let outcome = try CallDirectoryHandler(source: source).beginRequest(with: context, lastLoadedVersion: nil)
        #expect(context.violations.isEmpty)
        #expect(outcome.incremental == false)
        #expect(context.blocking == [7, 8])
        #expect(context.identification.isEmpty)
    }

    @Test func badSourceIsCancelledWithCallKitsError() throws {
        var source = MemoryCallDirectorySource(blocking: [])
        source.rawBlocking = [5, 3]
        let context = StrictCallDirectoryContext(isIncremental: false)
        #expect(throws: CallDirectoryError.entriesOutOfOrder(previous: 5, next: 3)) {
            try CallDirectoryHandler(source: source).beginRequest(with: context, lastLoadedVersion: nil)
        }
        #expect(context.cancelledWith as? CallDirectoryError == .entriesOutOfOrder(previous: 5, next: 3))
        #expect(!context.completed)
        // The handler never handed the out-of-order entry to CallKit.
        #expect(context.violations.isEmpty)
        #expect(context.blocking == [5])

        var big = MemoryCallDirectorySource(blocking: [])
        big.rawBlocking = [1, 2, 3]
        #expect(throws: CallDirectoryError.maximumEntriesExceeded(maximum: 2)) {
            try CallDirectoryHandler(source: big, maximumEntries: 2).beginRequest(
                with: StrictCallDirectoryContext(isIncremental: false), lastLoadedVersion: nil)
        }
    }

    @Test func theStrictContextCatchesWhatCallKitRejects() {
        let context = StrictCallDirectoryContext(isIncremental: false, maximumEntries: 2)
        context.addBlockingEntry(withNextSequentialPhoneNumber: 5)
        context.addBlockingEntry(withNextSequentialPhoneNumber: 5)
        context.addBlockingEntry(withNextSequentialPhoneNumber: 4)
        context.removeBlockingEntry(withPhoneNumber: 5)
        context.completeRequest()
        context.addIdentificationEntry(withNextSequentialPhoneNumber: 1, label: "x")
        #expect(
            context.violations == [
                .callDirectory(.duplicateEntries(5)), .callDirectory(.entriesOutOfOrder(previous: 5, next: 4)),
                .callDirectory(.maximumEntriesExceeded(maximum: 2)), .callDirectory(.unexpectedIncrementalRemoval),
                .callAfterCompletion("addIdentificationEntry"),
            ])
    }
}
