import Foundation

/// What a backup file holds besides its entries: the format, the Pepper and the state schema that
/// wrote it, and every entry with its size and SHA-256 (`docs/sync.md`, "Backup and restore").
public struct BackupManifest: Codable, Sendable, Hashable {
    /// One file of the home.
    public struct Entry: Codable, Sendable, Hashable {
        /// Its path inside the home (`pepper.sqlite`, `lists/NAME`, `uploads/NAME.txt`).
        public var path: String
        /// Its size in bytes.
        public var size: Int64
        /// Its SHA-256, in lowercase hexadecimal.
        public var sha256: String

        /// An entry with the given fields.
        public init(path: String, size: Int64, sha256: String) {
            self.path = path
            self.size = size
            self.sha256 = sha256
        }
    }

    /// The backup format (``BackupFormat/version`` when written).
    public var format: Int
    /// The Pepper release that wrote the file.
    public var pepperVersion: String
    /// The state schema of the database in the file (the number of migrations it had).
    public var stateSchema: Int
    /// When the backup was made.
    public var createdAt: Date
    /// The home's folder when it was backed up: a restore elsewhere moves the paths that point
    /// into it (uploaded lists).
    public var home: String
    /// The files, in the order their bytes follow the manifest.
    public var entries: [Entry]

    /// A manifest with the given fields.
    public init(format: Int, pepperVersion: String, stateSchema: Int, createdAt: Date, home: String, entries: [Entry]) {
        self.format = format
        self.pepperVersion = pepperVersion
        self.stateSchema = stateSchema
        self.createdAt = createdAt
        self.home = home
        self.entries = entries
    }

    /// Whether `path` may name an entry: relative, inside `pepper.sqlite`, `lists/` or
    /// `uploads/`, without `..`, so a hostile file cannot write anywhere else.
    static func isAllowed(_ path: String) -> Bool {
        guard path.utf8.count <= 1024, !path.hasPrefix("/"), !path.contains("\\"), !path.contains("\0") else { return false }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { return false }
        if parts == [Substring(BackupFormat.databaseEntry)] { return true }
        return parts.count >= 2 && (parts[0] == "lists" || parts[0] == "uploads")
    }
}

/// The backup file's layout, read and written by ``BackupFileWriter`` and ``BackupFileReader``.
///
/// ```
/// PEPPER-BACKUP\n            magic
/// {"format":1,...}\n          header (JSON, one line): format, encryption parameters
/// payload                    plain: manifest length (4 bytes, big endian), manifest JSON,
///                            the entries' bytes in manifest order; then SHA-256 of
///                            everything before it (32 bytes)
///                            encrypted: the same payload in chunks of `chunkSize` bytes, each
///                            4-byte length + AES-GCM (nonce, ciphertext, tag), authenticating
///                            the header's SHA-256, the chunk's index and whether it is the last
/// ```
public enum BackupFormat {
    /// The format this Pepper writes and the newest it reads.
    public static let version = 1
    /// The file's first bytes.
    static let magic = Data("PEPPER-BACKUP\n".utf8)
    /// The database's entry.
    public static let databaseEntry = "pepper.sqlite"
    /// The extension of the names backups are offered under (``BackupActions/suggestedFileName(at:)``).
    public static let fileExtension = "pepperbackup"
    /// The longest header line read.
    static let maximumHeaderBytes = 4096
    /// The longest manifest read.
    static let maximumManifestBytes = 16 << 20
}

/// The file's header: the format and, for an encrypted file, how its key is derived.
struct BackupHeader: Codable, Sendable, Hashable {
    /// The format version.
    var format: Int
    /// How the payload is encrypted; `nil`: it is not.
    var encryption: BackupEncryption?
}

/// scrypt's parameters and salt, and the cipher: everything but the passphrase needed to open an
/// encrypted backup.
struct BackupEncryption: Codable, Sendable, Hashable {
    /// The key derivation function (`scrypt`).
    var kdf: String
    /// scrypt's cost (N, a power of two).
    var n: Int
    /// scrypt's block size (r).
    var r: Int
    /// scrypt's parallelism (p).
    var p: Int
    /// The random salt, base64.
    var salt: String
    /// The cipher (`AES-256-GCM`).
    var cipher: String
    /// Plaintext bytes per chunk.
    var chunkSize: Int
    /// The first 16 bytes of HMAC-SHA256(key, "pepper-backup-key-check"), base64: tells a wrong
    /// passphrase from a damaged file.
    var keyCheck: String

    /// The parameters written: N = 2^17, r = 8, p = 1 (128 MiB to derive a key; eight times the
    /// N = 2^14 that RFC 7914 gives for interactive logins, since a backup file can be attacked
    /// offline for as long as it exists).
    static let written = (n: 1 << 17, r: 8, p: 1)
    /// Plaintext bytes per chunk written.
    static let writtenChunkSize = 1 << 20
    /// The costliest parameters read, so a hostile header cannot ask for gigabytes of memory.
    static let maximum = (n: 1 << 20, r: 16, p: 4, chunkSize: 16 << 20)
}

/// Why a backup cannot be made or restored. Nothing in the home is changed when one is thrown
/// before the restored state is put in place.
public enum BackupError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file does not start as a Pepper backup.
    case notABackup(path: String)
    /// A newer Pepper wrote the file.
    case newerFormat(found: Int, known: Int)
    /// The file ends before its last byte.
    case truncated(path: String)
    /// The file's bytes are not what was written (a checksum or an authentication tag differs).
    case damaged(String)
    /// The passphrase does not open the file.
    case wrongPassphrase
    /// The file is encrypted and no passphrase was given.
    case passphraseNeeded
    /// The folder to restore into already holds files.
    case homeNotEmpty(path: String)
    /// There is no state to back up.
    case noState(path: String)
    /// The backup's state was written by a newer Pepper, or does not open.
    case unusableState(String)
    /// A running Pepper process holds the home's sync state in memory (`sync.lock`), so the
    /// state cannot be replaced under it.
    case syncInUse
    /// A file could not be read or written.
    case io(String)

    /// One line for the person.
    public var description: String {
        switch self {
        case .notABackup(let path): return "\(path) is not a Pepper backup"
        case .newerFormat(let found, let known):
            return "the backup was made by a newer Pepper (backup format \(found); this Pepper reads up to \(known)): update Pepper first"
        case .truncated(let path): return "\(path) ends early: the backup is incomplete (copied or downloaded only in part?)"
        case .damaged(let what): return "the backup is damaged: \(what)"
        case .wrongPassphrase: return "the passphrase does not open this backup"
        case .passphraseNeeded: return "the backup is encrypted: give its passphrase with --passphrase-file FILE or --passphrase-stdin"
        case .homeNotEmpty(let path):
            return
                "\(path) already holds a Pepper home: restore into a new folder (--home DIR), or pass --replace to keep the current one aside"
        case .noState(let path): return "there is no Pepper state in \(path) to back up"
        case .unusableState(let why): return "the backup's state cannot be used: \(why)"
        case .syncInUse:
            return
                "a running Pepper process holds this home's sync state (sync.lock: a console serving your devices, or pepper sync follow) "
                + "and would write the replaced state back: stop it, then restore (pepper backup restore --replace)"
        case .io(let why): return why
        }
    }
}
