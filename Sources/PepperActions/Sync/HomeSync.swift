import Crypto
import DeviceSync
import Foundation
import Storage

/// A home's sync with the person's other devices (`docs/sync.md`): pairing, pushing and pulling
/// changes as a following home, the pairing codes and devices of a serving home, and the status.
/// The command line (`pepper sync`), the console and the app all call this; the serving side of
/// the exchange is ``SyncServer``.
///
/// One process at a time holds a home's sync replica: each sync takes `sync.lock` in the home
/// (a follower for as long as it follows, a serving console for its life), so two processes
/// never number changes side by side.
public final class HomeSync: Sendable {
    /// The home's state.
    public let state: PepperState

    /// The sync of `state`'s home.
    public init(state: PepperState) {
        self.state = state
    }

    var pairing: SyncPairingStore { SyncPairingStore(database: state.database) }
    var store: SyncStore { SyncStore(database: state.database) }

    /// How the error of a device the serving home removed begins (its status's `lastError`
    /// then begins so too): such a device must pair again.
    public static let removedPrefix = "this device was removed"

    /// How long a pairing code is good for by default.
    public static let codeLifetime: Duration = .seconds(10 * 60)

    // MARK: Status

    /// Where this home stands.
    public func status() throws(ActionError) -> SyncStatus {
        do {
            let summary = try store.summary()
            let peer = try pairing.peer()
            let outbox = try state.database.writer.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM syncOutbox") ?? 0 }
            let role: SyncStatus.Role =
                switch summary?.ledger.role {
                case .serving?: .serving
                case .following?: .following
                case nil: peer == nil ? .none : .following
                }
            return SyncStatus(
                role: role, device: summary?.ledger.latest.device.rawValue ?? peer?.device,
                server: peer.flatMap { URL(string: $0.server) }, trust: peer.map(Self.trust(of:)), lastSync: peer?.lastSync,
                lastError: peer?.lastError, pendingChanges: outbox + (summary?.unsent ?? 0), records: summary?.liveRecords ?? 0,
                devices: role == .serving ? try pairing.devices() : [])
        } catch let error as ActionError {
            throw error
        } catch {
            throw .storage("cannot read the sync state: \(error)")
        }
    }

    static func trust(of peer: SyncPairingStore.Peer) -> SyncServerTrust {
        guard let pin = peer.pin, let data = SyncInvitation.base64URLDecoded(pin) else { return .system }
        return .pinned(sha256: data)
    }

    // MARK: A serving home

    /// A new one-time invitation to pair with this home at `server` (its console's address),
    /// trusting the certificate whose SHA-256 is `pin`; good for `validFor`.
    public func invitation(server: URL, pin: Data?, validFor: Duration = HomeSync.codeLifetime) throws(ActionError) -> SyncInvitation {
        if let summary = try? store.summary(), summary.ledger.role == .following {
            throw .sync("this home follows another one: pair devices with the serving home instead (or `pepper sync leave` first)")
        }
        if (try? pairing.peer()) != nil {
            throw .sync("this home follows another one: pair devices with the serving home instead (or `pepper sync leave` first)")
        }
        let code = SyncPairingCode.make()
        let invitation: SyncInvitation
        do {
            invitation = try SyncInvitation(server: server, code: code, pin: pin)
        } catch {
            throw .sync("\(error)")
        }
        do {
            try pairing.addCode(hash: Self.hash(code), expiresAt: Date().addingTimeInterval(Double(validFor.components.seconds)))
        } catch {
            throw .storage("cannot keep the pairing code: \(error)")
        }
        return invitation
    }

    /// The devices paired with this home.
    public func devices() throws(ActionError) -> [SyncPairingStore.Device] {
        do {
            return try pairing.devices()
        } catch {
            throw .storage("cannot read the paired devices: \(error)")
        }
    }

    /// Removes a paired device: its key is refused from its next request on.
    ///
    /// - Throws: ``ActionError/sync(_:)`` when no device has that name.
    public func removeDevice(_ name: String) throws(ActionError) {
        let removed: Bool
        do {
            removed = try pairing.removeDevice(name)
        } catch {
            throw .storage("cannot remove the device: \(error)")
        }
        guard removed else { throw .sync("no device named \(name) is paired with this home") }
    }

    /// Why a certificate file cannot give a pin.
    public struct PinError: Error, Sendable, Hashable, CustomStringConvertible {
        /// What is wrong.
        public var description: String
    }

    /// The SHA-256 of the last certificate in a PEM file (the authority, when the file holds a
    /// chain): what an invitation pins.
    public static func pin(ofPEMFile url: URL) throws(PinError) -> Data {
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { throw PinError(description: "cannot read it") }
        let blocks = text.components(separatedBy: "-----BEGIN CERTIFICATE-----").dropFirst()
        guard let last = blocks.last, let body = last.components(separatedBy: "-----END CERTIFICATE-----").first,
            let der = Data(base64Encoded: body.filter { !$0.isWhitespace })
        else { throw PinError(description: "no PEM certificate in it") }
        return Data(SHA256.hash(data: der))
    }

    /// The SHA-256 of a code or key, hex: what a serving home stores instead of the secret.
    static func hash(_ secret: String) -> String {
        SHA256.hash(data: Data(secret.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    /// A name for this home in sync, from the machine's host name (`a-z`, `0-9`, `-`).
    public static func defaultDeviceName() -> String {
        let host = ProcessInfo.processInfo.hostName.lowercased().split(separator: ".").first.map(String.init) ?? ""
        let cleaned = String(host.map { ($0.isASCII && ($0.isLetter || $0.isNumber)) ? $0 : "-" }.prefix(48))
            .trimmingCharacters(in: CharacterSet(charactersIn: "-"))
        return cleaned.isEmpty ? "pepper" : cleaned
    }

    // MARK: A following home

    /// Pairs this home with the serving home of `invitation` as `deviceName`, then syncs once.
    ///
    /// - Throws: ``ActionError/sync(_:)`` when this home serves or follows already, the name is
    ///   not a device name, or the serving home refused the code (expired, used, or the name is
    ///   taken there).
    @discardableResult
    public func pair(_ invitation: SyncInvitation, deviceName: String, client: any SyncHTTPClient) async throws(ActionError) -> SyncStatus {
        let device: DeviceID
        do {
            device = try DeviceID(deviceName)
        } catch {
            throw .sync("\(error)")
        }
        if let summary = try? store.summary() {
            throw .sync(
                summary.ledger.role == .serving
                    ? "this home serves sync to other devices: it cannot follow another one"
                    : "this home follows a serving home already: `pepper sync leave` first")
        }
        let answer: SyncPairingResponse
        do {
            answer = try await HTTPSyncTransport(client: client, key: nil).pair(code: invitation.code, device: device)
        } catch {
            throw .sync("cannot pair with \(invitation.server.absoluteString): \(error)")
        }
        let peer = SyncPairingStore.Peer(
            server: invitation.server.absoluteString, pin: invitation.pin.map(SyncInvitation.base64URL), device: answer.device.rawValue,
            key: answer.key, pairedAt: Date())
        do {
            try pairing.setPeer(peer)
        } catch {
            throw .storage("cannot keep the pairing: \(error)")
        }
        _ = try await syncNow(client: client)
        return try status()
    }

    /// Stops following the serving home: the pairing and this home's sync records are
    /// forgotten; its decisions stay as they are.
    public func leave() throws(ActionError) {
        let lock = try takeLock()
        defer { withExtendedLifetime(lock) {} }
        do {
            try pairing.removePeer()
            try state.database.write { db in
                try db.execute(sql: "DELETE FROM syncRecord")
                try db.execute(sql: "DELETE FROM syncLedger")
                try db.execute(sql: "DELETE FROM syncOutbox")
            }
        } catch {
            throw .storage("cannot forget the pairing: \(error)")
        }
    }

    /// Pushes this home's changes and pulls the serving home's until neither has more, applying
    /// what changed (one rebuild at the end).
    public func syncNow(client: any SyncHTTPClient) async throws(ActionError) -> SyncRunReport {
        let lock = try takeLock()
        defer { withExtendedLifetime(lock) {} }
        var session = try FollowerSession(sync: self, client: client)
        return try await session.run()
    }

    /// Follows the serving home until cancelled: syncs, then waits for a change on either side
    /// (the serving home holds a request open until it has one; local edits are looked for every
    /// fifth of a second) and syncs again. Failures are noted in the status and retried, waiting
    /// longer each time (up to a minute).
    ///
    /// - Parameters:
    ///   - client: the HTTPS client for the serving home (``status()``'s server and trust).
    ///   - onSync: called after every sync with its report or error.
    public func follow(
        client: any SyncHTTPClient, onSync: @escaping @Sendable (Result<SyncRunReport, ActionError>) -> Void = { _ in }
    ) async throws(ActionError) {
        let lock = try takeLock()
        defer { withExtendedLifetime(lock) {} }
        var session = try FollowerSession(sync: self, client: client)
        var backoff = 1.0
        while !Task.isCancelled {
            do {
                let report = try await session.run(rebuildInBackground: true)
                onSync(.success(report))
                backoff = 1
                await session.waitForChange()
            } catch {
                onSync(.failure(error))
                if case .sync(let reason) = error, reason.hasPrefix(Self.removedPrefix) { throw error }
                try? await Task.sleep(for: .seconds(backoff))
                backoff = min(backoff * 2, 60)
            }
        }
    }

    func takeLock() throws(ActionError) -> FileLock {
        do {
            return try FileLock(path: state.home.syncLockURL.path, wait: false)
        } catch {
            throw .sync("another Pepper process syncs this home now (it holds sync.lock): wait for it, or stop it")
        }
    }
}

/// What one sync did.
public struct SyncRunReport: Sendable, Hashable {
    /// Records this home sent.
    public var sent = 0
    /// Records received that changed something here.
    public var received = 0
    /// How applying them went.
    public var applied = SyncApplyReport()
    /// Exchanges it took.
    public var exchanges = 0
    /// Changes of this home refused by the serving home as older than its retention.
    public var refused: [String] = []

    /// Nothing done yet.
    public init() {}
}
