import AppExtensionSupport
import AppSupport
import ContentBlocker
import Foundation
import PepperActions
import Screens
import Storage
import Testing

/// The app's first-run tour: welcome, Safari until it confirms every blocker that serves a list,
/// then DuckDuckGo (after installation, as the blocker design orders it), over a real state.
@Suite("Onboarding tour")
struct OnboardingTourTests {
    /// A state whose output needs two or three of Safari's three blockers, the slots needed, and
    /// the output's manifest (also used by `AppDecisionTests`).
    static func stateNeedingSeveralBlockers() async throws -> (PepperState, [ContentBlockerSlot], Manifest, TemporaryContainer) {
        let temporary = TemporaryContainer()
        _ = try await temporary.state.addRule("||ads.example^", rebuild: false)
        _ = try await temporary.state.addRule("||tracker.example^", rebuild: false)
        let total = try await temporary.state.rebuild().totalRules
        let state = PepperState(
            home: temporary.container.home, database: temporary.state.database, configuration: .init(maximumRules: (total + 1) / 2))
        let manifest = try await state.rebuild().manifest
        try #require((2...3).contains(manifest.files.count))
        return (state, Array(ContentBlockerSlot.all.prefix(manifest.files.count)), manifest, temporary)
    }

    static func tour(_ state: PepperState, on slots: Set<ContentBlockerSlot>) async throws -> (OnboardingTour, OnboardingScreen.State) {
        let safari = SafariContentBlockers(outputURL: state.home.outputURL, enabledSlots: slots)
        let onboarding = try await OnboardingScreen(state: state, browser: safari).load()
        return (OnboardingTour(safari: safari, onboarding: onboarding), onboarding)
    }

    @Test func duckDuckGoComesOnlyAfterSafariConfirmsEveryBlockerThatServesAList() async throws {
        let (state, needed, _, temporary) = try await Self.stateNeedingSeveralBlockers()
        defer { withExtendedLifetime(temporary) {} }
        var (tour, onboarding) = try await Self.tour(state, on: [])
        #expect(OnboardingTour.showsAtLaunch(onboarding))
        #expect(tour.page == .welcome)
        let wentToSafari = tour.advance()
        #expect(wentToSafari)
        #expect(tour.page == .safari)
        // Nothing on: every blocker serving a list is named, the tour can only end for later.
        #expect(tour.stillOff == needed.map { "Pepper \($0.number)" })
        #expect(!tour.safariConfirmed)
        #expect(tour.nextPage == nil)
        #expect(tour.safariButton == "Later")

        // One left off: still no DuckDuckGo.
        let half = SafariContentBlockers(outputURL: state.home.outputURL, enabledSlots: Set(needed.dropLast()))
        tour.update(safari: half, onboarding: try await OnboardingScreen(state: state, browser: half).load())
        #expect(tour.stillOff == ["Pepper \(needed.last!.number)"])
        #expect(tour.nextPage == nil)

        // All on (the person came back from Settings): Safari confirms, DuckDuckGo is next.
        let on = SafariContentBlockers(outputURL: state.home.outputURL, enabledSlots: Set(needed))
        tour.update(safari: on, onboarding: try await OnboardingScreen(state: state, browser: on).load())
        #expect(tour.safariConfirmed)
        #expect(tour.stillOff.isEmpty)
        #expect(tour.blockers.filter(\.enabled).map(\.slot) == needed)
        #expect(tour.blockers.map(\.servesAList) == ContentBlockerSlot.all.map { needed.contains($0) })
        #expect(tour.safariButton == "Continue")
        let wentToDuckDuckGo = tour.advance()
        #expect(wentToDuckDuckGo)
        #expect(tour.page == .duckDuckGo)
        let wentPastTheEnd = tour.advance()
        #expect(!wentPastTheEnd, "DuckDuckGo is the last page")
        tour.back()
        #expect(tour.page == .safari)
    }

    @Test func anAnsweredSuggestionIsNotOfferedAgainAndAFinishedTourDoesNotOpenAtLaunch() async throws {
        let (state, needed, _, temporary) = try await Self.stateNeedingSeveralBlockers()
        defer { withExtendedLifetime(temporary) {} }
        #expect(await OnboardingScreen(state: state).dismissSearchSuggestion().isError == false)
        var (tour, onboarding) = try await Self.tour(state, on: Set(needed))
        #expect(tour.searchAnswered)
        let wentOn = tour.advance()
        #expect(wentOn)
        #expect(tour.safariConfirmed)
        #expect(tour.nextPage == nil, "the suggestion was answered: Safari's page ends the tour")
        #expect(tour.safariButton == "Done")
        #expect(OnboardingTour.showsAtLaunch(onboarding))

        #expect(await OnboardingScreen(state: state).finish().isError == false)
        (tour, onboarding) = try await Self.tour(state, on: Set(needed))
        #expect(!OnboardingTour.showsAtLaunch(onboarding))
        #expect(tour.page == .welcome, "reopened from Web protection, it starts at the beginning")
    }
}
