import ContentBlocker
import Foundation
import PepperTestSupport

/// What a home's database holds, read by SQLite itself (Python's `sqlite3`, read-only, so the
/// reading changes nothing: no checkpoint, no WAL removed) rather than through Pepper: after a
/// kill or a full disk, the tests judge the state as any other program would find it.
struct StoredState: Decodable, Equatable {
    /// One list source's record: what its last download stored.
    struct ListRecord: Decodable, Equatable {
        var name: String
        var etag: String?
        var sha256: String?
        var lastSuccess: String?
        var lastError: String?
    }

    /// `PRAGMA integrity_check`: "ok" or the damage.
    var integrity: String
    /// Every list source's record, by name.
    var lists: [ListRecord]
    /// The allowlisted domains.
    var allowlist: [String]
    /// The call block list: how many numbers, and a checksum of them.
    var blocks: Int
    var blockSum: Int64
    /// The call lists' version.
    var callVersion: Int64

    static let python = "/usr/bin/python3"

    static let reader = """
        import json, sqlite3, sys
        db = sqlite3.connect("file:" + sys.argv[1] + "?mode=ro", uri=True)
        one = lambda sql: db.execute(sql).fetchone()[0] or 0
        lists = [dict(zip(("name", "etag", "sha256", "lastSuccess", "lastError"), row)) for row in
                 db.execute("SELECT name, etag, sha256, lastSuccess, lastError FROM listSource ORDER BY name")]
        print(json.dumps({
            "integrity": one("PRAGMA integrity_check"),
            "lists": lists,
            "allowlist": [row[0] for row in db.execute("SELECT domain FROM allowlist ORDER BY domain")],
            "blocks": one("SELECT COUNT(*) FROM callEntry WHERE kind = 'block'"),
            "blockSum": one("SELECT SUM(number % 1000000007) FROM callEntry WHERE kind = 'block'"),
            "callVersion": one("SELECT version FROM callListState WHERE id = 1"),
        }))
        """

    /// Reads the database of the home at `home`.
    static func read(_ home: URL) async throws -> StoredState {
        let outcome = try await Subprocess.run(
            URL(fileURLWithPath: python), ["-c", reader, home.appendingPathComponent("pepper.sqlite").path])
        guard outcome.status == 0 else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "sqlite3: \(outcome.stderr)"])
        }
        return try JSONDecoder().decode(StoredState.self, from: Data(outcome.stdout.utf8))
    }

    /// The record of the list called `name`.
    func list(_ name: String) -> ListRecord? {
        lists.first { $0.name == name }
    }

    /// The bytes Pepper uses as the copy of the list `record` describes: `lists/NAME`, or the
    /// new copy beside it (`lists/.NAME.pending`) when a killed update committed its record but
    /// did not live to move it in place (docs/reliability.md). Written out here rather than
    /// calling Pepper's reader, so the test holds the rule itself.
    static func copyInUse(_ record: ListRecord, home: URL) -> Data? {
        let lists = home.appendingPathComponent("lists")
        if let pending = try? Data(contentsOf: lists.appendingPathComponent(".\(record.name).pending")),
            ContentBlockerOutput.SourceIdentity.sha256Hex(pending) == record.sha256
        {
            return pending
        }
        return try? Data(contentsOf: lists.appendingPathComponent(record.name))
    }
}
