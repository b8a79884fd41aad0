#if os(iOS)
import CallFilter
import Screens
import SwiftUI

/// The SMS guard: the switch, the words (with the look-alikes they catch) and blocked senders.
/// The message-filter extension reads them from the shared database.
struct SMSGuardView: View {
    let onChange: () -> Void
    @Environment(AppModel.self) private var model
    @State private var state: MessagesScreen.State?
    @State private var word = ""
    @State private var action = "junk"
    @State private var sender = ""

    var body: some View {
        List {
            Section {
                Toggle("SMS Guard", isOn: Binding(get: { state?.enabled ?? true }, set: { on in change { await $0.setEnabled(on) } }))
                Toggle(
                    "Unknown senders are junk",
                    isOn: Binding(
                        get: { state?.unknownSendersAreJunk ?? false }, set: { on in change { await $0.setUnknownSendersAreJunk(on) } })
                )
                Text("Turn on Pepper in Settings › Apps › Messages › Unknown & Spam.").font(.footnote).foregroundStyle(.secondary)
            }
            Section("Words") {
                HStack {
                    TextField("Word or phrase", text: $word).autocorrectionDisabled()
                    Picker("Action", selection: $action) {
                        ForEach(MessagesScreen.wordActions, id: \.self) { Text($0.rawValue).tag($0.rawValue) }
                    }
                    Button("Add") { change { [word, action] screen in await screen.addWord(word, action: action) } }.disabled(word.isEmpty)
                }
                ForEach(state?.words ?? [], id: \.word) { rule in
                    VStack(alignment: .leading) {
                        LabeledContent(rule.word, value: rule.action)
                        if !rule.lookAlikes.isEmpty {
                            Text("Also catches: \(rule.lookAlikes.map(\.text).joined(separator: ", "))").font(.caption)
                        }
                    }
                }
                .onDelete { offsets in
                    for removed in offsets.compactMap({ state?.words[$0].word }) { change { await $0.removeWord(removed) } }
                }
            }
            Section("Blocked senders") {
                HStack {
                    TextField("Number or sender ID, such as PROMO", text: $sender).autocorrectionDisabled()
                    Button("Block") { change { [sender] screen in await screen.blockSender(sender) } }.disabled(sender.isEmpty)
                }
                Text("Numbers on the call block list are junk here too.").font(.footnote).foregroundStyle(.secondary)
                ForEach(state?.blockedSenders ?? [], id: \.self) { Text($0) }
                    .onDelete { offsets in
                        for sender in offsets.compactMap({ state?.blockedSenders[$0] }) { change { await $0.unblockSender(sender) } }
                    }
            }
        }
        .navigationTitle("SMS Guard")
        .overlay { if state == nil { ProgressView() } }
        .task { await reload() }
    }

    private func change(_ action: @escaping @Sendable (MessagesScreen) async -> Notice) {
        Task {
            await model.run { await action(MessagesScreen(state: $0)) }
            if model.notice?.isError == false {
                word = ""
                sender = ""
            }
            await reload()
            onChange()
        }
    }

    private func reload() async { state = await model.load { try await MessagesScreen(state: $0).load() } }
}
#endif
