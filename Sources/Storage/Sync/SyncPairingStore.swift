import Foundation
import GRDB

/// Who may sync with a home and how it reaches the home it follows (`docs/sync.md`).
///
/// On a serving home: the one-time pairing codes it gave and the devices paired with it, each
/// with the SHA-256 of its key (the key itself is never stored here, so a copy of the database
/// does not let anyone sync as the device). On a following home: the serving home's address, the
/// certificate it pins and this device's key.
public struct SyncPairingStore: Sendable {
    /// A device paired with this (serving) home.
    public struct Device: Sendable, Hashable {
        /// The device's name (a `DeviceID`).
        public var name: String
        /// When it paired.
        public var pairedAt: Date
        /// When it last synced, if it has.
        public var lastContact: Date?
    }

    /// The serving home a following home syncs with.
    public struct Peer: Sendable, Hashable {
        /// `https://HOST[:PORT]`.
        public var server: String
        /// The SHA-256 of the certificate to trust, base64url; `nil` for the system's authorities.
        public var pin: String?
        /// This device's name there.
        public var device: String
        /// This device's key there (a secret: sent as a bearer token).
        public var key: String
        /// When this home paired.
        public var pairedAt: Date
        /// When it last synced everything, if it has.
        public var lastSync: Date?
        /// Why the last attempt failed, if it did.
        public var lastError: String?

        /// A peer with these parts, never synced.
        public init(server: String, pin: String?, device: String, key: String, pairedAt: Date) {
            self.server = server
            self.pin = pin
            self.device = device
            self.key = key
            self.pairedAt = pairedAt
        }
    }

    private let database: PepperDatabase

    /// The pairing state of `database`.
    public init(database: PepperDatabase) {
        self.database = database
    }

    // MARK: The serving home

    /// Keeps a pairing code (its SHA-256) until `expiresAt`; codes that expired are forgotten.
    public func addCode(hash: String, expiresAt: Date, now: Date = Date()) throws {
        try database.write { db in
            try db.execute(sql: "DELETE FROM syncPairingCode WHERE expiresAt <= ?", arguments: [now.stored])
            try db.execute(sql: "INSERT INTO syncPairingCode (codeHash, expiresAt) VALUES (?, ?)", arguments: [hash, expiresAt.stored])
        }
    }

    /// Why a pairing was refused.
    public enum PairingRefusal: Error, Sendable, Hashable {
        /// No such code, or it expired, or it was used.
        case unknownCode
        /// A device of that name is paired already.
        case nameTaken(String)
    }

    /// Uses the code whose SHA-256 is `codeHash` (once) and pairs the device `name` with the key
    /// whose SHA-256 is `keyHash`, in one transaction: a code that is used, expired or unknown
    /// pairs nothing, and a used code is gone even when the name is refused.
    public func pair(codeHash: String, name: String, keyHash: String, now: Date = Date()) throws -> Result<Device, PairingRefusal> {
        try database.write { db -> Result<Device, PairingRefusal> in
            try db.execute(sql: "DELETE FROM syncPairingCode WHERE codeHash = ? AND expiresAt > ?", arguments: [codeHash, now.stored])
            guard db.changesCount == 1 else { return .failure(.unknownCode) }
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM syncDevice WHERE name = ?", arguments: [name]) == nil else {
                return .failure(.nameTaken(name))
            }
            try db.execute(
                sql: "INSERT INTO syncDevice (name, keyHash, pairedAt) VALUES (?, ?, ?)", arguments: [name, keyHash, now.stored])
            return .success(Device(name: name, pairedAt: now, lastContact: nil))
        }
    }

    /// The device whose key has the SHA-256 `keyHash`, noting the contact; `nil` for a key that
    /// is unknown or was revoked.
    public func device(keyHash: String, now: Date = Date()) throws -> Device? {
        try database.write { db -> Device? in
            guard let row = try Row.fetchOne(db, sql: "SELECT name, pairedAt FROM syncDevice WHERE keyHash = ?", arguments: [keyHash])
            else { return nil }
            let name: String = row["name"]
            try db.execute(sql: "UPDATE syncDevice SET lastContact = ? WHERE name = ?", arguments: [now.stored, name])
            return Device(name: name, pairedAt: (row["pairedAt"] as StoredDate?)?.date ?? now, lastContact: now)
        }
    }

    /// The paired devices, by name.
    public func devices() throws -> [Device] {
        try database.writer.read { db in
            try Row.fetchAll(db, sql: "SELECT name, pairedAt, lastContact FROM syncDevice ORDER BY name").map { row in
                Device(
                    name: row["name"], pairedAt: (row["pairedAt"] as StoredDate?)?.date ?? .distantPast,
                    lastContact: (row["lastContact"] as StoredDate?)?.date)
            }
        }
    }

    /// Removes the device `name`: its key is refused from now on.
    ///
    /// - Returns: whether it was paired.
    @discardableResult
    public func removeDevice(_ name: String) throws -> Bool {
        try database.write { db in
            try db.execute(sql: "DELETE FROM syncDevice WHERE name = ?", arguments: [name])
            return db.changesCount > 0
        }
    }

    // MARK: A following home

    /// The serving home this one follows, if it paired.
    public func peer() throws -> Peer? {
        try database.writer.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM syncPeer WHERE id = 1").map { row in
                var peer = Peer(
                    server: row["server"], pin: row["pin"], device: row["device"], key: row["key"],
                    pairedAt: (row["pairedAt"] as StoredDate?)?.date ?? .distantPast)
                peer.lastSync = (row["lastSync"] as StoredDate?)?.date
                peer.lastError = row["lastError"]
                return peer
            }
        }
    }

    /// Keeps `peer` as the serving home this one follows (replacing any other).
    public func setPeer(_ peer: Peer) throws {
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO syncPeer (id, server, pin, device, key, pairedAt, lastSync, lastError)
                    VALUES (1, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [peer.server, peer.pin, peer.device, peer.key, peer.pairedAt.stored, peer.lastSync.stored, peer.lastError])
        }
    }

    /// Notes the outcome of a sync with the peer: its time when it succeeded, else why not.
    public func noteSync(at date: Date, error: String?) throws {
        try database.write { db in
            if let error {
                try db.execute(sql: "UPDATE syncPeer SET lastError = ? WHERE id = 1", arguments: [error])
            } else {
                try db.execute(sql: "UPDATE syncPeer SET lastSync = ?, lastError = NULL WHERE id = 1", arguments: [date.stored])
            }
        }
    }

    /// Forgets the peer: this home stops following (its decisions stay).
    public func removePeer() throws {
        try database.write { db in try db.execute(sql: "DELETE FROM syncPeer") }
    }

    /// Creates the tables (part of migration `v-sync-2-outbox-and-devices`).
    static func migrate(_ db: Database) throws {
        try db.create(table: "syncPairingCode") { table in
            table.primaryKey("codeHash", .text)
            table.column("expiresAt", .datetime).notNull()
        }
        try db.create(table: "syncDevice") { table in
            table.primaryKey("name", .text)
            table.column("keyHash", .text).notNull().unique()
            table.column("pairedAt", .datetime).notNull()
            table.column("lastContact", .datetime)
        }
        try db.create(table: "syncPeer") { table in
            table.primaryKey("id", .integer).check { $0 == 1 }
            table.column("server", .text).notNull()
            table.column("pin", .text)
            table.column("device", .text).notNull()
            table.column("key", .text).notNull()
            table.column("pairedAt", .datetime).notNull()
            table.column("lastSync", .datetime)
            table.column("lastError", .text)
        }
    }
}
