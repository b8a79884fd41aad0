import Foundation
import Picket

/// The keys of one keys revision, for authenticating requests without touching the store.
struct KeyTable: Sendable {
    /// What a presented key is.
    enum Lookup: Sendable, Equatable {
        case unknown
        case revoked(id: String)
        case valid(id: String, scopes: Set<APIScope>)
    }

    private struct Entry: Sendable {
        let digest: [UInt8]
        let id: String
        let scopes: Set<APIScope>
        let revoked: Bool
    }

    let revision: Int64
    private let entries: [UInt64: [Entry]]

    init(records: [APIKeyRecord], revision: Int64) {
        self.revision = revision
        var entries: [UInt64: [Entry]] = [:]
        for record in records {
            guard let digest = Self.bytes(hex: record.hash), digest.count == 32 else { continue }
            let entry = Entry(digest: digest, id: record.id, scopes: Set(record.scopes), revoked: record.revokedAt != nil)
            entries[Self.prefix(digest), default: []].append(entry)
        }
        self.entries = entries
    }

    /// Looks a key up by its SHA-256. The dictionary probe uses 8 bytes of the digest (which
    /// an attacker cannot steer); the whole digest is then compared in constant time.
    func lookup(_ key: String) -> Lookup {
        let digest = APIKeys.digest(key)
        var found: Entry?
        for entry in entries[Self.prefix(digest)] ?? [] where Self.constantTimeEqual(entry.digest, digest) {
            found = entry
        }
        guard let found else { return .unknown }
        return found.revoked ? .revoked(id: found.id) : .valid(id: found.id, scopes: found.scopes)
    }

    /// Compares every byte whatever the first difference, so timing reveals nothing.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    private static func prefix(_ digest: [UInt8]) -> UInt64 {
        digest.prefix(8).reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let characters = Array(hex.utf8)
        guard characters.count % 2 == 0 else { return nil }
        func value(_ byte: UInt8) -> UInt8? {
            switch byte {
            case 0x30...0x39: return byte - 0x30
            case 0x61...0x66: return byte - 0x61 + 10
            case 0x41...0x46: return byte - 0x41 + 10
            default: return nil
            }
        }
        var result: [UInt8] = []
        result.reserveCapacity(characters.count / 2)
        for index in stride(from: 0, to: characters.count, by: 2) {
            guard let high = value(characters[index]), let low = value(characters[index + 1]) else { return nil }
            result.append(high << 4 | low)
        }
        return result
    }
}
