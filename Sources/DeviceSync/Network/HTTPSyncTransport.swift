import Foundation

/// Sync with a serving home over HTTPS (`/sync/v1`), through a platform's ``SyncHTTPClient``.
public struct HTTPSyncTransport: SyncTransport {
    /// The client that reaches the serving home.
    public var client: any SyncHTTPClient
    /// This device's key (`nil` before pairing).
    public var key: String?

    /// A transport over `client`, authenticated with `key`.
    public init(client: any SyncHTTPClient, key: String?) {
        self.client = client
        self.key = key
    }

    /// Why the serving home refused a request, or answered what a Pepper home does not.
    public struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        /// The HTTP status (0 when no answer came).
        public var status: Int
        /// The serving home's words, or what went wrong.
        public var reason: String

        /// Whether the device's key was refused: it was removed, or never paired.
        public var isUnauthorized: Bool { status == 401 }

        public var description: String {
            status == 0 ? reason : "the serving home refused (HTTP \(status)): \(reason)"
        }
    }

    /// Pairs with the one-time `code` as `device`.
    public func pair(code: String, device: DeviceID) async throws(Refusal) -> SyncPairingResponse {
        try await call("POST", SyncPaths.pair, body: SyncPairingRequest(code: code, device: device), timeout: .seconds(30))
    }

    public func exchange(_ request: SyncRequest) async throws -> SyncResponse {
        try await call("POST", SyncPaths.exchange, body: request, timeout: .seconds(60))
    }

    /// Waits until the serving home has a change after `sequence` (or for at most
    /// ``SyncWaitResponse/longestWait``).
    public func wait(after sequence: UInt64) async throws(Refusal) -> SyncWaitResponse {
        try await call(
            "GET", SyncPaths.wait + "?after=\(sequence)", body: Optional<SyncErrorBody>.none,
            timeout: SyncWaitResponse.longestWait + .seconds(10))
    }

    private func call<Body: Encodable, Answer: Decodable>(
        _ method: String, _ path: String, body: Body?, timeout: Duration
    ) async throws(Refusal) -> Answer {
        var headers = ["accept": "application/json"]
        if let key { headers["authorization"] = "Bearer \(key)" }
        var data: Data?
        if let body {
            headers["content-type"] = "application/json"
            do {
                data = try JSONEncoder().encode(body)
            } catch {
                throw Refusal(status: 0, reason: "cannot encode the request: \(error)")
            }
        }
        let response: SyncHTTPResponse
        do {
            response = try await client.send(SyncHTTPRequest(method: method, path: path, headers: headers, body: data, timeout: timeout))
        } catch {
            throw Refusal(status: 0, reason: error.description)
        }
        guard (200..<300).contains(response.status) else {
            let reason = (try? JSONDecoder().decode(SyncErrorBody.self, from: response.body))?.error ?? "no reason given"
            throw Refusal(status: response.status, reason: reason)
        }
        do {
            return try JSONDecoder().decode(Answer.self, from: response.body)
        } catch {
            throw Refusal(status: 0, reason: "the serving home's answer does not read: \(error)")
        }
    }
}
