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
/// the store as `pending`.
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

    /// A server over `store`.
    public init(
        store: any PicketStore, geocoder: any Geocoder = GazetteerGeocoder(), configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "pepper.picket")
    ) {
        self.store = store
        self.geocoder = geocoder
        self.configuration = configuration
        self.logger = logger
    }

    /// The router with every endpoint (also what the OpenAPI test inspects).
    public func makeRouter() -> Router<BasicRequestContext> {
        let handlers = Handlers(
            store: store, geocoder: geocoder, configuration: configuration,
            cache: ContentCache(store: store, checkInterval: configuration.revisionCheckInterval, radii: .init(), logger: logger),
            limiter: configuration.requestsPerMinute.map { RateLimiter(requestsPerMinute: $0) })
        let router = Router()
        router.add(middleware: JSONErrorMiddleware(knownPaths: Set(Self.routes.map(\.path))))
        router.get("/health") { _, _ in try await handlers.health() }
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
        var httpLogger = logger
        httpLogger.logLevel = max(logger.logLevel, .notice)
        let application = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "pepper-picket"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) },
            logger: httpLogger)
        if handleSignals {
            try await application.runService(gracefulShutdownSignals: [.sigterm, .sigint])
        } else {
            try await application.run()
        }
    }
}
