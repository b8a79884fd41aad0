import Foundation
import PepperTestSupport
import Testing

/// The app and a call-directory extension share one database: while one process replaces the
/// lists over and over, another exports them; every export must be a complete old or new list.
@Suite("Two processes sharing the call lists")
struct CallsTwoProcessTests {
    @Test func readerSeesCompleteOldOrNewLists() async throws {
        let home = TestPaths.temporaryDirectory("two-process")
        defer { try? FileManager.default.removeItem(at: home) }
        // Two disjoint lists of 3,000 blocked numbers and one label each.
        func list(_ base: Int64, _ label: String) -> (file: String, export: String) {
            let numbers = (0..<3_000).map { base + Int64($0) * 7 }
            let file = numbers.map { "+\($0)" }.joined(separator: "\n") + "\n+1425950\(base % 10_000 + 1_000)\t\(label)\n"
            let export =
                numbers.map { "block\t\($0)" }.joined(separator: "\n") + "\nidentify\t1425950\(base % 10_000 + 1_000)\t\(label)\n"
            return (file, export)
        }
        let a = list(12_065_550_000, "Old")
        let b = list(13_125_550_000, "New")
        let fileA = home.appendingPathComponent("a.txt")
        let fileB = home.appendingPathComponent("b.txt")
        try a.file.write(to: fileA, atomically: true, encoding: .utf8)
        try b.file.write(to: fileB, atomically: true, encoding: .utf8)
        let first = try await PepperProcess.run(["calls", "import", "--replace", fileA.path], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try await PepperProcess.run(["calls", "export"], home: home).stdout == a.export)

        // Two tasks side by side: `PepperProcess.run` waits for its child on a thread of its own.
        let writes = 12
        let shared = SharedState()
        async let writer: Void = {
            for index in 0..<writes {
                let file = index % 2 == 0 ? fileB : fileA
                let status = (try? await PepperProcess.run(["calls", "import", "--replace", file.path], home: home).status) ?? -1
                shared.update { $0.statuses.append(status) }
            }
            shared.update { $0.writerDone = true }
        }()
        async let reader: Void = {
            let deadline = Date().addingTimeInterval(120)
            // Read while the writer writes (its last write restores list A), then once more.
            while Date() < deadline {
                let writerDone = shared.read { $0.writerDone }
                let outcome = try? await PepperProcess.run(["calls", "export"], home: home)
                let output = outcome.map { $0.status == 0 ? $0.stdout : "failed: \($0.stderr)" } ?? "could not run pepper"
                shared.update { $0.outputs.append(output) }
                if writerDone { break }
            }
            shared.update { $0.readerDone = true }
        }()
        _ = await (writer, reader)

        let (statuses, outputs) = shared.read { ($0.statuses, $0.outputs) }
        #expect(statuses == Array(repeating: 0, count: writes))
        #expect(outputs.count >= 2)
        for (index, output) in outputs.enumerated() where output != a.export && output != b.export {
            let lines = output.split(separator: "\n", omittingEmptySubsequences: false)
            let first = lines.first { !a.export.contains($0) && !b.export.contains($0) } ?? lines.first ?? ""
            Issue.record(
                "export \(index) of \(outputs.count) is neither complete list: \(lines.count) lines, e.g. \"\(first.prefix(120))\"")
        }
        // Both lists were observed, so the reads really interleaved with the writes.
        let sawOld = outputs.filter { $0 == a.export }.count
        let sawNew = outputs.filter { $0 == b.export }.count
        #expect(sawNew > 0, "the reader never saw the new list (\(outputs.count) reads, \(sawOld) old)")
        #expect(try await PepperProcess.run(["calls", "export"], home: home).stdout == a.export)
    }
}

/// State shared by the writer and the reader.
private final class SharedState: @unchecked Sendable {
    struct Values {
        var statuses: [Int32] = []
        var outputs: [String] = []
        var writerDone = false
        var readerDone = false
    }

    private let lock = NSLock()
    private var values = Values()

    func update(_ body: (inout Values) -> Void) { lock.withLock { body(&values) } }
    func read<T>(_ body: (Values) -> T) -> T { lock.withLock { body(values) } }
}
