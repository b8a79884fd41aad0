import AppExtensionSupport
import Foundation
import Screens

/// The app's first-run tour, page by page: what Pepper does (with its animation), turning on
/// Safari's content blockers until Safari confirms each one, then DuckDuckGo — offered only once
/// the blockers are confirmed, as the blocker design orders it ("after installation").
///
/// The tour decides; the app's `OnboardingView` shows the pages and asks Safari for the
/// blockers' states (``SafariContentBlockers``), the same way the Web protection screen does.
public struct OnboardingTour: Sendable, Hashable {
    /// A page of the tour, in order.
    public enum Page: Int, Sendable, Hashable, CaseIterable {
        /// What Pepper does, with the animation.
        case welcome
        /// Safari's settings: the steps, a button that opens Settings, each blocker's state.
        case safari
        /// DuckDuckGo as Safari's search engine, with Safari's steps.
        case duckDuckGo
    }

    /// One of Pepper's content blockers as Safari reports it.
    public struct Blocker: Sendable, Hashable {
        /// Its slot ("Pepper 1").
        public var slot: ContentBlockerSlot
        /// Whether the person turned it on in Safari's settings.
        public var enabled: Bool
        /// Whether it serves a list now (an unused slot may stay off).
        public var servesAList: Bool

        /// Its name in Safari's settings.
        public var name: String { "Pepper \(slot.number)" }
        /// Whether it still needs the person: it serves a list and is off.
        public var needsTurningOn: Bool { servesAList && !enabled }
    }

    /// The page shown.
    public private(set) var page: Page
    /// Each of Pepper's blockers, in slot order.
    public private(set) var blockers: [Blocker]
    /// Whether Safari confirmed the setup: every blocker that serves a list is on (the
    /// onboarding's own verdict, `OnboardingScreen.BrowserSetup.installed`).
    public private(set) var safariConfirmed: Bool
    /// Whether the DuckDuckGo suggestion was answered (accepted or dismissed) before.
    public private(set) var searchAnswered: Bool

    /// The tour at its first page, for what Safari reported (`safari`) and the onboarding's state.
    public init(safari: SafariContentBlockers, onboarding: OnboardingScreen.State) {
        page = .welcome
        blockers = []
        safariConfirmed = false
        searchAnswered = onboarding.search.answered
        update(safari: safari, onboarding: onboarding)
    }

    /// Whether the app opens on the tour: until it is finished or skipped once. Later it is
    /// reachable from the Web protection screen.
    public static func showsAtLaunch(_ onboarding: OnboardingScreen.State) -> Bool { !onboarding.done }

    /// Takes Safari's latest report (the person came back from Settings, or asked again).
    public mutating func update(safari: SafariContentBlockers, onboarding: OnboardingScreen.State) {
        let off = Set(safari.slotsToTurnOn())
        blockers = ContentBlockerSlot.all.map { slot in
            let enabled = safari.enabledSlots.contains(slot)
            return Blocker(slot: slot, enabled: enabled, servesAList: off.contains(slot) || (enabled && serves(slot, safari)))
        }
        safariConfirmed = onboarding.browser?.installed == true
        searchAnswered = onboarding.search.answered
    }

    private func serves(_ slot: ContentBlockerSlot, _ safari: SafariContentBlockers) -> Bool {
        // A turned-on slot serves a list when, alone, it gives Safari a filter file.
        let only = SafariContentBlockers(outputURL: safari.outputURL, enabledSlots: [slot])
        return ((try? only.contentFilters()) ?? []).isEmpty == false
    }

    /// The blockers still to turn on, by name ("Pepper 2").
    public var stillOff: [String] { blockers.filter(\.needsTurningOn).map(\.name) }

    /// The page after this one, or `nil` when the tour ends here. DuckDuckGo comes only after
    /// Safari confirmed the blockers, and only while its suggestion is unanswered.
    public var nextPage: Page? {
        switch page {
        case .welcome: return .safari
        case .safari: return safariConfirmed && !searchAnswered ? .duckDuckGo : nil
        case .duckDuckGo: return nil
        }
    }

    /// What the safari page's main button says: go on once Safari confirmed, else finish later.
    public var safariButton: String {
        guard safariConfirmed else { return "Later" }
        return nextPage == nil ? "Done" : "Continue"
    }

    /// Goes to the next page; returns `false` when the tour is over (the app then marks the
    /// onboarding done: `OnboardingScreen.finish()`).
    public mutating func advance() -> Bool {
        guard let next = nextPage else { return false }
        page = next
        return true
    }

    /// Goes back one page (from DuckDuckGo to Safari, from Safari to the welcome).
    public mutating func back() {
        page = Page(rawValue: max(0, page.rawValue - 1)) ?? .welcome
    }
}
