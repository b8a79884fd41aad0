import DNSTestSupport
import Foundation
import PepperTestSupport
import Testing

/// `pepper dns serve --metrics` scraped during real `dig` traffic, and its graceful stop.
@Suite("pepper dns serve: metrics and lifecycle", .serialized)
struct DNSServeLifecycleTests {
    /// Samples of a Prometheus text scrape: `name{labels}` → value.
    struct Scrape {
        let samples: [String: Double]
        let contentType: String

        init?(port: Int) async {
            guard let response = await RawHTTP.get(port: port, host: "127.0.0.1", path: "/metrics"),
                let split = response.range(of: "\r\n\r\n")
            else { return nil }
            let head = response[..<split.lowerBound].lowercased()
            contentType =
                head.split(separator: "\r\n").first { $0.hasPrefix("content-type:") }.map {
                    String($0.dropFirst("content-type:".count)).trimmingCharacters(in: .whitespaces)
                } ?? ""
            var samples: [String: Double] = [:]
            for line in response[split.upperBound...].split(separator: "\n") where !line.hasPrefix("#") {
                guard let space = line.lastIndex(of: " "), let value = Double(line[line.index(after: space)...]) else { continue }
                samples[String(line[..<space])] = value
            }
            self.samples = samples
        }

        subscript(_ sample: String) -> Double? { samples[sample] }
    }

    static func metricsPort(in log: String) -> Int? {
        guard let range = log.range(of: #"metrics on http://127\.0\.0\.1:[0-9]+/metrics"#, options: .regularExpression) else { return nil }
        return Int(log[range].split(separator: ":").last!.dropLast("/metrics".count))
    }

    @Test(DNSTools.trait()) func metricsCountEveryQueryExactly() async throws {
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        let home = TestPaths.temporaryDirectory("dns-metrics")
        defer { try? FileManager.default.removeItem(at: home) }
        // Local records with a TTL, so that the forwarded answers may be cached.
        let upstream = try await Dnsmasq(arguments: ["--address=/example.test/192.0.2.1", "--local-ttl=300"])
        defer { upstream.stop() }
        let list = home.appendingPathComponent("mine.txt")
        try "||tracker.test^\n||ads.test^\n".write(to: list, atomically: true, encoding: .utf8)
        let port = DNSTools.freePort()
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstream.port)", "--metrics", "127.0.0.1:0", "--no-query-log",
                list.path,
            ], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        let metricsPort = try #require(Self.metricsPort(in: serve.log), "\(serve.log)")
        let before = try #require(await Scrape(port: metricsPort))
        #expect(before.contentType.hasPrefix("text/plain; version=0.0.4"))
        #expect(before[#"pepper_dns_blocked_domains"#] == 2)
        #expect(before[#"pepper_dns_queries_total{outcome="blocked",transport="udp"}"#] == 0)

        for _ in 0..<3 { #expect(try await Dig.query("tracker.test", port: port).status == "NXDOMAIN") }
        #expect(try await Dig.query("x.ads.test", port: port, extra: ["+tcp"]).status == "NXDOMAIN")
        #expect(try await Dig.query("a.example.test", port: port).data == ["192.0.2.1"])
        #expect(try await Dig.query("a.example.test", port: port).data == ["192.0.2.1"], "the second time from the cache")
        #expect(try await Dig.query("b.example.test", port: port, extra: ["+tcp"]).data == ["192.0.2.1"])

        let after = try #require(await Scrape(port: metricsPort))
        let expected: [String: Double] = [
            #"pepper_dns_queries_total{outcome="blocked",transport="udp"}"#: 3,
            #"pepper_dns_queries_total{outcome="blocked",transport="tcp"}"#: 1,
            #"pepper_dns_queries_total{outcome="forwarded",transport="udp"}"#: 1,
            #"pepper_dns_queries_total{outcome="cached",transport="udp"}"#: 1,
            #"pepper_dns_queries_total{outcome="forwarded",transport="tcp"}"#: 1,
            #"pepper_dns_queries_total{outcome="servfail",transport="udp"}"#: 0,
            #"pepper_dns_cache_lookups_total{result="miss"}"#: 2,
            #"pepper_dns_cache_lookups_total{result="hit"}"#: 1,
            #"pepper_dns_cache_entries"#: 2,
            #"pepper_dns_answer_duration_seconds_count{transport="udp"}"#: 5,
            #"pepper_dns_answer_duration_seconds_count{transport="tcp"}"#: 2,
            #"pepper_dns_upstream_errors_total{upstream="127.0.0.1:\#(upstream.port)"}"#: 0,
        ]
        for (sample, value) in expected { #expect(after[sample] == value, "\(sample)") }
        // Every answer took less than a second (they are local), and the buckets add up.
        #expect(after[#"pepper_dns_answer_duration_seconds_bucket{transport="udp",le="1.0"}"#] == 5)
        #expect((after[#"pepper_dns_answer_duration_seconds_sum{transport="udp"}"#] ?? 99) < 5)

        // A reload is counted, with the rules it loaded.
        try "||tracker.test^\n".write(to: list, atomically: true, encoding: .utf8)
        kill(serve.process.pid, SIGHUP)
        #expect(
            await DNSServeCommandTests.eventually {
                await Scrape(port: metricsPort)?[#"pepper_dns_list_reloads_total{result="success"}"#] == 1
            }, "\(serve.log)")
        #expect(await Scrape(port: metricsPort)?["pepper_dns_blocked_domains"] == 1)
        kill(serve.process.pid, SIGTERM)
        #expect(await serve.process.exited() == 0, "\(serve.log)")
    }

    @Test(DNSTools.trait()) func upstreamErrorsAreCountedByUpstream() async throws {
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        let home = TestPaths.temporaryDirectory("dns-metrics-errors")
        defer { try? FileManager.default.removeItem(at: home) }
        // Port 9 (discard) on loopback answers nothing: every attempt times out.
        let port = DNSTools.freePort()
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: [
                "--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:9", "--upstream-timeout", "200", "--metrics", "127.0.0.1:0",
                "--no-query-log",
            ], port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")
        let metricsPort = try #require(Self.metricsPort(in: serve.log))
        #expect(try await Dig.query("nowhere.test", port: port, extra: ["+time=3", "+tries=1"]).status == "SERVFAIL")
        let scrape = try #require(await Scrape(port: metricsPort))
        // One upstream, asked twice (every query gets at least two attempts).
        #expect(scrape[#"pepper_dns_upstream_errors_total{upstream="127.0.0.1:9"}"#] == 2)
        #expect(scrape[#"pepper_dns_queries_total{outcome="servfail",transport="udp"}"#] == 1)
        kill(serve.process.pid, SIGTERM)
        #expect(await serve.process.exited() == 0, "\(serve.log)")
    }

    /// An upstream that answers every A query with 192.0.2.9 after `delay` seconds; prints its
    /// port, then `query` for each query it gets.
    static let slowUpstream = #"""
        import socket, sys, threading, time
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1], flush=True)
        def answer(data, address):
            time.sleep(float(sys.argv[1]))
            end = 12
            while data[end] != 0:
                end += data[end] + 1
            end += 5
            header = data[:2] + b"\x81\x80" + b"\x00\x01\x00\x01\x00\x00\x00\x00"
            record = b"\xc0\x0c\x00\x01\x00\x01\x00\x00\x00\x3c\x00\x04\xc0\x00\x02\x09"
            s.sendto(header + data[12:end] + record, address)
        while True:
            data, address = s.recvfrom(4096)
            print("query", flush=True)
            threading.Thread(target=answer, args=(data, address), daemon=True).start()
        """#

    @Test(DNSTools.trait()) func sigtermAnswersQueriesInFlightAndWritesTheQueryLog() async throws {
        try #require(DNSTools.ready(), "dig and dnsmasq are needed")
        let home = TestPaths.temporaryDirectory("dns-graceful")
        defer { try? FileManager.default.removeItem(at: home) }
        let upstreamLog = home.appendingPathComponent("upstream.log")
        let upstream = try ChildProcess("/usr/bin/env", ["python3", "-u", "-c", Self.slowUpstream, "1.5"], output: upstreamLog.path)
        defer { upstream.stop(SIGKILL) }
        func upstreamOutput() -> [Substring] {
            ((try? String(contentsOf: upstreamLog, encoding: .utf8)) ?? "").split(separator: "\n")
        }
        #expect(await DNSServeCommandTests.eventually { upstreamOutput().first.flatMap { Int($0) } != nil })
        let upstreamPort = try #require(upstreamOutput().first.flatMap { Int($0) })
        let port = DNSTools.freePort()
        let serve = try DNSServeCommandTests.Serve(
            home: home,
            arguments: ["--listen", "127.0.0.1:\(port)", "--upstream", "127.0.0.1:\(upstreamPort)", "--upstream-timeout", "5000"],
            port: port)
        defer { serve.process.stop(SIGKILL) }
        #expect(await serve.waitUntilReady(), "\(serve.log)")

        let digOutput = home.appendingPathComponent("dig.out")
        let dig = try ChildProcess(
            try #require(DNSTools.path("dig")), ["@127.0.0.1", "-p", "\(port)", "slow.test", "+tries=1", "+time=8"], output: digOutput.path)
        // The query is at the upstream, which answers 1.5 s later: stop the server now.
        #expect(await DNSServeCommandTests.eventually { upstreamOutput().contains("query") })
        let stopAsked = Date()
        kill(serve.process.pid, SIGTERM)
        await dig.exited()
        let answer = (try? String(contentsOf: digOutput, encoding: .utf8)) ?? ""
        #expect(answer.contains("status: NOERROR"), "\(answer)\n\(serve.log)")
        #expect(answer.contains("192.0.2.9"), "the answer in flight was sent: \(answer)")
        #expect(await serve.process.exited() == 0, "\(serve.log)")
        #expect(Date().timeIntervalSince(stopAsked) < 5, "it stops once the answer is out, not after the whole timeout")
        #expect(serve.log.contains("stopped"))

        // The query log holds the answer given while stopping.
        let log = try await PepperProcess.run(["dns", "log", "--limit", "10"], home: home)
        #expect(log.stdout.contains("slow.test\tforwarded\tNOERROR"), "\(log.stdout)\(log.stderr)")
    }
}
