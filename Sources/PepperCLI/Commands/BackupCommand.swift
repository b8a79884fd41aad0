import ArgumentParser
import Foundation
import HomeBackup
import PepperActions
import Storage

/// `pepper backup`: one file of a home's state, and the home brought back from it.
struct BackupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up a home into one file, or restore a home from one.",
        discussion: """
            The file holds the state database (copied with SQLite's online backup, so a
            running server or console need not stop), the downloaded and uploaded lists
            and a manifest with each file's size and SHA-256. Compiled output, engines,
            caches, run/ files and the console's sessions are left out: they are rebuilt
            or belong to one machine. The database holds API keys and the console's
            password hash: encrypt a backup that leaves the machine (scrypt, AES-256-GCM).
            See docs/sync.md, "Backup and restore".
            """,
        subcommands: [Create.self, Restore.self]
    )

    /// Where a passphrase comes from: a file or stdin, never the command line (which other
    /// users can read in the process list).
    struct PassphraseOptions: ParsableArguments {
        @Option(help: ArgumentHelp("Read the passphrase from the first line of FILE.", valueName: "file"))
        var passphraseFile: String?
        @Flag(help: "Read the passphrase from the first line of standard input.")
        var passphraseStdin = false

        func validate() throws {
            if passphraseFile != nil && passphraseStdin { throw ValidationError("give --passphrase-file or --passphrase-stdin, not both") }
        }

        /// The passphrase given, if any.
        func read() throws -> Data? {
            let text: String
            if let passphraseFile {
                guard let data = FileManager.default.contents(atPath: passphraseFile) else {
                    throw ValidationError("--passphrase-file \(passphraseFile): cannot read it")
                }
                text = String(decoding: data, as: UTF8.self)
            } else if passphraseStdin {
                // One line, so a passphrase typed at a terminal ends with Return.
                text = readLine(strippingNewline: true) ?? ""
            } else {
                return nil
            }
            let passphrase = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).first.map(String.init) ?? ""
            guard !passphrase.isEmpty else { throw ValidationError("the passphrase is empty") }
            return Data(passphrase.utf8)
        }
    }

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "create", abstract: "Write the home's state to FILE (replaced only once the new file is complete).",
            discussion: """
                With --passphrase-file or --passphrase-stdin the file is encrypted: a key is
                derived from the passphrase with scrypt (N=2^17, r=8, p=1, a random salt) and
                the contents are sealed with AES-256-GCM. Without the passphrase the file
                cannot be restored.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var passphrase: PassphraseOptions
        @Argument(help: ArgumentHelp("The backup file to write.", valueName: "file")) var file: String

        func run() async throws {
            let home = homeOptions.pepperHome
            guard FileManager.default.fileExists(atPath: home.databaseURL.path) else { throw BackupError.noState(path: home.url.path) }
            let passphrase = try passphrase.read()
            let state = try homeOptions.openState()
            let url = URL(fileURLWithPath: file)
            let manifest = try await BackupActions.create(
                state: state, to: url, passphrase: passphrase, pepperVersion: PepperVersion.current,
                progress: ProgressLines.make("Backed up"))
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
            print(
                "Backed up \(home.url.path) to \(url.path): \(manifest.entries.count) file\(manifest.entries.count == 1 ? "" : "s"), \(Terminal.bytes(size))"
                    + (passphrase == nil ? "" : ", encrypted"))
        }
    }

    struct Restore: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "restore", abstract: "Bring a home back from FILE, checked in full before the home is touched.",
            discussion: """
                The file's format, passphrase, checksums and end are checked, and its state
                migrated to this Pepper's schema, in a folder beside the home; only then is
                it put in place, and compiled. A home that already holds files is refused
                unless --replace, which keeps it aside as HOME.replaced-TIME. Stop the
                servers using a home before replacing it.
                """)
        @OptionGroup var homeOptions: HomeOptions
        @OptionGroup var passphrase: PassphraseOptions
        @Flag(help: "Replace a home that holds files, keeping it aside as HOME.replaced-TIME.") var replace = false
        @Argument(help: ArgumentHelp("The backup file to read.", valueName: "file")) var file: String

        func run() async throws {
            let home = homeOptions.pepperHome
            let url = URL(fileURLWithPath: file)
            guard FileManager.default.fileExists(atPath: url.path) else { throw CLIError("\(file): no such file") }
            let passphrase = try passphrase.read()
            let outcome = try await BackupActions.restore(
                from: url, into: home, passphrase: passphrase, replace: replace, progress: ProgressLines.make("Restored"))
            // Said, as the person may believe the file was protected.
            if outcome.passphraseNotNeeded { Terminal.warning("\(file) is not encrypted: the passphrase was not used") }
            if let previous = outcome.previousHome { print("The previous home is kept at \(previous.path)") }
            print(
                "Restored \(home.url.path) from \(url.path) (made by Pepper \(outcome.manifest.pepperVersion) on "
                    + "\(Terminal.date(outcome.manifest.createdAt)), state schema \(outcome.manifest.stateSchema) → \(PepperDatabase.schemaVersion))"
            )
            if let problem = outcome.rebuildProblem {
                throw CLIError("the state is restored, but compiling it failed: \(problem)")
            }
            Terminal.compiled(outcome.rebuild)
        }
    }
}

/// Progress on stderr for large homes: a line every tenth of the way once there is more than
/// 16 MB to copy.
enum ProgressLines {
    static func make(_ verb: String) -> @Sendable (BackupProgress) -> Void {
        let last = LastTenth()
        return { progress in
            guard progress.total > 16_000_000 else { return }
            if last.advance(to: Int(progress.done * 10 / max(progress.total, 1))) {
                Terminal.status(
                    "\(verb) \(Terminal.bytes(Int(progress.done))) of \(Terminal.bytes(Int(progress.total))) (\(progress.entry))")
            }
        }
    }
}

/// The last tenth reported (progress arrives from one thread at a time, the lock is for Sendable).
private final class LastTenth: @unchecked Sendable {
    private let lock = NSLock()
    private var value = -1

    /// Whether `tenth` is past the last one reported, recording it.
    func advance(to tenth: Int) -> Bool {
        lock.withLock {
            guard tenth > value else { return false }
            value = tenth
            return true
        }
    }
}
