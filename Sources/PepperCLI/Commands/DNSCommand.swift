import ArgumentParser
import Crypto
import DNSFilter
import DNSServer
import FilterEngine
import FilterLists
import Foundation
import ListSync
import Logging
import NIOCore
import Storage

/// `pepper dns`: the filtering DNS forwarder.
struct DNSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dns",
        abstract: "Filter DNS for the whole machine or network: a blocking DNS forwarder.",
        subcommands: [DNSServeCommand.self, DNSStatsCommand.self, DNSLogCommand.self]
    )
}

/// `pepper dns serve`.
struct DNSServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Answer DNS on --listen, blocking the names the lists block, forwarding the rest.",
        discussion: """
            Blocks a name when it or a parent domain is blocked at the DNS level by the
            enabled lists of the state (`pepper lists`) and the SOURCE lists given (paths
            or URLs), unless an exception or `pepper allowlist` covers it: `||domain^`
            rules, hosts files, domain lists, Tracker Radar and Disconnect trackers
            (docs/dns.md has the exact policy). Answers to forwarded names are checked
            too: a CNAME that leads to a blocked name is blocked.

            UDP and TCP on one address. Other names go to the --upstream servers through
            a cache that honours TTLs: plain DNS (IP[:PORT]; TCP when an answer is
            truncated), DNS over TLS (tls://HOST[:853][#NAME]: the certificate must name
            NAME, else HOST; one connection reused for every query) or DNS over HTTPS
            (https://HOST[:PORT]/PATH, POST, HTTP/2 when offered). Host names in tls://
            and https:// upstreams are looked up with the system's resolver when
            connecting: give an IP address with #NAME (tls://9.9.9.9#dns.quad9.net) when
            this server is the system's resolver. --upstream-ca trusts a private CA.
            Only loopback clients are answered unless --allow-clients names more.

            --groups FILE gives client groups their own lists and allowlist, e.g.
            {"groups": [{"name": "kids", "clients": ["192.168.1.64/26"],
            "lists": ["easylist", "/etc/pepper/kids.txt"], "allowlist": ["school.example"]}]}
            (lists: names from `pepper lists`, paths or URLs; without "lists", the default
            ones). The narrowest block holding a client picks its group; group clients
            are answered without --allow-clients. The file is read again when it changes.

            Every query is counted in the state's database and the recent ones are
            logged (the newest 100,000 of the last 7 days): `pepper dns stats`,
            `pepper dns log`. --no-query-log turns both off.

            --block-page IP:PORT serves an HTML page naming the rule and list that
            block a name (from the request's Host header). With --block-response null,
            blocked names resolve to that IP, so browsers show the page; give it port 80
            of an address of its own (e.g. 127.0.0.2:80) for that. With a block page, the
            domains of struck employers (an enabled `picket:` list, policy ask or block)
            always resolve to the page, which shows the labor action; under `ask` its
            "Proceed anyway" lets that client through to the employer for 24 hours.

            Reloads the lists on SIGHUP, and by itself when `pepper update`, `pepper
            lists` or `pepper allowlist` recompile the state; queries keep being answered
            meanwhile. SIGINT or SIGTERM stops it.

            Try it: pepper dns serve --listen 127.0.0.1:5335 --upstream 9.9.9.9
            then:   dig @127.0.0.1 -p 5335 doubleclick.net
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Argument(help: ArgumentHelp("More filter lists (paths or URLs) besides the enabled ones.", valueName: "source"))
    var sources: [String] = []

    @Option(help: ArgumentHelp("Address to answer on, UDP and TCP.", valueName: "ip:port"))
    var listen: String = "127.0.0.1:5335"

    @Option(
        help: ArgumentHelp(
            "A resolver to forward to: IP[:PORT], tls://HOST[:853][#NAME] or https://HOST[:PORT]/PATH (repeatable; default: the nameservers of /etc/resolv.conf).",
            valueName: "upstream"))
    var upstream: [String] = []

    @Option(
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for tls:// and https:// upstreams (repeatable).",
            valueName: "file"))
    var upstreamCA: [String] = []

    @Option(help: ArgumentHelp("How blocked names are answered: nxdomain, null (0.0.0.0 / ::) or refused.", valueName: "kind"))
    var blockResponse: String = "nxdomain"

    @Option(help: ArgumentHelp("TTL of block answers, in seconds.", valueName: "seconds"))
    var blockTTL: Int = 60

    @Option(
        help: ArgumentHelp(
            "Serve a page explaining blocks on this address; with --block-response null, blocked names resolve to it.",
            valueName: "ip:port"))
    var blockPage: String?

    @Option(help: ArgumentHelp("Also answer clients in this block, e.g. 192.168.1.0/24 (repeatable).", valueName: "cidr"))
    var allowClients: [String] = []

    @Option(help: ArgumentHelp("Milliseconds to wait for an upstream before trying the next.", valueName: "ms"))
    var upstreamTimeout: Int = 1500

    @Option(help: ArgumentHelp("Most answers kept in the cache (0: no cache).", valueName: "n"))
    var cacheSize: Int = 10_000

    @Option(help: ArgumentHelp("Threads answering queries (default: one per core).", valueName: "n"))
    var threads: Int?

    @Option(help: ArgumentHelp("Log level on stderr: error, warning, info, debug.", valueName: "level"))
    var logLevel: String = "info"

    @Flag(help: "Neither count nor log queries in the state's database.")
    var noQueryLog = false

    @Option(
        help: ArgumentHelp(
            "A JSON file of client groups, each with its clients (CIDR), lists and allowlist (docs/dns.md).", valueName: "file"))
    var groups: String?

    func validate() throws {
        guard BlockResponse(rawValue: blockResponse.lowercased()) != nil else {
            throw ValidationError("--block-response must be nxdomain, null or refused, not '\(blockResponse)'")
        }
        guard (0...604_800).contains(blockTTL) else { throw ValidationError("--block-ttl must be 0–604800 seconds") }
        guard upstreamTimeout >= 10 else { throw ValidationError("--upstream-timeout must be at least 10 ms") }
        guard cacheSize >= 0 else { throw ValidationError("--cache-size must not be negative") }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be 1–64") }
        guard Logger.Level(rawValue: logLevel.lowercased()) != nil else { throw ValidationError("unknown --log-level '\(logLevel)'") }
        do {
            _ = try ListenAddress(listen)
            if let blockPage { _ = try ListenAddress(blockPage) }
            for text in upstream { _ = try UpstreamAddress(text) }
            for text in allowClients { _ = try CIDRBlock(text) }
            for path in upstreamCA + (groups.map { [$0] } ?? []) where !FileManager.default.isReadableFile(atPath: path) {
                throw ValidationError("\(path): no such readable file")
            }
        } catch {
            throw ValidationError("\(error)")
        }
    }

    func run() async throws {
        let listenAddress = try ListenAddress(listen)
        var upstreams = try upstream.map { try UpstreamAddress($0) }
        if upstreams.isEmpty { upstreams = Self.systemResolvers(excluding: listenAddress) }
        guard !upstreams.isEmpty else {
            throw CLIError("no upstream: /etc/resolv.conf names none; give --upstream IP[:PORT]")
        }
        let access = ClientAccess(allowed: try allowClients.map { try CIDRBlock($0) })
        let logger = Self.logger(level: Logger.Level(rawValue: logLevel.lowercased()) ?? .info)
        var loader = DNSEngineLoader(homeOptions: homeOptions, sources: try await loadSources())
        var groupSpecs = try groups.map { try DNSClientGroupsFile.load($0) } ?? []
        var groupSources = try await DNSEngineLoader.loadGroupSources(groupSpecs)
        let recorder =
            noQueryLog ? nil : QueryRecorder(store: DNSQueryLogStore(database: try homeOptions.openDatabase()), logger: logger)
        let started = Date()
        let blockPageAddress = try blockPage.map { try ListenAddress($0) }
        // Struck employers' names go to the block page, when there is one.
        let picketGate = blockPageAddress.map { PicketGate(lookup: Self.picketLookup(homeOptions), pageAddress: $0.host) }
        let (server, blockedDomains) = try await start(
            loader: loader, groups: groupSpecs, groupSources: groupSources, listen: listenAddress, upstreams: upstreams, access: access,
            logger: logger, recorder: recorder, blockPage: blockPageAddress, picket: picketGate)
        var page: BlockPageServer?
        if let blockPageAddress {
            do {
                page = try await server.startBlockPage(at: blockPageAddress)
            } catch {
                await server.shutdown()
                throw CLIError("\(error)")
            }
        }
        // SOURCE files are read again from disk on reload: their bytes need not stay in memory.
        loader = loader.droppingFileData()
        groupSources = groupSources.mapValues(DNSEngineLoader.droppingFileData)
        DNSEngineLoader.returnFreedMemory()
        let recording = Task { await recorder?.run() }
        let seconds = Date().timeIntervalSince(started)
        // Written at once (not buffered): scripts wait for this line.
        let ready =
            "pepper dns: listening on \(server.localAddress) (UDP, TCP); \(Terminal.count(blockedDomains)) blocked domains; "
            + (groupSpecs.isEmpty ? "" : "\(groupSpecs.count) client group\(groupSpecs.count == 1 ? "" : "s"); ")
            + (page.map { "block page on http://\($0.localAddress); " } ?? "")
            + "upstream \(upstreams.map(\.description).joined(separator: ", ")); ready in \(Terminal.seconds(seconds))\n"
        FileHandle.standardOutput.write(Data(ready.utf8))

        let events = SignalEvents()
        let watcher = Task { [loader, groups] in
            var stamp = loader.stateStamp(groupsFile: groups)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(2))
                let current = loader.stateStamp(groupsFile: groups)
                if current != stamp {
                    stamp = current
                    events.send(.reload("the state's lists or allowlist, or the groups file, changed"))
                }
            }
        }
        // A second signal (e.g. `timeout` signals its whole process group) is ignored: the
        // loop ends at the first stop.
        events: for await event in events.stream {
            switch event {
            case .stop(let name):
                logger.info("stopping", metadata: ["signal": "\(name)"])
                watcher.cancel()
                await page?.shutdown()
                await server.shutdown()
                recording.cancel()
                await recording.value
                events.finish()
                break events
            case .reload(let reason):
                do {
                    // The groups file is read again too; any error keeps everything as it was.
                    let freshGroups = try groups.map { try DNSClientGroupsFile.load($0) } ?? []
                    let freshSources = try await DNSEngineLoader.loadGroupSources(freshGroups, loaded: groupSources)
                    let fresh = try Self.filters(
                        loader: loader, template: server.filter, groups: freshGroups, groupSources: freshSources, rereadSources: true)
                    server.replaceFilters(fresh)
                    (groupSpecs, groupSources) = (freshGroups, freshSources.mapValues(DNSEngineLoader.droppingFileData))
                    DNSEngineLoader.returnFreedMemory()
                    picketGate?.replace(lookup: Self.picketLookup(homeOptions))
                    logger.info(
                        "reloaded",
                        metadata: [
                            "reason": "\(reason)", "blocked domains": "\(fresh.defaultFilter.engine.dnsBlockedDomainCount)",
                            "client groups": "\(fresh.groups.count)",
                        ])
                } catch {
                    logger.error("reload failed, keeping the current lists", metadata: ["error": "\(error)"])
                }
            }
        }
    }

    /// Builds the first engines and starts the server. (A function of its own, so that no local
    /// of `run` keeps the first engines alive after a reload has replaced them.)
    private func start(
        loader: DNSEngineLoader, groups: [DNSClientGroupSpec], groupSources: [String: ListInput], listen: ListenAddress,
        upstreams: [UpstreamAddress], access: ClientAccess, logger: Logger, recorder: QueryRecorder?, blockPage: ListenAddress?,
        picket: PicketGate?
    ) async throws -> (DNSServer, Int) {
        let engine = try loader.engine()
        var template = DNSQueryFilter(
            engine: engine, blockResponse: BlockResponse(rawValue: blockResponse.lowercased()) ?? .nxdomain, blockTTL: UInt32(blockTTL))
        // `null` answers point at the block page (its address family; the other stays 0.0.0.0 / ::).
        if let blockPage {
            if blockPage.host.isIPv4 { template.nullIPv4 = blockPage.host } else { template.nullIPv6 = blockPage.host }
        }
        let filters = try Self.filters(loader: loader, template: template, groups: groups, groupSources: groupSources)
        let configuration = DNSServerConfiguration(
            listen: listen, upstreams: upstreams, access: access, upstreamTimeout: .milliseconds(Int64(upstreamTimeout)),
            cacheCapacity: cacheSize, threads: threads ?? System.coreCount, trustedCertificates: upstreamCA)
        var observer: (@Sendable (QueryEvent) -> Void)?
        if let recorder { observer = { recorder.record($0) } }
        do {
            let server = try await DNSServer.start(
                configuration: configuration, filters: filters, logger: logger, observer: observer, picket: picket)
            return (server, engine.dnsBlockedDomainCount)
        } catch {
            throw CLIError("\(error)")
        }
    }

    /// The default filter and the client groups' filters, with the answer settings of
    /// `template` (block response, TTL, block-page addresses). The default engine is `template`'s
    /// unless `rereadSources` asks for a fresh build.
    static func filters(
        loader: DNSEngineLoader, template: DNSQueryFilter, groups: [DNSClientGroupSpec], groupSources: [String: ListInput],
        rereadSources: Bool = false
    ) throws -> DNSFilterSet {
        func filter(_ engine: FilterEngine) -> DNSQueryFilter {
            DNSQueryFilter(
                engine: engine, blockResponse: template.blockResponse, blockTTL: template.blockTTL, nullIPv4: template.nullIPv4,
                nullIPv6: template.nullIPv6)
        }
        let defaultEngine = rereadSources ? try loader.engine(rereadSources: true) : template.engine
        let clientGroups = try groups.map { group in
            // A group with the default lists and no allowlist of its own shares the default engine.
            let engine =
                group.lists == nil && group.allowlist.isEmpty
                ? defaultEngine : try loader.engine(for: group, loaded: groupSources, rereadSources: rereadSources)
            return ClientGroup(name: group.name, clients: group.clients, filter: filter(engine))
        }
        return DNSFilterSet(defaultFilter: filter(defaultEngine), groups: clientGroups)
    }

    /// The notices of the state's enabled `picket:` sources under the Picket policy (none
    /// under `allow`, or when the state cannot be read).
    static func picketLookup(_ homeOptions: HomeOptions) -> PicketGate.Lookup {
        guard let database = try? homeOptions.openDatabase(),
            let index = try? PicketBlocklistIndex.load(home: homeOptions.pepperHome, database: database)
        else { return { _ in nil } }
        return { host in index.notice(for: host) }
    }

    private func loadSources() async throws -> [ListInput] {
        var inputs: [ListInput] = []
        for argument in sources { inputs.append(try await SourceLoader.load(argument, format: nil)) }
        return CompileCommand.uniquelyNamed(inputs)
    }

    static func logger(level: Logger.Level) -> Logger {
        var logger = Logger(label: "pepper.dns") { label in StreamLogHandler.standardError(label: label) }
        logger.logLevel = level
        return logger
    }

    /// The nameservers of /etc/resolv.conf, except this server's own address.
    static func systemResolvers(excluding listen: ListenAddress) -> [UpstreamAddress] {
        guard let text = try? String(contentsOfFile: "/etc/resolv.conf", encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line -> UpstreamAddress? in
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, fields[0] == "nameserver", let address = IPAddress(String(fields[1])) else { return nil }
            if address == listen.host && listen.port == 53 { return nil }
            return .udp(host: address, port: 53)
        }
    }
}

/// Builds the DNS engine from the state and the command line's lists, and tells when the state
/// changed.
struct DNSEngineLoader: Sendable {
    let homeOptions: HomeOptions
    let sources: [ListInput]

    /// The engine: the state's saved engine when no SOURCE is given (no list is parsed), else the
    /// state's enabled lists plus the SOURCE lists, cached in `$PEPPER_HOME/dns-engine.bin` under
    /// a digest of every input, so a restart with the same lists parses nothing either.
    func engine(rereadSources: Bool = false) throws -> FilterEngine {
        let database = try homeOptions.openDatabase()
        let home = homeOptions.pepperHome
        if sources.isEmpty {
            if let engine = try? EngineCache.load(home: home, database: database) { return engine }
            return try EngineCache.rebuild(home: home, database: database)
        }
        return try build(defaultInputs(rereadSources: rereadSources), extraAllowlist: [], cacheName: "dns-engine.bin")
    }

    /// The engine of a client group: its own lists (or the default ones when it names none) and
    /// the state's allowlist plus its own, cached in `$PEPPER_HOME/dns-engine-NAME.bin`.
    /// `loaded`: the group lists that are paths or URLs, read by ``loadGroupSources(_:)``.
    func engine(for group: DNSClientGroupSpec, loaded: [String: ListInput], rereadSources: Bool = false) throws -> FilterEngine {
        guard let lists = group.lists else {
            if group.allowlist.isEmpty { return try engine(rereadSources: rereadSources) }
            var inputs = try defaultInputs(rereadSources: rereadSources)
            // As for the default engine: a state with no downloaded list yet uses the starter list.
            if inputs.isEmpty { inputs = [.starter] }
            return try build(inputs, extraAllowlist: group.allowlist, cacheName: "dns-engine-\(group.name).bin")
        }
        let database = try homeOptions.openDatabase()
        var inputs: [ListInput] = []
        for entry in lists {
            if DNSClientGroupSpec.isSource(entry) {
                guard let input = loaded[entry] else { throw CLIError("group '\(group.name)': \(entry) was not loaded") }
                inputs.append(rereadSources ? try Self.reread(input) : input)
            } else {
                do {
                    inputs += try BlockerBuilder.storedInputs(named: [entry], home: homeOptions.pepperHome, database: database)
                } catch {
                    throw CLIError("group '\(group.name)': \(error)")
                }
            }
        }
        return try build(inputs, extraAllowlist: group.allowlist, cacheName: "dns-engine-\(group.name).bin")
    }

    /// Reads the paths and URLs among the groups' lists. Those already in `loaded` are kept as
    /// they are: URLs are not downloaded again, and files are read again by the build
    /// (`rereadSources`), not here too.
    static func loadGroupSources(_ groups: [DNSClientGroupSpec], loaded: [String: ListInput] = [:]) async throws -> [String: ListInput] {
        var result: [String: ListInput] = [:]
        for entry in groups.flatMap({ $0.lists ?? [] }) where DNSClientGroupSpec.isSource(entry) && result[entry] == nil {
            if let known = loaded[entry] {
                result[entry] = known
            } else {
                result[entry] = try await SourceLoader.load(entry, format: nil)
            }
        }
        return result
    }

    /// The state's enabled lists plus the SOURCE lists.
    private func defaultInputs(rereadSources: Bool) throws -> [ListInput] {
        let database = try homeOptions.openDatabase()
        let inputs = try BlockerBuilder.storedInputs(home: homeOptions.pepperHome, database: database)
        return inputs + (rereadSources ? try sources.map(Self.reread) : sources)
    }

    /// Parses `inputs` into an engine with the state's allowlist plus `extraAllowlist`, or takes
    /// the engine cached in `cacheName` when it was built from the same inputs.
    private func build(_ inputs: [ListInput], extraAllowlist: [String], cacheName: String) throws -> FilterEngine {
        let database = try homeOptions.openDatabase()
        let allowlist = try AllowlistStore(database: database).domains() + extraAllowlist
        let identifier = Self.digest(inputs, allowlist: allowlist)
        let cacheURL = homeOptions.pepperHome.url.appendingPathComponent(cacheName)
        if let cached = try? FilterEngine(contentsOf: cacheURL), cached.identifier == identifier { return cached }
        let parsed = BlockerBuilder.parse(inputs)
        for item in parsed { if case .failure(let error) = item.result { Terminal.warning("\(error)") } }
        let engine = FilterEngine(lists: parsed.compactMap { try? $0.result.get() }, allowlist: allowlist, identifier: identifier)
        try? engine.write(to: cacheURL)
        return engine
    }

    /// A SOURCE file read again (SIGHUP after editing it); URLs keep the copy downloaded at
    /// start. A file that cannot be read fails the reload (the running engine stays).
    static func reread(_ input: ListInput) throws -> ListInput {
        guard !isURL(input) else { return input }
        var copy = input
        do {
            copy.data = try Data(contentsOf: URL(fileURLWithPath: input.location))
        } catch {
            throw CLIError("\(input.location): cannot read: \(error.localizedDescription)")
        }
        return copy
    }

    static func isURL(_ input: ListInput) -> Bool {
        input.location.hasPrefix("http://") || input.location.hasPrefix("https://")
    }

    /// The loader without the bytes of SOURCE files (URLs keep theirs): later builds read the
    /// files again.
    func droppingFileData() -> DNSEngineLoader {
        DNSEngineLoader(homeOptions: homeOptions, sources: sources.map(Self.droppingFileData))
    }

    /// `input` without its bytes when it is a file (read again at the next build); URLs keep theirs.
    static func droppingFileData(_ input: ListInput) -> ListInput {
        guard !isURL(input) else { return input }
        var copy = input
        copy.data = Data()
        return copy
    }

    /// Gives the memory freed after building or loading an engine back to the system (glibc
    /// keeps freed heap otherwise, and the RSS stays at the load's peak).
    static func returnFreedMemory() {
        #if os(Linux)
        // glibc's malloc_trim, looked up at run time (its header is not in the Glibc module).
        typealias Trim = @convention(c) (Int) -> Int32
        if let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_trim") {
            _ = unsafeBitCast(symbol, to: Trim.self)(0)
        }
        #endif
    }

    static func digest(_ inputs: [ListInput], allowlist: [String]) -> String {
        var hasher = SHA256()
        for input in inputs {
            hasher.update(data: Data(input.name.utf8))
            hasher.update(data: Data([0]))
            hasher.update(data: Data((input.format?.rawValue ?? "auto").utf8))
            hasher.update(data: Data([0]))
            hasher.update(data: input.data)
        }
        hasher.update(data: Data(allowlist.sorted().joined(separator: ",").utf8))
        return "dns:" + hasher.finalize().map { String(format: "%02x", $0) }.joined()
    }

    /// Changes whenever a recompile (`pepper update`, `lists`, `allowlist`, `compile`) rewrote
    /// the state's engine or output, or the `--groups` file changed.
    func stateStamp(groupsFile: String? = nil) -> String {
        let home = homeOptions.pepperHome
        let files =
            [EngineCache.url(home: home), home.outputURL.appendingPathComponent("manifest.json")]
            + (groupsFile.map { [URL(fileURLWithPath: $0)] } ?? [])
        return files.map { url in
            let attributes = try? FileManager.default.attributesOfItem(atPath: url.path)
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(modified):\(attributes?[.size] as? Int ?? -1)"
        }.joined(separator: "|")
    }
}

/// SIGINT/SIGTERM (stop) and SIGHUP (reload) as an async stream. (`@unchecked`: the signal
/// sources are only set in `init` and cancelled in `finish`, both thread-safe in Dispatch.)
final class SignalEvents: @unchecked Sendable {
    enum Event: Sendable {
        case stop(String)
        case reload(String)
    }

    let stream: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let sources: [DispatchSourceSignal]

    init() {
        let (stream, continuation) = AsyncStream<Event>.makeStream()
        self.stream = stream
        self.continuation = continuation
        var sources: [DispatchSourceSignal] = []
        for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")] {
            // Handled by the dispatch source, not by the default action.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                continuation.yield(number == SIGHUP ? .reload("SIGHUP") : .stop(name))
            }
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func send(_ event: Event) {
        continuation.yield(event)
    }

    func finish() {
        for source in sources { source.cancel() }
        continuation.finish()
    }
}

/// `pepper dns stats`.
struct DNSStatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Queries answered by `pepper dns serve`: counts per outcome, today and in all, and the names blocked most."
    )

    @OptionGroup var homeOptions: HomeOptions

    @Option(help: ArgumentHelp("How many of the most blocked names to show.", valueName: "n"))
    var top: Int = 10

    @Flag(help: "Print JSON.")
    var json = false

    struct Stats: Encodable {
        var total: [String: Int]
        var today: [String: Int]
        var topBlocked: [DNSQueryLogStore.NameCount]
    }

    func run() throws {
        let store = DNSQueryLogStore(database: try homeOptions.openDatabase())
        let counts = try store.counts()
        let today = DNSQueryLogStore.day(of: Date())
        var stats = Stats(total: [:], today: [:], topBlocked: try store.topBlocked(limit: top))
        for count in counts {
            stats.total[count.outcome, default: 0] += count.count
            if count.day == today { stats.today[count.outcome, default: 0] += count.count }
        }
        if json {
            try Terminal.printJSON(stats)
            return
        }
        let outcomes = ["blocked", "blocked-cname", "forwarded", "cached", "failed", "refused", "malformed"]
        print(Terminal.pad("outcome", 16) + Terminal.padLeft("today", 12) + Terminal.padLeft("all", 14))
        for outcome in outcomes + stats.total.keys.filter({ !outcomes.contains($0) }).sorted() {
            print(
                Terminal.pad(outcome, 16) + Terminal.padLeft(Terminal.count(stats.today[outcome] ?? 0), 12)
                    + Terminal.padLeft(Terminal.count(stats.total[outcome] ?? 0), 14))
        }
        let all = stats.total.values.reduce(0, +)
        let blocked = (stats.total["blocked"] ?? 0) + (stats.total["blocked-cname"] ?? 0)
        let share = all == 0 ? 0 : Double(blocked) * 100 / Double(all)
        print(
            Terminal.pad("total", 16) + Terminal.padLeft(Terminal.count(stats.today.values.reduce(0, +)), 12)
                + Terminal.padLeft(Terminal.count(all), 14))
        print(String(format: "blocked: %.1f %% of all queries", share))
        if !stats.topBlocked.isEmpty {
            print("most blocked (recent log):")
            for item in stats.topBlocked { print("  " + Terminal.padLeft(Terminal.count(item.count), 8) + "  " + item.name) }
        }
    }
}

/// `pepper dns log`.
struct DNSLogCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "log",
        abstract: "The latest queries answered by `pepper dns serve`, newest first.",
        discussion: "One line per query: time (UTC), client, type, name, outcome, response code."
    )

    @OptionGroup var homeOptions: HomeOptions

    @Flag(help: "Only blocked queries (by name or by CNAME).")
    var blocked = false

    @Option(help: ArgumentHelp("How many queries to show.", valueName: "n"))
    var limit: Int = 50

    @Flag(help: "Print JSON lines.")
    var json = false

    func validate() throws {
        guard limit > 0 else { throw ValidationError("--limit must be positive") }
    }

    func run() throws {
        let entries = try DNSQueryLogStore(database: try homeOptions.openDatabase()).recent(limit: limit, blockedOnly: blocked)
        let formatter = ISO8601DateFormatter()
        if json {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .iso8601
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for entry in entries { print(String(decoding: try encoder.encode(entry), as: UTF8.self)) }
            return
        }
        for entry in entries {
            print(
                [formatter.string(from: entry.at), entry.client, entry.type, entry.name, entry.outcome, entry.responseCode].joined(
                    separator: "\t"))
        }
    }
}
