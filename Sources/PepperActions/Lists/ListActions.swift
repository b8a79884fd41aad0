import FilterLists
import Foundation
import ListSync
import Picket
import Storage

/// A list to subscribe to.
public struct ListRequest: Sendable, Hashable {
    /// A file path, an http(s) URL or `picket:https://SERVER`.
    public var source: String
    /// A short name; by default one is made from the file name (or the Picket server).
    public var name: String?
    /// `auto`, `abp`, `hosts`, `domains`, `tds` or `disconnect`.
    public var format: String
    /// For Tracker Radar and Disconnect lists: the categories to block, checked against what
    /// the list offers once it is fetched (``ListCategories``); `nil` for the list's default.
    public var categories: [String]?
    /// For `picket:` sources: the API key (read:mobile).
    public var key: String?

    /// A request with the given fields.
    public init(source: String, name: String? = nil, format: String = "auto", categories: [String]? = nil, key: String? = nil) {
        self.source = source
        self.name = name
        self.format = format
        self.categories = categories
        self.key = key
    }

    /// Whether the source is a Picket server's blocklist.
    public var isPicket: Bool { ListSource.isPicket(source) }
    /// Whether the source is downloaded (a URL or a Picket server) rather than a local file.
    public var isRemote: Bool { ListSource.isRemote(source) }

    /// Checks what can be checked without the network or the disk.
    public func validate() throws(ActionError) {
        try FieldLimits.check(source, field: "url", what: "a list's address", limit: FieldLimits.address)
        if isPicket {
            guard PicketListSource.serverURL(source) != nil else {
                throw .invalidSource(source: source, problem: .notAPicketAddress)
            }
            guard let key, APIKeyFormat.isWellFormed(key) else {
                throw .invalidSource(source: source, problem: .picketKeyNeeded)
            }
        } else if key != nil {
            throw .invalidSource(source: source, problem: .keyOnlyForPicket)
        }
        guard FilterListFormat(rawValue: format) != nil || format == "auto" else {
            throw .invalidSource(source: source, problem: .unknownFormat(format))
        }
        if let name, !ListSource.isValidName(name) { throw .invalidListName(name) }
    }

    /// The name a list gets when none is given: from the file name (`easylist.txt` →
    /// `easylist`), or from the Picket server.
    public static func derivedName(from location: String) -> String {
        if ListSource.isPicket(location) { return PicketListSource.defaultName(for: location) }
        let last = URL(string: location)?.lastPathComponent ?? URL(fileURLWithPath: location).lastPathComponent
        var base = last.lowercased()
        for suffix in [".txt", ".json", ".list", ".hosts"] where base.hasSuffix(suffix) { base = String(base.dropLast(suffix.count)) }
        let cleaned = String(base.map { ($0.isLetter && $0.isASCII) || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "-" })
        return cleaned.isEmpty || cleaned.hasPrefix(".") ? "list" : String(cleaned.prefix(64))
    }
}

/// A list that was added, enabled, disabled or removed.
public struct ListChange: Sendable, Hashable {
    /// The list's name.
    public var name: String
    /// Rules in its copy, when it was fetched.
    public var rules: Int?
    /// Why its copy could not be fetched (it stays enabled; the next update retries).
    public var fetchProblem: String?
    /// The rebuild that followed, unless the caller asked for none.
    public var outcome: RebuildOutcome?
}

extension PepperState {
    /// Largest uploaded list accepted.
    public static let maximumUploadBytes = 16 * 1_048_576

    /// Every list source, in the order added.
    public func lists() throws(ActionError) -> [ListSource] {
        do {
            return try ListSourceStore(database: database).all()
        } catch {
            throw .storage("cannot read the lists: \(error)")
        }
    }

    /// Subscribes to a list: fetches it first (a list that cannot be read or has no usable rule
    /// is not added), then rebuilds unless `rebuild` is false.
    public func addList(
        _ request: ListRequest, progress: ListDownloader.Progress? = nil, rebuild: Bool = true
    ) async throws(ActionError) -> ListChange {
        try request.validate()
        let location = request.isRemote ? request.source : URL(fileURLWithPath: request.source).standardizedFileURL.path
        if !request.isRemote && !FileManager.default.fileExists(atPath: location) {
            throw .invalidSource(source: request.source, problem: .noSuchFile)
        }
        let name = request.name ?? ListRequest.derivedName(from: location)
        guard ListSource.isValidName(name) else { throw .invalidListName(name) }
        let store = ListSourceStore(database: database)
        // The categories are checked against the copy once it is fetched, and stored then.
        let proposed = ListSource(name: name, location: location, format: request.isPicket ? PicketListSource.format : request.format)
        if request.categories != nil,
            request.isPicket || !ListCategories.mayOffer(format: request.format)
        {
            throw .invalidCategories(
                list: name, problem: .noCategories(format: request.isPicket ? PicketListSource.format : request.format))
        }
        let keys = picketKeyStore
        let entry = try await onBlockingThreads { [proposed] () throws(ActionError) -> ListSource in
            do {
                if try store.source(named: name) != nil { throw ActionError.listExists(name) }
                let entry = try store.insert(proposed)
                // The key goes to the key store (the Keychain in the app), never into the
                // source's settings in the shared database.
                if request.isPicket {
                    do {
                        try keys.setKey(request.key, for: .listSource(name))
                    } catch {
                        _ = try? store.remove(named: name)
                        throw ActionError.storage("cannot keep the list's API key: \(error)")
                    }
                }
                return entry
            } catch let error as ActionError {
                throw error
            } catch {
                throw .storage("cannot add the list: \(error)")
            }
        }
        let forget = { @Sendable in
            _ = try? store.remove(named: name)
            if request.isPicket { try? keys.setKey(nil, for: .listSource(name)) }
        }
        let report: ListUpdater.Report
        do {
            report = try await listUpdater().update(entry, force: true, progress: progress)
        } catch {
            forget()
            throw .storage("\(error)")
        }
        if case .failed(let reason) = report.status {
            forget()
            ListCopies.remove(name, home: home)
            throw .listUnusable(source: request.source, reason: reason)
        }
        if let categories = request.categories {
            do {
                try await onBlockingThreads { () throws(ActionError) in
                    var added = try self.list(named: name)
                    added.categories = try self.resolveCategories(categories, for: added)
                    do {
                        try store.updateSettings(added)
                    } catch {
                        throw .storage("cannot keep the list's categories: \(error)")
                    }
                }
            } catch {
                forget()
                ListCopies.remove(name, home: home)
                throw error
            }
        }
        let outcome = rebuild ? try await self.rebuild() : nil
        return ListChange(name: name, rules: report.rules, fetchProblem: nil, outcome: outcome)
    }

    /// Subscribes to a list uploaded as bytes (the console's file upload): the bytes are kept in
    /// `$PEPPER_HOME/uploads/` and added as a local list.
    public func addUploadedList(
        _ data: Data, fileName: String, name: String? = nil, format: String = "auto", rebuild: Bool = true
    ) async throws(ActionError) -> ListChange {
        guard !data.isEmpty else { throw .invalidSource(source: fileName, problem: .empty) }
        guard data.count <= Self.maximumUploadBytes else {
            throw .invalidSource(source: fileName, problem: .tooLarge(bytes: nil, limit: Self.maximumUploadBytes))
        }
        let listName = name ?? ListRequest.derivedName(from: fileName.isEmpty ? "upload.txt" : fileName)
        guard ListSource.isValidName(listName) else { throw .invalidListName(listName) }
        let folder = home.url.appendingPathComponent("uploads", isDirectory: true)
        let path = folder.appendingPathComponent(listName + ".txt")
        try await onBlockingThreads { [database] () throws(ActionError) in
            if (try? ListSourceStore(database: database).source(named: listName)) != nil { throw .listExists(listName) }
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                try data.write(to: path, options: .atomic)
            } catch {
                throw .storage("cannot keep the uploaded list: \(error)")
            }
        }
        do {
            return try await addList(ListRequest(source: path.path, name: listName, format: format), rebuild: rebuild)
        } catch {
            try? FileManager.default.removeItem(at: path)
            throw error
        }
    }

    /// Unsubscribes from a list and deletes its copy (built-in lists can only be disabled).
    public func removeList(_ name: String, rebuild: Bool = true) async throws(ActionError) -> ListChange {
        try await onBlockingThreads { () throws(ActionError) in
            let source = try self.list(named: name)
            guard !source.builtIn else { throw .builtInList(name) }
            do {
                // The key first: should the key store refuse, the list stays, with its key.
                if source.format == PicketListSource.format { try self.picketKeyStore.setKey(nil, for: .listSource(name)) }
                try ListSourceStore(database: self.database).remove(named: name)
            } catch {
                throw .storage("cannot remove the list: \(error)")
            }
            ListCopies.remove(name, home: self.home)
            if source.location.hasPrefix(self.home.url.appendingPathComponent("uploads").path + "/") {
                try? FileManager.default.removeItem(atPath: source.location)
            }
        }
        let outcome = rebuild ? try await self.rebuild() : nil
        return ListChange(name: name, outcome: outcome)
    }

    /// Uses a list again, fetching it when it has no copy yet unless `fetch` is false (a failed
    /// fetch is reported, not thrown: the list stays enabled and the next update retries).
    ///
    /// With `categories` (Tracker Radar and Disconnect lists), those are chosen too
    /// (``chooseCategories(_:for:rebuild:)``'s check): a list without a copy is fetched first,
    /// since its copy says what it offers. A refused choice, or a fetch that fails then, leaves
    /// the list disabled with its categories as they were (a copy that was fetched is kept, as
    /// an update would keep it).
    public func enableList(
        _ name: String, categories: [String]? = nil, fetch: Bool = true, progress: ListDownloader.Progress? = nil, rebuild: Bool = true
    ) async throws(ActionError) -> ListChange {
        var fetched: ListUpdater.Report?
        if categories != nil {
            let source = try await onBlockingThreads { () throws(ActionError) -> ListSource in try self.list(named: name) }
            guard ListCategories.mayOffer(format: source.format) else {
                throw .invalidCategories(list: name, problem: .noCategories(format: source.format))
            }
            if fetch, !FileManager.default.fileExists(atPath: ListCopies.url(name, home: home).path) {
                let report: ListUpdater.Report
                do {
                    report = try await listUpdater().update(source, force: true, progress: progress)
                } catch {
                    throw .storage("\(error)")
                }
                if case .failed(let reason) = report.status {
                    throw .invalidCategories(list: name, problem: .notDownloaded(reason: reason))
                }
                fetched = report
            }
        }
        let (source, hasCopy) = try await onBlockingThreads { () throws(ActionError) -> (ListSource, Bool) in
            var source = try self.list(named: name)
            source.enabled = true
            // Checked before anything is stored: a refused name leaves the list as it was.
            if let categories { source.categories = try self.resolveCategories(categories, for: source) }
            do {
                try ListSourceStore(database: self.database).updateSettings(source)
            } catch {
                throw .storage("cannot change the list: \(error)")
            }
            return (source, FileManager.default.fileExists(atPath: self.home.listsURL.appendingPathComponent(name).path))
        }
        var change = ListChange(name: name)
        change.rules = fetched?.rules
        if fetch, !hasCopy {
            let report: ListUpdater.Report
            do {
                report = try await listUpdater().update(source, force: true, progress: progress)
            } catch {
                throw .storage("\(error)")
            }
            if case .failed(let reason) = report.status { change.fetchProblem = reason }
            change.rules = report.rules
        }
        if rebuild { change.outcome = try await self.rebuild() }
        return change
    }

    /// Stops using a list (its copy is kept).
    public func disableList(_ name: String, rebuild: Bool = true) async throws(ActionError) -> ListChange {
        try await onBlockingThreads { () throws(ActionError) in
            var source = try self.list(named: name)
            source.enabled = false
            do {
                try ListSourceStore(database: self.database).updateSettings(source)
            } catch {
                throw .storage("cannot change the list: \(error)")
            }
        }
        let outcome = rebuild ? try await self.rebuild() : nil
        return ListChange(name: name, outcome: outcome)
    }

    /// The list source called `name`.
    public func list(named name: String) throws(ActionError) -> ListSource {
        let source: ListSource?
        do {
            source = try ListSourceStore(database: database).source(named: name)
        } catch {
            throw .storage("cannot read the lists: \(error)")
        }
        guard let source else { throw .unknownList(name) }
        return source
    }
}

extension ListChange {
    init(name: String) {
        self.init(name: name, rules: nil, fetchProblem: nil, outcome: nil)
    }

    init(name: String, outcome: RebuildOutcome?) {
        self.init(name: name, rules: nil, fetchProblem: nil, outcome: outcome)
    }
}
