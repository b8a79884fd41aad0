import CallFilter
import CallFilterTestSupport
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

    /// Chunks pass every entry once, in order, each chunk inside the scope (an autorelease
    /// pool in the iOS extension), none larger than the chunk size.
    @Test func loadsInChunksInsideTheScope() throws {
        let numbers = (1...25).map { Int64(12_065_550_000 + $0) }
        let source = MemoryCallDirectorySource(blocking: numbers, identification: [14_259_501_212: "Suspicious"])
        let context = StrictCallDirectoryContext(isIncremental: false)
        var handler = CallDirectoryHandler(source: source)
        handler.chunkSize = 10
        var depth = 0
        var chunks: [Int] = []
        var additionsOutsideAChunk = 0
        let counting = CountingContext(base: context) {
            if depth == 0 { additionsOutsideAChunk += 1 } else { chunks[chunks.count - 1] += 1 }
        }
        handler.chunkScope = { chunk in
            depth += 1
            chunks.append(0)
            defer { depth -= 1 }
            try chunk()
        }
        let outcome = try handler.beginRequest(with: counting, lastLoadedVersion: nil)
        #expect(context.violations.isEmpty)
        #expect(context.sortedBlocking == numbers)
        #expect(outcome.added == [.blocking: 25, .identification: 1])
        #expect(additionsOutsideAChunk == 0)
        #expect(chunks.allSatisfy { $0 <= 10 })
        // 25 blocking entries: 10, 10, 5; one identification entry: 1.
        #expect(chunks.filter { $0 > 0 } == [10, 10, 5, 1])
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

/// Passes every call to `base`, reporting each addition.
private final class CountingContext<Base: CallDirectoryContext>: CallDirectoryContext {
    let base: Base
    let added: () -> Void

    init(base: Base, added: @escaping () -> Void) {
        self.base = base
        self.added = added
    }

    var isIncremental: Bool { base.isIncremental }
    func addBlockingEntry(withNextSequentialPhoneNumber phoneNumber: Int64) {
        added()
        base.addBlockingEntry(withNextSequentialPhoneNumber: phoneNumber)
    }
    func removeBlockingEntry(withPhoneNumber phoneNumber: Int64) { base.removeBlockingEntry(withPhoneNumber: phoneNumber) }
    func removeAllBlockingEntries() { base.removeAllBlockingEntries() }
    func addIdentificationEntry(withNextSequentialPhoneNumber phoneNumber: Int64, label: String) {
        added()
        base.addIdentificationEntry(withNextSequentialPhoneNumber: phoneNumber, label: label)
    }
    func removeIdentificationEntry(withPhoneNumber phoneNumber: Int64) { base.removeIdentificationEntry(withPhoneNumber: phoneNumber) }
    func removeAllIdentificationEntries() { base.removeAllIdentificationEntries() }
    func completeRequest() { base.completeRequest() }
    func cancelRequest(withError error: any Error) { base.cancelRequest(withError: error) }
}
