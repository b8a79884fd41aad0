#if os(iOS)
import Screens
import SwiftUI

/// Calls and messages: what is in force (real counts from the shared database), the block
/// list, and the SMS guard.
struct CallsAndMessagesView: View {
    @Environment(AppModel.self) private var model
    @State private var counts: (calls: CallsScreen.State, messages: MessagesScreen.State)?
    @State private var directoryOn = false

    var body: some View {
        List {
            Section("Info") {
                if let calls = counts?.calls, let messages = counts?.messages {
                    LabeledContent("Numbers blocked", value: "\(calls.export.blocking)")
                    LabeledContent("Numbers identified", value: "\(calls.export.identification)")
                    LabeledContent("Contacts", value: "\(calls.contacts)")
                    LabeledContent("Words filtered", value: "\(messages.words.count)")
                    LabeledContent("Senders blocked", value: "\(messages.blockedSenders.count)")
                    LabeledContent("Call directory version", value: "\(calls.export.version)")
                } else {
                    ProgressView()
                }
                Label(
                    directoryOn ? "Call blocking is on." : "Turn on Pepper in Settings › Apps › Phone › Call Blocking & Identification.",
                    systemImage: directoryOn ? "checkmark.circle" : "exclamationmark.circle")
                Text("iOS does not tell apps which calls and messages it filtered, so there are no per-call counts here.")
                    .font(.footnote).foregroundStyle(.secondary)
            }
            Section {
                NavigationLink("Block list") { BlockListView(onChange: reload) }
                NavigationLink("SMS Guard") { SMSGuardView(onChange: reload) }
            }
        }
        .navigationTitle("Calls and messages")
        .task { await reloadAll() }
        .refreshable { await reloadAll() }
    }

    private func reload() { Task { await reloadAll() } }

    private func reloadAll() async {
        counts = await model.load { (try await CallsScreen(state: $0).load(), try await MessagesScreen(state: $0).load()) }
        directoryOn = await CallDirectory.isEnabled()
    }
}

/// Numbers and ranges blocked or labelled, and "block all except contacts".
struct BlockListView: View {
    let onChange: () -> Void
    @Environment(AppModel.self) private var model
    @State private var state: CallsScreen.State?
    @State private var number = ""
    @State private var preview: String?

    var body: some View {
        List {
            Section {
                TextField("Number or range, such as +1 206 555 01##", text: $number)
                    .keyboardType(.phonePad)
                    .onChange(of: number) { Task { await showPreview() } }
                if let preview { Text(preview).font(.caption).foregroundStyle(.secondary) }
                Button("Block") { change { [number] screen in await screen.block(number) } }.disabled(number.isEmpty)
            }
            Section("Blocked") {
                ForEach(state?.blocked ?? [], id: \.value) { entry in Text(entry.shown) }
                    .onDelete { offsets in
                        for value in offsets.compactMap({ state?.blocked[$0].value }) { change { await $0.unblock(value) } }
                    }
            }
            Section("Identified") {
                ForEach(state?.identified ?? [], id: \.value) { entry in LabeledContent(entry.shown, value: entry.label ?? "") }
            }
            Section {
                Toggle("Block all except contacts", isOn: blockAllExceptContacts)
                Button("Import my contacts") { importContacts() }
                Text(CallsScreen.blockAllExceptContactsNote).font(.footnote).foregroundStyle(.secondary)
            }
        }
        .navigationTitle("Block list")
        .overlay { if state == nil { ProgressView() } }
        .task { await reload() }
    }

    private var blockAllExceptContacts: Binding<Bool> {
        Binding(get: { state?.blockAllExceptContacts ?? false }, set: { on in change { await $0.setBlockAllExceptContacts(on) } })
    }

    /// The number as it will be saved, read off the main actor (the region is in the database).
    private func showPreview() async {
        let typed = number
        guard !typed.isEmpty, let result = await model.load({ await CallsScreen(state: $0).preview(typed) }) else {
            preview = nil
            return
        }
        guard typed == number else { return }  // typed on meanwhile: a newer preview comes
        switch result {
        case .success(let found): preview = "\(found.normalized): \(found.numbers) number(s)"
        case .failure(let notice): preview = notice.text
        }
    }

    private func change(_ action: @escaping @Sendable (CallsScreen) async -> Notice) {
        Task {
            await model.runCallChange { await action(CallsScreen(state: $0)) }
            number = ""
            await reload()
            onChange()
        }
    }

    private func importContacts() {
        Task {
            do {
                let vCard = try await ContactsImport.vCard()
                change { await $0.importContacts(vCard: vCard) }
            } catch {
                model.notice = .error("\(error)")
            }
        }
    }

    private func reload() async { state = await model.load { try await CallsScreen(state: $0).load() } }
}
#endif
