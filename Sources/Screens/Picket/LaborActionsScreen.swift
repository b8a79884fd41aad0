import Foundation
import ListSync
import PepperActions
import Picket
import Storage

/// The labor-actions screen, the person's side of the Online Picket Line: the server they
/// report to (set once; the key never shown back in full), what happens to struck employers'
/// sites and domains, and the Picket list sources in force.
public struct LaborActionsScreen: Sendable {
    /// The configured server.
    public struct Server: Sendable, Hashable {
        /// Its address.
        public var address: String
        /// The key as it may be shown (`opl_…3f9c`).
        public var maskedKey: String
    }

    /// A Picket list source (`pepper lists add picket:https://SERVER`).
    public struct ListSourceSummary: Sendable, Hashable {
        /// Its name.
        public var name: String
        /// `picket:https://…`.
        public var location: String
        /// Whether it is compiled in.
        public var enabled: Bool
        /// When it was last fetched, if ever.
        public var lastSuccess: Date?
        /// The last failure, if the last attempt failed.
        public var lastError: String?
    }

    /// What each policy does, for the choice on the screen.
    public static let policyExplanations: [(policy: PicketPolicy, text: String)] = [
        (
            .ask,
            "Ask: the browser and the DNS block page show the labor action and let you proceed anyway (the content blocker, which cannot ask, blocks)."
        ),
        (.block, "Block: struck employers' sites and domains are blocked."),
        (.allow, "Allow: nothing is blocked; visits are only counted."),
    ]

    /// Everything the screen shows.
    public struct State: Sendable, Hashable {
        /// The server, when one is set.
        public var server: Server?
        /// The policy in force.
        public var policy: PicketPolicy
        /// The Picket list sources.
        public var sources: [ListSourceSummary]
    }

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads everything the screen shows.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do throws(ActionError) {
                let connection = try state.picketConnection()
                return State(
                    server: connection.map { Server(address: $0.server.absoluteString, maskedKey: $0.maskedKey) },
                    policy: try state.picketPolicy(),
                    sources: try state.lists().filter { $0.format == PicketListSource.format }.map { source in
                        ListSourceSummary(
                            name: source.name, location: source.location, enabled: source.enabled, lastSuccess: source.lastSuccess,
                            lastError: source.lastError)
                    })
            } catch {
                throw ScreenError(error)
            }
        }
    }

    /// Sets the server and key (an empty key keeps the stored one), then asks the server for
    /// its active strikes to confirm both work.
    public func setServer(address: String, key: String) async -> Notice {
        let connection: PicketConnection
        do {
            connection = try state.setPicketConnection(server: address, key: key)
        } catch {
            if case .invalidField(let field, _) = error { return .failure(error, field: field) }
            return .failure(error)
        }
        do {
            let strikes = try await connection.client().activeStrikes()
            return .success(
                "Saved. \(connection.server.absoluteString) answers with \(Text.plural(strikes.count, "active strike")); your key is \(connection.maskedKey)."
            )
        } catch {
            var notice = PicketServerErrors.notice(error)
            notice.kind = .warning
            notice.text = "Saved, but the server did not confirm: " + notice.text.prefix(1).lowercased() + notice.text.dropFirst()
            return notice
        }
    }

    /// Forgets the server and its key.
    public func forgetServer() async -> Notice {
        await blockingAction { () throws(ActionError) -> Notice in
            try state.forgetPicketConnection()
            return .success("The Picket server and your key are forgotten.")
        }
    }

    /// Sets what happens to struck employers' sites and domains.
    public func setPolicy(_ value: String) async -> Notice {
        guard let policy = PicketPolicy(rawValue: value) else { return .error("Choose ask, block or allow.", field: "policy") }
        do {
            let (sources, _) = try await state.setPicketPolicy(policy)
            return .success(
                "Struck employers' sites: \(policy.rawValue)."
                    + (sources.isEmpty
                        ? " No Picket list is in force yet: add the server's blocklist below." : " Compiled into the content blocker."))
        } catch {
            return .failure(error)
        }
    }

    /// Subscribes to the configured server's blocklist (a Picket list source), then compiles.
    public func useServerBlocklist() async -> Notice {
        let connection: PicketConnection
        switch PicketServerErrors.connection(state) {
        case .success(let found): connection = found
        case .failure(let notice): return notice
        }
        do {
            let change = try await state.addList(
                ListRequest(source: "picket:" + connection.server.absoluteString, key: connection.key))
            return .success("Added \(change.name): \(Text.plural(change.rules ?? 0, "rule")) from the server's blocklist.")
        } catch {
            return .failure(error)
        }
    }
}
