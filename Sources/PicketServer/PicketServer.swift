import CoreMetrics
import Foundation
import Hummingbird
import Logging
import NIOCore
import Picket
import ServiceLifecycle

/// The Online Picket Line API server (`docs/picket.md`): the six mobile endpoints and `/health`,
/// over any ``PicketStore``.
///
/// Every `/api/mobile/*` request needs an `X-API-Key` with the endpoint's scope; keys are
/// checked against an in-memory table of key hashes (refreshed when the store's keys revision
/// moves) and rate-limited per key. `data` and `active-strikes` are served from
/// ``PublishedContent``, rebuilt when the content revision moves; submissions go straight to
/// the store as `pending`. `/api/blocklist.json` serves the same blocklist to the other OPL
/// clients (the OPL DNS server, the browser extension).
public struct PicketServer: Sendable {
    /// Settings.
    public struct Configuration: Sendable, Hashable {
        /// Address to listen on.
        public var host: String
        /// Port (0: any free port; see ``PicketServer/run(onRunning:)``).
        public var port: Int
        /// The largest request body, in bytes (larger: 413).
        public var maximumBodyBytes: Int
        /// Requests per minute per key (`nil`: no limit).
        public var requestsPerMinute: Int?
        /// Seconds between checks of the store's revision.
        public var revisionCheckInterval: Double
        /// The `data` radius when the request gives none, in metres (100 miles).
        public var defaultRadius: Int
        /// The largest `radius` accepted, in metres.
        public var maximumRadius: Int
        /// `suggestedRefreshInterval`, in milliseconds.
        public var suggestedRefreshInterval: Int

        /// Settings with the defaults of `pepper picket serve`.
        public init(
            host: String = "127.0.0.1", port: Int = 8080, maximumBodyBytes: Int = 64 * 1_024, requestsPerMinute: Int? = 600,
            revisionCheckInterval: Double = 1, defaultRadius: Int = 160_934, maximumRadius: Int = 500_000,
            suggestedRefreshInterval: Int = 3_600_000
        ) {
            self.host = host
            self.port = port
            self.maximumBodyBytes = maximumBodyBytes
            self.requestsPerMinute = requestsPerMinute
            self.revisionCheckInterval = revisionCheckInterval
            self.defaultRadius = defaultRadius
            self.maximumRadius = maximumRadius
            self.suggestedRefreshInterval = suggestedRefreshInterval
        }
    }

    /// The routes the server answers, as `(method, path)`; docs/picket-openapi.json lists the same.
    public static let routes: [(method: String, path: String)] = [
        ("GET", "/health"),
        ("GET", "/api/blocklist.json"),
        ("GET", "/api/mobile/data"),
        ("GET", "/api/mobile/active-strikes"),
        ("POST", "/api/mobile/gps-snapshot"),
        ("POST", "/api/mobile/submit-strike"),
        ("POST", "/api/mobile/geocode"),
        ("POST", "/api/mobile/reverse-geocode"),
    ]

    /// The store.
    public let store: any PicketStore
    /// The geocoder behind `geocode` and `reverse-geocode`.
    public let geocoder: any Geocoder
    /// The settings.
    public let configuration: Configuration
    /// The logger.
    public let logger: Logger
    /// Requests, latencies, 304s, the content revision, store errors and rate-limited requests.
    public let metrics: PicketServerMetrics

    /// A server over `store`. `metrics` counts with a swift-metrics factory (none by default;
    /// `pepper picket serve --metrics` gives a Prometheus one).
    public init(
        store: any PicketStore, geocoder: any Geocoder = GazetteerGeocoder(), configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "pepper.picket"), metrics: PicketServerMetrics = PicketServerMetrics()
    ) {
        self.store = store
        self.geocoder = geocoder
        self.configuration = configuration
        self.logger = logger
        self.metrics = metrics
    }

    /// The router with every endpoint (also what the OpenAPI test inspects).
    public func makeRouter() -> Router<BasicRequestContext> {
        makeRouter(handlers: makeHandlers())
    }

    private func makeHandlers() -> Handlers {
        Handlers(
            store: store, geocoder: geocoder, configuration: configuration,
            cache: ContentCache(
                store: store, checkInterval: configuration.revisionCheckInterval, radii: .init(), logger: logger, metrics: metrics),
            limiter: configuration.requestsPerMinute.map { RateLimiter(requestsPerMinute: $0) }, metrics: metrics)
    }

    private func makeRouter(handlers: Handlers) -> Router<BasicRequestContext> {
        let router = Router()
        if metrics.isEnabled { router.add(middleware: MetricsMiddleware(metrics: metrics)) }
        router.add(middleware: JSONErrorMiddleware(knownPaths: Set(Self.routes.map(\.path))))
        router.get("/health") { _, _ in try await handlers.health() }
        router.get("/api/blocklist.json") { request, _ in try await handlers.blocklistFeed(request) }
        router.get("/api/mobile/data") { request, _ in try await handlers.data(request) }
        router.get("/api/mobile/active-strikes") { request, _ in try await handlers.activeStrikes(request) }
        router.post("/api/mobile/gps-snapshot") { request, _ in try await handlers.gpsSnapshot(request) }
        router.post("/api/mobile/submit-strike") { request, _ in try await handlers.submitStrike(request) }
        router.post("/api/mobile/geocode") { request, _ in try await handlers.geocode(request) }
        router.post("/api/mobile/reverse-geocode") { request, _ in try await handlers.reverseGeocode(request) }
        return router
    }

    /// Runs until the task is cancelled or, with `handleSignals`, until SIGINT or SIGTERM, then
    /// shuts down gracefully (requests in flight finish). `onRunning` receives the bound port.
    public func run(handleSignals: Bool = true, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws {
        let application = makeService(onRunning: onRunning)
        if handleSignals {
            try await ServiceGroup(services: [application], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger).run()
        } else {
            try await application.run()
        }
    }

    /// The HTTP server as a `Service`, to run in a `ServiceGroup` after the store's services
    /// (``ServiceGroupStore``) and beside others (the metrics listener): when it runs, it calls
    /// `prepare` (readying the store, loading demo data), publishes the content, then listens
    /// until graceful shutdown, letting requests in flight finish. `onRunning` receives the
    /// bound port.
    public func makeService(
        prepare: @escaping @Sendable () async throws -> Void = {}, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some Service {
        APIService(server: self, prepare: prepare, onRunning: onRunning)
    }

    /// See ``makeService(prepare:onRunning:)``.
    private struct APIService: Service {
        let server: PicketServer
        let prepare: @Sendable () async throws -> Void
        let onRunning: @Sendable (Int) async -> Void

        func run() async throws {
            try await prepare()
            var httpLogger = server.logger
            httpLogger.logLevel = max(server.logger.logLevel, .notice)
            let handlers = server.makeHandlers()
            // Content is published before the port opens: a client's first request (the OPL DNS
            // server keeps its own port closed until its first fetch succeeds) gets a 200 at once.
            // An unreachable store is not fatal: requests try again, and answer 503 meanwhile.
            do {
                _ = try await handlers.cache.current()
            } catch {
                server.logger.error("cannot read the \(server.store.kind) store yet: \(error)")
            }
            let onRunning = self.onRunning
            let application = Application(
                router: server.makeRouter(handlers: handlers),
                configuration: .init(
                    address: .hostname(server.configuration.host, port: server.configuration.port), serverName: "pepper-picket"),
                onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
                logger: httpLogger)
            // On Swift's cooperative threads: nothing here blocks (the stores' reads are GRDB's
            // async ones and PostgresNIO's), and a hop to threads of its own (BlockingWork, as the
            // console does) cost a third of the 304 rate (docs/benchmarks.md).
            try await application.run()
        }
    }
}

/// Closes a store when its `ServiceGroup` shuts down: put it before the servers that use it
/// (``PicketDatabase/openForServiceGroup(_:home:logger:)`` does), so it closes after they stop.
public struct PicketStoreService: Service {
    /// The store.
    public let store: any PicketStore

    /// A service closing `store`.
    public init(store: any PicketStore) {
        self.store = store
    }

    public func run() async throws {
        try? await gracefulShutdown()
        await store.close()
    }
}
