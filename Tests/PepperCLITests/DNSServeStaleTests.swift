import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

/// Every upstream unreachable, then back: `pepper dns serve` keeps answering the names it has
/// cached (serve-stale, RFC 8767: TTL 30 s), answers the others SERVFAIL within the client
/// response timer, blocks as before, and recovers by itself when the upstream returns. A real
/// dnsmasq is the upstream; it is stopped and started again on the same port.
@Suite("pepper dns serve: upstreams down, then back", .serialized)
struct DNSServeStaleTests {
    /// Asks until `condition` holds or `timeout` passes; returns the last answer and when it came.
    static func poll(
        _ name: String, port: Int, timeout: TimeInterval = 20, until condition: (DigAnswer) -> Bool
    ) async throws -> (answer: DigAnswer, after: TimeInterval) {
        let started = Date()
        var last = try await Dig.query(name, port: port, extra: ["+time=3"])
        while !condition(last) && Date().timeIntervalSince(started) < timeout {
            try await Task.sleep(for: .milliseconds(50))
            last = try await Dig.query(name, port: port, extra: ["+time=3"])
        }
        return (last, Date().timeIntervalSince(started))
    }

    static func ttl(_ answer: DigAnswer) -> Int? {
        answer.answers.first.flatMap { $0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first.flatMap { Int($0) } }
    }

    @Test(DNSTools.trait(), .timeLimit(.minutes(3)))
    func cachedNamesAreServedStaleOthersFailFastAndItRecovers() async throws {
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        try await Self.outage()
    }

    static func outage() async throws {
        let home = TestPaths.temporaryDirectory("dns-stale")
        defer { try? FileManager.default.removeItem(at: home) }
        // Answers live one second, so they are soon stale.
        let records = ["--address=/example.test/192.0.2.1", "--local-ttl=1"]
        var upstream: Dnsmasq? = try await Dnsmasq(arguments: records)
        let upstreamPort = upstream!.port
        defer { upstream?.stop() }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n".write(to: list, atomically: true, encoding: .utf8)
        let port = DNSTools.freePort()
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstreamPort)", "--upstream-timeout", "500", "--no-query-log",
                list.path,
            ], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")

        // Cached while the upstream runs.
        #expect(try await Dig.query("cached.example.test", port: port).data == ["192.0.2.1"])
        upstream?.stop()
        upstream = nil

        // The cached name, once expired, is answered stale: its record, TTL 30.
        let stale = try await poll("cached.example.test", port: port) { ttl($0) == 30 }
        #expect(stale.answer.status == "NOERROR" && stale.answer.data == ["192.0.2.1"] && ttl(stale.answer) == 30, "\(stale.answer.output)")
        // Then at once, without waiting for the upstream again.
        let started = Date()
        let again = try await Dig.query("cached.example.test", port: port)
        #expect(again.data == ["192.0.2.1"] && Date().timeIntervalSince(started) < 0.5, "\(Date().timeIntervalSince(started)) s")
        // A name never cached: SERVFAIL within the client response timer (1.8 s), not a hang.
        let missStarted = Date()
        let miss = try await Dig.query("never.example.test", port: port, extra: ["+time=5"])
        let missTook = Date().timeIntervalSince(missStarted)
        #expect(miss.status == "SERVFAIL", "\(miss.output)")
        #expect(missTook < 2.5, "SERVFAIL after \(missTook) s")
        // Blocked names need no upstream.
        let blockedStarted = Date()
        #expect(try await Dig.query("ads.tracker.test", port: port).status == "NXDOMAIN")
        #expect(Date().timeIntervalSince(blockedStarted) < 0.5)

        // The upstream comes back on the same port: new names resolve, and the stale one is
        // refreshed (its TTL is the upstream's again) within seconds.
        upstream = try await Dnsmasq(port: upstreamPort, arguments: records)
        let back = Date()
        let fresh = try await poll("new.example.test", port: port) { $0.data == ["192.0.2.1"] }
        #expect(fresh.answer.data == ["192.0.2.1"], "\(fresh.answer.output)")
        let refreshed = try await poll("cached.example.test", port: port) { ttl($0).map { $0 <= 1 } ?? false }
        #expect(ttl(refreshed.answer).map { $0 <= 1 } == true, "\(refreshed.answer.output)")
        let recovered = Date().timeIntervalSince(back)
        #expect(recovered < 5, "recovered \(recovered) s after the upstream returned")
        print(
            "serve-stale: SERVFAIL for an uncached name after \(String(format: "%.2f", missTook)) s; recovered \(String(format: "%.2f", recovered)) s after the upstream returned"
        )
    }

    @Test(DNSTools.trait()) func withoutServeStaleExpiredNamesFail() async throws {
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        let home = TestPaths.temporaryDirectory("dns-no-stale")
        defer { try? FileManager.default.removeItem(at: home) }
        let upstream = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1", "--local-ttl=1"])
        let port = DNSTools.freePort()
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstream.port)", "--no-serve-stale", "--client-timeout",
                "800", "--no-query-log",
            ], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        #expect(try await Dig.query("cached.example.test", port: port).data == ["192.0.2.1"])
        upstream.stop()
        let failed = try await Self.poll("cached.example.test", port: port) { $0.status == "SERVFAIL" }
        #expect(failed.answer.status == "SERVFAIL", "\(failed.answer.output)")
    }
}
