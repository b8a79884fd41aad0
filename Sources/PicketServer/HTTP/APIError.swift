import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// An error answered as `{"error": "message"}` (`docs/picket.md`), with extra headers when needed
/// (`Retry-After` on 429).
struct APIError: Error, HTTPResponseError, CustomStringConvertible {
    let status: HTTPResponse.Status
    let message: String
    var headers: HTTPFields = [:]

    init(_ status: HTTPResponse.Status, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var writer = JSONWriter(capacity: message.utf8.count + 16)
        writer.raw("{")
        writer.key("error")
        writer.string(message)
        writer.raw("}\n")
        var fields = headers
        fields[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: writer.bytes)))
    }

    var description: String { "\(status.code) \(message)" }
}

/// Answers every error as JSON: the router's 404 (405 when the path exists with another
/// method), body limits (413), and anything unexpected (500, logged, without details).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let knownPaths: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as HTTPError {
            if error.status == .notFound {
                if knownPaths.contains(request.uri.path) {
                    throw APIError(.methodNotAllowed, "\(request.method.rawValue) is not allowed on \(request.uri.path)")
                }
                throw APIError(.notFound, "no such endpoint: \(request.uri.path)")
            }
            throw APIError(error.status, error.body ?? error.status.reasonPhrase, headers: error.headers)
        } catch is NIOTooManyBytesError {
            throw APIError(.contentTooLarge, "the request body is too large")
        } catch let error as HTTPResponseError {
            throw APIError(error.status, error.status.reasonPhrase)
        } catch {
            context.logger.error("unexpected error on \(request.method.rawValue) \(request.uri.path): \(error)")
            throw APIError(.internalServerError, "internal server error")
        }
    }
}
