import ContentBlocker
import Foundation
import ListSync
import PepperActions
import Storage
import UTCTime

/// The lists screen: the catalogue with enable / disable, add by address or upload, remove;
/// "Update now" with its per-list result; what each list gave the content blocker (rules in,
/// out, skipped by reason); and when the next update is due.
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
                    skipped: skipped(source.name))
            }
            let mine = compiled[UserRuleStore.listName].map { source in
                Row(
                    name: source.name, location: "", format: "abp", enabled: true, builtIn: false, lastSuccess: nil, lastError: nil,
                    expiresAt: nil, rulesIn: source.rulesIn, rulesOut: source.rulesOut, skipped: skipped(source.name))
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
        let trimmed = address.trimmingCharacters(in: .whitespacesAndNewlines)
        guard ListSource.isWeb(trimmed) else {
            return .error("Give the list's address, starting with https://.", field: "url")
        }
        let chosen = name?.trimmingCharacters(in: .whitespaces)
        do {
            let change = try await state.addList(ListRequest(source: trimmed, name: chosen?.isEmpty == false ? chosen : nil))
            return .success("Added \(change.name) (\(Text.plural(change.rules ?? 0, "rule")))." + Self.compiled(change.outcome))
        } catch {
            return .failure(error, field: Self.field(for: error, default: "url"))
        }
    }

    /// Subscribes to an uploaded list file, then compiles.
    public func upload(_ data: Data, fileName: String, name: String? = nil) async -> Notice {
        let chosen = name?.trimmingCharacters(in: .whitespaces)
        do {
            let change = try await state.addUploadedList(data, fileName: fileName, name: chosen?.isEmpty == false ? chosen : nil)
            return .success("Added \(change.name) (\(Text.plural(change.rules ?? 0, "rule")))." + Self.compiled(change.outcome))
        } catch {
            return .failure(error, field: Self.field(for: error, default: "file"))
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
