import DeviceSync
import Foundation
import PepperActions

/// A `SyncHTTPClient` handing requests to a serving home's `SyncServer` in this process, as the
/// console's `/sync/v1` does over HTTPS (the app's own client, `URLSessionSyncHTTPClient`, needs
/// Apple's URL loading; its decisions are `SyncTransferTests`'). Counts the requests.
public final class InProcessSyncClient: SyncHTTPClient, @unchecked Sendable {
    /// The serving home requests go to.
    public let server: SyncServer
    /// How long a `/sync/v1/wait` is held (the console holds it 25 s).
    public let longestWait: Duration
    private let lock = NSLock()
    private var sent = 0
    private var offline = false

    /// A client of `server`, holding a wait at most `longestWait`.
    public init(_ server: SyncServer, longestWait: Duration = .seconds(20)) {
        self.server = server
        self.longestWait = longestWait
    }

    /// How many requests it was given.
    public var requests: Int { lock.withLock { sent } }
    /// Whether requests fail as if the network were gone.
    public var isOffline: Bool {
        get { lock.withLock { offline } }
        set { lock.withLock { offline = newValue } }
    }

    public func send(_ request: SyncHTTPRequest) async throws(SyncHTTPError) -> SyncHTTPResponse {
        lock.withLock { sent += 1 }
        if isOffline { throw .cannotConnect("home.example", reason: "offline") }
        if Task.isCancelled { throw .cannotConnect("home.example", reason: "the request was cancelled") }
        let key = request.headers["authorization"].map { String($0.dropFirst("Bearer ".count)) }
        do {
            let body: Data
            switch request.path.split(separator: "?").first.map(String.init) {
            case SyncPaths.pair:
                body = try JSONEncoder().encode(try await server.pair(JSONDecoder().decode(SyncPairingRequest.self, from: request.body!)))
            case SyncPaths.exchange:
                body = try JSONEncoder().encode(
                    try await server.exchange(JSONDecoder().decode(SyncRequest.self, from: request.body!), key: key))
            default:
                // Held up to `longestWait`; a cancelled caller stops waiting at once, as a
                // cancelled request over the network does.
                let after = UInt64(request.path.split(separator: "=").last!)!
                let server = self.server
                let longest = longestWait
                let answer = try await Self.untilCancelled { try await server.wait(after: after, key: key, longest: longest) }
                body = try JSONEncoder().encode(answer)
            }
            return SyncHTTPResponse(status: 200, body: body)
        } catch let error as SyncServerError {
            return SyncHTTPResponse(status: error.status, body: try! JSONEncoder().encode(SyncErrorBody(error: error.reason)))
        } catch {
            return SyncHTTPResponse(status: 400, body: try! JSONEncoder().encode(SyncErrorBody(error: "\(error)")))
        }
    }
}

extension InProcessSyncClient {
    /// The calling task was cancelled.
    public struct Cancelled: Error {}

    /// `operation`'s result, or `Cancelled` as soon as the calling task is cancelled (the
    /// operation is then left to finish on its own).
    public static func untilCancelled<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) async throws -> T {
        let once = Once<Result<T, any Error>>()
        let work = Task {
            do {
                once.resume(.success(try await operation()))
            } catch {
                once.resume(.failure(error))
            }
        }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in once.set(continuation) }
        } onCancel: {
            once.resume(.failure(Cancelled()))
        }
        if case .failure = result { work.cancel() }
        return try result.get()
    }
}

/// A continuation resumed once, by whichever comes first (before or after it is set).
public final class Once<Value: Sendable>: @unchecked Sendable {
    /// An empty one.
    public init() {}

    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, Never>?
    private var value: Value?

    /// Keeps `continuation`, or resumes it at once with the value that came first.
    public func set(_ continuation: CheckedContinuation<Value, Never>) {
        let ready: Value? = lock.withLock {
            if let value { return value }
            self.continuation = continuation
            return nil
        }
        if let ready { continuation.resume(returning: ready) }
    }

    /// Resumes with `value` unless a value came before.
    public func resume(_ value: Value) {
        let waiting: CheckedContinuation<Value, Never>? = lock.withLock {
            guard self.value == nil else { return nil }
            self.value = value
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }
}
