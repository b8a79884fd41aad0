import Foundation
import PepperTestSupport
import Testing

/// A state written by an earlier Pepper (`Tests/Fixtures/upgrade/NAME`, made by
/// `scripts/make-upgrade-fixture.sh` with that version's own binary): its home, the records the
/// old binary wrote (`records.tsv`), and its PostgreSQL dump when it has one.
struct UpgradeFixture: Sendable, CustomTestStringConvertible {
    /// One line of `records.tsv`: a kind and its fields.
    struct Record: Sendable, Hashable {
        var kind: String
        var fields: [String]

        subscript(_ index: Int) -> String { index < fields.count ? fields[index] : "" }
    }

    /// The folder name: the commit and the migration it added.
    let name: String
    let folder: URL
    let records: [Record]

    var testDescription: String { name }

    /// Every fixture, oldest commit first (the folder names start with the order they were made in).
    static let all: [UpgradeFixture] = {
        let root = TestData.folder.appendingPathComponent("upgrade")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []
        return names.sorted().compactMap { name in
            let folder = root.appendingPathComponent(name)
            guard let text = try? String(contentsOf: folder.appendingPathComponent("records.tsv"), encoding: .utf8) else { return nil }
            let records = text.split(separator: "\n").map { line in
                let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
                return Record(kind: fields[0], fields: Array(fields.dropFirst()))
            }
            return UpgradeFixture(name: name, folder: folder, records: records)
        }
    }()

    /// The records of one kind.
    func records(_ kind: String) -> [Record] { records.filter { $0.kind == kind } }

    /// Whether the old Pepper had applied `migration` (its `MANIFEST.md` lists what it applied).
    func hadMigration(_ migration: String) -> Bool {
        let manifest = (try? String(contentsOf: folder.appendingPathComponent("MANIFEST.md"), encoding: .utf8)) ?? ""
        return manifest.split(separator: "\n").contains { $0 == "- \(migration)" }
    }

    /// The PostgreSQL dump the old `picket serve` wrote, if this version had one.
    var postgresDump: URL? {
        let url = folder.appendingPathComponent("picket-postgres.sql")
        return FileManager.default.fileExists(atPath: url.path) ? url : nil
    }

    /// Removes a copy made by ``copyHome()`` (the folder holding it).
    static func discard(_ home: URL) {
        try? FileManager.default.removeItem(at: home.deletingLastPathComponent())
    }

    /// A copy of the fixture's home in a new temporary folder (the fixture itself is never
    /// opened); ``discard(_:)`` removes it.
    func copyHome() throws -> URL {
        let parent = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-upgrade-\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: parent, withIntermediateDirectories: true)
        let home = parent.appendingPathComponent("home")
        try FileManager.default.copyItem(at: folder.appendingPathComponent("home"), to: home)
        return home
    }
}
