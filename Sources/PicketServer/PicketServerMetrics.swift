import CoreMetrics
import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// What `pepper picket serve --metrics` exposes (names and meanings in docs/metrics.md), made
/// through the given swift-metrics factory (no-op by default).
public final class PicketServerMetrics: Sendable {
    /// The latency histogram's name.
    public static let requestDurationName = "pepper_picket_request_duration_seconds"
    /// Its buckets: a 304 takes tens of microseconds, a full `data` body a few milliseconds, a
    /// submission one store write.
    public static let requestDurationBuckets: [Duration] = [
        .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2.5), .milliseconds(5),
        .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .milliseconds(500),
        .seconds(1), .seconds(2.5),
    ]

    /// The `route` label of requests that matched no route (kept to one value, so scanners
    /// cannot grow the label set).
    public static let unmatchedRoute = "unmatched"

    /// The `method` label's values; any other method counts as `other` (so requests cannot
    /// grow the label set either).
    static let methods = ["GET", "POST", "HEAD", "PUT", "DELETE", "PATCH", "OPTIONS"]

    /// Whether anything is counted (the factory is not the no-op one): without metrics, the
    /// server adds no middleware at all.
    public let isEnabled: Bool
    private let factory: any MetricsFactory
    /// Route positions, ``unmatchedRoute`` last.
    private let routeIndex: [String: Int]
    private let routeNames: [String]
    /// Request counters by route, method and status, packed into one integer key; made at the
    /// first request of each combination.
    private let requests = NIOLockedValueBox<[Int: Counter]>([:])
    private let durations: [CoreMetrics.Timer]
    private let conditionalHits: [String: Counter]
    private let conditionalMisses: [String: Counter]
    private let revision: Gauge
    private let refreshErrors: Counter
    private let writeErrors: Counter
    private let limited: Counter

    /// Metrics made by `factory` for `routes` (the paths the server answers).
    public init(factory: any MetricsFactory = NOOPMetricsHandler.instance, routes: [String] = PicketServer.routes.map(\.path)) {
        self.factory = factory
        isEnabled = !(factory is NOOPMetricsHandler)
        routeNames = routes + [Self.unmatchedRoute]
        routeIndex = Dictionary(routeNames.enumerated().map { ($0.element, $0.offset) }, uniquingKeysWith: { first, _ in first })
        durations = routeNames.map { route in
            CoreMetrics.Timer(label: Self.requestDurationName, dimensions: [("route", route)], factory: factory)
        }
        var hits: [String: Counter] = [:]
        var misses: [String: Counter] = [:]
        for route in ["/api/mobile/data", "/api/blocklist.json"] {
            hits[route] = Counter(
                label: "pepper_picket_conditional_requests_total", dimensions: [("route", route), ("result", "not_modified")],
                factory: factory)
            misses[route] = Counter(
                label: "pepper_picket_conditional_requests_total", dimensions: [("route", route), ("result", "modified")], factory: factory)
        }
        conditionalHits = hits
        conditionalMisses = misses
        revision = Gauge(label: "pepper_picket_content_revision", factory: factory)
        refreshErrors = Counter(label: "pepper_picket_store_errors_total", dimensions: [("operation", "refresh")], factory: factory)
        writeErrors = Counter(label: "pepper_picket_store_errors_total", dimensions: [("operation", "write")], factory: factory)
        limited = Counter(label: "pepper_picket_rate_limited_requests_total", factory: factory)
    }

    /// One request answered: counted by route, method and status, timed by route.
    func request(route: String?, method: String, status: Int, nanoseconds: Int64) {
        let routePosition = route.flatMap { routeIndex[$0] } ?? routeNames.count - 1
        let methodPosition = Self.methods.firstIndex(of: method) ?? Self.methods.count
        let key = (routePosition << 20) | (methodPosition << 12) | (status & 0xFFF)
        let counter = requests.withLockedValue { counters in
            if let counter = counters[key] { return counter }
            let counter = Counter(
                label: "pepper_picket_requests_total",
                dimensions: [
                    ("route", routeNames[routePosition]), ("method", Self.methods.indices.contains(methodPosition) ? method : "other"),
                    ("status", String(status)),
                ], factory: factory)
            counters[key] = counter
            return counter
        }
        counter.increment()
        durations[routePosition].recordNanoseconds(nanoseconds)
    }

    /// A request that sent the hash it holds: answered 304 (`notModified`) or with a new body.
    func conditional(route: String, notModified: Bool) {
        (notModified ? conditionalHits : conditionalMisses)[route]?.increment()
    }

    /// The content revision now served.
    func contentRevision(_ value: Int64) {
        revision.record(value)
    }

    /// The store could not be read (the last content keeps being served) or written (the
    /// request failed with 500).
    func storeError(refreshing: Bool) {
        (refreshing ? refreshErrors : writeErrors).increment()
    }

    /// A request refused with 429.
    func rateLimited() {
        limited.increment()
    }
}

/// Counts and times every request, errors included (outside ``JSONErrorMiddleware``, so it
/// sees the status the client gets).
struct MetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: PicketServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = DispatchTime.now().uptimeNanoseconds
        func record(_ status: Int) {
            metrics.request(
                route: context.endpointPath, method: request.method.rawValue, status: status,
                nanoseconds: Int64(DispatchTime.now().uptimeNanoseconds - start))
        }
        do {
            let response = try await next(request, context)
            record(response.status.code)
            return response
        } catch let error as any HTTPResponseError {
            record(error.status.code)
            throw error
        } catch {
            record(500)
            throw error
        }
    }
}
