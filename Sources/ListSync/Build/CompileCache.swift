import ContentBlocker
import Crypto
import FilterLists
import Foundation
import Storage

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The incremental compile: the rules compiled from a set of lists, every rule already encoded,
/// kept in `$PEPPER_HOME/cache/compiled.bin` under a digest of the lists and of the compiler.
///
/// A rebuild whose lists did not change — an allowlist change, the browser's shield, "Proceed
/// anyway", a rebuild after an update that found nothing new — reads them back and only lays the
/// lists out again with the new allowlist: no parsing, no conversion, no encoding. A rebuild
/// whose lists changed compiles everything and replaces the entry.
///
/// The entry covers the whole set of lists, not each list apart: the conversion is not per list
/// (a `$badfilter` in one list cancels rules of another, a plain `||domain^` block of one makes
/// other lists' blocks on that host redundant, duplicates are dropped across lists), so rules
/// converted from one list alone would not be the rules of the set.
public enum CompileCache {
    /// What one entry holds.
    public struct Entry: Sendable {
        /// The rules, encoded, with their per-source counts.
        public var rules: EncodedCompiledRules
        /// How reading each input went, for reports.
        public var inputs: [BlockerBuilder.InputSummary]
    }

    /// The entry's file.
    public static func url(home: PepperHome) -> URL {
        home.url.appendingPathComponent("cache", isDirectory: true).appendingPathComponent("compiled.bin")
    }

    /// The key of the rules compiled from `inputs`: their ``InputsIdentity`` (names, formats,
    /// chosen categories, bytes, and the compiling program) without the allowlist, which is
    /// applied when the rules are laid out.
    public static func key(for inputs: [ListInput]) -> String {
        InputsIdentity(lists: inputs).digest
    }

    /// The entry stored under `key`, if there is one and it can be read.
    public static func load(home: PepperHome, key: String) -> Entry? {
        guard let bytes = readFile(url(home: home)) else { return nil }
        // The key and the inputs' summaries come first, as one JSON line.
        guard let newline = bytes.firstIndex(of: 0x0A),
            let header = try? JSONDecoder().decode(Header.self, from: Data(bytes[..<newline])), header.key == key,
            let rules = try? EncodedCompiledRules(serialized: bytes[(newline + 1)...])
        else { return nil }
        return Entry(rules: rules, inputs: header.inputs)
    }

    /// A file's bytes, read straight into one array (the entry is tens of megabytes: one copy).
    static func readFile(_ url: URL) -> [UInt8]? {
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return nil }
        let size = Int(status.st_size)
        var complete = true
        let bytes = [UInt8](unsafeUninitializedCapacity: size) { buffer, count in
            while count < size {
                let got = read(descriptor, buffer.baseAddress! + count, size - count)
                if got < 0 && errno == EINTR { continue }
                guard got > 0 else {
                    complete = false
                    return
                }
                count += got
            }
        }
        return complete ? bytes : nil
    }

    /// Stores `entry` under `key`, replacing the previous entry. A cache: written atomically,
    /// not flushed to disk, and a failure only means the next build compiles again.
    public static func save(home: PepperHome, key: String, entry: Entry) {
        let file = url(home: home)
        guard let header = try? JSONEncoder().encode(Header(key: key, inputs: entry.inputs)) else { return }
        try? FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Written from the rules' own buffers: 17 MB for EasyList + EasyPrivacy, not copied.
        try? AtomicFile.write(pieces: [(Array(header) + [0x0A])[...]] + entry.rules.serializedPieces(), to: file)
    }

    private struct Header: Codable {
        var key: String
        var inputs: [BlockerBuilder.InputSummary]
    }
}
