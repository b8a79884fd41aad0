import Foundation
import GRDB

/// The person's contacts, as the numbers Pepper needs of them (E.164, or a sender ID's letters
/// and digits: `MessageSender` keys): messages from contacts are always allowed, and
/// "block all except contacts" lets only their calls ring. Names are not kept.
///
/// On Linux they come from an imported vCard file; the Apple app reads them from the contacts
/// the person grants access to.
public struct ContactStore: Sendable {
    private let database: PepperDatabase

    /// The contacts of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    /// Every contact's number (keys), sorted.
    public func numbers() throws -> [String] {
        try database.writer.read { db in try String.fetchAll(db, sql: "SELECT sender FROM contact ORDER BY sender") }
    }

    /// How many numbers are kept.
    public func count() throws -> Int {
        try database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM contact") ?? 0 }
    }

    /// Replaces the contacts with `keys`, in one transaction.
    public func replace(_ keys: Set<String>) throws {
        try database.writer.write { db in
            try db.execute(sql: "DELETE FROM contact")
            let insert = try db.cachedStatement(sql: "INSERT INTO contact (sender) VALUES (?)")
            for key in keys.sorted() { try insert.execute(arguments: [key]) }
        }
    }
}
