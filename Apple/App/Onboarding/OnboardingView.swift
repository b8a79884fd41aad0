import AppExtensionSupport
import AppSupport
import Lottie
import Screens
import SwiftUI

#if os(iOS)
import UIKit
#endif

/// The first-run tour (`OnboardingTour` decides the pages): what Pepper does, played as the
/// project's Lottie animation (`onboarding.json`, made by scripts/make-onboarding-animation.py);
/// Safari's settings, with each content blocker's state as Safari reports it; then DuckDuckGo,
/// once Safari confirms the blockers. Shown at first launch, and again from Web protection.
struct OnboardingView: View {
    @Environment(AppModel.self) private var model
    @Environment(\.dismiss) private var dismiss
    @Environment(\.scenePhase) private var scenePhase
    @Environment(\.openURL) private var openURL
    @State private var tour: OnboardingTour?
    /// Safari's report the tour was last given, for the DuckDuckGo action.
    @State private var safari: SafariContentBlockers?

    var body: some View {
        NavigationStack {
            ScrollView {
                if let tour {
                    page(tour).padding()
                } else {
                    ProgressView().padding()
                }
            }
            .toolbar {
                ToolbarItem(placement: .cancellationAction) { Button("Skip") { finish() } }
            }
        }
        .task { await refresh() }
        // Back from Settings: ask Safari again.
        .onChange(of: scenePhase) { _, phase in
            if phase == .active { Task { await refresh() } }
        }
    }

    @ViewBuilder private func page(_ tour: OnboardingTour) -> some View {
        switch tour.page {
        case .welcome: welcome
        case .safari: safariPage(tour)
        case .duckDuckGo: duckDuckGo
        }
    }

    private var welcome: some View {
        VStack(spacing: 16) {
            LottieView(animation: .named("onboarding"))
                .playing(loopMode: .playOnce)
                .resizable()
                .frame(width: 220, height: 220)
                .accessibilityLabel(Text("A shield rises over a web page and its ads disappear."))
            Text("Pepper blocks ads and trackers in Safari").font(.title2).bold().multilineTextAlignment(.center)
            Text(
                "Pepper compiles the lists you choose into Safari's content blockers. Nothing you browse leaves your phone: Safari applies the rules itself."
            )
            .multilineTextAlignment(.center)
            Button("Next") { advance() }.buttonStyle(.borderedProminent)
        }
    }

    private func safariPage(_ tour: OnboardingTour) -> some View {
        VStack(alignment: .leading, spacing: 12) {
            Text("Turn Pepper on in Safari").font(.title2).bold()
            ForEach(Array(SafariContentBlockers.enableSteps.enumerated()), id: \.offset) { index, step in
                Text("\(index + 1). \(step)")
            }
            #if os(iOS)
            Button("Open Settings") {
                if let url = URL(string: UIApplication.openSettingsURLString) { openURL(url) }
            }
            #endif
            Divider()
            ForEach(tour.blockers, id: \.slot) { blocker in
                Label {
                    VStack(alignment: .leading) {
                        Text(blocker.name)
                        if !blocker.servesAList { Text("Not needed for your lists now").font(.caption).foregroundStyle(.secondary) }
                    }
                } icon: {
                    Image(systemName: blocker.enabled ? "checkmark.circle.fill" : "circle")
                        .foregroundStyle(blocker.enabled ? .green : .secondary)
                }
                .accessibilityElement(children: .combine)
                .accessibilityValue(Text(blocker.enabled ? "On" : "Off"))
            }
            if tour.safariConfirmed {
                Label("Safari confirms that it uses Pepper's lists.", systemImage: "checkmark.shield").foregroundStyle(.green)
            } else if !tour.stillOff.isEmpty {
                Text("Still off: \(tour.stillOff.joined(separator: ", ")).").foregroundStyle(.secondary)
            }
            HStack {
                Button("Check again") { Task { await refresh() } }
                Spacer()
                Button(tour.safariButton) { advance() }.buttonStyle(.borderedProminent)
            }
        }
    }

    private var duckDuckGo: some View {
        VStack(alignment: .leading, spacing: 12) {
            Text("Search with DuckDuckGo").font(.title2).bold()
            Text("DuckDuckGo does not track your searches. Make it Safari's search engine:")
            ForEach(Array(SafariContentBlockers.duckDuckGoSteps.enumerated()), id: \.offset) { index, step in
                Text("\(index + 1). \(step)")
            }
            HStack {
                Button("Not for me") {
                    Task {
                        await model.run { await OnboardingScreen(state: $0).dismissSearchSuggestion() }
                        finish()
                    }
                }
                Spacer()
                Button("Use DuckDuckGo") {
                    let settings = safari
                    Task {
                        // Pepper's own browser too; the notice repeats Safari's steps.
                        await model.run { await OnboardingScreen(state: $0, browser: settings).useDuckDuckGo() }
                        finish(keepingNotice: true)
                    }
                }
                .buttonStyle(.borderedProminent)
            }
        }
    }

    private func advance() {
        guard var tour else { return }
        if tour.advance() {
            self.tour = tour
        } else {
            finish()
        }
    }

    /// Marks the onboarding done (the tour stays reachable from Web protection) and closes it.
    private func finish(keepingNotice: Bool = false) {
        let kept = model.notice
        Task {
            await model.run { await OnboardingScreen(state: $0).finish() }
            // A failure is shown; success needs no sentence of its own.
            if model.notice?.isError == false { model.notice = keepingNotice ? kept : nil }
            dismiss()
        }
    }

    private func refresh() async {
        guard let pepper = model.pepper else { return }
        let settings = await SafariBlockers.settings(outputURL: pepper.home.outputURL)
        guard let state = await model.load({ try await OnboardingScreen(state: $0, browser: settings).load() }) else { return }
        safari = settings
        if var tour {
            tour.update(safari: settings, onboarding: state)
            self.tour = tour
        } else {
            tour = OnboardingTour(safari: settings, onboarding: state)
        }
    }
}
