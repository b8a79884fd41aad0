import CallFilter
import DeviceSync
import Foundation
import Storage

/// What applying a batch of synced records did.
public struct SyncApplyReport: Sendable, Hashable {
    /// Records applied (created, changed or removed here).
    public var applied = 0
    /// Records not applied, each with why (kept in sync's replica, named by `pepper sync status`).
    public var refused: [String] = []
    /// Whether the content blocker was rebuilt (once for the batch).
    public var rebuilt = false
    /// Whether the content blocker depends on what was applied (rebuilt unless the caller
    /// rebuilds once after several batches).
    public var needsRebuild = false
    /// Records not applied because the person changed them here meanwhile: their edit is newer
    /// and goes out as this home's change.
    public var superseded = 0

    /// Nothing applied yet.
    public init() {}
}

extension PepperState {
    /// Applies records that changed for the person to the home's state, each through the checks
    /// of a person's input, then rebuilds once when the content blocker depends on any of them.
    /// A record that fails its checks is skipped and named in the report; the others apply.
    func applySynced(_ records: [SyncRecord], rebuild rebuildNow: Bool = true) async -> SyncApplyReport {
        var report = SyncApplyReport()
        // An edit made here after sync last looked is newer than anything this batch could
        // bring (the clock has seen the batch's stamps by the time the edit is recorded): keep it.
        let pending = pendingOutboxKeys()
        let incoming = records.count
        let records = records.filter { !pending.contains($0.id.description) }
        report.superseded = incoming - records.count
        var allowlist: [(String, Date?)] = []
        var allowlistRemovals: [String] = []
        var calls: [CallKey: [CallDirectoryEntry]] = [:]
        var callRemovals: [CallDirectoryEntryKind: [Int64]] = [:]
        var later: [(SyncRecord, SyncedDecisions.Operation?)] = []
        var rebuild = false
        for record in records {
            guard record.isLive else {
                switch record.id.kind {
                case .allowlistEntry: allowlistRemovals.append(record.id.key)
                case .callNumber:
                    let parts = record.id.key.split(separator: ":", maxSplits: 1)
                    if parts.count == 2, let kind = CallDirectoryEntryKind(rawValue: String(parts[0])),
                        let number = Int64(parts[1].dropFirst())
                    {
                        callRemovals[kind, default: []].append(number)
                    }
                default: later.append((record, nil))
                }
                continue
            }
            let operation: SyncedDecisions.Operation
            do {
                operation = try SyncedDecisions.Operation(record: record)
            } catch {
                report.refused.append("\(record.id): \(error)")
                continue
            }
            switch operation {
            case .allowlist(let domain, let expires): allowlist.append((domain, expires))
            case .callNumber(let kind, let number, let label, let pattern):
                calls[CallKey(kind: kind, pattern: pattern), default: []].append(CallDirectoryEntry(number: number, label: label))
            default: later.append((record, operation))
            }
        }
        // The bulk kinds in one transaction each: a first sync brings tens of thousands.
        if !allowlist.isEmpty || !allowlistRemovals.isEmpty {
            do {
                try AllowlistStore(database: database).apply(adding: allowlist, removing: allowlistRemovals)
                report.applied += allowlist.count + allowlistRemovals.count
                rebuild = true
            } catch {
                report.refused.append("allowlist: \(error)")
            }
        }
        let callStore = CallListStore(database: database)
        for (key, entries) in calls.sorted(by: {
            ($0.key.kind.rawValue, $0.key.pattern ?? "") < ($1.key.kind.rawValue, $1.key.pattern ?? "")
        }) {
            do {
                try callStore.add(key.kind, entries, pattern: key.pattern)
                report.applied += entries.count
            } catch {
                report.refused.append("call list: \(error)")
            }
        }
        for (kind, numbers) in callRemovals.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            do {
                try callStore.remove(kind, numbers)
                report.applied += numbers.count
            } catch {
                report.refused.append("call list: \(error)")
            }
        }
        let region = (try? phoneRegion()) ?? "US"
        for (record, operation) in later {
            do {
                rebuild = try await applyOne(record, operation, region: region) || rebuild
                report.applied += 1
            } catch {
                report.refused.append("\(record.id): \(error)")
            }
        }
        report.needsRebuild = rebuild
        if rebuild && rebuildNow {
            do {
                try await self.rebuild()
                report.rebuilt = true
            } catch {
                report.refused.append("rebuild: \(error)")
            }
        }
        return report
    }

    /// The records named in the outbox now, as `kind:key`.
    private func pendingOutboxKeys() -> Set<String> {
        let entries = (try? database.writer.read { db in try SyncOutbox.entries(db) }) ?? []
        return Set(entries.map { "\($0.kind):\($0.key)" })
    }

    private struct CallKey: Hashable {
        var kind: CallDirectoryEntryKind
        var pattern: String?
    }

    /// Applies one record of the kinds that go one by one; returns whether the content blocker
    /// depends on it.
    private func applyOne(_ record: SyncRecord, _ operation: SyncedDecisions.Operation?, region: String) async throws(ActionError) -> Bool {
        let key = record.id.key
        switch operation {
        case nil:
            switch record.id.kind {
            case .myRule:
                do {
                    try await removeRule(key, rebuild: false)
                } catch .unknownRule {
                    // Gone here already: nothing to apply.
                }
                return true
            case .listSubscription:
                guard let source = try lists().first(where: { ListSource.isWeb(key) ? $0.location == key : $0.name == key }) else {
                    return false
                }
                if source.builtIn {
                    _ = try await disableList(source.name, rebuild: false)
                } else {
                    _ = try await removeList(source.name, rebuild: false)
                }
                return true
            case .picketSettings:
                // The server forgotten elsewhere: forget the address here (the key stays in this
                // device's key store). A policy is never deleted.
                if key == "server" {
                    do {
                        try PreferenceStore(database: database).set(.picketServer, nil)
                    } catch {
                        throw .storage("cannot change the Picket server settings: \(error)")
                    }
                }
                return false
            case .messageRule:
                let store = MessageRuleStore(database: database)
                do {
                    if key.hasPrefix("sender:") {
                        try store.unblockSender(String(key.dropFirst("sender:".count)))
                    } else {
                        let parts = key.dropFirst("word:".count).split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
                        let sender = parts.count == 2 ? String(parts[1]) : ""
                        try store.removeWord(String(parts[0]), sender: sender.isEmpty ? nil : sender)
                    }
                } catch {
                    throw .storage("cannot change the message rules: \(error)")
                }
                return false
            default: return false
            }
        case .rule(let text):
            try await addRule(text, rebuild: false)
            return true
        case .builtInList(let name, let enabled, let categories):
            if enabled {
                _ = try await enableList(name, categories: categories, rebuild: false)
            } else {
                _ = try await disableList(name, rebuild: false)
            }
            return true
        case .customList(let url, let name, let format, let enabled, let categories):
            if let existing = try lists().first(where: { $0.location == url }) {
                if enabled {
                    _ = try await enableList(existing.name, categories: categories, rebuild: false)
                } else {
                    _ = try await disableList(existing.name, rebuild: false)
                }
            } else {
                _ = try await addList(ListRequest(source: url, name: name, format: format, categories: categories), rebuild: false)
                if !enabled { _ = try await disableList(name, rebuild: false) }
            }
            return true
        case .messageWord(let rule):
            _ = try addMessageWord(rule.word, action: rule.action, subAction: rule.subAction, sender: rule.sender, region: region)
            return false
        case .blockedSender(let sender):
            _ = try blockSender(sender, region: region)
            return false
        case .picketServer(let address):
            do {
                try PreferenceStore(database: database).set(.picketServer, address)
            } catch {
                throw .storage("cannot change the Picket server settings: \(error)")
            }
            return false
        case .picketPolicy(let policy):
            return try await !setPicketPolicy(policy, rebuild: false).sources.isEmpty
        case .allowlist, .callNumber:
            return false
        }
    }
}
