import AppSupport
import HomeBackup
import PepperActions
import SwiftUI
import UniformTypeIdentifiers

extension UTType {
    /// Pepper's backup file (`.pepperbackup`), declared in the app's Info.plist
    /// (`UTExportedTypeDeclarations`, Apple/project.yml).
    static let pepperBackup = UTType(exportedAs: "org.pepper.backup", conformingTo: .data)
}

/// The made backup handed to the system's exporter (Files, iCloud Drive, another app through the
/// share sheet): the file's bytes as `BackupActions` wrote them.
struct BackupFileDocument: FileDocument {
    static var readableContentTypes: [UTType] { [.pepperBackup] }

    /// The made file, in its temporary folder.
    let url: URL

    init(url: URL) { self.url = url }

    /// The exporter only writes: a backup is read back through the importer and the restore.
    init(configuration: ReadConfiguration) throws { throw CocoaError(.featureUnsupported) }

    func fileWrapper(configuration: WriteConfiguration) throws -> FileWrapper {
        try FileWrapper(url: url, options: .immediate)
    }
}

/// Settings › Back up and restore: this phone's state as the `.pepperbackup` file the console and
/// `pepper backup` make (optionally encrypted with a passphrase typed twice), saved wherever the
/// exporter offers; and a backup picked in Files restored over this phone's state after an
/// explicit confirmation. `BackupScreenPlan` decides and words everything; this view only shows it.
struct BackupView: View {
    @Environment(AppModel.self) private var model
    @State private var passphrase = ""
    @State private var passphraseAgain = ""
    @State private var exportProblem: String?
    @State private var made: BackupScreenPlan.Export?
    @State private var exporting = false
    @State private var picking = false
    @State private var picked: URL?
    @State private var restorePassphrase = ""
    @State private var confirmed = false
    @State private var confirmsRestore = false
    @State private var problems: [BackupScreenPlan.ImportProblem] = []
    @State private var progress: String?
    @State private var working = false

    var body: some View {
        Form {
            exportSection
            importSection
            if let progress { Section { Label(progress, systemImage: "hourglass") } }
        }
        .navigationTitle("Back up and restore")
        .disabled(working)
        .fileExporter(
            isPresented: $exporting, document: made.map { BackupFileDocument(url: $0.file) }, contentTypes: [.pepperBackup],
            defaultFilename: made?.file.lastPathComponent
        ) { result in
            if case .failure(let error) = result { model.notice = .error("The backup was not saved: \(error.localizedDescription)") }
            discardMade()
        } onCancellation: {
            discardMade()
        }
        .fileImporter(isPresented: $picking, allowedContentTypes: [.pepperBackup]) { result in
            switch result {
            case .success(let url):
                picked = url
                problems.removeAll { $0.field == .file }
            case .failure(let error): model.notice = .error("The file could not be opened: \(error.localizedDescription)", field: "file")
            }
        }
        .confirmationDialog("Replace this phone's state with the backup?", isPresented: $confirmsRestore, titleVisibility: .visible) {
            Button("Replace with the backup", role: .destructive) { restore() }
        } message: {
            Text("Everything this phone decided since the backup was made is replaced. The current state is kept aside in Pepper's folder.")
        }
    }

    // MARK: Sections

    private var exportSection: some View {
        Section {
            SecureField("Passphrase (optional)", text: $passphrase)
            SecureField("The passphrase again", text: $passphraseAgain)
            if let exportProblem { Text(exportProblem).font(.footnote).foregroundStyle(.red) }
            Button("Make a backup", systemImage: "square.and.arrow.up") { export() }
        } header: {
            Text("Back up")
        } footer: {
            Text(
                "One file with your allowlist, rules, lists and call and message rules, the same file your computer's Pepper makes. Save it in Files or iCloud Drive, or send it elsewhere. With a passphrase, the file cannot be opened without it."
            )
        }
    }

    private var importSection: some View {
        Section {
            Button(picked?.lastPathComponent ?? "Choose a backup file", systemImage: "doc") { picking = true }
            problemText(.file)
            SecureField("Its passphrase, if it has one", text: $restorePassphrase)
            problemText(.passphrase)
            Toggle(BackupScreenPlan.confirmation, isOn: $confirmed)
            problemText(.confirmation)
            Button("Restore", systemImage: "arrow.counterclockwise", role: .destructive) {
                problems = BackupScreenPlan.checkImport(file: picked, confirmed: confirmed)
                if problems.isEmpty { confirmsRestore = true }
            }
        } header: {
            Text("Restore")
        } footer: {
            Text(
                "A backup made on this phone, on your computer or on your home server. Syncing with your other devices pauses while it is restored."
            )
        }
    }

    @ViewBuilder private func problemText(_ field: BackupScreenPlan.Field) -> some View {
        if let problem = problems.first(where: { $0.field == field }) {
            Text(problem.text).font(.footnote).foregroundStyle(.red)
        }
    }

    // MARK: Actions

    private func export() {
        guard let pepper = model.pepper else { return }
        let key: Data?
        do {
            key = try BackupScreenPlan.exportPassphrase(passphrase, again: passphraseAgain)
        } catch {
            exportProblem = error.text
            return
        }
        exportProblem = nil
        working = true
        let version = Bundle.main.object(forInfoDictionaryKey: "CFBundleShortVersionString") as? String ?? "unknown"
        let temporary = FileManager.default.temporaryDirectory
        Task {
            let result = await DatabaseSuspensionHooks.finishing("Pepper backup", suspension: model.context?.suspension) {
                await BackupScreenPlan.export(state: pepper, temporary: temporary, passphrase: key, pepperVersion: version) { step in
                    Task { @MainActor in progress = BackupScreenPlan.progressText(step, restoring: false) }
                }
            }
            working = false
            progress = nil
            switch result {
            case .success(let export):
                passphrase = ""
                passphraseAgain = ""
                made = export
                model.notice = .success(export.text)
                exporting = true
            case .failure(let notice):
                model.notice = notice
            }
        }
    }

    /// The made file goes once the exporter has copied it (or was cancelled).
    private func discardMade() {
        if let made { try? FileManager.default.removeItem(at: made.file.deletingLastPathComponent()) }
        made = nil
    }

    private func restore() {
        guard let pepper = model.pepper, let file = picked else { return }
        let typed = restorePassphrase
        let runner = model.sync?.runner
        working = true
        Task {
            // The picked file's address is security-scoped: held while the restore reads it.
            let scoped = file.startAccessingSecurityScopedResource()
            defer { if scoped { file.stopAccessingSecurityScopedResource() } }
            let result = await DatabaseSuspensionHooks.finishing("Pepper restore", suspension: model.context?.suspension) {
                await BackupScreenPlan.restore(file: file, passphrase: typed, into: pepper, sync: runner) { step in
                    Task { @MainActor in progress = BackupScreenPlan.progressText(step, restoring: true) }
                }
            }
            working = false
            progress = nil
            switch result {
            case .success(let restored):
                problems = []
                picked = nil
                restorePassphrase = ""
                confirmed = false
                model.notice = restored.compiled ? .success(restored.text) : .error(restored.text)
                await model.reload(restored.reloads)
            case .failure(let problem):
                if problem.field == nil {
                    problems = []
                    model.notice = .error(problem.text)
                } else {
                    problems = [problem]
                }
            }
        }
    }
}
