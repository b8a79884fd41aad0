import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdCore
import NIOCore
import Picket

/// The endpoints' logic: authentication, rate limiting, validation, and the answers.
struct Handlers: Sendable {
    let store: any PicketStore
    let geocoder: any Geocoder
    let configuration: PicketServer.Configuration
    let cache: ContentCache
    let limiter: RateLimiter?
    let metrics: PicketServerMetrics

    static let apiKeyField = HTTPField.Name("X-API-Key")!
    static let contentHashField = HTTPField.Name("X-Content-Hash")!
    static let retryAfterField = HTTPField.Name("Retry-After")!

    // MARK: Endpoints

    func health() async throws -> Response {
        var writer = JSONWriter()
        writer.raw("{")
        writer.key("status")
        writer.string("ok")
        writer.raw(",")
        writer.key("store")
        writer.string(store.kind)
        writer.raw("}")
        return json(writer.bytes)
    }

    func data(_ request: Request) async throws -> Response {
        let content = try await authorize(request, scope: .readMobile)
        let parameters = request.uri.queryParameters
        let latitude = try queryNumber(parameters, "lat", in: -90...90)
        let longitude = try queryNumber(parameters, "lng", in: -180...180)
        var radius = configuration.defaultRadius
        if let text = parameters["radius"].map(String.init) {
            guard let value = Int(text), (100...configuration.maximumRadius).contains(value) else {
                throw APIError(.badRequest, "radius must be an integer number of metres between 100 and \(configuration.maximumRadius)")
            }
            radius = value
        }
        let known = try Self.knownHash(request, parameters)

        // The centre is rounded to 0.01° (about 1 km): the same neighbourhood gets the same
        // payload and hash, so the hourly refresh at home is a 304, and the server never echoes a
        // precise position.
        let region = PublishedContent.RegionKey(latitude: latitude, longitude: longitude, radius: radius)
        if let known {
            // A client with a hash is most likely up to date: its region's hash is a lookup.
            let tag = content.tag(for: region)
            metrics.conditional(route: "/api/mobile/data", notModified: known == tag.hash)
            if known == tag.hash { return Response(status: .notModified, headers: Self.contentHeaders(tag)) }
        }
        let center = region.center
        let selection = content.select(center: center.geoCoordinate, radius: Double(radius))
        let tag = content.tag(for: region, selection: selection)
        let body = content.renderData(
            center: center, radius: radius, refreshThreshold: Int((Double(radius) * 0.8).rounded()),
            suggestedRefreshInterval: configuration.suggestedRefreshInterval, selection: selection)
        return json(body, headers: Self.contentHeaders(tag))
    }

    /// `GET /api/blocklist.json`: the finished body of the content revision, or 304.
    func blocklistFeed(_ request: Request) async throws -> Response {
        let content = try await authorize(request, scopes: [.readBlocklist, .readMobile])
        let known = try Self.knownHash(request, request.uri.queryParameters)
        let feed = content.blocklistFeed
        if let known { metrics.conditional(route: "/api/blocklist.json", notModified: known == feed.hash) }
        var headers = HTTPFields()
        headers[Self.contentHashField] = feed.hash
        headers[.eTag] = "\"\(feed.hash)\""
        headers[.cacheControl] = "private, no-cache"
        if known == feed.hash { return Response(status: .notModified, headers: headers) }
        headers[.contentType] = "application/json; charset=utf-8"
        // The buffer is shared, not copied: a 200 costs what a 304 does plus the write.
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: feed.body))
    }

    func activeStrikes(_ request: Request) async throws -> Response {
        let content = try await authorize(request, scope: .readMobile)
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: content.activeStrikesBody))
    }

    func gpsSnapshot(_ request: Request) async throws -> Response {
        let content = try await authorize(request, scope: .writeGPSSnapshot)
        let fields = try await body(request)
        let snapshot: SnapshotRecord
        do {
            let actionId = try fields.string("actionId", required: true, maximumLength: 64)!
            let coordinate = try fields.coordinate()!
            let address = try fields.string("address", maximumLength: 500)
            let notes = try fields.string("notes", maximumLength: 2_000)
            guard content.currentActionIDs.contains(actionId) else {
                throw APIError(.notFound, "actionId \(actionId) is not an active strike (see /api/mobile/active-strikes)")
            }
            snapshot = SnapshotRecord(id: PicketID.make("snap"), actionId: actionId, coordinate: coordinate, address: address, notes: notes)
        } catch let error as FieldError {
            throw APIError(.badRequest, error.message)
        }
        try await write { try await store.insertSnapshot(snapshot) }
        return try encoded(SubmissionReceipt(message: "Snapshot submitted for moderation", id: snapshot.id), status: .created)
    }

    func submitStrike(_ request: Request) async throws -> Response {
        _ = try await authorize(request, scope: .writeSubmitStrike)
        let fields = try await body(request)
        let now = Date()
        let employer: EmployerRecord
        let action: ActionRecord
        do {
            let employerFields = try fields.object("employer", required: true)!
            let actionFields = try fields.object("action", required: true)!
            let website = try employerFields.url("website")
            employer = EmployerRecord(
                id: PicketID.make("emp"), name: try employerFields.string("name", required: true, maximumLength: 200)!,
                industry: try employerFields.string("industry", maximumLength: 100), website: website, status: .pending, createdAt: now)
            let organization = try actionFields.string("organization", required: true, maximumLength: 200)!
            let actionType = try actionFields.choice("actionType", required: true, as: ActionType.self)!
            let location = try actionFields.string("location", required: true, maximumLength: 500)!
            let startDate = try actionFields.date("startDate", required: true, now: now)!
            let durationDays = try actionFields.integer("durationDays", in: 0...3_650)
            let description = try actionFields.string("description", required: true, maximumLength: 5_000)!
            let demands = try actionFields.string("demands", maximumLength: 5_000)
            let contactInfo = try actionFields.string("contactInfo", maximumLength: 500)
            let learnMoreUrl = try actionFields.url("learnMoreUrl")
            let coordinate = try actionFields.object("coordinates")?.coordinate()
            let endDate = durationDays.flatMap { $0 > 0 ? startDate.addingTimeInterval(Double($0) * 86_400) : nil }
            action = ActionRecord(
                id: PicketID.make("act"), employerId: employer.id, organization: organization, actionType: actionType.rawValue,
                location: location, startDate: startDate, endDate: endDate, durationDays: durationDays, description: description,
                demands: demands, contactInfo: contactInfo, moreInfoUrl: learnMoreUrl, coordinate: coordinate, status: .pending,
                origin: "submission", submittedAt: now)
        } catch let error as FieldError {
            throw APIError(.badRequest, error.message)
        }
        _ = try await write { try await store.insertStrikeSubmission(employer: employer, action: action) }
        return try encoded(SubmissionReceipt(message: "Submitted for moderation", id: action.id), status: .created)
    }

    func geocode(_ request: Request) async throws -> Response {
        _ = try await authorize(request, scope: .readMobile)
        let fields = try await body(request)
        let query: GeocodeRequest
        do {
            query = GeocodeRequest(
                address: try fields.string("address", maximumLength: 500), street: try fields.string("street", maximumLength: 200),
                city: try fields.string("city", maximumLength: 100), state: try fields.string("state", maximumLength: 100),
                zipCode: try fields.string("zipCode", maximumLength: 20))
        } catch let error as FieldError {
            throw APIError(.badRequest, error.message)
        }
        guard query.address != nil || query.city != nil else { throw APIError(.badRequest, "address or city is required") }
        let result = try await geocoder.geocode(query)
        return try encoded(GeocodeResponse(success: result != nil, input: query.singleLine, result: result))
    }

    func reverseGeocode(_ request: Request) async throws -> Response {
        _ = try await authorize(request, scope: .readMobile)
        let fields = try await body(request)
        let coordinate: GeoCoordinate
        do {
            coordinate = try fields.coordinate()!
        } catch let error as FieldError {
            throw APIError(.badRequest, error.message)
        }
        let result = try await geocoder.reverseGeocode(coordinate)
        let input = GPSCoordinates(latitude: coordinate.latitude, longitude: coordinate.longitude)
        return try encoded(ReverseGeocodeResponse(success: result != nil, input: input, result: result))
    }

    // MARK: Authentication and limits

    /// Checks the key and its scope, then the rate limit; returns the published content.
    private func authorize(_ request: Request, scope: APIScope) async throws -> PublishedContent {
        try await authorize(request, scopes: [scope])
    }

    /// Checks the key and that it has one of `scopes`, then the rate limit.
    private func authorize(_ request: Request, scopes wanted: [APIScope]) async throws -> PublishedContent {
        guard let key = request.headers[Self.apiKeyField] else {
            throw APIError(.unauthorized, "missing X-API-Key header")
        }
        guard APIKeyFormat.isWellFormed(key) else {
            throw APIError(.unauthorized, "malformed X-API-Key: expected opl_ followed by 64 hexadecimal characters")
        }
        let content: PublishedContent
        let keys: KeyTable
        do {
            (content, keys) = try await cache.current()
        } catch {
            // Nothing published yet and the store unreachable (logged and counted by the cache).
            var headers = HTTPFields()
            headers[Self.retryAfterField] = String(Self.storeRetryAfter)
            throw APIError(
                .serviceUnavailable, "the \(store.kind) store cannot be read right now; retry after \(Self.storeRetryAfter) s",
                headers: headers)
        }
        switch keys.lookup(key) {
        case .unknown:
            throw APIError(.unauthorized, "unknown API key")
        case .revoked:
            throw APIError(.unauthorized, "this API key has been revoked")
        case .valid(let id, let scopes):
            guard wanted.contains(where: scopes.contains) else {
                throw APIError(.forbidden, "this API key lacks the \(wanted.map(\.rawValue).joined(separator: " or ")) scope")
            }
            if let limiter, case .limited(let retryAfter) = limiter.take(key: id) {
                metrics.rateLimited()
                var headers = HTTPFields()
                headers[Self.retryAfterField] = String(retryAfter)
                throw APIError(
                    .tooManyRequests,
                    "rate limit of \(limiter.requestsPerMinute) requests per minute exceeded; retry after \(retryAfter) s",
                    headers: headers)
            }
            return content
        }
    }

    // MARK: Plumbing

    /// Seconds a client is asked to wait before sending again what the store could not take.
    static let storeRetryAfter = 5

    /// Why a write was given up.
    struct StoreTimeout: Error {}

    /// A store write, given up (cancelled) after ``StoreHealth/wait``: 10 s while the store
    /// answers, 1 s once it failed (PostgreSQL's client waits for a connection as long as the
    /// server is down, and a client must not wait that long). When it fails or is given up
    /// nothing was stored, and the client is told so with 503 and `Retry-After`, never a 2xx;
    /// the failure is counted. The store's client reconnects by itself, so a later attempt
    /// succeeds without restarting the server.
    private func write<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) async throws -> T {
        do {
            // A local store (SQLite) answers or fails at once: written inline, on the request's
            // own executor, as before.
            if store.kind == "sqlite" { return try await body() }
            let writing = Task { try await body() }
            guard let outcome = await Deadline.value(of: writing, within: cache.health.wait) else {
                // Cancelled while it waits for a connection, the write never reaches the store.
                writing.cancel()
                throw StoreTimeout()
            }
            let value = try outcome.get()
            cache.health.succeeded()
            return value
        } catch let error as APIError {
            throw error
        } catch {
            metrics.storeError(refreshing: false)
            cache.health.failed()
            var headers = HTTPFields()
            headers[Self.retryAfterField] = String(Self.storeRetryAfter)
            throw APIError(
                .serviceUnavailable,
                "the \(store.kind) store cannot take submissions right now; nothing was stored; retry after \(Self.storeRetryAfter) s",
                headers: headers)
        }
    }

    private func body(_ request: Request) async throws -> FieldReader {
        let limit = configuration.maximumBodyBytes
        if let length = request.headers[.contentLength].flatMap({ Int($0) }), length > limit {
            throw APIError(.contentTooLarge, "the request body is larger than \(limit) bytes")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: limit)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the request body is larger than \(limit) bytes")
        }
        guard buffer.readableBytes > 0 else { throw APIError(.badRequest, "the body must be a JSON object") }
        let value: JSONValue
        do {
            value = try JSONDecoder().decode(JSONValue.self, from: Data(buffer.readableBytesView))
        } catch {
            throw APIError(.badRequest, "the body is not valid JSON")
        }
        do {
            return try FieldReader(value)
        } catch let error as FieldError {
            throw APIError(.badRequest, error.message)
        }
    }

    private func queryNumber(
        _ parameters: FlatDictionary<Substring, Substring>, _ name: String, in range: ClosedRange<Double>
    ) throws -> Double {
        guard let text = parameters[Substring(name)], !text.isEmpty else { throw APIError(.badRequest, "\(name) is required") }
        guard let value = Double(text), value.isFinite else { throw APIError(.badRequest, "\(name) must be a number") }
        guard range.contains(value) else {
            throw APIError(.badRequest, "\(name) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound))")
        }
        return value
    }

    /// A JSON response. Bodies end with a newline, so `curl` output reads well in a terminal
    /// (JSON allows the whitespace; decoders ignore it).
    private func json(_ bytes: [UInt8], status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        var buffer = ByteBuffer()
        buffer.reserveCapacity(bytes.count + 1)
        buffer.writeBytes(bytes)
        buffer.writeInteger(UInt8(ascii: "\n"))
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: buffer))
    }

    private func encoded(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return json(Array(try encoder.encode(value)), status: status)
    }

    /// `X-Content-Hash`, `ETag` and `Cache-Control` of a `data` answer.
    static func contentHeaders(_ tag: PublishedContent.RegionTag) -> HTTPFields {
        var headers = HTTPFields()
        headers.reserveCapacity(4)
        headers[contentHashField] = tag.hash
        headers[.eTag] = tag.entityTag
        headers[.cacheControl] = "private, no-cache"
        return headers
    }

    /// The hash a client already has: `hash=` (400 when it is not 64 hex digits), else an
    /// `If-None-Match` entity tag.
    static func knownHash(_ request: Request, _ parameters: FlatDictionary<Substring, Substring>) throws -> String? {
        if let text = parameters["hash"], !text.isEmpty {
            guard isHash(text) else { throw APIError(.badRequest, "hash must be 64 hexadecimal characters") }
            return text.lowercased()
        }
        return request.headers[.ifNoneMatch].flatMap(entityTag)
    }

    static func isHash(_ text: Substring.SubSequence) -> Bool {
        text.utf8.count == 64
            && text.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
    }

    static func isHash(_ text: String) -> Bool { isHash(Substring(text)) }

    /// The hash in an `If-None-Match` value (`"…"`, `W/"…"` or bare).
    static func entityTag(_ header: String) -> String? {
        var tag = Substring(header.trimmingCharacters(in: .whitespaces))
        if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
        if tag.hasPrefix("\"") && tag.hasSuffix("\"") && tag.count >= 2 { tag = tag.dropFirst().dropLast() }
        return isHash(tag) ? tag.lowercased() : nil
    }
}
