import BlockingWork
import ContentBlocker
import Crypto
import FilterLists
import Foundation
import Picket
import Storage

/// Brings list sources up to date: downloads what changed (conditionally, or as a differential
/// patch), checks that the new copy is a usable list, and only then replaces the stored copy.
/// A failed download or a list that parses to nothing keeps the last good copy; the error is
/// recorded on the source.
public struct ListUpdater: Sendable {
    /// What happened to one source.
    public enum Status: Sendable, Hashable {
        /// A new copy was stored (`viaPatch` when a differential patch produced it).
        case updated(bytes: Int, viaPatch: Bool)
        /// The server (or the file) had nothing new.
        case notModified
        /// Not due yet; skipped until the given date (use `force` to fetch anyway).
        case fresh(until: Date)
        /// The update failed; the last good copy is kept.
        case failed(String)
    }

    /// The outcome for one source.
    public struct Report: Sendable, Hashable {
        /// The source's name.
        public var name: String
        /// What happened.
        public var status: Status
        /// Rules in the stored copy after the update, when it was parsed.
        public var rules: Int?
        /// A note, e.g. why a differential patch was not used.
        public var note: String?
        /// Why a Picket source failed, when it was Pepper's side (no key, a bad location): the
        /// face that shows the report says how to fix it in its own words.
        public var picketProblem: PicketListError?
    }

    /// The home whose `lists/` holds the copies.
    public var home: PepperHome
    /// The state database.
    public var database: PepperDatabase
    /// The HTTP client.
    public var downloader: ListDownloader
    /// Freshness when neither the list nor the server says: one day.
    public var defaultLifetime: TimeInterval = 86_400
    /// A Picket source's API key, read when the source is fetched: from the face's key store
    /// (the Keychain in the app), never from the source's settings. `nil` fails the fetch with
    /// ``PicketListError/missingKey(_:)``.
    public var picketKey: @Sendable (ListSource) throws -> String?

    /// An updater for `home`; `picketKey` gives Picket sources their keys (by default none).
    public init(
        home: PepperHome, database: PepperDatabase, downloader: ListDownloader = ListDownloader(),
        picketKey: @escaping @Sendable (ListSource) throws -> String? = { _ in nil }
    ) {
        self.home = home
        self.database = database
        self.downloader = downloader
        self.picketKey = picketKey
    }

    /// The disk holding the home is full: nothing could be stored, for this list or any other.
    public struct OutOfSpace: Error, Sendable, Hashable, CustomStringConvertible {
        /// The file that could not be written.
        public var path: String

        public var description: String {
            "no space left on device while writing \(path) (the lists' last good copies stay in use)"
        }

        /// The file `error` could not write because its disk is full; `nil` for any other error.
        public static func path(of error: any Error) -> String? {
            if let error = error as? OutOfSpace { return error.path }
            if let error = error as? AtomicFile.WriteError, error.isOutOfSpace { return error.path }
            if case .full(let path) = error as? PepperDatabaseError { return path }
            return nil
        }
    }

    /// Updates one source. Failures are recorded on the source and reported, with one
    /// exception: a full disk, which would fail every other list too, is thrown.
    ///
    /// A new copy and its record change together (``ListCopies``): after a crash at any moment
    /// the copy in use is the one its record describes. Reading the copy, parsing the new one
    /// and storing it run on a Dispatch thread (`LongBlockingWork`): a list of a few MB takes
    /// a good part of a second, which must not hold one of Swift's cooperative threads.
    public func update(
        _ source: ListSource, force: Bool, progress: ListDownloader.Progress? = nil
    ) async throws(OutOfSpace) -> Report {
        let store = ListSourceStore(database: database)
        var source = source
        let stored = await LongBlockingWork.run { [home, source] in ListCopies.read(source, home: home) }
        let now = Date()
        if !force, stored != nil, let expiresAt = source.expiresAt, expiresAt > now {
            return Report(name: source.name, status: .fresh(until: expiresAt))
        }
        source.lastAttempt = now
        if source.format == PicketListSource.format {
            return try await updatePicket(source, stored: stored, now: now)
        }
        let fetched: Fetched
        do {
            fetched = try await fetch(source, stored: stored, progress: progress)
        } catch {
            return try await LongBlockingWork.run { [source] () throws(OutOfSpace) in try failed(source, error, in: store) }
        }
        return try await LongBlockingWork.run { [source] () throws(OutOfSpace) -> Report in
            do {
                return try keep(fetched, for: source, stored: stored, now: now, in: store)
            } catch {
                return try failed(source, error, in: store)
            }
        }
    }

    /// Stores what `fetch` brought: a new copy once it parses to a usable list, with its record;
    /// for an unchanged list, the record's new expiry.
    private func keep(_ fetched: Fetched, for source: ListSource, stored: Data?, now: Date, in store: ListSourceStore) throws -> Report {
        var source = source
        switch fetched {
        case .unchanged(let headers):
            source.expiresAt = expiry(headers: headers, list: stored.flatMap { try? parse($0, for: source) }, from: now)
            source.lastSuccess = now
            source.lastError = nil
            try record(source, in: store)
            return Report(name: source.name, status: .notModified, rules: nil)
        case .new(let data, let headers, let viaPatch, let note):
            let list = try validate(data, for: source)
            // The record of the new copy, stored only with it: a failure below records the
            // old one (with its error), never a hash or an expiry of a copy that is not there.
            var downloaded = source
            downloaded.etag = headers.etag ?? (viaPatch ? nil : source.etag)
            downloaded.lastModified = headers.lastModified ?? (viaPatch ? nil : source.lastModified)
            downloaded.sha256 = ContentBlockerOutput.SourceIdentity.sha256Hex(data)
            downloaded.expiresAt = expiry(headers: headers, list: list, from: now)
            downloaded.lastSuccess = now
            downloaded.lastError = nil
            downloaded.rulesIn = list.ruleCount + list.skippedCount
            try ListCopies.store(data, name: source.name, home: home) { [downloaded] in try store.recordDownload(downloaded) }
            return Report(name: source.name, status: .updated(bytes: data.count, viaPatch: viaPatch), rules: list.ruleCount, note: note)
        }
    }

    /// Records `source` after a download that brought nothing new. Only a full disk is an error:
    /// otherwise the record is refreshed at the next update.
    private func record(_ source: ListSource, in store: ListSourceStore) throws(OutOfSpace) {
        do {
            try store.recordDownload(source)
        } catch {
            if let path = OutOfSpace.path(of: error) { throw OutOfSpace(path: path) }
        }
    }

    /// Records why `source` failed and reports it; a full disk is thrown instead (and not
    /// recorded: there is no room for it).
    private func failed(_ source: ListSource, _ error: any Error, in store: ListSourceStore) throws(OutOfSpace) -> Report {
        if let path = OutOfSpace.path(of: error) { throw OutOfSpace(path: path) }
        var source = source
        source.lastError = String(describing: error)
        try record(source, in: store)
        return Report(name: source.name, status: .failed(String(describing: error)), picketProblem: error as? PicketListError)
    }

    /// A Picket source: fetched through the API client (hash and 304), kept as the server sent
    /// it, fresh for the server's `suggestedRefreshInterval`.
    private func updatePicket(_ source: ListSource, stored: Data?, now: Date) async throws(OutOfSpace) -> Report {
        let store = ListSourceStore(database: database)
        let fetched: PicketListSource.Fetched
        do {
            guard let server = PicketListSource.serverURL(source.location) else { throw PicketListError.badLocation(source.location) }
            guard let key = try picketKey(source) else { throw PicketListError.missingKey(source.name) }
            // As for HTTP lists: the hash describes the recorded copy, so send it only for that copy.
            let validatorsMatch = stored.map { ContentBlockerOutput.SourceIdentity.sha256Hex($0) == source.sha256 } ?? false
            fetched = try await fetchPicket(server: server, key: key, lastHash: validatorsMatch ? source.etag : nil)
        } catch {
            return try await LongBlockingWork.run { () throws(OutOfSpace) in try failed(source, error, in: store) }
        }
        return try await LongBlockingWork.run { () throws(OutOfSpace) -> Report in
            do {
                return try keepPicket(fetched, for: source, stored: stored, now: now, in: store)
            } catch {
                return try failed(source, error, in: store)
            }
        }
    }

    /// Stores what the Picket server sent: a new blocklist with its record and strikes, or the
    /// record's new expiry.
    private func keepPicket(
        _ fetched: PicketListSource.Fetched, for source: ListSource, stored: Data?, now: Date, in store: ListSourceStore
    ) throws -> Report {
        var source = source
        switch fetched {
        case .unchanged:
            let interval = stored.flatMap { try? JSONDecoder().decode(MobileData.self, from: $0) }?.suggestedRefreshInterval
            source.expiresAt = now.addingTimeInterval(Self.picketLifetime(interval))
            source.lastSuccess = now
            source.lastError = nil
            try record(source, in: store)
            return Report(name: source.name, status: .notModified)
        case .new(let body, let data, let hash, let strikes):
            guard body.count <= downloader.policy.maximumBytes else {
                throw DownloadError.tooLarge(limit: downloader.policy.maximumBytes)
            }
            let strikesURL = PicketListSource.strikesURL(home: home, name: source.name)
            if let strikes { try? AtomicFile.write(strikes, to: strikesURL) }
            let domains = Set(data.blocklist.urls.compactMap { BlocklistMatcher.normalizedHost($0.url) })
            // As for HTTP lists: the new record is stored only with its copy.
            var downloaded = source
            downloaded.etag = hash
            downloaded.lastModified = nil
            downloaded.sha256 = ContentBlockerOutput.SourceIdentity.sha256Hex(body)
            downloaded.expiresAt = now.addingTimeInterval(Self.picketLifetime(data.suggestedRefreshInterval))
            downloaded.lastSuccess = now
            downloaded.lastError = nil
            downloaded.rulesIn = domains.count
            try ListCopies.store(body, name: source.name, home: home) { [downloaded] in try store.recordDownload(downloaded) }
            return Report(name: source.name, status: .updated(bytes: body.count, viaPatch: false), rules: domains.count)
        }
    }

    /// Retries transient failures like the HTTP downloader does (a 429's `Retry-After` is
    /// honoured when it is under a minute).
    private func fetchPicket(server: URL, key: String, lastHash: String?) async throws -> PicketListSource.Fetched {
        var attempt = 1
        var delay = downloader.policy.initialBackoff
        while true {
            do {
                return try await PicketListSource.fetch(
                    server: server, key: key, lastHash: lastHash, timeout: downloader.policy.idleTimeout)
            } catch {
                guard error.isTransient, attempt < downloader.policy.attempts else { throw error }
                var wait = delay
                if case .rateLimited(let retryAfter?, _) = error, retryAfter <= 60 { wait = max(wait, retryAfter) }
                attempt += 1
                try? await Task.sleep(nanoseconds: UInt64(wait * 1e9))
                delay *= 2
            }
        }
    }

    /// The server's refresh hint (milliseconds), kept between 5 minutes and a day.
    static func picketLifetime(_ milliseconds: Int?) -> TimeInterval {
        min(max(Double(milliseconds ?? 3_600_000) / 1_000, 300), 86_400)
    }

    private enum Fetched: Sendable {
        case unchanged(CacheHeaders)
        case new(Data, CacheHeaders, viaPatch: Bool, note: String?)
    }

    /// Why an update was refused.
    public enum UpdateError: Error, CustomStringConvertible {
        /// The new copy has no usable rule (an error page, a truncated file, the wrong format).
        case unusable(String)
        /// A local source file cannot be read.
        case unreadable(String)

        public var description: String {
            switch self {
            case .unusable(let details): return "the new copy has no usable rules (\(details)); keeping the last good copy"
            case .unreadable(let details): return details
            }
        }
    }

    private func fetch(_ source: ListSource, stored: Data?, progress: ListDownloader.Progress?) async throws -> Fetched {
        guard source.isRemote, let url = URL(string: source.location) else {
            return try await LongBlockingWork.run { () throws -> Fetched in try readLocal(source, stored: stored) }
        }
        var note: String?
        if let stored, let patched = try await fetchPatch(for: source, url: url, stored: stored, note: &note) {
            return patched
        }
        // The validators describe the copy recorded in the database; if the process died between
        // storing a copy and recording it, they describe another copy: then ask for the whole list.
        let validatorsMatch = stored.map { Self.recordDescribes($0, source) } ?? false
        let outcome = try await downloader.fetch(
            url, etag: validatorsMatch ? source.etag : nil, lastModified: validatorsMatch ? source.lastModified : nil, progress: progress)
        switch outcome {
        case .notModified(let headers): return .unchanged(headers)
        case .downloaded(let data, let headers):
            // The same bytes as the copy are "unchanged" only when the record describes the copy;
            // otherwise the record (ETag, hash) is rewritten, or the output would pair this copy
            // with another copy's ETag.
            if let stored, stored == data, validatorsMatch { return .unchanged(headers) }
            return .new(data, headers, viaPatch: false, note: note)
        }
    }

    /// A local source file, read whole (a list is a few MB).
    private func readLocal(_ source: ListSource, stored: Data?) throws -> Fetched {
        let path = source.location.hasPrefix("file://") ? URL(string: source.location)!.path : source.location
        guard let data = FileManager.default.contents(atPath: path) else { throw UpdateError.unreadable("cannot read \(path)") }
        guard data.count <= downloader.policy.maximumBytes else { throw DownloadError.tooLarge(limit: downloader.policy.maximumBytes) }
        if let stored, stored == data, Self.recordDescribes(stored, source) { return .unchanged(CacheHeaders()) }
        return .new(data, CacheHeaders(), viaPatch: false, note: nil)
    }

    /// Whether the source's record (hash, and so its validators) describes `copy`: not when the
    /// process died between storing a copy and recording it.
    static func recordDescribes(_ copy: Data, _ source: ListSource) -> Bool {
        ContentBlockerOutput.SourceIdentity.sha256Hex(copy) == source.sha256
    }

    /// Tries the stored copy's `! Diff-Path:` patch: `nil` means "download the whole list".
    private func fetchPatch(for source: ListSource, url: URL, stored: Data, note: inout String?) async throws -> Fetched? {
        guard let format = FilterListFormat(rawValue: source.format) ?? .some(.abp), !format.isJSON else { return nil }
        // Parsing the copy for its header is a whole list's work: off the cooperative threads.
        let header = await LongBlockingWork.run { () -> (text: String, diffPath: String)? in
            guard let text = String(data: stored, encoding: .utf8),
                let diffPath = (try? FilterListParser().parse(stored, name: source.name, format: .abp))?.metadata.diffPath
            else { return nil }
            return (text, diffPath)
        }
        guard let (text, diffPath) = header else { return nil }
        var path = diffPath
        var blockName: String?
        if let hash = diffPath.firstIndex(of: "#") {
            blockName = String(diffPath[diffPath.index(after: hash)...])
            path = String(diffPath[..<hash])
        }
        guard let patchURL = URL(string: path, relativeTo: url)?.absoluteURL else { return nil }
        let outcome: ListDownloader.Outcome
        do {
            outcome = try await downloader.fetch(patchURL)
        } catch {
            note = "differential patch unavailable (\(error)); downloaded the whole list"
            return nil
        }
        guard case .downloaded(let patchData, _) = outcome else { return nil }
        do {
            return try await LongBlockingWork.run { [blockName] () throws -> Fetched in
                let patch = try DiffPatch(String(decoding: patchData, as: UTF8.self))
                if patch.isEmpty { return .unchanged(CacheHeaders()) }
                let updated = try patch.apply(to: text, name: blockName)
                return .new(Data(updated.utf8), CacheHeaders(), viaPatch: true, note: nil)
            }
        } catch {
            note = "differential patch rejected (\(error)); downloaded the whole list"
            return nil
        }
    }

    private func parse(_ data: Data, for source: ListSource, categories: [String]?) throws -> ParsedFilterList {
        let parser = FilterListParser(categories: categories)
        return try parser.parse(data, name: source.name, format: FilterListFormat(rawValue: source.format))
    }

    private func parse(_ data: Data, for source: ListSource) throws -> ParsedFilterList {
        try parse(data, for: source, categories: source.categories)
    }

    /// The new copy must be a list with at least one usable rule. It is judged as its publisher
    /// meant it (its default categories), not under the person's choice: a narrow choice that
    /// blocks nothing today must not make a good copy look unusable and keep an old one.
    private func validate(_ data: Data, for source: ListSource) throws -> ParsedFilterList {
        let list: ParsedFilterList
        do {
            list = try parse(data, for: source, categories: nil)
        } catch {
            throw UpdateError.unusable(String(describing: error))
        }
        guard list.ruleCount > 0 else {
            let parsed = BlockerBuilder.ParsedInput(
                input: ListInput(name: source.name, location: source.location, data: data), result: .success(list), seconds: 0)
            throw UpdateError.unusable(BlockerBuilder.describeSkips([parsed]))
        }
        return list
    }

    /// When the copy should next be refreshed: the list's `! Expires:`, else the server's
    /// `Cache-Control: max-age` or `Expires`, else a day; kept between an hour and 30 days.
    func expiry(headers: CacheHeaders, list: ParsedFilterList?, from now: Date) -> Date {
        var lifetime = defaultLifetime
        if let expires = list?.metadata.expires {
            lifetime = TimeInterval(expires)
        } else if let maxAge = headers.maxAge {
            lifetime = maxAge
        } else if let expires = headers.expires {
            lifetime = expires.timeIntervalSince(now)
        }
        return now.addingTimeInterval(min(max(lifetime, 3_600), 30 * 86_400))
    }
}
