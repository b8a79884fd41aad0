import Foundation
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
        let first = try PepperProcess.run(["calls", "import", "--replace", fileA.path], home: home)
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try PepperProcess.run(["calls", "export"], home: home).stdout == a.export)

        let writes = 12
        async let writer: [Int32] = Task.detached {
            var statuses: [Int32] = []
            for index in 0..<writes {
                let file = index % 2 == 0 ? fileB : fileA
                statuses.append((try? PepperProcess.run(["calls", "import", "--replace", file.path], home: home).status) ?? -1)
            }
            return statuses
        }.value
        async let reader: [String] = Task.detached {
            var outputs: [String] = []
            let deadline = Date().addingTimeInterval(60)
            // Read until the writer is done (its last write restores list A) or the deadline.
            while Date() < deadline {
                guard let outcome = try? PepperProcess.run(["calls", "export"], home: home) else { break }
                outputs.append(outcome.status == 0 ? outcome.stdout : "failed: \(outcome.stderr)")
                if outputs.count >= 8, outcome.stdout == a.export, outputs.contains(b.export) { break }
                if outputs.count >= 200 { break }
            }
            return outputs
        }.value
        let (statuses, outputs) = await (writer, reader)
        #expect(statuses == Array(repeating: 0, count: writes))
        #expect(!outputs.isEmpty)
        for (index, output) in outputs.enumerated() {
            #expect(
                output == a.export || output == b.export, "export \(index) is neither list: \(output.prefix(200))… (\(output.count) bytes)")
        }
        // Both states were observed, so the reads really interleaved with the writes.
        #expect(outputs.contains(b.export), "the reader never saw the new list (\(outputs.count) reads)")
        #expect(try PepperProcess.run(["calls", "export"], home: home).stdout == a.export)
    }
}
