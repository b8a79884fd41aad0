import BlockingWork
import Foundation
import HTTPTypes
import HomeBackup
import Hummingbird
import NIOConcurrencyHelpers
import NIOCore
import PepperActions
import Screens

/// Backup: the home's state downloaded as one file, or restored from one (`docs/sync.md`,
/// "Backup and restore"), through ``BackupActions`` as `pepper backup` does.
struct BackupPage: ConsoleArea {
    static let path: RouterPath = "/backup"
    let renderer: PageRenderer
    let sessions: Sessions
    /// The home whose state is backed up and restored.
    let state: PepperState
    /// The console's list update: a restore waits until it has ended.
    let updates: UpdateRunner
    /// One restore at a time.
    private let restoring = NIOLockedValueBox(false)

    init(renderer: PageRenderer, sessions: Sessions, state: PepperState, updates: UpdateRunner) {
        self.renderer = renderer
        self.sessions = sessions
        self.state = state
        self.updates = updates
    }

    private struct BackupView {
        var homeName: String
        var passphraseError: String?
        var restoreFileError: String?
        var restorePassphraseError: String?
        var confirmError: String?
        var uploadLimit: String
    }

    /// What the forms got wrong, field by field.
    private struct FieldErrors {
        var passphrase: String?
        var restoreFile: String?
        var restorePassphrase: String?
        var confirm: String?
    }

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        routes.get { request, context in
            backupPage(request: request, context: context)
        }
        routes.post("download") { request, context in
            let fields = form(context)
            let passphrase: Data?
            do throws(BackupActions.PassphraseMismatch) {
                passphrase = try BackupActions.chosenPassphrase(fields["passphrase"] ?? "", again: fields["passphraseAgain"] ?? "")
            } catch {
                return backupPage(
                    request: request, context: context, notice: .error("No backup was made: see the form below."),
                    errors: FieldErrors(passphrase: error.text))
            }
            return await download(passphrase: passphrase, request: request, context: context)
        }
        routes.post("restore") { request, context in
            await restore(request: request, context: context)
        }
        return routes
    }

    private func backupPage(
        request: Request, context: ConsoleContext, notice: Notice? = nil, errors: FieldErrors = FieldErrors()
    ) -> Response {
        let view = BackupView(
            homeName: state.home.url.lastPathComponent, passphraseError: errors.passphrase, restoreFileError: errors.restoreFile,
            restorePassphraseError: errors.restorePassphrase, confirmError: errors.confirm,
            uploadLimit: "\(ConsoleServer.maximumBackupBytes / 1_073_741_824) GB")
        return renderer.page(
            .backup, title: "Backup", view: view, chrome: chrome(request, context, notices: notice.map { [$0] } ?? []),
            status: .form(refused: notice?.isError == true))
    }

    // MARK: Download

    /// Makes the backup in a temporary folder and sends it; the file is unlinked as soon as it is
    /// open, so nothing is left behind whether the browser takes all of it or goes away.
    private func download(passphrase: Data?, request: Request, context: ConsoleContext) async -> Response {
        let name = BackupActions.suggestedFileName()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-console-backup-\(UUID().uuidString)")
        let file = folder.appendingPathComponent(name)
        defer { try? FileManager.default.removeItem(at: folder) }
        let handle: FileHandle
        let size: Int
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            _ = try await BackupActions.create(state: state, to: file, passphrase: passphrase, pepperVersion: renderer.version)
            handle = try FileHandle(forReadingFrom: file)
            size = Int(try handle.seekToEnd())
            try handle.seek(toOffset: 0)
        } catch {
            return backupPage(
                request: request, context: context, notice: .error("No backup was made: \(Self.sentence("\(error)"))"),
                errors: FieldErrors())
        }
        let reader = ChunkReader(handle: handle)
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        headers[.contentDisposition] = "attachment; filename=\"\(name)\""
        let body = ResponseBody(contentLength: size) { writer in
            while let chunk = try await reader.next() { try await writer.write(ByteBuffer(bytes: chunk)) }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: Restore

    private func restore(request: Request, context: ConsoleContext) async -> Response {
        let fields = form(context)
        var errors = FieldErrors()
        if context.upload == nil { errors.restoreFile = "Choose a backup file (.\(BackupFormat.fileExtension))." }
        if fields["confirm"] != "yes" { errors.confirm = "Tick this box to replace this home's state with the backup's." }
        guard let upload = context.upload, let session = context.session, errors.restoreFile == nil && errors.confirm == nil else {
            return backupPage(
                request: request, context: context, notice: .error("Nothing was restored: see the form below."), errors: errors)
        }
        if await updates.snapshot().running {
            return backupPage(
                request: request, context: context,
                notice: .error("Nothing was restored: the lists are being updated. Restore once the update has ended."))
        }
        let began = restoring.withLockedValue { busy in
            defer { busy = true }
            return !busy
        }
        guard began else {
            return backupPage(request: request, context: context, notice: .error("Nothing was restored: another restore is running."))
        }
        defer { restoring.withLockedValue { $0 = false } }
        let typed = fields["passphrase"] ?? ""
        let outcome: RestoreOutcome
        do {
            outcome = try await BackupActions.restore(from: upload.url, into: state, passphrase: typed.isEmpty ? nil : Data(typed.utf8))
        } catch {
            let (field, text) = Self.explain(error, fileName: upload.fileName)
            var errors = FieldErrors()
            switch field {
            case .file: errors.restoreFile = text
            case .passphrase: errors.restorePassphrase = text
            case nil: break
            }
            let notice = Notice.error(
                field == nil ? "Nothing was restored: \(text) The home is as it was." : "Nothing was restored: see the form below.")
            return backupPage(request: request, context: context, notice: notice, errors: errors)
        }
        // The restored state holds no session: this browser is stored again, every other one ends.
        await sessions.keepOnly(session)
        if outcome.passphraseNotNeeded {
            sessions.flash(Notice(.info, "\(upload.fileName) is not encrypted: the passphrase was not needed."), for: session.id)
        }
        if let problem = outcome.rebuildProblem {
            sessions.flash(.error("The state is restored, but compiling it failed: \(Self.sentence(problem))"), for: session.id)
        }
        let manifest = outcome.manifest
        let files = manifest.entries.count
        var text = "Restored \(upload.fileName): the backup of \(Format.date(manifest.createdAt)) made by Pepper \(manifest.pepperVersion)"
        text += " (\(files) file\(files == 1 ? "" : "s"))."
        if let previous = outcome.previousHome { text += " The state it replaced is kept in \(previous.path)." }
        text += " Other browsers signed in to this console were signed out."
        return redirect("/backup", .success(text), context: context)
    }

    /// Which field a restore's failure concerns, and the sentence to show there.
    private enum Field { case file, passphrase }

    private static func explain(_ error: BackupError, fileName: String) -> (Field?, String) {
        switch error {
        case .notABackup: (.file, "\(fileName) is not a Pepper backup.")
        case .truncated: (.file, "\(fileName) ends early: the backup is incomplete (downloaded or copied only in part?).")
        case .newerFormat, .damaged, .unusableState: (.file, sentence(error.description))
        case .wrongPassphrase: (.passphrase, "This passphrase does not open the backup.")
        case .passphraseNeeded: (.passphrase, "This backup is encrypted: type its passphrase.")
        case .homeNotEmpty, .noState, .io: (nil, sentence(error.description))
        case .syncInUse:
            (
                nil,
                "This home serves sync to your devices from this console (or pepper sync follow runs on it), which keeps its sync state in memory and would write the replaced state back. Stop the console and restore with pepper backup restore --replace."
            )
        }
    }

    /// `text` with a capital first letter and a final full stop.
    private static func sentence(_ text: String) -> String {
        guard let first = text.first else { return text }
        let capitalised = first.uppercased() + text.dropFirst()
        return capitalised.hasSuffix(".") ? capitalised : capitalised + "."
    }
}

/// Reads a file a megabyte at a time on a thread made for waiting (a response body's chunks).
private final class ChunkReader: Sendable {
    private let handle: NIOLockedValueBox<FileHandle?>

    init(handle: FileHandle) {
        self.handle = NIOLockedValueBox(handle)
    }

    /// The next chunk, or `nil` at the end (the file is then closed).
    func next() async throws -> Data? {
        let box = handle
        return try await BlockingWorkPool.shared.run { () throws -> Data? in
            try box.withLockedValue { handle -> Data? in
                guard let current = handle else { return nil }
                if let chunk = try current.read(upToCount: 1 << 20), !chunk.isEmpty { return chunk }
                try? current.close()
                handle = nil
                return nil
            }
        }
    }

    deinit {
        handle.withLockedValue { try? $0?.close() }
    }
}
