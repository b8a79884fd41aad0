import Crypto
import Foundation

/// API keys: `opl_` + 64 hex digits (256 random bits). The store keeps only SHA-256 of a key.
///
/// One place for how keys are made and hashed: `pepper picket keys`, the console's API keys
/// screen and the server's key table all use it.
public enum APIKeys {
    /// A new random key.
    public static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        var hex = APIKeyFormat.prefix
        for _ in 0..<4 {
            let word = String(generator.next(), radix: 16)
            hex += String(repeating: "0", count: 16 - word.count) + word
        }
        return hex
    }

    /// SHA-256 of a key (lower-cased first: hex digits are case-insensitive), as hex.
    public static func hash(_ key: String) -> String {
        digest(key).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// SHA-256 of a key (lower-cased first), as bytes.
    public static func digest(_ key: String) -> [UInt8] {
        Array(SHA256.hash(data: Array(key.lowercased().utf8)))
    }

    /// The key as people may see it again after it was created: its prefix and last four
    /// digits (`opl_…3f9c`). Nothing else of a key is ever shown twice.
    public static func masked(_ key: String) -> String {
        guard key.count > 8 else { return String(repeating: "•", count: key.count) }
        return String(key.prefix(4)) + "…" + String(key.suffix(4))
    }

    /// Creates a key with `scopes` in `store`; returns the key (shown once) and its record.
    public static func create(
        scopes: [APIScope], label: String? = nil, in store: any PicketStore, now: Date = Date()
    ) async throws -> (key: String, record: APIKeyRecord) {
        let key = generate()
        let record = APIKeyRecord(
            id: PicketID.make("key"), hash: hash(key), scopes: Array(Set(scopes)).sorted(), label: label, createdAt: now)
        try await store.insertAPIKey(record)
        return (key, record)
    }
}
