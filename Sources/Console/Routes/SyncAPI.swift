import DeviceSync
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import PepperActions

/// `/sync/v1`: Pepper-to-Pepper sync with the person's other devices (`docs/sync.md`), served
/// beside the console's pages under its TLS. JSON in and out; devices authenticate with the key
/// they got when pairing (`Authorization: Bearer KEY`), not with a console session, and every
/// refusal is a 4xx (or 503) with `{"error": "…"}` that changed nothing.
struct SyncAPI: Sendable {
    static let path: RouterPath = "/sync/v1"
    /// The serving side of the home's sync.
    let server: SyncServer
    /// The largest body taken: a full batch of the largest records, with room for JSON.
    static let maximumBodyBytes = 24 * 1_048_576

    func routes() -> RouteCollection<ConsoleContext> {
        let routes = RouteCollection(context: ConsoleContext.self)
        routes.post("pair") { request, _ in
            await Self.answer {
                let body: SyncPairingRequest = try await Self.decode(request)
                return try await server.pair(body)
            }
        }
        routes.post("exchange") { request, _ in
            await Self.answer {
                _ = try await server.device(for: Self.key(request))
                let body: SyncRequest = try await Self.decode(request)
                return try await server.exchange(body, key: Self.key(request))
            }
        }
        routes.get("wait") { request, _ in
            await Self.answer {
                guard let text = request.uri.queryParameters["after"], let after = UInt64(String(text)) else {
                    throw SyncServerError(status: 400, reason: "give ?after=N, the change number the device has")
                }
                return try await server.wait(after: after, key: Self.key(request))
            }
        }
        return routes
    }

    /// The bearer key of `request`, if it has one.
    static func key(_ request: Request) -> String? {
        guard let value = request.headers[.authorization], value.hasPrefix("Bearer ") else { return nil }
        return String(value.dropFirst("Bearer ".count)).trimmingCharacters(in: .whitespaces)
    }

    /// The request's JSON body as `T`, or a 4xx saying why not.
    static func decode<T: Decodable>(_ request: Request) async throws -> T {
        guard request.headers[.contentType]?.lowercased().hasPrefix("application/json") == true else {
            throw SyncServerError(status: 415, reason: "send JSON (Content-Type: application/json)")
        }
        var request = request
        let body: ByteBuffer
        do {
            body = try await request.collectBody(upTo: maximumBodyBytes)
        } catch {
            throw SyncServerError(status: 413, reason: "the request is larger than the \(maximumBodyBytes / 1_048_576) MB taken")
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch {
            throw SyncServerError(status: 400, reason: "the request is not the JSON sync expects: \(Self.words(of: error))")
        }
    }

    /// A decoding error in a few words, without Foundation's whole description.
    static func words(of error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "\(key.stringValue) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.codingPath.map(\.stringValue).joined(separator: ".")) has the wrong type"
        default: return "\(error)"
        }
    }

    /// `work`'s answer as JSON, or its refusal as a JSON error.
    static func answer(_ work: () async throws -> some Encodable) async -> Response {
        do {
            return json(.ok, try await work())
        } catch let error as SyncServerError {
            return json(HTTPResponse.Status(code: error.status), SyncErrorBody(error: error.reason))
        } catch {
            return json(.internalServerError, SyncErrorBody(error: "\(error)"))
        }
    }

    static func json(_ status: HTTPResponse.Status, _ value: some Encodable) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
