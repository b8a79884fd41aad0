import DeviceSync
import Foundation
import NIOCore
import NIOHTTP1

/// A ``SyncHTTPRequest`` as HTTP/1.1 puts it on the wire, checked first: a method, path or
/// header that would let a value break out of its line is refused before anything is sent.
struct HTTPRequestParts: Sendable {
    /// The request line and headers.
    let head: HTTPRequestHead
    /// The body, if any.
    let body: ByteBuffer?

    /// The parts of `request` for `address`. The client writes `Host`, `Content-Length` and
    /// `Connection` itself (a value the request carries for them is replaced): it alone knows
    /// the server, the body's length and that it closes the connection after one answer.
    ///
    /// - Throws: ``SyncHTTPError/cannotConnect(_:reason:)`` naming what is not valid HTTP
    ///   (nothing was sent; the seam has no case of its own for a request Pepper built wrong).
    init(_ request: SyncHTTPRequest, address: SyncServerAddress) throws(SyncHTTPError) {
        func refuse(_ what: String) -> SyncHTTPError {
            .cannotConnect(address.authority, reason: "the request is not valid HTTP (\(what)); nothing was sent")
        }
        guard Self.isToken(request.method) else { throw refuse("method \(request.method.debugDescription)") }
        guard request.path.hasPrefix("/"), request.path.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F }) else {
            throw refuse("path \(request.path.debugDescription)")
        }
        let owned: Set<String> = ["host", "content-length", "connection", "transfer-encoding"]
        var headers = HTTPHeaders([("Host", address.hostHeader)])
        for (name, value) in request.headers.sorted(by: { $0.key < $1.key }) {
            guard Self.isToken(name) else { throw refuse("header name \(name.debugDescription)") }
            guard value.unicodeScalars.allSatisfy({ $0 == "\t" || ($0.value >= 0x20 && $0.value != 0x7F) }) else {
                throw refuse("the value of header \(name)")
            }
            if !owned.contains(name.lowercased()) { headers.add(name: name, value: value) }
        }
        let method = HTTPMethod(rawValue: request.method)
        // A GET without a body carries no Content-Length (RFC 9110 §8.6); every other request
        // states its length, even 0, so the server never waits for a body that is not coming.
        if request.body != nil || (method != .GET && method != .HEAD) {
            headers.add(name: "Content-Length", value: String(request.body?.count ?? 0))
        }
        // One request per connection: simple, and nothing can be left half-read on a reused one.
        headers.add(name: "Connection", value: "close")
        head = HTTPRequestHead(version: .http1_1, method: method, uri: request.path, headers: headers)
        body = request.body.map { ByteBuffer(bytes: $0) }
    }

    /// RFC 9110's token: what a method or a header name may be made of.
    private static func isToken(_ text: String) -> Bool {
        !text.isEmpty
            && text.unicodeScalars.allSatisfy { scalar in
                scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "!#$%&'*+-.^_`|~".unicodeScalars.contains(scalar))
            }
    }
}
