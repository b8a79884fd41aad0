import DeviceSync
import Foundation
import Storage

/// Why the serving home refused a sync request: an HTTP status and words for the device.
public struct SyncServerError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The status to answer with (400, 401, 403, 413, 422, 429, 503).
    public var status: Int
    /// Why.
    public var reason: String

    /// A refusal with this status and reason.
    public init(status: Int, reason: String) {
        self.status = status
        self.reason = reason
    }

    public var description: String { reason }
}

/// The serving home's side of sync, for the console's server (`/sync/v1`): pairs devices with
/// one-time codes, merges what they send through the checks of a person's input, answers with
/// what they lack, and holds their waits until something changes.
///
/// It keeps the home's replica in memory for the process's life and holds `sync.lock`, so only
/// one process serves a home. Exchanges run one at a time: each takes this home's own edits
/// first, then merges, applies and saves, so what is applied and what is recorded never cross.
public actor SyncServer {
    /// The home's sync.
    public let sync: HomeSync
    /// What one exchange may carry.
    public let limits: SyncLimits
    private var hub: SyncHub?
    private var lock: FileLock?
    private var busy = false
    private var queue: [CheckedContinuation<Void, Never>] = []
    private var waiters: [UUID: (after: UInt64, continuation: CheckedContinuation<Void, Never>)] = [:]
    private var requestTimes: [String: [Date]] = [:]
    /// Requests one device may make per minute (a following home makes a few; a loop, many).
    public static let requestsPerMinute = 600

    /// The serving side of `sync`'s home.
    public init(sync: HomeSync, limits: SyncLimits = SyncLimits()) {
        self.sync = sync
        self.limits = limits
    }

    // MARK: Requests

    /// Pairs a device with a one-time code.
    public func pair(_ request: SyncPairingRequest) async throws(SyncServerError) -> SyncPairingResponse {
        let hub = try await loadedHub()
        guard SyncPairingCode.isValid(request.code) else { throw SyncServerError(status: 403, reason: "that pairing code is not valid") }
        guard request.device != hub.replica.device else {
            throw SyncServerError(status: 409, reason: "\(request.device) is this home's own name: pick another device name")
        }
        let key = Self.newKey()
        let result: Result<SyncPairingStore.Device, SyncPairingStore.PairingRefusal>
        do {
            result = try sync.pairing.pair(
                codeHash: HomeSync.hash(SyncPairingCode.normalized(request.code)), name: request.device.rawValue,
                keyHash: HomeSync.hash(key))
        } catch {
            throw SyncServerError(status: 503, reason: "cannot keep the pairing: \(error)")
        }
        switch result {
        case .success: return SyncPairingResponse(device: request.device, key: key, server: hub.replica.device)
        case .failure(.unknownCode):
            throw SyncServerError(status: 403, reason: "that pairing code is unknown, was used already or expired: ask for a new one")
        case .failure(.nameTaken(let name)):
            throw SyncServerError(
                status: 409, reason: "a device named \(name) is paired already: pick another name, or remove that device first")
        }
    }

    /// Merges a device's changes and answers with a page of this home's.
    public func exchange(_ request: SyncRequest, key: String?) async throws(SyncServerError) -> SyncResponse {
        let device = try authenticate(key)
        guard request.device.rawValue == device else {
            throw SyncServerError(status: 403, reason: "this key belongs to \(device), not \(request.device)")
        }
        try limit(device)
        do {
            try limits.check(request)
        } catch {
            throw SyncServerError(status: 413, reason: error.description)
        }
        let problems = request.changes.compactMap(SyncedDecisions.problem(with:))
        guard problems.isEmpty else {
            throw SyncServerError(
                status: 422, reason: "\(problems.count) record(s) refused, nothing taken: " + problems.prefix(3).joined(separator: "; "))
        }
        await enter()
        defer { leave() }
        var hub = try await loadedHub()
        try takeLocalChanges(&hub)
        let (response, outcome): (SyncResponse, SyncMergeOutcome)
        do {
            (response, outcome) = try hub.exchange(request, now: Date())
        } catch {
            throw SyncServerError(status: 422, reason: "\(error); nothing taken")
        }
        var needsRebuild = false
        if !outcome.changed.isEmpty { needsRebuild = await sync.state.applySynced(outcome.changed, rebuild: false).needsRebuild }
        try save(&hub)
        // The answer and the waiting devices need not wait for this home's content blocker:
        // rebuilds that overlap are merged into one (`PepperState.rebuild()`).
        if needsRebuild {
            let state = sync.state
            Task { try? await state.rebuild() }
        }
        return response
    }

    /// Waits until this home has a change after `after`, or for at most `longest`.
    public func wait(
        after: UInt64, key: String?, longest: Duration = SyncWaitResponse.longestWait
    ) async throws(SyncServerError)
        -> SyncWaitResponse
    {
        let device = try authenticate(key)
        try limit(device)
        let hub = try await loadedHub()
        if hub.replica.sequence <= after {
            let id = UUID()
            let timer = Task {
                try? await Task.sleep(for: longest)
                self.release(id)
            }
            await withCheckedContinuation { continuation in waiters[id] = (after, continuation) }
            timer.cancel()
        }
        let replica = self.hub!.replica
        return SyncWaitResponse(sequence: replica.sequence, numbering: replica.numbering)
    }

    /// Takes this home's own edits every half second and wakes the devices waiting for them,
    /// until cancelled: the console runs it beside its server.
    public func watchLocalChanges() async {
        let outbox = SyncOutbox(database: sync.state.database)
        while !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(500))
            guard hub != nil, (try? outbox.hasEntries()) == true else { continue }
            await enter()
            if var hub = self.hub { try? takeLocalChanges(&hub) }
            leave()
        }
    }

    /// Takes this home's own edits now, rather than at the next half-second look.
    public func takeLocalChangesNow() async {
        await enter()
        if var hub = self.hub { try? takeLocalChanges(&hub) }
        leave()
    }

    // MARK: The replica

    private func loadedHub() async throws(SyncServerError) -> SyncHub {
        if let hub { return hub }
        let lock: FileLock
        do {
            lock = try sync.takeLock()
        } catch {
            throw SyncServerError(status: 503, reason: "\(error)")
        }
        do {
            var replica: SyncReplica
            if let saved = try sync.store.load() {
                guard saved.replica.role == .serving else {
                    throw SyncServerError(status: 503, reason: "this home follows another one: it does not serve sync")
                }
                replica = saved.replica
            } else {
                if try sync.pairing.peer() != nil {
                    throw SyncServerError(status: 503, reason: "this home follows another one: it does not serve sync")
                }
                replica = SyncReplica(device: try DeviceID(HomeSync.defaultDeviceName()), role: .serving)
                try sync.store.save(&replica, position: nil)
                let everything = try LocalChanges.everything(sync.state.database, now: Date())
                everything.record(into: &replica)
                try sync.store.save(&replica, position: nil)
                try everything.clear(sync.state.database)
            }
            var hub = SyncHub(replica: replica, limits: limits)
            hub.forgetOldDeletions(now: Date())
            self.lock = lock
            self.hub = hub
            return hub
        } catch let error as SyncServerError {
            throw error
        } catch {
            throw SyncServerError(status: 503, reason: "cannot read this home's sync state: \(error)")
        }
    }

    private func takeLocalChanges(_ hub: inout SyncHub) throws(SyncServerError) {
        do {
            let changes = try LocalChanges.read(sync.state.database)
            guard !changes.entries.isEmpty else { return }
            changes.record(into: &hub.replica)
            try sync.store.save(&hub.replica, position: nil)
            try changes.clear(sync.state.database)
            self.hub = hub
            wake()
        } catch {
            throw SyncServerError(status: 503, reason: "cannot record this home's changes: \(error)")
        }
    }

    private func save(_ hub: inout SyncHub) throws(SyncServerError) {
        do {
            try sync.store.save(&hub.replica, position: nil)
        } catch {
            throw SyncServerError(status: 503, reason: "cannot keep the sync state: \(error)")
        }
        self.hub = hub
        wake()
    }

    private func wake() {
        guard let sequence = hub?.replica.sequence else { return }
        for (id, waiter) in waiters where waiter.after < sequence {
            waiters[id] = nil
            waiter.continuation.resume()
        }
    }

    private func release(_ id: UUID) {
        waiters.removeValue(forKey: id)?.continuation.resume()
    }

    /// Waits for the exchanges before this one to finish: one at a time, so that what one applies
    /// and what the next records as this home's edits never cross.
    private func enter() async {
        if busy {
            await withCheckedContinuation { queue.append($0) }
        }
        busy = true
    }

    /// Lets the next exchange in.
    private func leave() {
        if queue.isEmpty {
            busy = false
        } else {
            queue.removeFirst().resume()
        }
    }

    // MARK: Who asks

    /// The device whose key `key` is: checked before a request's body is read, so a stranger's
    /// body is never parsed.
    ///
    /// - Throws: 401 for no key, an unknown one or a removed device's.
    public func device(for key: String?) throws(SyncServerError) -> String {
        try authenticate(key)
    }

    private func authenticate(_ key: String?) throws(SyncServerError) -> String {
        guard let key, !key.isEmpty, key.count <= 128 else {
            throw SyncServerError(status: 401, reason: "no device key: pair this device first")
        }
        let device: SyncPairingStore.Device?
        do {
            device = try sync.pairing.device(keyHash: HomeSync.hash(key))
        } catch {
            throw SyncServerError(status: 503, reason: "cannot read the paired devices: \(error)")
        }
        guard let device else {
            throw SyncServerError(status: 401, reason: "this device key is not paired with this home (removed?): pair again")
        }
        return device.name
    }

    private func limit(_ device: String) throws(SyncServerError) {
        let now = Date()
        var times = (requestTimes[device] ?? []).filter { now.timeIntervalSince($0) < 60 }
        guard times.count < Self.requestsPerMinute else {
            throw SyncServerError(status: 429, reason: "more than \(Self.requestsPerMinute) requests in a minute from \(device): slow down")
        }
        times.append(now)
        requestTimes[device] = times
    }

    private static func newKey() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return SyncInvitation.base64URL(Data(bytes))
    }
}
