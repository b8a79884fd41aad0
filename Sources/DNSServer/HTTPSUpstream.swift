import AsyncHTTPClient
import DNSFilter
import NIOCore
import NIOHTTP1
import NIOSSL

/// A DNS-over-HTTPS upstream (RFC 8484): each query is a `POST` of the DNS message to the
/// endpoint, `application/dns-message` both ways. async-http-client keeps the connections
/// open and speaks HTTP/2 when the server offers it, so queries share one connection.
final class HTTPSUpstream: Sendable {
    /// The endpoint URL, for logs and errors.
    let label: String
    private let client: HTTPClient
    private let timeout: TimeAmount

    /// A client for `url`, on the server's threads, trusting what `tls` trusts.
    init(url: String, tls: TLSConfiguration, group: EventLoopGroup, timeout: TimeAmount) {
        self.label = url
        self.timeout = timeout
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: .init(connect: timeout, read: timeout))
        configuration.httpVersion = .automatic
        self.client = HTTPClient(eventLoopGroupProvider: .shared(group), configuration: configuration)
    }

    /// Sends `query` with ID 0 (RFC 8484 §4.1: the ID is not needed over HTTP, and 0 lets
    /// HTTP caches share answers) and returns the answer to its question.
    func send(_ query: DNSMessage, on eventLoop: EventLoop) -> EventLoopFuture<DNSMessage> {
        var message = query
        message.header.id = 0
        let request: HTTPClient.Request
        do {
            request = try HTTPClient.Request(
                url: label, method: .POST,
                headers: ["content-type": DNSOverHTTPS.mediaType, "accept": DNSOverHTTPS.mediaType],
                body: .bytes(message.encoded()))
        } catch {
            return eventLoop.makeFailedFuture(UpstreamError.connection(label, "\(error)"))
        }
        let label = self.label
        let question = query.questions[0]
        return client.execute(
            request: request, eventLoop: .delegateAndChannel(on: eventLoop), deadline: .now() + timeout
        ).flatMapThrowing { response -> DNSMessage in
            // The packet tunnel's upstream takes the same answers (one check for both).
            do {
                try DNSOverHTTPS.check(
                    status: Int(response.status.code), contentType: response.headers.first(name: "content-type"),
                    bodySize: response.body?.readableBytes ?? 0)
            } catch DNSUpstreamError.status {
                throw UpstreamError.connection(label, "HTTP \(response.status.code) \(response.status.reasonPhrase)")
            } catch {
                throw UpstreamError.connection(label, "\(error)")
            }
            guard let body = response.body,
                let answer = try? body.withUnsafeReadableBytes({ raw in try DNSMessage(decoding: raw) }),
                UpstreamForwarder.answers(answer, question)
            else { throw UpstreamError.badResponse(label) }
            return answer
        }.flatMapErrorThrowing { error in
            if error is UpstreamError { throw error }
            if let error = error as? HTTPClientError, error == .deadlineExceeded || error == .readTimeout {
                throw UpstreamError.timeout(label)
            }
            throw UpstreamError.connection(label, "\(error)")
        }
    }

    /// Closes the connections.
    func close() async {
        try? await client.shutdown()
    }
}
