import ArgumentParser
import Foundation
import Storage

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `pepper-bench console`: every page of `pepper console` over a big state — latency (p50, p99),
/// weight, and the console's memory.
struct ConsoleBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Page latency (p50/p99), page weight and RSS of `pepper console` over a big state.",
        discussion: """
            Seeds a Pepper home with --queries rows in the DNS query log (the last 24 hours,
            20,000 names, 50 clients, a third blocked; hourly and daily counters to match) and
            --decisions call, message and browser decisions, starts the release `pepper console`
            on loopback, signs in with its one-time link and fetches each page once (the
            first, "cold" time is shown apart) and then --requests times, one after the other. Targets (issue 13): every page p99 < 50 ms, the DNS
            page < 100 ms, pages < 100 kB, console RSS < 60 MB. No peer: no comparable local
            console (Pi-hole's or AdGuard Home's) can be built here. With --settle, the pages are
            fetched only that long after the console started (the work it does at start, such as
            counting the DNS screen's top lists, is then done): the steady state apart from the
            first seconds.
            """
    )

    @Option(
        help: """
            Rows in the DNS query log. The DNS server keeps at most 100,000 (it trims the log at \
            every write): the default, ten times that, is a stress case.
            """)
    var queries = 1_000_000
    @Option(help: "Call, message and browser decisions.") var decisions = 100_000
    @Option(help: "Requests per page.") var requests = 200
    @Option(help: ArgumentHelp("Seconds to wait after the console started before the first page.", valueName: "seconds"))
    var settle: Double = 0
    @Option(help: ArgumentHelp("The pepper binary (default: next to pepper-bench).", valueName: "path")) var pepper: String?

    func run() async throws {
        let binary =
            pepper
            ?? URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
            .appendingPathComponent("pepper").path
        guard FileManager.default.isExecutableFile(atPath: binary) else { throw ValidationError("no pepper binary at \(binary)") }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-console-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: home) }

        let seeding = Date()
        try seed(home: PepperHome(url: home))
        print("Seeded \(queries) DNS log rows and \(decisions) decisions in \(Measurement.seconds(Date().timeIntervalSince(seeding)))")
        _ = try Measurement.run(binary, ["compile"], environment: ["PEPPER_HOME": home.path])

        let log = home.appendingPathComponent("console.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let console = Process()
        console.executableURL = URL(fileURLWithPath: binary)
        console.arguments = ["console", "--listen", "127.0.0.1:0"]
        console.environment = ProcessInfo.processInfo.environment.merging(["PEPPER_HOME": home.path]) { $1 }
        console.standardOutput = try FileHandle(forWritingTo: log)
        console.standardError = FileHandle.nullDevice
        try console.run()
        defer {
            kill(console.processIdentifier, SIGKILL)
            console.waitUntilExit()
        }
        var link: String?
        for _ in 0..<300 where link == nil {
            try await Task.sleep(for: .milliseconds(50))
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            link = text.split(separator: "\n").first { $0.hasPrefix("Pepper console: open ") }.map {
                String($0.split(separator: " ").last!)
            }
        }
        guard let link, let base = link.components(separatedBy: "/?").first else { throw ValidationError("the console did not start") }
        let client = Client()
        let cookie = try await client.signIn(link)
        let csrf = try await client.csrf(base + "/lists", cookie: cookie)
        _ = try await client.post(base + "/setup/finish", form: "csrf=\(csrf)", cookie: cookie)
        if settle > 0 { try await Task.sleep(for: .seconds(settle)) }
        let startRSS = Measurement.residentBytes(of: console.processIdentifier)

        print("")
        print("page                     p50 ms   p99 ms     max ms    weight   first ms")
        for (name, path) in [
            ("start", "/"), ("setup", "/setup"), ("lists", "/lists"), ("my rules", "/rules"), ("allowlist", "/allowlist"),
            ("check a URL", "/allowlist?url=https%3A%2F%2Fads.example%2Fa.js"), ("dns", "/dns"), ("dns, blocked only", "/dns?blocked=1"),
            ("dns, search", "/dns?search=name-77"), ("dns, older page", "/dns?before=500000"),
        ] {
            var times: [Double] = []
            var weight = 0
            let cold = DispatchTime.now().uptimeNanoseconds
            _ = try await client.get(base + path, cookie: cookie)
            let first = Double(DispatchTime.now().uptimeNanoseconds - cold) / 1e6
            for _ in 0..<requests {
                let start = DispatchTime.now().uptimeNanoseconds
                let (status, bytes) = try await client.get(base + path, cookie: cookie)
                times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)
                guard status == 200 else { throw ValidationError("\(path) answered \(status)") }
                weight = bytes
            }
            times.sort()
            let p50 = times[times.count / 2]
            let p99 = times[min(times.count - 1, Int(Double(times.count) * 0.99))]
            print(
                Self.pad(name, 22)
                    + String(format: "%8.1f %8.1f %10.1f  %6.1f kB %10.1f", p50, p99, times.last ?? 0, Double(weight) / 1_000, first))
        }
        let rss = Measurement.residentBytes(of: console.processIdentifier)
        let peak = Measurement.highWaterMark(of: console.processIdentifier)
        let anonymous = Self.statusField("RssAnon", pid: console.processIdentifier)
        print("")
        print(
            "console RSS: \(Measurement.megabytes(startRSS)) after start, \(Measurement.megabytes(rss)) after the requests, peak \(Measurement.megabytes(peak))"
        )
        // Most of the RSS is the binary's and Swift's libraries' pages (file-backed, shared).
        print("of which anonymous (the console's own memory): \(Measurement.megabytes(anonymous))")
    }

    /// The big state: DNS log, counters and decisions, written straight through the stores.
    private func seed(home: PepperHome) throws {
        try home.prepare()
        let database = try PepperDatabase(home: home)
        let store = DNSQueryLogStore(database: database, retention: queries * 2)
        let now = Date()
        var generator = SystemRandomNumberGenerator()
        var batch: [DNSQueryLogStore.Entry] = []
        batch.reserveCapacity(100_000)
        var hourly: [Int: [DNSQueryOutcome: Int]] = [:]
        for index in 0..<queries {
            let blocked = index % 3 == 0
            let age = Double(queries - index) * 86_000 / Double(queries)
            let at = now.addingTimeInterval(-age)
            let outcome: DNSQueryOutcome = blocked ? .blocked : (index % 5 == 0 ? .cached : .forwarded)
            hourly[Int(age / 3_600), default: [:]][outcome, default: 0] += 1
            batch.append(
                .init(
                    at: at, client: "192.168.1.\(Int.random(in: 2...51, using: &generator))",
                    name: "name-\(Int.random(in: 0..<20_000, using: &generator)).example", type: index % 4 == 0 ? "AAAA" : "A",
                    outcome: outcome, responseCode: blocked ? "NXDOMAIN" : "NOERROR"))
            if batch.count == 100_000 {
                try store.record(counts: [], entries: batch, now: now)
                batch.removeAll(keepingCapacity: true)
            }
        }
        try store.record(counts: [], entries: batch, now: now)
        for (hoursAgo, counts) in hourly {
            let moment = now.addingTimeInterval(-Double(hoursAgo) * 3_600)
            try store.record(
                counts: counts.map { .init(day: DNSQueryLogStore.day(of: moment), outcome: $0.key, count: $0.value) }, entries: [],
                now: moment)
        }
        let decisionStore = DecisionStore(database: database)
        var decisionBatch: [DecisionStore.Decision] = []
        for index in 0..<decisions {
            let at = now.addingTimeInterval(-Double(index % (7 * 86_400)))
            switch index % 3 {
            case 0:
                decisionBatch.append(
                    .init(
                        domain: .call, subject: "+1206555\(1_000 + index % 9_000)", action: index % 2 == 0 ? .block : .identify,
                        ruleKind: "list", rule: nil, at: at))
            case 1:
                decisionBatch.append(
                    .init(domain: .message, subject: "+1555\(index % 10_000)", action: .junk, ruleKind: "word", rule: "won", at: at))
            default:
                decisionBatch.append(
                    .init(
                        domain: .web, subject: "https://ads\(index % 500).example/a.js", action: .block, ruleKind: "rule",
                        rule: "||ads.example^", at: at))
            }
            if decisionBatch.count == 10_000 {
                try decisionStore.record(decisionBatch)
                decisionBatch.removeAll(keepingCapacity: true)
            }
        }
        try decisionStore.record(decisionBatch)
    }

    /// A `kB` field of `/proc/PID/status`, in bytes.
    static func statusField(_ name: String, pid: pid_t) -> Int {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") { return (Int(line.filter(\.isNumber)) ?? 0) * 1_024 }
        return 0
    }

    static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    /// A client with no cookie jar and no redirects followed.
    final class Client: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
        private lazy var session: URLSession = {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpShouldSetCookies = false
            configuration.httpCookieAcceptPolicy = .never
            return URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
        }()

        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }

        func signIn(_ link: String) async throws -> String {
            let (_, response) = try await session.data(from: URL(string: link)!)
            guard let header = (response as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie"),
                let value = header.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last
            else { throw ValidationError("no session cookie") }
            return String(value)
        }

        func get(_ address: String, cookie: String) async throws -> (Int, Int) {
            var request = URLRequest(url: URL(string: address)!)
            request.setValue("pepper_console=\(cookie)", forHTTPHeaderField: "Cookie")
            let (data, response) = try await session.data(for: request)
            return ((response as? HTTPURLResponse)?.statusCode ?? 0, data.count)
        }

        func csrf(_ address: String, cookie: String) async throws -> String {
            var request = URLRequest(url: URL(string: address)!)
            request.setValue("pepper_console=\(cookie)", forHTTPHeaderField: "Cookie")
            let (data, _) = try await session.data(for: request)
            let html = String(decoding: data, as: UTF8.self)
            guard let range = html.range(of: #"name="csrf" content=""#) else { throw ValidationError("no CSRF token") }
            return String(html[range.upperBound...].prefix { $0 != "\"" })
        }

        func post(_ address: String, form: String, cookie: String) async throws -> Int {
            var request = URLRequest(url: URL(string: address)!)
            request.httpMethod = "POST"
            request.setValue("pepper_console=\(cookie)", forHTTPHeaderField: "Cookie")
            request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(form.utf8)
            let (_, response) = try await session.data(for: request)
            return (response as? HTTPURLResponse)?.statusCode ?? 0
        }
    }
}
