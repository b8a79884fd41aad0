import AppExtensionSupport
import AppSupport
import Screens
import Storage
import SwiftUI

/// Web protection: Safari's content blockers (confirmed with Safari), the lists and their
/// Update button, the allowlist, and the DuckDuckGo suggestion with Safari's steps.
struct WebProtectionView: View {
    @Environment(AppModel.self) private var model
    @State private var safari: OnboardingScreen.BrowserSetup?
    @State private var toTurnOn: [ContentBlockerSlot] = []
    @State private var lists: [ListsScreen.Row] = []
    @State private var suggestionAnswered = true
    @State private var updating = false
    @State private var unserved = 0

    var body: some View {
        List {
            Section("Safari") {
                if let safari, safari.installed {
                    Label("Safari uses Pepper's \(safari.filters.count) lists.", systemImage: "checkmark.shield")
                } else {
                    ForEach(SafariContentBlockers.enableSteps, id: \.self) { Text($0) }
                    if !toTurnOn.isEmpty {
                        Text("Still off: \(toTurnOn.map { "Pepper \($0.number)" }.joined(separator: ", ")).")
                            .foregroundStyle(.secondary)
                    }
                }
                if unserved > 0 {
                    Text("\(unserved) of the lists do not fit Safari's \(ContentBlockerSlot.count) blockers: turn a list off.")
                        .foregroundStyle(.orange)
                }
                Button("Check with Safari again") { Task { await refresh() } }
            }
            Section("Lists") {
                ForEach(lists, id: \.name) { row in
                    Toggle(isOn: binding(for: row)) {
                        VStack(alignment: .leading) {
                            Text(row.name)
                            if let error = row.lastError { Text(error).font(.caption).foregroundStyle(.red) }
                        }
                    }
                }
                Button(updating ? "Updating…" : "Update now") { update() }.disabled(updating)
            }
            Section { NavigationLink("Allowlist") { AllowlistView() } }
            if !suggestionAnswered {
                Section("Search with DuckDuckGo") {
                    ForEach(SafariContentBlockers.duckDuckGoSteps, id: \.self) { Text($0) }
                    Button("Done, or not for me") {
                        model.perform { OnboardingScreen(state: $0).dismissSearchSuggestion() }
                        suggestionAnswered = true
                    }
                }
            }
        }
        .navigationTitle("Web protection")
        .task { await refresh() }
        .refreshable { await refresh() }
    }

    private func refresh() async {
        guard let pepper = model.pepper else { return }
        let settings = await SafariBlockers.settings(outputURL: pepper.home.outputURL)
        let onboarding = try? OnboardingScreen(state: pepper, gnomeWeb: settings).load()
        safari = onboarding?.gnomeWeb
        suggestionAnswered = onboarding?.search.answered ?? true
        toTurnOn = settings.slotsToTurnOn()
        unserved = pepper.manifest().map { ContentBlockerSlot.unservedLists(of: $0).count } ?? 0
        lists = (try? ListsScreen(state: pepper).load().lists) ?? []
    }

    private func binding(for row: ListsScreen.Row) -> Binding<Bool> {
        Binding(
            get: { row.enabled },
            set: { on in
                Task {
                    await model.run { on ? await ListsScreen(state: $0).enable(row.name) : await ListsScreen(state: $0).disable(row.name) }
                    await refresh()
                }
            })
    }

    private func update() {
        guard let pepper = model.pepper else { return }
        updating = true
        Task {
            model.notice = await ListsScreen(state: pepper).updateNow().0
            updating = false
            await refresh()
        }
    }
}

/// Sites where nothing is blocked (for good or for a day).
struct AllowlistView: View {
    @Environment(AppModel.self) private var model
    @State private var entries: [AllowlistScreen.Entry] = []
    @State private var site = ""

    var body: some View {
        List {
            Section {
                TextField("Site or address", text: $site)
                    .autocorrectionDisabled()
                    .onSubmit { add(.forGood) }
                HStack {
                    Button("Allow") { add(.forGood) }
                    Button("Allow for 24 hours") { add(.day) }
                }
            }
            ForEach(entries, id: \.domain) { entry in
                VStack(alignment: .leading) {
                    Text(entry.unicode ?? entry.domain)
                    if let expiry = entry.expiresAt { Text("Until \(expiry.formatted())").font(.caption) }
                }
            }
            .onDelete { offsets in
                for domain in offsets.map({ entries[$0].domain }) {
                    model.perform { await AllowlistScreen(state: $0).remove(domain) }
                }
                entries.remove(atOffsets: offsets)
            }
        }
        .navigationTitle("Allowlist")
        .task { reload() }
    }

    private func add(_ duration: AllowlistScreen.Duration) {
        let input = site
        site = ""
        Task {
            await model.run { await AllowlistScreen(state: $0).add(site: input, duration: duration) }
            reload()
        }
    }

    private func reload() {
        entries = (try? model.pepper.map { try AllowlistScreen(state: $0).load().entries }) ?? []
    }
}
