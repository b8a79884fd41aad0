import AppExtensionSupport
import ArgumentParser
import CallFilter
import DNSFilter
import Foundation
import PepperActions
import Picket
import Storage

/// `pepper-bench extensions`: the peak memory of each iOS extension's work, with its real data
/// sizes, each in a process of its own, beside the memory iOS allows that kind of extension.
struct ExtensionsBenchmark: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extensions",
        abstract:
            "Peak memory of the iOS extensions' work (call directory, message filter, packet tunnel, content filter and its control).",
        discussion: """
            Prepares one app-group container — --numbers blocked numbers, --words message-filter words,
            a Picket list of --employers struck employers under the ask policy — then runs each
            extension's code path as the extension runs it, in a child process of its own, and
            reports the child's peak resident memory (VmHWM) and what it held before the work began.

            The call directory loads every number through CallDirectoryLoad (checkpointed, in chunks
            of 10,000, read-only); the message filter answers --messages messages through
            MessageFilterLoad as the extension does (the rules prepared once per revision, each answer counted in the counts file); the packet
            tunnel answers --queries queries through TunnelPacketPump and DNSTunnel, half about struck
            employers; the content filter judges --queries flows through ContentFilterJudge; its control
            provider fetches the Picket list from a loopback server (python3's http.server, serving the
            same --employers payload) through FilterControl, stores it, and answers the data provider's
            question about each employer (the notifications are not shown).

            On Linux the figures include the Swift runtime and Foundation, which iOS shares between
            processes; the growth column is the work's own share, and the open-only row shows what
            opening the shared database alone costs. docs/benchmarks.md has the limits and their
            sources.
            """
    )

    @Option(help: "Blocked numbers in the call directory.") var numbers = 2_000_000
    @Option(help: "Message-filter words.") var words = 10_000
    @Option(help: "Messages classified.") var messages = 1_000
    @Option(help: "Struck employers in the Picket list.") var employers = 1_000
    @Option(help: "Queries the tunnel answers, and flows the content filter judges.") var queries = 10_000

    func run() async throws {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("pepper-bench-extensions-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: work) }
        let container = AppGroupContainer(url: work)
        let setup = try Measurement.time { try prepare(container) }
        // The Picket server the filter control provider fetches from: the same payload, on loopback.
        let server = try PicketPayloadServer(container: container)
        defer { server.stop() }
        try server.pointListSource(container: container)
        print("Extensions: \(numbers) numbers, \(words) words, \(employers) struck employers (setup \(Measurement.seconds(setup)))")
        print("  extension        work                                   seconds   at start   peak RSS   growth")
        for kind in ExtensionWork.Kind.allCases {
            let run = try Measurement.run(
                CommandLine.arguments[0],
                ["extension-work", kind.rawValue, work.path, "--messages", "\(messages)", "--queries", "\(queries)"])
            guard run.status == 0 else {
                print("  \(kind.rawValue): failed (\(run.status)): \(run.stderr.suffix(400))")
                continue
            }
            let fields = Measurement.keyValues(run.stdout)
            let start = Int(fields["start"] ?? "") ?? 0
            let work = fields["work"]?.replacingOccurrences(of: "_", with: " ") ?? ""
            print(
                "  \(kind.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0)) \(work.padding(toLength: 38, withPad: " ", startingAt: 0)) "
                    + "\(fields["seconds"] ?? "?")   \(Measurement.megabytes(start))   \(Measurement.megabytes(run.peakResidentBytes))   "
                    + Measurement.megabytes(max(0, run.peakResidentBytes - start)))
        }
    }

    /// The shared container the app would have written.
    private func prepare(_ container: AppGroupContainer) throws {
        try container.home.prepare()
        let database = try PepperDatabase(home: container.home)
        var generator = SplitMix(seed: 20_261_126)
        var seen = Set<Int64>(minimumCapacity: numbers)
        var entries: [CallDirectoryEntry] = []
        entries.reserveCapacity(numbers)
        while seen.count < numbers {
            let number = 10_000_000_000 + Int64(generator.next(below: 800) + 200) * 10_000_000 + Int64(generator.next(below: 10_000_000))
            if seen.insert(number).inserted { entries.append(CallDirectoryEntry(number: number)) }
        }
        _ = try CallListStore(database: database).replace(.blocking, with: entries)
        let rules = MessageRuleStore(database: database)
        for index in 0..<words {
            _ = try rules.addWord(WordRule(word: "offer\(index)", action: .junk))
        }
        var urls: [BlocklistEntry] = []
        for index in 0..<employers {
            for domain in ["employer\(index).example", "shop-employer\(index).example"] {
                urls.append(
                    BlocklistEntry(
                        url: domain, employer: "Employer \(index)", employerId: "emp_\(index)", actionType: "strike",
                        actionId: "act_\(index)"))
            }
        }
        let data = MobileData(
            version: "1.0", generatedAt: "2026-11-26T00:00:00.000Z", suggestedRefreshInterval: 3_600_000,
            cachedRegion: CachedRegion(center: Coordinates(lat: 0, lng: 0), radiusMeters: 160_934, refreshThresholdMeters: 128_747),
            geofences: GeofenceCollection(total: 0, byEmployer: [], all: []),
            blocklist: Blocklist(totalUrls: urls.count, totalEmployers: employers, urls: urls))
        try JSONEncoder().encode(data).write(to: container.home.listsURL.appendingPathComponent("picket-bench"))
        _ = try ListSourceStore(database: database).insert(
            ListSource(name: "picket-bench", location: "picket:https://picket.example", format: "picket"))
        try PicketPolicyStore(database: database).setPolicy(.ask)
    }
}

/// `pepper-bench extension-work KIND CONTAINER`: one extension's work, in this process (run by
/// `pepper-bench extensions`, which measures the process).
struct ExtensionWork: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension-work", abstract: "One extension's work (run by `pepper-bench extensions`).", shouldDisplay: false)

    enum Kind: String, CaseIterable, ExpressibleByArgument {
        /// Only opening the shared database read-only and reading one row: what every extension
        /// pays before its own work (SQLite, GRDB, on Linux also Foundation's ICU data).
        case openOnly = "open-only"
        case callDirectory = "call-directory"
        case messageFilter = "message-filter"
        case packetTunnel = "packet-tunnel"
        case contentFilter = "content-filter"
        case filterControl = "filter-control"
    }

    @Argument var kind: Kind
    @Argument var container: String
    @Option var messages = 1_000
    @Option var queries = 10_000

    func run() async throws {
        let container = AppGroupContainer(url: URL(fileURLWithPath: container))
        let start = Measurement.residentBytes()
        let began = DispatchTime.now().uptimeNanoseconds
        let work: String
        switch kind {
        case .openOnly:
            let database = try PepperDatabase(readingOnly: container.databaseURL)
            let words = try MessageRuleStore(database: database).words().count
            work = "database opened, \(words) words counted"
        case .callDirectory:
            let context = CountingContext()
            guard case .success = CallDirectoryLoad(container: container).run(into: context) else { throw ExitCode(2) }
            work = "\(context.blocking) numbers loaded"
        case .messageFilter:
            // As the extension answers: the process's filter, counted in its file.
            var junk = 0
            var slowest: UInt64 = 0
            for index in 0..<messages {
                let query = MessageFilterQuery(
                    sender: "+1206555\(String(format: "%04d", index))", messageBody: "A special offer\(index * 7 % 10_000) for you",
                    receiverISOCountryCode: "US")
                let asked = DispatchTime.now().uptimeNanoseconds
                if MessageFilterLoad.answer(query, locating: { container }).action == .junk { junk += 1 }
                slowest = max(slowest, DispatchTime.now().uptimeNanoseconds - asked)
            }
            let prepared = MessageFilterLoad.shared(container).preparations
            let counted = (try? MessageFilterCounts.read(from: container.messageFilterCountsURL))??.total ?? 0
            work = "\(messages) messages, \(junk) junk, prepared \(prepared)x, slowest \(slowest / 1_000_000) ms, counted \(counted)"
        case .packetTunnel:
            let tunnel = DNSTunnel(container: container, configuration: .init(upstream: InstantUpstream()), notifier: SilentAsker())
            let packets = (0..<queries).map { index -> Data in
                let name = index.isMultiple(of: 2) ? "www.employer\(index % 1_000).example" : "site\(index).example.org"
                let message = DNSMessage(
                    header: DNSHeader(id: UInt16(truncatingIfNeeded: index), flags: DNSFlags(rawValue: 0x0100)),
                    questions: [DNSQuestion(name: try! DNSName(name), type: .a)])
                return Data(
                    UDPPacket(
                        version: .v4, source: IPAddress(ipv4: 198, 18, 0, 1), destination: TunnelAddresses.pepper.resolverIPv4,
                        sourcePort: 40_000, destinationPort: 53, payload: message.encoded()
                    ).encoded())
            }
            let batches = PacketBatches(packets, size: 64)
            let answered = AnswerCount()
            await TunnelPacketPump().run(tunnel: tunnel, read: { batches.next() }, write: { _ in answered.add() })
            work = "\(answered.count) of \(queries) queries answered"
        case .contentFilter:
            let judge = ContentFilterJudge(container: container, ownBundleIdentifier: "org.pepper.Pepper")
            var dropped = 0
            for index in 0..<queries {
                let host = index.isMultiple(of: 2) ? "www.employer\(index % 1_000).example" : "site\(index).example.org"
                if case .drop = judge.verdict(for: .init(host: host, url: nil, sourceApp: "T.com.example.app")) { dropped += 1 }
            }
            work = "\(queries) flows, \(dropped) dropped"
        case .filterControl:
            // Its key from the shared preferences (the Keychain's place on Linux): the work is the same.
            let control = FilterControl(
                container: container, ownBundleIdentifier: "org.pepper.Pepper", notifier: SilentAsker(), picketKeys: nil)
            guard case .changed = await control.refresh() else { throw ExitCode(3) }
            var asked = 0
            for index in 0..<1_000 {
                let flow = ContentFilterJudge.Flow(host: "www.employer\(index).example", url: nil, sourceApp: "T.com.example.app")
                if control.decide(flow) == .drop { asked += 1 }
            }
            work = "list fetched, \(asked) questions"
        }
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
        print("start=\(start) seconds=\(String(format: "%.2f", seconds)) work=\(work.replacingOccurrences(of: " ", with: "_"))")
    }
}

/// A loopback HTTP server (python3's http.server) answering `GET /api/mobile/data` with the
/// prepared Picket payload and its hash, and `GET /api/mobile/active-strikes` with none, as a
/// Picket server would: what the filter control provider fetches.
private final class PicketPayloadServer {
    let port: Int
    private let process: Process

    init(container: AppGroupContainer) throws {
        let payload = container.home.listsURL.appendingPathComponent("picket-bench").path
        let script = """
            import hashlib, http.server, sys
            body = open(sys.argv[1], 'rb').read()
            digest = hashlib.sha256(body).hexdigest()
            class Handler(http.server.BaseHTTPRequestHandler):
                def log_message(self, *args): pass
                def do_GET(self):
                    data = body if self.path.startswith('/api/mobile/data') else b'{"strikes":[],"total":0}'
                    self.send_response(200)
                    self.send_header('Content-Type', 'application/json')
                    self.send_header('X-Content-Hash', digest)
                    self.send_header('Content-Length', str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
            server = http.server.ThreadingHTTPServer(('127.0.0.1', 0), Handler)
            print(server.server_address[1], flush=True)
            server.serve_forever()
            """
        process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script, payload]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(0x0A) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        guard let port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) else {
            kill(process.processIdentifier, SIGKILL)
            throw ValidationError("python3 could not serve the Picket payload")
        }
        self.port = port
    }

    /// Points the prepared Picket list source at this server (the stored copy stays), its key in
    /// the key store the filter control reads on Linux (the shared preferences).
    func pointListSource(container: AppGroupContainer) throws {
        let database = try PepperDatabase(home: container.home)
        let store = ListSourceStore(database: database)
        guard var source = try store.source(named: "picket-bench") else { throw ValidationError("the prepared list is missing") }
        source.location = "picket:http://127.0.0.1:\(port)"
        try store.update(source)
        try PreferencePicketKeyStore(database: database).setKey("opl_" + String(repeating: "0", count: 64), for: .listSource(source.name))
    }

    func stop() {
        // SIGKILL, not terminate(): the child inherits the Swift runtime's blocked SIGTERM.
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}

/// An upstream that answers every query at once (the benchmark measures the tunnel, not a network).
private struct InstantUpstream: DNSUpstream {
    func resolve(_ query: [UInt8]) async throws -> [UInt8] {
        let message = try DNSMessage(decoding: query)
        var response = DNSMessage.response(to: message)
        response.answers = [.a(message.questions[0].name, IPAddress(ipv4: 192, 0, 2, 80), ttl: 300)]
        return response.encoded()
    }
}

private struct SilentAsker: PicketAskNotifier {
    func ask(_ notification: PicketAskNotification) {}
}

/// The tunnel interface's packets, handed out in batches as `readPackets` does.
private final class PacketBatches: @unchecked Sendable {
    private let lock = NSLock()
    private var remaining: ArraySlice<Data>
    private let size: Int

    init(_ packets: [Data], size: Int) {
        remaining = packets[...]
        self.size = size
    }

    func next() -> [Data]? {
        lock.withLock {
            guard !remaining.isEmpty else { return nil }
            let batch = Array(remaining.prefix(size))
            remaining = remaining.dropFirst(size)
            return batch
        }
    }
}

private final class AnswerCount: @unchecked Sendable {
    private let lock = NSLock()
    private var answered = 0

    func add() { lock.withLock { answered += 1 } }
    var count: Int { lock.withLock { answered } }
}
