import Foundation
import PepperActions

/// The phone's protection settings (the iOS app's "Alerts and DNS"): how a question about a
/// struck employer's site is shown (``PicketAlertMode``: a full-screen overlay or the banner
/// alone), and where DNS protection sends the names it does not answer itself
/// (``DNSUpstreamChoice``: the network's resolvers, a DNS-over-HTTPS server or the person's own
/// Pepper), with what leaves the phone under that choice.
public struct ProtectionSettingsScreen: Sendable {
    /// What a test query to a chosen server gave.
    public enum ProbeResult: Sendable, Hashable {
        /// It answered, in this many milliseconds.
        case answered(milliseconds: Int)
        /// It did not; why.
        case failed(String)
    }

    /// Sends a test query to a chosen server (the app's, through the tunnel's own upstream code).
    public typealias Probe = @Sendable (DNSUpstreamChoice) async -> ProbeResult

    /// What the screen shows.
    public struct State: Sendable, Hashable {
        /// How questions are shown.
        public var alertMode: PicketAlertMode
        /// Where DNS goes.
        public var upstream: DNSUpstreamChoice
        /// What leaves the phone with ``upstream`` (``DNSUpstreamChoice/privacyStatement``).
        public var privacy: String
    }

    /// What each kind of upstream is, for the choice on the screen.
    public static func explanation(of kind: DNSUpstreamChoice.Kind) -> String {
        switch kind {
        case .network:
            "The resolvers of the network you are on, read when DNS protection starts (as without Pepper)."
        case .dnsOverHTTPS:
            "A DNS-over-HTTPS server you trust, such as https://dns.example.net/dns-query: encrypted on the way."
        case .pepper:
            "pepper dns serve on a computer of your network, started with --listen 0.0.0.0:5335 and --allow-clients for your network: give that computer's IP:5335."
        }
    }

    /// The state.
    public let state: PepperState

    /// The screen over `state`.
    public init(state: PepperState) {
        self.state = state
    }

    /// Reads the settings.
    public func load() async throws(ScreenError) -> State {
        try await blocking { () throws(ScreenError) -> State in
            do throws(ActionError) {
                let upstream = try state.dnsUpstreamChoice()
                return State(alertMode: try state.picketAlertMode(), upstream: upstream, privacy: upstream.privacyStatement)
            } catch {
                throw ScreenError(error)
            }
        }
    }

    /// Sets how questions about struck employers' sites are shown (`overlay` or `banner`).
    public func setAlertMode(_ value: String) async -> Notice {
        await blockingAction(field: "alerts") { () throws(ActionError) -> Notice in
            let mode = try state.setPicketAlertMode(value)
            return .success("Questions about struck employers' sites: \(mode.label.lowercased()). \(mode.explanation)")
        }
    }

    /// Sets where DNS protection sends the names it does not answer itself, then (for a server
    /// the person named) sends it a test query with `probe`, so that a wrong address is said
    /// at once rather than found when every name fails.
    public func setUpstream(kind: String, address: String, probe: Probe? = nil) async -> Notice {
        guard let kind = DNSUpstreamChoice.Kind(rawValue: kind) else {
            return .error(
                Text.sentence(FieldProblem.unknownChoice(DNSUpstreamChoice.Kind.allCases.map(\.rawValue)).description), field: "kind")
        }
        let saved = await blocking { () -> Result<DNSUpstreamChoice, ActionError> in
            Result { () throws(ActionError) in try state.setDNSUpstream(kind: kind, address: address) }
        }
        let choice: DNSUpstreamChoice
        switch saved {
        case .success(let value): choice = value
        case .failure(let error):
            if case .invalidField(let field, _) = error { return .failure(error, field: field) }
            return .failure(error)
        }
        let saying = "DNS protection sends the names it does not answer to \(choice)."
        guard choice != .network, let probe else { return .success(saying) }
        switch await probe(choice) {
        case .answered(let milliseconds):
            return .success("\(saying) It answered a test query in \(milliseconds) ms.")
        case .failed(let reason):
            return Notice(
                .warning,
                "\(saying) It did not answer a test query (\(reason)): until it does, names other than struck employers' will not resolve.",
                field: "address")
        }
    }
}
