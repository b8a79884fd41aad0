import Crypto
import Foundation
import _CryptoExtras

/// A passphrase's key and the header that says how it was derived.
struct BackupKey {
    let key: SymmetricKey
    let encryption: BackupEncryption

    /// A new key for `passphrase`, with a random salt and the parameters written.
    static func new(passphrase: Data) throws -> BackupKey {
        var salt = Data(count: 16)
        for index in salt.indices { salt[index] = UInt8.random(in: .min ... .max) }
        let parameters = BackupEncryption.written
        let key = try derive(passphrase, salt: salt, n: parameters.n, r: parameters.r, p: parameters.p)
        let encryption = BackupEncryption(
            kdf: "scrypt", n: parameters.n, r: parameters.r, p: parameters.p, salt: salt.base64EncodedString(), cipher: "AES-256-GCM",
            chunkSize: BackupEncryption.writtenChunkSize, keyCheck: check(key).base64EncodedString())
        return BackupKey(key: key, encryption: encryption)
    }

    /// The key `passphrase` gives under `encryption`.
    ///
    /// - Throws: ``BackupError/damaged(_:)`` for parameters this Pepper does not accept,
    ///   ``BackupError/wrongPassphrase`` when the key check differs.
    static func open(passphrase: Data, encryption: BackupEncryption) throws(BackupError) -> BackupKey {
        let limit = BackupEncryption.maximum
        guard encryption.kdf == "scrypt", encryption.cipher == "AES-256-GCM",
            encryption.n >= 2, encryption.n <= limit.n, encryption.n & (encryption.n - 1) == 0,
            (1...limit.r).contains(encryption.r), (1...limit.p).contains(encryption.p),
            (1...limit.chunkSize).contains(encryption.chunkSize),
            let salt = Data(base64Encoded: encryption.salt), salt.count >= 8, let expected = Data(base64Encoded: encryption.keyCheck)
        else {
            throw .damaged("its encryption header names parameters this Pepper does not accept")
        }
        let key: SymmetricKey
        do {
            key = try derive(passphrase, salt: salt, n: encryption.n, r: encryption.r, p: encryption.p)
        } catch {
            throw .damaged("scrypt refused the header's parameters: \(error)")
        }
        guard check(key) == expected else { throw .wrongPassphrase }
        return BackupKey(key: key, encryption: encryption)
    }

    private static func derive(_ passphrase: Data, salt: Data, n: Int, r: Int, p: Int) throws -> SymmetricKey {
        // BoringSSL's default memory cap (32 MiB) is below N = 2^17, r = 8 (128 MiB).
        try KDF.Scrypt.deriveKey(
            from: passphrase, salt: salt, outputByteCount: 32, rounds: n, blockSize: r, parallelism: p,
            maxMemory: 128 * n * r * p + (1 << 20))
    }

    private static func check(_ key: SymmetricKey) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data("pepper-backup-key-check".utf8), using: key)).prefix(16)
    }
}

/// Writes a backup file: the magic, the header, then the payload in the clear (followed by its
/// SHA-256) or in authenticated chunks.
final class BackupFileWriter {
    private let handle: FileHandle
    private let key: BackupKey?
    private let headerDigest: Data
    private var digest = SHA256()
    private var pending = Data()
    private var chunkIndex: UInt64 = 0
    /// Payload bytes written so far.
    private(set) var written: Int64 = 0

    /// Starts the file behind `handle` (empty, at its start).
    init(handle: FileHandle, key: BackupKey?) throws {
        self.handle = handle
        self.key = key
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        var head = BackupFormat.magic
        head.append(try encoder.encode(BackupHeader(format: BackupFormat.version, encryption: key?.encryption)))
        head.append(UInt8(ascii: "\n"))
        headerDigest = Data(SHA256.hash(data: head))
        digest.update(data: head)
        try handle.write(contentsOf: head)
    }

    /// Appends payload bytes.
    func write(_ data: Data) throws {
        written += Int64(data.count)
        guard let key else {
            digest.update(data: data)
            try handle.write(contentsOf: data)
            return
        }
        pending.append(data)
        let size = key.encryption.chunkSize
        while pending.count > size {
            try seal(pending.prefix(size), final: false)
            pending.removeFirst(size)
        }
    }

    /// Ends the payload: the digest, or the last chunk.
    func finish() throws {
        if key != nil {
            try seal(pending, final: true)
            pending = Data()
        } else {
            try handle.write(contentsOf: Data(digest.finalize()))
        }
    }

    private func seal(_ plain: Data, final: Bool) throws {
        guard let key else { return }
        let box = try AES.GCM.seal(plain, using: key.key, authenticating: Self.chunkData(headerDigest, chunkIndex, final: final))
        guard let combined = box.combined else { throw BackupError.io("AES-GCM gave no combined box") }
        var length = UInt32(combined.count).bigEndian
        try handle.write(contentsOf: Data(bytes: &length, count: 4))
        try handle.write(contentsOf: combined)
        chunkIndex += 1
    }

    /// What each chunk authenticates besides its bytes: which file (the header), where in it
    /// (the index: no chunk can be moved or dropped) and whether the file ends there (no
    /// truncation at a chunk's end).
    static func chunkData(_ headerDigest: Data, _ index: UInt64, final: Bool) -> Data {
        var data = headerDigest
        withUnsafeBytes(of: index.bigEndian) { data.append(contentsOf: $0) }
        data.append(final ? 1 : 0)
        return data
    }
}

/// Reads a backup file written by ``BackupFileWriter``, checking as it goes: a plain file's
/// digest at its end, each encrypted chunk's tag, and that nothing is missing or added.
final class BackupFileReader {
    private let handle: FileHandle
    private let path: String
    private let key: BackupKey?
    private let headerDigest: Data
    /// The plain payload's end (the digest follows it).
    private let payloadEnd: UInt64
    private var position: UInt64
    private var digest = SHA256()
    private var buffer = Data()
    private var chunkIndex: UInt64 = 0
    private var sawFinal = false

    /// Whether the file is encrypted, read from its header without a passphrase.
    static func isEncrypted(_ url: URL) throws(BackupError) -> Bool {
        let handle: FileHandle
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw .io("cannot read \(url.path): \(error)") }
        defer { try? handle.close() }
        return try readHeader(handle, path: url.path).header.encryption != nil
    }

    /// Opens `url`, checking its magic, format and (when encrypted) the passphrase.
    init(url: URL, passphrase: Data?) throws(BackupError) {
        path = url.path
        do { handle = try FileHandle(forReadingFrom: url) } catch { throw .io("cannot read \(url.path): \(error)") }
        let (header, head) = try Self.readHeader(handle, path: path)
        headerDigest = Data(SHA256.hash(data: head))
        digest.update(data: head)
        position = UInt64(head.count)
        let size: UInt64
        do { size = try handle.seekToEnd() } catch { throw .io("cannot read \(path): \(error)") }
        if let encryption = header.encryption {
            guard let passphrase else { throw .passphraseNeeded }
            key = try BackupKey.open(passphrase: passphrase, encryption: encryption)
            payloadEnd = size
        } else {
            key = nil
            guard size >= position + 32 else { throw .truncated(path: path) }
            payloadEnd = size - 32
        }
        do { try handle.seek(toOffset: position) } catch { throw .io("cannot read \(path): \(error)") }
    }

    deinit { try? handle.close() }

    private static func readHeader(_ handle: FileHandle, path: String) throws(BackupError) -> (header: BackupHeader, bytes: Data) {
        let start: Data
        do { start = try handle.read(upToCount: BackupFormat.magic.count + BackupFormat.maximumHeaderBytes) ?? Data() } catch {
            throw .io("cannot read \(path): \(error)")
        }
        guard start.starts(with: BackupFormat.magic) else {
            throw start.count < BackupFormat.magic.count && BackupFormat.magic.starts(with: start)
                ? .truncated(path: path) : .notABackup(path: path)
        }
        let rest = start.dropFirst(BackupFormat.magic.count)
        guard let newline = rest.firstIndex(of: UInt8(ascii: "\n")) else {
            throw start.count < BackupFormat.magic.count + BackupFormat.maximumHeaderBytes
                ? .truncated(path: path) : .damaged("its header does not end")
        }
        // The format first, alone: a newer header may have fields this Pepper cannot read.
        struct FormatOnly: Decodable { var format: Int }
        let line = Data(rest[rest.startIndex..<newline])
        guard let format = try? JSONDecoder().decode(FormatOnly.self, from: line).format else {
            throw .damaged("its header does not read")
        }
        guard format <= BackupFormat.version else { throw .newerFormat(found: format, known: BackupFormat.version) }
        guard format >= 1, let header = try? JSONDecoder().decode(BackupHeader.self, from: line) else {
            throw .damaged("its header does not read")
        }
        do { try handle.seek(toOffset: UInt64(BackupFormat.magic.count + line.count + 1)) } catch {
            throw .io("cannot read \(path): \(error)")
        }
        return (header, Data(start.prefix(BackupFormat.magic.count + line.count + 1)))
    }

    /// The next `count` payload bytes.
    ///
    /// - Throws: ``BackupError/truncated(path:)`` when the payload ends first,
    ///   ``BackupError/damaged(_:)`` when a chunk does not authenticate.
    func read(_ count: Int) throws(BackupError) -> Data {
        while buffer.count < count {
            guard try fill() else { throw .truncated(path: path) }
        }
        let out = buffer.prefix(count)
        buffer.removeFirst(count)
        return Data(out)
    }

    /// Checks that the payload ends here and that the file's digest (plain) matches.
    func finish() throws(BackupError) {
        if !buffer.isEmpty { throw .damaged("it holds more bytes than its manifest lists") }
        if key != nil {
            while !sawFinal {
                guard try fill() else { throw .truncated(path: path) }
                if !buffer.isEmpty { throw .damaged("it holds more bytes than its manifest lists") }
            }
            guard position == payloadEnd else { throw .damaged("bytes follow its last chunk") }
        } else {
            guard position == payloadEnd else { throw .damaged("it holds more bytes than its manifest lists") }
            let stored: Data
            do { stored = try handle.read(upToCount: 32) ?? Data() } catch { throw .io("cannot read \(path): \(error)") }
            guard stored == Data(digest.finalize()) else { throw .damaged("its SHA-256 differs from the one written at its end") }
        }
    }

    /// Reads more payload into the buffer; false at its end.
    private func fill() throws(BackupError) -> Bool {
        do {
            guard let key else {
                guard position < payloadEnd else { return false }
                let data = try handle.read(upToCount: Int(min(1 << 20, payloadEnd - position))) ?? Data()
                guard !data.isEmpty else { throw BackupError.truncated(path: path) }
                position += UInt64(data.count)
                digest.update(data: data)
                buffer.append(data)
                return true
            }
            guard !sawFinal else { return false }
            guard let lengthBytes = try handle.read(upToCount: 4), lengthBytes.count == 4 else { throw BackupError.truncated(path: path) }
            let length = lengthBytes.reduce(0) { $0 << 8 | Int($1) }
            guard length >= 28, length <= key.encryption.chunkSize + 28 else {
                throw BackupError.damaged("chunk \(chunkIndex) has a wrong length")
            }
            guard let sealed = try handle.read(upToCount: length), sealed.count == length else { throw BackupError.truncated(path: path) }
            position += UInt64(4 + length)
            let box = try AES.GCM.SealedBox(combined: sealed)
            let plain: Data
            if let opened = try? AES.GCM.open(
                box, using: key.key, authenticating: BackupFileWriter.chunkData(headerDigest, chunkIndex, final: false))
            {
                plain = opened
            } else if let opened = try? AES.GCM.open(
                box, using: key.key, authenticating: BackupFileWriter.chunkData(headerDigest, chunkIndex, final: true))
            {
                plain = opened
                sawFinal = true
            } else {
                throw BackupError.damaged("chunk \(chunkIndex) does not authenticate (changed after it was written)")
            }
            chunkIndex += 1
            buffer.append(plain)
            return true
        } catch let error as BackupError {
            throw error
        } catch {
            throw .io("cannot read \(path): \(error)")
        }
    }
}
