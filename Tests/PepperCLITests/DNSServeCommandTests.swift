import DNSTestSupport
import Foundation
import Testing

/// `pepper dns serve` as a user runs it: the built binary, dig, a dnsmasq upstream, signals.
@Suite("pepper dns serve", .serialized)
struct DNSServeCommandTests {
    static func ready() -> Bool {
        let missing = DNSTools.missing()
        guard !missing.isEmpty else { return true }
        if DNSTools.isRequired {
            Issue.record("\(missing.joined(separator: ", ")) missing (install bind9-dnsutils dnsmasq-base; scripts/test.sh does)")
        } else {
            print("skipped: \(missing.joined(separator: ", ")) not installed (apt-get install bind9-dnsutils dnsmasq-base)")
        }
        return false
    }

    /// A running `pepper dns serve` and where its output goes.
    final class Serve {
        let process: ChildProcess
        let output: URL
        let port: Int

        init(home: URL, arguments: [String], port: Int) throws {
            self.port = port
            output = home.appendingPathComponent("serve.log")
            process = try ChildProcess(
                "/usr/bin/env", ["PEPPER_HOME=\(home.path)", PepperProcess.executable.path, "dns", "serve"] + arguments, output: output.path
            )
        }

        var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

        /// Waits for the ready line; `false` when the process exits or 30 s pass first.
        func waitUntilReady() -> Bool {
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                if log.contains("pepper dns: listening on") { return true }
                if !process.isRunning { return false }
                Thread.sleep(forTimeInterval: 0.05)
            }
            return false
        }
    }

    @Test func blocksForwardsReloadsAndStops() async throws {
        guard Self.ready() else { return }
        let home = TestPaths.temporaryDirectory("dns-serve")
        defer { try? FileManager.default.removeItem(at: home) }
        let upstreamPort = DNSTools.freePort()
        let upstream = try Dnsmasq(port: upstreamPort, arguments: ["--address=/example.test/192.0.2.1", "--address=/later.test/192.0.2.2"])
        defer { upstream.stop() }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n||ads.example.test^\n".write(to: list, atomically: true, encoding: .utf8)
        let port = DNSTools.freePort()
        let serve = try Serve(
            home: home, arguments: ["--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstreamPort)", list.path], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(serve.waitUntilReady(), "\(serve.log)")
        #expect(serve.log.contains("blocked domains"))

        #expect(try Dig.query("tracker.test", port: port).status == "NXDOMAIN")
        #expect(try Dig.query("x.ads.example.test", port: port).status == "NXDOMAIN", "a subdomain of a blocked name")
        #expect(try Dig.query("www.example.test", port: port).data == ["192.0.2.1"], "forwarded")
        #expect(try Dig.query("later.test", port: port).data == ["192.0.2.2"])

        // SIGHUP reads the SOURCE file again.
        try "||tracker.test^\n||later.test^\n".write(to: list, atomically: true, encoding: .utf8)
        kill(serve.process.pid, SIGHUP)
        #expect(await Self.eventually { (try? Dig.query("later.test", port: port).status) == "NXDOMAIN" }, "\(serve.log)")
        #expect(try Dig.query("x.ads.example.test", port: port).data == ["192.0.2.1"], "no longer blocked")

        // `pepper allowlist add` recompiles the state; the server notices by itself.
        let added = try PepperProcess.run(["allowlist", "add", "later.test"], home: home)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(await Self.eventually { (try? Dig.query("later.test", port: port).data) == ["192.0.2.2"] }, "\(serve.log)")
        #expect(serve.log.contains("reloaded"))

        // Two signals, as `timeout` sends (to the process and its group): one clean stop.
        kill(serve.process.pid, SIGTERM)
        kill(serve.process.pid, SIGTERM)
        let status = serve.process.wait()
        #expect(status == 0, "exit status \(status): \(serve.log)")
        #expect(serve.log.contains("stopped"))

        // Every query was counted and logged (the last second's batch is written on stop).
        let stats = try PepperProcess.run(["dns", "stats", "--json"], home: home)
        #expect(stats.status == 0, "\(stats.stderr)")
        let decoded = try JSONSerialization.jsonObject(with: Data(stats.stdout.utf8)) as? [String: Any]
        let total = decoded?["total"] as? [String: Int] ?? [:]
        #expect((total["blocked"] ?? 0) >= 3, "\(stats.stdout)")
        #expect((total["forwarded"] ?? 0) >= 3, "\(stats.stdout)")
        let top = decoded?["topBlocked"] as? [[String: Any]] ?? []
        #expect(top.contains { $0["name"] as? String == "later.test" }, "\(stats.stdout)")
        let blockedLog = try PepperProcess.run(["dns", "log", "--blocked"], home: home)
        #expect(blockedLog.status == 0)
        let lines = blockedLog.stdout.split(separator: "\n")
        #expect(lines.contains { $0.contains("\tA\ttracker.test\tblocked\tNXDOMAIN") }, "\(blockedLog.stdout)")
        #expect(!lines.contains { $0.contains("forwarded") })
        let everything = try PepperProcess.run(["dns", "log", "--limit", "100"], home: home)
        #expect(everything.stdout.contains("www.example.test\tforwarded\tNOERROR"), "\(everything.stdout)")
        let human = try PepperProcess.run(["dns", "stats"], home: home)
        #expect(human.stdout.contains("most blocked"), "\(human.stdout)")
    }

    @Test func badArgumentsAndABusyPortGiveClearErrors() throws {
        let home = TestPaths.temporaryDirectory("dns-errors")
        defer { try? FileManager.default.removeItem(at: home) }
        let badListen = try PepperProcess.run(["dns", "serve", "--listen", "localhost:53", "--upstream", "127.0.0.1"], home: home)
        #expect(badListen.status == 64)
        #expect(badListen.stderr.contains("bad address 'localhost:53'"), "\(badListen.stderr)")
        let badUpstream = try PepperProcess.run(["dns", "serve", "--upstream", "dns.example"], home: home)
        #expect(badUpstream.status == 64)
        #expect(badUpstream.stderr.contains("must be an IP address"), "\(badUpstream.stderr)")
        let badCIDR = try PepperProcess.run(["dns", "serve", "--upstream", "127.0.0.1", "--allow-clients", "10.0.0.0/40"], home: home)
        #expect(badCIDR.status == 64)
        #expect(badCIDR.stderr.contains("prefix length"), "\(badCIDR.stderr)")
        let badResponse = try PepperProcess.run(["dns", "serve", "--upstream", "127.0.0.1", "--block-response", "sinkhole"], home: home)
        #expect(badResponse.status == 64)

        guard Self.ready() else { return }
        let port = DNSTools.freePort()
        let occupant = try Dnsmasq(port: port, arguments: [])
        defer { occupant.stop() }
        let busy = try PepperProcess.run(["dns", "serve", "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:9"], home: home)
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("cannot listen on 127.0.0.1:\(port): address already in use"), "\(busy.stderr)")
        #expect(!busy.stderr.contains("Fatal error"))
    }

    /// Polls `condition` for up to 10 s.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<100 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(100))
        }
        return false
    }
}
