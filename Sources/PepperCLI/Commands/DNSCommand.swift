import ArgumentParser
import DNSFilter
import DNSProfiles
import DNSServer
import FilterLists
import Foundation
import ListSync
import Logging
import NIOCore
import PepperActions
import ServerMetrics
import ServiceLifecycle
import Storage

/// `pepper dns`: the filtering DNS forwarder.
struct DNSCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dns",
        abstract: "Filter DNS for the whole machine or network: a blocking DNS forwarder.",
        subcommands: [
            DNSServeCommand.self, DNSStatsCommand.self, DNSLogCommand.self, DNSCertificateCommand.self, DNSProfileCommand.self,
        ]
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

            Away from home: --tls-listen and --https-listen answer DNS over TLS (RFC 7858)
            and DNS over HTTPS (RFC 8484, GET and POST, HTTP/2 and HTTP/1.1, path
            /dns-query) with the same lists, cache, log and metrics, under --server-name
            (the name the certificate of --tls-cert/--tls-key gives; files read again when
            they change; TLS 1.2 and up). A device names itself in the DoH path
            (/dns-query/phone) or as the first label of the DoT server name
            (phone.dns.example: the certificate must cover *.dns.example): the query log,
            the metrics and the console show the name, and a client group's "devices"
            choose its lists wherever the phone is. Encrypted queries are answered for
            --allow-clients, group clients and known devices (--device, group devices);
            --refuse-unknown-devices answers known devices only. `pepper dns certificate`
            makes a private CA and certificate; `pepper dns profile` an iPhone profile.
            Exposed to the internet, also set --rate-limit (queries per second per
            address or device) and keep --max-connections-per-client (docs/dns.md).

            --metrics IP:PORT serves Prometheus metrics on an address of its own:
            queries by outcome and transport, answer latency, cache use, upstream
            errors, reloads (docs/metrics.md).

            Reloads the lists on SIGHUP, and by itself when `pepper update`, `pepper
            lists` or `pepper allowlist` recompile the state; queries keep being answered
            meanwhile. SIGINT or SIGTERM stops it after answering the queries in flight
            and writing the query log.

            Try it: pepper dns serve --listen 127.0.0.1:5335 --upstream 9.9.9.9
            then:   dig @127.0.0.1 -p 5335 doubleclick.net
            """
    )

    @OptionGroup var homeOptions: HomeOptions

    @Argument(help: ArgumentHelp("More filter lists (paths or URLs) besides the enabled ones.", valueName: "source"))
    var sources: [String] = []

    @Option(help: ArgumentHelp("Address to answer on, UDP and TCP.", valueName: "ip:port"))
    var listen = ListenAddress(host: IPAddress(ipv4: 127, 0, 0, 1), port: 5335)

    @Option(
        help: ArgumentHelp(
            "A resolver to forward to: IP[:PORT], tls://HOST[:853][#NAME] or https://HOST[:PORT]/PATH (repeatable; default: the nameservers of /etc/resolv.conf).",
            valueName: "upstream"),
        transform: { text in
            do {
                return try UpstreamAddress(text)
            } catch {
                throw ValidationError("\(error)")
            }
        })
    var upstream: [UpstreamAddress] = []

    @Option(
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for tls:// and https:// upstreams (repeatable).",
            valueName: "file"))
    var upstreamCA: [String] = []

    @Option(help: ArgumentHelp("How blocked names are answered: nxdomain, null (0.0.0.0 / ::) or refused.", valueName: "kind"))
    var blockResponse: BlockResponse = .nxdomain

    @Option(help: ArgumentHelp("TTL of block answers, in seconds.", valueName: "seconds"))
    var blockTTL: Int = 60

    @Option(
        help: ArgumentHelp(
            "Serve a page explaining blocks on this address; with --block-response null, blocked names resolve to it.",
            valueName: "ip:port"))
    var blockPage: ListenAddress?

    @Option(
        help: ArgumentHelp("Also answer clients in this block, e.g. 192.168.1.0/24 (repeatable).", valueName: "cidr"),
        transform: { text in
            do {
                return try CIDRBlock(text)
            } catch {
                throw ValidationError("\(error)")
            }
        })
    var allowClients: [CIDRBlock] = []

    @Option(help: ArgumentHelp("Milliseconds to wait for an upstream before trying the next.", valueName: "ms"))
    var upstreamTimeout: Int = 1500

    @Option(help: ArgumentHelp("Most answers kept in the cache (0: no cache).", valueName: "n"))
    var cacheSize: Int = 10_000

    @Flag(help: "Never answer from expired cache entries when the upstreams do not answer (RFC 8767 serve-stale is on by default).")
    var noServeStale = false

    @Option(help: ArgumentHelp("TTL of a stale answer's records, in seconds (RFC 8767 recommends 30).", valueName: "s"))
    var staleTTL: Int = 30

    @Option(help: ArgumentHelp("How long past its TTL an answer may still be served stale, in seconds.", valueName: "s"))
    var maxStale: Int = 86_400

    @Option(
        help: ArgumentHelp(
            "Milliseconds a client waits for the upstreams before it gets a stale answer or SERVFAIL (RFC 8767's client response timer).",
            valueName: "ms"))
    var clientTimeout: Int = 1_800

    @Option(help: ArgumentHelp("Threads answering queries (default: one per core).", valueName: "n"))
    var threads: Int?

    @Option(help: ArgumentHelp("Log level on stderr: error, warning, info, debug.", valueName: "level"))
    var logLevel: Logger.Level = .info

    @Flag(help: "Neither count nor log queries in the state's database.")
    var noQueryLog = false

    @Option(
        help: ArgumentHelp(
            "A JSON file of client groups, each with its clients (CIDR), lists and allowlist (docs/dns.md).", valueName: "file"))
    var groups: String?

    @Option(
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://IP:PORT/metrics (e.g. 127.0.0.1:9153; docs/metrics.md).", valueName: "ip:port"))
    var metrics: ListenAddress?

    @Option(
        help: ArgumentHelp(
            "The server's host name for DNS over TLS and HTTPS, as its certificate names it (devices ask as NAME.HOST).",
            valueName: "host"))
    var serverName: String?

    @Option(help: ArgumentHelp("Answer DNS over TLS on this address (e.g. 0.0.0.0:853).", valueName: "ip:port"))
    var tlsListen: ListenAddress?

    @Option(help: ArgumentHelp("Answer DNS over HTTPS on this address, path /dns-query (e.g. 0.0.0.0:443).", valueName: "ip:port"))
    var httpsListen: ListenAddress?

    @Option(
        help: ArgumentHelp(
            "The PEM certificate chain for DNS over TLS and HTTPS, read again when it changes (default: the home's, from `pepper dns certificate`).",
            valueName: "file"))
    var tlsCert: String?

    @Option(help: ArgumentHelp("The PEM private key of --tls-cert.", valueName: "file"))
    var tlsKey: String?

    @Option(
        help: ArgumentHelp(
            "A device allowed to ask over DNS over TLS or HTTPS by its name, from anywhere (repeatable).", valueName: "name"),
        transform: { text in
            do {
                return try DNSDeviceName(text)
            } catch {
                throw ValidationError("--device \(text): \(error)")
            }
        })
    var device: [DNSDeviceName] = []

    @Flag(help: "Refuse encrypted queries that do not name a known device (--device, or a group's \"devices\").")
    var refuseUnknownDevices = false

    @Option(help: ArgumentHelp("Queries per second allowed per client address (IPv6: per /64) or device; 0: no limit.", valueName: "qps"))
    var rateLimit: Double = 0

    @Option(help: ArgumentHelp("Queries a client may send at once above --rate-limit (default: twice the rate).", valueName: "n"))
    var rateBurst: Double?

    @Option(help: ArgumentHelp("What queries over the rate limit get: refuse (REFUSED) or drop (no answer).", valueName: "action"))
    var rateLimitAction: ClientRateLimiter.Action = .refuse

    @Option(help: ArgumentHelp("Open TCP, DoT and DoH connections allowed per client address (0: no limit).", valueName: "n"))
    var maxConnectionsPerClient: Int = 100

    @Option(help: ArgumentHelp("Seconds a TCP, DoT or DoH connection may stay without a query before it is closed.", valueName: "s"))
    var idleTimeout: Int = 30

    func validate() throws {
        guard (0...604_800).contains(blockTTL) else { throw ValidationError("--block-ttl must be 0–604800 seconds") }
        guard upstreamTimeout >= 10 else { throw ValidationError("--upstream-timeout must be at least 10 ms") }
        guard cacheSize >= 0 else { throw ValidationError("--cache-size must not be negative") }
        guard (1...86_400).contains(staleTTL) else { throw ValidationError("--stale-ttl must be 1–86400 seconds") }
        guard (0...604_800).contains(maxStale) else { throw ValidationError("--max-stale must be 0–604800 seconds") }
        guard (10...60_000).contains(clientTimeout) else { throw ValidationError("--client-timeout must be 10–60000 ms") }
        if let threads, !(1...64).contains(threads) { throw ValidationError("--threads must be 1–64") }
        guard rateLimit >= 0, rateLimit.isFinite else { throw ValidationError("--rate-limit must not be negative") }
        if let rateBurst, !(rateBurst >= 1 && rateBurst.isFinite) { throw ValidationError("--rate-burst must be at least 1") }
        if rateBurst != nil && rateLimit == 0 { throw ValidationError("--rate-burst needs --rate-limit") }
        guard maxConnectionsPerClient >= 0 else { throw ValidationError("--max-connections-per-client must not be negative") }
        guard (1...3_600).contains(idleTimeout) else { throw ValidationError("--idle-timeout must be 1–3600 seconds") }
        let encrypted = tlsListen != nil || httpsListen != nil
        if encrypted {
            guard let serverName else {
                throw ValidationError("--tls-listen and --https-listen need --server-name (the host name the certificate gives)")
            }
            do {
                _ = try DNSServerName(serverName)
            } catch {
                throw ValidationError("--server-name \(serverName): \(error)")
            }
            guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
            if tlsCert == nil && certificateFiles == nil {
                throw ValidationError(
                    "--tls-listen and --https-listen need --tls-cert FILE and --tls-key FILE, or the home's certificate: "
                        + "`pepper dns certificate --server-name \(serverName)` makes it")
            }
        } else if serverName != nil || tlsCert != nil || tlsKey != nil {
            throw ValidationError("--server-name, --tls-cert and --tls-key are for --tls-listen or --https-listen; give one of them")
        }
        for path in upstreamCA + (groups.map { [$0] } ?? []) + [tlsCert, tlsKey].compactMap({ $0 })
        where !FileManager.default.isReadableFile(atPath: path) {
            throw ValidationError("\(path): no such readable file")
        }
    }

    func run() async throws {
        var upstreams = upstream
        if upstreams.isEmpty { upstreams = Self.systemResolvers(excluding: listen) }
        guard !upstreams.isEmpty else {
            throw CLIError("no upstream: /etc/resolv.conf names none; give --upstream IP[:PORT]")
        }
        // Until the reload trigger runs, a SIGHUP must not end the process.
        ReloadTrigger<String>.ignoreHangUpUntilRunning()
        let logger = Self.logger(level: logLevel)
        let state = try homeOptions.openState()
        let started = Date()
        let endpoint = metrics.map { address in
            MetricsEndpoint(
                host: address.host.description, port: address.port,
                durationBuckets: [DNSServerMetrics.answerDurationName: DNSServerMetrics.answerDurationBuckets], logger: logger)
        }
        let serverMetrics = endpoint.map { DNSServerMetrics(factory: $0.factory, upstreams: upstreams.map(\.description)) }
        let service = try await Self.call {
            try await DNSService.start(
                state: state, sources: try await loadSources(), settings: settings(upstreams: upstreams), logger: logger,
                metrics: serverMetrics, warn: { Terminal.warning($0) })
        }
        let server = service.server

        // One lifecycle: on SIGINT or SIGTERM the services stop in reverse order: the reload
        // trigger, the block page, the DNS server (answering what is in flight), the metrics, and
        // last the query recorder, which writes the final answers' batch.
        var services = service.services
        if let endpoint { services.insert(endpoint, at: services.firstIndex { $0 is DNSServer } ?? 0) }
        let group = ServiceGroup(
            configuration: .init(
                services: services.map { .init(service: $0) }, gracefulShutdownSignals: [.sigterm, .sigint],
                logger: Self.quiet(logger)))

        // The console shows (and checks) the running server.
        let status = DNSServerStatus(
            listen: server.localAddress.description, blockPage: service.blockPage?.localAddress.description,
            groupsFile: groups.map { URL(fileURLWithPath: $0).standardizedFileURL.path }, allowClients: allowClients.map(\.description),
            encrypted: server.encryptedEndpoint, privateCA: privateCA(serving: server.configuration.encrypted))
        if let address = server.tlsAddress ?? server.httpsAddress, !address.host.isLoopback, rateLimit == 0 {
            logger.warning(
                "DNS over TLS or HTTPS answers beyond this machine without --rate-limit: give one if it is reachable from the internet (docs/dns.md)"
            )
        }
        try? status.write(home: state.home)
        defer { DNSServerStatus.remove(home: state.home) }
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            // The ready line waits for the metrics listener, so that scrapers may start with it.
            let metricsPort = await endpoint?.boundPort()
            if endpoint != nil && metricsPort == nil {
                // It could not bind: the group fails with the reason.
                try await tasks.next()
                return
            }
            let seconds = Date().timeIntervalSince(started)
            let shownMetrics = metrics.flatMap { address in
                metricsPort.map { "metrics on http://\(ListenAddress(host: address.host, port: $0))/metrics; " }
            }
            let groupCount = service.groups.count
            // Written at once (not buffered): scripts wait for this line.
            let ready =
                "pepper dns: listening on \(server.localAddress) (UDP, TCP); \(Terminal.count(service.blockedDomains)) blocked domains; "
                + (groupCount == 0 ? "" : "\(groupCount) client group\(groupCount == 1 ? "" : "s"); ")
                + (server.tlsAddress.map { "DNS over TLS on \($0); " } ?? "")
                + (server.httpsAddress.map { address in
                    "DNS over HTTPS on https://\(IPAddress.bracketed(address.host.description)):\(address.port)\(EncryptedDNSEndpoint.dohPath); "
                } ?? "")
                + (service.blockPage.map { "block page on http://\($0.localAddress); " } ?? "") + (shownMetrics ?? "")
                + "upstream \(upstreams.map(\.description).joined(separator: ", ")); ready in \(Terminal.seconds(seconds))\n"
            FileHandle.standardOutput.write(Data(ready.utf8))
            try await tasks.next()
        }
    }

    /// The service's settings from the options.
    private func settings(upstreams: [UpstreamAddress]) -> DNSServiceSettings {
        let configuration = DNSServerConfiguration(
            listen: listen, upstreams: upstreams, access: ClientAccess(allowed: allowClients),
            upstreamTimeout: .milliseconds(Int64(upstreamTimeout)), cacheCapacity: cacheSize, threads: threads ?? System.coreCount,
            trustedCertificates: upstreamCA,
            serveStale: ServeStale(
                enabled: !noServeStale, staleTTL: UInt32(staleTTL), maximumStale: noServeStale ? 0 : UInt32(maxStale),
                clientResponseTimeout: .milliseconds(Int64(clientTimeout))),
            encrypted: encryptedListeners, devices: DeviceAccess(known: Set(device), refuseUnknown: refuseUnknownDevices),
            rateLimit: rateLimit > 0 ? DNSRateLimit(queriesPerSecond: rateLimit, burst: rateBurst, action: rateLimitAction) : nil,
            connectionsPerClient: maxConnectionsPerClient, idleTimeout: .seconds(Int64(idleTimeout)))
        return DNSServiceSettings(
            server: configuration, blockResponse: blockResponse, blockTTL: UInt32(blockTTL), blockPage: blockPage, groupsFile: groups,
            queryLog: !noQueryLog)
    }

    /// The service group's own messages only from warnings up (its starts and stops are
    /// debug-level chatter at `--log-level info`).
    static func quiet(_ logger: Logger) -> Logger {
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .warning)
        return quiet
    }

    /// The DNS-over-TLS and DNS-over-HTTPS listeners asked for, if any.
    private var encryptedListeners: EncryptedListenersConfiguration? {
        guard tlsListen != nil || httpsListen != nil, let serverName,
            let (certificate, key) = tlsCert.flatMap({ certificate in tlsKey.map { (certificate, $0) } })
                ?? certificateFiles.map({ ($0.serverCertificate.path, $0.serverKey.path) })
        else { return nil }
        return EncryptedListenersConfiguration(
            serverName: serverName, tlsListen: tlsListen, httpsListen: httpsListen, certificateFile: certificate, keyFile: key)
    }

    /// The home's certificate and key (`pepper dns certificate`), when both exist.
    private var certificateFiles: DNSCertificateFiles? {
        let files = DNSCertificateFiles(home: homeOptions.pepperHome)
        let manager = FileManager.default
        guard manager.isReadableFile(atPath: files.serverCertificate.path), manager.isReadableFile(atPath: files.serverKey.path) else {
            return nil
        }
        return files
    }

    /// The home's CA certificate when the server serves the home's certificate, which it issued
    /// for `--server-name`: devices must trust it, so their profiles carry it.
    private func privateCA(serving configuration: EncryptedListenersConfiguration?) -> String? {
        guard let configuration, let files = certificateFiles,
            URL(fileURLWithPath: configuration.certificateFile).standardizedFileURL == files.serverCertificate.standardizedFileURL
        else { return nil }
        return files.certificateAuthority(forServer: configuration.serverName)?.path
    }

    /// Runs an action, its failure in this command's words.
    static func call<T>(_ action: () throws -> T) throws -> T {
        do {
            return try action()
        } catch let error as ActionError {
            throw failure(error)
        }
    }

    static func call<T>(_ action: () async throws -> T) async throws -> T {
        do {
            return try await action()
        } catch let error as ActionError {
            throw failure(error)
        }
    }

    /// A group's list the state cannot give gets this command's way to fix it, a bad groups
    /// file the option's name; any other failure is the action's own.
    private static func failure(_ error: ActionError) -> any Error {
        switch error {
        case .groupListUnavailable: return CLIError("\(error) (`pepper lists` shows the lists; `pepper update` downloads them)")
        case .invalidGroups(let path, let problem): return CLIError("--groups \(path): \(problem)")
        default: return error
        }
    }

    private func loadSources() async throws -> [ListInput] {
        var inputs: [ListInput] = []
        for argument in sources { inputs.append(try await Self.call { try await ListInputLoader.load(argument, format: nil) }) }
        return ListInputLoader.uniquelyNamed(inputs)
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

extension BlockResponse: ExpressibleByArgument {}
extension ClientRateLimiter.Action: ExpressibleByArgument {}
extension Logger.Level: @retroactive ExpressibleByArgument {}

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
        let store = DNSQueryLogStore(database: try homeOptions.openState().database)
        let counts = try store.counts()
        let today = DNSQueryLogStore.day(of: Date())
        var stats = Stats(total: [:], today: [:], topBlocked: try store.topBlocked(limit: top))
        var blocked = 0
        for count in counts {
            stats.total[count.outcome.rawValue, default: 0] += count.count
            if count.day == today { stats.today[count.outcome.rawValue, default: 0] += count.count }
            if count.outcome.isBlocked { blocked += count.count }
        }
        if json {
            try Terminal.printJSON(stats)
            return
        }
        let outcomes: [DNSQueryOutcome] = [.blocked, .blockedCNAME, .forwarded, .cached, .stale, .failed, .refused, .malformed]
        print(Terminal.pad("outcome", 16) + Terminal.padLeft("today", 12) + Terminal.padLeft("all", 14))
        for outcome in outcomes.map(\.rawValue) {
            print(
                Terminal.pad(outcome, 16) + Terminal.padLeft(Terminal.count(stats.today[outcome] ?? 0), 12)
                    + Terminal.padLeft(Terminal.count(stats.total[outcome] ?? 0), 14))
        }
        let all = stats.total.values.reduce(0, +)
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
        let entries = try DNSQueryLogStore(database: try homeOptions.openState().database).recent(limit: limit, blockedOnly: blocked)
        if json {
            let encoder = JSONEncoder()
            encoder.dateEncodingStrategy = .internetDateTime
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for entry in entries { print(String(decoding: try encoder.encode(entry), as: UTF8.self)) }
            return
        }
        for entry in entries {
            print(
                [Terminal.date(entry.at), entry.clientShown, entry.type, entry.name, entry.outcome.rawValue, entry.responseCode].joined(
                    separator: "\t"))
        }
    }
}
