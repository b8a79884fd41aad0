import AppExtensionSupport
import AppSupport
import Screens
import Storage
import SwiftUI

/// Web protection: Safari's content blockers (confirmed with Safari), the lists and their
/// Update button, the allowlist, the sites where Pepper's browser blocked the most in the last
/// days (`BlockedSitesScreen`), the DuckDuckGo suggestion with Safari's steps once Safari uses the
/// lists, and the onboarding tour again.
struct WebProtectionView: View {
    @Environment(AppModel.self) private var model
    @State private var loaded: Loaded?
    @State private var updating = false

    /// What the screen shows, read away from the main actor.
    private struct Loaded: Sendable {
        var safari: OnboardingScreen.BrowserSetup?
        var toTurnOn: [ContentBlockerSlot]
        var lists: [ListsScreen.Row]
        var suggestionAnswered: Bool
        var unserved: Int
        var blockedSites: BlockedSitesScreen.State
    }

    var body: some View {
        if let loaded {
            page(loaded)
        } else {
            ProgressView().navigationTitle("Web protection").task { await refresh() }
        }
    }

    private func page(_ loaded: Loaded) -> some View {
        List {
            Section("Safari") {
                if let safari = loaded.safari, safari.installed {
                    Label("Safari uses Pepper's \(safari.filters.count) lists.", systemImage: "checkmark.shield")
                } else {
                    ForEach(SafariContentBlockers.enableSteps, id: \.self) { Text($0) }
                    if !loaded.toTurnOn.isEmpty {
                        Text("Still off: \(loaded.toTurnOn.map { "Pepper \($0.number)" }.joined(separator: ", ")).")
                            .foregroundStyle(.secondary)
                    }
                }
                if loaded.unserved > 0 {
                    Text("\(loaded.unserved) of the lists do not fit Safari's \(ContentBlockerSlot.count) blockers: turn a list off.")
                        .foregroundStyle(.orange)
                }
                Button("Check with Safari again") { Task { await refresh() } }
                Button("Show the introduction again") { model.showsOnboarding = true }
            }
            Section("Lists") {
                ForEach(loaded.lists, id: \.name) { row in
                    Toggle(isOn: binding(for: row)) {
                        VStack(alignment: .leading) {
                            Text(row.name)
                            if let error = row.lastError { Text(error).font(.caption).foregroundStyle(.red) }
                        }
                    }
                }
                Button(updating ? "Updating…" : "Update now") { update() }.disabled(updating)
                NavigationLink("Your lists, reports and categories") { ListsView() }
            }
            Section { NavigationLink("Allowlist") { AllowlistView() } }
            Section(loaded.blockedSites.caption) {
                if loaded.blockedSites.sites.isEmpty {
                    Text(loaded.blockedSites.emptyText).foregroundStyle(.secondary)
                }
                ForEach(loaded.blockedSites.sites, id: \.site) { site in
                    VStack(alignment: .leading) {
                        LabeledContent(site.site, value: "\(site.total)")
                        Text(site.listsText).font(.caption).foregroundStyle(.secondary)
                    }
                }
            }
            // After Safari confirms the blockers, as the design orders it (OnboardingTour.nextPage).
            if !loaded.suggestionAnswered && loaded.safari?.installed == true {
                Section("Search with DuckDuckGo") {
                    ForEach(SafariContentBlockers.duckDuckGoSteps, id: \.self) { Text($0) }
                    Button("Done, or not for me") {
                        model.perform { await OnboardingScreen(state: $0).dismissSearchSuggestion() }
                        self.loaded?.suggestionAnswered = true
                    }
                }
            }
        }
        .navigationTitle("Web protection")
        .refreshable { await refresh() }
    }

    private func refresh() async {
        guard let pepper = model.pepper else { return }
        let settings = await SafariBlockers.settings(outputURL: pepper.home.outputURL)
        loaded = await model.load { state in
            let onboarding = try await OnboardingScreen(state: state, browser: settings).load()
            return Loaded(
                safari: onboarding.browser, toTurnOn: settings.slotsToTurnOn(), lists: try await ListsScreen(state: state).load().lists,
                suggestionAnswered: onboarding.search.answered,
                unserved: state.manifest().map { ContentBlockerSlot.unservedLists(of: $0).count } ?? 0,
                blockedSites: try await BlockedSitesScreen(state: state).load())
        }
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
    @State private var entries: [AllowlistScreen.Entry]?
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
            ForEach(entries ?? [], id: \.domain) { entry in
                VStack(alignment: .leading) {
                    Text(entry.unicode ?? entry.domain)
                    if let expiry = entry.expiresAt { Text("Until \(expiry.formatted())").font(.caption) }
                }
            }
            .onDelete { offsets in
                let domains = offsets.compactMap { entries?[$0].domain }
                Task {
                    for domain in domains { await model.run { await AllowlistScreen(state: $0).remove(domain) } }
                    await reload()
                }
            }
        }
        .navigationTitle("Allowlist")
        .overlay { if entries == nil { ProgressView() } }
        .task { await reload() }
    }

    private func add(_ duration: AllowlistScreen.Duration) {
        let input = site
        site = ""
        Task {
            await model.run { await AllowlistScreen(state: $0).add(site: input, duration: duration) }
            await reload()
        }
    }

    private func reload() async {
        entries = await model.load { try await AllowlistScreen(state: $0).load().entries }
    }
}
