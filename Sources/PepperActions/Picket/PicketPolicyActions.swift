import Foundation
import ListSync
import Picket
import Storage

extension PepperState {
    /// What happens to struck employers' domains: ask, block or allow.
    public func picketPolicy() throws(ActionError) -> PicketPolicy {
        do {
            return try PicketPolicyStore(database: database).policy()
        } catch {
            throw .storage("cannot read the Picket policy: \(error)")
        }
    }

    /// Sets the Picket policy, then rebuilds when a Picket list source exists (unless `rebuild`
    /// is false).
    ///
    /// - Returns: The Picket list sources it applies to, and the rebuild.
    public func setPicketPolicy(
        _ policy: PicketPolicy, rebuild: Bool = true
    ) async throws(ActionError)
        -> (sources: [String], outcome: RebuildOutcome?)
    {
        let sources = try await onBlockingThreads { [database] () throws(ActionError) -> [String] in
            do {
                try PicketPolicyStore(database: database).setPolicy(policy)
                return try ListSourceStore(database: database).all().filter { $0.format == PicketListSource.format }.map(\.name)
            } catch {
                throw .storage("cannot change the Picket policy: \(error)")
            }
        }
        let outcome = rebuild && !sources.isEmpty ? try await self.rebuild() : nil
        return (sources, outcome)
    }
}
