import Browsing
import ContentBlocker
import Foundation
import PepperActions
import Storage

/// The first-run screen (reachable later): what Pepper does, which lists to use, and where to
/// use them — GNOME Web, Pepper's own browser, the machine's DNS — plus the one-time
/// suggestion of DuckDuckGo as search engine.
public struct OnboardingScreen: Sendable {
    /// A list on offer.
    public struct ListChoice: Sendable, Hashable {
        /// The list's name.
        public var name: String
        /// What it blocks, in a few words.
        public var summary: String
        /// Whether it is in use.
        public var enabled: Bool
        /// Whether it has been downloaded.
        public var downloaded: Bool
    }

    /// GNOME Web (or another browser loading filter files by address) and Pepper's lists.
    public struct BrowserSetup: Sendable, Hashable {
        /// The browser's name.
        public var name: String
        /// Whether it is installed.
        public var availability: BrowserAvailability
        /// Whether it loads exactly Pepper's current output files, with its ad blocking on.
        public var installed: Bool
        /// The filter files it loads now.
        public var filters: [String]
        /// The files it should load.
        public var expected: [String]
        /// Why the settings could not be read, when they could not.
        public var problem: String?
    }

    /// Pepper's own browser (`pepper browse`), which always loads `$PEPPER_HOME/out`.
    public struct PepperBrowserSetup: Sendable, Hashable {
        /// The identifier of the output it compiled last, when it ran since.
        public var compiledIdentifier: String?
        /// The identifier of the output now.
        public var currentIdentifier: String?
        /// Its search engine.
        public var searchEngine: SearchEngine
    }

    /// Pointing the machine's resolver at `pepper dns serve`.
    public struct DNSSetup: Sendable, Hashable {
        /// The running DNS filter, when one runs.
        public var server: DNSServerStatus?
        /// Where the systemd-resolved drop-in goes.
        public var dropInPath: String
        /// The drop-in's text, for the server's address (or the default one).
        public var dropIn: String
    }

    /// The DuckDuckGo suggestion.
    public struct SearchSetup: Sendable, Hashable {
        /// Whether the person accepted or dismissed it.
        public var answered: Bool
        /// GNOME Web's default search engine, when it can be read.
        public var browserEngine: String?
        /// Pepper's browser's search engine.
        public var pepperBrowserEngine: SearchEngine
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The lists on offer.
        public var lists: [ListChoice]
        /// GNOME Web, when Pepper can set it up here.
        public var browser: BrowserSetup?
        /// Pepper's own browser.
        public var pepperBrowser: PepperBrowserSetup
        /// The DNS filter.
        public var dns: DNSSetup
        /// The search suggestion.
        public var search: SearchSetup
        /// Whether the onboarding was finished or skipped.
        public var done: Bool
    }

    /// The DNS filter's default address (`pepper dns serve`).
    public static let defaultDNSAddress = "127.0.0.1:5335"

    /// The state.
    public let state: PepperState
    /// The browser whose content filters the screen sets up: GNOME Web on Linux (Pepper sets its
    /// settings), Safari in the app (the person turns Pepper's content blockers on; Pepper
    /// confirms what Safari reports). `nil` where there is none.
    public let browser: (any BrowserContentFilters)?

    /// The browser, when Pepper may change its settings itself.
    var settableBrowser: (any ContentFilterSettings)? { browser as? any ContentFilterSettings }

    /// The screen over `state`.
    public init(state: PepperState, browser: (any BrowserContentFilters)? = nil) {
        self.state = state
        self.browser = browser
    }

    static let summaries: [String: String] = [
        "easylist": "Ads on web pages (EasyList).",
        "easyprivacy": "Trackers and analytics (EasyPrivacy).",
        "duckduckgo-tds": "Third-party trackers, from DuckDuckGo's Tracker Radar.",
        "disconnect": "Tracking services, from Disconnect's list.",
    ]

    /// Reads everything the screen shows.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            let pepperBrowser = BrowserStateStore(database: state.database)
            let lists: [ListSource]
            let progress: OnboardingProgress
            let engine: SearchEngine
            do {
                lists = try state.lists()
                progress = try state.onboardingProgress()
                engine =
                    try pepperBrowser.setting(BrowserSession.SettingKey.searchEngine).flatMap(SearchEngine.init(rawValue:)) ?? .duckDuckGo
            } catch let error as ActionError {
                throw ScreenError(error)
            } catch {
                throw ScreenError(.storage("cannot read Pepper's state: \(error)"))
            }
            let choices = lists.filter(\.builtIn).map { source in
                ListChoice(
                    name: source.name, summary: Self.summaries[source.name] ?? source.location, enabled: source.enabled,
                    downloaded: source.lastSuccess != nil)
            }
            let manifest = state.manifest()
            let identifierFile = state.home.url.appendingPathComponent("browser/content-filters/pepper-identifier")
            let server = DNSServerStatus.current(home: state.home)
            return State(
                lists: choices, browser: browserSetup(manifest),
                pepperBrowser: PepperBrowserSetup(
                    compiledIdentifier: try? String(contentsOf: identifierFile, encoding: .utf8), currentIdentifier: manifest?.identifier,
                    searchEngine: engine),
                dns: DNSSetup(
                    server: server, dropInPath: ResolverDropIn.path,
                    dropIn: ResolverDropIn.text(for: server?.listen ?? Self.defaultDNSAddress)),
                search: SearchSetup(
                    answered: progress.searchSuggestion != nil, browserEngine: try? settableBrowser?.defaultSearchEngine(),
                    pepperBrowserEngine: engine),
                done: progress.done)
        }
    }

    private func browserSetup(_ manifest: Manifest?) -> BrowserSetup? {
        guard let browser else { return nil }
        let expected = manifest.map(state.outputFileAddresses) ?? []
        var setup = BrowserSetup(
            name: browser.browserName, availability: browser.availability(), installed: false, filters: [], expected: expected)
        guard case .available = setup.availability else { return setup }
        do {
            setup.filters = try browser.contentFilters()
            let filtering = try browser.filteringEnabled()
            setup.installed = !expected.isEmpty && setup.filters == expected && filtering
        } catch {
            setup.problem = Text.sentence("cannot read \(browser.browserName)'s settings: \(error)")
        }
        return setup
    }

    // MARK: Actions

    /// Uses exactly the built-in lists in `names` (others stay as they are), fetching new ones,
    /// then compiles once.
    /// Why `names` cannot be chosen (a name that is no built-in list), or `nil`.
    public func checkListChoice(_ names: Set<String>) async -> Notice? {
        await blocking { () -> Notice? in
            let builtIn: [ListSource]
            do throws(ActionError) {
                builtIn = try state.lists().filter(\.builtIn)
            } catch {
                return .failure(error)
            }
            let unknown = names.subtracting(builtIn.map(\.name))
            if let name = unknown.sorted().first { return .error("There is no built-in list named '\(name)'.", field: "lists") }
            return nil
        }
    }

    /// Uses exactly the built-in lists `names`, then rebuilds. With `download`, a list without
    /// a copy is fetched first; without, it waits for the next update (the console runs one
    /// right after, with its progress shown).
    public func chooseLists(_ names: Set<String>, download: Bool = true) async -> Notice {
        if let problem = await checkListChoice(names) { return problem }
        let builtIn: [ListSource]
        do {
            builtIn = try state.lists().filter(\.builtIn)
        } catch {
            return .failure(error)
        }
        var problems: [String] = []
        do {
            for source in builtIn where names.contains(source.name) != source.enabled {
                if names.contains(source.name) {
                    let change = try await state.enableList(source.name, fetch: download, rebuild: false)
                    if let problem = change.fetchProblem { problems.append("\(source.name) could not be downloaded (\(problem))") }
                } else {
                    _ = try await state.disableList(source.name, rebuild: false)
                }
            }
            let outcome = try await state.rebuild()
            let text =
                "Using \(names.isEmpty ? "no built-in list" : names.sorted().joined(separator: ", ")): \(Text.plural(outcome.totalRules, "rule"))."
            if problems.isEmpty { return .success(text) }
            return Notice(.warning, text + " " + Text.sentence(problems.joined(separator: "; ") + "; the next update retries"))
        } catch {
            return .failure(error)
        }
    }

    /// Makes the browser (GNOME Web) load Pepper's output files (and keeps them right after later
    /// rebuilds), then reads the settings back to confirm. A browser whose settings only the
    /// person changes (Safari) is not changed: the screen shows its steps instead.
    public func installInBrowser() async -> Notice {
        guard let browser else { return .error("Pepper cannot change a browser's settings on this system.") }
        guard let settings = settableBrowser else {
            return .error("Only you can turn on \(browser.browserName)'s content blockers: \(browser.enableSteps.joined(separator: " "))")
        }
        if case .notInstalled(let reason) = browser.availability() {
            return .error("\(browser.browserName) is not installed (\(reason)). Install it, then try again.")
        }
        var manifest = state.manifest()
        if manifest == nil {
            do {
                manifest = try await state.rebuild().manifest
            } catch {
                return .failure(error)
            }
        }
        guard let manifest else { return .error("There is no compiled output to load.") }
        let expected = state.outputFileAddresses(manifest)
        do {
            try settings.setContentFilters(expected)
            try state.keepBrowserFiltersCurrent(true)
            let readBack = try browser.contentFilters()
            guard readBack == expected, try browser.filteringEnabled() else {
                return .error("\(browser.browserName) did not keep the settings: it loads \(Text.plural(readBack.count, "filter file")).")
            }
        } catch {
            return .error(Text.sentence("cannot change \(browser.browserName)'s settings: \(error)"))
        }
        return .success(
            "\(browser.browserName) now loads Pepper's \(Text.plural(expected.count, "filter file")); it applies them to pages opened from now on."
        )
    }

    /// Asks the DNS filter for a test name, directly and then through the machine's resolver,
    /// and says whether each reached it. `startCommand` is how this face starts the filter
    /// (`pepper dns serve` on Linux), named when it is not running: the screen names none itself.
    public func checkDNS(address: String? = nil, timeout: TimeInterval = 2, startCommand: String? = nil) async -> Notice {
        let server = DNSServerStatus.current(home: state.home)
        let how = startCommand.map { " (\($0))" } ?? ""
        guard let target = address ?? server?.listen else {
            return .error("The DNS filter is not running. Start it\(how), then check again.")
        }
        let probe = DNSProbe(state: state)
        let direct = await probe.askDirectly(target, timeout: timeout)
        guard case .answered(let code) = direct else {
            return .error("No answer from \(target): \(direct). Is the DNS filter\(how) running there?", field: "address")
        }
        let system = await probe.askThroughSystemResolver(logWait: timeout)
        switch system {
        case .reachedPepper:
            return .success("Pepper's DNS filter on \(target) answers (\(code)), and this machine's resolver uses it.")
        case .notLogged:
            return Notice(
                .warning,
                "Pepper's DNS filter on \(target) answers (\(code)), but this machine's resolver does not ask it yet: install the drop-in below and restart systemd-resolved."
            )
        case .noQueryLog:
            return Notice(
                .warning,
                "Pepper's DNS filter on \(target) answers (\(code)). Whether this machine uses it cannot be told: its query log is off.")
        }
    }

    /// Makes DuckDuckGo the search engine of GNOME Web (when installed) and of Pepper's browser,
    /// and reads both back.
    public func useDuckDuckGo() async -> Notice {
        await blocking { () -> Notice in
            var done: [String] = []
            do {
                let pepperBrowser = BrowserStateStore(database: state.database)
                try pepperBrowser.setSetting(BrowserSession.SettingKey.searchEngine, SearchEngine.duckDuckGo.rawValue)
                guard try pepperBrowser.setting(BrowserSession.SettingKey.searchEngine) == SearchEngine.duckDuckGo.rawValue else {
                    return .error("Pepper's browser did not keep DuckDuckGo as its search engine.")
                }
                done.append("Pepper's browser")
                if let browser = settableBrowser, case .available = browser.availability() {
                    try browser.useDuckDuckGo()
                    guard try browser.defaultSearchEngine() == "DuckDuckGo" else {
                        return .error("\(browser.browserName) did not keep DuckDuckGo as its search engine.")
                    }
                    done.append(browser.browserName)
                }
                try state.answerSearchSuggestion(.accepted)
            } catch {
                return .error(Text.sentence("cannot change the search engine: \(error)"))
            }
            let text = "DuckDuckGo is the search engine of \(done.joined(separator: " and "))."
            if let browser, settableBrowser == nil, !browser.searchEngineSteps.isEmpty {
                return .success(text + " Only you can change \(browser.browserName)'s: " + browser.searchEngineSteps.joined(separator: " "))
            }
            return .success(text)
        }
    }

    /// Dismisses the DuckDuckGo suggestion for good.
    public func dismissSearchSuggestion() async -> Notice {
        await blocking { () -> Notice in
            do throws(ActionError) {
                try state.answerSearchSuggestion(.dismissed)
            } catch {
                return .failure(error)
            }
            return Notice(.info, "The suggestion will not be shown again.")
        }
    }

    /// Marks the onboarding done (it stays reachable).
    public func finish() async -> Notice {
        await blocking { () -> Notice in
            do throws(ActionError) {
                try state.finishOnboarding()
            } catch {
                return .failure(error)
            }
            return .success("Pepper is set up. This page stays under Setup.")
        }
    }
}

/// The systemd-resolved drop-in that sends the machine's DNS to `pepper dns serve`.
public enum ResolverDropIn {
    /// Where it goes.
    public static let path = "/etc/systemd/resolved.conf.d/pepper.conf"

    /// Its text for a server at `address` (`IP:PORT`).
    public static func text(for address: String) -> String {
        // systemd-resolved takes IP:PORT (and [IPv6]:PORT) since version 246.
        """
        # Send this machine's DNS queries to Pepper (pepper dns serve --listen \(address)).
        # Install: sudo mkdir -p /etc/systemd/resolved.conf.d && sudo cp pepper.conf /etc/systemd/resolved.conf.d/
        #          sudo systemctl restart systemd-resolved
        [Resolve]
        DNS=\(address)
        Domains=~.
        """
    }
}
