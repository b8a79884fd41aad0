import Foundation
import HomeBackup
import PepperActions
import Screens
import Storage

/// Settings › Back up and restore (`docs/sync.md`, "Backup and restore"): the phone's state
/// exported as the same `.pepperbackup` file `pepper backup create` and the console make, and a
/// file picked in Files restored over this phone's state, through ``BackupActions`` as the console
/// does. The view only shows these texts and hands the made file to the system's exporter.
public enum BackupScreenPlan {
    // MARK: Export

    /// Why the export form cannot go on (HomeBackup's, as the console's form).
    public typealias PassphraseMismatch = BackupActions.PassphraseMismatch

    /// The passphrase to encrypt with: `nil` when both fields are empty (an unencrypted file).
    ///
    /// - Throws: ``PassphraseMismatch`` when the two fields differ.
    public static func exportPassphrase(_ passphrase: String, again: String) throws(PassphraseMismatch) -> Data? {
        try BackupActions.chosenPassphrase(passphrase, again: again)
    }

    /// A made backup, ready for the exporter.
    public struct Export: Sendable {
        /// The file, in its own temporary folder, under the name the console offers
        /// (``BackupActions/suggestedFileName(at:)``).
        public var file: URL
        /// What the file holds.
        public var manifest: BackupManifest
        /// Whether a passphrase encrypts it.
        public var encrypted: Bool
        /// The sentence shown once the file is made, before the person chooses where it goes.
        public var text: String
    }

    /// Backs up `state` into a new folder under `temporary`, under the console's name.
    ///
    /// - Returns: The made file, or the sentence that says why it could not be made (the folder
    ///   is then removed).
    public static func export(
        state: PepperState, temporary: URL, passphrase: Data?, pepperVersion: String, now: Date = Date(),
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async -> Result<Export, Notice> {
        let folder = temporary.appendingPathComponent("pepper-backup-\(UUID().uuidString.prefix(8))")
        let file = folder.appendingPathComponent(BackupActions.suggestedFileName(at: now))
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            return .failure(.error("No backup was made: cannot create \(folder.path): \(error)."))
        }
        do {
            let manifest = try await BackupActions.create(
                state: state, to: file, passphrase: passphrase, pepperVersion: pepperVersion, progress: progress)
            let size = ByteCountFormatter.string(fromByteCount: manifest.entries.reduce(0) { $0 + $1.size }, countStyle: .file)
            let text =
                passphrase == nil
                ? "\(file.lastPathComponent) is ready (\(size)), not encrypted: keep it somewhere only you can open."
                : "\(file.lastPathComponent) is ready (\(size)), encrypted with your passphrase: without it the file cannot be restored."
            return .success(Export(file: file, manifest: manifest, encrypted: passphrase != nil, text: text))
        } catch {
            try? FileManager.default.removeItem(at: folder)
            return .failure(.error("No backup was made: \(sentence(error.description))"))
        }
    }

    /// The progress line while a backup is made or read: `Backing up lists/easylist.txt (42%)`.
    public static func progressText(_ progress: BackupProgress, restoring: Bool) -> String {
        progressText(entry: progress.entry, done: progress.done, total: progress.total, restoring: restoring)
    }

    /// The progress line for `done` of `total` bytes, at `entry`.
    public static func progressText(entry: String, done: Int64, total: Int64, restoring: Bool) -> String {
        let percent = total > 0 ? Int(done * 100 / total) : 100
        return "\(restoring ? "Reading" : "Backing up") \(entry) (\(percent)%)"
    }

    // MARK: Import

    /// The form's fields a restore's failure concerns.
    public enum Field: Sendable, Hashable {
        /// The picked file.
        case file
        /// The passphrase.
        case passphrase
        /// The confirmation that the backup replaces this phone's state.
        case confirmation
    }

    /// Why nothing was restored: the field it concerns (none for the page as a whole) and the
    /// sentence shown there.
    public struct ImportProblem: Error, Sendable, Hashable {
        /// The field the sentence goes under; `nil`: above the form.
        public var field: Field?
        /// The sentence.
        public var text: String

        /// A sentence under `field`.
        public init(field: Field?, text: String) {
            self.field = field
            self.text = text
        }
    }

    /// What the app reads again after a restore: the restored state replaced everything its
    /// screens show, and the rebuild already had Safari's content blockers read the new lists
    /// (the context's `afterPublish`).
    public enum Reload: Sendable, Hashable, CaseIterable {
        /// Every screen's state (they read it again when shown).
        case screens
        /// The call directory extension's numbers.
        case callDirectory
        /// A running DNS tunnel's blocklist and allowlist.
        case tunnel
        /// The sync screen's status (the backup's pairing, or none, is now this phone's).
        case syncStatus
    }

    /// A restore that worked.
    public struct Import: Sendable {
        /// What the file held.
        public var manifest: BackupManifest
        /// The sentence shown.
        public var text: String
        /// Whether compiling the restored state failed (the state is restored all the same).
        public var compiled: Bool
        /// What the app reads again.
        public var reloads: [Reload] = Reload.allCases
    }

    /// The confirmation's wording: the person ticks it before the restore starts.
    public static let confirmation = "Replace this phone's allowlist, rules, lists and call and message rules with the backup's"

    /// Checks the form before anything is read: a file picked, the replacement confirmed.
    public static func checkImport(file: URL?, confirmed: Bool) -> [ImportProblem] {
        var problems: [ImportProblem] = []
        if file == nil { problems.append(ImportProblem(field: .file, text: "Choose a backup file (.\(BackupFormat.fileExtension)).")) }
        if !confirmed {
            problems.append(ImportProblem(field: .confirmation, text: "Confirm that the backup replaces this phone's state."))
        }
        return problems
    }

    /// Restores `file` into the app's open state through
    /// ``BackupActions/restore(from:into:passphrase:progress:)`` (the console's restore), with the
    /// app's sync paused meanwhile when `sync` is given: following holds the sync lock, and a
    /// restore under it is refused.
    ///
    /// - Returns: What was restored, or why nothing was (the state is then as it was).
    public static func restore(
        file: URL, passphrase: String, into state: PepperState, sync: SyncRunner?,
        progress: @escaping @Sendable (BackupProgress) -> Void = { _ in }
    ) async -> Result<Import, ImportProblem> {
        let typed = passphrase.isEmpty ? nil : Data(passphrase.utf8)
        let work: @Sendable () async -> Result<Import, ImportProblem> = {
            do throws(BackupError) {
                let outcome = try await BackupActions.restore(from: file, into: state, passphrase: typed, progress: progress)
                return .success(imported(outcome, file: file))
            } catch {
                return .failure(problem(error))
            }
        }
        guard let sync else { return await work() }
        return await sync.pausingSync(
            cancelled: .failure(ImportProblem(field: nil, text: "Nothing was restored: the restore was cancelled.")), work)
    }

    private static func imported(_ outcome: RestoreOutcome, file: URL) -> Import {
        let manifest = outcome.manifest
        var text =
            "Restored \(file.lastPathComponent): the backup of \(manifest.createdAt.formatted(date: .abbreviated, time: .shortened)) "
            + "made by Pepper \(manifest.pepperVersion)."
        if outcome.passphraseNotNeeded { text += " The file is not encrypted: the passphrase was not needed." }
        if let problem = outcome.rebuildProblem {
            text += " Compiling the restored lists failed: \(sentence(problem))"
        }
        return Import(manifest: manifest, text: text, compiled: outcome.rebuildProblem == nil)
    }

    /// A restore's failure as the sentence under its field.
    static func problem(_ error: BackupError) -> ImportProblem {
        switch error {
        case .notABackup, .truncated, .newerFormat, .damaged, .unusableState:
            return ImportProblem(field: .file, text: sentence(error.description))
        case .wrongPassphrase:
            return ImportProblem(field: .passphrase, text: "This passphrase does not open the backup.")
        case .passphraseNeeded:
            return ImportProblem(field: .passphrase, text: "This backup is encrypted: type its passphrase.")
        case .syncInUse:
            return ImportProblem(
                field: nil,
                text: "Nothing was restored: a sync with your other devices holds this phone's state. Stop syncing first, then restore.")
        case .homeNotEmpty, .noState, .io:
            return ImportProblem(field: nil, text: "Nothing was restored: \(sentence(error.description)) This phone's state is as it was.")
        }
    }

    /// `error`'s line as a sentence: capitalised, with a full stop.
    static func sentence(_ line: String) -> String {
        guard let first = line.first else { return line }
        let text = first.uppercased() + line.dropFirst()
        return text.hasSuffix(".") ? text : text + "."
    }
}
