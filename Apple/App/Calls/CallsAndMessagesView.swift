#if os(iOS)
import AppExtensionSupport
import Screens
import SwiftUI

/// Calls and messages: what the message filter counted (its counts file), what is in force
/// (from the shared database), the block list, and the SMS guard.
struct CallsAndMessagesView: View {
    @Environment(AppModel.self) private var model
    @State private var counts: (calls: CallsScreen.State, messages: MessagesScreen.State)?
    @State private var filtered: [MessageFilterCounts.Line] = MessageFilterCounts.infoLines(nil)
    @State private var directoryOn = false

    var body: some View {
        List {
            Section("Info") {
                ForEach(filtered, id: \.label) { line in LabeledContent(line.label, value: line.value) }
                Text(MessageFilterCounts.infoNote).font(.footnote).foregroundStyle(.secondary)
            }
            Section("In force") {
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
        if let url = model.context?.container.messageFilterCountsURL {
            // Written by the message-filter extension; read off the main actor.
            let read = await Task.detached { Result { try MessageFilterCounts.read(from: url) } }.value
            switch read {
            case .success(let counts): filtered = MessageFilterCounts.infoLines(counts)
            case .failure(let error): model.notice = .error("Cannot read the message filter's counts: \(error)")
            }
        }
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
    @State private var labelledNumber = ""
    @State private var label = ""

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
                TextField("Number or range to label", text: $labelledNumber).keyboardType(.phonePad)
                TextField("Label shown when it rings, such as Pizza place", text: $label)
                Button("Save label") { change { [labelledNumber, label] screen in await screen.identify(labelledNumber, label: label) } }
                    .disabled(labelledNumber.isEmpty || label.isEmpty)
                // Tapping a line puts it in the fields above to change its label.
                ForEach(state?.identified ?? [], id: \.value) { entry in
                    Button {
                        labelledNumber = entry.value
                        label = entry.label ?? ""
                    } label: {
                        LabeledContent(entry.shown, value: entry.label ?? "")
                    }
                }
                .onDelete { offsets in
                    for value in offsets.compactMap({ state?.identified[$0].value }) { change { await $0.unidentify(value) } }
                }
            }
            Section("Region") {
                Picker("Numbers without a country code are", selection: region) {
                    ForEach(state?.regions ?? [], id: \.self) { Text($0).tag($0) }
                }
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

    /// The phone region: read by the block list, the labels and the message filter alike.
    private var region: Binding<String> {
        Binding(get: { state?.region ?? "US" }, set: { code in change { await $0.setRegion(code) } })
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
            if model.notice?.isError == false {
                number = ""
                labelledNumber = ""
                label = ""
            }
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
