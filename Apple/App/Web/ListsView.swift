import Foundation
import PepperActions
import Screens
import SwiftUI

/// Every list with what it gave the content blocker, adding one by address or from a file
/// (the document picker; "Open in Pepper" arrives through `ListImports` too), as the console's
/// Lists page. The decisions are `ListsScreen`'s.
struct ListsView: View {
    @Environment(AppModel.self) private var model
    @State private var rows: [ListsScreen.Row]?
    @State private var address = ""
    @State private var name = ""
    @State private var picking = false

    var body: some View {
        List {
            Section("Lists") {
                ForEach(rows ?? [], id: \.name) { row in
                    NavigationLink {
                        ListDetailView(name: row.name, initial: row)
                    } label: {
                        VStack(alignment: .leading) {
                            Text(row.name)
                            Text(Self.summary(row)).font(.caption).foregroundStyle(.secondary)
                        }
                    }
                }
            }
            Section {
                TextField("https://example.org/list.txt", text: $address)
                    .autocorrectionDisabled()
                    #if os(iOS)
                .keyboardType(.URL)
                .textInputAutocapitalization(.never)
                    #endif
                TextField("Name (optional)", text: $name)
                    .autocorrectionDisabled()
                    #if os(iOS)
                .textInputAutocapitalization(.never)
                    #endif
                Button("Add the list") { addAddress() }.disabled(model.listImports.working || address.isEmpty)
                Button("Choose a file…") { picking = true }.disabled(model.listImports.working)
            } header: {
                Text("Add a list")
            } footer: {
                Text(
                    "By its address, or a text or JSON file of at most \(PepperState.maximumUploadBytes / 1_048_576) MB (or share a .txt list to Pepper). It is checked before it is added."
                )
            }
        }
        .navigationTitle("Lists")
        .overlay { if rows == nil { ProgressView() } }
        .task { await reload() }
        .refreshable { await reload() }
        .onChange(of: model.listImports.added) { Task { await reload() } }
        .fileImporter(isPresented: $picking, allowedContentTypes: ListImports.contentTypes) { result in
            switch result {
            case .success(let url): Task { await model.listImports.receive(url, model: model) }
            case .failure(let error): model.notice = .error("The file could not be opened: \(error.localizedDescription)", field: "file")
            }
        }
    }

    /// "1,234 rules in · 1,200 out · 34 skipped".
    static func summary(_ row: ListsScreen.Row) -> String {
        var parts: [String] = [row.enabled ? "in use" : "off"]
        if let rulesIn = row.rulesIn { parts.append("\(rulesIn.formatted()) rules in") }
        if let rulesOut = row.rulesOut { parts.append("\(rulesOut.formatted()) out") }
        if row.skippedTotal > 0 { parts.append("\(row.skippedTotal.formatted()) skipped") }
        return parts.joined(separator: " · ")
    }

    private func addAddress() {
        let (typed, chosen) = (address, name)
        Task {
            await model.listImports.add(address: typed, name: chosen, model: model)
            if model.notice?.isError == false {
                address = ""
                name = ""
            }
            await reload()
        }
    }

    private func reload() async {
        rows = await model.load { try await ListsScreen(state: $0).load().lists }
    }
}

/// One list: whether it is used, what it gave the content blocker (rules in, WebKit rules out,
/// lines skipped by reason) and, for Tracker Radar and Disconnect, which categories it blocks.
struct ListDetailView: View {
    @Environment(AppModel.self) private var model
    @Environment(\.dismiss) private var dismiss
    let name: String
    @State private var row: ListsScreen.Row?

    init(name: String, initial: ListsScreen.Row?) {
        self.name = name
        _row = State(initialValue: initial)
    }

    var body: some View {
        List {
            if let row { content(row) }
        }
        .navigationTitle(name)
        .overlay { if row == nil { ProgressView() } }
        .task { await reload() }
    }

    @ViewBuilder private func content(_ row: ListsScreen.Row) -> some View {
        Section {
            Toggle("In use", isOn: enabled(row))
            Text(row.location).font(.caption).foregroundStyle(.secondary).textSelection(.enabled)
            if let success = row.lastSuccess { LabeledContent("Downloaded", value: success.formatted()) }
            if let error = row.lastError { Text("Last update failed: \(error) The last good copy is in use.").foregroundStyle(.red) }
        }
        Section("What it gave the content blocker") {
            LabeledContent("Rules in", value: row.rulesIn.map { $0.formatted() } ?? "not compiled yet")
            LabeledContent("WebKit rules out", value: row.rulesOut.map { $0.formatted() } ?? "not compiled yet")
            LabeledContent("Lines skipped", value: row.skippedTotal.formatted())
            ForEach(row.skipped, id: \.reason) { skipped in
                LabeledContent(skipped.reason, value: skipped.count.formatted()).font(.caption.monospaced())
            }
        }
        if let categories = row.categories { categoriesSection(categories) }
        if !row.builtIn {
            Section {
                Button("Remove \(row.name)", role: .destructive) { remove() }
            }
        }
    }

    @ViewBuilder private func categoriesSection(_ categories: ListCategories) -> some View {
        Section {
            if let offered = categories.offered {
                ForEach(offered, id: \.name) { category in
                    Toggle(isOn: chosen(category, of: categories)) {
                        VStack(alignment: .leading) {
                            Text(category.name)
                            Text("\(category.domains.formatted()) domains").font(.caption).foregroundStyle(.secondary)
                        }
                    }
                }
                if !categories.isDefault {
                    Button("Use the default categories") { change { await ListsScreen(state: $0).useDefaultCategories(for: name) } }
                }
            } else {
                Text("Its categories can be chosen once it is downloaded.")
            }
        } header: {
            Text("Categories")
        } footer: {
            Text("Trackers outside the chosen categories are blocked neither in Safari nor by DNS protection.")
        }
    }

    private func enabled(_ row: ListsScreen.Row) -> Binding<Bool> {
        Binding(
            get: { row.enabled },
            set: { on in
                let name = self.name
                change { on ? await ListsScreen(state: $0).enable(name) : await ListsScreen(state: $0).disable(name) }
            })
    }

    private func chosen(_ category: ListCategories.Category, of categories: ListCategories) -> Binding<Bool> {
        Binding(
            get: { category.chosen },
            set: { _ in
                let (names, list) = (categories.choice(toggling: category.name), name)
                change { await ListsScreen(state: $0).chooseCategories(names, for: list) }
            })
    }

    private func remove() {
        let name = self.name
        Task {
            await model.run { await ListsScreen(state: $0).remove(name) }
            if model.notice?.isError == false { dismiss() }
        }
    }

    /// Runs a screen action, shows its sentence and reads the list again.
    private func change(_ action: @escaping @Sendable (PepperState) async -> Notice) {
        Task {
            await model.run(action)
            await reload()
        }
    }

    private func reload() async {
        let name = self.name
        if let fresh = await model.load({ try await ListsScreen(state: $0).load().lists.first { $0.name == name } }) { row = fresh }
    }
}
