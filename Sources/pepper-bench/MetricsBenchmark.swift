import ArgumentParser
import CoreMetrics
import DNSServer
import Dispatch
import Foundation
import NIOCore
import ServerMetrics

/// `pepper-bench metrics`: what `pepper dns serve --metrics` adds to each answer, in
/// nanoseconds, against the server's whole CPU time per query.
struct MetricsBenchmark: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "metrics",
        abstract: "Time the metrics work of one DNS answer (counters, clock reads, histogram) on two threads.",
        discussion: """
            Each iteration does what the server does for a cached UDP answer with --metrics: two
            clock reads, the cache-lookup counter, the query counter and the latency histogram,
            on the very metrics DNSServerMetrics registers in a Prometheus registry (same labels,
            same buckets). Two threads at once, as the server's two event loops share the
            counters. bench/dns.sh measures the server's CPU per query (about 35 µs here); the
            cost's share is this figure over that one (--server-cpu-microseconds).
            """)

    @Option(help: "Iterations per thread.")
    var iterations = 5_000_000

    @Option(help: "Threads (the server runs one event loop per core).")
    var threads = 2

    @Option(help: ArgumentHelp("The server's CPU time per query without --metrics, from bench/dns.sh.", valueName: "µs"))
    var serverCPUMicroseconds = 35.0

    func run() throws {
        let endpoint = MetricsEndpoint(
            host: "127.0.0.1", port: 0,
            durationBuckets: [DNSServerMetrics.answerDurationName: DNSServerMetrics.answerDurationBuckets])
        // Registers every metric, as the server does at start; the ones below are the same
        // objects (the factory hands out one metric per label and dimensions).
        _ = DNSServerMetrics(factory: endpoint.factory, upstreams: ["127.0.0.1:53"])
        let queries = Counter(
            label: "pepper_dns_queries_total", dimensions: [("outcome", "cached"), ("transport", "udp")], factory: endpoint.factory)
        let lookups = Counter(label: "pepper_dns_cache_lookups_total", dimensions: [("result", "hit")], factory: endpoint.factory)
        let latency = CoreMetrics.Timer(
            label: DNSServerMetrics.answerDurationName, dimensions: [("transport", "udp")], factory: endpoint.factory)
        let iterations = self.iterations
        var rounds: [Double] = []
        for _ in 0..<5 {
            let started = DispatchTime.now().uptimeNanoseconds
            let cpuBefore = Self.processCPUNanoseconds()
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<iterations {
                    let start = NIODeadline.now()
                    lookups.increment()
                    queries.increment()
                    latency.recordNanoseconds((NIODeadline.now() - start).nanoseconds)
                }
            }
            let wall = DispatchTime.now().uptimeNanoseconds - started
            let cpu = Self.processCPUNanoseconds() - cpuBefore
            rounds.append(Double(cpu) / Double(iterations * threads))
            print(
                String(
                    format: "round: %.1f ns CPU per answer (%d threads, %.2f s wall)", rounds.last!, threads, Double(wall) / 1e9))
        }
        let median = Measurement.median(rounds)
        let counted = endpoint.registry.emitToString().contains("pepper_dns_queries_total{outcome=\"cached\",transport=\"udp\"} ")
        print(String(format: "median: %.1f ns CPU per answer", median))
        print(
            String(
                format: "share of the server's %.1f µs CPU per query: %.2f %% (target < 3 %%)%@", serverCPUMicroseconds,
                median / (serverCPUMicroseconds * 1_000) * 100, counted ? "" : " — the registry did not count: check the labels"))
    }

    /// CPU time (user + system) of this process so far.
    static func processCPUNanoseconds() -> UInt64 {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let user = UInt64(usage.ru_utime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_utime.tv_usec) * 1_000
        let system = UInt64(usage.ru_stime.tv_sec) * 1_000_000_000 + UInt64(usage.ru_stime.tv_usec) * 1_000
        return user + system
    }
}
