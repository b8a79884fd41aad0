import Foundation
import Logging
import Picket
import PicketServer

/// A Picket server on a free loopback port, for the length of a test: the one way every test
/// suite that needs a real Picket server starts and stops it.
public final class LoopbackPicketServer: Sendable {
    /// The server's address, `http://127.0.0.1:PORT`.
    public let url: URL
    /// The port the server listens on.
    public let port: Int
    private let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.url = URL(string: "http://127.0.0.1:\(port)")!
        self.task = task
    }

    /// The server's address as text, as a person types it.
    public var address: String { url.absoluteString }

    /// Starts a server over `store`; by default it checks the store's revision on every request
    /// (interval 0), so changes made through another connection show at once.
    public static func start(
        store: any PicketStore,
        configuration: PicketServer.Configuration = .init(port: 0, requestsPerMinute: nil, revisionCheckInterval: 0),
        metrics: PicketServerMetrics = PicketServerMetrics()
    ) async throws -> LoopbackPicketServer {
        var configuration = configuration
        configuration.host = "127.0.0.1"
        configuration.port = 0
        var logger = Logger(label: "pepper.test.picket")
        logger.logLevel = .critical
        let server = PicketServer(store: store, configuration: configuration, logger: logger, metrics: metrics)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        // On the cooperative threads, as in production: the tests wait for their child
        // processes on threads of their own (`onOwnThread`), never on these.
        let task = Task { try await server.run(handleSignals: false) { port in continuation.yield(port) } }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw CancellationError()
        }
        return LoopbackPicketServer(port: port, task: task)
    }

    /// A client with `key`.
    public func client(_ key: String) -> PicketClient {
        PicketClient(server: url, apiKey: key, timeout: 20)
    }

    /// Stops the server (gracefully) and waits for it.
    public func stop() async {
        task.cancel()
        _ = try? await task.value
    }
}
