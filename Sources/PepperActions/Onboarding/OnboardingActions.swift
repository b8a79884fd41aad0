import Foundation
import Storage

/// How far the person got with the onboarding, as every face reads it.
public struct OnboardingProgress: Sendable, Hashable {
    /// Whether the onboarding was finished or skipped.
    public var done: Bool
    /// The answer to the DuckDuckGo suggestion, once given.
    public var searchSuggestion: PreferenceStore.SearchSuggestionAnswer?
    /// Whether Pepper keeps the desktop browser's (GNOME Web's) content filters pointing at its
    /// output after every rebuild.
    public var browserFiltersKept: Bool
}

extension PepperState {
    /// Where the onboarding stands (the setup screen, the start screen's reminders, the rebuild
    /// hook that keeps the browser's filters current).
    public func onboardingProgress() throws(ActionError) -> OnboardingProgress {
        do {
            let preferences = PreferenceStore(database: database)
            return OnboardingProgress(
                done: try preferences.value(.onboarding) != nil,
                searchSuggestion: try preferences.value(.searchSuggestion).flatMap(PreferenceStore.SearchSuggestionAnswer.init),
                browserFiltersKept: try preferences.value(.gnomeWebFilters) == "on")
        } catch {
            throw .storage("cannot read Pepper's settings: \(error)")
        }
    }

    /// Marks the onboarding done (finished or skipped; it stays reachable).
    public func finishOnboarding() throws(ActionError) {
        do {
            try PreferenceStore(database: database).set(.onboarding, "done")
        } catch {
            throw .storage("cannot save the choice: \(error)")
        }
    }

    /// Records the answer to the DuckDuckGo suggestion, for the onboarding and for Pepper's own
    /// browser alike (neither suggests it again).
    public func answerSearchSuggestion(_ answer: PreferenceStore.SearchSuggestionAnswer) throws(ActionError) {
        do {
            try PreferenceStore(database: database).set(.searchSuggestion, answer.rawValue)
            try BrowserStateStore(database: database).setSetting(BrowserStateStore.searchSuggestionAnsweredKey, "true")
        } catch {
            throw .storage("cannot save the choice: \(error)")
        }
    }

    /// Whether rebuilds keep the desktop browser's content filters pointing at the output (set
    /// once the person had Pepper install them there).
    public func keepBrowserFiltersCurrent(_ on: Bool) throws(ActionError) {
        do {
            try PreferenceStore(database: database).set(.gnomeWebFilters, on ? "on" : nil)
        } catch {
            throw .storage("cannot save the browser setting: \(error)")
        }
    }
}
