import Foundation
import Observation
import PepperActions
import Screens
import SwiftUI
import UniformTypeIdentifiers

/// Lists coming into the app: a file picked in the document picker or opened in Pepper from the
/// share sheet, and what adding one (or an address) gave. Staging, adding and the report are
/// `ListsScreen`'s, as the console's upload; this only holds the file's security scope while
/// it is copied, and what the sheet shows.
@MainActor
@Observable
final class ListImports {
    /// A file copied into the app group, waiting for the person to add it.
    var pending: ListFileImport?
    /// The name the person gives it (empty: the suggested one).
    var name = ""
    /// What the last add did, with the list's report.
    var added: ListsScreen.Added?
    /// Whether a file is being copied or added.
    var working = false

    /// The types the document picker offers (text and JSON lists).
    static let contentTypes: [UTType] = ListFileImport.contentTypes.compactMap { UTType($0) }

    /// Copies a file the system handed the app into the app group, while its security-scoped
    /// address is held (it does not last), then asks the person to add it. A copy iOS made
    /// in `Documents/Inbox` is removed once copied.
    func receive(_ url: URL, model: AppModel) async {
        guard let pepper = model.pepper else { return }
        working = true
        defer { working = false }
        let scoped = url.startAccessingSecurityScopedResource()
        defer { if scoped { url.stopAccessingSecurityScopedResource() } }
        do {
            let staged = try await ListsScreen(state: pepper).stage(url)
            if let earlier = pending { await ListsScreen(state: pepper).discard(earlier) }
            pending = staged
            name = ""
            added = nil
        } catch {
            model.notice = error
        }
        if let documents = FileManager.default.urls(for: .documentDirectory, in: .userDomainMask).first,
            ListFileImport.isInboxCopy(url, documents: documents)
        {
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// Adds the pending file, as the console adds an upload; a refused add keeps it for another try.
    func addPending(model: AppModel) async {
        guard let pepper = model.pepper, let file = pending else { return }
        working = true
        defer { working = false }
        let chosen = name.trimmingCharacters(in: .whitespaces)
        let outcome = await ListsScreen(state: pepper).add(file, name: chosen.isEmpty ? nil : chosen)
        model.notice = outcome.notice
        if !outcome.notice.isError {
            pending = nil
            added = outcome
        }
    }

    /// Adds a list by its address, as the console's form does.
    func add(address: String, name: String, model: AppModel) async {
        guard let pepper = model.pepper else { return }
        working = true
        defer { working = false }
        let outcome = await ListsScreen(state: pepper).adding(address: address, name: name.isEmpty ? nil : name)
        model.notice = outcome.notice
        if !outcome.notice.isError { added = outcome }
    }

    /// Forgets the pending file without adding it.
    func cancel(model: AppModel) async {
        guard let file = pending else { return }
        pending = nil
        if let pepper = model.pepper { await ListsScreen(state: pepper).discard(file) }
    }
}

/// The sheet of an incoming list: the file to add and its name, then the report of what it
/// gave the content blocker.
struct ListImportSheet: ViewModifier {
    @Environment(AppModel.self) private var model

    func body(content: Content) -> some View {
        let imports = model.listImports
        content.sheet(
            isPresented: Binding(
                get: { imports.pending != nil || imports.added?.list != nil },
                set: { shown in
                    guard !shown else { return }
                    imports.added = nil
                    Task { await imports.cancel(model: model) }
                })
        ) {
            NavigationStack {
                if let file = imports.pending {
                    PendingListView(file: file)
                } else if let row = imports.added?.list {
                    ListDetailView(name: row.name, initial: row)
                        .toolbar { Button("Done") { imports.added = nil } }
                }
            }
            .environment(model)
            .noticeBanner()
        }
    }
}

/// A file to add: its name, size and the list name it will get.
private struct PendingListView: View {
    @Environment(AppModel.self) private var model
    let file: ListFileImport

    var body: some View {
        @Bindable var imports = model.listImports
        Form {
            Section("File") {
                LabeledContent("Name", value: file.fileName)
                LabeledContent("Size", value: ByteCountFormatter.string(fromByteCount: Int64(file.bytes), countStyle: .file))
            }
            Section {
                TextField(file.suggestedName, text: $imports.name)
                    .autocorrectionDisabled()
                    #if os(iOS)
                .textInputAutocapitalization(.never)
                    #endif
            } header: {
                Text("List name")
            } footer: {
                Text(
                    "Lower-case letters, digits, '.', '-' and '_'. The list is checked before it is added: a file with no usable rule is refused."
                )
            }
        }
        .navigationTitle("Add a list")
        .toolbar {
            ToolbarItem(placement: .cancellationAction) {
                Button("Cancel") { Task { await imports.cancel(model: model) } }
            }
            ToolbarItem(placement: .confirmationAction) {
                Button("Add") { Task { await imports.addPending(model: model) } }.disabled(imports.working)
            }
        }
    }
}

extension View {
    /// The sheet of incoming lists of the app model in the environment.
    func listImportSheet() -> some View { modifier(ListImportSheet()) }
}
