import FilterLists
import Foundation
import ListSync
import Storage

/// The categories of one list source, decided here once for every face (the app, the console,
/// the CLI): which categories the list offers, which are chosen, whether a name a person gave
/// names one of them, and what applies when nobody chose.
///
/// Two formats have categories: DuckDuckGo's Tracker Radar (each tracker's `categories`, plus
/// `TrackerRadarConverter.noCategory` for the trackers without one) and
/// Disconnect (its sections). What a list offers is read from its downloaded copy, so a list
/// never downloaded offers nothing yet. The choice is stored with the list source
/// (`ListSource.categories`); the compiled content blocker and the DNS filter both read it
/// through the list's input (`ListInput.categories`), so a tracker outside the chosen
/// categories is blocked by neither.
///
/// The default, when no choice is stored: every category of a Tracker Radar list (it blocks all
/// its trackers, as before categories could be chosen), and Disconnect's tracking categories
/// (`DisconnectConverter.defaultCategories`: not `Content`, which would block
/// embedded videos and maps). A choice equal to the default is stored as no choice, so that a
/// category the list adds later follows the default.
public struct ListCategories: Sendable, Hashable {
    /// One category of the list, as a face shows it.
    public struct Category: Sendable, Hashable {
        /// Its name, as the list spells it.
        public var name: String
        /// How many tracker domains of the list it holds.
        public var domains: Int
        /// Whether its trackers are blocked.
        public var chosen: Bool

        /// A category with the given fields.
        public init(name: String, domains: Int, chosen: Bool) {
            self.name = name
            self.domains = domains
            self.chosen = chosen
        }
    }

    /// The list's name.
    public var list: String
    /// Its format: `FilterListFormat.tds` or `FilterListFormat.disconnect`.
    public var format: FilterListFormat
    /// The categories its copy offers, in the list's order; `nil` while it has no copy (it was
    /// never downloaded), when there is nothing to choose from yet.
    public var offered: [Category]?
    /// The stored choice; `nil` when the default applies.
    public var choice: [String]?

    /// A list's categories with the given fields.
    public init(list: String, format: FilterListFormat, offered: [Category]?, choice: [String]?) {
        self.list = list
        self.format = format
        self.offered = offered
        self.choice = choice
    }

    /// Whether no choice is stored (the default applies).
    public var isDefault: Bool { choice == nil }

    /// The names of the chosen categories, when the list has a copy.
    public var chosen: [String]? { offered?.filter(\.chosen).map(\.name) }

    /// Longest category name accepted (the real ones have at most 30 characters).
    public static let maximumNameLength = 100

    /// The chosen names with `name` switched on or off (a face's checkbox or toggle), to give
    /// to ``PepperState/chooseCategories(_:for:rebuild:)``; empty before the list has a copy.
    public func choice(toggling name: String) -> [String] {
        (offered ?? []).filter { $0.name == name ? !$0.chosen : $0.chosen }.map(\.name)
    }

    // MARK: The decision

    /// Whether a list in `format` may offer categories before its copy is read: a JSON format,
    /// or `auto` (its copy decides). What a list actually offers is ``format(of:copyStart:)``'s.
    public static func mayOffer(format: String) -> Bool {
        format == "auto" || FilterListFormat(rawValue: format)?.isJSON == true
    }

    /// The format whose categories `source` offers: its own when it says `tds` or `disconnect`;
    /// for `auto`, what its copy is (`copyStart`: the copy's first 64 KB, when it has one);
    /// `nil` for a list without categories.
    public static func format(of source: ListSource, copyStart: Data?) -> FilterListFormat? {
        switch FilterListFormat(rawValue: source.format) {
        case .tds?: return .tds
        case .disconnect?: return .disconnect
        case nil where source.format == "auto":
            // As the parser decides: a document whose first character is `{`, by its keys.
            guard let copyStart, let first = copyStart.first(where: { ![0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF].contains($0) }),
                first == UInt8(ascii: "{")
            else { return nil }
            return copyStart.withUnsafeBytes { FilterListFormat.detectJSON(in: $0.bindMemory(to: UInt8.self)) }
        default: return nil
        }
    }

    /// The categories chosen when nobody chose: every offered one for Tracker Radar,
    /// Disconnect's tracking categories for Disconnect (compared without case).
    public static func defaultChoice(format: FilterListFormat, offered: [TrackerCategory]) -> [String] {
        guard format == .disconnect else { return offered.map(\.name) }
        let tracking = Set(DisconnectConverter.defaultCategories.map { $0.lowercased() })
        return offered.map(\.name).filter { tracking.contains($0.lowercased()) }
    }

    /// What the list shows: every offered category, chosen by `choice` or by the default.
    public static func make(
        list: String, format: FilterListFormat, offered: [TrackerCategory]?, choice: [String]?
    ) -> ListCategories {
        guard let offered else { return ListCategories(list: list, format: format, offered: nil, choice: choice) }
        let chosen = Set((choice ?? defaultChoice(format: format, offered: offered)).map { $0.lowercased() })
        return ListCategories(
            list: list, format: format,
            offered: offered.map { Category(name: $0.name, domains: $0.domains, chosen: chosen.contains($0.name.lowercased())) },
            choice: choice)
    }

    /// Checks the names a person gave against what the list offers and returns the choice to
    /// store: the offered spelling of each (names are compared without case and trimmed),
    /// without repeats, in the list's order; `nil` when it is the default.
    ///
    /// - Throws: ``ActionError/invalidCategories(list:problem:)``: a name too long or not among
    ///   `offered` (the offered names are in the error), or no name at all (disabling the list
    ///   is how to block none of it).
    public static func resolve(
        _ names: [String], list: String, format: FilterListFormat, offered: [TrackerCategory]
    ) throws(ActionError) -> [String]? {
        var wanted = Set<String>()
        for raw in names {
            try FieldLimits.check(raw, field: "categories", what: "a category's name", limit: maximumNameLength)
            let name = raw.trimmingCharacters(in: .whitespacesAndNewlines)
            if name.isEmpty { continue }
            guard let match = offered.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                throw .invalidCategories(list: list, problem: .unknown(name, offered: offered.map(\.name)))
            }
            wanted.insert(match.name)
        }
        guard !wanted.isEmpty else { throw .invalidCategories(list: list, problem: .noneChosen) }
        let choice = offered.map(\.name).filter { wanted.contains($0) }
        return Set(choice) == Set(defaultChoice(format: format, offered: offered)) ? nil : choice
    }
}

/// Why a choice of categories cannot be made.
public enum CategoryProblem: Sendable, Hashable, CustomStringConvertible {
    /// The list's format has no categories (only Tracker Radar and Disconnect lists do).
    case noCategories(format: String)
    /// The list has no copy yet, so what it offers is not known.
    case notDownloaded(reason: String?)
    /// A name that is not one of the list's categories; `offered` are its categories.
    case unknown(String, offered: [String])
    /// No category was given.
    case noneChosen
    /// The copy cannot be read as its format.
    case unreadable(String)

    public var description: String {
        switch self {
        case .noCategories(let format):
            "a list in the '\(format)' format has no categories (Tracker Radar and Disconnect lists do)"
        case .notDownloaded(let reason?): "its categories are known once it is downloaded, and it could not be: \(reason)"
        case .notDownloaded(nil): "its categories are known once it is downloaded: update it first"
        case .unknown(let name, let offered): "'\(name)' is not one of its categories (\(offered.joined(separator: ", ")))"
        case .noneChosen: "choose at least one category (to block none of it, disable the list)"
        case .unreadable(let reason): "its copy cannot be read: \(reason)"
        }
    }
}

extension PepperState {
    /// The categories of the list called `name`: what its copy offers and what is chosen;
    /// `nil` when its format has none.
    ///
    /// - Throws: ``ActionError/unknownList(_:)``; ``ActionError/invalidCategories(list:problem:)``
    ///   when its copy cannot be read as its format.
    public func listCategories(_ name: String) throws(ActionError) -> ListCategories? {
        try listCategories(of: try list(named: name))
    }

    /// The categories of `source` (``listCategories(_:)``).
    public func listCategories(of source: ListSource) throws(ActionError) -> ListCategories? {
        let copy = ListCopies.url(source.name, home: home)
        guard let format = ListCategories.format(of: source, copyStart: Self.firstBytes(of: copy)) else { return nil }
        let offered = try offeredCategories(source, format: format)
        return ListCategories.make(list: source.name, format: format, offered: offered, choice: source.categories)
    }

    /// Chooses the categories of the list called `name` (`nil`: back to the default), then
    /// rebuilds unless `rebuild` is false. The names are checked against what the list's copy
    /// offers (``ListCategories/resolve(_:list:format:offered:)``); nothing changes when one is
    /// refused.
    public func chooseCategories(_ names: [String]?, for name: String, rebuild: Bool = true) async throws(ActionError) -> ListChange {
        try await onBlockingThreads { () throws(ActionError) in
            var source = try self.list(named: name)
            source.categories = try self.resolveCategories(names, for: source)
            do {
                try ListSourceStore(database: self.database).updateSettings(source)
            } catch {
                throw .storage("cannot change the list: \(error)")
            }
        }
        let outcome = rebuild ? try await self.rebuild() : nil
        return ListChange(name: name, outcome: outcome)
    }

    /// The choice to store for `source` from the names a person gave (`nil`: the default).
    func resolveCategories(_ names: [String]?, for source: ListSource) throws(ActionError) -> [String]? {
        guard let names else {
            guard ListCategories.format(of: source, copyStart: Self.firstBytes(of: ListCopies.url(source.name, home: home))) != nil else {
                throw .invalidCategories(list: source.name, problem: .noCategories(format: source.format))
            }
            return nil
        }
        guard let categories = try listCategories(of: source) else {
            throw .invalidCategories(list: source.name, problem: .noCategories(format: source.format))
        }
        guard let offered = categories.offered else { throw .invalidCategories(list: source.name, problem: .notDownloaded(reason: nil)) }
        return try ListCategories.resolve(
            names, list: source.name, format: categories.format,
            offered: offered.map { TrackerCategory(name: $0.name, domains: $0.domains) })
    }

    /// What the copy of `source` offers (`nil`: no copy), read once per copy: a face asks on
    /// every view, and reading Tracker Radar's 2.8 MB each time would cost it.
    private func offeredCategories(_ source: ListSource, format: FilterListFormat) throws(ActionError) -> [TrackerCategory]? {
        let input: ListInput
        do {
            guard let stored = try BlockerBuilder.storedInputs(named: [source.name], home: home, database: database).first else {
                return nil
            }
            input = stored
        } catch is UnknownListError {
            return nil
        } catch {
            throw .storage("cannot read the list \(source.name): \(error)")
        }
        let key = OfferedCategories.Key(sha256: input.digest, format: format)
        if let known = OfferedCategories.shared.value(for: key) { return known }
        do {
            let offered = try FilterListParser.categories(in: input.data, name: source.name, format: format) ?? []
            OfferedCategories.shared.remember(offered, for: key)
            return offered
        } catch {
            throw .invalidCategories(list: source.name, problem: .unreadable("\(error)"))
        }
    }

    /// The first bytes of `url` (as many as the parser looks at to tell the formats apart), or
    /// `nil` when it cannot be read.
    static func firstBytes(of url: URL) -> Data? {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return nil }
        defer { try? handle.close() }
        return try? handle.read(upToCount: 65_536)
    }
}

/// The categories copies offered, by the copy's digest: computed once per copy in a process.
final class OfferedCategories: @unchecked Sendable {
    struct Key: Hashable {
        var sha256: String
        var format: FilterListFormat
    }

    static let shared = OfferedCategories()

    // NSLock, not Mutex: Mutex needs iOS 18 and macOS 15.
    private let lock = NSLock()
    private var known: [Key: [TrackerCategory]] = [:]

    func value(for key: Key) -> [TrackerCategory]? {
        lock.withLock { known[key] }
    }

    func remember(_ value: [TrackerCategory], for key: Key) {
        lock.withLock {
            // A handful of lists: forget all when they are many (copies replaced over a long run).
            if known.count >= 64 { known.removeAll() }
            known[key] = value
        }
    }
}
