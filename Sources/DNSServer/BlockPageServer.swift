import DNSFilter
import FilterEngine
import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Picket
import ServiceLifecycle

/// The block page (`--block-page ADDR`): a small HTTP server that tells whoever lands on it which
/// name was blocked, by which rule of which list (line number included), and how to allow it.
/// With `--block-response null`, blocked names resolve to its address, so a browser opening a
/// blocked site sees this page instead of an error. A struck employer's name (``PicketGate``)
/// always resolves here; its page shows the labor action and, under the `ask` policy, a
/// "Proceed anyway" button (`POST /proceed` on the same name) that lets the asking client through
/// for 24 hours.
public final class BlockPageServer: Service {
    /// The address actually bound.
    public let localAddress: ListenAddress
    private let channel: Channel

    /// How a person changes the Picket policy where this page is served (it is `pepper dns
    /// serve`'s page, as the allowlist command below is), given to the shared notice page.
    static let policyCommand = "pepper picket policy ask"

    private init(localAddress: ListenAddress, channel: Channel) {
        self.localAddress = localAddress
        self.channel = channel
    }

    /// Starts answering on `address`; `filter` gives the filter in use for a client at each
    /// request (its group's, see ``DNSFilterSet``).
    public static func start(
        address: ListenAddress, group: EventLoopGroup, picket: PicketGate? = nil, filter: @escaping @Sendable (IPAddress) -> DNSQueryFilter
    ) async throws -> BlockPageServer {
        let channel: Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        try channel.pipeline.syncOperations.addHandler(Handler(filter: filter, picket: picket))
                    }
                }
                .bind(host: address.host.description, port: address.port).get()
        } catch {
            throw DNSServerError.cannotListen("\(address) (block page)", DNSServer.reason(error))
        }
        let port = channel.localAddress?.port ?? address.port
        return BlockPageServer(localAddress: ListenAddress(host: address.host, port: port), channel: channel)
    }

    /// Stops it.
    public func shutdown() async {
        try? await channel.close()
    }

    /// Serves until graceful shutdown (or cancellation), then stops: as a `Service` in the
    /// DNS server's `ServiceGroup`.
    public func run() async throws {
        try? await gracefulShutdown()
        await shutdown()
    }

    /// The page for `host` (the `Host` header without its port).
    static func page(for host: String, filter: DNSQueryFilter) -> (status: HTTPResponseStatus, html: String) {
        let name = (try? DNSName(host)) ?? .root
        let verdict = filter.explanation(for: name)
        let shown = HTML.escape(host.isEmpty ? "(no name)" : host)
        guard verdict.decision == .blocked, let rule = verdict.rule else {
            return (.ok, html(title: "\(shown) is not blocked", body: "<p>Pepper does not block <b>\(shown)</b> now. Try again.</p>"))
        }
        let body = """
            <p><b>\(shown)</b> is blocked by the DNS filter on this network.</p>
            <table><tr><th>rule</th><td><code>\(HTML.escape(rule.text))</code></td></tr>
            <tr><th>list</th><td>\(HTML.escape(rule.list)), line \(rule.line)</td></tr></table>
            <p>To allow it, run <code>pepper allowlist add \(shown)</code> on the machine running
            <code>pepper dns serve</code>; it applies within seconds.</p>
            """
        return (.forbidden, html(title: "\(shown) is blocked", body: body))
    }

    private static func html(title: String, body: String) -> String {
        """
        <!doctype html>
        <html lang="en"><head><meta charset="utf-8"><title>\(title)</title>
        <style>body{font:16px system-ui,sans-serif;max-width:40em;margin:3em auto;padding:0 1em}th{text-align:left;padding-right:1em}</style>
        </head><body><h1>\(title)</h1>
        \(body)
        </body></html>

        """
    }

    final class Handler: ChannelInboundHandler {
        typealias InboundIn = HTTPServerRequestPart
        typealias OutboundOut = HTTPServerResponsePart
        let filter: @Sendable (IPAddress) -> DNSQueryFilter
        let picket: PicketGate?
        private var host = ""
        private var isProceed = false

        init(filter: @escaping @Sendable (IPAddress) -> DNSQueryFilter, picket: PicketGate?) {
            self.filter = filter
            self.picket = picket
        }

        /// The status and page for the request just read.
        private func respond(client: SocketAddress?) -> (HTTPResponseStatus, String) {
            guard let picket, let notice = picket.notice(for: host) else {
                let address = client.map(QueryResolver.address(of:)) ?? IPAddress(ipv4: 0x7F00_0001)
                return BlockPageServer.page(for: host, filter: filter(address))
            }
            let shown = HTML.escape(host)
            guard isProceed else {
                return (
                    .forbidden,
                    PicketNoticePage.html(
                        for: notice, controls: .form(proceedPath: "/proceed"), policyCommand: BlockPageServer.policyCommand)
                )
            }
            guard let client, picket.proceed(QueryResolver.address(of: client), to: notice) != nil else {
                return (
                    .forbidden,
                    PicketNoticePage.html(
                        for: notice, controls: .form(proceedPath: "/proceed"), policyCommand: BlockPageServer.policyCommand)
                )
            }
            let body = """
                <p>This device may visit <b>\(shown)</b> and the other sites of \(HTML.escape(notice.employer))
                for 24 hours. It may remember the old answer for up to \(PicketGate.answerTTL) seconds.</p>
                <p><a href="http://\(shown)/">Continue to \(shown)</a></p>
                """
            return (.ok, BlockPageServer.html(title: "Proceeding to \(shown)", body: body))
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                isProceed = head.method == .POST && head.uri.split(separator: "?").first == "/proceed"
                let value = head.headers.first(name: "host") ?? ""
                // `name:port` or `[v6]:port`: the name alone.
                host = value.hasPrefix("[") ? "" : String(value.split(separator: ":").first ?? "").lowercased()
            case .body:
                break
            case .end:
                let (status, html) = respond(client: context.channel.remoteAddress)
                var headers = HTTPHeaders()
                headers.add(name: "Content-Type", value: "text/html; charset=utf-8")
                headers.add(name: "Content-Length", value: "\(html.utf8.count)")
                headers.add(name: "Cache-Control", value: "no-store")
                headers.add(name: "Connection", value: "close")
                context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
                var buffer = context.channel.allocator.buffer(capacity: html.utf8.count)
                buffer.writeString(html)
                context.write(wrapOutboundOut(.body(.byteBuffer(buffer))), promise: nil)
                // One page per connection: nothing else is ever asked of it.
                let channel = context.channel
                context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
            }
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
