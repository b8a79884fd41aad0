import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The Online Picket Line API client, as the apps use it: every request carries `X-API-Key`,
/// `data` sends the hash of the payload the client holds so an unchanged payload costs a 304
/// and no body, and errors come back typed (401, 403, 429 with `Retry-After`…).
public struct PicketClient: Sendable {
    /// The server's base URL (`https://opl.example.org`); paths are appended to it.
    public let server: URL
    /// The API key (`opl_` + 64 hex digits).
    public let apiKey: String
    /// The largest response body accepted, in bytes.
    public var maximumResponseBytes: Int
    private let session: SessionBox

    /// A client for `server` with `apiKey`; `timeout` bounds each request.
    public init(server: URL, apiKey: String, timeout: TimeInterval = 30, maximumResponseBytes: Int = 32 * 1_048_576) {
        self.server = server
        self.apiKey = apiKey
        self.maximumResponseBytes = maximumResponseBytes
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.timeoutIntervalForResource = timeout * 4
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = SessionBox(session: URLSession(configuration: configuration))
    }

    /// What `data` answered.
    public enum DataResult: Sendable, Hashable {
        /// 200: a new payload, its `X-Content-Hash` and the body as received.
        case updated(MobileData, hash: String, body: Data)
        /// 304: the payload whose hash was sent is still current.
        case notModified(hash: String)
    }

    /// `GET /api/mobile/data`: the blocklist and the geofences within `radius` metres (server
    /// default: 100 miles) of `position`. With `lastHash`, an unchanged payload is a 304.
    ///
    /// This fetch runs in the background, without the person asking, so `position` is sent
    /// rounded to ``LocationPrecision/background(_:)`` (the area, about 1 km): every caller
    /// gets the rounding, none can forget it.
    public func mobileData(
        at position: GeoCoordinate, radius: Int? = nil, lastHash: String? = nil
    ) async throws(PicketClientError)
        -> DataResult
    {
        let area = LocationPrecision.background(position)
        var query = [
            URLQueryItem(name: "lat", value: Self.format(area.latitude)),
            URLQueryItem(name: "lng", value: Self.format(area.longitude)),
        ]
        if let radius { query.append(URLQueryItem(name: "radius", value: String(radius))) }
        if let lastHash { query.append(URLQueryItem(name: "hash", value: lastHash)) }
        let (data, response) = try await send(path: "/api/mobile/data", query: query)
        let hash = response.value(forHTTPHeaderField: "X-Content-Hash")
        if response.statusCode == 304 { return .notModified(hash: hash ?? lastHash ?? "") }
        let payload: MobileData = try decode(data)
        guard let hash, !hash.isEmpty else { throw .invalidResponse("the 200 response has no X-Content-Hash header") }
        return .updated(payload, hash: hash, body: data)
    }

    /// `GET /api/mobile/active-strikes`.
    public func activeStrikes() async throws(PicketClientError) -> ActiveStrikes {
        let (data, _) = try await send(path: "/api/mobile/active-strikes")
        return try decode(data)
    }

    /// `POST /api/mobile/gps-snapshot`.
    public func submit(_ snapshot: GPSSnapshotSubmission) async throws(PicketClientError) -> SubmissionReceipt {
        let (data, _) = try await send(path: "/api/mobile/gps-snapshot", body: try encode(snapshot))
        return try decode(data)
    }

    /// `POST /api/mobile/submit-strike`.
    public func submit(_ strike: StrikeSubmission) async throws(PicketClientError) -> SubmissionReceipt {
        let (data, _) = try await send(path: "/api/mobile/submit-strike", body: try encode(strike))
        return try decode(data)
    }

    /// `POST /api/mobile/geocode`.
    public func geocode(_ request: GeocodeRequest) async throws(PicketClientError) -> GeocodeResponse {
        let (data, _) = try await send(path: "/api/mobile/geocode", body: try encode(request))
        return try decode(data)
    }

    /// `POST /api/mobile/reverse-geocode`.
    public func reverseGeocode(_ coordinate: GeoCoordinate) async throws(PicketClientError) -> ReverseGeocodeResponse {
        let body = try encode(ReverseGeocodeRequest(latitude: coordinate.latitude, longitude: coordinate.longitude))
        let (data, _) = try await send(path: "/api/mobile/reverse-geocode", body: body)
        return try decode(data)
    }

    /// Sends a request with any method and body and returns the raw answer, errors included
    /// (for tests and tools that need to see every status).
    public func raw(
        method: String, path: String, query: [URLQueryItem] = [], body: Data? = nil, headers: [String: String] = [:],
        includeKey: Bool = true
    ) async throws(PicketClientError) -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: url(path: path, query: query))
        request.httpMethod = method
        request.httpBody = body
        if includeKey { request.setValue(apiKey, forHTTPHeaderField: "X-API-Key") }
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let (data, response) = try await perform(request)
        var fields: [String: String] = [:]
        for (name, value) in response.allHeaderFields {
            if let name = name as? String, let value = value as? String { fields[name.lowercased()] = value }
        }
        return (response.statusCode, fields, data)
    }

    // MARK: Plumbing

    private func url(path: String, query: [URLQueryItem] = []) -> URL {
        var components = URLComponents(url: server, resolvingAgainstBaseURL: false)!
        let base = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.path = base + path
        components.queryItems = query.isEmpty ? nil : query
        return components.url!
    }

    private func send(
        path: String, query: [URLQueryItem] = [], body: Data? = nil
    ) async throws(PicketClientError) -> (Data, HTTPURLResponse) {
        var request = URLRequest(url: url(path: path, query: query))
        request.httpMethod = body == nil ? "GET" : "POST"
        request.setValue(apiKey, forHTTPHeaderField: "X-API-Key")
        request.setValue("application/json", forHTTPHeaderField: "Accept")
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await perform(request)
        switch response.statusCode {
        case 200..<300, 304:
            return (data, response)
        default:
            throw PicketClientError(status: response.statusCode, body: data, retryAfter: response.value(forHTTPHeaderField: "Retry-After"))
        }
    }

    private func perform(_ request: URLRequest) async throws(PicketClientError) -> (Data, HTTPURLResponse) {
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.session.data(for: request)
        } catch let error as URLError {
            throw error.code == .timedOut ? .transport("timed out") : .transport(error.localizedDescription)
        } catch {
            throw .transport(error.localizedDescription)
        }
        guard let http = response as? HTTPURLResponse else { throw .invalidResponse("not an HTTP response") }
        guard data.count <= maximumResponseBytes else {
            throw .invalidResponse("the response is larger than \(maximumResponseBytes) bytes")
        }
        return (data, http)
    }

    private func encode(_ value: some Encodable) throws(PicketClientError) -> Data {
        do {
            return try JSONEncoder().encode(value)
        } catch {
            throw .invalidRequest(String(describing: error))
        }
    }

    private func decode<Value: Decodable>(_ data: Data) throws(PicketClientError) -> Value {
        do {
            return try JSONDecoder().decode(Value.self, from: data)
        } catch {
            throw .invalidResponse("cannot decode \(Value.self): \(error)")
        }
    }

    /// A coordinate as the client writes it in URLs: up to 6 decimals (≈ 0.1 m), no trailing zeros.
    public static func format(_ degrees: Double) -> String {
        var text = String(format: "%.6f", degrees)
        while text.hasSuffix("0") { text.removeLast() }
        if text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }
}

/// URLSession is thread-safe but not declared `Sendable` everywhere Foundation runs.
private final class SessionBox: @unchecked Sendable {
    let session: URLSession

    init(session: URLSession) {
        self.session = session
    }

    deinit {
        session.finishTasksAndInvalidate()
    }
}

/// Why a Picket API request failed.
public enum PicketClientError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 400: the server names the invalid field.
    case badRequest(String)
    /// 401: the key is missing, malformed, unknown or revoked.
    case unauthorized(String)
    /// 403: the key lacks the scope.
    case forbidden(String)
    /// 404: no such endpoint or item.
    case notFound(String)
    /// 413: the request body is too large.
    case payloadTooLarge(String)
    /// 429: too many requests; try again after `retryAfter` seconds.
    case rateLimited(retryAfter: TimeInterval?, message: String)
    /// Another error status.
    case server(status: Int, message: String)
    /// The connection failed or timed out.
    case transport(String)
    /// The server's answer is not what the API promises.
    case invalidResponse(String)
    /// The request could not be encoded.
    case invalidRequest(String)

    init(status: Int, body: Data, retryAfter: String?) {
        let message = (try? JSONDecoder().decode(APIErrorBody.self, from: body))?.error ?? String(decoding: body.prefix(200), as: UTF8.self)
        switch status {
        case 400: self = .badRequest(message)
        case 401: self = .unauthorized(message)
        case 403: self = .forbidden(message)
        case 404: self = .notFound(message)
        case 413: self = .payloadTooLarge(message)
        case 429: self = .rateLimited(retryAfter: retryAfter.flatMap(Self.parseRetryAfter), message: message)
        default: self = .server(status: status, message: message)
        }
    }

    /// `Retry-After` as seconds: an integer, or an HTTP date.
    static func parseRetryAfter(_ value: String) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(trimmed) { return max(0, seconds) }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: trimmed).map { max(0, $0.timeIntervalSinceNow) }
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        switch self {
        case .badRequest: return 400
        case .unauthorized: return 401
        case .forbidden: return 403
        case .notFound: return 404
        case .payloadTooLarge: return 413
        case .rateLimited: return 429
        case .server(let status, _): return status
        case .transport, .invalidResponse, .invalidRequest: return nil
        }
    }

    /// Whether trying again later may succeed.
    public var isTransient: Bool {
        switch self {
        case .rateLimited, .transport: return true
        case .server(let status, _): return status >= 500
        default: return false
        }
    }

    public var description: String {
        switch self {
        case .badRequest(let message): return "bad request: \(message)"
        case .unauthorized(let message): return "unauthorized: \(message)"
        case .forbidden(let message): return "forbidden: \(message)"
        case .notFound(let message): return "not found: \(message)"
        case .payloadTooLarge(let message): return "request too large: \(message)"
        case .rateLimited(let retryAfter, let message):
            return "rate limited: \(message)" + (retryAfter.map { String(format: " (retry after %.0f s)", $0) } ?? "")
        case .server(let status, let message): return "HTTP \(status): \(message)"
        case .transport(let message): return "connection failed: \(message)"
        case .invalidResponse(let message): return "invalid response: \(message)"
        case .invalidRequest(let message): return "invalid request: \(message)"
        }
    }
}
