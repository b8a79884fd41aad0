import Foundation

/// The paths of Pepper-to-Pepper sync on the serving home (`docs/sync.md`).
public enum SyncPaths {
    /// `POST`: pair with a one-time code (``SyncPairingRequest`` → ``SyncPairingResponse``).
    public static let pair = "/sync/v1/pair"
    /// `POST`: push changes and pull a page (``SyncRequest`` → ``SyncResponse``).
    public static let exchange = "/sync/v1/exchange"
    /// `GET ?after=N`: held until the serving home has a change after N, or for at most
    /// ``SyncWaitResponse/longestWait`` (→ ``SyncWaitResponse``).
    public static let wait = "/sync/v1/wait"
}

/// A device asking to pair.
public struct SyncPairingRequest: Sendable, Hashable, Codable {
    /// The one-time code from the invitation.
    public var code: String
    /// The name this device will sync as.
    public var device: DeviceID

    /// A request with these parts.
    public init(code: String, device: DeviceID) {
        self.code = code
        self.device = device
    }
}

/// The serving home's answer to a pairing.
public struct SyncPairingResponse: Sendable, Hashable, Codable {
    /// The device as paired.
    public var device: DeviceID
    /// The device's key: sent as `Authorization: Bearer KEY` from now on, stored hashed there.
    public var key: String
    /// The serving home's own device name.
    public var server: DeviceID

    /// An answer with these parts.
    public init(device: DeviceID, key: String, server: DeviceID) {
        self.device = device
        self.key = key
        self.server = server
    }
}

/// The answer to a held wait.
public struct SyncWaitResponse: Sendable, Hashable, Codable {
    /// The serving home's latest change number (greater than the request's `after` when
    /// something changed).
    public var sequence: UInt64
    /// The serving home's numbering that ``sequence`` counts in.
    public var numbering: String

    /// The longest a wait is held: under common proxies' idle timeouts.
    public static let longestWait: Duration = .seconds(25)

    /// An answer with these parts.
    public init(sequence: UInt64, numbering: String) {
        self.sequence = sequence
        self.numbering = numbering
    }
}

/// A refusal's body: `{"error": "…"}` with a 4xx or 5xx status.
public struct SyncErrorBody: Sendable, Hashable, Codable {
    /// Why, in words a person can act on.
    public var error: String

    /// A body saying `error`.
    public init(error: String) { self.error = error }
}
