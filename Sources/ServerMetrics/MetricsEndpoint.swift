import CoreMetrics
import Foundation
import Hummingbird
import Logging
import Prometheus
import ServiceLifecycle

/// `GET /metrics` in the Prometheus text format, on an address of its own (`--metrics`), so a
/// scraper never shares a port, a rate limit or an access list with the clients a server
/// answers.
///
/// The servers count with swift-metrics types made by ``factory``; this endpoint writes what
/// ``registry`` holds at each scrape. Run it as a `Service` in the server's `ServiceGroup`.
public struct MetricsEndpoint: Service {
    /// Where the metrics live.
    public let registry: PrometheusCollectorRegistry
    /// The swift-metrics factory the servers make their counters with (writing to ``registry``).
    public let factory: PrometheusMetricsFactory
    /// The address to listen on.
    public let host: String
    /// The port (0: any free port; see ``boundPort()``).
    public let port: Int
    private let bound: AsyncStream<Int>
    private let announce: AsyncStream<Int>.Continuation
    private let logger: Logger

    /// An endpoint on `host:port`. `durationBuckets` gives histogram buckets per metric name
    /// (each server knows the range of its own latencies); others get Prometheus's defaults.
    public init(
        host: String, port: Int, durationBuckets: [String: [Duration]] = [:], logger: Logger = Logger(label: "pepper.metrics")
    ) {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = durationBuckets
        self.registry = registry
        self.factory = factory
        self.host = host
        self.port = port
        (bound, announce) = AsyncStream.makeStream(of: Int.self, bufferingPolicy: .bufferingNewest(1))
        var quiet = logger
        quiet.logLevel = max(logger.logLevel, .notice)
        self.logger = quiet
    }

    /// The content type of the text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The router: `GET /metrics`, and 404 for anything else.
    public func makeRouter() -> Router<BasicRequestContext> {
        let registry = self.registry
        let router = Router()
        router.get("/metrics") { _, _ -> Response in
            var headers = HTTPFields()
            headers[.contentType] = Self.contentType
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: registry.emitToBuffer())))
        }
        return router
    }

    /// The port the listener bound, once it has; `nil` when ``run()`` ended without binding (the
    /// address was taken: the service group then fails with that error). Ask it once.
    public func boundPort() async -> Int? {
        for await port in bound { return port }
        return nil
    }

    /// Serves until the service group shuts down (gracefully) or the task is cancelled.
    public func run() async throws {
        let announce = self.announce
        defer { announce.finish() }
        let application = Application(
            router: makeRouter(), configuration: .init(address: .hostname(host, port: port), serverName: "pepper-metrics"),
            onServerRunning: { channel in
                announce.yield(channel.localAddress?.port ?? 0)
                announce.finish()
            }, logger: logger)
        try await application.run()
    }
}
