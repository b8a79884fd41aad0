import DeviceSync
import Foundation
import Storage

/// A following home's sync with its serving home, for as long as one holds `sync.lock`: the
/// follower loaded once, then exchanges until both sides have everything.
struct FollowerSession {
    let sync: HomeSync
    let transport: HTTPSyncTransport
    var follower: SyncFollower
    var peer: SyncPairingStore.Peer
    /// Records received, to apply: by identity, the latest copy.
    private var state: PepperState { sync.state }

    init(sync: HomeSync, client: any SyncHTTPClient) throws(ActionError) {
        self.sync = sync
        do {
            guard let peer = try sync.pairing.peer() else {
                throw ActionError.sync("this home is not paired: `pepper sync pair INVITATION` with a code from the serving home")
            }
            self.peer = peer
            transport = HTTPSyncTransport(client: client, key: peer.key)
            if let saved = try sync.store.load() {
                guard saved.replica.role == .following else { throw ActionError.sync("this home serves sync: it follows nobody") }
                follower = SyncFollower(replica: saved.replica, position: saved.position ?? .init())
            } else {
                // The ledger first, so that the triggers note every edit from now on; then
                // everything the home holds, as this home's changes.
                var replica = SyncReplica(device: try DeviceID(peer.device), role: .following)
                try sync.store.save(&replica, position: SyncFollower.Position())
                let everything = try LocalChanges.everything(sync.state.database, now: Date())
                everything.record(into: &replica)
                try sync.store.save(&replica, position: SyncFollower.Position())
                try everything.clear(sync.state.database)
                follower = SyncFollower(replica: replica)
            }
        } catch let error as ActionError {
            throw error
        } catch {
            throw .storage("cannot read the sync state: \(error)")
        }
    }

    /// Takes local edits, then exchanges pages until neither side has more; applies what
    /// changed as it arrives and rebuilds once at the end.
    ///
    /// - Parameter rebuildInBackground: whether the rebuild runs on its own while this returns (a
    ///   follower goes back to waiting at once; overlapping rebuilds merge into one), rather than
    ///   before it returns (`pepper sync now` leaves the home compiled).
    mutating func run(rebuildInBackground: Bool = false) async throws(ActionError) -> SyncRunReport {
        var report = SyncRunReport()
        do {
            try takeLocalChanges()
            var rebuild = false
            for _ in 0..<100_000 {
                let request = follower.request(limit: 1000)
                report.sent += request.changes.count
                let response: SyncResponse
                do {
                    response = try await transport.exchange(request)
                } catch let refusal as HTTPSyncTransport.Refusal where refusal.isUnauthorized {
                    throw ActionError.sync(
                        "\(HomeSync.removedPrefix) from the serving home (its key is refused): pair again with a new code")
                } catch {
                    throw ActionError.sync("cannot sync with \(peer.server): \(error)")
                }
                report.exchanges += 1
                let outcome: SyncMergeOutcome
                do {
                    outcome = try follower.receive(response, now: Date())
                } catch {
                    throw ActionError.sync("the serving home's changes were refused: \(error)")
                }
                report.refused += outcome.refused.map(\.description)
                report.received += outcome.changed.count
                if !outcome.changed.isEmpty {
                    let applied = await state.applySynced(outcome.changed, rebuild: false)
                    report.applied.applied += applied.applied
                    report.applied.refused += applied.refused
                    rebuild = rebuild || applied.needsRebuild
                }
                try sync.store.save(&follower)
                // What applying wrote fired the triggers: taken now (it reads back as received,
                // so it writes nothing), the outbox stays small however large the sync.
                try takeLocalChanges()
                if !response.more && !follower.hasUnsentChanges { break }
            }
            if rebuild && rebuildInBackground {
                let state = self.state
                Task { try? await state.rebuild() }
                report.applied.rebuilt = true
            } else if rebuild {
                do {
                    try await state.rebuild()
                    report.applied.rebuilt = true
                } catch {
                    report.applied.refused.append("rebuild: \(error)")
                }
            }
            try sync.pairing.noteSync(at: Date(), error: nil)
            return report
        } catch {
            let failure = (error as? ActionError) ?? .storage("cannot keep the sync state: \(error)")
            // A sync cancelled on purpose (the app leaving the front, its background time out)
            // failed at nothing: the status keeps what it said.
            if !Task.isCancelled { try? sync.pairing.noteSync(at: Date(), error: failure.description) }
            throw failure
        }
    }

    /// Records what the person changed since the last look.
    mutating func takeLocalChanges() throws {
        let changes = try LocalChanges.read(state.database)
        guard !changes.entries.isEmpty else { return }
        _ = follower.updateReplica { changes.record(into: &$0) }
        try sync.store.save(&follower)
        try changes.clear(state.database)
    }

    /// Returns when the serving home has a change this home lacks or the person changed
    /// something here (looked for five times a second), or after the serving home's longest wait.
    func waitForChange() async {
        let cursor = follower.cursor
        let transport = self.transport
        let outbox = SyncOutbox(database: state.database)
        let (signals, signal) = AsyncStream<Void>.makeStream()
        // Unstructured on purpose: the first signal ends the wait at once, without waiting for
        // the other side to notice its cancellation (a held request ends when its connection
        // closes, a sleep when it wakes).
        let waiting = Task {
            // An error (the serving home restarting, the network gone) ends the wait too: the
            // next sync says what is wrong, then the loop waits longer.
            _ = try? await transport.wait(after: cursor)
            signal.yield()
        }
        let polling = Task {
            while !Task.isCancelled {
                if (try? outbox.hasEntries()) == true { break }
                try? await Task.sleep(for: .milliseconds(200))
            }
            signal.yield()
        }
        // Cancelling the follower (the app leaving the front) ends the wait at once as well.
        await withTaskCancellationHandler {
            for await _ in signals { break }
        } onCancel: {
            signal.finish()
        }
        waiting.cancel()
        polling.cancel()
    }
}
