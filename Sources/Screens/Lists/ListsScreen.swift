import ContentBlocker
import Foundation
import ListSync
import PepperActions
import Storage
import UTCTime

/// The lists screen: the catalogue with enable / disable, add by address or upload, remove;
/// "Update now" with its per-list result; what each list gave the content blocker (rules in,
/// out, skipped by reason); the categories of Tracker Radar and Disconnect lists, chosen per
/// list; and when the next update is due.
///
/// The console's Lists page and the app's lists screen both bind it: adding by address
/// (``adding(address:name:)``), by a file uploaded or picked (``uploading(_:fileName:name:)``,
/// ``ListFileImport``), choosing categories (``chooseCategories(_:for:)``) go through the same
/// actions, so both show the same outcome and the same report.
public struct ListsScreen: Sendable {
    /// One list as the screen shows it.
    public struct Row: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// Where it comes from (an address or a file; a Picket key never appears).
        public var location: String
        /// Its syntax.
        public var format: String
        /// Whether it is in use.
        public var enabled: Bool
        /// Whether it is built in (disable only).
        public var builtIn: Bool
        /// When its copy was last downloaded.
        public var lastSuccess: Date?
        /// Why its last update failed (the last good copy is in use).
        public var lastError: String?
        /// When it is due again.
        public var expiresAt: Date?
        /// Rules in its copy at the last compile.
        public var rulesIn: Int?
        /// WebKit rules it gave at the last compile.
        public var rulesOut: Int?
        /// Lines skipped at the last compile, by reason, most first.
        public var skipped: [Skipped]
        /// Its categories and which are chosen (Tracker Radar and Disconnect lists); `nil` for a
        /// list without categories.
        public var categories: ListCategories?

        /// Lines skipped at the last compile, all reasons together.
        public var skippedTotal: Int { skipped.reduce(0) { $0 + $1.count } }
    }

    /// What adding a list did: the sentence, and the list as the catalogue now shows it — its
    /// parse report (rules in, WebKit rules out, lines skipped by reason) and its categories.
    public struct Added: Sendable, Hashable {
        /// What happened, or why nothing was added.
        public var notice: Notice
        /// The added list, compiled; `nil` when nothing was added.
        public var list: Row?
    }

    /// Lines skipped for one reason.
    public struct Skipped: Sendable, Hashable {
        /// The reason's stable name (`unsupported-option:csp`).
        public var reason: String
        /// How many lines.
        public var count: Int
    }

    /// How updates are scheduled.
    public struct Schedule: Sendable, Hashable {
        /// A running `pepper update --every`, when one runs.
        public var running: UpdateScheduleStatus?
        /// The systemd timer of `docs/lists.md`, when its unit file is installed.
        public var timer: String?
        /// When the enabled lists are next due (`nil`: a list was never downloaded, so now).
        public var nextDue: Date?
    }

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The catalogue, in the order added.
        public var lists: [Row]
        /// How many of the person's own rules there are.
        public var myRules: Int
        /// What "My rules" gave at the last compile.
        public var myRulesCompiled: Row?
        /// The update schedule.
        public var schedule: Schedule
    }

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads everything the screen shows.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            let sources: [ListSource]
            let rules: Int
            let nextDue: Date?
            do throws(ActionError) {
                sources = try state.lists()
                rules = try state.userRules().count
                nextDue = try state.nextUpdateDue()
            } catch {
                throw ScreenError(error)
            }
            let compiled = Dictionary((state.manifest()?.sources ?? []).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
            func skipped(_ name: String) -> [Skipped] {
                (compiled[name]?.skipped ?? [:]).sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }.map {
                    Skipped(reason: $0.key, count: $0.value)
                }
            }
            let rows = sources.map { source in
                Row(
                    name: source.name, location: source.location, format: source.format, enabled: source.enabled, builtIn: source.builtIn,
                    lastSuccess: source.lastSuccess, lastError: source.lastError, expiresAt: source.expiresAt,
                    rulesIn: compiled[source.name]?.rulesIn ?? source.rulesIn, rulesOut: compiled[source.name]?.rulesOut ?? source.rulesOut,
                    skipped: skipped(source.name),
                    // A copy that cannot be read as its format offers nothing to choose; its
                    // update reports why.
                    categories: try? state.listCategories(of: source))
            }
            let mine = compiled[UserRuleStore.listName].map { source in
                Row(
                    name: source.name, location: "", format: "abp", enabled: true, builtIn: false, lastSuccess: nil, lastError: nil,
                    expiresAt: nil, rulesIn: source.rulesIn, rulesOut: source.rulesOut, skipped: skipped(source.name), categories: nil)
            }
            return State(
                lists: rows, myRules: rules, myRulesCompiled: mine,
                schedule: Schedule(running: UpdateScheduleStatus.current(home: state.home), timer: Self.installedTimer(), nextDue: nextDue))
        }
    }

    /// Where the `pepper-update.timer` of `docs/lists.md` is installed (for the user, or for
    /// the system), if anywhere.
    static func installedTimer(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        var folders: [String] = []
        if let config = environment["XDG_CONFIG_HOME"], !config.isEmpty {
            folders.append(config + "/systemd/user")
        } else if let home = environment["HOME"] {
            folders.append(home + "/.config/systemd/user")
        }
        folders += ["/etc/systemd/system", "/etc/systemd/user"]
        return folders.map { $0 + "/pepper-update.timer" }.first { FileManager.default.fileExists(atPath: $0) }
    }

    // MARK: Actions

    /// Uses a list again (fetching it when it has no copy), then compiles.
    public func enable(_ name: String) async -> Notice {
        do {
            let change = try await state.enableList(name)
            if let problem = change.fetchProblem {
                return Notice(.warning, "Enabled \(name), but it could not be downloaded (\(problem)); the next update retries.")
            }
            return .success("Enabled \(name)." + Self.compiled(change.outcome))
        } catch {
            return .failure(error)
        }
    }

    /// Stops using a list, then compiles.
    public func disable(_ name: String) async -> Notice {
        do {
            let change = try await state.disableList(name)
            return .success("Disabled \(name)." + Self.compiled(change.outcome))
        } catch {
            return .failure(error)
        }
    }

    /// Subscribes to a list by address (fetched and checked first), then compiles.
    public func add(address: String, name: String? = nil) async -> Notice {
        await adding(address: address, name: name).notice
    }

    /// ``add(address:name:)``, with the added list's report.
    public func adding(address: String, name: String? = nil) async -> Added {
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard ListSource.isWeb(trimmed) else {
            return Added(notice: .error("Give the list's address, starting with https://.", field: "url"), list: nil)
        }
        let chosen = name?.trimmingCharacters(in: .whitespaces)
        do {
            let change = try await state.addList(ListRequest(source: trimmed, name: chosen?.isEmpty == false ? chosen : nil))
            return await added(change)
        } catch {
            return Added(notice: .failure(error, field: Self.field(for: error, default: "url")), list: nil)
        }
    }

    /// Subscribes to an uploaded list file, then compiles.
    public func upload(_ data: Data, fileName: String, name: String? = nil) async -> Notice {
        await uploading(data, fileName: fileName, name: name).notice
    }

    /// ``upload(_:fileName:name:)``, with the added list's report.
    public func uploading(_ data: Data, fileName: String, name: String? = nil) async -> Added {
        let chosen = name?.trimmingCharacters(in: .whitespaces)
        do {
            let change = try await state.addUploadedList(data, fileName: fileName, name: chosen?.isEmpty == false ? chosen : nil)
            return await added(change)
        } catch {
            return Added(notice: .failure(error, field: Self.field(for: error, default: "file")), list: nil)
        }
    }

    /// The outcome of an add that worked: its sentence and the list's row as now compiled.
    private func added(_ change: ListChange) async -> Added {
        let notice = Notice.success("Added \(change.name) (\(Text.plural(change.rules ?? 0, "rule")))." + Self.compiled(change.outcome))
        return Added(notice: notice, list: (try? await load())?.lists.first { $0.name == change.name })
    }

    /// Chooses which categories of a Tracker Radar or Disconnect list are blocked (names as the
    /// list offers them), then compiles; the content blocker and the DNS filter both follow.
    public func chooseCategories(_ names: [String], for list: String) async -> Notice {
        do {
            let change = try await state.chooseCategories(names, for: list)
            let stored = try await blocking { () throws(ActionError) in try state.listCategories(list) }
            return .success(Self.describe(stored, list: list) + Self.compiled(change.outcome))
        } catch {
            return .failure(error, field: "categories")
        }
    }

    /// "duckduckgo-tds blocks 2 of its 23 categories: Advertising, Analytics."
    static func describe(_ categories: ListCategories?, list: String) -> String {
        guard let categories, let offered = categories.offered, let chosen = categories.chosen else { return "Chose \(list)'s categories." }
        if categories.isDefault { return "\(list) blocks its default categories (\(chosen.count) of \(offered.count))." }
        let names = chosen.count <= 5 ? ": " + chosen.joined(separator: ", ") : ""
        return "\(list) blocks \(chosen.count) of its \(offered.count) categories\(names)."
    }

    /// Goes back to the default categories of a list (every Tracker Radar category; Disconnect's
    /// tracking categories), then compiles.
    public func useDefaultCategories(for list: String) async -> Notice {
        do {
            let change = try await state.chooseCategories(nil, for: list)
            let stored = try await blocking { () throws(ActionError) in try state.listCategories(list) }
            return .success(Self.describe(stored, list: list) + Self.compiled(change.outcome))
        } catch {
            return .failure(error, field: "categories")
        }
    }

    /// Unsubscribes from a list, then compiles.
    public func remove(_ name: String) async -> Notice {
        do {
            let change = try await state.removeList(name)
            return .success("Removed \(name)." + Self.compiled(change.outcome))
        } catch {
            return .failure(error)
        }
    }

    /// Updates every enabled list now; `events` follows the progress.
    public func updateNow(events: @escaping @Sendable (UpdateEvent) -> Void = { _ in }) async -> (Notice, UpdateSummary?) {
        do {
            let summary = try await state.update(UpdateOptions(force: true, waitForLock: false), events: events)
            return (Self.notice(for: summary), summary)
        } catch {
            return (.failure(error), nil)
        }
    }

    /// The sentence for an update's outcome.
    public static func notice(for summary: UpdateSummary) -> Notice {
        let failed = summary.reports.filter { if case .failed = $0.status { return true } else { return false } }
        let updated = summary.reports.filter { if case .updated = $0.status { return true } else { return false } }
        var text =
            "Updated \(Text.plural(updated.count, "list")); \(Text.plural(summary.reports.count - updated.count - failed.count, "list")) had nothing new."
        if let outcome = summary.outcome { text += " \(Text.plural(outcome.totalRules, "rule")) in force." }
        guard failed.isEmpty else {
            let names = failed.map(\.name).joined(separator: ", ")
            return Notice(
                .warning, text + " The update of \(names) failed; \(failed.count == 1 ? "its" : "their") last good copy stays in use.")
        }
        return .success(text)
    }

    /// What a report says, in a few words: "new copy (1.2 MB)", "not modified", "failed: …".
    public static func describe(_ status: ListUpdater.Status) -> String {
        switch status {
        case .updated(let bytes, let viaPatch):
            return (viaPatch ? "patched" : "new copy") + " (\(Text.count(bytes)) bytes)"
        case .notModified: return "not modified"
        case .fresh(let until): return "up to date until \(UTCDateTime.internetText(until))"
        case .failed(let reason): return "failed: \(reason); the last good copy is kept"
        }
    }

    static func compiled(_ outcome: RebuildOutcome?) -> String {
        guard let outcome else { return "" }
        return " \(Text.plural(outcome.totalRules, "rule")) in force" + (outcome.changed ? "." : " (unchanged).")
    }

    static func field(for error: ActionError, default field: String) -> String {
        switch error {
        case .invalidListName, .listExists: return "name"
        default: return field
        }
    }
}
