import Foundation
import Picket

/// The moderation screen, beside a Picket store (the home's `pepper.sqlite` or a PostgreSQL
/// database): pending strikes and snapshots with their details and a map-free location summary,
/// approve or reject with an optional reason, and the audit trail of who decided when.
public struct ModerationScreen: Sendable {
    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// Pending submissions, oldest first.
        public var pending: [PicketModeration.Submission]
        /// The latest decisions, newest first.
        public var log: [ModerationLogEntry]
    }

    /// How many decisions the screen shows.
    public static let logLength = 50

    /// The moderation service (who decides is its ``PicketModeration/moderator``).
    public let moderation: PicketModeration

    /// The screen over `moderation`.
    public init(moderation: PicketModeration) {
        self.moderation = moderation
    }

    /// Reads the pending submissions and the audit trail.
    public func load() async throws(ScreenError) -> State {
        do {
            return State(pending: try await moderation.pending(), log: try await moderation.log(limit: Self.logLength))
        } catch {
            throw ScreenError("Cannot read the Picket store (\(moderation.store.kind)): \(error).")
        }
    }

    /// Approves a submission: a strike publishes its employer and action, a snapshot adds a
    /// picket site to its action.
    public func approve(_ id: String, reason: String?) async -> Notice {
        await decide(id, .approve, reason: reason)
    }

    /// Rejects a submission: it is kept, never served.
    public func reject(_ id: String, reason: String?) async -> Notice {
        await decide(id, .reject, reason: reason)
    }

    private func decide(_ id: String, _ decision: ModerationDecision, reason: String?) async -> Notice {
        do {
            switch try await moderation.decide(id, decision, reason: reason) {
            case .strike(let id, _, let status):
                return .success(
                    status == .approved
                        ? "Approved \(id): the strike is published, and its employer's website joins the blocklist."
                        : "Rejected \(id): it will never be served.")
            case .snapshot(let id, let actionId, let status, let siteId):
                return .success(
                    status == .approved
                        ? "Approved \(id): picket site \(siteId ?? "") added to \(actionId)." : "Rejected \(id): it will never be served.")
            }
        } catch let error as PicketModeration.RequestError {
            return .error(Text.sentence(error.description), field: "reason")
        } catch let error as PicketStoreError {
            return .error(Text.sentence(error.description))
        } catch {
            return .error("Cannot record the decision: \(error).")
        }
    }
}
