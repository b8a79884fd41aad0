import ContentBlocker
import FilterLists
import Foundation
import PepperActions
import Picket
import Storage
import UTCTime

/// The start screen (the apps' info screen): is protection on, what did it do today and this
/// week, and what needs attention, each with the action that fixes it.
public struct StartScreen: Sendable {
    /// What protects the person now.
    public struct Protection: Sendable, Hashable {
        /// The lists compiled into the content blocker now (from its manifest).
        public var listsInForce: [String]
        /// WebKit rules in force.
        public var rules: Int
        /// When the content blocker was compiled; `nil` when it never was.
        public var compiledAt: Date?
        /// Whether only the embedded starter list is in force (no list downloaded yet).
        public var usingStarterList: Bool
        /// When a list was last updated, and whether that update went well.
        public var lastUpdate: Date?
        /// The running DNS filter, when one runs.
        public var dnsServer: DNSServerStatus?
    }

    /// One line of the counts table.
    public typealias Count = ActivityCount

    /// Something that needs the person, and what fixes it.
    public struct Attention: Sendable, Hashable {
        /// The problem, as a sentence.
        public var text: String
        /// The action that fixes it.
        public var fix: Fix
    }

    /// An action that fixes an ``Attention``.
    public enum Fix: String, Sendable, Hashable {
        /// Update the lists now.
        case updateLists = "update-lists"
        /// Compile the content blocker again.
        case rebuild
        /// Finish the onboarding.
        case onboarding
        /// Point GNOME Web at the current output again.
        case browser = "gnome-web"
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// What protects the person.
        public var protection: Protection
        /// What Pepper did, today and this week.
        public var counts: [Count]
        /// What needs attention.
        public var attention: [Attention]
        /// Whether the onboarding was finished or skipped.
        public var onboardingDone: Bool
    }

    /// The state.
    public let state: PepperState
    /// GNOME Web's settings, when Pepper can look at them (Linux).
    public let browser: (any BrowserContentFilters)?

    /// The screen over `state`.
    public init(state: PepperState, browser: (any BrowserContentFilters)? = nil) {
        self.state = state
        self.browser = browser
    }

    /// Reads everything the screen shows.
    public func load(now: Date = Date()) async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            let manifest = state.manifest()
            let lists: [ListSource]
            let onboarding: OnboardingProgress
            do throws(ActionError) {
                lists = try state.lists()
                onboarding = try state.onboardingProgress()
            } catch {
                throw ScreenError(error)
            }
            let enabled = lists.filter(\.enabled)
            let protection = Protection(
                listsInForce: manifest?.sources.map(\.name) ?? [], rules: manifest?.files.reduce(0) { $0 + $1.rules } ?? 0,
                compiledAt: manifest.flatMap { ISO8601.parse($0.generatedAt) },
                usingStarterList: manifest?.sources.contains { $0.url == StarterList.url } ?? false,
                lastUpdate: enabled.compactMap(\.lastAttempt).max(), dnsServer: DNSServerStatus.current(home: state.home))
            var attention: [Attention] = []
            if manifest == nil {
                attention.append(Attention(text: "The content blocker has not been compiled yet.", fix: .rebuild))
            } else if !state.outputIsCurrent() {
                attention.append(
                    Attention(text: "The content blocker is older than the allowlist or your rules: compile it again.", fix: .rebuild))
            }
            for source in enabled {
                if let error = source.lastError {
                    attention.append(
                        Attention(
                            text: "\(source.name): the last update failed (\(error)); the last good copy is in use.", fix: .updateLists))
                } else if source.lastSuccess == nil {
                    attention.append(Attention(text: "\(source.name) has not been downloaded yet.", fix: .updateLists))
                }
            }
            if !onboarding.done {
                attention.append(Attention(text: "Pepper is not set up yet: choose lists and where to use them.", fix: .onboarding))
            }
            if let browser, let manifest, onboarding.browserFiltersKept,
                case .available = browser.availability()
            {
                let expected = state.outputFileAddresses(manifest)
                if (try? browser.contentFilters()) != expected {
                    attention.append(Attention(text: "\(browser.browserName) does not load Pepper's current lists.", fix: .browser))
                }
            }
            return State(
                protection: protection, counts: try counts(now: now), attention: attention, onboardingDone: onboarding.done)
        }
    }

    private func counts(now: Date) throws(ScreenError) -> [Count] {
        let today = DNSQueryLogStore.day(of: now)
        let weekStart = DNSQueryLogStore.day(of: now.addingTimeInterval(-6 * 86_400))
        do {
            let dns = try DNSQueryLogStore(database: state.database).counts().filter { $0.day >= weekStart }
            let dnsToday = dns.filter { $0.day == today }
            let blockedOutcomes: (DNSQueryLogStore.Count) -> Bool = { $0.outcome.isBlocked }
            let queries = (dnsToday.reduce(0) { $0 + $1.count }, dns.reduce(0) { $0 + $1.count })
            let blocked = (
                dnsToday.filter(blockedOutcomes).reduce(0) { $0 + $1.count }, dns.filter(blockedOutcomes).reduce(0) { $0 + $1.count }
            )
            let share = queries.1 == 0 ? nil : String(format: "%.1f %% blocked this week", Double(blocked.1) * 100 / Double(queries.1))
            let database = state.database
            return [
                try .decisions("Requests blocked in the browser", .web, [.block], database: database, now: now),
                Count(label: "DNS queries", today: queries.0, week: queries.1, detail: share),
                Count(label: "DNS queries blocked", today: blocked.0, week: blocked.1),
                try .decisions("Calls blocked", .call, [.block], database: database, now: now),
                try .decisions("Calls identified", .call, [.identify], database: database, now: now),
                try .decisions("Messages filtered", .message, DecisionStore.Action.filteredMessages, database: database, now: now),
            ]
        } catch {
            throw ScreenError("Cannot read the counts: \(error).")
        }
    }

    /// Compiles the content blocker again (the ``Fix/rebuild`` action).
    public func rebuildNow() async -> Notice {
        do {
            let outcome = try await state.rebuild()
            return .success(
                "Compiled \(Text.plural(outcome.totalRules, "rule")) into \(Text.plural(outcome.manifest.files.count, "file")).")
        } catch {
            return .failure(error)
        }
    }
}
